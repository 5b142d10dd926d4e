//! Capsule against capsule.

use crate::closest::{closest_points_segment_segment, ClosestPoints};
use crate::math::within_distance;
use crate::shape::Capsule;

/// True when the capsules share a point: their segments come within
/// `r_a + r_b` of each other (Ericson 4.5.1).
#[inline]
#[must_use]
pub fn intersects_capsule_capsule(a: &Capsule, b: &Capsule) -> bool {
    let ClosestPoints { point_a: pa, point_b: pb } = closest_points_segment_segment(a.a(), a.b(), b.a(), b.b());
    let r = a.radius() + b.radius();
    within_distance(&(pa - pb), r)
}
