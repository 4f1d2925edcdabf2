//! Fuzz target `pgn_reader`: see `pgnkit_fuzz::checks::pgn_reader`. Seeds: `fixtures/fuzz/pgn_reader/`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| pgnkit_fuzz::checks::pgn_reader(data));
