//! Integration tests (one binary).

mod pgn_corpus;
