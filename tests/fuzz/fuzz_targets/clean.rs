//! Fuzz target `clean`: see `pgnkit_fuzz::checks::clean`. Seeds: `fixtures/fuzz/clean/`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| pgnkit_fuzz::checks::clean(data));
