//! Ray casts, swept spheres and swept boxes (continuous collision).

mod aabb_lanes;
mod obb_obb;
mod offset;
mod ray;
mod ray_aabb;
mod ray_aabb_wide;
mod ray_capsule;
mod ray_obb;
mod ray_plane;
mod ray_sphere;
mod ray_triangle;
mod simd_level;
mod sphere_aabb;
mod sphere_capsule;
mod sphere_obb;
mod sphere_plane;
mod sphere_sphere;
mod sphere_triangle;
mod sweep;

pub use obb_obb::cast_obb_obb;
pub use offset::offset_ray_origin;
pub use ray::{PrecomputedRay, Ray, RayHit};
pub use ray_aabb::{cast_ray_aabb, ray_aabb_interval, RayInterval};
pub use ray_aabb_wide::{
    cast_ray_aabb_lanes_scalar, cast_ray_aabb_x4, cast_ray_aabb_x4_scalar, cast_ray_aabb_x8, cast_ray_aabb_x8_loosened,
    cast_ray_aabb_x8_scalar, AabbLanes, AabbX4, AabbX8, RayLaneHits, SimdLevel,
};
#[cfg(target_arch = "x86_64")]
pub use ray_aabb_wide::{
    cast_ray_aabb_x4_sse2, cast_ray_aabb_x8_avx, cast_ray_aabb_x8_loosened_avx, cast_ray_aabb_x8_sse2,
    overlap_mask_x8_avx,
};
pub use ray_capsule::cast_ray_capsule;
pub use ray_obb::cast_ray_obb;
pub use ray_plane::cast_ray_plane;
pub use ray_sphere::cast_ray_sphere;
pub use ray_triangle::{cast_ray_triangle, cast_ray_triangle_uv, TriangleRayHit, WatertightRay};
pub use sphere_aabb::cast_sphere_aabb;
pub use sphere_capsule::cast_sphere_capsule;
pub use sphere_obb::cast_sphere_obb;
pub use sphere_plane::cast_sphere_plane;
#[allow(deprecated)]
pub use sphere_sphere::cast_sphere_sphere_moving;
pub use sphere_sphere::{cast_sphere_moving_sphere, cast_sphere_sphere};
pub use sphere_triangle::cast_sphere_triangle;
pub use sweep::{SweepHit, SweepStatus};
