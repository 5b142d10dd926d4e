//! proxima's narrowphase: shapes and the exact tests between them.
//!
//! - shapes: [`Aabb`], [`Sphere`], [`Obb`], [`Capsule`], [`Triangle`], [`Plane`],
//!   each validated at construction (`try_new` returns a [`ShapeError`]);
//! - `closest_point_*` / `distance_point_*`: point queries;
//! - `distance_*` between two shapes: [`ShapeDistance`], the distance and a
//!   closest pair (0 and a common point when they overlap);
//! - `intersects_*`: boolean overlap, inclusive (touching shapes intersect);
//! - `contact_*`: [`Contact`] with a unit normal from A to B and `depth >= 0`;
//! - `cast_ray_*`: [`Ray`] casts returning a [`RayHit`];
//! - `cast_sphere_*`: swept spheres (continuous collision) returning a [`SweepHit`];
//! - [`SupportMap`] shapes, built-in or a user's own: [`distance_convex`] (GJK),
//!   [`intersects_convex`], [`contact_convex`] (EPA) and [`cast_shape_convex`];
//! - [`kernels`]: the low-level layer under the queries above (prepared rays,
//!   the SIMD ray/box kernels, the watertight triangle kernel, tuning
//!   constants), for structures that batch their tests.
//!
//! Every item has one path: the queries, shapes and math types at this crate's
//! root, the low-level layer in [`kernels`].
//!
//! ```
//! # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
//! use proxima::narrowphase::*;
//! let a = Sphere::new(Point::origin(), 1.0);
//! let b = Obb::new(Point::new(1.5, 0.0, 0.0), Rotation::identity(), Vector::new(1.0, 1.0, 1.0));
//! assert!(intersects_sphere_obb(&a, &b));
//! let c = contact_sphere_obb(&a, &b).unwrap();
//! assert!((c.depth - 0.5).abs() < 1e-6);
//! ```
#![deny(missing_docs)]

mod cast;
mod closest;
mod contact;
mod distance;
mod error;
mod gjk;
#[cfg(feature = "glam")]
pub mod glam_convert;
mod intersect;
pub mod kernels;
mod math;
mod relative;
mod shape;
#[cfg(feature = "serde")]
mod validated_serde;

#[allow(deprecated)]
pub use cast::cast_sphere_sphere_moving;
pub use cast::{
    cast_obb_obb, cast_ray_aabb, cast_ray_capsule, cast_ray_obb, cast_ray_plane, cast_ray_sphere, cast_ray_triangle,
    cast_ray_triangle_uv, cast_sphere_aabb, cast_sphere_capsule, cast_sphere_moving_sphere, cast_sphere_obb,
    cast_sphere_plane, cast_sphere_sphere, cast_sphere_triangle, offset_ray_origin, Ray, RayHit, SweepHit, SweepStatus,
    TriangleRayHit,
};
pub use closest::{
    closest_point_aabb, closest_point_obb, closest_point_segment, closest_point_sphere, closest_point_triangle,
    closest_points_segment_aabb, closest_points_segment_obb, closest_points_segment_segment,
    closest_points_segment_triangle, distance_point_aabb, distance_point_obb, distance_point_segment,
    distance_point_sphere, distance_point_triangle, distance_squared_point_aabb, ClosestPoints,
};
pub use contact::{
    contact_capsule_capsule, contact_capsule_hull, contact_capsule_obb, contact_capsule_triangle, contact_hull_obb,
    contact_manifold_capsule_capsule, contact_manifold_capsule_hull, contact_manifold_capsule_obb,
    contact_manifold_capsule_triangle, contact_manifold_obb_obb, contact_manifold_obb_obb_noting,
    contact_manifold_obb_triangle, contact_manifold_sphere_capsule, contact_manifold_sphere_hull,
    contact_manifold_sphere_obb, contact_manifold_sphere_sphere, contact_manifold_sphere_triangle, contact_obb_obb,
    contact_obb_obb_noting, contact_obb_triangle, contact_sphere_aabb, contact_sphere_capsule, contact_sphere_hull,
    contact_sphere_obb, contact_sphere_sphere, contact_sphere_triangle, contact_triangle_triangle,
    intersects_triangle_triangle, Contact, ContactManifold, ManifoldPoint, SeparatingAxis,
};
pub use distance::{
    distance_aabb_aabb, distance_aabb_obb, distance_aabb_triangle, distance_capsule_aabb, distance_capsule_capsule,
    distance_capsule_obb, distance_capsule_triangle, distance_obb_obb, distance_obb_triangle, distance_sphere_aabb,
    distance_sphere_capsule, distance_sphere_obb, distance_sphere_sphere, distance_sphere_triangle,
    distance_triangle_triangle, ShapeDistance,
};
pub use error::ShapeError;
pub use gjk::{cast_shape_convex, contact_convex, convex_iterations, distance_convex, intersects_convex, SupportMap};
pub use intersect::{
    intersects_aabb_aabb, intersects_aabb_obb, intersects_aabb_triangle, intersects_capsule_aabb,
    intersects_capsule_capsule, intersects_capsule_obb, intersects_obb_obb, intersects_sphere_aabb,
    intersects_sphere_capsule, intersects_sphere_obb, intersects_sphere_sphere, intersects_sphere_triangle,
};
pub use math::{renormalized_rotation, Isometry, Matrix, Point, Real, Rotation, UnitVector, Vector, MAX_COORDINATE};
pub use shape::{Aabb, Capsule, ConvexHull, HullEdge, HullFace, Obb, PlacedHull, Plane, Sphere, Triangle};

/// What proxima's tests and fuzz targets use and a user of the queries does
/// not: the tuning constants of the box-box contact, which bound its
/// deviation from the exact SAT depth, the tilt below which two capsules
/// get two points, and the exact edge searches that the box distances skip
/// for pairs GJK proves apart (the tests' oracles).
#[doc(hidden)]
pub mod internal {
    pub use crate::contact::{CAPSULE_PARALLEL_SINE, OBB_EDGE_AXIS_MIN_SINE, OBB_EDGE_AXIS_REL_TOL};
    pub use crate::distance::{distance_obb_obb_by_edges, distance_obb_triangle_by_edges};
}
