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

/// A seeded generator. With the environment variable `PROXIMA_TEST_SALT`
/// set to an integer, every seed is mixed with it, so the seeded suites run
/// on other inputs (`PROXIMA_TEST_SALT=7 cargo test --release`); unset or 0,
/// the seeds are the suites' own.
pub fn rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed ^ salt())
}

/// `PROXIMA_TEST_SALT` spread over the bits (0 when unset or unparsable).
fn salt() -> u64 {
    static SALT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *SALT.get_or_init(|| {
        let salt = std::env::var("PROXIMA_TEST_SALT").ok().and_then(|s| s.trim().parse::<u64>().ok()).unwrap_or(0);
        salt.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    })
}
