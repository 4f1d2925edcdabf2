//! Fuzz target `san_roundtrip`: see `pgnkit_fuzz::checks::san_roundtrip`. Seeds: `fixtures/fuzz/san_roundtrip/`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| pgnkit_fuzz::checks::san_roundtrip(data));
