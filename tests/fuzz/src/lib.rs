//! The fuzz targets' properties (`checks`), shared with the stable seed-replay test of the main
//! crate (`tests/it/fuzz_seeds.rs`), which includes the same file.

pub mod checks;
