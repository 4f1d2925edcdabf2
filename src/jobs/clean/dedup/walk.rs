//! The verdicts of `--dedup=prefix`, from every compared game's mainline sorted as bytes
//! ([`super::mainline`], [`Mainlines`]): the games with one mainline come together, after
//! every game whose mainline is a prefix of theirs. A walk keeps a stack of those shorter mainlines' games; each
//! group of games with one mainline is first split into distinct games and repeats by the
//! `game` rule (a set of its own: the rule compares only games with one moves key), then each
//! of its distinct games is compared with the games of the stack it may be a longer record of,
//! and with its own group's (the same mainline, `*` against a result). A group leaves the stack
//! when the walk passes the mainlines it is a prefix of, and its games' verdicts are then known.
//!
//! A game is compared with every distinct game of the stack and of its own group it may be a
//! longer record of: in a group of more than [`COMPARED`] games, those found through an index
//! by a handle of each player's name ([`super::Name::handles`]), which every record of one game
//! shares, so that the snapshots of a broadcast round of hundreds of boards, all with the same
//! first moves, are compared with their own board's game, not with every board's. Under a pair
//! of handles and a result shared by more games than [`MAY_BE_SAME`] (boards whose players all
//! share a word, `Player W1` against `Player B1`), a game is compared with the latest of them
//! only, and counted when the bound left out one it may be a longer record of (as the `game`
//! rule counts), so time stays linear. Memory: the sorters' runs, and the distinct games of the
//! mainlines on the stack (the mainlines of one game's prefixes) with their index, at most
//! [`STACK_HELD`]: a group keeps its latest [`OF_ONE_KEY`] to twice as many
//! (the older ones are distinct games, compared with no longer one), and past the bound the
//! stack's shortest mainlines are settled as they stand; both are counted as compared in part.
//! A repeat's verdict, which is its distinct game's, waits on disk until that one's is known.

use std::cmp::Ordering;
use std::collections::VecDeque;
use std::io::{self, BufRead, Write};

use super::key::START;
use super::seen::{COMPARED, MAY_BE_SAME, OF_ONE_KEY};
use super::verdict::{Repeats, VERDICTS_HELD, Verdict};
use super::{Identity, Occasion, Rule, Seen, Who};
use crate::error::Error;
use crate::io::sort::{Record, Sorted, Sorter, SpillError, read_or_end};
use crate::pgn::GameResult;

/// Bytes of mainlines sorted in memory at a time.
pub const LINES_HELD: usize = 64 << 20;

/// Distinct games the stack holds at most: past them, its shortest mainlines' games are settled
/// as they stand, left out of the comparisons with longer games still to come, and counted.
pub const STACK_HELD: usize = stack_held(OF_ONE_KEY);

/// [`STACK_HELD`] when a game is compared with the latest `of_one_key` of its mainline: room
/// for a group at its largest ([`Seen::keep_latest`]).
const fn stack_held(of_one_key: usize) -> usize {
    2 * of_one_key
}

/// A repeat by the `game` rule: the number of the distinct game it repeats (the first of its
/// mainline's group), then its own; its verdict waits for that game's.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct RepeatOf {
    entry: u64,
    at: u64,
}

impl Record for RepeatOf {
    fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(&self.entry.to_le_bytes())?;
        out.write_all(&self.at.to_le_bytes())
    }

    fn read_from(input: &mut impl BufRead) -> io::Result<Option<RepeatOf>> {
        let (mut entry, mut at) = ([0u8; 8], [0u8; 8]);
        if !read_or_end(input, &mut entry)? {
            return Ok(None);
        }
        input.read_exact(&mut at)?;
        Ok(Some(RepeatOf { entry: u64::from_le_bytes(entry), at: u64::from_le_bytes(at) }))
    }
}

/// A game compared: its mainline, identity and number over the run, ordered by mainline, then
/// moves key (games with no moves), then number.
struct Line {
    mainline: Vec<u8>,
    id: Identity,
    ordinal: u64,
}

impl Line {
    fn order(&self) -> (&[u8], [u32; 3], u64) {
        (&self.mainline, self.id.key.0, self.ordinal)
    }
}

impl PartialEq for Line {
    fn eq(&self, other: &Line) -> bool {
        self.order() == other.order()
    }
}

impl Eq for Line {}

