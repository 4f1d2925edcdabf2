//! Material signatures (`--material KRPkr`): exactly which pieces stand on the board.
//!
//! A signature lists White's pieces in upper case and Black's in lower case (`K Q R B N P`,
//! `k q r b n p`), in any order, a piece repeated as often as it stands (`KPPk`: White has a
//! king and two pawns, Black a bare king). The kings may be omitted, since every position has
//! one of each: `RPr` is `KRPkr`. Colours are fixed: `KRPkr` means White has the pawn; a game
//! where Black has it is not matched (there is no "either colour" form).
//!
//! Only the board counts: in crazyhouse the pieces in the pockets do not (a promoted piece
//! counts as the piece it is on the board).
//!
//! Invariant: a [`MaterialSig`] holds one king of each colour and at most 32 pieces, and its
//! `total` is the sum of its counts.
//!
//! ```
//! use pgnkit::chess::Variant;
//! use pgnkit::notation::parse_fen;
//! use pgnkit::select::material::MaterialSig;
//!
//! let sig = MaterialSig::parse("RPr").unwrap();
//! assert_eq!(sig.to_string(), "KRPkr");
//! assert!(sig.matches(&parse_fen("8/8/4k3/8/2R1P3/8/r7/4K3 w - - 0 1", Variant::Standard)?));
//! assert!(!sig.matches(&parse_fen("8/8/4k3/4p3/2R5/8/r7/4K3 w - - 0 1", Variant::Standard)?));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::str::FromStr;

use crate::chess::{Color, Piece, Position, Role};

/// How many pieces of each kind a position must have on its board, no more, no fewer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MaterialSig {
    /// By colour, then by role.
    counts: [[u8; 6]; 2],
    /// All pieces, kings included.
    total: u32,
}

/// What is wrong with a material signature.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MaterialSigError {
    /// Nothing written.
    #[error("empty material signature (bare kings are written Kk)")]
    Empty,
    /// A character that is not a piece letter.
    #[error(
        "{found:?} at column {column} is not a piece letter (K Q R B N P for White, k q r b n p for Black)"
    )]
    BadLetter {
        /// Where it is (1-based, in characters).
        column: usize,
        /// The character.
        found: char,
    },
    /// A colour's king written more than once.
    #[error("more than one {} king", .color.name())]
    TwoKings {
        /// Whose.
        color: Color,
    },
    /// More pieces than the 32 of a chess set (which no position, crazyhouse included, exceeds).
    #[error("{count} pieces: more than the 32 of a chess set")]
    TooManyPieces {
        /// How many the signature holds, kings included.
        count: usize,
    },
}

impl MaterialSig {
    /// Parses a signature such as `KRPkr`, `RPr` or `KPPk`.
    pub fn parse(text: &str) -> Result<MaterialSig, MaterialSigError> {
        if text.is_empty() {
            return Err(MaterialSigError::Empty);
        }
        let mut counts = [[0u8; 6]; 2];
        for (column, c) in text.chars().enumerate() {
            let Some(piece) = Piece::from_char(c) else {
                return Err(MaterialSigError::BadLetter { column: column + 1, found: c });
            };
            let n = &mut counts[piece.color.index()][piece.role.index()];
            if piece.role == Role::King && *n == 1 {
                return Err(MaterialSigError::TwoKings { color: piece.color });
            }
            // Saturates far above the limit checked below.
            *n = n.saturating_add(1);
        }
        for side in &mut counts {
            side[Role::King.index()] = 1;
        }
        let total = counts.iter().flatten().map(|&n| usize::from(n)).sum::<usize>();
        if total > 32 {
            return Err(MaterialSigError::TooManyPieces { count: total });
        }
        Ok(MaterialSig { counts, total: total as u32 })
    }

    /// How many of `piece` the signature holds.
    pub fn count(&self, piece: Piece) -> u32 {
        u32::from(self.counts[piece.color.index()][piece.role.index()])
    }

    /// Whether `pos` has exactly these pieces on its board (pockets not counted).
    #[inline]
    pub fn matches(&self, pos: &Position) -> bool {
        let board = pos.board();
        // One popcount rejects nearly every position of a game before the per-piece counts.
        board.occupied().count() == self.total
            && Color::ALL.into_iter().all(|color| {
                Role::ALL
                    .into_iter()
                    .all(|role| board.by_piece(role.of(color)).count() == self.count(role.of(color)))
            })
    }
}

impl FromStr for MaterialSig {
    type Err = MaterialSigError;

    fn from_str(text: &str) -> Result<MaterialSig, MaterialSigError> {
        MaterialSig::parse(text)
    }
}

/// The normalized form: White's pieces then Black's, each `K Q R B N P` in that order, kings
/// written (`RPr` shows as `KRPkr`).
impl fmt::Display for MaterialSig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const ORDER: [Role; 6] =
            [Role::King, Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn];
        for color in Color::ALL {
            for role in ORDER {
                let piece = role.of(color);
                for _ in 0..self.count(piece) {
                    write!(f, "{}", piece.char())?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
