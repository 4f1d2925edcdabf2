//! Static evaluation in Shannon's tradition: a sum of hand-weighted terms, each computed for both
//! sides as a (middlegame, endgame) pair and blended by the game phase. Centipawns from the side to
//! move's point of view. Pure and allocation-free; deterministic.
//!
//! Terms: material; piece-square tables (built from simple geometric rules below, not copied from
//! any engine); pawn structure (doubled, isolated, backward, passed by rank and king distance);
//! mobility per piece; rooks on open and half-open files and on the seventh; king safety (pawn
//! shield, weighted attackers on the king zone); bishop pair; tempo. Crazyhouse adds pocket
//! material, pocket pieces as potential king attackers and drop holes around the king.

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

use crate::chess::attacks;
use crate::chess::{Bitboard, Board, Color, Position, Role, Square, Variant};

/// A middlegame/endgame pair of centipawn values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct S(pub i32, pub i32);

impl Add for S {
    type Output = S;
    #[inline(always)]
    fn add(self, o: S) -> S {
        S(self.0 + o.0, self.1 + o.1)
    }
}
impl Sub for S {
    type Output = S;
    #[inline(always)]
    fn sub(self, o: S) -> S {
        S(self.0 - o.0, self.1 - o.1)
    }
}
impl AddAssign for S {
    #[inline(always)]
    fn add_assign(&mut self, o: S) {
        *self = *self + o;
    }
}
impl SubAssign for S {
    #[inline(always)]
    fn sub_assign(&mut self, o: S) {
        *self = *self - o;
    }
}
impl Neg for S {
    type Output = S;
    #[inline(always)]
    fn neg(self) -> S {
        S(-self.0, -self.1)
    }
}
impl Mul<i32> for S {
    type Output = S;
    #[inline(always)]
    fn mul(self, k: i32) -> S {
        S(self.0 * k, self.1 * k)
    }
}

/// Material on the board, pawn to king (the king is never traded).
pub const MATERIAL: [S; 6] = [S(85, 110), S(325, 305), S(340, 325), S(480, 540), S(980, 1010), S(0, 0)];

/// Crazyhouse: what a piece in hand is worth (more than on the board: it can go anywhere).
pub const POCKET_VALUE: [S; 5] = [S(140, 140), S(380, 380), S(380, 380), S(520, 520), S(1050, 1050)];

/// Simple piece values for move ordering and exchange evaluation.
pub const SEE_VALUE: [i32; 6] = [100, 320, 330, 500, 950, 20_000];

/// Phase weights: knight 1, bishop 1, rook 2, queen 4; 24 is a full middlegame.
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
const MAX_PHASE: i32 = 24;

const fn centrality(sq: usize) -> i32 {
    let f = (sq & 7) as i32;
    let r = (sq >> 3) as i32;
    let cf = if f < 7 - f { f } else { 7 - f };
    let cr = if r < 7 - r { r } else { 7 - r };
    cf + cr
}

/// Piece-square value for `role` on `sq` seen from White (Black mirrors the square).
const fn pst_value(role: usize, sq: usize) -> S {
    let f = (sq & 7) as i32;
    let r = (sq >> 3) as i32;
    let c = centrality(sq);
    let cf = if f < 7 - f { f } else { 7 - f };
    match role {
        0 => {
            // Pawns: advancing is good, central pawns on ranks 3-5 more so in the middlegame.
            let centre = if cf == 3 && r >= 2 && r <= 4 {
                14
            } else if cf == 2 && r >= 2 && r <= 4 {
                6
            } else {
                0
            };
            let advance = if r >= 1 { r - 1 } else { 0 };
            S(3 * advance + centre - if cf == 0 { 4 } else { 0 }, 7 * advance)
        }
        // Knights: strongly central, a little bonus for outpost ranks.
        1 => S(-32 + 8 * c + if r >= 3 && r <= 5 { 5 } else { 0 }, -28 + 7 * c),
        // Bishops: mildly central, long diagonals.
        2 => S(-12 + 3 * c + if f == r || f + r == 7 { 7 } else { 0 }, -14 + 4 * c),
        // Rooks: central files a little better; the seventh is scored separately.
        3 => S(2 * cf - if r == 0 { 0 } else { 2 }, 0),
        // Queens: do not wander early; central in the endgame.
        4 => S(-6 + 2 * c - if r >= 2 { 3 } else { 0 }, -18 + 6 * c),
        _ => {
            // King: hide on the wings of the back rank in the middlegame, centralise later.
            let file_mg = [18, 26, 8, -6, -6, 8, 26, 18][f as usize];
            let rank_mg = if r == 0 {
                0
            } else if r == 1 {
                -14
            } else {
                -30 - 14 * (r - 2)
            };
            S(file_mg + rank_mg, -36 + 11 * c)
        }
    }
}

