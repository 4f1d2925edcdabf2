//! `--dedup=prefix`: which games are shorter records of a longer one (the rule is in
//! [`super`]), decided before anything is written. The first pass ([`Draft`]) reads every input
//! and sorts every candidate game's mainline, identity and number on disk; the walk over the
//! sorted mainlines (`walk.rs`) gives the verdicts of the games set aside, sorted
//! back by number; the writing pass reads the inputs again and takes each game's verdict in
//! turn ([`Plan`]). So a shorter record is set aside wherever it stands, and the longest record
//! is named as the one kept.
//!
//! Memory: a sorter's run of mainlines (at most [`LINES_HELD`] bytes) and merge buffers, then
//! the walk's (the games of one mainline's prefixes). Time: every input read and replayed twice
//! (the first pass writes nothing) and the sort (docs/performance.md). Inputs must be files: a
//! stream such as stdin cannot be read again, which the command line says before it starts.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};

use super::walk::{self, Line, Verdict, bad};
use super::{DedupError, DedupKey, Identity, Repeat, Rule};
use crate::error::Error;
use crate::io::sort::{Sorted, Sorter, SpillError, read_or_end, rewound};

/// Bytes of mainlines sorted in memory at a time.
pub const LINES_HELD: usize = 64 << 20;

fn spill(e: io::Error) -> Error {
    SpillError::from(e).into()
}

/// The first pass: every candidate game's mainline on its way to the sort, and what each game
/// read was (a candidate and its moves key, or not), for the writing pass to check it reads the
/// same games.
pub struct Draft {
    lines: Sorter<Line>,
    games: BufWriter<File>,
    /// Each input and the number of its first game.
    inputs: Vec<(String, u64)>,
    read: u64,
}

impl Draft {
    /// Nothing read yet.
    pub fn new() -> Result<Draft, Error> {
        Draft::holding(LINES_HELD)
    }

    /// Nothing read yet, sorting `bytes` of mainlines in memory at a time.
    fn holding(bytes: usize) -> Result<Draft, Error> {
        let games = BufWriter::with_capacity(1 << 20, tempfile::tempfile().map_err(spill)?);
        Ok(Draft { lines: Sorter::with_bytes(bytes), games, inputs: Vec::new(), read: 0 })
    }

    /// An input starts.
    pub fn begin_input(&mut self, name: &str) {
        self.inputs.push((name.to_string(), self.read));
    }

    /// The next game read, with its identity and mainline ([`super::mainline`]) when it is a
    /// candidate.
    pub fn survey(&mut self, game: Option<(&Identity, &[u8])>) -> Result<(), Error> {
        let ordinal = self.read;
        self.read += 1;
        let Some((id, mainline)) = game else { return self.games.write_all(&[0]).map_err(spill) };
        let mut entry = [1u8; 13];
        for (b, w) in entry[1..].chunks_exact_mut(4).zip(id.key.0) {
            b.copy_from_slice(&w.to_le_bytes());
        }
        self.games.write_all(&entry).map_err(spill)?;
        self.lines.push(Line { mainline: mainline.to_vec(), id: *id, ordinal }).map_err(spill)
    }

    /// The plan: the walk over the sorted mainlines; fails with [`Error::Interrupted`] once
    /// `requested` says so.
    pub fn finish(self, requested: &dyn Fn() -> bool) -> Result<Plan, Error> {
        let Draft { lines, games, inputs, read } = self;
        let mut verdicts = walk::verdicts(lines.finish().map_err(spill)?, requested)?;
        let next = verdicts.next().transpose().map_err(spill)?;
        let games = BufReader::with_capacity(1 << 20, rewound(games).map_err(spill)?);
        Ok(Plan { verdicts, next, games, inputs, surveyed: read, read: 0 })
    }
}

/// The decisions of the first pass, taken by the writing pass game by game.
pub struct Plan {
    verdicts: Sorted<Verdict>,
    next: Option<Verdict>,
    games: BufReader<File>,
    inputs: Vec<(String, u64)>,
    surveyed: u64,
    read: u64,
}

impl Plan {
    /// Each input of the first pass and the number of its first game.
    pub fn inputs(&self) -> &[(String, u64)] {
        &self.inputs
    }

    /// What becomes of the next game read: `game` its identity when it is a candidate; `input`
    /// and `number` name it in the error when it is not the game the first pass read there.
    pub fn decide(
        &mut self,
        game: Option<&Identity>,
        input: &str,
        number: u64,
    ) -> Result<Option<Repeat>, Error> {
        let n = self.read;
        self.read += 1;
        let changed = || Error::from(DedupError::GameChanged { input: input.to_string(), game: number });
        let mut tag = [0u8; 1];
        if !read_or_end(&mut self.games, &mut tag).map_err(spill)? {
            return Err(changed());
        }
        let key = match tag[0] {
            0 => None,
            1 => {
                let mut b = [0u8; 12];
                io::Read::read_exact(&mut self.games, &mut b).map_err(spill)?;
                let word =
                    |i: usize| u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
                Some(DedupKey([word(0), word(1), word(2)]))
            }
            _ => return Err(spill(bad("a game"))),
        };
        if game.map(|id| id.key) != key {
            return Err(changed());
        }
        match &self.next {
            Some(v) if v.at == n => {
                let rule = if v.shorter { Rule::Prefix } else { Rule::Game };
                let repeat = Repeat { rule, of: v.of };
                self.next = self.verdicts.next().transpose().map_err(spill)?;
                Ok(Some(repeat))
            }
            Some(v) if v.at < n => Err(spill(bad("a verdict out of order"))),
            _ => Ok(None),
        }
    }

