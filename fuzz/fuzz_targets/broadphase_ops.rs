//! Sequences of insert/remove/move/query operations on DynamicTree,
//! SweepAndPrune, PairTracker and BruteForce (see `proxima_fuzz::broadphase`
//! for the properties).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| proxima_fuzz::broadphase::check(data));
