//! proxima: collision detection for physics backends, scene queries and
//! continuous collision of moving spheres.
//!
//! This crate re-exports the workspace's crates, each under one name, so every
//! item has exactly one path:
//! - [`narrowphase`]: shapes, math types and exact tests
//!   (`proxima::narrowphase::Sphere`, `proxima::narrowphase::contact_sphere_obb`),
//!   with the low-level SIMD layer in `proxima::narrowphase::kernels`;
//! - [`broadphase`]: BVHs, sweep-and-prune and pair tracking;
//! - [`scene`]: posed colliders, meshes, scene queries and the contact pipeline;
//! - [`nalgebra`]: the version of nalgebra the math types alias
//!   (`narrowphase::Point` is `nalgebra::Point3<f32>`), so a user builds and
//!   reads them without pinning a matching nalgebra of their own.
//!
//! Nothing is re-exported at the root: an item found at two paths makes a
//! reader wonder whether they are the same item. Bring what you need into scope
//! with `use proxima::narrowphase::{...}`.
//!
//! ```
//! use proxima::nalgebra::{Point3, Vector3};
//! use proxima::narrowphase::{intersects_sphere_sphere, Point, Sphere};
//! let a: Point = Point3::new(0.0, 0.0, 0.0);
//! let b = a + Vector3::new(1.5, 0.0, 0.0);
//! assert!(intersects_sphere_sphere(&Sphere::new(a, 1.0), &Sphere::new(b, 0.5)));
//! ```
#![deny(missing_docs)]
// The README's example runs as a doc test, so it cannot go stale.
#![doc = include_str!("../README.md")]

pub use nalgebra;
pub use proxima_broadphase as broadphase;
pub use proxima_narrowphase as narrowphase;
pub use proxima_scene as scene;
