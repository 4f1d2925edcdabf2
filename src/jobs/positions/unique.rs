//! `--unique`: the positions already written, across chunks and inputs, kept on the releasing
//! thread so deduplicated output is the same at any thread count.

use std::collections::HashSet;
use std::ops::Range;

use super::RecordKey;
use crate::chess::PackedKey;
use crate::chess::zobrist::MixedMap;

/// The positions already written, across chunks and inputs, for `--unique`. Keyed by Zobrist
/// key, checked against the packed position; a different position with the same key goes to a
/// side set, so the result is exact. It holds at most its `room` of positions (about 56 to 112
/// bytes each: a bucket of 48 bytes and its control byte in a table between 7/16 and 7/8 full);
/// past that the writer decides the rest on disk ([`super::deferred`]).
pub struct Unique {
    seen: MixedMap<PackedKey>,
    collisions: HashSet<PackedKey>,
    room: usize,
}

/// What a [`Unique`] set makes of a position offered to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offered {
    /// Seen for the first time, and now held.
    New,
    /// Held already.
    Repeat,
    /// Not held, and the set is full: whether it is new is decided elsewhere.
    Undecided,
}

/// What [`Unique::filter`] made of a chunk's records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Filtered {
    /// Records kept.
    pub kept: u64,
    /// The first record left undecided because the set was full (it and those after it).
    pub stopped: Option<usize>,
}

impl Default for Unique {
    fn default() -> Unique {
        Unique::new()
    }
}

impl Unique {
    /// An empty set with no bound.
    pub fn new() -> Unique {
        Unique::holding(usize::MAX)
    }

    /// An empty set that holds at most `room` positions.
    pub fn holding(room: usize) -> Unique {
        Unique { seen: MixedMap::default(), collisions: HashSet::new(), room }
    }

    /// `true` the first time the position (`hash`, `key`) is seen; inserts it whatever the room.
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

    /// What the set makes of the position (`hash`, `key`): held from now on if it is new and the
    /// set has room.
    pub fn offer(&mut self, hash: u64, key: &PackedKey) -> Offered {
        if !self.is_full() {
            return if self.insert(hash, key) { Offered::New } else { Offered::Repeat };
        }
        if self.contains(hash, key) { Offered::Repeat } else { Offered::Undecided }
    }

    /// Whether the position (`hash`, `key`) is held.
    pub fn contains(&self, hash: u64, key: &PackedKey) -> bool {
        match self.seen.get(&hash) {
            None => false,
            Some(k) => k == key || self.collisions.contains(key),
        }
    }

    /// Whether the set holds its room.
    pub fn is_full(&self) -> bool {
        self.len() >= self.room
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
    /// range of bytes or rows of each run of adjacent kept records), in order, until a new
    /// position finds the set full. The chunk must have been made with
    /// [`PositionsOptions::unique`](super::PositionsOptions::unique).
    pub fn filter<E>(
        &mut self,
        keys: &[RecordKey],
        write: impl FnMut(Range<usize>) -> Result<(), E>,
    ) -> Result<Filtered, E> {
        self.filter_keyed(keys, write, |_, _| {})
    }

    /// [`Unique::filter`], also passing each record kept and its length (bytes or rows) to
    /// `kept_key` (a shard's keys part, [`crate::jobs::keys`]).
    pub fn filter_keyed<E>(
        &mut self,
        keys: &[RecordKey],
        mut write: impl FnMut(Range<usize>) -> Result<(), E>,
        mut kept_key: impl FnMut(&RecordKey, usize),
    ) -> Result<Filtered, E> {
        let (mut kept, mut run_start, mut start, mut stopped) = (0, 0, 0, None);
        for (i, r) in keys.iter().enumerate() {
            let new = match self.offer(r.hash, &r.key) {
                Offered::New => true,
                Offered::Repeat => false,
                Offered::Undecided => {
                    stopped = Some(i);
                    break;
                }
            };
            if new {
                kept += 1;
                kept_key(r, r.end - start);
            } else {
                if run_start < start {
                    write(run_start..start)?;
                }
                run_start = r.end;
            }
            start = r.end;
        }
        if run_start < start {
            write(run_start..start)?;
        }
        Ok(Filtered { kept, stopped })
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
        assert!(u.contains(7, &a) && u.contains(7, &b) && u.contains(8, &a));
        assert!(!u.contains(9, &a));
    }

    #[test]
    fn a_full_set_stops_at_the_first_new_position() {
        let start = Position::default();
        let mut moved = Position::default();
        moved.play_null().expect("not in check");
        let record = |pos: &Position, end| RecordKey { hash: pos.zobrist(), key: PackedKey::of(pos), end };
        // Records of 10 bytes: start, start, moved, start.
        let keys = [record(&start, 10), record(&start, 20), record(&moved, 30), record(&start, 40)];
        let mut u = Unique::holding(1);
        let mut written = Vec::new();
        let f = u
            .filter(&keys, |r| {
                written.push((r.start, r.end));
                Ok::<_, ()>(())
            })
            .expect("writes");
        assert_eq!(f, Filtered { kept: 1, stopped: Some(2) });
        assert_eq!(written, [(0, 10)]);
        assert!(u.is_full());
        let mut all = Unique::new();
        let f = all.filter(&keys, |_| Ok::<_, ()>(())).expect("writes");
        assert_eq!(f, Filtered { kept: 2, stopped: None });
    }
}
