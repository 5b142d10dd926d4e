//! Distance between two triangles.

use super::{EdgeSearch, ShapeDistance};
use crate::closest::{closest_points_segment_triangle, ClosestPoints};
use crate::contact::intersects_triangle_triangle;
use crate::shape::Triangle;

/// The distance between triangles A and B (surfaces) and their closest
/// points.
///
/// The least of the three edges of A against B and the three edges of B
/// against A ([`closest_points_segment_triangle`]): a closest pair of two
/// disjoint polytopes has a point on an edge of one of them (see the distance
/// module). Computed relative to A's first vertex, so triangles far from the
/// origin keep their relative precision.
///
/// - Overlapping or touching ([`intersects_triangle_triangle`], which counts
///   gaps below `1e-6` of the pair's extent as touching): distance 0 at a
///   common point (where an edge crosses the other triangle).
/// - Parallel or coplanar triangles: one of the closest pairs, on an edge.
/// - Degenerate triangles are the segments or points they collapse to.
#[must_use]
pub fn distance_triangle_triangle(a: &Triangle, b: &Triangle) -> ShapeDistance {
    let o = a.a;
    let local = |t: &Triangle| Triangle { a: (t.a - o).into(), b: (t.b - o).into(), c: (t.c - o).into() };
    let (la, lb) = (local(a), local(b));
    let mut search = EdgeSearch::new();
    let (va, vb) = (la.vertices(), lb.vertices());
    for (i, j) in [(0, 1), (1, 2), (2, 0)] {
        let ClosestPoints { point_a, point_b } = closest_points_segment_triangle(&va[i], &va[j], &lb);
        search.take(point_a, point_b);
        let ClosestPoints { point_a: on_b, point_b: on_a } = closest_points_segment_triangle(&vb[i], &vb[j], &la);
        search.take(on_a, on_b);
    }
    search.map(|p| o + p.coords).finish(intersects_triangle_triangle(a, b))
}
