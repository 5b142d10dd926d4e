//! Boolean overlap tests, inclusive: touching shapes intersect.

mod aabb_aabb;
mod aabb_triangle;
mod capsule_capsule;
mod capsule_obb;
mod obb_obb;
mod sphere_aabb;
mod sphere_capsule;
mod sphere_obb;
mod sphere_sphere;
mod sphere_triangle;

pub use aabb_aabb::intersects_aabb_aabb;
pub use aabb_triangle::intersects_aabb_triangle;
pub use capsule_capsule::intersects_capsule_capsule;
pub use capsule_obb::{intersects_capsule_aabb, intersects_capsule_obb};
pub(crate) use obb_obb::SAT_ABS_EPSILON;
pub use obb_obb::{intersects_aabb_obb, intersects_obb_obb};
pub use sphere_aabb::intersects_sphere_aabb;
pub use sphere_capsule::intersects_sphere_capsule;
pub use sphere_obb::intersects_sphere_obb;
pub use sphere_sphere::intersects_sphere_sphere;
pub use sphere_triangle::intersects_sphere_triangle;
