//! Distance between a box and a triangle.

use super::obb_obb::{corners, BOX_EDGES};
use super::{EdgeSearch, ShapeDistance};
use crate::closest::{closest_points_segment_box_local, closest_points_segment_triangle, ClosestPoints};
use crate::intersect::intersects_aabb_triangle;
use crate::math::{Point, Vector};
use crate::shape::{Aabb, Obb, Triangle};

/// The distance between the solid axis-aligned box A and triangle B (a
/// surface) and their closest points: [`distance_obb_triangle`]'s edge search
/// about the box centre; overlap decided by [`intersects_aabb_triangle`].
#[must_use]
pub fn distance_aabb_triangle(a: &Aabb, b: &Triangle) -> ShapeDistance {
    let c = a.center();
    let tri = b.vertices().map(|v| v - c);
    let search = box_triangle_local(&a.half_extents(), &tri);
    search.map(|p| c + p.coords).finish(intersects_aabb_triangle(a, b))
}

/// The distance between the solid oriented box A and triangle B (a surface)
/// and their closest points.
///
/// In the box frame (the triangle's vertices taken there as `R^T (v - c)`,
/// the difference first), the least of the three triangle edges against the
/// box (`closest_points_segment_obb`'s closed form) and the twelve box edges
/// against the triangle ([`closest_points_segment_triangle`]): a closest pair
/// of two disjoint polytopes has a point on an edge of one of them (see the
/// distance module).
///
/// - Overlapping or touching (the box-triangle separating-axis test of
///   [`intersects_aabb_triangle`] in the box frame): distance 0 at a common
///   point (a triangle edge point inside the box, or where a box edge crosses
///   the triangle).
/// - A triangle parallel to a face: one of the closest pairs.
/// - A degenerate triangle is its segment or point; a zero-size box a point.
#[must_use]
pub fn distance_obb_triangle(a: &Obb, b: &Triangle) -> ShapeDistance {
    let tri = b.vertices().map(|v| a.to_local(&v));
    let h = a.half_extents();
    let local = Triangle { a: Point::from(tri[0]), b: Point::from(tri[1]), c: Point::from(tri[2]) };
    let overlap = intersects_aabb_triangle(&Aabb::new(Point::from(-h), Point::from(*h)), &local);
    let search = box_triangle_local(h, &tri);
    search.map(|p| a.to_world(&p.coords)).finish(overlap)
}

/// The edge search of the box `[-h, h]` (A) and the triangle `tri` (B) in the
/// box frame.
fn box_triangle_local(h: &Vector, tri: &[Vector; 3]) -> EdgeSearch {
    let mut search = EdgeSearch::new();
    for (i, j) in [(0, 1), (1, 2), (2, 0)] {
        let (on_b, on_a) = closest_points_segment_box_local(&tri[i], &tri[j], h);
        search.take(Point::from(on_a), Point::from(on_b));
    }
    let local = Triangle { a: Point::from(tri[0]), b: Point::from(tri[1]), c: Point::from(tri[2]) };
    let c = corners(h).map(Point::from);
    for (i, j) in BOX_EDGES {
        let ClosestPoints { point_a, point_b } = closest_points_segment_triangle(&c[i], &c[j], &local);
        search.take(point_a, point_b);
    }
    search
}
