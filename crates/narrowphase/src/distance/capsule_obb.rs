//! Distance between a capsule and a box.

use super::{from_cores, ShapeDistance};
use crate::closest::{closest_points_segment_aabb, closest_points_segment_obb, ClosestPoints};
use crate::shape::{Aabb, Capsule, Obb};

/// The distance between capsule A and the solid axis-aligned box B and their
/// closest points: the closest pair `(s, x)` of the capsule's segment and the
/// box ([`closest_points_segment_aabb`], exact: piecewise quadratic in the
/// segment parameter) at `|x - s| - r`.
///
/// - Overlapping (`|x - s| <= r`, a segment entering the box included):
///   distance 0 at `x`, in the box and in the capsule.
/// - A zero-length capsule is a sphere; a zero-size box a point.
#[inline]
#[must_use]
pub fn distance_capsule_aabb(a: &Capsule, b: &Aabb) -> ShapeDistance {
    let ClosestPoints { point_a: s, point_b: x } = closest_points_segment_aabb(a.a(), a.b(), b);
    from_cores(s, a.radius(), x, 0.0)
}

/// The distance between capsule A and the solid oriented box B and their
/// closest points, as [`distance_capsule_aabb`] in the box frame
/// ([`closest_points_segment_obb`]).
#[inline]
#[must_use]
pub fn distance_capsule_obb(a: &Capsule, b: &Obb) -> ShapeDistance {
    let ClosestPoints { point_a: s, point_b: x } = closest_points_segment_obb(a.a(), a.b(), b);
    from_cores(s, a.radius(), x, 0.0)
}
