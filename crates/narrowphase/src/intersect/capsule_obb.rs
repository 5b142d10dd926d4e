//! Capsule against box.

use crate::closest::{closest_points_segment_aabb, closest_points_segment_obb, ClosestPoints};
use crate::math::within_distance;
use crate::shape::{Aabb, Capsule, Obb};

/// True when the capsule and the solid oriented box share a point: the
/// capsule's segment comes within its radius of the box (exact segment-box
/// closest points, see `closest_points_segment_box_local`).
#[inline]
#[must_use]
pub fn intersects_capsule_obb(capsule: &Capsule, obb: &Obb) -> bool {
    let ClosestPoints { point_a: s, point_b: x } = closest_points_segment_obb(capsule.a(), capsule.b(), obb);
    within_distance(&(s - x), capsule.radius())
}

/// True when the capsule and the solid axis-aligned box share a point.
#[inline]
#[must_use]
pub fn intersects_capsule_aabb(capsule: &Capsule, aabb: &Aabb) -> bool {
    let ClosestPoints { point_a: s, point_b: x } = closest_points_segment_aabb(capsule.a(), capsule.b(), aabb);
    within_distance(&(s - x), capsule.radius())
}
