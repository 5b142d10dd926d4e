//! Distance between two spheres.

use super::{from_cores, ShapeDistance};
use crate::shape::Sphere;

/// The distance between spheres A and B and their closest points:
/// `|c_b - c_a| - r_a - r_b` along the centre line, clamped to 0.
///
/// - Overlapping or touching (`|c_b - c_a| <= r_a + r_b`): distance 0 at the
///   point `c_a + (c_b - c_a) r_a / (r_a + r_b)` of the centre line, inside
///   both.
/// - Zero radii: the spheres are points; two equal centres overlap.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{distance_sphere_sphere, Point, Sphere};
/// let a = Sphere::new(Point::origin(), 1.0);
/// let b = Sphere::new(Point::new(4.0, 0.0, 0.0), 0.5);
/// let d = distance_sphere_sphere(&a, &b);
/// assert_eq!(d.distance, 2.5);
/// assert_eq!(d.point_a, Point::new(1.0, 0.0, 0.0));
/// assert_eq!(d.point_b, Point::new(3.5, 0.0, 0.0));
/// ```
#[inline]
#[must_use]
pub fn distance_sphere_sphere(a: &Sphere, b: &Sphere) -> ShapeDistance {
    from_cores(*a.center(), a.radius(), *b.center(), b.radius())
}
