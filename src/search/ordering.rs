//! Move ordering: the hash move first, then winning and equal captures by MVV-LVA (most valuable
//! victim, least valuable attacker), queen promotions, the two killer moves of the ply, quiet moves
//! by history, and finally captures that lose material by static exchange evaluation (SEE).
//! Scores live in a fixed-size array next to the move list; moves are picked lazily (selection),
//! so a cutoff on the first move costs one pass.

use crate::chess::{Bitboard, Color, Move, MoveKind, MoveList, Position, Role, Square};

use super::eval::SEE_VALUE;

const TT_MOVE: i32 = 20_000_000;
const GOOD_CAPTURE: i32 = 10_000_000;
const PROMOTION: i32 = 9_000_000;
const KILLER: [i32; 2] = [8_000_000, 7_900_000];
const BAD_CAPTURE: i32 = -10_000_000;
/// History values stay within +-HISTORY_MAX.
pub const HISTORY_MAX: i32 = 16_384;

/// Quiet-move history per side, indexed by moving (or dropped) role and destination.
#[derive(Clone, Debug)]
pub struct History([[[i32; 64]; 6]; 2]);

impl Default for History {
    fn default() -> History {
        History([[[0; 64]; 6]; 2])
    }
}

impl History {
    /// Forgets everything.
    pub fn clear(&mut self) {
        *self = History::default();
    }

    /// Halves every value (between searches, so old lessons fade).
    pub fn age(&mut self) {
        for v in self.0.iter_mut().flatten().flatten() {
            *v /= 2;
        }
    }

    #[inline(always)]
    fn slot(&mut self, color: Color, role: Role, to: Square) -> &mut i32 {
        &mut self.0[color.index()][role.index()][to.index()]
    }

    /// The value of a quiet move.
    #[inline(always)]
    pub fn get(&self, color: Color, role: Role, to: Square) -> i32 {
        self.0[color.index()][role.index()][to.index()]
    }

    /// Rewards (positive `bonus`) or punishes a quiet move, saturating smoothly at the bounds.
    #[inline]
    pub fn update(&mut self, color: Color, role: Role, to: Square, bonus: i32) {
        let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
        let v = self.slot(color, role, to);
        *v += bonus - *v * bonus.abs() / HISTORY_MAX;
    }
}

/// The role that moves (or is dropped).
#[inline(always)]
pub fn moving_role(pos: &Position, m: Move) -> Role {
    match m.kind() {
        MoveKind::Drop(r) => r,
        MoveKind::Castle => Role::King,
        _ => pos.board().role_at(m.from_raw()).unwrap_or(Role::Pawn),
    }
}

/// The role captured by `m`, if any (castling captures nothing).
#[inline(always)]
pub fn captured_role(pos: &Position, m: Move) -> Option<Role> {
    match m.kind() {
        MoveKind::EnPassant => Some(Role::Pawn),
        MoveKind::Normal | MoveKind::Promotion(_) => {
            if pos.board().by_color(!pos.turn()).contains(m.to()) {
                pos.board().role_at(m.to())
            } else {
                None
            }
        }
        _ => None,
    }
}

/// `true` for captures and promotions (the moves quiescence searches).
#[inline(always)]
pub fn is_tactical(pos: &Position, m: Move) -> bool {
    m.is_promotion()
        || m.is_en_passant()
        || (!m.is_castle() && !m.is_drop() && pos.board().by_color(!pos.turn()).contains(m.to()))
}

/// Static exchange evaluation: the material the side to move gains by `m` followed by the best
/// sequence of recaptures on its destination (pins ignored). Quiet moves and drops risk the piece.
pub fn see(pos: &Position, m: Move) -> i32 {
    if m.is_castle() {
        return 0;
    }
    let b = pos.board();
    let to = m.to();
    let mut occ = b.occupied();
    let mut gain = [0i32; 34];
    let us = pos.turn();
    let (mut piece_value, mut first) = match m.kind() {
        MoveKind::Drop(r) => (SEE_VALUE[r.index()], 0),
        MoveKind::EnPassant => {
            occ ^= Bitboard::from_square(m.from_raw()) | Bitboard::from_square(Square::new(to as u32 ^ 8));
            (SEE_VALUE[0], SEE_VALUE[0])
        }
        _ => {
            let from = m.from_raw();
            occ ^= Bitboard::from_square(from);
            let victim = captured_role(pos, m).map_or(0, |r| SEE_VALUE[r.index()]);
            let mover = b.role_at(from).unwrap_or(Role::Pawn);
            match m.promotion_role() {
                Some(p) => (SEE_VALUE[p.index()], victim + SEE_VALUE[p.index()] - SEE_VALUE[0]),
                None => (SEE_VALUE[mover.index()], victim),
            }
        }
    };
    occ.add(to);
    gain[0] = first;
    let mut side = !us;
    let mut d = 0;
    loop {
        let attackers = (b.attackers_to(to, side, occ)) & occ;
        let Some((sq, role)) = least_valuable(b, attackers) else { break };
        d += 1;
        if d >= gain.len() {
            break;
        }
        first = piece_value - gain[d - 1];
        gain[d] = first;
        if role == Role::King && (b.attackers_to(to, !side, occ.without(sq)) & occ.without(sq)).any() {
            // The king may not capture into a defended square.
            d -= 1;
            break;
        }
        if gain[d].max(-gain[d - 1]) < 0 {
            break;
        }
        occ.discard(sq);
        piece_value = SEE_VALUE[role.index()];
        side = !side;
    }
    while d > 0 {
        gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
        d -= 1;
    }
    gain[0]
}

