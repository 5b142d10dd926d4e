//! Distance between a box and a triangle.

use super::edge_bound::{boxes_lower2, greater, lesser, point_box2, segment_box_lower2, skips, SUM_MARGIN};
use super::gjk_first::apart_by_gjk;
use super::obb_obb::{corners, BOX_EDGES};
use super::{EdgeSearch, ShapeDistance};
use crate::closest::{closest_points_segment_box_local, closest_points_segment_triangle, ClosestPoints};
use crate::intersect::intersects_aabb_triangle;
use crate::math::{Point, Real, Vector};
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
/// A pair clearly apart (GJK's distance, run about the box's centre, above
/// `1e-4` of the half-extents plus the triangle's reach from the centre, in
/// the 1-norm) takes GJK's answer ([`distance_convex`](crate::distance_convex):
/// within about `1e-6` relatively of the exact distance, and a few roundings
/// of the shapes' size and offset). A nearer one takes the exact edge search:
/// in the box frame (the triangle's vertices taken there as `R^T (v - c)`,
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
    let reach = b.vertices().iter().fold(0.0, |m: Real, v| m.max((v - a.center()).abs().sum()));
    if let Some(d) = apart_by_gjk(a, b, &a.center().coords, a.half_extents().sum() + reach) {
        return d;
    }
    distance_obb_triangle_by_edges(a, b)
}

/// [`distance_obb_triangle`] by the exact edge search alone, whatever the
/// distance (no GJK): the oracle of the tests.
#[must_use]
pub fn distance_obb_triangle_by_edges(a: &Obb, b: &Triangle) -> ShapeDistance {
    let tri = b.vertices().map(|v| a.to_local(&v));
    let h = a.half_extents();
    let local = Triangle { a: Point::from(tri[0]), b: Point::from(tri[1]), c: Point::from(tri[2]) };
    let overlap = intersects_aabb_triangle(&Aabb::new(Point::from(-h), Point::from(*h)), &local);
    let search = box_triangle_local(h, &tri);
    search.map(|p| a.to_world(&p.coords)).finish(overlap)
}

/// The edge search of the box `[-h, h]` (A) and the triangle `tri` (B) in the
/// box frame.
///
/// Edges are skipped by the bounds of `edge_bound`, which leave the answer
/// the full search's bit for bit: the upper bound is the least distance of a
/// triangle vertex to the box (each starts a triangle edge); a triangle
/// edge's lower bound is its gap to the box on each axis, a box edge's the
/// gap between its extent and the triangle's bounding box, less a slack of
/// `2^-16` of the coordinates' magnitude for the rounding of the
/// segment-triangle solver's points.
fn box_triangle_local(h: &Vector, tri: &[Vector; 3]) -> EdgeSearch {
    let upper2 = tri.iter().fold(Real::INFINITY, |m, v| m.min(point_box2(v, h)));
    let mut search = EdgeSearch::new();
    for (i, j) in [(0, 1), (1, 2), (2, 0)] {
        if skips(segment_box_lower2(&tri[i], &tri[j], h), search.dist2, upper2) {
            continue;
        }
        let (on_b, on_a) = closest_points_segment_box_local(&tri[i], &tri[j], h);
        search.take(Point::from(on_a), Point::from(on_b));
    }
    let (lo, hi) = (tri[0].inf(&tri[1]).inf(&tri[2]), tri[0].sup(&tri[1]).sup(&tri[2]));
    let slack = SOLVER_SLACK * h.amax().max(lo.amax()).max(hi.amax());
    let local = Triangle { a: Point::from(tri[0]), b: Point::from(tri[1]), c: Point::from(tri[2]) };
    let c = corners(h);
    let plane = TrianglePlane::new(tri, &c, slack);
    for &(i, j) in &BOX_EDGES {
        let lower = greater(boxes_lower2(&c[i].inf(&c[j]), &c[i].sup(&c[j]), &lo, &hi, slack), plane.edge_lower2(i, j));
        if skips(lower, search.dist2, upper2) {
            continue;
        }
        let ClosestPoints { point_a, point_b } =
            closest_points_segment_triangle(&Point::from(c[i]), &Point::from(c[j]), &local);
        search.take(point_a, point_b);
    }
    search
}

/// The box corners' signed distances to the triangle's plane: an edge with
/// both ends on one side is at least the nearer end's distance from the
/// plane, hence from the triangle.
///
/// The unit normal `n = e1 x e2 / |e1 x e2|` carries a direction error of
/// about `eps |e1| |e2| / |e1 x e2|` (a needle triangle's cross product is
/// mostly rounding), which tilts the plane by that much across the
/// triangle's size `|e1| + |e2|`: that is added to the slack. A degenerate
/// triangle (a zero cross product) gives no bound.
struct TrianglePlane {
    /// `n . (c_k - a)` for each corner.
    side: [Real; 8],
    slack: Real,
}

