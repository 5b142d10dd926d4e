//! The narrowphase fuzz properties (`fuzz/src/narrowphase.rs`, the body of
//! the `narrowphase` cargo-fuzz target) on a bounded, seeded proptest sample,
//! so `cargo test --workspace --release` checks them without nightly.
//!
//! Inputs are random byte strings decoded exactly as the fuzz target decodes
//! them (`fuzz/src/bytes.rs`): special floats (NaN, ±inf, ±0, ±f32::MAX,
//! ±1e30, tiny, subnormal, raw bits) among ordinary ones. The runner uses
//! ChaCha with a fixed seed and no failure persistence: every run draws the
//! same cases. The properties, and their tolerances, are documented in
//! `fuzz/src/narrowphase.rs`.

#[allow(dead_code)]
#[path = "../../../fuzz/src/bytes.rs"]
mod bytes;
#[allow(dead_code)]
#[path = "../../../fuzz/src/narrowphase.rs"]
mod narrowphase;
#[allow(dead_code)]
#[path = "../../../fuzz/src/oracle.rs"]
mod oracle;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// A runner drawing `cases` inputs from ChaCha seeded with `seed`.
fn runner(cases: u32, seed: u8) -> TestRunner {
    let config = Config { cases, failure_persistence: None, rng_algorithm: RngAlgorithm::ChaCha, ..Config::default() };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]))
}

/// Up to 16 decoded cases per input (see `narrowphase::check`): 60,000
/// inputs check about half a million shape pairs with their oracles (~2 s).
#[test]
fn narrowphase_properties_hold_on_seeded_fuzz_inputs() {
    let mut r = runner(60_000, 0x4e);
    let result = r.run(&proptest::collection::vec(any::<u8>(), 0..600), |bytes| {
        narrowphase::check(&bytes);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
