//! Sphere against triangle.

use crate::closest::closest_point_triangle;
use crate::math::within_distance;
use crate::shape::{Sphere, Triangle};

/// True when the solid sphere touches the triangle: the triangle's point
/// closest to the centre is within the radius (Ericson 5.2.7).
#[inline]
#[must_use]
pub fn intersects_sphere_triangle(sphere: &Sphere, tri: &Triangle) -> bool {
    let q = closest_point_triangle(sphere.center(), tri);
    within_distance(&(sphere.center() - q), sphere.radius())
}
