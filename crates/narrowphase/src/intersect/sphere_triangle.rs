//! Sphere against triangle.

use crate::closest::closest_point_triangle;
use crate::math::{within_distance, Point};
use crate::shape::{Sphere, Triangle};

/// True when the solid sphere touches the triangle: the triangle's point
/// closest to the centre is within the radius (Ericson 5.2.7), found
/// relative to the centre (see [`distance_sphere_triangle`](crate::distance_sphere_triangle)).
#[inline]
#[must_use]
pub fn intersects_sphere_triangle(sphere: &Sphere, tri: &Triangle) -> bool {
    let q = closest_point_triangle(&Point::origin(), &tri.relative_to(&sphere.center().coords));
    within_distance(&q.coords, sphere.radius())
}
