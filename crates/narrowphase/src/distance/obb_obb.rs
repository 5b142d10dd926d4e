//! Distance between two boxes.

use super::edge_bound::{point_box2, skips, CornerGaps};
use super::gjk_first::apart_by_gjk;
use super::{EdgeSearch, ShapeDistance};
use crate::closest::closest_points_segment_box_local;
use crate::intersect::{intersects_aabb_obb, intersects_obb_obb};
use crate::math::{Matrix, Point, Real, Vector};
use crate::shape::{Aabb, Obb};

/// The twelve edges of a box, as pairs of indices into [`corners`]: corners
/// `k` and `k + 2^i` differ in axis `i` only.
pub(super) const BOX_EDGES: [(usize, usize); 12] =
    [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7)];

/// The corners of the box `[-h, h]`: bit `i` of the index picks `+h_i`.
pub(super) fn corners(h: &Vector) -> [Vector; 8] {
    core::array::from_fn(|k| {
        let s = |i: usize| if k >> i & 1 == 1 { h[i] } else { -h[i] };
        Vector::new(s(0), s(1), s(2))
    })
}

/// The distance between the solid axis-aligned boxes A and B and their
/// closest points, in closed form: on each axis the intervals are apart by
/// `g_i = max(0, lo_b - hi_a, lo_a - hi_b)`, and `distance = |g|`. On an axis
/// where they are apart the closest coordinates are the facing faces; where
/// they overlap, both points take the middle of the common interval.
///
/// - Overlapping or touching (`g = 0`): distance 0 at the centre of the
///   intersection box.
/// - Zero-size boxes are points.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{distance_aabb_aabb, Aabb, Point};
/// let a = Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
/// let b = Aabb::new(Point::new(4.0, 5.0, 0.5), Point::new(5.0, 6.0, 2.0));
/// let d = distance_aabb_aabb(&a, &b);
/// assert_eq!(d.distance, 5.0); // gaps 3 and 4
/// assert_eq!(d.point_a, Point::new(1.0, 1.0, 0.75));
/// assert_eq!(d.point_b, Point::new(4.0, 5.0, 0.75));
/// ```
#[must_use]
pub fn distance_aabb_aabb(a: &Aabb, b: &Aabb) -> ShapeDistance {
    let (mut pa, mut pb) = (Point::origin(), Point::origin());
    let mut dist2: Real = 0.0;
    for i in 0..3 {
        let (alo, ahi, blo, bhi) = (a.min()[i], a.max()[i], b.min()[i], b.max()[i]);
        if ahi < blo {
            (pa[i], pb[i]) = (ahi, blo);
            dist2 += (blo - ahi) * (blo - ahi);
        } else if bhi < alo {
            (pa[i], pb[i]) = (alo, bhi);
            dist2 += (alo - bhi) * (alo - bhi);
        } else {
            let m = 0.5 * (alo.max(blo) + ahi.min(bhi));
            (pa[i], pb[i]) = (m, m);
        }
    }
    ShapeDistance { distance: dist2.sqrt(), point_a: pa, point_b: pb }
}

/// The distance between the solid axis-aligned box A and the solid oriented
/// box B and their closest points: the exact edge search of
/// [`distance_obb_obb`] with A's axes the world axes (no GJK); overlap
/// decided by [`intersects_aabb_obb`].
#[must_use]
pub fn distance_aabb_obb(a: &Aabb, b: &Obb) -> ShapeDistance {
    let a_box = Obb::from_aabb(a);
    box_box(&a_box, b).finish(intersects_aabb_obb(a, b))
}

