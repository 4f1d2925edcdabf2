//! The transposition table: a fixed number of 4-entry buckets, allocated once when the size is set
//! and never during a search. Entries are verified by 32 bits of the key not used for indexing.
//! Replacement prefers, in order: the same position, an entry from an older search, the shallowest
//! entry. Mate scores are stored relative to the node (distance from it), not to the root.

use std::collections::TryReserveError;

use crate::chess::Move;

use super::{MATE_BOUND, NO_MOVE};

/// What kind of bound a stored score is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true score.
    Exact,
    /// The score is at least this (a beta cutoff).
    Lower,
    /// The score is at most this (no move raised alpha).
    Upper,
}

/// One stored search result.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    check: u32,
    mv: u16,
    score: i16,
    eval: i16,
    depth: u8,
    /// Bits 0-1: bound (0 = empty); bits 2-7: generation.
    flags: u8,
}

const BUCKET: usize = 4;

#[derive(Clone, Copy, Debug, Default)]
#[repr(align(64))]
struct Bucket([Entry; BUCKET]);

/// What a probe found.
#[derive(Clone, Copy, Debug)]
pub struct TtHit {
    /// The best or refuting move, if one was stored.
    pub mv: Option<Move>,
    /// The score, already converted to be relative to the root at the probing ply.
    pub score: i32,
    /// The static evaluation stored with it.
    pub eval: i32,
    /// Remaining depth the score was searched to.
    pub depth: i32,
    /// What the score means.
    pub bound: Bound,
}

/// A hash table of search results keyed by Zobrist key.
#[derive(Debug)]
pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    generation: u8,
}

impl TranspositionTable {
    /// A table of about `mb` megabytes (at least one bucket); aborts when it cannot be allocated.
    pub fn new(mb: usize) -> TranspositionTable {
        TranspositionTable { buckets: vec![Bucket::default(); buckets_in(mb)], generation: 0 }
    }

    /// [`TranspositionTable::new`], or the allocator's refusal instead of an abort.
    pub fn try_new(mb: usize) -> Result<TranspositionTable, TryReserveError> {
        let n = buckets_in(mb);
        let mut buckets = Vec::new();
        buckets.try_reserve_exact(n)?;
        buckets.resize(n, Bucket::default());
        Ok(TranspositionTable { buckets, generation: 0 })
    }

    /// Size in megabytes as requested (rounded down to whole buckets).
    pub fn size_mb(&self) -> usize {
        (self.buckets.len() * size_of::<Bucket>()) >> 20
    }

    /// Empties the table.
    pub fn clear(&mut self) {
        self.buckets.fill(Bucket::default());
        self.generation = 0;
    }

