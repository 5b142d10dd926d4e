//! proxima: collision detection for physics backends, scene queries and
//! continuous collision of moving spheres.
//!
//! This crate re-exports the workspace's crates, each under one name, so every
//! item has exactly one path:
//! - [`narrowphase`]: shapes, math types and exact tests
//!   (`proxima::narrowphase::Sphere`, `proxima::narrowphase::contact_sphere_obb`),
//!   with the low-level SIMD layer in `proxima::narrowphase::kernels`;
//! - [`broadphase`]: BVHs, sweep-and-prune and pair tracking;
//! - [`scene`]: posed colliders, meshes, scene queries and the contact pipeline.
//!
//! Nothing is re-exported at the root: an item found at two paths makes a
//! reader wonder whether they are the same item. Bring what you need into scope
//! with `use proxima::narrowphase::{...}`.
#![deny(missing_docs)]
// The README's example runs as a doc test, so it cannot go stale.
#![doc = include_str!("../README.md")]

pub use proxima_broadphase as broadphase;
pub use proxima_narrowphase as narrowphase;
pub use proxima_scene as scene;
