//! Every narrowphase function on floats decoded from the fuzz bytes (see
//! `proxima_fuzz::narrowphase` for the properties).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| proxima_fuzz::narrowphase::check(data));
