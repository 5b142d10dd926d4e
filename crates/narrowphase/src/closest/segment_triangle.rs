//! Closest points between a segment and a triangle.

use super::triangle::closest_point_triangle_region;
use super::{closest_points_segment_segment, ClosestPoints};
use crate::cast::{Ray, WatertightRay};
use crate::math::Point;
use crate::shape::Triangle;

/// The closest points between the segment `[a, b]` and the triangle (a
/// surface), `point_a` on the segment and `point_b` on the triangle.
///
/// - A segment that crosses the triangle (the watertight ray test of
///   [`cast_ray_triangle`](crate::cast_ray_triangle) from `a` along `b - a`,
///   `toi` in `[0, 1]`) returns the crossing point twice (distance 0).
/// - Otherwise the squared distance `|x(s) - y|^2` is convex on the product
///   of segment and triangle, and a minimiser can be taken on its boundary:
///   at an interior pair with a positive gap, the gap is normal to the
///   triangle and to the segment, so the segment is parallel to the plane and
///   sliding along it keeps the distance until an endpoint or a triangle edge
///   is reached. The candidates are the segment's endpoints against the
///   triangle and the segment against each triangle edge
///   ([`closest_points_segment_segment`]); the least of the five is returned
///   (of the two endpoint pairs when both endpoints lie over the face on one
///   side of its plane: the segment's height over the plane is then linear
///   and no edge is closer).
/// - Degenerate cases: a zero-length segment is its point; a degenerate
///   triangle (its crossing test misses) is the segment or point it collapses
///   to, which its edges cover; a segment lying in the triangle's plane (its
///   crossing test misses too) and overlapping it crosses an edge or has an
///   endpoint inside, at distance 0 up to rounding.
#[must_use]
pub fn closest_points_segment_triangle(a: &Point, b: &Point, tri: &Triangle) -> ClosestPoints {
    if let Ok(ray) = Ray::try_new(*a, b - a, 1.0) {
        if let Some(toi) = WatertightRay::new(&ray).toi(&tri.vertices(), 1.0) {
            let x = a + (b - a) * toi;
            return ClosestPoints { point_a: x, point_b: x };
        }
    }
    closest_points_segment_triangle_boundary(a, b, tri)
}

/// The closest pair between the segment `[p, q]` and the triangle's
/// boundary features, exact for a segment that does not cross the triangle:
/// the better of the endpoints projected onto the triangle and the segment
/// against each edge (the minimum of the convex distance lies on one of
/// them; only the endpoints when both lie over the face, on one side of
/// its plane). A crossing
/// segment gets a pair on an edge or endpoint instead of the crossing.
#[must_use]
pub(crate) fn closest_points_segment_triangle_boundary(p: &Point, q: &Point, tri: &Triangle) -> ClosestPoints {
    let (on_p, p_height) = closest_point_triangle_region(p, tri);
    let (on_q, q_height) = closest_point_triangle_region(q, tri);
    let mut best = ClosestPoints { point_a: *p, point_b: on_p };
    let mut best_d = (best.point_b - best.point_a).norm_squared();
    let mut take = |c: ClosestPoints| {
        let d = (c.point_b - c.point_a).norm_squared();
        if d < best_d {
            best_d = d;
            best = c;
        }
    };
    take(ClosestPoints { point_a: *q, point_b: on_q });
    // Both endpoints over the face, strictly on one side of the plane: the
    // whole segment projects into the triangle (convex) and its height over
    // the plane is linear along it and never 0, so an endpoint is closest
    // and no edge can be closer. (Heights of opposite signs, or a 0, leave
    // a segment that may cross near an edge, where this function's callers'
    // crossing test and these region tests round apart: the edges decide.)
    if let (Some(hp), Some(hq)) = (p_height, q_height) {
        if (hp > 0.0 && hq > 0.0) || (hp < 0.0 && hq < 0.0) {
            return best;
        }
    }
    let [a, b, c] = tri.vertices();
    for (e0, e1) in [(a, b), (b, c), (c, a)] {
        take(closest_points_segment_segment(p, q, &e0, &e1));
    }
    best
}