impl Ord for Line {
    fn cmp(&self, other: &Line) -> Ordering {
        self.order().cmp(&other.order())
    }
}

impl PartialOrd for Line {
    fn partial_cmp(&self, other: &Line) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Record for Line {
    fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(&(self.mainline.len() as u32).to_le_bytes())?;
        out.write_all(&self.mainline)?;
        out.write_all(&self.id.to_bytes())?;
        for w in self.id.occasion.0 {
            out.write_all(&w.to_le_bytes())?;
        }
        out.write_all(&self.ordinal.to_le_bytes())
    }

    fn read_from(input: &mut impl BufRead) -> io::Result<Option<Line>> {
        let mut len = [0u8; 4];
        if !read_or_end(input, &mut len)? {
            return Ok(None);
        }
        let mut mainline = vec![0; u32::from_le_bytes(len) as usize];
        input.read_exact(&mut mainline)?;
        let mut id = [0u8; Identity::BYTES];
        input.read_exact(&mut id)?;
        let mut id = Identity::from_bytes(&id).ok_or_else(|| bad("an identity"))?;
        let mut word = [0u8; 4];
        for w in &mut id.occasion.0 {
            input.read_exact(&mut word)?;
            *w = u32::from_le_bytes(word);
        }
        let mut ordinal = [0u8; 8];
        input.read_exact(&mut ordinal)?;
        Ok(Some(Line { mainline, id, ordinal: u64::from_le_bytes(ordinal) }))
    }

    fn bytes(&self) -> usize {
        size_of::<Line>() + self.mainline.capacity()
    }
}

fn bad(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("a temporary file of --dedup=prefix: {what} unreadable"),
    )
}

/// Which record is kept: the longest (plies), one with a result before one without.
type Rank = (usize, bool);

/// A distinct game of a group: its number, facts, and the longest record found of which it is
/// a shorter one (that game's number and rank).
struct Entry {
    ordinal: u64,
    who: Who,
    occasion: Occasion,
    longer: Option<(u64, Rank)>,
    /// Counted among the games compared in part.
    in_part: bool,
}

impl Entry {
    /// Notes that this game is a shorter record of game `by` of rank `rank`, when `by` is a
    /// longer record than the one noted (the earlier of two of one rank).
    fn longer_record(&mut self, by: u64, rank: Rank) {
        if self.longer.is_none_or(|(b, r)| rank > r || (rank == r && by < b)) {
            self.longer = Some((by, rank));
        }
    }
}

/// The games with one mainline (and moves key): distinct games in order (the latest
/// [`OF_ONE_KEY`] to twice as many), and once the group is complete, when it has more than
/// [`COMPARED`] distinct games, its index: (white handle, black handle, result, entry) for every
/// handle of each player's name, sorted.
#[derive(Default)]
struct Group {
    mainline: Vec<u8>,
    key: [u32; 3],
    entries: Vec<Entry>,
    players: Vec<(u32, u32, u8, u32)>,
}

impl Group {
    /// Indexes the entries by players and result, when there are more than [`COMPARED`].
    fn index(&mut self) {
        if self.entries.len() <= COMPARED {
            return;
        }
        for (i, e) in self.entries.iter().enumerate() {
            let [white, black] = e.who.players.map(|n| n.handles());
            let result = e.who.result as u8;
            for &w in white.iter() {
                self.players.extend(black.iter().map(|&b| (w, b, result, i as u32)));
            }
        }
        self.players.sort_unstable();
    }

