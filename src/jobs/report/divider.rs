//! The phases of a game, by lichess's rule (scalachess `Divider`, restated from its published
//! behaviour): the middlegame starts at the first position of the mainline (the start position
//! is position 0, the position after ply `p` is position `p`) where
//! - at most 10 majors and minors (queens, rooks, bishops, knights of both sides) stand, or
//! - the back rank is sparse: fewer than 4 of White's pieces on the first rank, or fewer than 4
//!   of Black's on the eighth, or
//! - the pieces are mixed: the mixedness score is above 150;
//!
//! and the endgame at the first position where at most 6 majors and minors stand, looked for
//! only when a middlegame start was found. A middlegame start at or after the endgame's is
//! dropped. A move belongs to the phase of the position it leads to: the move of ply `p` is an
//! endgame move when `p >= end`, else a middlegame move when `p >= middle`, else an opening move.
//!
//! Mixedness sums a score over the 49 blocks of 2x2 squares (lower-left corners a1 to g7); a
//! block on ranks `r` and `r + 1` has `y = r` (1 to 7), and with `w` White and `b` Black pieces
//! of any kind in it scores, by `(w, b)`: (1, 0) `1 + (8 - y)`; (2, 0) `2 + (y - 2)` if `y > 2`
//! else 0; (3, 0) and (4, 0) `3 + (y - 1)` if `y > 1` else 0; (0, 1) `1 + y`; (1, 1)
//! `5 + |3 - y|`; (2, 1) `4 + y`; (3, 1) `5 + y`; (0, 2) `2 + (6 - y)` if `y < 6` else 0; (1, 2)
//! `4 + (6 - y)`; (2, 2) 7; (0, 3) and (0, 4) `3 + (7 - y)` if `y < 7` else 0; (1, 3)
//! `5 + (6 - y)`; anything else 0. Pockets (crazyhouse) do not count.

use crate::chess::{Board, Color, Position};

/// Where a game's middlegame and endgame start, as positions of its mainline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Division {
    /// The first middlegame position, if any.
    pub middle: Option<u32>,
    /// The first endgame position, if any.
    pub end: Option<u32>,
}

/// A game's phases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    /// Before the middlegame.
    Opening,
    /// From the middlegame's start to the endgame's.
    Middlegame,
    /// From the endgame's start.
    Endgame,
}

impl Phase {
    /// All three, in game order.
    pub const ALL: [Phase; 3] = [Phase::Opening, Phase::Middlegame, Phase::Endgame];

    /// The phase's name in lower case.
    pub const fn name(self) -> &'static str {
        match self {
            Phase::Opening => "opening",
            Phase::Middlegame => "middlegame",
            Phase::Endgame => "endgame",
        }
    }
}

impl Division {
    /// The phase of the move of ply `ply` (1-based: the position it leads to).
    pub fn phase(&self, ply: u32) -> Phase {
        match (self.middle, self.end) {
            (_, Some(e)) if ply >= e => Phase::Endgame,
            (Some(m), _) if ply >= m => Phase::Middlegame,
            _ => Phase::Opening,
        }
    }
}

/// Finds a game's [`Division`] as its mainline positions are fed in order, the start first.
#[derive(Clone, Copy, Debug, Default)]
pub struct Divider {
    next: u32,
    middle: Option<u32>,
    end: Option<u32>,
    /// The mixedness of each pair of ranks (`y` 0 to 6) of the last board scored, whose White
    /// and Black pieces follow: a move changes two to four of the seven, the others are kept.
    rows: [i32; 7],
    white: u64,
    black: u64,
}

const RANK_1: u64 = 0xff;
const RANK_8: u64 = 0xff << 56;

impl Divider {
    /// Ready for a game's start position.
    pub fn new() -> Divider {
        Divider::default()
    }

    /// The next position of the mainline.
    pub fn observe(&mut self, pos: &Position) {
        let index = self.next;
        self.next += 1;
        if self.end.is_some() {
            return;
        }
        let board = pos.board();
        let pieces = majors_and_minors(board);
        if self.middle.is_none() && (pieces <= 10 || backrank_sparse(board) || self.mixedness(board) > 150) {
            self.middle = Some(index);
        }
        if self.middle.is_some() && pieces <= 6 {
            self.end = Some(index);
        }
    }