/// The distance between the solid oriented boxes A and B and their closest
/// points.
///
/// Boxes clearly apart (GJK's distance, run about A's centre, above `1e-4`
/// of the boxes' half-extents plus `|c_b - c_a|_1`) take GJK's answer
/// ([`distance_convex`](crate::distance_convex): within about `1e-6`
/// relatively of the exact distance, and a few roundings of the boxes' size
/// and offset). Nearer ones take the exact edge search: the least segment-box distance over the twelve edges of each box against
/// the other (the edge argument of the distance module: a closest pair of two
/// disjoint polytopes has a point on an edge), each found in closed form by
/// `closest_points_segment_obb`'s piecewise quadratic in the other box's frame.
/// B's corners are taken to A's frame as `t + R c` with `R = A^T B` and
/// `t = A^T (c_b - c_a)` (the centre difference first, so far-off boxes keep
/// their relative precision), A's to B's as `R^T (c - t)`.
///
/// - Overlapping or touching ([`intersects_obb_obb`]): distance 0 at a common
///   point (an edge point inside the other box, or where an edge enters it).
/// - Parallel faces: one of the closest pairs.
/// - Zero-size boxes are points, flat ones rectangles.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{distance_obb_obb, Obb, Point, Rotation, Vector};
/// let a = Obb::new(Point::origin(), Rotation::identity(), Vector::new(1.0, 1.0, 1.0));
/// // A cube turned 45 degrees about z: its edge faces A's +x face.
/// let rot = Rotation::from_euler_angles(0.0, 0.0, std::f32::consts::FRAC_PI_4);
/// let b = Obb::new(Point::new(4.0, 0.0, 0.0), rot, Vector::new(1.0, 1.0, 1.0));
/// let d = distance_obb_obb(&a, &b);
/// assert!((d.distance - (3.0 - 2.0f32.sqrt())).abs() < 1e-5);
/// assert!((d.point_b.x - (4.0 - 2.0f32.sqrt())).abs() < 1e-5);
/// assert!((d.point_b.y).abs() < 1e-5);
/// ```
#[must_use]
pub fn distance_obb_obb(a: &Obb, b: &Obb) -> ShapeDistance {
    let extent = a.half_extents().sum() + b.half_extents().sum() + (b.center() - a.center()).abs().sum();
    if let Some(d) = apart_by_gjk(a, b, &a.center().coords, extent) {
        return d;
    }
    distance_obb_obb_by_edges(a, b)
}

/// [`distance_obb_obb`] by the exact edge search alone, whatever the
/// distance (no GJK): the oracle of the tests.
#[must_use]
pub fn distance_obb_obb_by_edges(a: &Obb, b: &Obb) -> ShapeDistance {
    box_box(a, b).finish(intersects_obb_obb(a, b))
}

/// The edge search of two boxes, in world space.
///
/// Edges are skipped by the bounds of `edge_bound`, which leave the answer
/// the full search's bit for bit: the upper bound is the least distance of
/// an edge's start corner to the other box (corners 0 to 6 start the edges
/// of [`BOX_EDGES`]), and an edge's lower bound the gap between its extent
/// and the box on each axis of the box's frame.
fn box_box(a: &Obb, b: &Obb) -> EdgeSearch {
    let r: Matrix = a.axes().tr_mul(b.axes());
    let t: Vector = a.axes().tr_mul(&(b.center() - a.center()));
    let (ha, hb) = (a.half_extents(), b.half_extents());
    // B's corners in A's frame, A's in B's.
    let cb = corners(hb).map(|c| t + r * c);
    let ca = corners(ha).map(|c| r.tr_mul(&(c - t)));
    // The nearest start corner of each box to the other, and its distance.
    let nearest = |c: &[Vector; 8], h: &Vector| {
        (1..7).fold((0, point_box2(&c[0], h)), |(k, d), m| {
            let dm = point_box2(&c[m], h);
            if dm < d {
                (m, dm)
            } else {
                (k, d)
            }
        })
    };
    let ((kb, db), (ka, da)) = (nearest(&cb, ha), nearest(&ca, hb));
    let upper2 = if db < da { db } else { da };
    let outside = |k: usize, d: Real| (d > 0.0).then_some(k);
    // B's edges against A, in A's frame: the solver's segment is B's.
    let in_a = edges_against_box(&cb, ha, &CornerGaps::new(&cb, ha, outside(kb, db)), upper2, Real::INFINITY, true);
    // A's edges against B, in B's frame.
    let in_b = edges_against_box(&ca, hb, &CornerGaps::new(&ca, hb, outside(ka, da)), upper2, in_a.dist2, false);
    let in_a = in_a.map(|p| a.to_world(&p.coords));
    let in_b = in_b.map(|p| b.to_world(&p.coords));
    in_a.closer(in_b)
}

