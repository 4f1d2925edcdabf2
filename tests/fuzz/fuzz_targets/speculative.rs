//! Fuzz target `speculative`: see `pgnkit_fuzz::checks::speculative`. Seeds: `fixtures/fuzz/speculative/`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| pgnkit_fuzz::checks::speculative(data));
