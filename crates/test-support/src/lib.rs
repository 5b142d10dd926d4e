//! Seeded generators, nalgebra <-> parry3d conversions, a counting allocator
//! and oracle helpers for proxima's tests and benches.
//!
//! Everything random here is driven by a seeded [`SmallRng`], so a failing
//! case is reproducible from its seed and index.

pub mod alloc;
pub mod convert;
pub mod gen;
pub mod mesh;
pub mod minimize;
pub mod parry;
pub mod report;
pub mod scene;
#[cfg(feature = "serde")]
pub mod serde;

pub use rand::rngs::SmallRng;
pub use rand::{Rng, SeedableRng};

/// A seeded generator.
pub fn rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed)
}