    /// Notes, among the entries (the game's own group's when `same_length`), the games that are
    /// shorter records of game `ordinal` of `plies` plies: among those that may name its
    /// players with a result a shorter record may have, found through the index when there is
    /// one, the latest [`MAY_BE_SAME`] of each pair of handles and result; whether the bound
    /// left one of them out.
    fn note_longer(
        &mut self,
        (ordinal, who, occasion): (u64, Who, Occasion),
        plies: usize,
        same_length: bool,
    ) -> bool {
        let rank = (plies, who.result != GameResult::Unknown);
        let note = |e: &mut Entry| {
            if e.who.shorter_record_of(&who, same_length) && e.occasion.compatible(occasion) {
                e.longer_record(ordinal, rank);
            }
        };
        if self.players.is_empty() {
            self.entries.iter_mut().for_each(note);
            return false;
        }
        // The results a shorter record may have ([`Who::shorter_record_of`]).
        let unknown = GameResult::Unknown as u8;
        let results: &[u8] = match (same_length, who.result) {
            (true, GameResult::Unknown) => &[],
            (true, _) | (false, GameResult::Unknown) => &[unknown],
            (false, result) => &[result as u8, unknown],
        };
        let [white, black] = who.players.map(|n| n.handles());
        let mut in_part = false;
        // An entry under two of these pairs is noted twice, to the same effect.
        for &w in white.iter() {
            for &b in black.iter() {
                for &r in results {
                    let from = self.players.partition_point(|&(x, y, s, _)| (x, y, s) < (w, b, r));
                    let to = self.players.partition_point(|&(x, y, s, _)| (x, y, s) <= (w, b, r));
                    in_part |= to - from > MAY_BE_SAME;
                    for &(_, _, _, i) in &self.players[from.max(to.saturating_sub(MAY_BE_SAME))..to] {
                        note(&mut self.entries[i as usize]);
                    }
                }
            }
        }
        in_part
    }
}

/// The walk over the sorted mainlines.
struct Walk {
    stack: VecDeque<Group>,
    /// Distinct games on the stack, and how many it holds at most ([`STACK_HELD`]).
    held: usize,
    most: usize,
    /// The verdicts of the distinct games that are shorter records.
    verdicts: Sorter<Verdict>,
    repeats: Sorter<RepeatOf>,
    /// Games compared with only some of the games they may be the same game as, or shorter or
    /// longer records of: the latest [`MAY_BE_SAME`] or [`OF_ONE_KEY`], or while the stack
    /// held at most [`STACK_HELD`].
    in_part: u64,
}

impl Walk {
    /// Compares the distinct games of `g` (complete) with the stack's and each other, then
    /// stacks it, or settles it when it has no moves (never a prefix).
    fn add(&mut self, mut g: Group) -> io::Result<()> {
        if g.mainline.len() <= START {
            return self.settle(g);
        }
        while self.stack.back().is_some_and(|top| !g.mainline.starts_with(&top.mainline)) {
            let top = self.stack.pop_back().expect("a group");
            self.held -= top.entries.len();
            self.settle(top)?;
        }
        let plies = (g.mainline.len() - START) / 2;
        g.index();
        for t in 0..g.entries.len() {
            let x = &g.entries[t];
            let (longer, mut in_part) = ((x.ordinal, x.who, x.occasion), false);
            for shorter in &mut self.stack {
                in_part |= shorter.note_longer(longer, plies, false);
            }
            in_part |= g.note_longer(longer, plies, true);
            let e = &mut g.entries[t];
            self.in_part += u64::from(in_part && !e.in_part);
            e.in_part |= in_part;
        }
        self.held += g.entries.len();
        self.stack.push_back(g);
        while self.held > self.most && self.stack.len() > 1 {
            let bottom = self.stack.pop_front().expect("a group");
            self.held -= bottom.entries.len();
            self.in_part += bottom.entries.iter().filter(|e| !e.in_part).count() as u64;
            self.settle(bottom)?;
        }
        Ok(())
    }

    /// The verdicts of a group no longer game can extend.
    fn settle(&mut self, g: Group) -> io::Result<()> {
        for e in &g.entries {
            if let Some((by, _)) = e.longer {
                self.verdicts.push(Verdict { at: e.ordinal, of: by, shorter: true })?;
            }
        }
        Ok(())
    }

    /// Every verdict, sorted by game: the shorter records', and each repeat's, which is its
    /// distinct game's when that one is a shorter record.
    fn finish(self) -> io::Result<Sorted<Verdict>> {
        let mut all = Sorter::new(VERDICTS_HELD);
        let mut shorter = self.verdicts.finish()?;
        let mut next = shorter.next().transpose()?;
        for r in self.repeats.finish()? {
            let r = r?;
            while let Some(v) = next.take_if(|v| v.at < r.entry) {
                all.push(v)?;
                next = shorter.next().transpose()?;
            }
            let (of, shorter) = match &next {
                Some(v) if v.at == r.entry => (v.of, true),
                _ => (r.entry, false),
            };
            all.push(Verdict { at: r.at, of, shorter })?;
        }
        while let Some(v) = next {
            all.push(v)?;
            next = shorter.next().transpose()?;
        }
        all.finish()
    }
}