    /// [`mixedness`] of `board`, scoring again only the pairs of ranks whose pieces changed since
    /// the last board scored (an empty pair scores 0, as the new divider's rows start).
    fn mixedness(&mut self, board: &Board) -> i32 {
        let (white, black) = (board.by_color(Color::White).0, board.by_color(Color::Black).0);
        let changed = (white ^ self.white) | (black ^ self.black);
        (self.white, self.black) = (white, black);
        for (y, row) in self.rows.iter_mut().enumerate() {
            if (changed >> (8 * y)) & 0xffff != 0 {
                *row = row_mixedness(white, black, y as u32);
            }
        }
        self.rows.iter().sum()
    }

    /// The division of the positions observed.
    pub fn division(&self) -> Division {
        let middle = self.middle.filter(|&m| self.end.is_none_or(|e| m < e));
        Division { middle, end: self.end }
    }
}

fn majors_and_minors(board: &Board) -> u32 {
    (board.occupied().0 & !(board.kings().0 | board.pawns().0)).count_ones()
}

fn backrank_sparse(board: &Board) -> bool {
    (board.by_color(Color::White).0 & RANK_1).count_ones() < 4
        || (board.by_color(Color::Black).0 & RANK_8).count_ones() < 4
}

/// A block's score by its counts of White and Black pieces and its rank `y` (1 to 7).
const fn block_score(y: i32, white: u32, black: u32) -> i32 {
    match (white, black) {
        (1, 0) => 1 + (8 - y),
        (2, 0) if y > 2 => 2 + (y - 2),
        (3 | 4, 0) if y > 1 => 3 + (y - 1),
        (0, 1) => 1 + y,
        (1, 1) => 5 + if y > 3 { y - 3 } else { 3 - y },
        (2, 1) => 4 + y,
        (3, 1) => 5 + y,
        (0, 2) if y < 6 => 2 + (6 - y),
        (1, 2) => 4 + (6 - y),
        (2, 2) => 7,
        (0, 3 | 4) if y < 7 => 3 + (7 - y),
        (1, 3) => 5 + (6 - y),
        _ => 0,
    }
}

/// Each byte's bits spread one to a byte, so that adding spread ranks counts pieces per file.
const SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut bit = 0;
        while bit < 8 {
            if b & (1 << bit) != 0 {
                t[b] |= 1 << (8 * bit);
            }
            bit += 1;
        }
        b += 1;
    }
    t
};

/// [`block_score`] for every rank `y` (1 to 7), indexed by a block's byte: its count of White
/// pieces times 16 plus its count of Black pieces (each 0 to 4): a byte index needs no bounds
/// check (a 5x5 table's checks: the division 8.2% of `report`'s profile against 5.1%).
const SCORES: [[u8; 256]; 8] = {
    let mut t = [[0u8; 256]; 8];
    let mut y = 1;
    while y < 8 {
        let mut w = 0;
        while w < 5 {
            let mut b = 0;
            while b < 5 {
                t[y][w * 16 + b] = block_score(y as i32, w as u32, b as u32) as u8;
                b += 1;
            }
            w += 1;
        }
        y += 1;
    }
    t
};

/// The pieces of `bb` in each 2x2 block on ranks `y` and `y + 1` (0-based), one byte per block
/// from the a-file (the eighth byte, the h-file alone, is no block).
#[inline(always)]
fn block_counts(bb: u64, y: u32) -> u64 {
    let (low, high) = (SPREAD[(bb >> (8 * y)) as usize & 0xff], SPREAD[(bb >> (8 * y + 8)) as usize & 0xff]);
    let ranks = low + high;
    ranks + (ranks >> 8)
}

