//! Capsule against capsule.

use crate::closest::{closest_points_segment_segment, ClosestPoints};
use crate::math::within_distance;
use crate::shape::Capsule;

/// True when the capsules share a point: their segments come within
/// `r_a + r_b` of each other (Ericson 4.5.1).
#[inline]
#[must_use]
pub fn intersects_capsule_capsule(a: &Capsule, b: &Capsule) -> bool {
    // About A's first endpoint, as `contact_capsule_capsule` (see the
    // `relative` module), so that the two agree far from the origin.
    let o = a.a().coords;
    let (a, b) = (a.relative_to(&o), b.relative_to(&o));
    let ClosestPoints { point_a: pa, point_b: pb } = closest_points_segment_segment(a.a(), a.b(), b.a(), b.b());
    let r = a.radius() + b.radius();
    within_distance(&(pa - pb), r)
}
