//! Seeded generators and nalgebra <-> parry3d conversions for proxima's tests and benches.
//!
//! Everything random here is driven by a seeded [`SmallRng`], so a failing
//! case is reproducible from its seed and index.

pub mod convert;
pub mod gen;
pub mod mesh;
pub mod scene;

pub use rand::rngs::SmallRng;
pub use rand::{Rng, SeedableRng};

/// A seeded generator.
pub fn rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed)
}