impl TrianglePlane {
    fn new(tri: &[Vector; 3], c: &[Vector; 8], slack: Real) -> Self {
        let (e1, e2) = (tri[1] - tri[0], tri[2] - tri[0]);
        let n = e1.cross(&e2);
        let (l1, l2, nn) = (e1.norm(), e2.norm(), n.norm());
        if nn.is_nan() || nn <= 0.0 {
            return Self { side: [0.0; 8], slack: Real::INFINITY };
        }
        let tilt = 8.0 * Real::EPSILON * (l1 * l2 / nn) * (l1 + l2);
        let n = n / nn;
        Self { side: c.map(|x| n.dot(&(x - tri[0]))), slack: slack + tilt }
    }

    /// A lower bound on the squared distance of the box edge from corner
    /// `i` to corner `j` to the triangle (0 when it may cross the plane).
    #[inline]
    fn edge_lower2(&self, i: usize, j: usize) -> Real {
        let (si, sj) = (self.side[i], self.side[j]);
        let g = greater(greater(lesser(si, sj), lesser(-si, -sj)) - self.slack, 0.0);
        g * g * SUM_MARGIN
    }
}

/// The rounding allowed to the segment-triangle solver's points, relative
/// to the largest coordinate: `2^-16`, far above its few `eps`.
const SOLVER_SLACK: Real = 1.0 / (1u32 << 16) as Real;

/// The full edge search of the box and the triangle (every edge solved): the
/// oracle of the skipping one.
#[cfg(test)]
fn box_triangle_unpruned(h: &Vector, tri: &[Vector; 3]) -> EdgeSearch {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::edge_bound::tests::{random_cases, Case};
    use crate::distance::gjk_first::tests::assert_agrees;

    #[test]
    fn skipping_edges_keeps_the_full_search_answer() {
        // The pruned and the full search agree bit for bit (distance and
        // both points) over random box-triangle pairs: apart, touching,
        // parallel to a face, zero and flat sizes, far from the origin.
        let mut overlaps = 0;
        let n = random_cases(20_000, |case: Case| {
            let (a, b) = (case.obb(0), case.triangle());
            let tri = b.vertices().map(|v| a.to_local(&v));
            let h = a.half_extents();
            let local = Triangle { a: Point::from(tri[0]), b: Point::from(tri[1]), c: Point::from(tri[2]) };
            let overlap = intersects_aabb_triangle(&Aabb::new(Point::from(-h), Point::from(*h)), &local);
            overlaps += usize::from(overlap);
            let fast = box_triangle_local(h, &tri).finish(overlap);
            let full = box_triangle_unpruned(h, &tri).finish(overlap);
            assert_eq!(fast, full, "{a:?} {b:?}");
            assert_eq!(fast.distance.to_bits(), full.distance.to_bits());
        });
        assert!(overlaps > n / 20 && overlaps < n * 19 / 20, "{overlaps} of {n} overlap");
    }

    #[test]
    fn gjk_answers_agree_with_the_edge_search() {
        // As for two boxes (see obb_obb.rs): where GJK answers, its distance
        // is the exact search's within `1e-6` relatively plus `16 eps` of the
        // extent, its points a closest pair on the shapes to the same bound
        // plus their rounding to world coordinates.
        let mut by_gjk = 0;
        let n = random_cases(20_000, |case: Case| {
            let (a, b) = (case.obb(0), case.triangle());
            let reach = b.vertices().iter().fold(0.0, |m: Real, v| m.max((v - a.center()).abs().sum()));
            let extent = a.half_extents().sum() + reach;
            let d = distance_obb_triangle(&a, &b);
            let tri = b.vertices().map(|v| a.to_local(&v));
            let h = a.half_extents();
            let local = Triangle { a: Point::from(tri[0]), b: Point::from(tri[1]), c: Point::from(tri[2]) };
            let overlap = intersects_aabb_triangle(&Aabb::new(Point::from(-h), Point::from(*h)), &local);
            let exact = box_triangle_local(h, &tri).map(|p| a.to_world(&p.coords)).finish(overlap);
            if apart_by_gjk(&a, &b, &a.center().coords, extent).is_none() {
                assert_eq!(d, exact);
                return;
            }
            by_gjk += 1;
            let tol = assert_agrees(&d, &exact, extent);
            let pa = a.to_local(&d.point_a);
            assert!((pa.abs() - h).max() <= tol, "{:?} off {a:?}", d.point_a);
            let on_b = closest_points_segment_triangle(&d.point_b, &d.point_b, &b).point_b;
            assert!((on_b - d.point_b).norm() <= tol, "{:?} off {b:?}", d.point_b);
        });
        assert!(by_gjk > n / 4, "GJK answered {by_gjk} of {n}");
    }
}
