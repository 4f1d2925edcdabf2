//! Integration tests (one binary): the real `pgnkit` executable on `fixtures/` (and on
//! `../shared/data` when it is there), plus library-level checks over whole corpora.

mod check;
mod engine;
mod fuzz_seeds;
mod inputs;
mod perft;
mod pgn_corpus;
mod positions;
mod util;
