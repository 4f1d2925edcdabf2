//! The distinct games of a run, in the order they first came: their identities, found by moves
//! key, and which games read were the first of theirs (so a repeat can name the game it
//! repeats without a game number stored per distinct game).

use std::mem::size_of;

use hashbrown::HashTable;

use super::DedupError;
use super::{DedupKey, Identity, Rule, Who};
use crate::pgn::GameResult;

/// Distinct games with one moves key a game is compared with one by one (the latest ones); an
/// older one is found through an index by result and players ([`super::Name::handles`]), so
/// thousands of games sharing a short mainline (`1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#`)
/// between different players keep a run linear.
pub const COMPARED: usize = 64;

/// Older games a game is compared with under one result and handle of each player's name at
/// most, the latest: beyond it, thousands of distinct games that share moves, result and a word
/// of each name (one pair of engines replaying a line round after round) would make a run's time
/// grow as their square. A game compared with only these is counted ([`Seen::compared_in_part`]).
pub const MAY_BE_SAME: usize = 1024;

/// Bytes the index of older games may take before the set is full ([`Seen::full`]).
pub const PLAYERS_HELD: usize = 64 << 20;

/// Distinct games of one moves key a game is compared with at most, the latest: so the games
/// that wait past the set's bound ([`super::late`]) are judged a key at a time in bounded memory
/// however many distinct games share one mainline (`1. e4 e5` between a million pairs of
/// players). A game of a key with more is counted ([`Seen::compared_in_part`]).
pub const OF_ONE_KEY: usize = 1 << 18;

/// No entry.
const NONE: u32 = u32::MAX;

/// Games read bit by bit (1: the first of its identity), with the position of every 256th set
/// bit, so the n-th first game's number is found by a short scan.
#[derive(Default)]
struct Firsts {
    words: Vec<u64>,
    len: u64,
    /// Position of set bit 256·i.
    samples: Vec<u64>,
    ones: u64,
    /// Bytes per distinct game, for the out-of-memory message.
    per_game: usize,
}

impl Firsts {
    fn push(&mut self, first: bool) -> Result<(), DedupError> {
        if self.len.is_multiple_of(64) {
            self.words.try_reserve(1).map_err(|_| out_of_memory(self.ones, self.per_game))?;
            self.words.push(0);
        }
        if first {
            if self.ones.is_multiple_of(256) {
                self.samples.try_reserve(1).map_err(|_| out_of_memory(self.ones, self.per_game))?;
                self.samples.push(self.len);
            }
            self.words[(self.len / 64) as usize] |= 1 << (self.len % 64);
            self.ones += 1;
        }
        self.len += 1;
        Ok(())
    }