/// The mainlines of the games the `prefix` rule compares, sorted on disk past [`LINES_HELD`]
/// bytes, and their verdicts once every game is read.
pub struct Mainlines {
    lines: Sorter<Line>,
    /// Distinct games of one mainline a game is compared with ([`OF_ONE_KEY`]).
    of_one_key: usize,
}

impl Default for Mainlines {
    fn default() -> Mainlines {
        Mainlines::holding(LINES_HELD)
    }
}

impl Mainlines {
    /// No mainline yet, sorting `bytes` of them in memory at a time.
    pub fn holding(bytes: usize) -> Mainlines {
        Mainlines { lines: Sorter::with_bytes(bytes), of_one_key: OF_ONE_KEY }
    }

    /// Adds the game numbered `ordinal` over the run, identity `id`, mainline `mainline`
    /// ([`super::mainline`]).
    pub fn push(&mut self, id: &Identity, mainline: &[u8], ordinal: u64) -> io::Result<()> {
        self.lines.push(Line { mainline: mainline.to_vec(), id: *id, ordinal })
    }

    /// The verdicts of the games set aside among those pushed, in the order of their numbers;
    /// fails with [`Error::Interrupted`] once `requested` says so.
    pub fn verdicts(self, requested: &dyn Fn() -> bool) -> Result<Repeats, Error> {
        let spill = |e: io::Error| Error::from(SpillError::from(e));
        let lines = self.lines.finish().map_err(spill)?;
        let (verdicts, in_part) = walk(lines, self.of_one_key, requested)?;
        Repeats::new(verdicts, Rule::Prefix, in_part).map_err(spill)
    }
}

/// The walk over `lines`: the verdicts, sorted by game, and the games compared in part.
fn walk(
    lines: Sorted<Line>,
    of_one_key: usize,
    requested: &dyn Fn() -> bool,
) -> Result<(Sorted<Verdict>, u64), Error> {
    let spill = |e: io::Error| Error::from(SpillError::from(e));
    let mut walk = Walk {
        stack: VecDeque::new(),
        held: 0,
        most: stack_held(of_one_key),
        verdicts: Sorter::new(VERDICTS_HELD),
        repeats: Sorter::new(VERDICTS_HELD),
        in_part: 0,
    };
    let (mut seen, mut group) = (Seen::comparing_latest(Rule::Prefix, of_one_key), Group::default());
    for line in lines {
        let line = line.map_err(spill)?;
        if requested() {
            return Err(Error::Interrupted);
        }
        if line.mainline != group.mainline || line.id.key.0 != group.key || group.entries.is_empty() {
            let done = std::mem::replace(
                &mut group,
                Group { mainline: line.mainline, key: line.id.key.0, ..Group::default() },
            );
            if !done.entries.is_empty() {
                walk.add(done).map_err(spill)?;
            }
            seen.clear();
        }
        let counted = seen.compared_in_part();
        let found = seen.insert(&line.id)?;
        let in_part = seen.compared_in_part() > counted;
        walk.in_part += u64::from(in_part);
        match found {
            None => {
                group.entries.push(Entry {
                    ordinal: line.ordinal,
                    who: line.id.who,
                    occasion: line.id.occasion,
                    longer: None,
                    in_part,
                });
                // Those the set forgot are compared with no longer game: distinct games.
                let forgot = group.entries.drain(..seen.keep_latest()?);
                walk.in_part += forgot.filter(|e| !e.in_part).count() as u64;
            }
            Some(e) => {
                let entry = group.entries[e as usize].ordinal;
                walk.repeats.push(RepeatOf { entry, at: line.ordinal }).map_err(spill)?;
            }
        }
    }
    if !group.entries.is_empty() {
        walk.add(group).map_err(spill)?;
    }
    while let Some(g) = walk.stack.pop_back() {
        walk.settle(g).map_err(spill)?;
    }
    let in_part = walk.in_part;
    Ok((walk.finish().map_err(spill)?, in_part))
}

#[cfg(test)]
mod tests {
    use super::super::{Name, moves_key};
    use super::*;
    use crate::chess::Variant;
    use crate::pgn::GameResult::*;

