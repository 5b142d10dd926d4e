//! proxima: collision detection for physics backends, scene queries and
//! continuous collision of moving spheres.
//!
//! This crate re-exports the workspace's crates:
//! - [`narrowphase`]: shapes and exact tests (also re-exported at the root);
//! - [`broadphase`]: BVHs, sweep-and-prune and pair tracking;
//! - [`scene`]: posed colliders, meshes, scene queries and the contact pipeline.
#![deny(missing_docs)]
// The README's example runs as a doc test, so it cannot go stale.
#![doc = include_str!("../README.md")]

pub use proxima_broadphase as broadphase;
pub use proxima_narrowphase as narrowphase;
pub use proxima_narrowphase::*;
pub use proxima_scene as scene;