    /// Whether game `n` (0-based) was the first of its identity.
    fn get(&self, n: u64) -> bool {
        n < self.len && self.words[(n / 64) as usize] >> (n % 64) & 1 == 1
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

fn out_of_memory(distinct: u64, per_game: usize) -> DedupError {
    DedupError::OutOfMemory { distinct, per_game }
}

/// Reserves room for one more element, growing by sixteenths (at least 1024).
fn grow<T>(v: &mut Vec<T>, distinct: u64, per_game: usize) -> Result<(), DedupError> {
    if v.len() == v.capacity() {
        let more = (v.len() / 16).max(1024);
        v.try_reserve_exact(more).map_err(|_| out_of_memory(distinct, per_game))?;
    }
    Ok(())
}

/// Entries older than the latest [`COMPARED`] of their moves key with one key, result and a
/// handle of each player's name: its newest node ([`Seen::nodes`]).
struct Bucket {
    white: u32,
    black: u32,
    head: u32,
}

impl Bucket {
    /// Its moves key, result and handles, the key and result read from its newest entry.
    fn facts(&self, keys: &[DedupKey], who: &[Who], nodes: &[[u32; 2]]) -> BucketFacts {
        let e = nodes[self.head as usize][0] as usize;
        (keys[e], who[e].result, self.white, self.black)
    }
}

/// What a bucket's entries share: moves key, result, white and black handles.
type BucketFacts = (DedupKey, GameResult, u32, u32);

/// The hash of a bucket.
fn bucket_hash((key, result, white, black): BucketFacts) -> u64 {
    let h = key.hash() ^ (u64::from(white) << 32 | u64::from(black)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    // splitmix64's finish, so that the handles reach the top bits the table's control bytes take.
    let h = (h ^ (h >> 30) ^ result as u64).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// The distinct games of a run under one rule, in the order they first came. Under `moves` a
/// distinct game is its key; under `game` and `prefix` its identity, kept in a list per moves
/// key (newest first), and once older than the latest [`COMPARED`] of its key in buckets by
/// key, result and a handle of each player's name.
pub struct Seen {
    rule: Rule,
    keys: Vec<DedupKey>,
    /// The players, date and result of each (`game`, `prefix`).
    who: Vec<Who>,
    /// The next older entry with the same moves key, or `NONE` (`game`, `prefix`).
    next: Vec<u32>,
    /// Each entry's number among its key's, from 0, modulo 2^32 (`game`, `prefix`).
    rank: Vec<u32>,
    /// The rank of a key's first entry: 0, but for a set of one key that kept only its latest
    /// ([`Seen::keep_latest`]).
    first_rank: u32,
    /// Distinct games of one key a game is compared with ([`OF_ONE_KEY`]).
    of_one_key: usize,
    /// Moves key to its newest entry.
    index: HashTable<u32>,
    /// The buckets of the entries older than the latest [`COMPARED`] of their key (`game`,
    /// `prefix`).
    players: HashTable<Bucket>,
    /// The buckets' lists: an entry, and the next older node of its bucket or `NONE`.
    nodes: Vec<[u32; 2]>,
    firsts: Firsts,
    /// Games compared with only the latest [`MAY_BE_SAME`] of a bucket (kept by [`Seen::clear`]).
    in_part: u64,
}

impl Seen {
    /// An empty set under `rule`.
    pub fn new(rule: Rule) -> Seen {
        let per_game = if rule == Rule::Moves { 24 } else { 84 };
        Seen {
            rule,
            keys: Vec::new(),
            who: Vec::new(),
            next: Vec::new(),
            rank: Vec::new(),
            first_rank: 0,
            of_one_key: OF_ONE_KEY,
            index: HashTable::new(),
            players: HashTable::new(),
            nodes: Vec::new(),
            firsts: Firsts { per_game, ..Firsts::default() },
            in_part: 0,
        }
    }

    /// The rule.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// Counts a game read that is not a candidate (rejected, filtered).
    pub fn skip(&mut self) -> Result<(), DedupError> {
        self.firsts.push(false)
    }

    /// The next game read, with identity `id`: `None` the first time it comes (it becomes the
    /// entry numbered [`Seen::len`] before the call), else the entry it repeats.
    pub fn insert(&mut self, id: &Identity) -> Result<Option<u32>, DedupError> {
        let (found, leaving) = match self.rule {
            Rule::Moves => (self.newest(id.key), None),
            Rule::Game | Rule::Prefix => self.same_game(id),
        };
        if found.is_some() {
            self.firsts.push(false)?;
            return Ok(found);
        }
        self.add(id, leaving)?;
        self.firsts.push(true)?;
        Ok(None)
    }

    /// The newest entry with moves key `key`.
    fn newest(&self, key: DedupKey) -> Option<u32> {
        let keys = &self.keys;
        self.index.find(key.hash(), |&i| keys[i as usize] == key).copied()
    }

    /// The entry `id` repeats: the oldest with its moves key that is the same game. Also the
    /// entry that leaves the latest [`COMPARED`] of the key when `id` is added.
    fn same_game(&mut self, id: &Identity) -> (Option<u32>, Option<u32>) {
        let (mut newest, mut oldest, mut seen, mut found) = (None, None, 0, None);
        for e in self.with_key(id.key) {
            newest = newest.or(Some(e));
            (oldest, seen) = (Some(e), seen + 1);
            if self.who[e as usize].same_game(&id.who) {
                found = Some(e);
            }
        }
        let Some(oldest) = oldest.filter(|_| seen == COMPARED) else { return (found, None) };
        if self.next[oldest as usize] != NONE {
            let newest = newest.map_or(0, |e| self.rank[e as usize]);
            let (older, in_part) = self.same_game_older(id, newest);
            self.in_part += u64::from(in_part);
            if older.is_some() {
                return (older, None);
            }
        }
        (found, Some(oldest))
    }

    /// The oldest entry older than the latest [`COMPARED`] of `id`'s moves key that is the same
    /// game: one among the latest [`MAY_BE_SAME`] of a bucket of `id`'s key, result and
    /// handles, and among the latest [`OF_ONE_KEY`] of the key (whose newest has rank
    /// `newest`); and whether it was compared in part: the key has more than those, or some
    /// bucket held more of them.
    fn same_game_older(&self, id: &Identity, newest: u32) -> (Option<u32>, bool) {
        // Every entry is among the latest of a key with fewer.
        let crowded = newest as usize >= self.of_one_key;
        let latest =
            |e: u32| !crowded || (newest.wrapping_sub(self.rank[e as usize]) as usize) < self.of_one_key;
        let [white, black] = id.who.players.map(|n| n.handles());
        let (mut found, mut in_part): (Option<u32>, bool) = (None, false);
        for &w in white.iter() {
            for &b in black.iter() {
                let Some(bucket) = self.bucket((id.key, id.who.result, w, b)) else { continue };
                let mut n = bucket.head;
                for _ in 0..MAY_BE_SAME {
                    if n == NONE {
                        break;
                    }
                    let [e, next] = self.nodes[n as usize];
                    if !latest(e) {
                        // A bucket's nodes go from newer to older entries.
                        n = NONE;
                        break;
                    }
                    if found.is_none_or(|f| e < f) && self.who[e as usize].same_game(&id.who) {
                        found = Some(e);
                    }
                    n = next;
                }
                in_part |= n != NONE && latest(self.nodes[n as usize][0]);
            }
        }
        (found, in_part || crowded)
    }

    /// The bucket of these moves key, result and handles.
    fn bucket(&self, facts: BucketFacts) -> Option<&Bucket> {
        let (keys, who, nodes) = (&self.keys, &self.who, &self.nodes);
        self.players.find(bucket_hash(facts), |b| b.facts(keys, who, nodes) == facts)
    }

    /// The latest [`COMPARED`] entries with moves key `key`, newest first.
    pub fn with_key(&self, key: DedupKey) -> impl Iterator<Item = u32> + '_ {
        let next = &self.next;
        std::iter::successors(self.newest(key), move |&e| Some(next[e as usize]).filter(|&n| n != NONE))
            .take(COMPARED)
    }

    /// Every entry with moves key `key`, newest first (one at most under `moves`).
    pub fn all_with_key(&self, key: DedupKey) -> impl Iterator<Item = u32> + '_ {
        let next = &self.next;
        std::iter::successors(self.newest(key), move |&e| {
            next.get(e as usize).copied().filter(|&n| n != NONE)
        })
    }

    /// Empties the set, keeping its room (for a set reused group after group) and its count of
    /// games compared in part.
    pub fn clear(&mut self) {
        let Seen { keys, who, next, rank, first_rank, index, players, nodes, firsts, .. } = self;
        rank.clear();
        *first_rank = 0;
        for v in [&mut firsts.words, &mut firsts.samples] {
            v.clear();
        }
        (firsts.len, firsts.ones) = (0, 0);
        keys.clear();
        who.clear();
        next.clear();
        index.clear();
        players.clear();
        nodes.clear();
    }

    /// Adds `id` as a new entry; `leaving` leaves the latest of its key.
    fn add(&mut self, id: &Identity, leaving: Option<u32>) -> Result<(), DedupError> {
        let (rule, distinct, per_game) = (self.rule, self.keys.len() as u64, self.firsts.per_game);
        let oom = || out_of_memory(distinct, per_game);
        let i = u32::try_from(self.keys.len()).ok().filter(|&i| i != NONE).ok_or_else(oom)?;
        grow(&mut self.keys, distinct, per_game)?;
        let Seen { keys, who, next, rank, first_rank, index, .. } = self;
        index.try_reserve(1, |&e| keys[e as usize].hash()).map_err(|_| oom())?;
        if rule == Rule::Moves {
            keys.push(id.key);
            index.insert_unique(id.key.hash(), i, |&e| keys[e as usize].hash());
            return Ok(());
        }
        grow(who, distinct, per_game)?;
        grow(next, distinct, per_game)?;
        grow(rank, distinct, per_game)?;
        let older = match index.find_mut(id.key.hash(), |&e| keys[e as usize] == id.key) {
            Some(newest) => std::mem::replace(newest, i),
            None => NONE,
        };
        keys.push(id.key);
        who.push(id.who);
        next.push(older);
        rank.push(if older == NONE { *first_rank } else { rank[older as usize].wrapping_add(1) });
        if older == NONE {
            index.insert_unique(id.key.hash(), i, |&e| keys[e as usize].hash());
        }
        if let Some(e) = leaving {
            self.index_older(e)?;
        }
        Ok(())
    }

    /// Puts entry `e`, leaving the latest [`COMPARED`] of its key, in its buckets.
    fn index_older(&mut self, e: u32) -> Result<(), DedupError> {
        let (distinct, per_game) = (self.keys.len() as u64, self.firsts.per_game);
        let Seen { keys, who, players, nodes, .. } = self;
        let (key, facts) = (keys[e as usize], &who[e as usize]);
        let [white, black] = facts.players.map(|n| n.handles());
        for &w in white.iter() {
            for &b in black.iter() {
                let n = u32::try_from(nodes.len()).ok().filter(|&n| n != NONE);
                let n = n.ok_or_else(|| out_of_memory(distinct, per_game))?;
                grow(nodes, distinct, per_game)?;
                let bucket = (key, facts.result, w, b);
                let hash = bucket_hash(bucket);
                if let Some(x) = players.find_mut(hash, |x| x.facts(keys, who, nodes) == bucket) {
                    nodes.push([e, std::mem::replace(&mut x.head, n)]);
                    continue;
                }
                let rehash = |x: &Bucket| bucket_hash(x.facts(keys, who, nodes));
                players.try_reserve(1, rehash).map_err(|_| out_of_memory(distinct, per_game))?;
                nodes.push([e, NONE]);
                let rehash = |x: &Bucket| bucket_hash(x.facts(keys, who, nodes));
                players.insert_unique(hash, Bucket { white: w, black: b, head: n }, rehash);
            }
        }
        Ok(())
    }

    /// For a set of one moves key's games: once it holds twice [`OF_ONE_KEY`] of them, keeps
    /// the latest [`OF_ONE_KEY`] alone, and returns how many older ones it forgot (the entries
    /// kept are numbered from 0 again, in their order). No later game is compared with those
    /// forgotten, so every verdict is the one the whole set gives.
    pub fn keep_latest(&mut self) -> Result<usize, DedupError> {
        let n = self.len();
        if n < 2 * self.of_one_key {
            return Ok(0);
        }
        let from = n - self.of_one_key;
        let mut kept = self.like();
        kept.first_rank = self.rank[from];
        for e in from..n {
            // Each was distinct from the older ones it was compared with, and is again.
            kept.insert(&self.identity(e as u32))?;
        }
        kept.in_part = self.in_part;
        *self = kept;
        Ok(from)
    }

    /// An empty set under `rule` comparing a game with the latest `n` games of its key (at
    /// least [`COMPARED`]; [`OF_ONE_KEY`] but in tests of the bound).
    pub fn comparing_latest(rule: Rule, n: usize) -> Seen {
        assert!(n >= COMPARED);
        Seen { of_one_key: n, ..Seen::new(rule) }
    }

    /// An empty set of this one's rule and bounds.
    pub fn like(&self) -> Seen {
        Seen { of_one_key: self.of_one_key, ..Seen::new(self.rule) }
    }

    /// For an empty set of one moves key: its first entry takes rank `rank` ([`Seen::rank`]),
    /// so that a set seeded with the latest of another's entries of the key compares as that one.
    pub fn starting_at(&mut self, rank: u32) {
        debug_assert!(self.is_empty());
        self.first_rank = rank;
    }

    /// Entry `e`'s number among its key's, from 0 (modulo 2^32; 0 under `moves`).
    pub fn rank(&self, e: u32) -> u32 {
        self.rank.get(e as usize).copied().unwrap_or(0)
    }

    /// Distinct games of one key a game is compared with ([`OF_ONE_KEY`]).
    pub fn of_one_key(&self) -> usize {
        self.of_one_key
    }

    /// The moves key of entry `e`.
    pub fn key(&self, e: u32) -> DedupKey {
        self.keys[e as usize]
    }

    /// The identity of entry `e` (its players, date and result unknown under `moves`).
    pub fn identity(&self, e: u32) -> Identity {
        let who = self.who.get(e as usize).copied().unwrap_or_default();
        Identity { key: self.key(e), who, occasion: Default::default() }
    }

    /// The players, date and result of entry `e` (`game` and `prefix` rules).
    pub fn who(&self, e: u32) -> &Who {
        &self.who[e as usize]
    }

    /// The ordinal (0-based, over every game read, skipped ones included) of entry `e`'s game.
    pub fn first_game(&self, e: u32) -> u64 {
        self.firsts.select(u64::from(e))
    }

    /// Whether game `n` read (0-based) was the first of its identity.
    pub fn is_first(&self, n: u64) -> bool {
        self.firsts.get(n)
    }

    /// Games read.
    pub fn read(&self) -> u64 {
        self.firsts.len
    }

    /// Distinct games held.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether later games wait for their verdicts ([`super::late`]): the set holds `held`
    /// distinct games or more, or its index of older games [`PLAYERS_HELD`] bytes, or, under
    /// `prefix`, from the first game (the longest record may come last).
    pub fn full(&self, held: usize) -> bool {
        self.rule == Rule::Prefix || self.len() >= held || self.players_bytes() >= PLAYERS_HELD
    }

    /// Games compared with only the latest [`MAY_BE_SAME`] of the older games that may be the
    /// same game (of one moves key, result and handle of each name), since the set was made.
    pub fn compared_in_part(&self) -> u64 {
        self.in_part
    }

    /// Bytes of the index of older games.
    fn players_bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<[u32; 2]>()
            // A table holds 7/8 of its buckets; each is a bucket and a control byte.
            + self.players.capacity() * 8 / 7 * (size_of::<Bucket>() + 1)
    }

    /// `true` before the first game.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Bytes held, for the memory figure.
    pub fn bytes(&self) -> usize {
        self.keys.capacity() * size_of::<DedupKey>()
            + self.who.capacity() * size_of::<Who>()
            + (self.next.capacity() + self.rank.capacity()) * size_of::<u32>()
            // A table holds 7/8 of its buckets; each is an index and a control byte.
            + self.index.capacity() * 8 / 7 * (size_of::<u32>() + 1)
            + self.players_bytes()
            + (self.firsts.words.capacity() + self.firsts.samples.capacity()) * size_of::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Date, Name};
    use super::*;
    use crate::pgn::GameResult;

    fn key(i: u32) -> DedupKey {
        let h = (u64::from(i)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        DedupKey([h as u32, (h >> 32) as u32, i])
    }

    fn id(k: u32, white: &str, black: &str, date: &str) -> Identity {
        let who = Who {
            players: [Name::of(white), Name::of(black)],
            date: Date::of(date),
            result: GameResult::Draw,
            ..Who::default()
        };
        Identity { key: key(k), who, occasion: Default::default() }
    }

    #[test]
    fn a_repeat_names_the_game_it_repeats() {
        for rule in [Rule::Moves, Rule::Game] {
            let mut seen = Seen::new(rule);
            let plain = |k| Identity { key: key(k), who: Who::default(), occasion: Default::default() };
            assert_eq!(seen.insert(&plain(1)).unwrap(), None); // game 0
            seen.skip().unwrap(); // game 1, rejected
            assert_eq!(seen.insert(&plain(2)).unwrap(), None); // game 2
            assert_eq!(seen.insert(&plain(1)).unwrap(), Some(0)); // game 3
            assert_eq!(seen.insert(&plain(2)).unwrap(), Some(1)); // game 4
            assert_eq!((seen.first_game(0), seen.first_game(1)), (0, 2));
            assert!(seen.is_first(2) && !seen.is_first(3) && !seen.is_first(1));
            assert_eq!(seen.len(), 2);
        }
    }

    #[test]
    fn the_game_rule_keeps_other_players_with_the_same_moves() {
        let mut seen = Seen::new(Rule::Game);
        assert_eq!(seen.insert(&id(7, "Nakamura, Hikaru", "Carlsen, Magnus", "2020.??.??")).unwrap(), None);
        assert_eq!(
            seen.insert(&id(7, "Nepomniachtchi, Ian", "Karjakin, Sergey", "2020.??.??")).unwrap(),
            None
        );
        assert_eq!(seen.insert(&id(7, "Hikaru Nakamura", "Magnus Carlsen", "2020.05.01")).unwrap(), Some(0));
        assert_eq!(
            seen.insert(&id(7, "Nepomniachtchi, Ian", "Karjakin, Sergey", "2020.??.??")).unwrap(),
            Some(1)
        );
        assert_eq!(seen.insert(&id(8, "Nakamura, Hikaru", "Carlsen, Magnus", "2020.??.??")).unwrap(), None);
        let mut moves = Seen::new(Rule::Moves);
        for i in [7, 7, 7] {
            moves.insert(&id(i, "a", "b", "")).unwrap();
        }
        assert_eq!(moves.len(), 1, "the moves rule compares the moves alone");
    }

    /// A game older than the latest [`COMPARED`] of its moves key is found as any other: spelt
    /// otherwise, on a date less known, the oldest of those it repeats.
    #[test]
    fn a_repeat_of_an_old_game_is_found_however_many_games_came_between() {
        let mut seen = Seen::new(Rule::Game);
        for p in 0..1000 {
            assert_eq!(seen.insert(&id(3, &format!("Player{p}"), "Bot", "")).unwrap(), None);
        }
        assert_eq!(seen.with_key(key(3)).count(), COMPARED);
        assert_eq!(seen.insert(&id(3, "Player0", "Bot", "")).unwrap(), Some(0), "an exact repeat");
        assert_eq!(seen.insert(&id(3, "Player999", "Bot", "2024.??.??")).unwrap(), Some(999), "a recent one");
        assert_eq!(
            seen.insert(&id(3, "Player1", "Bot", "2024.??.??")).unwrap(),
            Some(1),
            "an old one, not equal"
        );
        assert_eq!(
            seen.insert(&id(3, "Player1, A.", "Bot", "2024.01.01")).unwrap(),
            Some(1),
            "spelt otherwise"
        );
        assert_eq!(
            seen.insert(&id(3, "Player1", "Botvinnik", "2024.??.??")).unwrap(),
            None,
            "another player"
        );
        // Two games of one key, then many, then one matching both: the oldest is named.
        let mut seen = Seen::new(Rule::Game);
        seen.insert(&id(5, "Carlsen, Magnus", "Nakamura, Hikaru", "2022.01.20")).unwrap();
        seen.insert(&id(5, "Carlsen, Henrik", "Nakamura, Hikaru", "2022.01.20")).unwrap();
        for p in 0..3 * COMPARED {
            seen.insert(&id(5, &format!("Player{p}"), "Nakamura, Hikaru", "2022.01.20")).unwrap();
        }
        seen.insert(&id(5, "Carlsen, Magnus", "Nakamura, Hikaru", "2022.01.21")).unwrap();
        let both = id(5, "Carlsen", "Nakamura, H.", "2022.??.??");
        assert_eq!(seen.insert(&both).unwrap(), Some(0));
        assert_eq!(seen.insert(&id(5, "H Carlsen", "Nakamura", "2022.01.??")).unwrap(), Some(1));
        assert_eq!(
            seen.insert(&id(5, "M Carlsen", "Nakamura", "2022.01.21")).unwrap(),
            Some(2 + 3 * COMPARED as u32)
        );
        // Names with no word: the same initials, or none.
        for p in 0..2 * COMPARED {
            assert_eq!(seen.insert(&id(5, "?", "?", &format!("{}.01.01", 1900 + p))).unwrap(), None);
        }
        let first = 3 + 3 * COMPARED as u32;
        assert_eq!(seen.insert(&id(5, "", "-", "1900.01.01")).unwrap(), Some(first));
        assert_eq!(seen.insert(&id(5, "N.N.", "?", "1900.01.01")).unwrap(), None);
    }

    /// Distinct games that share moves, result and every word of the players' names: a game is
    /// compared with the latest [`MAY_BE_SAME`] of them, and counted when there were more.
    #[test]
    fn a_crowd_of_games_no_name_tells_apart_is_compared_with_its_latest_and_counted() {
        let mut seen = Seen::new(Rule::Game);
        let date = |d: usize| format!("{}.{:02}.{:02}", 1000 + d / 300, 1 + d / 28 % 12, 1 + d % 28);
        let crowd = COMPARED + MAY_BE_SAME + 10;
        for d in 0..crowd {
            assert_eq!(seen.insert(&id(4, "Bot", "Engine", &date(d))).unwrap(), None);
        }
        // A game is compared one by one with the latest COMPARED, through the index with the rest.
        let (counted, past) = (seen.compared_in_part(), (crowd - COMPARED - MAY_BE_SAME - 1) as u64);
        assert_eq!(counted, past, "each game with more than MAY_BE_SAME older ones");
        let recent = crowd - COMPARED - 1;
        assert_eq!(seen.insert(&id(4, "Bot", "Engine", &date(recent))).unwrap(), Some(recent as u32));
        assert_eq!(seen.insert(&id(4, "Bot", "Engine", &date(0))).unwrap(), None, "past the bound");
        assert_eq!(seen.compared_in_part(), counted + 2);
        // A word of its own finds the oldest game however crowded the others are.
        seen.insert(&id(5, "Bot Alpha", "Engine", &date(0))).unwrap();
        for d in 1..crowd {
            seen.insert(&id(5, "Bot", "Engine", &date(d))).unwrap();
        }
        assert_eq!(seen.insert(&id(5, "Alpha", "Engine", &date(0))).unwrap(), Some(crowd as u32 + 1));
        seen.clear();
        assert_eq!(seen.compared_in_part(), counted + 2 + past, "kept by clear");
    }

    #[test]
    fn many_games_with_repeats_far_apart() {
        for (rule, most) in [(Rule::Moves, 25.0), (Rule::Game, 84.0)] {
            let mut seen = Seen::new(rule);
            let mut ordinal = 0u64;
            let mut first = std::collections::HashMap::new();
            for round in 0..3u32 {
                for i in 0..20_000u32 {
                    if (i + round) % 7 == 0 {
                        seen.skip().unwrap();
                    } else {
                        let got = seen.insert(&id(i, "White", "Black", "2024.01.01")).unwrap();
                        match first.get(&i) {
                            Some(&(o, e)) => {
                                assert_eq!(got, Some(e), "game {ordinal} repeats {o}");
                                assert_eq!(seen.first_game(e), o);
                            }
                            None => {
                                assert_eq!(got, None);
                                first.insert(i, (ordinal, seen.len() as u32 - 1));
                            }
                        }
                    }
                    ordinal += 1;
                }
            }
            assert_eq!(seen.len(), first.len());
            let per_game = seen.bytes() as f64 / seen.len() as f64;
            assert!(per_game < most, "{rule:?}: {per_game} bytes per distinct game");
        }
    }
}
