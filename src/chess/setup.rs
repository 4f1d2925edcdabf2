//! `Setup`: an unvalidated position as read from FEN (anything goes), the crazyhouse `Pocket`, and
//! `CastlingMode`. `Position::from_setup` validates it.

use super::bitboard::Bitboard;
use super::board::Board;
use super::square::Square;
use super::types::{ByColor, Color, Role};

/// How castling rights are read and written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CastlingMode {
    /// King on the e-file, rooks in the corners; `O-O` is written `e1g1` in UCI.
    #[default]
    Standard,
    /// Any king/rook files; castling is king-takes-rook in UCI.
    Chess960,
}

impl CastlingMode {
    /// Chess960 mode for `true`.
    pub const fn from_chess960(chess960: bool) -> CastlingMode {
        if chess960 { CastlingMode::Chess960 } else { CastlingMode::Standard }
    }

    /// `true` for Chess960.
    pub const fn is_chess960(self) -> bool {
        matches!(self, CastlingMode::Chess960)
    }
}

/// The pieces one side holds in hand in crazyhouse (pawn, knight, bishop, rook, queen counts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Pocket {
    counts: [u8; 5],
}

impl Pocket {
    /// How many of `role` (0 for the king).
    #[inline(always)]
    pub const fn count(&self, role: Role) -> u8 {
        if (role as usize) < 5 { self.counts[role as usize] } else { 0 }
    }

    /// Adds one `role` (kings are ignored). Saturates rather than wrap on absurd input.
    #[inline]
    pub fn add(&mut self, role: Role) {
        if let Some(c) = self.counts.get_mut(role as usize) {
            *c = c.saturating_add(1);
        }
    }

    /// Takes one `role`; `false` if there was none.
    #[inline]
    pub fn take(&mut self, role: Role) -> bool {
        match self.counts.get_mut(role as usize) {
            Some(c) if *c > 0 => {
                *c -= 1;
                true
            }
            _ => false,
        }
    }

    /// `true` when empty.
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        u64::from_le_bytes([
            self.counts[0],
            self.counts[1],
            self.counts[2],
            self.counts[3],
            self.counts[4],
            0,
            0,
            0,
        ]) == 0
    }

    /// Total number of pieces held.
    pub fn total(&self) -> u32 {
        self.counts.iter().map(|&c| c as u32).sum()
    }
}

/// A position as read, not yet validated: placement, side to move, castling rights, en passant
/// square, clocks and (crazyhouse) pockets and promoted-piece marks.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Setup {
    /// Piece placement.
    pub board: Board,
    /// Squares whose pieces were promoted from pawns (crazyhouse `~`).
    pub promoted: Bitboard,
    /// Pockets, present for crazyhouse positions.
    pub pockets: Option<ByColor<Pocket>>,
    /// Side to move.
    pub turn: Color,
    /// Rooks (by square) that still have castling rights.
    pub castling_rights: Bitboard,
    /// En passant target square, as given.
    pub ep_square: Option<Square>,
    /// Plies since the last capture or pawn move.
    pub halfmoves: u32,
    /// Move number, starting at 1.
    pub fullmoves: u32,
}

impl Default for Setup {
    fn default() -> Setup {
        Setup::standard()
    }
}

impl Setup {
    /// The standard starting position.
    pub const fn standard() -> Setup {
        Setup {
            board: Board::standard(),
            promoted: Bitboard::EMPTY,
            pockets: None,
            turn: Color::White,
            castling_rights: Bitboard::CORNERS,
            ep_square: None,
            halfmoves: 0,
            fullmoves: 1,
        }
    }

    /// An empty board, White to move, no rights.
    pub const fn empty() -> Setup {
        Setup {
            board: Board::empty(),
            promoted: Bitboard::EMPTY,
            pockets: None,
            turn: Color::White,
            castling_rights: Bitboard::EMPTY,
            ep_square: None,
            halfmoves: 0,
            fullmoves: 1,
        }
    }

    /// Chess960 start position number `n` (0..960) with all four castling rights.
    pub fn chess960(n: u32) -> Option<Setup> {
        let board = Board::chess960(n)?;
        let castling_rights = board.rooks() & Bitboard::BACKRANKS;
        Some(Setup { board, castling_rights, ..Setup::standard() })
    }
}
