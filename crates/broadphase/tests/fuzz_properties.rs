//! The broadphase fuzz properties (`fuzz/src/broadphase.rs`, the body of the
//! `broadphase_ops` cargo-fuzz target) on a bounded, seeded proptest sample,
//! so `cargo test --workspace --release` checks them without nightly.
//!
//! Each input is a random byte string decoded exactly as the fuzz target
//! decodes it: a sequence of up to 96 inserts, removals, moves, stale-id
//! calls, option changes, updates, rebuilds and box/ray queries on a
//! `DynamicTree`, two `SweepAndPrune`s, a `PairTracker` and `BruteForce`,
//! with NaN, infinite, huge (1e30, f32::MAX) and zero-size boxes among the
//! inputs. The runner uses ChaCha with a fixed seed and no failure
//! persistence, so every run draws the same sequences.

#[allow(dead_code)]
#[path = "../../../fuzz/src/broadphase.rs"]
mod broadphase;
#[allow(dead_code)]
#[path = "../../../fuzz/src/bytes.rs"]
mod bytes;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

fn runner(cases: u32, seed: u8) -> TestRunner {
    let config = Config { cases, failure_persistence: None, rng_algorithm: RngAlgorithm::ChaCha, ..Config::default() };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]))
}

/// 30,000 sequences of up to 96 operations, each followed by the full check
/// against `BruteForce` and every `validate()` (~3 s).
#[test]
fn broadphase_operation_sequences_match_brute_force() {
    let mut r = runner(30_000, 0xb9);
    let result = r.run(&proptest::collection::vec(any::<u8>(), 0..1500), |bytes| {
        broadphase::check(&bytes);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
