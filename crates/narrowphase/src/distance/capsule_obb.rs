//! Distance between a capsule and a box.

use super::{from_cores, ShapeDistance};
use crate::closest::closest_points_segment_box_local;
use crate::math::Point;
use crate::shape::{Aabb, Capsule, Obb};

/// The distance between capsule A and the solid axis-aligned box B and their
/// closest points: the closest pair `(s, x)` of the capsule's segment and the
/// box ([`closest_points_segment_aabb`](crate::closest_points_segment_aabb),
/// exact: piecewise quadratic in the segment parameter) at `|x - s| - r`.
///
/// - Overlapping (`|x - s| <= r`, a segment entering the box included):
///   distance 0 at `x`, in the box and in the capsule.
/// - The gap `x - s` is taken about the box's centre, so that its rounding
///   is relative to the shapes' size and distance, not to their position.
/// - A zero-length capsule is a sphere; a zero-size box a point.
#[inline]
#[must_use]
pub fn distance_capsule_aabb(a: &Capsule, b: &Aabb) -> ShapeDistance {
    let c = b.center();
    let (s, x) = closest_points_segment_box_local(&(a.a() - c), &(a.b() - c), &b.half_extents());
    let d = from_cores(Point::from(s), a.radius(), Point::from(x), 0.0);
    ShapeDistance { distance: d.distance, point_a: c + d.point_a.coords, point_b: c + d.point_b.coords }
}

/// The distance between capsule A and the solid oriented box B and their
/// closest points, as [`distance_capsule_aabb`] in the box frame
/// ([`closest_points_segment_obb`](crate::closest_points_segment_obb)).
#[inline]
#[must_use]
pub fn distance_capsule_obb(a: &Capsule, b: &Obb) -> ShapeDistance {
    let (s, x) = closest_points_segment_box_local(&b.to_local(a.a()), &b.to_local(a.b()), b.half_extents());
    let d = from_cores(Point::from(s), a.radius(), Point::from(x), 0.0);
    ShapeDistance {
        distance: d.distance,
        point_a: b.to_world(&d.point_a.coords),
        point_b: b.to_world(&d.point_b.coords),
    }
}
