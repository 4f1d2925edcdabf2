//! How a game ends on the board alone: checkmate, stalemate, insufficient material, the
//! 75-move rule, and the fifty-move claim.

use super::Position;
use crate::chess::bitboard::Bitboard;
use crate::chess::outcome::{Outcome, Termination};
use crate::chess::types::{Color, Role};

impl Position {
    /// `true` when the side to move is checkmated.
    pub fn is_checkmate(&self) -> bool {
        self.is_check() && !self.has_legal_moves()
    }

    /// `true` when the side to move has no legal move and is not in check.
    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && !self.has_legal_moves()
    }

    /// `true` when `color` cannot possibly checkmate, by python-chess's rules. In crazyhouse that
    /// holds for both sides at once: besides the kings, at most one knight or bishop, on the
    /// board or in hand, and not a promoted one.
    pub fn has_insufficient_material(&self, color: Color) -> bool {
        let b = &self.board;
        let ours = b.by_color(color);
        if self.crazyhouse() {
            // A lone minor changes hands as itself, so it never mates; a promoted one is taken
            // back as a pawn, which can.
            let heavy_in_hand = Color::ALL.iter().any(|&c| {
                [Role::Pawn, Role::Rook, Role::Queen].iter().any(|&r| self.pockets[c].count(r) > 0)
            });
            return b.occupied().count() + self.pockets.white.total() + self.pockets.black.total() <= 3
                && (b.pawns() | b.rooks_and_queens() | self.promoted()).is_empty()
                && !heavy_in_hand;
        }
        if (ours & (b.pawns() | b.rooks_and_queens())).any() {
            return false;
        }
        if (ours & b.knights()).any() {
            return ours.count() <= 2 && (b.by_color(!color) & !b.kings() & !b.queens()).is_empty();
        }
        if (ours & b.bishops()).any() {
            let same_color =
                (b.bishops() & Bitboard::DARK).is_empty() || (b.bishops() & Bitboard::LIGHT).is_empty();
            return same_color && b.pawns().is_empty() && b.knights().is_empty();
        }
        true
    }

    /// `true` when neither side can checkmate.
    pub fn is_insufficient_material(&self) -> bool {
        self.has_insufficient_material(Color::White) && self.has_insufficient_material(Color::Black)
    }

    /// The end of the game when the side to move has no legal move: checkmate or stalemate,
    /// whatever material is left (what a result is checked against).
    pub fn mate_or_stalemate(&self) -> Option<Outcome> {
        (!self.has_legal_moves()).then(|| match self.is_check() {
            true => Outcome { winner: Some(!self.turn), termination: Termination::Checkmate },
            false => Outcome { winner: None, termination: Termination::Stalemate },
        })
    }

    /// The game is over on the board alone: checkmate, insufficient material, stalemate or the
    /// 75-move rule (not in crazyhouse, as in python-chess), in python-chess's order (a stalemate
    /// with insufficient material is the latter). Repetition needs the game's history: see
    /// [`crate::chess::outcome`].
    pub fn outcome(&self) -> Option<Outcome> {
        let stuck = self.mate_or_stalemate();
        if let Some(mate) = stuck.filter(|o| o.termination == Termination::Checkmate) {
            return Some(mate);
        }
        if self.is_insufficient_material() {
            return Some(Outcome { winner: None, termination: Termination::InsufficientMaterial });
        }
        if stuck.is_some() {
            return stuck;
        }
        if self.halfmoves >= 150 && !self.crazyhouse() {
            return Some(Outcome { winner: None, termination: Termination::SeventyFiveMoves });
        }
        None
    }

    /// `true` when the side to move can claim a draw by the fifty-move rule, as python-chess's
    /// `can_claim_fifty_moves` says: the halfmove clock is at least 100 and the game is not over
    /// by checkmate or stalemate, or the clock is 99 and a legal move that neither captures nor
    /// moves a pawn leaves the opponent a legal move (the claim is made with that move). Never
    /// in crazyhouse, which has no fifty-move rule in python-chess.
    pub fn can_claim_fifty_moves(&self) -> bool {
        if self.crazyhouse() {
            return false;
        }
        let fifty = |pos: &Position| pos.halfmoves >= 100 && pos.has_legal_moves();
        fifty(self)
            || self.halfmoves >= 99
                && self.legal_moves().iter().any(|&m| {
                    let mut after = *self;
                    after.set_hashing(false);
                    after.play_unchecked(m);
                    // A capture or a pawn move sets the clock back to 0.
                    fifty(&after)
                })
    }
}
