//! Distances and closest points between two shapes.
//!
//! Rounded shapes (spheres, capsules) reduce to their core (a point, a
//! segment): the closest pair of the cores, pulled in by the radii. Polytope
//! pairs (boxes, triangles) take GJK's distance when it proves them clearly
//! apart (`gjk_first`), else the least segment-shape distance over the edges
//! of each against the other (see [`EdgeSearch`]).

mod capsule_capsule;
mod capsule_obb;
mod capsule_triangle;
mod edge_bound;
mod gjk_first;
mod obb_obb;
mod obb_triangle;
mod sphere_capsule;
mod sphere_obb;
mod sphere_sphere;
mod sphere_triangle;
mod triangle_triangle;

pub use capsule_capsule::distance_capsule_capsule;
pub(crate) use capsule_capsule::distance_capsule_capsule_in_place;
pub use capsule_obb::{distance_capsule_aabb, distance_capsule_obb};
pub use capsule_triangle::distance_capsule_triangle;
pub use obb_obb::{distance_aabb_aabb, distance_aabb_obb, distance_obb_obb, distance_obb_obb_by_edges};
pub use obb_triangle::{distance_aabb_triangle, distance_obb_triangle, distance_obb_triangle_by_edges};
pub use sphere_capsule::distance_sphere_capsule;
pub(crate) use sphere_capsule::distance_sphere_capsule_in_place;
pub(crate) use sphere_obb::distance_sphere_obb_in_place;
pub use sphere_obb::{distance_sphere_aabb, distance_sphere_obb};
pub use sphere_sphere::distance_sphere_sphere;
pub use sphere_triangle::distance_sphere_triangle;
pub(crate) use sphere_triangle::distance_sphere_triangle_in_place;
pub use triangle_triangle::distance_triangle_triangle;

use crate::closest::ClosestPoints;
use crate::math::{Point, Real};

/// The distance between shape A and shape B (the first and second operand of
/// a `distance_*` function) and a closest pair of points, in world space.
///
/// Conventions, for every `distance_*` function:
/// - apart: `distance > 0` is the least distance between the solids (the
///   triangle a surface), `point_a` on A's surface and `point_b` on B's, and
///   `|point_a - point_b| = distance` up to rounding;
/// - overlapping or touching: `distance = 0` and `point_a == point_b`, a point
///   common to both shapes (up to rounding). It is not a penetration witness:
///   use the `contact_*` functions for the depth;
/// - far from the origin: each function works relative to a point of its
///   shapes (a sphere's centre, a capsule's endpoint, a box's frame), so the
///   distance carries the rounding of the shapes' size and distance, not of
///   their coordinates (`eps` of 1e4 is 1e-3); only the points are rounded
///   to their world coordinates. [`distance_convex`](crate::distance_convex)
///   works in world coordinates (see its accuracy).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ShapeDistance {
    /// Distance between the shapes, `>= 0`; `0` when they overlap.
    pub distance: Real,
    /// The point of A closest to B (world frame).
    pub point_a: Point,
    /// The point of B closest to A (world frame); equal to `point_a` when the
    /// shapes overlap.
    pub point_b: Point,
}

impl ShapeDistance {
    /// Overlapping shapes: distance 0 at the common point `p`.
    #[inline]
    fn overlap(p: Point) -> Self {
        Self { distance: 0.0, point_a: p, point_b: p }
    }
}

/// Rounded shapes from the closest pair of their cores: `s` on A's core
/// (radius `ra`), `t` on B's core (radius `rb`; `0` for a polytope).
///
/// With `g = |t - s|`, the solids are `g - ra - rb` apart along the unit
/// `u = (t - s) / g`, at `s + ra u` and `t - rb u`. When `g <= ra + rb` they
/// overlap, and `s + (t - s) ra / (ra + rb)` is within `ra` of `s` and `rb` of
/// `t`, so it lies in both (it is `t` for a polytope B, `rb = 0`).
#[inline]
pub(crate) fn from_cores(s: Point, ra: Real, t: Point, rb: Real) -> ShapeDistance {
    let gap = t - s;
    let g = gap.norm();
    let r = ra + rb;
    if g <= r {
        let common = if r > 0.0 { s + gap * (ra / r) } else { s };
        return ShapeDistance::overlap(common);
    }
    let u = gap / g;
    ShapeDistance { distance: g - r, point_a: s + u * ra, point_b: t - u * rb }
}

/// The least of candidate closest pairs between two polytopes.
///
/// Two disjoint convex polytopes (a box, a triangle) have a closest pair with
/// one point on an edge (or vertex) of one of them. Take a closest pair
/// `(p, q)`: if `p` is inside a face of A and `q` inside a face of B, away
/// from their edges, then `q - p` is normal to both faces (else sliding `p` or
/// `q` in its face would shorten it), so the faces are parallel and the pair
/// `(p + v, q + v)`, for `v` in their common plane, stays in both faces at the
/// same distance until one of its points reaches an edge. So the distance is
/// the minimum, over every edge of A against the solid B and every edge of B
/// against the solid A, of the segment-shape distance (each is at least the
/// shapes' distance, and one equals it). When the shapes overlap, their common
/// part is a polytope whose vertices each lie on an edge of A inside B or on
/// an edge of B inside A, so the minimum is 0 and its pair a common point.
/// (Ericson, Real-Time Collision Detection, 9.1 and the feature pairs of
/// 5.1.9; parry and Jolt run GJK instead, iterative and within a tolerance.)
#[derive(Clone, Copy, Debug)]
struct EdgeSearch {
    best: ClosestPoints,
    dist2: Real,
}

impl EdgeSearch {
    fn new() -> Self {
        Self { best: ClosestPoints { point_a: Point::origin(), point_b: Point::origin() }, dist2: Real::INFINITY }
    }

    /// Keeps `(on_a, on_b)` when closer than the best so far.
    #[inline]
    fn take(&mut self, on_a: Point, on_b: Point) {
        let d2 = (on_b - on_a).norm_squared();
        if d2 < self.dist2 {
            self.dist2 = d2;
            self.best = ClosestPoints { point_a: on_a, point_b: on_b };
        }
    }

    /// The result, with `overlap` the pair's exact overlap test: when it holds,
    /// distance 0 at the midpoint of the best pair (which the edge search
    /// found at distance 0 up to rounding).
    fn finish(self, overlap: bool) -> ShapeDistance {
        let ClosestPoints { point_a, point_b } = self.best;
        if overlap {
            return ShapeDistance::overlap(point_a + (point_b - point_a) * 0.5);
        }
        ShapeDistance { distance: self.dist2.sqrt(), point_a, point_b }
    }

    /// The closer of two searches.
    fn closer(self, other: Self) -> Self {
        if other.dist2 < self.dist2 {
            other
        } else {
            self
        }
    }

    /// The same search seen in another frame: both points mapped by `f`.
    fn map(self, f: impl Fn(&Point) -> Point) -> Self {
        let ClosestPoints { point_a, point_b } = self.best;
        Self { best: ClosestPoints { point_a: f(&point_a), point_b: f(&point_b) }, dist2: self.dist2 }
    }
}
