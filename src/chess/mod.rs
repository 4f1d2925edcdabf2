//! The rules of chess (standard, Chess960, Crazyhouse): pure, no I/O, no allocation in the hot
//! paths, no global mutable state. Everything else in pgnkit stands on this module.

pub mod attacks;
pub mod bitboard;
pub mod board;
pub mod game;
pub(crate) mod movegen;
pub mod moves;
pub mod outcome;
pub mod packed;
pub mod perft;
pub mod position;
pub(crate) mod reach;
pub mod setup;
pub mod square;
pub mod types;
pub mod variant;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use board::Board;
pub use game::Game;
pub use moves::{MAX_MOVES, Move, MoveKind, MoveList};
pub use outcome::{Outcome, Termination};
pub use packed::PackedKey;
pub use position::{IllegalMove, Position, PositionError, PositionErrorKind};
pub use setup::{CastlingMode, Pocket, Setup};
pub use square::{File, Rank, Square};
pub use types::{ByColor, ByRole, CastlingSide, Color, Piece, Role};
pub use variant::{UnsupportedVariant, Variant};