    /// A game between `white` and `black`, ending in `result`, whose mainline is `moves`
    /// (letters standing for moves).
    fn game(white: &str, black: &str, moves: &str, result: GameResult) -> (Identity, Vec<u8>) {
        let moves: Vec<u8> = moves.bytes().flat_map(|m| u16::from(m).to_le_bytes()).collect();
        let mut mainline = vec![];
        super::super::mainline(Variant::Standard, None, &moves, &mut mainline);
        let who = Who { players: [Name::of(white), Name::of(black)], result, ..Who::default() };
        let key = moves_key(Variant::Standard, None, &moves);
        (Identity { key, who, occasion: Occasion::default() }, mainline)
    }

    /// The verdicts over `games` walked by `lines`: `-` written, `gN` a repeat of game N, `pN` a
    /// shorter record of game N (1-based); and the games compared in part.
    fn walked(mut lines: Mainlines, games: &[(Identity, Vec<u8>)]) -> (Vec<String>, u64) {
        for (i, (id, m)) in games.iter().enumerate() {
            lines.push(id, m, i as u64).expect("written");
        }
        let mut repeats = lines.verdicts(&|| false).expect("walked");
        let verdicts = (0..games.len() as u64)
            .map(|i| match repeats.of(i).expect("read") {
                None => "-".to_string(),
                Some(v) => format!("{}{}", if v.rule == Rule::Prefix { "p" } else { "g" }, v.of + 1),
            })
            .collect();
        assert!(repeats.done());
        (verdicts, repeats.compared_in_part())
    }

    /// The verdicts over `games`, the mainlines sorted `bytes` at a time.
    fn run_holding(games: &[(Identity, Vec<u8>)], bytes: usize) -> Vec<String> {
        walked(Mainlines::holding(bytes), games).0
    }

