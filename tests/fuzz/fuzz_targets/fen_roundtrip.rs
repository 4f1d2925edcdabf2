//! Fuzz target `fen_roundtrip`: see `pgnkit_fuzz::checks::fen_roundtrip`. Seeds: `fixtures/fuzz/fen_roundtrip/`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| pgnkit_fuzz::checks::fen_roundtrip(data));
