//! What SAN shows of a legal move in a position, shared by reading and writing: whether it
//! captures, its check or mate suffix, and which origin coordinates disambiguate it.

use crate::chess::reach::gives_check;
use crate::chess::{Bitboard, Move, Position, Square};

use super::Suffix;

#[inline(always)]
pub(super) fn is_capture(pos: &Position, m: Move) -> bool {
    m.is_en_passant() || (!m.is_castle() && pos.board().by_color(!pos.turn()).contains(m.to()))
}

/// The suffix the legal move `m` deserves.
#[inline(always)]
pub(super) fn suffix_of(pos: &Position, m: Move) -> Option<Suffix> {
    if !gives_check(pos, m) {
        return None;
    }
    Some(check_or_mate(pos, m))
}

/// Check or mate, for a move known to give check (out of line: most moves do not).
#[inline(never)]
fn check_or_mate(pos: &Position, m: Move) -> Suffix {
    let mut after = *pos;
    after.play_unchecked(m);
    check_or_mate_after(&after)
}

/// Check or mate, for a position whose side to move is in check.
pub(super) fn check_or_mate_after(after: &Position) -> Suffix {
    // Most checks leave the king a flight square: `has_legal_moves` then generates nothing.
    if after.has_legal_moves() { Suffix::Check } else { Suffix::Checkmate }
}

/// Which origin coordinates SAN must show for a piece on `from` given the other origins `others`
/// that reach the same square: (file, rank).
#[inline]
pub(super) fn needed_disambiguation(from: Square, others: Bitboard) -> (bool, bool) {
    if others.is_empty() {
        (false, false)
    } else if (others & Bitboard::file(from.file())).is_empty() {
        (true, false)
    } else if (others & Bitboard::rank(from.rank())).is_empty() {
        (false, true)
    } else {
        (true, true)
    }
}
