//! Standard Algebraic Notation: [`San`] and [`SanPlus`], parsing (lenient), resolving to a legal
//! [`Move`] without generating every move, and writing canonical SAN with minimal disambiguation
//! and the `+`/`#` suffix.
//!
//! Lenient input, accepted and reported as [`Lenience`] flags (`0` = canonical):
//! - castling with zeros or lower-case letters: `0-0`, `0-0-0`, `o-o` ([`Lenience::CASTLING_FORM`]);
//! - an `e.p.` suffix, with or without a space before it, or written `ep`
//!   ([`Lenience::EN_PASSANT_SUFFIX`]);
//! - long algebraic: `e2e4`, `e2-e4`, `e4xd5`, `Ng1-f3`, `e7e8q`, and coordinates without the
//!   piece letter, as UCI and engine lines write moves: `g1f3`, `g1-f3`, `d1xd5`, castling as
//!   the king's move `e1g1` or onto its rook `e1h1` ([`Lenience::LONG_ALGEBRAIC`]);
//! - promotion without `=` (`e8Q`), as `e8(Q)` or `e8/Q`, or with a lower-case letter
//!   ([`Lenience::PROMOTION_FORM`]);
//! - lower-case piece letters `nf3`, `qxe7`; a lower-case `b` is a pawn file whenever that reads
//!   as a pawn move (`bxc3`, `b4`), and a bishop otherwise (`bxe5`) or when no pawn can make the
//!   move ([`Lenience::LOWER_CASE_PIECE`]);
//! - a `P` prefix for pawns: `Pe4`, `Pexd5` ([`Lenience::PAWN_PREFIX`]); a pawn drop written `@f3`
//!   ([`Lenience::PAWN_DROP_LETTER`]);
//! - check marks: `++` at parse time, missing or wrong `+`/`#` found by [`parse_san`]
//!   ([`Lenience::CHECK_MARK`]);
//! - over-specified or non-minimal disambiguation, `Ngf3` when only one knight can go
//!   ([`Lenience::OVER_SPECIFIED`], set by [`parse_san`]);
//! - `x` missing on a capture or present on a non-capture ([`Lenience::CAPTURE_MARK`], set by
//!   [`parse_san`]);
//! - null moves `--`, `Z0`, `0000`, `@@@@` ([`Lenience::NULL_MOVE`]): parsed as [`San::Null`];
//!   they are not moves, so [`parse_san`] and [`San::to_move`] answer [`SanError::Illegal`];
//! - German piece letters `S`, `L`, `T`, `D` (`Sf3`, `Dxd7`, `e8=D`; `K` is the king in both) and
//!   the figurines `♔♕♖♗♘♙` and `♚♛♜♝♞♟` of either colour, as pgn-extract reads them
//!   ([`Lenience::OTHER_PIECE_LETTERS`]). Other languages' letters clash with English ones
//!   (French and Spanish `R` is the king), so they are not read.
//!
//! Rejected: annotation glyphs (`!`, `?`; the PGN reader splits them off), pawn captures without
//! a file (`xd5`), anything longer than 16 bytes. A normal SAN never resolves to castling: a king
//! move onto its own rook (Chess960 `Kxh1`) or two squares (`Kg1` from e1) is illegal; castling
//! is written `O-O`/`O-O-O` in every mode (or in coordinates, `e1g1`, read as UCI reads it).
//!
//! Parts: `parse` reads text into a [`San`], `resolve` finds the legal move a SAN stands for in
//! a position (the hot path of every PGN job), `write` gives a legal move's canonical SAN. The
//! rules they ask (which pieces reach a square, whether a move gives check) are in
//! `chess::reach`.

use std::fmt;

#[cfg(doc)]
use crate::chess::Move;
use crate::chess::{CastlingSide, File, Rank, Role, Square};

mod game;
mod parse;
mod resolve;
mod rules;
#[cfg(test)]
mod tests;
mod write;

#[cfg(feature = "cli")]
pub(crate) use parse::english_pieces;
pub use resolve::{Resolved, parse_san, parse_san_with, suffix_after};
pub use write::write_san;

/// A move in SAN, without its check suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum San {
    /// A piece or pawn move: `Nbd2`, `exd6`, `e8=Q`.
    Normal {
        /// The moving piece's role.
        role: Role,
        /// The origin file, when given.
        file: Option<File>,
        /// The origin rank, when given.
        rank: Option<Rank>,
        /// `x` was written.
        capture: bool,
        /// The destination.
        to: Square,
        /// The promotion role, for pawns reaching the last rank.
        promotion: Option<Role>,
    },
    /// `O-O` or `O-O-O`.
    Castle(CastlingSide),
    /// A crazyhouse drop: `N@f3`, `P@e4`.
    Put {
        /// The dropped role.
        role: Role,
        /// Where it is dropped.
        to: Square,
    },
    /// A null move (`--`): passing, not a legal move.
    Null,
}

/// The check suffix of a SAN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Suffix {
    /// `+`.
    Check,
    /// `#`.
    Checkmate,
}

/// A SAN with its check suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SanPlus {
    /// The move.
    pub san: San,
    /// `+`, `#` or nothing.
    pub suffix: Option<Suffix>,
}

