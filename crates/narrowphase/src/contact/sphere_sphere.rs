//! Contact between two spheres.

use super::Contact;
use crate::math::{within_distance, Real, UnitVector, Vector};
use crate::shape::Sphere;

/// The contact normal used when two centres coincide (no direction joins
/// them): `+x`, the same convention as parry. Any unit vector is a valid
/// minimum-translation direction there, since every direction needs the same
/// `r_a + r_b` to separate the spheres.
pub(crate) const COINCIDENT_FALLBACK_NORMAL: Vector = Vector::new(1.0, 0.0, 0.0);

/// The contact between two solid spheres; `None` when they are disjoint.
///
/// With `d = c_b - c_a` and `r = r_a + r_b` the spheres intersect iff
/// `|d|^2 <= r^2` (touching included, then `depth == 0`). The normal is
/// `d / |d|` (from A to B), the depth `r - |d|`, and the witness points are
/// the points of each sphere furthest along the other's direction:
/// `point_a = c_a + r_a n`, `point_b = c_b - r_b n`, so that
/// `point_a - point_b = (r - |d|) n = depth n` (Ericson, Real-Time Collision
/// Detection, 4.3.1 for the test; the witness points follow from it).
///
/// Degenerate cases:
/// - coincident centres (`|d|^2` below the smallest normal `f32`): the
///   normal is `+x` (see above), the depth `r`;
/// - zero radii: a point is a sphere of radius 0 and is handled the same way.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_sphere_sphere, Point, Sphere};
/// let a = Sphere::new(Point::origin(), 1.0);
/// let b = Sphere::new(Point::new(1.5, 0.0, 0.0), 1.0);
/// let c = contact_sphere_sphere(&a, &b).unwrap();
/// assert!((c.depth - 0.5).abs() < 1e-6);
/// assert!((c.normal.x - 1.0).abs() < 1e-6);
/// ```
#[inline]
#[must_use]
pub fn contact_sphere_sphere(a: &Sphere, b: &Sphere) -> Option<Contact> {
    let d = b.center() - a.center();
    let dist2 = d.norm_squared();
    let r = a.radius() + b.radius();
    if !within_distance(&d, r) {
        return None;
    }
    let (normal, dist) = if dist2 >= Real::MIN_POSITIVE {
        let dist = dist2.sqrt();
        (UnitVector::new_unchecked(d / dist), dist)
    } else {
        (UnitVector::new_unchecked(COINCIDENT_FALLBACK_NORMAL), 0.0)
    };
    Some(Contact {
        point_a: a.center() + normal.into_inner() * a.radius(),
        point_b: b.center() - normal.into_inner() * b.radius(),
        normal,
        // `dist <= r` up to the rounding of the square root.
        depth: (r - dist).max(0.0),
    })
}