    /// Writing pass, at its end: whether it read every game of the first pass.
    pub fn complete(&mut self) -> bool {
        self.read == self.surveyed && self.next.is_none() && self.games.fill_buf().is_ok_and(|b| b.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::super::seen::COMPARED;
    use super::super::{Date, Name, Occasion, Who, moves_key};
    use super::*;
    use crate::chess::Variant;
    use crate::pgn::GameResult::{self, *};

    /// A game between `white` and `black`, ending in `result`, whose mainline is `moves`
    /// (letters standing for moves).
    fn game(white: &str, black: &str, moves: &str, result: GameResult) -> (Identity, Vec<u8>) {
        let moves: Vec<u8> = moves.bytes().flat_map(|m| u16::from(m).to_le_bytes()).collect();
        let mut mainline = vec![];
        super::super::mainline(Variant::Standard, None, &moves, &mut mainline);
        let who = Who { players: [Name::of(white), Name::of(black)], date: Date::default(), result };
        let key = moves_key(Variant::Standard, None, &moves);
        (Identity { key, who, occasion: Occasion::default() }, mainline)
    }

    fn draft(games: &[(Identity, Vec<u8>)]) -> Draft {
        draft_holding(games, LINES_HELD)
    }

    fn draft_holding(games: &[(Identity, Vec<u8>)], bytes: usize) -> Draft {
        let mut draft = Draft::holding(bytes).expect("a temporary file");
        draft.begin_input("t.pgn");
        for (id, m) in games {
            draft.survey(Some((id, m))).expect("written");
        }
        draft
    }

    /// The verdicts of both passes over `games`: `-` written, `gN` a repeat of game N, `pN` a
    /// shorter record of game N (1-based).
    fn run(games: &[(Identity, Vec<u8>)]) -> Vec<String> {
        run_holding(games, LINES_HELD)
    }

    fn run_holding(games: &[(Identity, Vec<u8>)], bytes: usize) -> Vec<String> {
        let mut plan = draft_holding(games, bytes).finish(&|| false).expect("planned");
        let verdicts = games
            .iter()
            .enumerate()
            .map(|(i, (id, _))| match plan.decide(Some(id), "t.pgn", i as u64 + 1).expect("same") {
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
    fn a_game_is_compared_with_the_latest_of_a_mainline_up_to_it_and_after_it() {
        // Game 0 and the last are Giri-Dubov games of mainline `ab`, with COMPARED games of
        // other players between them: the longer records `abc` compare only the latest of `ab`.
        let mut games = vec![game("Giri", "Dubov", "ab", WhiteWins)];
        let name =
            |i: usize| format!("{}{}", char::from(b'A' + (i / 26) as u8), char::from(b'a' + (i % 26) as u8));
        games.extend((0..COMPARED).map(|i| game(&name(i), "Dubov", "ab", WhiteWins)));
        games.push(game("Giri", "Dubov", "ab", Unknown));
        games.push(game("Giri", "Dubov", "abc", WhiteWins));
        let v = run(&games);
        let n = games.len();
        assert_eq!(v[0], "-", "older than the latest {COMPARED} of its mainline");
        assert_eq!(v[n - 2], format!("p{n}"));
        // A longer record read first compares the latest of `ab` up to it, then those after it.
        let mut first = vec![game("Giri", "Dubov", "abc", WhiteWins)];
        first.extend(games[..n - 1].iter().cloned());
        let v = run(&first);
        assert_eq!(v[1], "-", "after it, but older than the latest {COMPARED}: {v:?}");
        assert_eq!(v[n - 1], "p1");
    }

    #[test]
    fn mainlines_sorted_past_memory_give_the_same_verdicts() {
        let games: Vec<_> = (0..300)
            .map(|i| {
                let moves: String = (0..1 + i % 7).map(|m| char::from(b'a' + (m + i / 50) as u8)).collect();
                let players = (["Giri", "Dubov"][i % 2], ["So", "Carlsen"][i / 3 % 2]);
                game(players.0, players.1, &moves, [Unknown, WhiteWins][i % 3 / 2])
            })
            .collect();
        let held = run(&games);
        assert!(held.iter().filter(|v| v.starts_with('p')).count() > 10, "{held:?}");
        assert!(held.iter().any(|v| v.starts_with('g')), "{held:?}");
        assert!(held.iter().any(|v| v == "-"), "{held:?}");
        assert_eq!(run_holding(&games, 2000), held);
    }

    #[test]
    fn another_input_is_an_error() {
        let a = game("Giri", "Dubov", "ab", WhiteWins);
        let mut plan = draft(std::slice::from_ref(&a)).finish(&|| false).expect("planned");
        let other = game("Giri", "Dubov", "ac", WhiteWins);
        let e = plan.decide(Some(&other.0), "t.pgn", 1).expect_err("changed");
        assert!(e.to_string().contains("t.pgn: game 1 is not the game"), "{e}");
        let mut plan = draft(std::slice::from_ref(&a)).finish(&|| false).expect("planned");
        assert!(plan.decide(None, "t.pgn", 1).is_err());
        let mut plan = draft(&[a.clone(), a.clone()]).finish(&|| false).expect("planned");
        plan.decide(Some(&a.0), "t.pgn", 1).expect("same");
        assert!(!plan.complete(), "a game fewer");
    }

    #[test]
    fn a_stop_during_the_walk_is_an_interruption() {
        let a = game("Giri", "Dubov", "ab", WhiteWins);
        let e = draft(&[a]).finish(&|| true).err().expect("stopped");
        assert!(matches!(e, Error::Interrupted), "{e}");
    }
}
