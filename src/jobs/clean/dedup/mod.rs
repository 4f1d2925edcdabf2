//! `--dedup`: which games written repeat one written before, across every input of a run, under
//! one of three rules.
//!
//! - `game` (the default): **the same game**: the same variant, start position and mainline, the
//!   same result, the same players ([`name`]: names as collections spell them), and dates, rounds
//!   and online games' pages (the first of `Site`, `Link`, `GameURL`, `LichessURL` that is an
//!   address: chess.com writes it in `Link`) that do not contradict each other ([`Date::compatible`],
//!   [`Encounter`]: what is unknown in either matches; two games of one day between the same
//!   players, in rounds 11 and 12, 3.1 and 3.2 or at two lichess addresses, are two games). A game
//!   with no moves is the same game only when its whole Seven Tag Roster agrees: `Event`, `Site`
//!   and `Round` folded as names are and equal, names, date and result as above.
//! - `moves`: the variant, start position and mainline alone (pgn-extract's `-D`), for
//!   collections of opening lines with made-up headers.
//! - `prefix`: the `game` rule, and also a game whose mainline is a prefix of another game's
//!   between the same players on compatible dates, its result the other's or `*` (a broadcast
//!   that stopped early, a game corrected in a later issue), or the same mainline with `*`
//!   against a result; its `Event`, `Site` and `Round` must each be the other's (folded) or
//!   unknown in either, since a prefix says less than a whole mainline (two games of one day
//!   between the same players online, the first abandoned after a move, have other `Site`s).
//!   The longest record is kept wherever it stands, so every game waits until every input is
//!   read ([`late`], [`walk`]).
//!
//! A game is identified by an [`Identity`]: its moves key ([`DedupKey`], found by hash) and,
//! for the `game` and `prefix` rules, the players, date and result compared among the games
//! with its moves key only ([`seen`]), so a game whose moves are new costs one look-up. It is
//! compared one by one with the latest 64 distinct games of its moves key, and with the older
//! ones that may be the same game through an index by result and a word of each player's name
//! (two names of one player share a word, or are the same initials: [`Name::handles`]), so
//! that thousands of games sharing a short mainline between other players keep a run linear
//! and every verdict is the rule's. Where thousands of distinct games share moves, result and a
//! word of each name (one pair of engines replaying one line round after round), a game is
//! compared with the latest [`seen::MAY_BE_SAME`] of them only, so time stays linear; such games
//! are counted (`compared_in_part`) and warned of. An identity is a plain value: identities
//! kept by separate runs can be compared later.
//!
//! Memory, per distinct game under `moves`: its key (12 bytes, in a vector grown by sixteenths),
//! a slot of the index (4 bytes and a control byte in a hash table between 7/16 and 7/8 full),
//! and one bit per game read, which says which games were the first of their identity: 17.9 to
//! 24.3 bytes in all, the upper figure just after the index doubles. Under `game` also the
//! players, date, result, round and site (48 bytes), the next older game with the same key and
//! its number among the key's games (4 bytes each): 79.4 to 86.5 bytes (`Seen::bytes` every
//! 100,000 games from 1 to 3 million; 75.4 to 82.3 without the number). A game older than the latest
//! 64 of its moves key also takes, for each pair of a word of White's name and one of Black's
//! (one to sixteen, four for `Carlsen, Magnus` against `Nakamura, Hikaru`), a node (8 bytes) and
//! at most a bucket (14.9 to 29.7 bytes), [`seen::PLAYERS_HELD`] bytes in all. The set holds at
//! most [`late::HELD`] distinct games and that index; past them, later games wait in temporary
//! files and are judged at the end, key by key ([`late`]), with the same verdicts (a shard's
//! too); `merge` settles shards past the same bound. A game is compared with the latest
//! [`seen::OF_ONE_KEY`] distinct games of its key at most (and counted when there were more), so
//! judging a key holds at most twice that many, however many distinct games share a mainline. `prefix` holds no such set: every game
//! waits from the first, its mainline sorted on disk, and a walk over the mainlines finds the
//! verdicts ([`walk`]), with a set per mainline.

