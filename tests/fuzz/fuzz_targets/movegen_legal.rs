//! Fuzz target `movegen_legal`: see `pgnkit_fuzz::checks::movegen_legal`. Seeds: `fixtures/fuzz/movegen_legal/`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| pgnkit_fuzz::checks::movegen_legal(data));
