//! Distance between a capsule and a triangle.

use super::{from_cores, ShapeDistance};
use crate::closest::{closest_points_segment_triangle, ClosestPoints};
use crate::math::Point;
use crate::shape::{Capsule, Triangle};

/// The distance between capsule A and triangle B (a surface) and their
/// closest points: the closest pair `(s, x)` of the capsule's segment and the
/// triangle ([`closest_points_segment_triangle`]: the crossing point when the
/// segment crosses the triangle, else the best of its endpoints against the
/// triangle and the segment against each edge) at `|x - s| - r`.
///
/// - Overlapping: distance 0 at `x`, on the triangle and in the capsule.
/// - Taken relative to the segment's first endpoint, so that the rounding is
///   relative to the shapes' size and distance, not to their position.
/// - A segment lying in the triangle's plane, and degenerate triangles, go
///   through the edge candidates (see [`closest_points_segment_triangle`]).
#[inline]
#[must_use]
pub fn distance_capsule_triangle(a: &Capsule, b: &Triangle) -> ShapeDistance {
    let o = *a.a();
    let local = Triangle { a: Point::from(b.a - o), b: Point::from(b.b - o), c: Point::from(b.c - o) };
    let (p, q) = (Point::origin(), Point::from(a.b() - o));
    let ClosestPoints { point_a: s, point_b: x } = closest_points_segment_triangle(&p, &q, &local);
    let d = from_cores(s, a.radius(), x, 0.0);
    ShapeDistance { point_a: o + d.point_a.coords, point_b: o + d.point_b.coords, ..d }
}
