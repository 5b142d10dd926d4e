//! The shapes. Every shape validates its data at construction and has a
//! tight [`Aabb`] for the broadphase.

mod aabb;
mod capsule;
mod convex_hull;
mod obb;
mod plane;
mod sphere;
mod triangle;

pub use aabb::Aabb;
pub use capsule::Capsule;
pub use convex_hull::{ConvexHull, HullEdge, HullFace, PlacedHull};
pub use obb::Obb;
pub use plane::Plane;
pub use sphere::Sphere;
pub use triangle::Triangle;
