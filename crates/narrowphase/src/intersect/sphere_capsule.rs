//! Sphere against capsule.

use crate::closest::closest_point_segment;
use crate::math::within_distance;
use crate::shape::{Capsule, Sphere};

/// True when the solid sphere and capsule share a point: the centre is within
/// `r_sphere + r_capsule` of the capsule's segment.
#[inline]
#[must_use]
pub fn intersects_sphere_capsule(sphere: &Sphere, capsule: &Capsule) -> bool {
    let q = closest_point_segment(sphere.center(), capsule.a(), capsule.b());
    let r = sphere.radius() + capsule.radius();
    within_distance(&(sphere.center() - q), r)
}
