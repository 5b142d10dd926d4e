//! Ray casts and swept spheres (continuous collision).

mod ray;
mod ray_aabb;

pub use ray::{PrecomputedRay, Ray, RayHit};
pub use ray_aabb::{cast_ray_aabb, ray_aabb_interval};
