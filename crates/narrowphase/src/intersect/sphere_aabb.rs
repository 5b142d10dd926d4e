//! Sphere against axis-aligned box.

use crate::closest::closest_point_aabb;
use crate::math::within_distance;
use crate::shape::{Aabb, Sphere};

/// True when the solid sphere and box share a point: the centre clamped to the
/// box is within the radius (Ericson 5.2.5).
#[inline]
#[must_use]
pub fn intersects_sphere_aabb(sphere: &Sphere, aabb: &Aabb) -> bool {
    let c = sphere.center();
    within_distance(&(c - closest_point_aabb(c, aabb)), sphere.radius())
}
