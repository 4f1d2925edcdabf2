//! Fuzz target `split`: see `pgnkit_fuzz::checks::split`. Seeds: `fixtures/fuzz/split/`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| pgnkit_fuzz::checks::split(data));
