//! Sphere against capsule.

use crate::closest::closest_point_segment;
use crate::math::{within_distance, Point};
use crate::shape::{Capsule, Sphere};

/// True when the solid sphere and capsule share a point: the centre is within
/// `r_sphere + r_capsule` of the capsule's segment.
#[inline]
#[must_use]
pub fn intersects_sphere_capsule(sphere: &Sphere, capsule: &Capsule) -> bool {
    // About the centre, as `contact_sphere_capsule` (see the `relative`
    // module), so that the two agree far from the origin.
    let capsule = capsule.relative_to(&sphere.center().coords);
    let q = closest_point_segment(&Point::origin(), capsule.a(), capsule.b());
    let r = sphere.radius() + capsule.radius();
    within_distance(&q.coords, r)
}
