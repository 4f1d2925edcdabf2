//! Which pieces of a role can legally reach a square, and does a move give check: answered from
//! attack sets, backwards from the square, without generating moves (the SAN resolver asks both
//! for every move it reads). Each answer is the move generator's: the SAN tests compare them
//! over the perft suites.

use super::attacks::{
    attacks, bishop_attacks, bishop_rays, king_attacks, knight_attacks, line, pawn_attacks, queen_attacks,
    rook_attacks, rook_rays,
};
use super::position::castling_targets;
use super::{Bitboard, Board, CastlingSide, Move, MoveKind, Position, Rank, Role, Square};

/// Their rooks, bishops and queens on a line from `king` that they move along, whatever stands
/// between: out of check, a move by any piece but the king can only uncover one of these, on the
/// line from the king through the piece's origin.
#[inline(always)]
pub(crate) fn snipers(b: &Board, king: Square, theirs: Bitboard) -> Bitboard {
    (rook_rays(king) & b.rooks_and_queens() | bishop_rays(king) & b.bishops_and_queens()) & theirs
}

/// The legal origins of `role` moves to `to` (ordinary moves: no castling, no drops), found
/// backwards from `to` instead of generating moves: the pieces of `role` that reach `to`, each
/// tested by lifting it onto `to` and looking for attackers of the king. Also says whether a pawn
/// capture onto `to` would be en passant. Same answer as `legal_moves_to` filtered to ordinary
/// moves (a test compares them over perft trees). `checkers` are the position's checkers.
#[inline(always)]
pub(crate) fn legal_origins(pos: &Position, checkers: Bitboard, role: Role, to: Square) -> (Bitboard, bool) {
    let us = pos.turn();
    let them = !us;
    let b = pos.board();
    let occ = b.occupied();
    if b.by_color(us).contains(to) {
        return (Bitboard::EMPTY, false);
    }
    let pieces = b.by_piece(role.of(us));
    let theirs = b.by_color(them);
    let mut en_passant = false;
    let candidates = match role {
        Role::Pawn => {
            let mut c = Bitboard::EMPTY;
            if theirs.contains(to) {
                c = pawn_attacks(them, to) & pieces;
            } else {
                if pos.ep_square == Some(to) {
                    c = pawn_attacks(them, to) & pieces;
                    en_passant = c.any();
                }
                // Pushes: one step, or two from the second rank over an empty square.
                let back = if us.is_white() { -8 } else { 8 };
                if let Some(one) = to.offset(back) {
                    if pieces.contains(one) {
                        c.add(one);
                    } else if !occ.contains(one)
                        && to.rank() == Rank::Fourth.relative(us)
                        && let Some(two) = one.offset(back)
                        && pieces.contains(two)
                    {
                        c.add(two);
                    }
                }
            }
            c
        }
        Role::Knight => knight_attacks(to) & pieces,
        Role::Bishop => bishop_attacks(to, occ) & pieces,
        Role::Rook => rook_attacks(to, occ) & pieces,
        Role::Queen => queen_attacks(to, occ) & pieces,
        Role::King => {
            let c = king_attacks(to) & pieces;
            return match c.first() {
                Some(k) if b.attackers_to(to, them, occ.without(k)).is_empty() => (c, false),
                _ => (Bitboard::EMPTY, false),
            };
        }
    };
    if candidates.is_empty() {
        return (candidates, false);
    }
    let king = pos.our_king();
    let snipers = snipers(b, king, theirs);
    let mut legal = Bitboard::EMPTY;
    for from in candidates {
        let ok = if en_passant && from.file() != to.file() {
            pos.ep_capture_legal(from, to)
        } else if checkers.is_empty() && (line(king, from) & snipers).is_empty() {
            true
        } else {
            // Lifted onto `to`: no attacker left but the piece captured there.
            (b.attackers_to(king, them, occ.without(from).with(to)) - Bitboard::from_square(to)).is_empty()
        };
        if ok {
            legal.add(from);
        }
    }
    (legal, en_passant)
}

/// `true` when the legal move `m` gives check, from attack sets alone (no move played).
#[inline]
pub(crate) fn gives_check(pos: &Position, m: Move) -> bool {
    let us = pos.turn();
    let b = pos.board();
    let Some(king) = b.king_of(!us) else {
        return false;
    };
    let ours = b.by_color(us);
    let mut occ = b.occupied();
    let mut rq = b.rooks_and_queens() & ours;
    let mut bq = b.bishops_and_queens() & ours;
    let to = m.to();
    match m.kind() {
        MoveKind::Drop(role) => return attacks(role, us, to, occ.with(to)).contains(king),
        MoveKind::Castle => {
            let from = m.from_raw();
            let side = if to > from { CastlingSide::KingSide } else { CastlingSide::QueenSide };
            let (king_to, rook_to) = castling_targets(us, side);
            occ = (occ - Bitboard::from_square(from) - Bitboard::from_square(to)) | king_to | rook_to;
            rq = (rq - Bitboard::from_square(to)) | rook_to;
        }
        kind => {
            let from = m.from_raw();
            let placed = match kind {
                MoveKind::Promotion(r) => r,
                MoveKind::EnPassant => Role::Pawn,
                _ => b.role_at(from).unwrap_or(Role::Pawn),
            };
            occ = occ.without(from).with(to);
            if kind == MoveKind::EnPassant {
                occ = occ.without(Square::new(to as u32 ^ 8));
            }
            if attacks(placed, us, to, occ).contains(king) {
                return true;
            }
            rq = rq.without(from);
            bq = bq.without(from);
        }
    }
    (rook_attacks(king, occ) & rq).any() || (bishop_attacks(king, occ) & bq).any()
}
