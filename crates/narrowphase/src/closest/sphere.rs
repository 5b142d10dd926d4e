//! Closest point on a sphere.

use crate::math::{Point, Real};
use crate::shape::Sphere;

/// The point of the solid sphere closest to `p`; a point inside returns itself.
#[inline]
#[must_use]
pub fn closest_point_sphere(p: &Point, sphere: &Sphere) -> Point {
    let d = p - sphere.center();
    let dist2 = d.norm_squared();
    if dist2 <= sphere.radius() * sphere.radius() {
        *p
    } else {
        sphere.center() + d * (sphere.radius() / dist2.sqrt())
    }
}

/// Distance from `p` to the solid sphere (0 inside).
#[inline]
#[must_use]
pub fn distance_point_sphere(p: &Point, sphere: &Sphere) -> Real {
    ((p - sphere.center()).norm() - sphere.radius()).max(0.0)
}
