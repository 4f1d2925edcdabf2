//! Why a [`Setup`] is not a valid [`Position`]: every problem found, as flags, and the repaired
//! position when only the soft problems (castling rights, impossible check, en passant square)
//! are present.

use std::fmt;

use super::Position;
#[cfg(doc)]
use crate::chess::Setup;

/// One thing wrong with a [`Setup`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PositionErrorKind {
    /// No pieces at all.
    Empty,
    /// A side has no king.
    MissingKing,
    /// A side has more than one king.
    TooManyKings,
    /// Pawns on the first or last rank.
    PawnsOnBackrank,
    /// The side not to move is in check.
    OppositeCheck,
    /// A check no legal move could have produced: more than two checkers, two on one line
    /// through the king, or after a double step a check that the step neither gave nor
    /// discovered.
    ImpossibleCheck,
    /// A castling right without its rook, or with the king off its back rank.
    InvalidCastlingRights,
    /// The en passant square is not behind a pawn that just made a double step.
    InvalidEpSquare,
    /// More than 16 pieces of a side on the board (and in hand for crazyhouse).
    TooManyPieces,
    /// More than 8 pawns of a side (not in crazyhouse, where captured pawns come back).
    TooManyPawns,
    /// Crazyhouse in a build without the `variants` feature.
    VariantNotBuilt,
    /// Pieces in a pocket (`[Qq]`) of a position that is not Crazyhouse.
    PiecesInHand,
}

impl PositionErrorKind {
    const ALL: [PositionErrorKind; 12] = [
        PositionErrorKind::Empty,
        PositionErrorKind::MissingKing,
        PositionErrorKind::TooManyKings,
        PositionErrorKind::PawnsOnBackrank,
        PositionErrorKind::OppositeCheck,
        PositionErrorKind::ImpossibleCheck,
        PositionErrorKind::InvalidCastlingRights,
        PositionErrorKind::InvalidEpSquare,
        PositionErrorKind::TooManyPieces,
        PositionErrorKind::TooManyPawns,
        PositionErrorKind::VariantNotBuilt,
        PositionErrorKind::PiecesInHand,
    ];

    pub(super) const fn bit(self) -> u16 {
        1 << self as u16
    }

    /// What it means, in a few words.
    pub const fn message(self) -> &'static str {
        match self {
            PositionErrorKind::Empty => "empty board",
            PositionErrorKind::MissingKing => "missing king",
            PositionErrorKind::TooManyKings => "too many kings",
            PositionErrorKind::PawnsOnBackrank => "pawns on the first or last rank",
            PositionErrorKind::OppositeCheck => "side not to move is in check",
            PositionErrorKind::ImpossibleCheck => "impossible check",
            PositionErrorKind::InvalidCastlingRights => "castling rights without their rook or king",
            PositionErrorKind::InvalidEpSquare => "impossible en passant square",
            PositionErrorKind::TooManyPieces => "too many pieces",
            PositionErrorKind::TooManyPawns => "too many pawns",
            PositionErrorKind::VariantNotBuilt => "crazyhouse is not built in (feature `variants`)",
            PositionErrorKind::PiecesInHand => "pieces in hand in a variant other than crazyhouse",
        }
    }
}

/// Why a [`Setup`] is not a valid position: every problem found. When only the soft problems
/// (invalid castling rights, impossible check, ep square) are present, the repaired position is
/// kept and can be taken with [`PositionError::ignore_invalid_castling_rights`] and friends.
#[derive(Clone, Debug)]
pub struct PositionError {
    pub(super) kinds: u16,
    pub(super) repaired: Option<Box<Position>>,
}

impl PositionError {
    /// `true` when `kind` is among the problems.
    pub fn has(&self, kind: PositionErrorKind) -> bool {
        self.kinds & (1 << kind as u16) != 0
    }

    /// The problems, in a fixed order.
    pub fn kinds(&self) -> impl Iterator<Item = PositionErrorKind> + '_ {
        PositionErrorKind::ALL.into_iter().filter(|&k| self.has(k))
    }

    fn ignore(self, kind: PositionErrorKind) -> Result<Position, PositionError> {
        self.ignore_bits(kind.bit())
    }

    fn ignore_bits(mut self, bits: u16) -> Result<Position, PositionError> {
        self.kinds &= !bits;
        match self.repaired {
            Some(pos) if self.kinds == 0 => Ok(*pos),
            _ => Err(self),
        }
    }

    /// Accepts the position with the castling rights that have no rook (or king) dropped.
    pub fn ignore_invalid_castling_rights(self) -> Result<Position, PositionError> {
        self.ignore(PositionErrorKind::InvalidCastlingRights)
    }

    /// Accepts a position with checkers no legal move could have produced (perft suites have some).
    pub fn ignore_impossible_check(self) -> Result<Position, PositionError> {
        self.ignore(PositionErrorKind::ImpossibleCheck)
    }

    /// Accepts a position with more than 16 pieces or 8 pawns of a side.
    pub fn ignore_too_much_material(self) -> Result<Position, PositionError> {
        self.ignore_bits(PositionErrorKind::TooManyPieces.bit() | PositionErrorKind::TooManyPawns.bit())
    }

    /// Accepts the position with the impossible en passant square dropped.
    pub fn ignore_invalid_ep_square(self) -> Result<Position, PositionError> {
        self.ignore(PositionErrorKind::InvalidEpSquare)
    }

    /// Accepts the position with what can be dropped without a guess dropped: castling rights
    /// without their rook, an impossible en passant square (how a game's FEN tag is read).
    pub fn ignore_droppable(self) -> Result<Position, PositionError> {
        self.ignore_invalid_castling_rights().or_else(|e| e.ignore_invalid_ep_square())
    }
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("illegal position: ")?;
        for (i, k) in self.kinds().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(k.message())?;
        }
        Ok(())
    }
}

impl std::error::Error for PositionError {}
