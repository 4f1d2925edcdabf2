//! `--unique`: the positions already written, across chunks and inputs, kept on the releasing
//! thread so deduplicated output is the same at any thread count.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use std::ops::Range;

use super::RecordKey;
use crate::chess::PackedKey;

/// Zobrist keys are already uniformly mixed: hash them as they are.
#[derive(Default, Clone, Copy)]
struct ZobristHasher(u64);

impl Hasher for ZobristHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// The positions already written, across chunks and inputs, for `--unique`. Keyed by Zobrist
/// key, checked against the packed position; a different position with the same key goes to a
/// side set, so the result is exact. Memory grows with the number of distinct positions only.
#[derive(Default)]
pub struct Unique {
    seen: HashMap<u64, PackedKey, BuildHasherDefault<ZobristHasher>>,
    collisions: HashSet<PackedKey>,
}

impl Unique {
    /// An empty set.
    pub fn new() -> Unique {
        Unique::default()
    }

    /// `true` the first time the position (`hash`, `key`) is seen.
    pub fn insert(&mut self, hash: u64, key: &PackedKey) -> bool {
        match self.seen.get(&hash) {
            None => {
                self.seen.insert(hash, key.clone());
                true
            }
            Some(k) if k == key => false,
            Some(_) => self.collisions.insert(key.clone()),
        }
    }

    /// Distinct positions seen.
    pub fn len(&self) -> usize {
        self.seen.len() + self.collisions.len()
    }

    /// `true` before the first position.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Passes the records of a chunk whose `keys` are seen for the first time to `write` (as the
    /// range of bytes or rows of each run of adjacent kept records), in order; returns how many
    /// were kept. The chunk must have been made with
    /// [`PositionsOptions::unique`](super::PositionsOptions::unique).
    pub fn filter<E>(
        &mut self,
        keys: &[RecordKey],
        write: impl FnMut(Range<usize>) -> Result<(), E>,
    ) -> Result<u64, E> {
        self.filter_keyed(keys, write, |_, _| {})
    }

    /// [`Unique::filter`], also passing each record kept and its length (bytes or rows) to
    /// `kept_key` (a shard's keys part, [`crate::jobs::keys`]).
    pub fn filter_keyed<E>(
        &mut self,
        keys: &[RecordKey],
        mut write: impl FnMut(Range<usize>) -> Result<(), E>,
        mut kept_key: impl FnMut(&RecordKey, usize),
    ) -> Result<u64, E> {
        let (mut kept, mut run_start, mut start) = (0, 0, 0);
        for r in keys {
            if !self.insert(r.hash, &r.key) {
                if run_start < start {
                    write(run_start..start)?;
                }
                run_start = r.end;
            } else {
                kept += 1;
                kept_key(r, r.end - start);
            }
            start = r.end;
        }
        if run_start < start {
            write(run_start..start)?;
        }
        Ok(kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;

    #[test]
    fn unique_survives_zobrist_collisions() {
        let mut u = Unique::new();
        let a = PackedKey::of(&Position::default());
        let mut b_pos = Position::default();
        b_pos.play_null().expect("not in check");
        let b = PackedKey::of(&b_pos);
        assert!(u.insert(7, &a));
        assert!(!u.insert(7, &a));
        assert!(u.insert(7, &b), "same hash, other position");
        assert!(!u.insert(7, &b));
        assert!(u.insert(8, &a), "other hash: a different position for the set");
        assert_eq!(u.len(), 3);
    }
}