/// What was non-canonical in a SAN as read: a set of flags, `0` when canonical. The flags found
/// by parsing alone come from [`San::from_ascii`]; [`parse_san`] adds those that need the position.
// `u32`, not `u16`: beside the `u16` move, LLVM rebuilt the pair through a misaligned stack
// reload (a store-forwarding stall, 5-13% of the replayer in `perf annotate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct Lenience(pub u32);

impl Lenience {
    /// Canonical SAN.
    pub const CANONICAL: Lenience = Lenience(0);
    /// Castling written with zeros (`0-0`) or lower-case letters (`o-o`).
    pub const CASTLING_FORM: Lenience = Lenience(1 << 0);
    /// An `e.p.` or `ep` suffix.
    pub const EN_PASSANT_SUFFIX: Lenience = Lenience(1 << 1);
    /// Long algebraic notation: `e2e4`, `e2-e4`, `Ng1-f3`, and coordinates for pieces (`g1f3`, `e1g1`).
    pub const LONG_ALGEBRAIC: Lenience = Lenience(1 << 2);
    /// Promotion written `e8Q`, `e8(Q)`, `e8/Q` or with a lower-case letter.
    pub const PROMOTION_FORM: Lenience = Lenience(1 << 3);
    /// A lower-case piece letter: `nf3`.
    pub const LOWER_CASE_PIECE: Lenience = Lenience(1 << 4);
    /// A `P` prefix for a pawn move.
    pub const PAWN_PREFIX: Lenience = Lenience(1 << 5);
    /// Check mark missing, wrong (`+` for mate, `#` for check, `+` without check) or `++`.
    pub const CHECK_MARK: Lenience = Lenience(1 << 6);
    /// Disambiguation that is not the minimal one (`Ngf3` when only one knight can go there, or a
    /// rank where the file suffices).
    pub const OVER_SPECIFIED: Lenience = Lenience(1 << 7);
    /// `x` missing on a capture, or present on a non-capture.
    pub const CAPTURE_MARK: Lenience = Lenience(1 << 8);
    /// A null move (`--`, `Z0`, `0000`, `@@@@`).
    pub const NULL_MOVE: Lenience = Lenience(1 << 9);
    /// A pawn drop written `@f3` instead of `P@f3`.
    pub const PAWN_DROP_LETTER: Lenience = Lenience(1 << 10);
    /// German piece letters (`Sf3`, `Lb5`, `Te1`, `Dd1`, `e8=D`) or figurines (`♘f3`, `♛h4`).
    pub const OTHER_PIECE_LETTERS: Lenience = Lenience(1 << 11);

    const ALL: [(Lenience, &'static str); 12] = [
        (Lenience::CASTLING_FORM, "castling written with zeros or lower-case letters"),
        (Lenience::EN_PASSANT_SUFFIX, "en passant suffix `e.p.` or `ep`"),
        (Lenience::LONG_ALGEBRAIC, "long algebraic notation"),
        (Lenience::PROMOTION_FORM, "promotion not written as `=` and an upper-case piece letter"),
        (Lenience::LOWER_CASE_PIECE, "lower-case piece letter"),
        (Lenience::PAWN_PREFIX, "`P` prefix on a pawn move"),
        (Lenience::CHECK_MARK, "missing or wrong check mark"),
        (Lenience::OVER_SPECIFIED, "over-specified disambiguation"),
        (Lenience::CAPTURE_MARK, "capture mark `x` missing or wrong"),
        (Lenience::NULL_MOVE, "null move"),
        (Lenience::PAWN_DROP_LETTER, "pawn drop without `P`"),
        (Lenience::OTHER_PIECE_LETTERS, "German piece letters or figurines"),
    ];

    /// `true` when no flag is set.
    #[inline]
    pub const fn is_canonical(self) -> bool {
        self.0 == 0
    }

    /// `true` when every flag of `other` is set.
    #[inline]
    pub const fn contains(self, other: Lenience) -> bool {
        self.0 & other.0 == other.0
    }

    /// One short description per flag set, in a fixed order.
    pub fn describe(self) -> impl Iterator<Item = &'static str> {
        Lenience::ALL.into_iter().filter(move |&(f, _)| self.0 & f.0 != 0).map(|(_, d)| d)
    }
}

impl std::ops::BitOr for Lenience {
    type Output = Lenience;
    #[inline]
    fn bitor(self, o: Lenience) -> Lenience {
        Lenience(self.0 | o.0)
    }
}

impl std::ops::BitOrAssign for Lenience {
    #[inline]
    fn bitor_assign(&mut self, o: Lenience) {
        self.0 |= o.0;
    }
}

/// Text that is not SAN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseSanError {
    /// Not SAN in any accepted form.
    Syntax,
}

impl fmt::Display for ParseSanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid SAN")
    }
}

impl std::error::Error for ParseSanError {}

/// Why a SAN does not give a move in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SanError {
    /// Not SAN in any accepted form.
    Syntax,
    /// No legal move matches (null moves included).
    Illegal,
    /// More than one legal move matches (`Nd2` where `Nbd2` is needed).
    Ambiguous,
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SanError::Syntax => "invalid SAN",
            SanError::Illegal => "illegal SAN",
            SanError::Ambiguous => "ambiguous SAN",
        })
    }
}

impl std::error::Error for SanError {}

impl From<ParseSanError> for SanError {
    fn from(_: ParseSanError) -> SanError {
        SanError::Syntax
    }
}