mod identity;
mod key;
pub mod late;
pub mod name;
pub mod seen;
pub mod verdict;
pub mod walk;

pub use identity::{Date, Encounter, Identity, Occasion, Who};
pub use key::{DedupKey, MOVES_HELD, MovesKey, mainline, max_mainline, moves_key, roster_key};
pub use late::Late;
pub use name::Name;
pub use seen::Seen;

/// Why `--dedup` cannot go on (exit code 74).
#[derive(Debug, thiserror::Error)]
pub enum DedupError {
    /// The distinct games held no longer fit in memory.
    #[error(
        "--dedup: out of memory after {distinct} distinct games (about {per_game} bytes each); \
         split the input, or run without --dedup"
    )]
    OutOfMemory {
        /// Distinct games held.
        distinct: u64,
        /// Bytes held a game.
        per_game: usize,
    },
}

/// What makes two games duplicates (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// The same game: moves, result, players, compatible dates.
    Game,
    /// The same moves.
    Moves,
    /// The same game, or a shorter record of it.
    Prefix,
}

impl Rule {
    /// The rule's name, as `--dedup` and the report spell it.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Game => "game",
            Rule::Moves => "moves",
            Rule::Prefix => "prefix",
        }
    }
}

/// The warning of a run whose `--dedup` compared some games with only the latest
/// [`seen::MAY_BE_SAME`] of the older games that may be the same game, if any.
pub fn in_part_warning(stats: &crate::pipeline::stats::Stats) -> Option<String> {
    let n = stats.get(crate::pipeline::counter::Counter::ComparedInPart);
    (n > 0).then(|| {
        format!(
            "--dedup: {n} game{s} compared with only the latest {} of the older games that may be the \
             same game (one mainline, result and word of each player's name), or the latest {} of one \
             mainline, or, under prefix, while {} shorter games waited for longer records: a repeat of \
             an older one among them is written as a distinct game",
            seen::MAY_BE_SAME,
            seen::OF_ONE_KEY,
            walk::STACK_HELD,
            s = if n == 1 { " was" } else { "s were" },
        )
    })
}

/// A game set aside: the rule that matched, and the game kept (its ordinal over the run,
/// 0-based, every game read counted) that it repeats or is a shorter record of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Repeat {
    /// The rule that matched.
    pub rule: Rule,
    /// The game kept.
    pub of: u64,
}

impl Repeat {
    /// What a run under `rule` reports of a game set aside as a repeat of game `of` or, when
    /// `shorter`, a shorter record of it: under `prefix` a repeat is one by the `game` rule.
    pub fn found(rule: Rule, of: u64, shorter: bool) -> Repeat {
        let rule = match (shorter, rule) {
            (true, _) => Rule::Prefix,
            (false, Rule::Prefix) => Rule::Game,
            (false, rule) => rule,
        };
        Repeat { rule, of }
    }
}

/// The duplicates of a run, as the release side finds them.
pub enum Dedup {
    /// No `--dedup`.
    Off,
    /// The distinct games, as the games come (under `prefix`, none: every game waits, [`Late`]).
    Once(Box<Seen>),
}

impl Dedup {
    /// The duplicates under `rule`, if any.
    pub fn of(rule: Option<Rule>) -> Dedup {
        rule.map_or(Dedup::Off, |rule| Dedup::Once(Box::new(Seen::new(rule))))
    }

    /// The rule, once later games wait for their verdicts ([`Seen::full`], [`Late`]).
    pub fn full(&self, held: usize) -> Option<Rule> {
        match self {
            Dedup::Once(seen) if seen.full(held) => Some(seen.rule()),
            _ => None,
        }
    }

    /// What becomes of the next game read: `game` its identity when it is a candidate
    /// (written), `None` when not.
    pub fn next(&mut self, game: Option<&Identity>) -> Result<Option<Repeat>, DedupError> {
        match self {
            Dedup::Off => Ok(None),
            Dedup::Once(seen) => {
                let Some(id) = game else { return seen.skip().map(|()| None) };
                let rule = seen.rule();
                Ok(seen.insert(id)?.map(|e| Repeat { rule, of: seen.first_game(e) }))
            }
        }
    }
}
