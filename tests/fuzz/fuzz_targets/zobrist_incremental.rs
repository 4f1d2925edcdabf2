//! Fuzz target `zobrist_incremental`: see `pgnkit_fuzz::checks::zobrist_incremental`. Seeds: `fixtures/fuzz/zobrist_incremental/`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| pgnkit_fuzz::checks::zobrist_incremental(data));
