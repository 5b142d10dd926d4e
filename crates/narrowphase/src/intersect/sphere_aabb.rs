//! Sphere against axis-aligned box.

use crate::closest::distance_squared_point_aabb;
use crate::shape::{Aabb, Sphere};

/// True when the solid sphere and box share a point: the centre clamped to the
/// box is within the radius (Ericson 5.2.5).
#[inline]
#[must_use]
pub fn intersects_sphere_aabb(sphere: &Sphere, aabb: &Aabb) -> bool {
    distance_squared_point_aabb(sphere.center(), aabb) <= sphere.radius() * sphere.radius()
}
