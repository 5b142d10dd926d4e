//! The low-level layer under the queries: what a structure that batches its
//! tests (a BVH, a mesh) needs and a user of the shape queries does not.
//!
//! - [`PrecomputedRay`] and [`ray_aabb_interval`] (a [`RayInterval`]): the scalar slab test on a
//!   ray prepared once for many boxes;
//! - [`AabbX4`] / [`AabbX8`] ([`AabbLanes`]) and [`cast_ray_aabb_x4`] /
//!   [`cast_ray_aabb_x8`]: one ray against 4 or 8 boxes stored
//!   structure-of-arrays, each lane bit-identical to the scalar test, dispatched
//!   on the [`SimdLevel`] detected once per process; the `*_scalar`, `*_sse2`
//!   and `*_avx` kernels are public for benchmarks and bit-identity tests;
//!   [`cast_ray_aabb_x8_loosened`] tests the 8 boxes grown by a per-lane
//!   allowance without a grown copy;
//! - [`WatertightRay`]: the sheared ray of the watertight ray/triangle test,
//!   prepared once for many triangles;
//! - [`contact_manifolds_obb_triangle_x8`]: one box's manifolds against eight
//!   triangles stored structure-of-arrays ([`TriangleLanes`]), each lane
//!   bit-identical to
//!   [`contact_manifold_obb_triangle`](crate::contact_manifold_obb_triangle).
//!
//! These take no validated shapes of their own and check nothing: the caller
//! builds them from validated [`Ray`](crate::Ray)s and [`Aabb`](crate::Aabb)s.

pub use crate::cast::{
    cast_ray_aabb_lanes_scalar, cast_ray_aabb_x4, cast_ray_aabb_x4_scalar, cast_ray_aabb_x8, cast_ray_aabb_x8_loosened,
    cast_ray_aabb_x8_scalar, ray_aabb_interval, AabbLanes, AabbX4, AabbX8, PrecomputedRay, RayInterval, RayLaneHits,
    SimdLevel, WatertightRay,
};
#[cfg(target_arch = "x86_64")]
pub use crate::cast::{
    cast_ray_aabb_x4_sse2, cast_ray_aabb_x8_avx, cast_ray_aabb_x8_loosened_avx, cast_ray_aabb_x8_sse2,
    overlap_mask_x8_avx,
};
pub use crate::contact::{contact_manifolds_obb_triangle_x8, TriangleLanes, TRIANGLE_LANES};
