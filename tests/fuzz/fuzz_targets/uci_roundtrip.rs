//! Fuzz target `uci_roundtrip`: see `pgnkit_fuzz::checks::uci_roundtrip`. Seeds: `fixtures/fuzz/uci_roundtrip/`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| pgnkit_fuzz::checks::uci_roundtrip(data));
