//! The transposition table: a fixed number of 4-entry buckets, allocated once when the size is set
//! and never during a search. Entries are verified by 32 bits of the key not used for indexing.
//! Replacement prefers, in order: the same position, an entry from an older search, the shallowest
//! entry. Mate scores are stored relative to the node (distance from it), not to the root.
//!
//! The table is zeroed words (an all-zero entry is empty), taken from the allocator already zeroed
//! and cleared by taking new ones: the system hands over zeroed pages as they are first touched, so
//! a table of gigabytes is set and cleared at once instead of every byte being written.

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

/// One stored search result, as read from its bucket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
/// Words of a bucket, one 64-byte cache line: entry `i` is word `i` (check, move, score) and half
/// of word `4 + i / 2` (eval, depth, flags); the last two words are spare.
const WORDS: usize = 8;
/// Bytes of a bucket.
const BUCKET_BYTES: usize = WORDS * size_of::<u64>();
/// Bytes from which [`TranspositionTable::clear`] takes fresh memory. A smaller block may come back
/// from the allocator's own free memory (glibc keeps blocks under 32 MB), which it zeroes by
/// writing and keeps besides the table: with 16 MB tables replaced, `/usr/bin/time -f %M pgnkit
/// bench --depth 10` peaked at 41,148 KB instead of 25,044.
const FRESH_FROM: usize = 32 << 20;

impl Entry {
    #[inline(always)]
    fn read(b: &[u64; WORDS], i: usize) -> Entry {
        let (lo, hi) = (b[i], (b[BUCKET + i / 2] >> (32 * (i & 1))) as u32);
        Entry {
            check: lo as u32,
            mv: (lo >> 32) as u16,
            score: (lo >> 48) as u16 as i16,
            eval: hi as u16 as i16,
            depth: (hi >> 16) as u8,
            flags: (hi >> 24) as u8,
        }
    }

    #[inline(always)]
    fn write(self, b: &mut [u64; WORDS], i: usize) {
        b[i] = self.check as u64 | (self.mv as u64) << 32 | (self.score as u16 as u64) << 48;
        let hi = self.eval as u16 as u64 | (self.depth as u64) << 16 | (self.flags as u64) << 24;
        let shift = 32 * (i & 1);
        let w = &mut b[BUCKET + i / 2];
        *w = *w & !(0xffff_ffff << shift) | hi << shift;
    }

    #[inline(always)]
    fn is(&self, check: u32) -> bool {
        self.check == check && self.flags & 3 != 0
    }
}

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
    /// The buckets, [`WORDS`] words each from `start`, the word on a cache line's first byte.
    words: Vec<u64>,
    start: usize,
    buckets: usize,
    generation: u8,
    /// The buckets written since the last clear, which alone it zeroes; `None` once more than
    /// [`written_max`] were (duplicates included): the whole table then. Annotating clears before
    /// every position, and a short search writes few of 16 MB: `pgnkit annotate --nodes 1 --no-cache
    /// -j1` on 800 positions spent 95.6% of its time in memset (`perf record`).
    written: Option<Vec<usize>>,
}

/// The most bucket writes [`TranspositionTable::clear`] zeroes one by one: an eighth of the
/// buckets, whose indices take 1/64 of the table.
fn written_max(buckets: usize) -> usize {
    buckets / 8
}

impl TranspositionTable {
    /// A table of about `mb` megabytes (at least one bucket); aborts when it cannot be allocated.
    pub fn new(mb: usize) -> TranspositionTable {
        TranspositionTable::try_new(mb).unwrap_or_else(|e| panic!("{mb} MB of hash table: {e}"))
    }

    /// [`TranspositionTable::new`], or the allocator's refusal instead of an abort.
    pub fn try_new(mb: usize) -> Result<TranspositionTable, TryReserveError> {
        let buckets = buckets_in(mb);
        let (words, start) = zeroed(buckets)?;
        Ok(TranspositionTable { words, start, buckets, generation: 0, written: Some(Vec::new()) })
    }

    /// Size in megabytes as requested (rounded down to whole buckets).
    pub fn size_mb(&self) -> usize {
        (self.buckets * BUCKET_BYTES) >> 20
    }

    /// Empties the table: zeroes the buckets written since the last clear; past as many writes as
    /// an eighth of the buckets, a large table takes new zeroed memory in place of the old (the
    /// old written over when the allocator refuses a second table for a moment), a small one is
    /// written over.
    pub fn clear(&mut self) {
        self.generation = 0;
        if let Some(written) = self.written.as_mut() {
            for &i in written.iter() {
                let at = self.start + i * WORDS;
                self.words[at..at + WORDS].fill(0);
            }
            written.clear();
            return;
        }
        self.written = Some(Vec::new());
        match (self.words.len() * size_of::<u64>() >= FRESH_FROM).then(|| zeroed(self.buckets)) {
            Some(Ok((words, start))) => (self.words, self.start) = (words, start),
            _ => self.words.fill(0),
        }
    }

