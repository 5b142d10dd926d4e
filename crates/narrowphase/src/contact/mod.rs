//! Contacts for physics: where two shapes touch and how deep they overlap.

mod capsule_capsule;
mod capsule_hull;
mod capsule_obb;
mod capsule_triangle;
pub use capsule_capsule::contact_capsule_capsule;
pub use capsule_hull::{contact_capsule_hull, contact_manifold_capsule_hull};
pub use capsule_obb::contact_capsule_obb;
pub use capsule_triangle::contact_capsule_triangle;
mod clip;
mod feature;
mod hull_obb;
mod hull_obb_faces;
mod manifold;
mod manifold_face;
mod manifold_obb_obb;
mod manifold_round;
mod near_band;
mod obb_obb;
mod obb_triangle;
mod obb_triangle_lanes;
mod sphere_aabb;
mod sphere_capsule;
mod sphere_hull;
mod sphere_obb;
mod sphere_sphere;
mod sphere_triangle;
mod triangle_triangle;
pub use hull_obb::contact_hull_obb;
pub use manifold::{ContactManifold, ManifoldPoint};
pub use manifold_face::{
    contact_manifold_capsule_obb, contact_manifold_capsule_triangle, contact_manifold_obb_triangle,
};
pub use manifold_obb_obb::{contact_manifold_obb_obb, contact_manifold_obb_obb_noting};
pub use manifold_round::{
    contact_manifold_capsule_capsule, contact_manifold_sphere_capsule, contact_manifold_sphere_obb,
    contact_manifold_sphere_sphere, contact_manifold_sphere_triangle, CAPSULE_PARALLEL_SINE,
};
pub use obb_obb::{
    contact_obb_obb, contact_obb_obb_noting, SeparatingAxis, OBB_EDGE_AXIS_MIN_SINE, OBB_EDGE_AXIS_REL_TOL,
};
pub use obb_triangle::contact_obb_triangle;
pub use obb_triangle_lanes::{contact_manifolds_obb_triangle_x8, TriangleLanes, TRIANGLE_LANES};
pub use sphere_aabb::contact_sphere_aabb;
pub use sphere_capsule::contact_sphere_capsule;
pub use sphere_hull::{contact_manifold_sphere_hull, contact_sphere_hull};
pub use sphere_obb::contact_sphere_obb;
pub use sphere_sphere::contact_sphere_sphere;
pub use sphere_triangle::contact_sphere_triangle;
pub use triangle_triangle::{contact_triangle_triangle, intersects_triangle_triangle};

use crate::math::{Point, Real, UnitVector};

/// The contact between shape A and shape B.
///
/// Conventions, for every `contact_*` function:
/// - `normal` is unit length and points from A to B: moving B by
///   `depth * normal` separates the shapes;
/// - `depth >= 0` (`> 0` when penetrating, `0` when exactly touching);
/// - `point_a` is the deepest point of A inside B, on A's surface, and
///   `point_b` the deepest point of B inside A, on B's surface, so that
///   `point_a - point_b ≈ depth * normal`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Contact {
    /// Witness point on A's surface (world frame).
    pub point_a: Point,
    /// Witness point on B's surface (world frame).
    pub point_b: Point,
    /// Unit normal from A to B (world frame).
    pub normal: UnitVector,
    /// Penetration depth, `>= 0`.
    pub depth: Real,
}

impl Contact {
    /// The same contact seen from B: swaps the points and negates the normal.
    #[must_use]
    pub fn flipped(&self) -> Contact {
        Contact { point_a: self.point_b, point_b: self.point_a, normal: -self.normal, depth: self.depth }
    }
}
