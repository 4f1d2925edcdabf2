//! A game's mainline positions kept compactly: one position every [`EVERY`] plies (about 2 bytes
//! a ply) beside the moves (2 bytes a ply), instead of every position (120 bytes a ply).
//! Any position is replayed from the mark before it in fewer than [`EVERY`] moves, all of them in
//! order at one move each.

use super::collect::Mainline;
use crate::chess::{Move, Position};

/// Plies between two kept positions.
pub(super) const EVERY: usize = 64;

/// The positions before moves 0, [`EVERY`], 2 x [`EVERY`], ... of a mainline.
#[derive(Debug, Default)]
pub(crate) struct Marks(Vec<Position>);

impl Marks {
    /// The start position, before the first move.
    pub fn start(&mut self, pos: &Position) {
        self.0.push(*pos);
    }

    /// Move `index` of the mainline, `mv`, was played from `before`.
    #[inline]
    pub fn played(&mut self, index: usize, before: &Position, mv: Move) {
        if (index + 1).is_multiple_of(EVERY) {
            let mut after = *before;
            after.play_unchecked(mv);
            self.0.push(after);
        }
    }
}

impl Mainline<'_> {
    /// The mainline's positions: one before each move and one after the last (none for a bad
    /// setup).
    pub fn position_count(&self) -> usize {
        if self.marks.0.is_empty() { 0 } else { self.moves.len() + 1 }
    }

    /// The position before move `ply` (after the last move for `ply` = the moves' count).
    pub fn position(&self, ply: usize) -> Option<Position> {
        if ply >= self.position_count() {
            return None;
        }
        let mut pos = self.marks.0[ply / EVERY];
        for &m in &self.moves[ply / EVERY * EVERY..ply] {
            pos.play_unchecked(m);
        }
        Some(pos)
    }

    /// The positions in order, from the start.
    pub fn positions(&self) -> Positions<'_> {
        Positions { moves: &self.moves, next: 0, pos: self.marks.0.first().copied() }
    }
}

/// The positions of a mainline in order ([`Mainline::positions`]).
pub(super) struct Positions<'m> {
    moves: &'m [Move],
    /// The ply of the next position.
    next: usize,
    pos: Option<Position>,
}

impl Iterator for Positions<'_> {
    type Item = Position;

    #[inline]
    fn next(&mut self) -> Option<Position> {
        let pos = self.pos?;
        self.pos = self.moves.get(self.next).map(|&m| {
            let mut after = pos;
            after.play_unchecked(m);
            after
        });
        self.next += 1;
        Some(pos)
    }
}