    /// Starts a new search: older entries become preferred victims.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 0x3f;
    }

    /// The bucket of `key`.
    #[inline(always)]
    fn bucket(&self, key: u64) -> &[u64; WORDS] {
        let at = self.start + ((key as u128 * self.buckets as u128) >> 64) as usize * WORDS;
        self.words[at..].first_chunk().expect("buckets fit in the words")
    }

    #[inline(always)]
    fn bucket_mut(&mut self, key: u64) -> &mut [u64; WORDS] {
        let index = ((key as u128 * self.buckets as u128) >> 64) as usize;
        if let Some(written) = self.written.as_mut() {
            if written.len() < written_max(self.buckets) {
                written.push(index);
            } else {
                self.written = None;
            }
        }
        let at = self.start + index * WORDS;
        self.words[at..].first_chunk_mut().expect("buckets fit in the words")
    }

    /// Looks `key` up; `ply` converts stored mate distances back to root-relative scores.
    #[inline]
    pub fn probe(&self, key: u64, ply: usize) -> Option<TtHit> {
        let (check, b) = (key as u32, self.bucket(key));
        let e = (0..BUCKET).map(|i| Entry::read(b, i)).find(|e| e.is(check))?;
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
        let b = self.bucket_mut(key);
        let bucket: [Entry; BUCKET] = std::array::from_fn(|i| Entry::read(b, i));
        let slot = match bucket.iter().position(|e| e.is(check)) {
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
                (0..BUCKET).min_by_key(|&i| worth(&bucket[i])).unwrap_or(0)
            }
        };
        let e = &bucket[slot];
        let same = e.is(check);
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
        let e = Entry {
            check,
            mv,
            score: to_tt(score, ply) as i16,
            eval: eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            depth: depth.clamp(0, 255) as u8,
            flags: bound_bits | generation << 2,
        };
        e.write(b, slot);
    }

    /// Permille of the first thousand entries filled in this search (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let mut used = 0u32;
        let mut seen = 0;
        for at in (0..self.buckets.min(1000 / BUCKET)).map(|i| self.start + i * WORDS) {
            let b = self.words[at..].first_chunk().expect("buckets fit in the words");
            for e in (0..BUCKET).map(|i| Entry::read(b, i)) {
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
    (mb.saturating_mul(1 << 20) / BUCKET_BYTES).max(1)
}

/// Zeroed words for `buckets` buckets and the word the first starts at, on a cache line's first
/// byte (a large block from the allocator starts just past one). `vec!` of zeros asks the
/// allocator for zeroed memory (calloc), which takes fresh pages the system zeroes when first
/// touched; it aborts where the allocator refuses, so a reservation (nothing written) asks first.
fn zeroed(buckets: usize) -> Result<(Vec<u64>, usize), TryReserveError> {
    let len = buckets.saturating_mul(WORDS).saturating_add(WORDS - 1);
    Vec::<u64>::new().try_reserve_exact(len)?;
    let words = vec![0u64; len];
    let start = (words.as_ptr().addr().wrapping_neg() % BUCKET_BYTES) / size_of::<u64>();
    Ok((words, start))
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

    /// Each entry of a bucket reads back as written, whatever its neighbours sharing a word hold,
    /// and the first bucket starts a cache line.
    #[test]
    fn entries_pack_into_a_cache_line() {
        let entry = |i: usize, seed: u32| Entry {
            check: 0x8000_0001 ^ seed ^ i as u32,
            mv: 0xf00d - i as u16,
            score: -32_000 + i as i16 + seed as i16,
            eval: -7 - i as i16,
            depth: 250 + i as u8,
            flags: 0xfc | (i as u8 % 3 + 1),
        };
        let mut b = [0u64; WORDS];
        for i in 0..BUCKET {
            entry(i, 0).write(&mut b, i);
        }
        entry(2, 99).write(&mut b, 2);
        for i in 0..BUCKET {
            let seed = if i == 2 { 99 } else { 0 };
            assert_eq!(Entry::read(&b, i), entry(i, seed), "slot {i}");
        }
        assert_eq!(b[WORDS - 2..], [0, 0]);
        for mb in [1, 64] {
            let tt = TranspositionTable::new(mb);
            assert_eq!(tt.words[tt.start..].as_ptr().addr() % BUCKET_BYTES, 0);
            assert!(tt.words.len() >= tt.start + tt.buckets * WORDS);
            assert_eq!(tt.size_mb(), mb);
        }
    }

    /// A clear leaves every word zero, whether it zeroes the buckets written one by one or, past
    /// [`written_max`] writes, the whole table; and the next clear starts counting again.
    #[test]
    fn clear_zeroes_every_written_bucket() {
        let mut tt = TranspositionTable::new(1);
        let max = written_max(tt.buckets);
        let key = |i: usize| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        for writes in [0, 1, 5, max, max + 1, 3 * max] {
            for round in 0..2 {
                for i in 0..writes {
                    let k = key(i + round * writes);
                    tt.store(k, 0, 1 + i as i32 % 9, 7, 3, Bound::Lower, None);
                }
                tt.clear();
                assert!(tt.words.iter().all(|&w| w == 0), "{writes} writes, round {round}");
                assert_eq!(tt.written.as_ref().map(Vec::len), Some(0));
            }
        }
    }
}