    /// Starts a new search: older entries become preferred victims.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 0x3f;
    }

    #[inline(always)]
    fn index(&self, key: u64) -> usize {
        ((key as u128 * self.buckets.len() as u128) >> 64) as usize
    }

    /// Looks `key` up; `ply` converts stored mate distances back to root-relative scores.
    #[inline]
    pub fn probe(&self, key: u64, ply: usize) -> Option<TtHit> {
        let check = key as u32;
        let bucket = &self.buckets[self.index(key)];
        let e = bucket.0.iter().find(|e| e.check == check && e.flags & 3 != 0)?;
        let bound = match e.flags & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        };
        let mv = (e.mv != NO_MOVE.to_u16()).then(|| move_from_u16(e.mv));
        Some(TtHit {
            mv,
            score: from_tt(e.score as i32, ply),
            eval: e.eval as i32,
            depth: e.depth as i32,
            bound,
        })
    }

    /// Stores a result for `key` searched to `depth` at `ply`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &mut self,
        key: u64,
        ply: usize,
        depth: i32,
        score: i32,
        eval: i32,
        bound: Bound,
        mv: Option<Move>,
    ) {
        let check = key as u32;
        let generation = self.generation;
        let idx = self.index(key);
        let bucket = &mut self.buckets[idx];
        let slot = match bucket.0.iter().position(|e| e.check == check && e.flags & 3 != 0) {
            Some(i) => i,
            None => {
                // Worth of keeping an entry: its depth, minus a lot per generation of age.
                let worth = |e: &Entry| -> i32 {
                    if e.flags & 3 == 0 {
                        return i32::MIN;
                    }
                    let age = (generation as i32 - (e.flags >> 2) as i32) & 0x3f;
                    e.depth as i32 - 8 * age
                };
                (0..BUCKET).min_by_key(|&i| worth(&bucket.0[i])).unwrap_or(0)
            }
        };
        let e = &mut bucket.0[slot];
        let same = e.check == check && e.flags & 3 != 0;
        // Keep a deeper result for the same position unless the new one is exact.
        if same && bound != Bound::Exact && depth + 2 < e.depth as i32 && (e.flags >> 2) == generation {
            return;
        }
        let mv = match mv {
            Some(m) => m.to_u16(),
            None if same => e.mv,
            None => NO_MOVE.to_u16(),
        };
        let bound_bits = match bound {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        *e = Entry {
            check,
            mv,
            score: to_tt(score, ply) as i16,
            eval: eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            depth: depth.clamp(0, 255) as u8,
            flags: bound_bits | generation << 2,
        };
    }

    /// Permille of the first thousand entries filled in this search (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let mut used = 0u32;
        let mut seen = 0;
        for b in self.buckets.iter().take(1000 / BUCKET) {
            for e in &b.0 {
                seen += 1;
                if e.flags & 3 != 0 && e.flags >> 2 == self.generation {
                    used += 1;
                }
            }
        }
        (used * 1000).checked_div(seen).unwrap_or(0)
    }
}

/// Buckets in a table of about `mb` megabytes (at least one).
fn buckets_in(mb: usize) -> usize {
    (mb.saturating_mul(1 << 20) / size_of::<Bucket>()).max(1)
}

/// Mate scores: root-relative to node-relative.
#[inline(always)]
fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// Mate scores: node-relative to root-relative.
#[inline(always)]
fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// Rebuilds a move from its 16-bit encoding. Only moves this table stored come back, and callers
/// check them against the legal moves before use.
#[inline]
fn move_from_u16(bits: u16) -> Move {
    use crate::chess::{Role, Square};
    let from = Square::new((bits & 63) as u32);
    let to = Square::new(((bits >> 6) & 63) as u32);
    match bits >> 12 {
        0 => Move::normal(from, to),
        1 => Move::en_passant(from, to),
        2 => Move::castle(from, to),
        k @ 4..=7 => Move::promotion(from, to, Role::ALL[(k - 3) as usize]),
        k => Move::drop(Role::ALL[((k - 8) % 6) as usize], to),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{Position, Role, Square};
    use crate::search::MATE;

    #[test]
    fn stores_and_converts_mates() {
        let mut tt = TranspositionTable::new(1);
        let key = Position::default().zobrist();
        tt.store(key, 3, 5, MATE - 7, 12, Bound::Exact, Some(Move::normal(Square::E2, Square::E4)));
        let hit = tt.probe(key, 5).expect("stored");
        // Mate in 4 plies from the node: from a node at ply 5 that is MATE - 9.
        assert_eq!(hit.score, MATE - 9);
        assert_eq!(hit.mv, Some(Move::normal(Square::E2, Square::E4)));
        assert_eq!(hit.bound, Bound::Exact);
        assert!(tt.probe(key ^ 1, 0).is_none());
        for m in [
            Move::promotion(Square::A7, Square::A8, Role::Knight),
            Move::drop(Role::Queen, Square::D4),
            Move::castle(Square::E1, Square::H1),
            Move::en_passant(Square::E5, Square::D6),
        ] {
            assert_eq!(move_from_u16(m.to_u16()), m);
        }
        tt.clear();
        assert!(tt.probe(key, 0).is_none());
    }
}
