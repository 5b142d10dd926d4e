//! Contact between a sphere and a capsule.

use super::sphere_sphere::COINCIDENT_FALLBACK_NORMAL;
use super::Contact;
use crate::closest::closest_point_segment;
use crate::math::{within_distance, Real, UnitVector, Vector};
use crate::relative::about;
use crate::shape::{Capsule, Sphere};

/// The contact between a solid sphere (A) and a solid capsule (B); `None`
/// when they are disjoint. Touching gives `Some` with `depth == 0`.
///
/// A capsule is the set of points within `r_b` of its segment, so the contact
/// is the sphere-sphere contact between A and the sphere of radius `r_b`
/// centred at `q`, the segment point closest to A's centre (Ericson,
/// Real-Time Collision Detection, 4.5.1 and 5.1.2): with `d = q - c_a`,
/// they touch iff `|d| <= r_a + r_b`, the normal is `d / |d|`, the depth
/// `r_a + r_b - |d|`, `point_a = c_a + r_a n` and `point_b = q - r_b n`.
///
/// Degenerate cases:
/// - the centre lies on the segment (`d` has no direction): every direction
///   perpendicular to the segment needs the same `r_a + r_b` to separate, so
///   the normal is a unit vector perpendicular to the segment (built from the
///   world axis least aligned with it);
/// - a zero-length segment is a sphere; with the centre on it the normal is
///   `+x`, as in [`contact_sphere_sphere`](crate::contact_sphere_sphere).
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_sphere_capsule, Capsule, Point, Sphere};
/// let cap = Capsule::new(Point::new(-1.0, 0.0, 0.0), Point::new(1.0, 0.0, 0.0), 0.5);
/// let s = Sphere::new(Point::new(0.0, 1.0, 0.0), 1.0);
/// let c = contact_sphere_capsule(&s, &cap).unwrap();
/// assert!((c.depth - 0.5).abs() < 1e-6 && (c.normal.y + 1.0).abs() < 1e-6);
/// ```
#[inline]
#[must_use]
pub fn contact_sphere_capsule(sphere: &Sphere, capsule: &Capsule) -> Option<Contact> {
    about(sphere, capsule, &sphere.center().coords, contact_sphere_capsule_in_place)
}

/// [`contact_sphere_capsule`] in the shapes' own coordinates (no move to a point of
/// theirs): for callers that have moved them already.
#[inline(always)]
pub(crate) fn contact_sphere_capsule_in_place(sphere: &Sphere, capsule: &Capsule) -> Option<Contact> {
    let c = sphere.center();
    let q = closest_point_segment(c, capsule.a(), capsule.b());
    let d = q - c;
    let dist2 = d.norm_squared();
    let r = sphere.radius() + capsule.radius();
    if !within_distance(&d, r) {
        return None;
    }
    let (normal, dist) = if dist2 >= Real::MIN_POSITIVE {
        let dist = dist2.sqrt();
        (d / dist, dist)
    } else {
        (perpendicular_or_x(&(capsule.b() - capsule.a())), 0.0)
    };
    Some(Contact {
        point_a: c + normal * sphere.radius(),
        point_b: q - normal * capsule.radius(),
        normal: UnitVector::new_unchecked(normal),
        depth: (r - dist).max(0.0),
    })
}

/// A unit vector perpendicular to `v`: `v` crossed with the world axis of its
/// smallest absolute component (the least aligned, so the cross product has
/// length at least `|v| * sqrt(2/3)`), normalised. `+x` when `v` is (near) zero.
fn perpendicular_or_x(v: &Vector) -> Vector {
    let a = v.abs();
    let axis = if a.x <= a.y && a.x <= a.z {
        Vector::x()
    } else if a.y <= a.z {
        Vector::y()
    } else {
        Vector::z()
    };
    let p = v.cross(&axis);
    let n2 = p.norm_squared();
    if n2 >= Real::MIN_POSITIVE {
        p / n2.sqrt()
    } else {
        COINCIDENT_FALLBACK_NORMAL
    }
}
