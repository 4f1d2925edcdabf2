//! pgnkit: validate, clean, extract positions from and annotate chess games in PGN, on all cores.
//!
//! The library holds everything but the command line: the rules ([`chess`]), text formats
//! ([`notation`]), the PGN reader ([`pgn`]), input and output ([`io`]), the parallel pipeline
//! ([`pipeline`]) and its jobs ([`jobs`]), engines ([`engine`], [`search`]).
//!
//! ```
//! use pgnkit::chess::{Position, perft::perft};
//! assert_eq!(perft(&Position::default(), 3), 8_902);
//! ```

pub mod analysis;
pub mod chess;
pub mod engine;
pub mod error;
pub mod io;
pub mod jobs;
pub mod notation;
pub mod pgn;
pub mod pipeline;
pub mod search;

pub use chess::{Color, Move, Position, Role, Square, Variant};

/// The README's Rust examples, run as doctests so they stay true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// A file of the large shared data sets (`../shared/data/REL` from the repository root), or
/// `None` after printing that the test using it is skipped (a user's clone does not have them).
#[cfg(test)]
pub(crate) fn read_shared_data(rel: &str) -> Option<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data").join(rel);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) => {
            println!(
                "skipped: {}: {e} (the large shared data sets are not part of the repository)",
                path.display()
            );
            None
        }
    }
}