#[inline]
fn least_valuable(b: &crate::chess::Board, attackers: Bitboard) -> Option<(Square, Role)> {
    if attackers.is_empty() {
        return None;
    }
    Role::ALL.into_iter().find_map(|r| (attackers & b.by_role(r)).first().map(|sq| (sq, r)))
}

/// Scores every move of `moves` into `scores` (same indices) for the picker.
pub fn score_moves(
    pos: &Position,
    moves: &MoveList,
    scores: &mut arrayvec::ArrayVec<i32, { crate::chess::MAX_MOVES }>,
    tt_move: Option<Move>,
    killers: &[Move; 2],
    history: &History,
) {
    scores.clear();
    let us = pos.turn();
    for &m in moves {
        let s = if Some(m) == tt_move {
            TT_MOVE
        } else if let Some(victim) = captured_role(pos, m) {
            let attacker = moving_role(pos, m);
            let mvv_lva = SEE_VALUE[victim.index()] * 8 - attacker.index() as i32;
            if SEE_VALUE[victim.index()] >= SEE_VALUE[attacker.index()] || see(pos, m) >= 0 {
                GOOD_CAPTURE + mvv_lva
            } else {
                BAD_CAPTURE + mvv_lva
            }
        } else if let Some(p) = m.promotion_role() {
            if p == Role::Queen { PROMOTION } else { BAD_CAPTURE - 1000 + p.index() as i32 }
        } else if m == killers[0] {
            KILLER[0]
        } else if m == killers[1] {
            KILLER[1]
        } else {
            history.get(us, moving_role(pos, m), m.to())
        };
        scores.push(s);
    }
}

/// Scores captures and promotions for quiescence: MVV-LVA only.
pub fn score_tactical(
    pos: &Position,
    moves: &MoveList,
    scores: &mut arrayvec::ArrayVec<i32, { crate::chess::MAX_MOVES }>,
) {
    scores.clear();
    for &m in moves {
        let victim = captured_role(pos, m).map_or(0, |r| SEE_VALUE[r.index()]);
        let promo = m.promotion_role().map_or(0, |r| SEE_VALUE[r.index()]);
        scores.push(victim * 8 + promo - moving_role(pos, m).index() as i32);
    }
}

/// Swaps the best-scored remaining move into position `i` and returns it with its score.
#[inline]
pub fn pick(
    moves: &mut MoveList,
    scores: &mut arrayvec::ArrayVec<i32, { crate::chess::MAX_MOVES }>,
    i: usize,
) -> (Move, i32) {
    let mut best = i;
    for j in i + 1..moves.len() {
        if scores[j] > scores[best] {
            best = j;
        }
    }
    moves.swap(i, best);
    scores.swap(i, best);
    (moves[i], scores[i])
}

/// `true` when the move's score says it is a capture that loses material.
#[inline(always)]
pub fn is_bad_capture_score(score: i32) -> bool {
    score < BAD_CAPTURE / 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::test_position as position;

    #[test]
    fn static_exchange() {
        // Pawn takes a knight defended by a pawn: a knight for a pawn.
        let pos = position("4k3/8/3p4/4n3/3P4/8/8/4K3 w - - 0 1");
        assert_eq!(see(&pos, Move::normal(Square::D4, Square::E5)), 220);
        // Queen takes a pawn defended by a pawn: loses the queen for a pawn.
        let pos = position("4k3/8/3p4/4p3/8/8/7Q/4K3 w - - 0 1");
        assert_eq!(see(&pos, Move::normal(Square::H2, Square::E5)), -850);
        assert_eq!(see(&pos, Move::normal(Square::H2, Square::H7)), 0);
        // Rook takes a rook defended by a rook, with our second rook behind: wins a rook.
        let pos = position("3r3k/3r4/8/8/8/8/3R4/3RK3 w - - 0 1");
        assert_eq!(see(&pos, Move::normal(Square::D2, Square::D7)), 500);
    }

    #[test]
    fn history_saturates() {
        let mut h = History::default();
        for _ in 0..1000 {
            h.update(Color::White, Role::Knight, Square::F3, 400);
        }
        assert!(h.get(Color::White, Role::Knight, Square::F3) <= HISTORY_MAX);
        assert!(h.get(Color::White, Role::Knight, Square::F3) > HISTORY_MAX / 2);
    }
}
