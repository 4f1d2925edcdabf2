//! FEN and EPD: reading into a [`Setup`], writing from a [`Position`] or a raw [`Setup`].
//!
//! Owned here: the placement, pocket, turn, castling, en passant and clock fields; castling
//! rights as rook squares (X-FEN and Shredder-FEN in, X-FEN out, Shredder-FEN on request:
//! [`write_shredder_fen`], [`FenWriter::shredder`]); the en passant policy
//! ([`EpMode`]); EPD operations (PGN standard 16.2). Validation of the position itself belongs
//! to [`Position::from_setup`]; [`parse_fen`] combines both.
//!
//! Lenient input accepted by [`parse_setup`] (and [`parse_fen`]):
//! - any amount of ASCII whitespace around and between fields;
//! - 1 to 6 fields: those missing after the board take python-chess's defaults, `w - - 0 1`
//!   ([`parse_epd`] needs EPD's four);
//! - a crazyhouse pocket as `[QRpp]` right after the board, or as a ninth rank `/QRpp` (may be
//!   empty, `[]`, `[-]` and a bare trailing `/` all mean an empty pocket); `~` after a piece
//!   marks it promoted;
//! - castling as `-`, `KQkq`, X-FEN file letters mixed with `KQkq` (`Kkq`, `Bkq`), Shredder-FEN
//!   (`HAha`), in any order, with repeats ignored. `K` means the outermost rook of that color on
//!   the h-side of its king on the back rank, `Q` the outermost on the a-side, a file letter the
//!   rook square on that file of the back rank (upper case for White). Rights without a rook are
//!   kept as squares; `Position::from_setup` reports them.
//!
//! Not accepted by [`parse_setup`]: a trailing `;` or EPD operations (use [`parse_epd`]).
//!
//! Writing never allocates beyond the output buffer ([`FenWriter`] and [`write_fen`] are on the
//! positions job's hot path).
//!
//! Parts: `read` (FEN text to a [`Setup`] or a [`Position`]), `write` (the plain writers and
//! the en passant policy), `writer` ([`FenWriter`], the incremental writer for consecutive
//! positions), `epd` (EPD records).

use std::fmt;

use crate::chess::PositionError;
#[cfg(doc)]
use crate::chess::{Position, Setup};

mod epd;
mod placement;
mod read;
#[cfg(test)]
mod tests;
mod write;
mod writer;

pub use epd::{Epd, escape_epd_string, parse_epd, write_epd};
pub use read::{implied_variant, parse_fen, parse_fen_tag, parse_setup};
#[cfg(test)]
pub(crate) use write::ep_square;
pub(crate) use write::push_square;
pub use write::{write_fen, write_setup, write_shredder_fen};
pub use writer::FenWriter;

/// The FEN of the standard starting position.
pub const STARTING_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Which en passant square to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EpMode {
    /// Only when a legal en passant capture exists (python-chess's default; best for
    /// deduplicating positions).
    #[default]
    Legal,
    /// After every double step, as the PGN standard says.
    Always,
}

/// The most pieces a FEN's pockets hold, together: a game has 32 (board and pockets), and
/// with at most 64 more on the board no pocket count can pass 255 as pieces are captured.
pub const POCKETS_MAX: usize = 64;

/// The FEN field that could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseFenError {
    /// Piece placement (ranks, files, letters, `~`).
    Board,
    /// Crazyhouse pocket.
    Pocket,
    /// Crazyhouse pockets holding more pieces than a game can (see [`POCKETS_MAX`]).
    PocketSize,
    /// More than 8 ranks (a ninth that is no crazyhouse pocket).
    Ranks,
    /// Side to move.
    Turn,
    /// Castling rights.
    Castling,
    /// En passant square.
    EpSquare,
    /// Halfmove clock.
    Halfmoves,
    /// Fullmove number.
    Fullmoves,
    /// Something after the last field.
    TrailingGarbage,
    /// An EPD operation that cannot be read: an opcode not starting with a letter, or a string
    /// operand without its closing quote.
    Operation,
}

impl fmt::Display for ParseFenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParseFenError::Board => "invalid board part in FEN",
            ParseFenError::Pocket => "invalid pocket in FEN",
            ParseFenError::PocketSize => "crazyhouse pockets of more than 64 pieces in FEN (a game has 32)",
            ParseFenError::Ranks => "more than 8 ranks in FEN",
            ParseFenError::Turn => "invalid side to move in FEN",
            ParseFenError::Castling => "invalid castling part in FEN",
            ParseFenError::EpSquare => "invalid en passant square in FEN",
            ParseFenError::Halfmoves => "invalid halfmove clock in FEN",
            ParseFenError::Fullmoves => "invalid fullmove number in FEN",
            ParseFenError::TrailingGarbage => "unexpected text after FEN",
            ParseFenError::Operation => {
                "malformed EPD operation (an opcode starts with a letter; a string operand ends with `\"`)"
            }
        })
    }
}

impl std::error::Error for ParseFenError {}

/// A FEN that could not be read, or that does not describe a valid position.
#[derive(Debug)]
pub enum FenError {
    /// The text is not FEN.
    Parse(ParseFenError),
    /// The FEN describes an invalid position (see [`PositionError`] for the repair options).
    Position(PositionError),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Parse(e) => e.fmt(f),
            FenError::Position(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for FenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FenError::Parse(e) => Some(e),
            FenError::Position(e) => Some(e),
        }
    }
}

impl From<ParseFenError> for FenError {
    fn from(e: ParseFenError) -> FenError {
        FenError::Parse(e)
    }
}

impl From<PositionError> for FenError {
    fn from(e: PositionError) -> FenError {
        FenError::Position(e)
    }
}
