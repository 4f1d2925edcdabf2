//! Integration tests (one binary): the real `pgnkit` executable on `fixtures/` (and on
//! the shared data sets when they are there), plus library-level checks over whole corpora.

mod annotate;
mod check;
mod ci;
mod clean;
mod clean_dedup;
mod clean_repairs;
mod clean_tags;
mod cluster;
mod encoding;
// The fuzz targets' properties and PGN event trace, shared with `tests/fuzz` (one copy).
#[path = "../fuzz/src/checks.rs"]
mod checks;
mod engine;
mod epd_lines;
mod exit;
mod fuzz_seeds;
mod help;
mod inputs;
mod interrupt;
mod not_pgn;
mod outputs;
mod parquet;
mod perft;
mod pgn_corpus;
mod pgn_export;
mod pgn_roundtrip;
mod positions;
mod report;
#[path = "../common/scratch.rs"]
mod scratch;
mod select;
mod shard;
mod shard_bounds;
mod shard_corrupt;
mod shard_dedup;
mod shard_index;
mod shard_options;
mod shard_targets;
#[path = "../common/signal.rs"]
mod signal;
#[path = "../common/skip.rs"]
mod skip;
#[path = "../common/slurm.rs"]
mod slurm;
mod util;
