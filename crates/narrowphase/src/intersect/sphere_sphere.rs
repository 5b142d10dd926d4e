//! Sphere against sphere.

use crate::math::within_distance;
use crate::shape::Sphere;

/// True when the solid spheres share a point: `|c_b - c_a|^2 <= (r_a + r_b)^2`,
/// in squared distances so there is no square root.
#[inline]
#[must_use]
pub fn intersects_sphere_sphere(a: &Sphere, b: &Sphere) -> bool {
    let r = a.radius() + b.radius();
    within_distance(&(b.center() - a.center()), r)
}
