//! Sequences of scene operations, queries and contact-pipeline updates (see
//! `proxima_fuzz::scene` for the properties).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| proxima_fuzz::scene::check(data));
