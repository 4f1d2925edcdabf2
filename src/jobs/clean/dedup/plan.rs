//! `--dedup=prefix`: which games are shorter records of a longer one (the rule is in
//! [`super`]), decided before anything is written. The first pass reads every input and keeps
//! every distinct game (the `game` rule's table), the game each repeat repeats, and for each game
//! the games already kept whose mainline is a prefix of its own; the writing pass reads the
//! inputs again, and each game also finds the games after it that are prefixes of its own,
//! before they come. So a shorter record is set aside wherever it stands, and the longest record
//! is named as the one kept.
//!
//! A game's mainline is looked up at every ply (the key of each prefix: a chain of XXH3-128
//! digests, each of the previous one and the move), among the latest [`COMPARED`] distinct
//! games of that key. Memory beyond the `game` rule's: 12 bytes per distinct game (its `Event`,
//! `Site` and `Round`), 4 per repeat, 14 to 26 per shorter record. Time: every input read and
//! replayed twice (the first pass writes nothing) and the look-ups, 2.3 times the CPU time of
//! `--dedup=game` over 35,009 master games (docs/performance.md). Inputs must be files: a
//! stream such as stdin cannot be read again, which the command line says before it starts.
//!
//! [`COMPARED`]: super::seen::COMPARED

use std::collections::HashMap;

use super::DedupError;
use super::seen::Seen;
use super::{DedupKey, Identity, Occasion, Repeat, Rule};
use crate::pgn::GameResult;

/// The decisions of the first pass, applied by the writing pass.
pub struct Plan {
    seen: Seen,
    /// The entry each repeat repeats, in the order the repeats come.
    repeats: Vec<u32>,
    /// Each entry's occasion.
    occasions: Vec<Occasion>,
    /// For each entry that is a shorter record: the entry of the longest game it is a prefix
    /// of, and that game's plies and whether it has a result.
    longer: HashMap<u32, (u32, (u32, bool))>,
    /// Each input of the first pass and the ordinal of its first game.
    inputs: Vec<(String, u64)>,
    /// The writing pass: games read, entries met, repeats met.
    read: u64,
    entries: u32,
    repeated: usize,
}

impl Default for Plan {
    fn default() -> Plan {
        Plan::new()
    }
}

impl Plan {
    /// An empty plan, for the first pass.
    pub fn new() -> Plan {
        Plan {
            seen: Seen::new(Rule::Prefix),
            repeats: Vec::new(),
            occasions: Vec::new(),
            longer: HashMap::new(),
            inputs: Vec::new(),
            read: 0,
            entries: 0,
            repeated: 0,
        }
    }

    /// First pass: an input starts.
    pub fn begin_input(&mut self, name: &str) {
        self.inputs.push((name.to_string(), self.seen.read()));
    }

    /// Each input of the first pass and the ordinal of its first game.
    pub fn inputs(&self) -> &[(String, u64)] {
        &self.inputs
    }

    /// First pass: the next game read, with its identity and the keys of its mainline's
    /// prefixes (one per ply, the last its own key) when it is a candidate.
    pub fn survey(&mut self, game: Option<(&Identity, &[DedupKey])>) -> Result<(), DedupError> {
        let Some((id, prefixes)) = game else { return self.seen.skip() };
        match self.seen.insert(id)? {
            Some(e) => {
                self.repeats.try_reserve(1).map_err(|_| self.out_of_memory())?;
                self.repeats.push(e);
            }
            None => {
                self.occasions.try_reserve(1).map_err(|_| self.out_of_memory())?;
                self.occasions.push(id.occasion);
                let x = self.seen.len() as u32 - 1;
                self.shorter(x, prefixes, |e| e < x)?;
            }
        }
        Ok(())
    }

    /// Marks the entries `only` allows that are shorter records of entry `x`, whose prefixes'
    /// keys are `prefixes`.
    fn shorter(
        &mut self,
        x: u32,
        prefixes: &[DedupKey],
        only: impl Fn(u32) -> bool,
    ) -> Result<(), DedupError> {
        let (who, occasion) = (*self.seen.who(x), self.occasions[x as usize]);
        let plies = prefixes.len() as u32;
        // The longest game, one with a result before one without, the first of those.
        let rank = (plies, who.result != GameResult::Unknown);
        for (i, &key) in prefixes.iter().enumerate() {
            let same_length = i + 1 == prefixes.len();
            for e in self.seen.with_key(key) {
                if e == x
                    || !only(e)
                    || !self.seen.who(e).shorter_record_of(&who, same_length)
                    || !self.occasions[e as usize].compatible(occasion)
                {
                    continue;
                }
                let better = |&(by, r): &(u32, (u32, bool))| rank > r || (rank == r && x < by);
                if self.longer.get(&e).is_none_or(better) {
                    self.longer.try_reserve(1).map_err(|_| out_of_memory(self.seen.len()))?;
                    self.longer.insert(e, (x, rank));
                }
            }
        }
        Ok(())
    }

    fn out_of_memory(&self) -> DedupError {
        out_of_memory(self.seen.len())
    }

