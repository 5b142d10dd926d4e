//! Polytope pairs clearly apart: GJK's distance, about a point of theirs,
//! before the edge search.
//!
//! The edge search of two boxes, or of a box and a triangle, solves a
//! segment-shape problem per edge (bounds skip most of them); GJK on the two
//! support maps needs a handful of support points. Apart by a margin, GJK's
//! answer stands; near touching, where the overlap test decides, the edge
//! search runs as before.

use super::ShapeDistance;
use crate::gjk::{distance_convex, SupportMap};
use crate::math::{Real, Vector};
use crate::relative::{about, Relative};

/// GJK's distance proves a pair apart when it exceeds this fraction of the
/// pair's extent (the shapes' sizes plus the offset between them): far above
/// GJK's accuracy (`1e-6` relatively, and a few f32 roundings of the
/// coordinates about the pair) and above the touching tolerance of the
/// overlap tests (`intersects_obb_obb` may report boxes within about `3e-5`
/// of their sizes touching), so the overlap test and the edge search would
/// find the pair apart as well.
const APART: Real = 1e-4;

/// GJK's distance of A and B, run about `o` (a point of A), when it is above
/// `APART * extent`; `None` otherwise (near touching or overlapping).
#[inline]
pub(super) fn apart_by_gjk<A, B>(a: &A, b: &B, o: &Vector, extent: Real) -> Option<ShapeDistance>
where
    A: SupportMap + Relative,
    B: SupportMap + Relative,
{
    let d = about(a, b, o, |a, b| distance_convex(a, b));
    (d.distance > APART * extent).then_some(d)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Asserts that GJK's answer `d` agrees with the exact search's `exact`:
    /// the distance within GJK's accuracy, `1e-6` relatively plus a few f32
    /// roundings of the extent about the pair (`16 eps`), and `|point_a -
    /// point_b| = distance` to that plus the points' rounding to their world
    /// coordinates. Returns that last tolerance, for the caller's checks that
    /// the points lie on the shapes.
    pub(in crate::distance) fn assert_agrees(d: &ShapeDistance, exact: &ShapeDistance, extent: Real) -> Real {
        let tol = 1e-6 * exact.distance + 16.0 * Real::EPSILON * extent;
        let err = (d.distance - exact.distance).abs();
        assert!(err <= tol, "{err:e} > {tol:e}: {d:?} against {exact:?}");
        let tol = tol + 2.0 * Real::EPSILON * d.point_a.coords.amax().max(d.point_b.coords.amax());
        assert!(((d.point_a - d.point_b).norm() - d.distance).abs() <= tol, "{d:?}");
        tol
    }
}
