//! `--dedup`: the games already written, across every input of a run, by a 96-bit key of their
//! variant, start position and mainline moves (96 bits of their 128-bit XXH3 digest). With n
//! distinct games the chance that two different ones share a key is about n² / 2⁹⁷: 6 × 10⁻¹²
//! for a billion games, so equal keys are taken as equal games.
//!
//! Memory, per distinct game: its key (12 bytes, in a vector grown by sixteenths), a slot of the
//! index (4 bytes and a control byte in a hash table between 7/16 and 7/8 full), and one bit per
//! game read, which says which games were the first of their key (so a duplicate can name the
//! game it repeats without storing a game number per key): 16.5 to 24.3 bytes in all, the upper
//! figure just after the index doubles. Past the memory at hand the run stops with an error that
//! says how many distinct games it held, rather than being killed.

use hashbrown::HashTable;

use crate::error::Error;

/// A game's key for duplicate detection (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DedupKey(pub [u32; 3]);

impl DedupKey {
    /// The key's own bits as its hash: they are uniformly distributed already.
    fn hash(self) -> u64 {
        u64::from(self.0[0]) | u64::from(self.0[1]) << 32
    }
}

/// Games read bit by bit (1: the first of its key), with the position of every 256th set bit,
/// so the n-th first game's number is found by a short scan.
#[derive(Default)]
struct Firsts {
    words: Vec<u64>,
    len: u64,
    /// Position of set bit 256·i.
    samples: Vec<u64>,
    ones: u64,
}

impl Firsts {
    fn push(&mut self, first: bool) -> Result<(), Error> {
        if self.len.is_multiple_of(64) {
            self.words.try_reserve(1).map_err(|_| out_of_memory(self.ones))?;
            self.words.push(0);
        }
        if first {
            if self.ones.is_multiple_of(256) {
                self.samples.try_reserve(1).map_err(|_| out_of_memory(self.ones))?;
                self.samples.push(self.len);
            }
            self.words[(self.len / 64) as usize] |= 1 << (self.len % 64);
            self.ones += 1;
        }
        self.len += 1;
        Ok(())
    }

    /// The position of set bit `n` (0-based).
    fn select(&self, n: u64) -> u64 {
        let mut at = self.samples[(n / 256) as usize];
        let mut left = n % 256;
        loop {
            let word = self.words[(at / 64) as usize] >> (at % 64);
            let ones = u64::from(word.count_ones());
            if left < ones {
                let mut w = word;
                for _ in 0..left {
                    w &= w - 1;
                }
                return at + u64::from(w.trailing_zeros());
            }
            left -= ones;
            at = (at / 64 + 1) * 64;
        }
    }
}

fn out_of_memory(distinct: u64) -> Error {
    Error::Resource(format!(
        "--dedup: out of memory after {distinct} distinct games (about 24 bytes each); \
         split the input, or run without --dedup"
    ))
}

/// The distinct games of a run, in the order they were first released.
#[derive(Default)]
pub struct Seen {
    keys: Vec<DedupKey>,
    index: HashTable<u32>,
    firsts: Firsts,
}

impl Seen {
    /// An empty set.
    pub fn new() -> Seen {
        Seen::default()
    }

    /// Counts a game read that is not a candidate (rejected, filtered).
    pub fn skip(&mut self) -> Result<(), Error> {
        self.firsts.push(false)
    }

    /// The next game read, with `key`: `None` the first time the key comes, else the ordinal
    /// (0-based, over every game read, skipped ones included) of the game it repeats.
    pub fn insert(&mut self, key: DedupKey) -> Result<Option<u64>, Error> {
        let keys = &self.keys;
        if let Some(&i) = self.index.find(key.hash(), |&i| keys[i as usize] == key) {
            self.firsts.push(false)?;
            return Ok(Some(self.firsts.select(u64::from(i))));
        }
        let i = u32::try_from(self.keys.len()).map_err(|_| out_of_memory(self.keys.len() as u64))?;
        if self.keys.len() == self.keys.capacity() {
            let more = (self.keys.len() / 16).max(1024);
            self.keys.try_reserve_exact(more).map_err(|_| out_of_memory(self.keys.len() as u64))?;
        }
        let keys = &self.keys;
        self.index
            .try_reserve(1, |&i| keys[i as usize].hash())
            .map_err(|_| out_of_memory(self.keys.len() as u64))?;
        self.keys.push(key);
        let keys = &self.keys;
        self.index.insert_unique(key.hash(), i, |&i| keys[i as usize].hash());
        self.firsts.push(true)?;
        Ok(None)
    }

    /// Distinct games held.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// `true` before the first game.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Bytes held, for the memory figure.
    pub fn bytes(&self) -> usize {
        self.keys.capacity() * 12
            + self.index.capacity() * 5
            + self.firsts.words.capacity() * 8
            + self.firsts.samples.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: u32) -> DedupKey {
        let h = (u64::from(i)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        DedupKey([h as u32, (h >> 32) as u32, i])
    }

    #[test]
    fn a_repeat_names_the_game_it_repeats() {
        let mut seen = Seen::new();
        assert_eq!(seen.insert(key(1)).unwrap(), None); // game 0
        seen.skip().unwrap(); // game 1, rejected
        assert_eq!(seen.insert(key(2)).unwrap(), None); // game 2
        assert_eq!(seen.insert(key(1)).unwrap(), Some(0)); // game 3
        assert_eq!(seen.insert(key(2)).unwrap(), Some(2)); // game 4
        assert_eq!(seen.len(), 2);
    }

    #[test]
    fn many_games_with_repeats_far_apart() {
        let mut seen = Seen::new();
        let mut ordinal = 0u64;
        let mut first = std::collections::HashMap::new();
        for round in 0..3u32 {
            for i in 0..20_000u32 {
                if (i + round) % 7 == 0 {
                    seen.skip().unwrap();
                } else {
                    let got = seen.insert(key(i)).unwrap();
                    match first.get(&i) {
                        Some(&o) => assert_eq!(got, Some(o), "game {ordinal} repeats {o}"),
                        None => {
                            assert_eq!(got, None);
                            first.insert(i, ordinal);
                        }
                    }
                }
                ordinal += 1;
            }
        }
        assert_eq!(seen.len(), first.len());
        let per_game = seen.bytes() as f64 / seen.len() as f64;
        assert!(per_game < 30.0, "{per_game} bytes per distinct game");
    }
}