const fn build_pst() -> [[S; 64]; 6] {
    let mut t = [[S(0, 0); 64]; 6];
    let mut role = 0;
    while role < 6 {
        let mut sq = 0;
        while sq < 64 {
            let p = pst_value(role, sq);
            let m = MATERIAL[role];
            t[role][sq] = S(p.0 + m.0, p.1 + m.1);
            sq += 1;
        }
        role += 1;
    }
    t
}

/// Material plus piece-square value, White's view; index `[role][relative square]`.
static PST: [[S; 64]; 6] = build_pst();

const FILE_A: u64 = 0x0101_0101_0101_0101;

const fn build_adjacent() -> [u64; 8] {
    let mut t = [0; 8];
    let mut f = 0;
    while f < 8 {
        if f > 0 {
            t[f] |= FILE_A << (f - 1);
        }
        if f < 7 {
            t[f] |= FILE_A << (f + 1);
        }
        f += 1;
    }
    t
}

/// Files next to each file.
const ADJACENT_FILES: [u64; 8] = build_adjacent();

/// Squares strictly in front of `sq` (for `color`), on its file and the adjacent ones.
const fn build_front_span() -> [[u64; 64]; 2] {
    let mut t = [[0; 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let f = sq & 7;
        let r = sq >> 3;
        let files = (FILE_A << f) | ADJACENT_FILES[f];
        let above = if r < 7 { !0u64 << (8 * (r + 1)) } else { 0 };
        let below = if r > 0 { !0u64 >> (8 * (8 - r)) } else { 0 };
        t[0][sq] = files & above;
        t[1][sq] = files & below;
        sq += 1;
    }
    t
}
static FRONT_SPAN: [[u64; 64]; 2] = build_front_span();

/// Passed pawn bonus by relative rank.
const PASSED: [S; 8] = [S(0, 0), S(4, 10), S(8, 16), S(16, 28), S(30, 52), S(52, 88), S(86, 135), S(0, 0)];
const DOUBLED: S = S(-10, -22);
const ISOLATED: S = S(-12, -14);
const BACKWARD: S = S(-8, -10);
const BISHOP_PAIR: S = S(28, 52);
const TEMPO: i32 = 12;
const ROOK_OPEN: S = S(26, 10);
const ROOK_HALF_OPEN: S = S(12, 6);
const ROOK_SEVENTH: S = S(18, 28);
/// Mobility: per reachable safe square, and the count considered average.
const MOBILITY: [(S, i32); 6] =
    [(S(0, 0), 0), (S(4, 4), 4), (S(5, 5), 6), (S(2, 4), 6), (S(1, 2), 12), (S(0, 0), 0)];
/// Weight of one attacked king-zone square, by attacker role.
const KING_ATTACK_WEIGHT: [i32; 6] = [0, 2, 2, 3, 5, 0];
/// Share (percent) of the attack weight that counts, by number of attacking pieces.
const KING_ATTACK_SCALE: [i32; 8] = [0, 0, 50, 75, 88, 94, 97, 99];

#[inline(always)]
fn relative_rank(color: Color, sq: Square) -> usize {
    sq.relative(color).rank() as usize
}

/// Pawn attacks of all pawns of `color` in `pawns`.
#[inline(always)]
fn pawn_attack_span(color: Color, pawns: u64) -> u64 {
    const NOT_A: u64 = !FILE_A;
    const NOT_H: u64 = !(FILE_A << 7);
    if color.is_white() {
        ((pawns & NOT_A) << 7) | ((pawns & NOT_H) << 9)
    } else {
        ((pawns & NOT_A) >> 9) | ((pawns & NOT_H) >> 7)
    }
}

/// Evaluates `pos` from the side to move's point of view, in centipawns.
pub fn evaluate(pos: &Position) -> i32 {
    let b = pos.board();
    let zh = pos.variant() == Variant::Crazyhouse;
    let mut total = S(0, 0);
    let mut phase = 0;
    for color in Color::ALL {
        let (s, p) = side(pos, b, color, zh);
        phase += p;
        if color.is_white() {
            total += s;
        } else {
            total -= s;
        }
    }
    let phase = if zh { MAX_PHASE } else { phase.min(MAX_PHASE) };
    let mut white = (total.0 * phase + total.1 * (MAX_PHASE - phase)) / MAX_PHASE;
    if !zh {
        white = scale_drawish(b, white);
    }
    let stm = if pos.turn().is_white() { white } else { -white };
    (stm + TEMPO).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// The largest evaluation, in centipawns: far below the mate scores, which a crazyhouse pocket of
/// 31 queens reached.
pub const EVAL_LIMIT: i32 = 20_000;

/// Without pawns, a small material edge rarely wins: pull such scores towards zero.
fn scale_drawish(b: &Board, white: i32) -> i32 {
    let strong = if white > 0 { Color::White } else { Color::Black };
    let ours = b.by_color(strong);
    if (ours & b.pawns()).any() {
        return white;
    }
    let material = |c: Color| -> i32 {
        let bb = b.by_color(c);
        [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
            .into_iter()
            .map(|r| (bb & b.by_role(r)).count() as i32 * SEE_VALUE[r as usize])
            .sum()
    };
    if material(strong) - material(!strong) <= SEE_VALUE[Role::Bishop as usize] { white / 4 } else { white }
}

/// Everything for one side: (score, phase contribution).
fn side(pos: &Position, b: &Board, us: Color, zh: bool) -> (S, i32) {
    let them = !us;
    let occ = b.occupied();
    let ours = b.by_color(us);
    let theirs = b.by_color(them);
    let our_pawns = (b.pawns() & ours).0;
    let their_pawns = (b.pawns() & theirs).0;
    let their_pawn_attacks = pawn_attack_span(them, their_pawns);
    let our_king = b.king_of(us).expect("valid position has kings");
    let their_king = b.king_of(them).expect("valid position has kings");
    let mut s = S(0, 0);
    let mut phase = 0;

    // Material and placement.
    for role in Role::ALL {
        let pieces = b.by_role(role) & ours;
        phase += PHASE_WEIGHT[role as usize] * pieces.count() as i32;
        for sq in pieces {
            s += PST[role as usize][sq.relative(us).index()];
        }
    }
    if zh {
        let pocket = pos.pockets()[us];
        for role in Role::POCKET {
            let n = pocket.count(role) as i32;
            s += POCKET_VALUE[role as usize] * n;
            phase += PHASE_WEIGHT[role as usize] * n;
        }
    }
    if (b.bishops() & ours).more_than_one() {
        s += BISHOP_PAIR;
    }

    // Pawn structure.
    for sq in Bitboard(our_pawns) {
        let f = sq.file() as usize;
        let rr = relative_rank(us, sq);
        let file_mask = FILE_A << f;
        let adjacent = ADJACENT_FILES[f];
        if (our_pawns & file_mask & FRONT_SPAN[us.index()][sq.index()]) != 0 {
            s += DOUBLED;
        }
        let isolated = our_pawns & adjacent == 0;
        if isolated {
            s += ISOLATED;
        }
        if their_pawns & FRONT_SPAN[us.index()][sq.index()] == 0 {
            let mut bonus = PASSED[rr];
            // A passer is worth more with our king near its path and theirs far away.
            if let Some(stop) = sq.offset(if us.is_white() { 8 } else { -8 }) {
                let weight = rr as i32 - 1;
                if weight > 0 {
                    bonus.1 +=
                        weight * (5 * their_king.distance(stop) as i32 - 2 * our_king.distance(stop) as i32);
                }
                if occ.contains(stop) {
                    bonus = S(bonus.0 * 3 / 4, bonus.1 * 3 / 4);
                }
            }
            s += bonus;
        } else if !isolated {
            // Backward: no pawn of ours beside or behind on the adjacent files, and the stop square
            // is guarded by an enemy pawn.
            let behind_or_level = FRONT_SPAN[them.index()][sq.index()] | (0xffu64 << (8 * sq.rank() as u32));
            let stop = if us.is_white() { sq.index() + 8 } else { sq.index().wrapping_sub(8) };
            if stop < 64
                && our_pawns & adjacent & behind_or_level == 0
                && their_pawn_attacks & (1u64 << stop) != 0
            {
                s += BACKWARD;
            }
        }
    }

    // Pieces: mobility, rook files, king attacks.
    let mobility_area = !(ours.0 | their_pawn_attacks);
    let their_zone = king_zone(them, their_king);
    let mut attackers = 0;
    let mut attack_weight = 0;
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        let (per_square, average) = MOBILITY[role as usize];
        for sq in b.by_role(role) & ours {
            let att = attacks::attacks(role, us, sq, occ).0;
            s += per_square * ((att & mobility_area).count_ones() as i32 - average);
            let zone_hits = (att & their_zone).count_ones() as i32;
            if zone_hits > 0 {
                attackers += 1;
                attack_weight += KING_ATTACK_WEIGHT[role as usize] * zone_hits;
            }
            if role == Role::Rook {
                let file = FILE_A << sq.file() as u32;
                if our_pawns & file == 0 {
                    s += if their_pawns & file == 0 { ROOK_OPEN } else { ROOK_HALF_OPEN };
                }
                if relative_rank(us, sq) == 6
                    && (relative_rank(us, their_king) == 7
                        || their_pawns & Bitboard::relative_rank(us, crate::chess::Rank::Seventh).0 != 0)
                {
                    s += ROOK_SEVENTH;
                }
            }
        }
    }

    // Crazyhouse: every piece in hand can join the attack, and empty holes near their king are drop
    // squares.
    if zh {
        let pocket = pos.pockets()[us];
        let pieces_in_hand = (pocket.total() - pocket.count(Role::Pawn) as u32) as i32;
        let pawns_in_hand = pocket.count(Role::Pawn) as i32;
        attackers += pieces_in_hand.min(3);
        attack_weight += 3 * pieces_in_hand.min(4) + pawns_in_hand.min(3);
        let holes = (their_zone & !occ.0 & !pawn_attack_span(them, their_pawns)).count_ones() as i32;
        let droppers = pieces_in_hand.min(4) * 2 + pawns_in_hand.min(2);
        s += S(holes * droppers * 2, holes * droppers * 2);
    }
    let scale = KING_ATTACK_SCALE[(attackers as usize).min(7)];
    let danger = attack_weight * attack_weight * scale / 100;
    let danger = if zh { danger * 2 } else { danger };
    s += S(danger.min(900), danger.min(900) / 4);

    // Our own pawn shield.
    s += pawn_shield(us, our_king, our_pawns);

    (s, phase)
}

/// The king's square, its neighbours and two squares further towards the enemy.
#[inline]
fn king_zone(color: Color, king: Square) -> u64 {
    let near = attacks::king_attacks(king).0 | (1u64 << king.index());
    let forward = if color.is_white() { near << 8 } else { near >> 8 };
    near | forward
}

/// Pawns in front of a castled-looking king: present and close is good, missing is bad.
fn pawn_shield(us: Color, king: Square, our_pawns: u64) -> S {
    let kr = relative_rank(us, king);
    if kr > 1 {
        return S(0, 0);
    }
    let kf = king.file() as i32;
    let mut bonus = 0;
    for f in (kf - 1).max(0)..=(kf + 1).min(7) {
        let on_file = our_pawns & (FILE_A << f);
        let at = |rank: usize| -> bool {
            let sq =
                Square::from_coords(crate::chess::File::new(f as u32), crate::chess::Rank::new(rank as u32));
            on_file & (1u64 << sq.relative(us).index()) != 0
        };
        if at(kr + 1) {
            bonus += 14;
        } else if kr + 2 < 8 && at(kr + 2) {
            bonus += 7;
        } else {
            bonus -= 12;
        }
    }
    S(bonus, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::test_position as position;

    #[test]
    fn start_position_is_balanced_and_symmetric() {
        let start = Position::default();
        assert_eq!(evaluate(&start), TEMPO);
        // Mirrored positions evaluate the same for the side to move.
        let a = position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
        let b = position("rnbqkb1r/pppp1ppp/5n2/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 2 3");
        assert_eq!(evaluate(&a), evaluate(&b));
    }

    #[test]
    fn material_counts() {
        let up_a_queen = position("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(evaluate(&up_a_queen) > 800);
        let passed = position("4k3/8/8/3P4/8/8/8/4K3 w - - 0 1");
        let blocked = position("4k3/8/3p4/3P4/8/8/8/4K3 w - - 0 1");
        assert!(evaluate(&passed) > evaluate(&blocked));
    }

    #[test]
    fn crazyhouse_pockets_count() {
        let mut zh = Position::new(Variant::Crazyhouse);
        let base = evaluate(&zh);
        let mut setup = zh.to_setup();
        setup.pockets.as_mut().expect("pockets")[Color::White].add(Role::Knight);
        zh = Position::from_setup(setup, Variant::Crazyhouse, crate::chess::CastlingMode::Standard)
            .expect("valid");
        assert!(evaluate(&zh) > base + 300);
    }
}