    /// Writing pass: what becomes of the next game read (see [`Plan::survey`]); `input` and
    /// `game` name it in the error when the input is not what the first pass read.
    pub fn decide(
        &mut self,
        game: Option<(&Identity, &[DedupKey])>,
        input: &str,
        number: u64,
    ) -> Result<Option<Repeat>, DedupError> {
        let n = self.read;
        self.read += 1;
        let changed = || DedupError::GameChanged { input: input.to_string(), game: number };
        let first = self.seen.is_first(n);
        let Some((id, prefixes)) = game else {
            return if first { Err(changed()) } else { Ok(None) };
        };
        let entry = if first {
            let x = self.entries;
            self.entries += 1;
            if x as usize >= self.seen.len() || self.seen.key(x) != id.key {
                return Err(changed());
            }
            self.shorter(x, prefixes, |e| e > x)?;
            x
        } else {
            let Some(&e) = self.repeats.get(self.repeated) else { return Err(changed()) };
            self.repeated += 1;
            if self.seen.key(e) != id.key {
                return Err(changed());
            }
            e
        };
        Ok(match self.longer.get(&entry) {
            Some(&(by, _)) => Some(Repeat { rule: Rule::Prefix, of: self.seen.first_game(by) }),
            None if !first => Some(Repeat { rule: Rule::Game, of: self.seen.first_game(entry) }),
            None => None,
        })
    }

    /// Writing pass, at its end: whether it read every game of the first pass.
    pub fn complete(&self) -> bool {
        self.read == self.seen.read()
            && self.entries as usize == self.seen.len()
            && self.repeated == self.repeats.len()
    }

    /// Bytes held, for the memory figure.
    pub fn bytes(&self) -> usize {
        self.seen.bytes()
            + self.repeats.capacity() * size_of::<u32>()
            + self.occasions.capacity() * size_of::<Occasion>()
            + self.longer.capacity() * (size_of::<(u32, (u32, (u32, bool)))>() + 1)
    }
}

fn out_of_memory(distinct: usize) -> DedupError {
    DedupError::PlanOutOfMemory { distinct }
}

#[cfg(test)]
mod tests {
    use super::super::{Date, Name, Who};
    use super::*;
    use crate::pgn::GameResult::{self, *};

    /// A game between `white` and `black`, ending in `result`, whose mainline is `moves`
    /// (letters standing for moves, each prefix its own key).
    fn game(white: &str, black: &str, moves: &str, result: GameResult) -> (Identity, Vec<DedupKey>) {
        let prefixes: Vec<DedupKey> = (1..=moves.len())
            .map(|n| {
                let h = xxhash_rust::xxh3::xxh3_128(&moves.as_bytes()[..n]);
                DedupKey::of_digest(h)
            })
            .collect();
        let who = Who { players: [Name::of(white), Name::of(black)], date: Date::default(), result };
        let occasion = Occasion::default();
        (Identity { key: *prefixes.last().expect("moves"), who, occasion }, prefixes)
    }

    /// The verdicts of both passes over `games`: `-` written, `gN` a repeat of game N, `pN` a
    /// shorter record of game N (1-based).
    fn run(games: &[(Identity, Vec<DedupKey>)]) -> Vec<String> {
        let mut plan = Plan::new();
        plan.begin_input("t.pgn");
        for (id, p) in games {
            plan.survey(Some((id, p))).expect("memory");
        }
        let verdicts = games
            .iter()
            .enumerate()
            .map(|(i, (id, p))| match plan.decide(Some((id, p)), "t.pgn", i as u64 + 1).expect("same") {
                None => "-".to_string(),
                Some(Repeat { rule: Rule::Game, of }) => format!("g{}", of + 1),
                Some(Repeat { rule, of }) => format!("{}{}", &rule.name()[..1], of + 1),
            })
            .collect();
        assert!(plan.complete());
        verdicts
    }

    #[test]
    fn the_longest_record_is_kept_wherever_it_stands() {
        let games = [
            game("Giri", "Dubov", "abc", Unknown),
            game("Carlsen", "So", "abcd", WhiteWins),
            game("Giri, Anish", "Dubov, Daniil", "abcde", WhiteWins),
            game("Giri", "Dubov", "abcd", WhiteWins),
            game("Giri", "Dubov", "abcde", WhiteWins),
            game("Giri", "Dubov", "ab", BlackWins),
            game("Giri", "Dubov", "abcdef", Unknown),
            game("Giri", "Dubov", "abcdef", WhiteWins),
        ];
        assert_eq!(run(&games), ["p8", "-", "p8", "p8", "p8", "-", "p8", "-"]);
    }

    #[test]
    fn a_repeat_of_a_shorter_record_names_the_longer_game() {
        let games = [
            game("Giri", "Dubov", "ab", WhiteWins),
            game("Giri", "Dubov", "ab", WhiteWins),
            game("Giri", "Dubov", "abc", WhiteWins),
            game("Giri", "Dubov", "abc", WhiteWins),
        ];
        assert_eq!(run(&games), ["p3", "p3", "-", "g3"]);
    }

    #[test]
    fn another_input_is_an_error() {
        let a = game("Giri", "Dubov", "ab", WhiteWins);
        let mut plan = Plan::new();
        plan.survey(Some((&a.0, &a.1))).expect("memory");
        let other = game("Giri", "Dubov", "ac", WhiteWins);
        let e = plan.decide(Some((&other.0, &other.1)), "t.pgn", 1).expect_err("changed");
        assert!(e.to_string().contains("t.pgn: game 1 is not the game"), "{e}");
        let mut plan = Plan::new();
        plan.survey(Some((&a.0, &a.1))).expect("memory");
        assert!(plan.decide(None, "t.pgn", 1).is_err());
        let mut plan = Plan::new();
        plan.survey(Some((&a.0, &a.1))).expect("memory");
        plan.survey(Some((&a.0, &a.1))).expect("memory");
        plan.decide(Some((&a.0, &a.1)), "t.pgn", 1).expect("same");
        assert!(!plan.complete(), "a game fewer");
    }
}