    fn run(games: &[(Identity, Vec<u8>)]) -> Vec<String> {
        run_holding(games, LINES_HELD)
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

    /// Two letters a name, as many as 676 players.
    fn name(i: usize) -> String {
        format!("{}{}", char::from(b'A' + (i / 26) as u8), char::from(b'a' + (i % 26) as u8))
    }

    #[test]
    fn a_shorter_record_is_found_however_many_games_share_its_mainline() {
        // Game 0 and the last but one are Giri-Dubov games of mainline `ab`, with many games of
        // other players between them: both are shorter records of the last.
        let mut games = vec![game("Giri", "Dubov", "ab", WhiteWins)];
        games.extend((0..3 * COMPARED).map(|i| game(&name(i), "Dubov", "ab", WhiteWins)));
        games.push(game("Giri, Anish", "Dubov", "ab", Unknown));
        games.push(game("Giri", "Dubov, Daniil", "abc", WhiteWins));
        let n = games.len();
        let mut want = vec!["-".to_string(); n];
        (want[0], want[n - 2]) = (format!("p{n}"), format!("p{n}"));
        assert_eq!(run(&games), want);
        // The longer record read first.
        let mut first = vec![games[n - 1].clone()];
        first.extend(games[..n - 1].iter().cloned());
        let mut want = vec!["-".to_string(); n];
        (want[1], want[n - 1]) = ("p1".into(), "p1".into());
        assert_eq!(run(&first), want);
    }

    /// More games of one mainline than [`MAY_BE_SAME`] whose players share every word but one:
    /// a longer record is compared with the latest of them and counted, and still finds its own
    /// game through the word that is its own; the crowd, of one result, none of them a shorter
    /// record of another, is not counted.
    #[test]
    fn a_crowd_no_shared_word_tells_apart_is_compared_with_its_latest_and_counted() {
        let crowd = MAY_BE_SAME + 1;
        // A word of its own (no letter twice in a row: folding would make it one).
        let letter = |d: usize| char::from(b'a' + (d % 25) as u8);
        let own = |i: usize| format!("Bot W{}z{}z{}", letter(i), letter(i / 25), letter(i / 625));
        let mut games: Vec<_> = (0..crowd).map(|i| game(&own(i), "Engine", "a", Unknown)).collect();
        games.push(game(&own(0), "Engine", "ab", Draw));
        let mut lines = Mainlines::holding(LINES_HELD);
        for (i, (id, m)) in games.iter().enumerate() {
            lines.push(id, m, i as u64).expect("written");
        }
        let mut repeats = lines.verdicts(&|| false).expect("walked");
        assert_eq!(repeats.compared_in_part(), 1, "the longer record alone");
        let first = repeats.of(0).expect("read").expect("a shorter record");
        assert_eq!((first.rule, first.of), (Rule::Prefix, crowd as u64));
        assert_eq!(repeats.of(1).expect("read"), None);
    }

    /// A broadcast round of more boards than [`COMPARED`]: each board's snapshot after the first
    /// moves is a shorter record of its own final game, and of no other board's.
    #[test]
    fn every_board_of_a_large_round_keeps_its_final_record() {
        let boards = 3 * COMPARED;
        let board = |b: usize, moves: &str, result| game(&name(b), &name(b + boards), moves, result);
        let mut games: Vec<_> = (0..boards).map(|b| board(b, "a", Unknown)).collect();
        let ends = ["ab", "abc", "abcd", "ac", "acd"];
        games.extend((0..boards).map(|b| board(b, ends[b % ends.len()], [Draw, WhiteWins][b % 2])));
        let mut want: Vec<String> = (0..boards).map(|b| format!("p{}", boards + b + 1)).collect();
        want.extend((0..boards).map(|_| "-".to_string()));
        assert_eq!(run(&games), want);
    }

    /// The verdicts over `games`, comparing a game with the latest `latest` of one mainline,
    /// and the games compared in part.
    fn run_latest(games: &[(Identity, Vec<u8>)], latest: usize) -> (Vec<String>, u64) {
        walked(Mainlines { of_one_key: latest, ..Mainlines::default() }, games)
    }

    /// A player's name as `--dedup` tells it apart from the others: no letter twice in a row.
    fn player(i: usize) -> String {
        let letter = |d: usize| char::from(b'a' + (d % 25) as u8);
        format!("W{}z{}", letter(i), letter(i / 25))
    }

    /// More distinct games of one mainline than twice the latest a game is compared with: the
    /// oldest are forgotten, so a longer record of one of them keeps it as a distinct game, and
    /// it is counted; a recent one and its repeat are shorter records of theirs.
    #[test]
    fn a_crowded_mainline_keeps_its_latest_games_alone() {
        let latest = COMPARED;
        let mut games: Vec<_> = (0..3 * latest).map(|i| game(&player(i), "Bot", "a", Unknown)).collect();
        let recent = 3 * latest - 1;
        games.push(game(&player(recent), "Bot", "a", Unknown));
        games.push(game(&player(0), "Bot", "ab", Draw));
        games.push(game(&player(recent), "Bot", "ab", Draw));
        let n = games.len();
        let (verdicts, in_part) = run_latest(&games, latest);
        assert_eq!(verdicts[0], "-", "forgotten");
        assert_eq!([&verdicts[recent], &verdicts[recent + 1]], [&format!("p{n}"), &format!("p{n}")]);
        assert_eq!(verdicts.iter().filter(|v| *v != "-").count(), 2);
        assert!(in_part >= latest as u64, "the forgotten games at least: {in_part}");
        // With room for every game the oldest finds its longer record too.
        assert_eq!(run(&games)[0], format!("p{}", n - 1));
    }

    /// Past twice the latest of one mainline a game is compared with on the stack
    /// ([`STACK_HELD`]), its shortest mainline's games are settled and counted: a longer record of one of them keeps it as a
    /// distinct game, while one of a later mainline is found.
    #[test]
    fn the_stack_holds_a_bounded_number_of_games() {
        let latest = COMPARED;
        let per_line = stack_held(latest) * 3 / 4;
        let mut games: Vec<_> = (0..per_line).map(|i| game(&player(i), "Bot", "a", Unknown)).collect();
        games.extend((0..per_line).map(|i| game("Bot", &player(i), "ab", Unknown)));
        games.push(game(&player(5), "Bot", "abc", Draw));
        games.push(game("Bot", &player(5), "abc", Draw));
        let n = games.len();
        let (verdicts, in_part) = run_latest(&games, latest);
        assert_eq!(verdicts[5], "-", "settled before its longer record came");
        assert_eq!(verdicts[per_line + 5], format!("p{n}"));
        assert!(in_part >= per_line as u64, "the settled games at least: {in_part}");
        // With room for every game it finds it too.
        assert_eq!(run(&games)[5], format!("p{}", n - 1));
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
    fn a_stop_during_the_walk_is_an_interruption() {
        let (id, m) = game("Giri", "Dubov", "ab", WhiteWins);
        let mut lines = Mainlines::default();
        lines.push(&id, &m, 0).expect("held");
        assert!(matches!(lines.verdicts(&|| true).err(), Some(Error::Interrupted)));
    }
}
