//! Ray casts and swept spheres (continuous collision).

mod ray;
mod ray_aabb;
mod ray_aabb_wide;

pub use ray::{PrecomputedRay, Ray, RayHit};
pub use ray_aabb::{cast_ray_aabb, ray_aabb_interval};
pub use ray_aabb_wide::{
    cast_ray_aabb_lanes_scalar, cast_ray_aabb_x4, cast_ray_aabb_x4_scalar, cast_ray_aabb_x8, cast_ray_aabb_x8_scalar,
    AabbLanes, AabbX4, AabbX8, RayLaneHits, SimdLevel,
};
#[cfg(target_arch = "x86_64")]
pub use ray_aabb_wide::{cast_ray_aabb_x4_sse2, cast_ray_aabb_x8_avx, cast_ray_aabb_x8_sse2};