/// The mixedness of the blocks on ranks `y` and `y + 1` (0-based) of a board with `white` and
/// `black` pieces.
#[inline(always)]
fn row_mixedness(white: u64, black: u64, y: u32) -> i32 {
    // Two ranks with no piece score nothing.
    if ((white | black) >> (8 * y)) & 0xffff == 0 {
        return 0;
    }
    let blocks = block_counts(white, y) << 4 | block_counts(black, y);
    let scores = &SCORES[y as usize + 1];
    (0..7).map(|x| i32::from(scores[(blocks >> (8 * x)) as u8 as usize])).sum()
}

/// The mixedness score of `board` (the module's rule).
#[cfg(test)]
fn mixedness(board: &Board) -> i32 {
    let (white, black) = (board.by_color(Color::White).0, board.by_color(Color::Black).0);
    (0..7).map(|y| row_mixedness(white, black, y)).sum()
}

/// The rule as stated, block by block: what [`mixedness`] computes with its tables.
#[cfg(test)]
fn mixedness_by_blocks(board: &Board) -> i32 {
    let (white, black) = (board.by_color(Color::White).0, board.by_color(Color::Black).0);
    let mut sum = 0;
    for y in 0..7 {
        for x in 0..7 {
            let block = 0x0303u64 << (x + 8 * y);
            sum += block_score(y + 1, (white & block).count_ones(), (black & block).count_ones());
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::san::parse_san;

    fn division(moves: &str) -> Division {
        let mut pos = Position::default();
        let mut d = Divider::new();
        d.observe(&pos);
        for san in moves.split_whitespace() {
            let (m, _) = parse_san(&pos, san.as_bytes()).expect("legal");
            pos.play_unchecked(m);
            d.observe(&pos);
        }
        d.division()
    }

    #[test]
    fn the_start_is_no_middlegame_and_developed_pieces_start_one() {
        assert_eq!(division(""), Division::default());
        assert_eq!(mixedness(Position::default().board()), 0);
        let d = division("e4 e5 Nf3 Nc6 Bc4 Nf6 d3 d6 Nc3 Be7 Bg5 O-O Qd2");
        assert!(d.middle.is_some() && d.end.is_none(), "{d:?}");
        assert_eq!(d.phase(1), Phase::Opening);
    }

    #[test]
    fn phases_follow_the_division() {
        let d = Division { middle: Some(20), end: Some(60) };
        assert_eq!(
            [d.phase(19), d.phase(20), d.phase(59), d.phase(60)],
            [Phase::Opening, Phase::Middlegame, Phase::Middlegame, Phase::Endgame]
        );
        let from_endgame = Division { middle: None, end: Some(0) };
        assert_eq!(from_endgame.phase(1), Phase::Endgame);
    }

    #[test]
    fn an_endgame_start_position_has_no_middlegame() {
        let pos = crate::notation::fen::parse_fen("8/5k2/8/8/8/8/3RK3/8 w - - 0 1", crate::Variant::Standard)
            .expect("valid");
        let mut d = Divider::new();
        d.observe(&pos);
        assert_eq!(d.division(), Division { middle: None, end: Some(0) });
    }

    #[test]
    fn the_tables_give_the_rule_block_by_block() {
        let mut pos = Position::default();
        let mut seen = 0;
        let mut divider = Divider::new();
        for san in "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Be3 e5 Nb3 Be6 f3 Be7 Qd2 O-O O-O-O Nbd7 g4 b5 g5 b4"
            .split_whitespace()
        {
            assert_eq!(mixedness(pos.board()), mixedness_by_blocks(pos.board()), "{san}");
            assert_eq!(divider.mixedness(pos.board()), mixedness(pos.board()), "kept rows, {san}");
            seen = seen.max(mixedness(pos.board()));
            let (m, _) = parse_san(&pos, san.as_bytes()).expect("legal");
            pos.play_unchecked(m);
        }
        assert!(seen > 0);
    }

    #[test]
    fn block_scores() {
        assert_eq!(block_score(1, 4, 0), 0, "a group of four on the home rank");
        assert_eq!(block_score(3, 1, 1), 5);
        assert_eq!(block_score(7, 0, 2), 0);
        assert_eq!(block_score(2, 0, 4), 3 + 5);
    }
}