/// The edges of one box (corners `c`, in the other box's frame) against the
/// box `[-h, h]`, skipping those whose lower bound exceeds `upper2` or the
/// least distance so far (`best2` from an earlier part of the same search).
/// `segment_is_b`: the edges are B's (the pair is then `(on box, on edge)`).
fn edges_against_box(
    c: &[Vector; 8],
    h: &Vector,
    gaps: &CornerGaps,
    upper2: Real,
    best2: Real,
    segment_is_b: bool,
) -> EdgeSearch {
    let mut search = EdgeSearch::new();
    for &(i, j) in &BOX_EDGES {
        if skips(gaps.edge_lower2(i, j), search.dist2.min(best2), upper2) {
            continue;
        }
        let (on_edge, on_box) = closest_points_segment_box_local(&c[i], &c[j], h);
        if segment_is_b {
            search.take(Point::from(on_box), Point::from(on_edge));
        } else {
            search.take(Point::from(on_edge), Point::from(on_box));
        }
    }
    search
}

/// The full edge search of two boxes (every edge solved): the oracle of the
/// skipping one.
#[cfg(test)]
fn box_box_unpruned(a: &Obb, b: &Obb) -> EdgeSearch {
    let r: Matrix = a.axes().tr_mul(b.axes());
    let t: Vector = a.axes().tr_mul(&(b.center() - a.center()));
    let (ha, hb) = (a.half_extents(), b.half_extents());
    let cb = corners(hb).map(|c| t + r * c);
    let mut in_a = EdgeSearch::new();
    for (i, j) in BOX_EDGES {
        let (on_b, on_a) = closest_points_segment_box_local(&cb[i], &cb[j], ha);
        in_a.take(Point::from(on_a), Point::from(on_b));
    }
    let ca = corners(ha).map(|c| r.tr_mul(&(c - t)));
    let mut in_b = EdgeSearch::new();
    for (i, j) in BOX_EDGES {
        let (on_a, on_b) = closest_points_segment_box_local(&ca[i], &ca[j], hb);
        in_b.take(Point::from(on_a), Point::from(on_b));
    }
    let in_a = in_a.map(|p| a.to_world(&p.coords));
    let in_b = in_b.map(|p| b.to_world(&p.coords));
    in_a.closer(in_b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::edge_bound::tests::{random_cases, Case};
    use crate::distance::gjk_first::tests::assert_agrees;

    #[test]
    fn skipping_edges_keeps_the_full_search_answer() {
        // The pruned and the full search agree bit for bit (distance and
        // both points) over random box pairs: apart, touching, with
        // parallel faces, zero and flat sizes, far from the origin.
        let mut overlaps = 0;
        let n = random_cases(20_000, |case: Case| {
            let (a, b) = (case.obb(0), case.obb(1));
            let overlap = intersects_obb_obb(&a, &b);
            overlaps += usize::from(overlap);
            let (fast, full) = (box_box(&a, &b).finish(overlap), box_box_unpruned(&a, &b).finish(overlap));
            assert_eq!(fast, full, "{a:?} {b:?}");
            assert_eq!(fast.distance.to_bits(), full.distance.to_bits());
        });
        assert!(overlaps > n / 20 && overlaps < n * 19 / 20, "{overlaps} of {n} overlap");
    }

    #[test]
    fn gjk_answers_agree_with_the_edge_search() {
        // Where GJK answers (boxes clearly apart), its distance is the exact
        // search's within GJK's accuracy: `1e-6` relatively plus a few f32
        // roundings of the extent about A's centre (`16 eps`), and its points
        // are a closest pair on the boxes to the same bound plus their own
        // rounding to world coordinates.
        let mut by_gjk = 0;
        let n = random_cases(20_000, |case: Case| {
            let (a, b) = (case.obb(0), case.obb(1));
            let extent = a.half_extents().sum() + b.half_extents().sum() + (b.center() - a.center()).abs().sum();
            let d = distance_obb_obb(&a, &b);
            let exact = box_box(&a, &b).finish(intersects_obb_obb(&a, &b));
            if apart_by_gjk(&a, &b, &a.center().coords, extent).is_none() {
                assert_eq!(d, exact);
                return;
            }
            by_gjk += 1;
            let tol = assert_agrees(&d, &exact, extent);
            for (p, o) in [(&d.point_a, &a), (&d.point_b, &b)] {
                let local = o.to_local(p);
                assert!((local.abs() - o.half_extents()).max() <= tol, "{p:?} off {o:?}");
            }
        });
        assert!(by_gjk > n / 4, "GJK answered {by_gjk} of {n}");
    }
}
