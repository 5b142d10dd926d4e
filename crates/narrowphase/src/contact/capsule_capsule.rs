//! Contact between two capsules.

use super::Contact;
use crate::closest::{closest_points_segment_segment, ClosestPoints};
use crate::math::{normalize_any, within_distance, UnitVector, Vector};
use crate::relative::about;
use crate::shape::Capsule;

/// The contact between capsules A and B, `None` when apart: the closest points
/// `s_a`, `s_b` of the core segments (Ericson 5.1.9) act as two sphere centres,
/// `normal = (s_b - s_a) / |s_b - s_a|`, `depth = r_a + r_b - |s_b - s_a|`.
/// Crossing segments (distance 0) take the normal of the plane they span,
/// oriented from A's centre to B's, or `+x` when the segments are parallel.
#[must_use]
pub fn contact_capsule_capsule(a: &Capsule, b: &Capsule) -> Option<Contact> {
    about(a, b, &a.a().coords, contact_capsule_capsule_in_place)
}

/// [`contact_capsule_capsule`] in the shapes' own coordinates (no move to a point of
/// theirs): for callers that have moved them already.
#[inline(always)]
pub(crate) fn contact_capsule_capsule_in_place(a: &Capsule, b: &Capsule) -> Option<Contact> {
    let ClosestPoints { point_a: sa, point_b: sb } = closest_points_segment_segment(a.a(), a.b(), b.a(), b.b());
    let d = sb - sa;
    let dist2 = d.norm_squared();
    let r = a.radius() + b.radius();
    if !within_distance(&d, r) {
        return None;
    }
    let dist = dist2.sqrt();
    // `normalize_any`: `|d|` is exact to rounding even when `|d|^2` is
    // subnormal (B28: a normal of length 0.99).
    let normal = normalize_any(&d).unwrap_or_else(|| {
        let n = (a.b() - a.a()).cross(&(b.b() - b.a()));
        let towards_b = nalgebra::center(b.a(), b.b()) - nalgebra::center(a.a(), a.b());
        let n = if n.dot(&towards_b) < 0.0 { -n } else { n };
        normalize_any(&n).unwrap_or(UnitVector::new_unchecked(Vector::x()))
    });
    let point_a = sa + normal.into_inner() * a.radius();
    let point_b = sb - normal.into_inner() * b.radius();
    Some(Contact { point_a, point_b, normal, depth: r - dist })
}
