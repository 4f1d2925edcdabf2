//! The tree search: aspiration windows at the root, principal variation search (NegaScout) with
//! check extension, transposition cutoffs, reverse futility and null-move pruning, late-move
//! reductions and futility pruning of quiet moves, then quiescence over captures and promotions
//! (all evasions when in check). Draws by repetition (game history plus the current line),
//! the fifty-move rule and insufficient material are scored inside the tree.
//!
//! Scores are from the side to move's point of view; a mate found at ply `p` scores `MATE - p`.

use arrayvec::ArrayVec;

use crate::chess::outcome::repetition_window;
use crate::chess::{MAX_MOVES, Move, MoveList, Position, Role, Variant};

use super::eval::evaluate;
use super::ordering::{self, captured_role, is_tactical, moving_role, pick, score_moves, score_tactical};
use super::tt::Bound;
use super::{INF, MATE, MATE_BOUND, MAX_PLY, NO_MOVE, Searcher};

type Scores = ArrayVec<i32, MAX_MOVES>;

impl Searcher {
    /// One iteration at `depth` with an aspiration window around the previous score.
    pub(super) fn aspiration(&mut self, pos: &Position, depth: i32, previous: i32) -> i32 {
        let mut delta = 25;
        let (mut alpha, mut beta) = if depth >= 4 && previous.abs() < MATE_BOUND {
            (previous - delta, previous + delta)
        } else {
            (-INF, INF)
        };
        loop {
            let score = self.negamax(pos, depth, alpha, beta, 0, true);
            if self.aborted {
                return score;
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INF);
            } else if score >= beta {
                beta = (score + delta).min(INF);
            } else {
                return score;
            }
            delta += delta;
            if delta > 1000 {
                alpha = -INF;
                beta = INF;
            }
        }
    }

    /// `true` when the position at `ply` repeats an earlier one within the reversible window (the
    /// whole line in crazyhouse, where a captured piece comes back from the pocket).
    #[inline]
    fn is_repetition(&self, pos: &Position, ply: usize) -> bool {
        let idx = self.root_index + ply;
        let key = self.keys[idx];
        let window = repetition_window(pos).min(idx);
        let mut back = 4;
        while back <= window {
            if self.keys[idx - back] == key {
                return true;
            }
            back += 2;
        }
        false
    }

    /// Draws the rules declare on the board inside the tree (not at the root).
    #[inline]
    fn is_rule_draw(&self, pos: &Position, ply: usize) -> bool {
        if self.is_repetition(pos, ply) {
            return true;
        }
        if pos.halfmoves() >= 100 && !pos.crazyhouse() && (!pos.is_check() || pos.has_legal_moves()) {
            return true;
        }
        pos.board().occupied().count() <= 4 && pos.is_insufficient_material()
    }

    fn negamax(
        &mut self,
        pos: &Position,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        null_ok: bool,
    ) -> i32 {
        let pv_node = beta - alpha > 1;
        self.pv_len[ply] = 0;
        if ply > 0 {
            if self.should_stop() {
                return 0;
            }
            if self.is_rule_draw(pos, ply) {
                return 0;
            }
            // Mate distance pruning: no line from here beats a mate already found nearer the root.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        let in_check = pos.is_check();
        if in_check {
            depth += 1;
        }
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.quiescence(pos, alpha, beta, ply);
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);

        let key = pos.zobrist();
        let hit = self.tt.probe(key, ply);
        let tt_move = hit.and_then(|h| h.mv);
        if let Some(h) = hit
            && !pv_node
            && ply > 0
            && h.depth >= depth
        {
            let cut = match h.bound {
                Bound::Exact => true,
                Bound::Lower => h.score >= beta,
                Bound::Upper => h.score <= alpha,
            };
            if cut {
                return h.score;
            }
        }
        let static_eval = if in_check {
            -INF
        } else {
            match hit {
                Some(h) if h.eval.abs() < MATE_BOUND => h.eval,
                _ => evaluate(pos),
            }
        };

        if !pv_node && !in_check && ply > 0 && beta.abs() < MATE_BOUND {
            // Reverse futility: far above beta at low depth, a quiet move will not bring it back.
            if depth <= 6 && static_eval - 90 * depth >= beta {
                return static_eval;
            }
            // Null move: passing and still failing high means a real move will too. Not with only
            // pawns (zugzwang), and with a smaller reduction in crazyhouse, where tempo is everything.
            if null_ok && depth >= 3 && static_eval >= beta && has_pieces(pos) {
                let r = if pos.variant() == Variant::Crazyhouse { 2 } else { 3 } + depth / 6;
                let mut child = *pos;
                if child.play_null().is_ok() {
                    self.keys[self.root_index + ply + 1] = child.zobrist();
                    let score = -self.negamax(&child, depth - 1 - r, -beta, -beta + 1, ply + 1, false);
                    if self.aborted {
                        return 0;
                    }
                    if score >= beta {
                        return if score >= MATE_BOUND { beta } else { score };
                    }
                }
            }
        }

        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        if moves.is_empty() {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        if ply == 0 && !self.only.is_empty() {
            moves.retain(|m| self.only.contains(m));
        }
        let mut scores = Scores::new();
        let killers = self.killers[ply];
        score_moves(pos, &moves, &mut scores, tt_move, &killers, &self.history);

        let original_alpha = alpha;
        let mut best_score = -INF;
        let mut best_move = None;
        let mut quiets_tried: ArrayVec<Move, 64> = ArrayVec::new();
        let futility_base = static_eval + 100 + 110 * depth;
        for i in 0..moves.len() {
            let (m, move_score) = pick(&mut moves, &mut scores, i);
            let tactical = is_tactical(pos, m);
            let mut child = *pos;
            child.play_unchecked(m);
            let gives_check = child.is_check();
            let quiet = !tactical && !gives_check;

            if ply > 0 && !pv_node && !in_check && quiet && best_score > -MATE_BOUND && i > 0 {
                // Futility: a quiet move cannot lift a hopeless eval to alpha at the last plies.
                if depth <= 3 && futility_base <= alpha {
                    continue;
                }
                // Late move pruning.
                if depth <= 4 && i as i32 >= 4 + 3 * depth * depth {
                    continue;
                }
            }
            if ply > 0
                && i > 0
                && !pv_node
                && !in_check
                && !gives_check
                && depth <= 4
                && ordering::is_bad_capture_score(move_score)
                && best_score > -MATE_BOUND
            {
                // Losing captures at shallow depth.
                continue;
            }

            self.keys[self.root_index + ply + 1] = child.zobrist();
            if ply == 0 && i == 0 {
                self.root_first = Some(m);
            }
            let new_depth = depth - 1;
            let score = if i == 0 {
                -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, true)
            } else {
                let mut reduction = 0;
                if depth >= 3 && i >= 3 && quiet && !in_check {
                    reduction = self.lmr[(depth as usize).min(63)][i.min(63)] as i32;
                    if pv_node {
                        reduction -= 1;
                    }
                    if m == killers[0] || m == killers[1] {
                        reduction -= 1;
                    }
                    reduction = reduction.clamp(0, new_depth - 1);
                }
                let mut s = -self.negamax(&child, new_depth - reduction, -alpha - 1, -alpha, ply + 1, true);
                if s > alpha && reduction > 0 {
                    s = -self.negamax(&child, new_depth, -alpha - 1, -alpha, ply + 1, true);
                }
                if s > alpha && s < beta {
                    s = -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, true);
                }
                s
            };
            if self.aborted {
                // The root's best so far stands for an iteration cut short.
                return if ply == 0 { best_score } else { 0 };
            }
            if !tactical && quiets_tried.len() < quiets_tried.capacity() {
                quiets_tried.push(m);
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(m);
                    alpha = score;
                    self.update_pv(ply, m);
                    if alpha >= beta {
                        if !tactical {
                            self.reward_quiet(pos, ply, m, depth, &quiets_tried);
                        }
                        break;
                    }
                }
            }
        }
        if best_score == -INF {
            // Every move was pruned: fall back on a fail-low at alpha.
            best_score = alpha;
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(
            key,
            ply,
            depth,
            best_score,
            if in_check { 0 } else { static_eval },
            bound,
            best_move.or(tt_move),
        );
        best_score
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let child_len = if ply < MAX_PLY { self.pv_len[ply + 1] } else { 0 };
        self.pv[ply][0] = m;
        for j in 0..child_len.min(MAX_PLY - 1) {
            self.pv[ply][j + 1] = self.pv[ply + 1][j];
        }
        self.pv_len[ply] = child_len.min(MAX_PLY - 1) + 1;
    }

    fn reward_quiet(&mut self, pos: &Position, ply: usize, m: Move, depth: i32, tried: &[Move]) {
        let killers = &mut self.killers[ply];
        if killers[0] != m {
            killers[1] = killers[0];
            killers[0] = m;
        }
        let bonus = (depth * depth * 16).min(1200);
        let us = pos.turn();
        for &q in tried {
            let role = moving_role(pos, q);
            let b = if q == m { bonus } else { -bonus };
            self.history.update(us, role, q.to(), b);
        }
        if !tried.contains(&m) {
            self.history.update(us, moving_role(pos, m), m.to(), bonus);
        }
    }

    fn quiescence(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv_len[ply] = 0;
        if self.should_stop() {
            return 0;
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        let fifty = pos.halfmoves() >= 100 && !pos.crazyhouse();
        if fifty || (pos.board().occupied().count() <= 4 && pos.is_insufficient_material()) {
            // The fifty-move rule yields to mate, which the evasion search below would find.
            if !pos.is_check() || pos.has_legal_moves() {
                return 0;
            }
        }
        let in_check = pos.is_check();
        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        if moves.is_empty() {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        let stand_pat = if in_check { -INF } else { evaluate(pos) };
        if ply >= MAX_PLY - 1 {
            return if in_check { 0 } else { stand_pat };
        }
        if stand_pat >= beta {
            return stand_pat;
        }
        alpha = alpha.max(stand_pat);
        let mut scores = Scores::new();
        if in_check {
            let killers = [NO_MOVE; 2];
            score_moves(pos, &moves, &mut scores, None, &killers, &self.history);
        } else {
            moves.retain(|m| is_tactical(pos, *m) && m.promotion_role().is_none_or(|r| r == Role::Queen));
            score_tactical(pos, &moves, &mut scores);
        }
        let mut best = stand_pat;
        for i in 0..moves.len() {
            let (m, _) = pick(&mut moves, &mut scores, i);
            if !in_check {
                // Delta pruning: even winning the victim for free stays below alpha.
                let gain = captured_role(pos, m).map_or(0, |r| super::eval::SEE_VALUE[r.index()])
                    + if m.is_promotion() { 850 } else { 0 };
                if stand_pat + gain + 200 <= alpha && !m.is_promotion() {
                    continue;
                }
                if ordering::see(pos, m) < 0 {
                    continue;
                }
            }
            let mut child = *pos;
            child.play_unchecked(m);
            let score = -self.quiescence(&child, -beta, -alpha, ply + 1);
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, m);
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}

/// `true` when the side to move has a piece other than pawns and king (on the board or in hand).
#[inline]
fn has_pieces(pos: &Position) -> bool {
    let b = pos.board();
    let ours = b.by_color(pos.turn());
    (ours & !b.pawns() & !b.kings()).any() || {
        let p = pos.pockets()[pos.turn()];
        p.total() > p.count(Role::Pawn) as u32
    }
}
