//! Each player's figures by colour, for the players' table ([`Players`]). Players are told apart
//! by their name in any case and whitespace, as `--player` matches a name ([`super::name`]):
//! `Alice`, `ALICE` and `alice ` are one player, shown as first spelt (whitespace tidied). Held in memory up to
//! [`HELD`] distinct names, past that written out in runs sorted by name to anonymous temporary
//! files and merged by name when the table is ranked, so the report's memory stays bounded
//! however many players a collection has (about 300 bytes a player held).

use std::cmp::Ordering;
use std::fs::File;
use std::io::{self, BufRead, BufWriter, Seek, SeekFrom, Write};
use std::ops::ControlFlow;

use hashbrown::HashMap;

use super::name::{key, spelt};
use super::sums::{MoveTotals, Side};
use crate::chess::{ByColor, Color};
use crate::io::sort::{Merge, Record, Sorter, read_or_end, rewound};

/// Distinct players held in memory before they are written out: about 80 MB.
pub const HELD: usize = 1 << 18;

pub use crate::io::sort::SpillError;

/// Every player's figures by colour.
#[derive(Debug)]
pub struct Players {
    /// Each held player's number in `figures`, by name as told apart ([`key`]). The figures
    /// lie dense beside the map: 600,000 players took 199 MB, against 395 MB with the figures in
    /// the map's buckets.
    ids: HashMap<Box<str>, u32>,
    /// Each held player's figures, by number.
    figures: Vec<ByColor<Side>>,
    /// Each held player's name as first spelt, by number.
    spellings: Vec<Box<str>>,
    /// A name as told apart, when it is not already: one buffer for every game.
    folding: String,
    /// Runs written out, each sorted by name with each name once.
    runs: Vec<File>,
    /// Distinct players held at most.
    held: usize,
}

/// The players a table lists, in its order: most games first, then by name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RankedPlayers {
    /// Name, figures by colour.
    pub players: Vec<(String, ByColor<Side>)>,
    /// Players that qualified, listed or not.
    pub qualified: usize,
}

impl Default for Players {
    fn default() -> Players {
        Players::holding(HELD)
    }
}

impl Players {
    /// A table that holds at most `held` distinct players in memory (at least 1).
    pub fn holding(held: usize) -> Players {
        Players {
            ids: HashMap::new(),
            figures: Vec::new(),
            spellings: Vec::new(),
            folding: String::new(),
            runs: Vec::new(),
            held: held.max(1),
        }
    }

    /// Adds `side`'s figures `s` of one game to `name`'s.
    pub fn add(&mut self, name: &str, side: Color, s: &Side) -> Result<(), SpillError> {
        let mut folding = std::mem::take(&mut self.folding);
        let added = self.add_as(key(name, &mut folding), name, side, s);
        self.folding = folding;
        added
    }

    /// [`Players::add`] to the player told apart by `key`.
    fn add_as(&mut self, key: &str, name: &str, side: Color, s: &Side) -> Result<(), SpillError> {
        if self.figures.len() == self.held && !self.ids.contains_key(key) {
            self.spill()?;
        }
        let next = self.figures.len() as u32;
        let id = *self.ids.entry_ref(key).or_insert(next) as usize;
        if id == self.figures.len() {
            self.figures.push(ByColor::default());
            self.spellings.push(spelt(name).into());
        }
        self.figures[id][side].add(s);
        Ok(())
    }

    /// Writes the players held out as a run sorted by name, and forgets them.
    fn spill(&mut self) -> Result<(), SpillError> {
        let run = self.held_run()?;
        self.runs.push(run);
        self.ids.clear();
        self.figures.clear();
        self.spellings.clear();
        Ok(())
    }

    /// The players held written to a new run, sorted by name as told apart, read from its start.
    fn held_run(&self) -> io::Result<File> {
        let mut file = BufWriter::new(tempfile::tempfile()?);
        for (_, id) in self.sorted() {
            let id = id as usize;
            write_player(&mut file, &self.spellings[id], &self.figures[id])?;
        }
        rewound(file)
    }

    /// The players held, by name as told apart.
    fn sorted(&self) -> Vec<(&str, u32)> {
        let mut held: Vec<(&str, u32)> = self.ids.iter().map(|(n, &id)| (n.as_ref(), id)).collect();
        held.sort_unstable_by(|a, b| a.0.cmp(b.0));
        held
    }

    /// Calls `f` once for each player with their name as first spelt and their figures summed
    /// over every game, in no particular order when none was written out, else by name in lower
    /// case.
    pub fn for_each(&self, mut f: impl FnMut(&str, &ByColor<Side>)) -> Result<(), SpillError> {
        if self.runs.is_empty() {
            for &id in self.ids.values() {
                f(&self.spellings[id as usize], &self.figures[id as usize]);
            }
            return Ok(());
        }
        // The runs, each read from its start, and the players held as the last run.
        let mut runs = Vec::with_capacity(self.runs.len() + 1);
        for run in &self.runs {
            let mut run = run.try_clone()?;
            run.seek(SeekFrom::Start(0))?;
            runs.push(run);
        }
        runs.push(self.held_run()?);
        let mut current: Option<ByName> = None;
        // Equal names come in the order of their runs, the order they were written out in: the
        // first holds the first spelling.
        for player in Merge::<ByName>::new(runs)? {
            let player = player?;
            match &mut current {
                // The runs hold a name once each: its figures are summed across them.
                Some(c) if c.key == player.key => {
                    for side in [Color::White, Color::Black] {
                        c.player.1[side].add(&player.player.1[side]);
                    }
                }
                _ => {
                    if let Some(ByName { player: (n, sum), .. }) = current.replace(player) {
                        f(&n, &sum);
                    }
                }
            }
        }
        if let Some(ByName { player: (n, sum), .. }) = current {
            f(&n, &sum);
        }
        Ok(())
    }

    /// [`Players::for_each`] of the players with at least `min_games` games whose name `keep`
    /// keeps; returns how many.
    fn for_each_qualified(
        &self,
        min_games: u64,
        keep: impl Fn(&str) -> bool,
        mut f: impl FnMut(&str, &ByColor<Side>),
    ) -> Result<usize, SpillError> {
        let mut qualified = 0;
        self.for_each(|name, figures| {
            if games(figures) >= min_games && keep(name) {
                qualified += 1;
                f(name, figures);
            }
        })?;
        Ok(qualified)
    }

    /// Calls `f` for each player [`Players::ranked`] counts, in its order (sorted in runs of at
    /// most the players held, written out, when they are more), until `f` breaks; returns how
    /// many qualified.
    pub fn for_each_ranked(
        &self,
        min_games: u64,
        keep: impl Fn(&str) -> bool,
        mut f: impl FnMut(&str, &ByColor<Side>) -> ControlFlow<()>,
    ) -> Result<usize, SpillError> {
        let (mut sorter, mut failed) = (Sorter::new(self.held), None);
        let qualified = self.for_each_qualified(min_games, keep, |name, figures| {
            if failed.is_none() {
                failed = sorter.push(ByRank((name.to_string(), *figures))).err();
            }
        })?;
        if let Some(e) = failed {
            return Err(e.into());
        }
        for player in sorter.finish()? {
            let ByRank((name, figures)) = player?;
            if f(&name, &figures).is_break() {
                break;
            }
        }
        Ok(qualified)
    }

    /// The first `most` players with at least `min_games` games whose name `keep` keeps, most
    /// games first and then by name, and how many qualified.
    pub fn ranked(
        &self,
        min_games: u64,
        keep: impl Fn(&str) -> bool,
        most: usize,
    ) -> Result<RankedPlayers, SpillError> {
        let mut players = Vec::new();
        // Cut back to `most` whenever twice as many are listed: memory bounded by `most`.
        let room = most.max(512) * 2;
        let qualified = self.for_each_qualified(min_games, keep, |name, figures| {
            players.push((name.to_string(), *figures));
            if players.len() >= room {
                players.sort_unstable_by(by_rank);
                players.truncate(most);
            }
        })?;
        players.sort_unstable_by(by_rank);
        players.truncate(most);
        Ok(RankedPlayers { players, qualified })
    }
}

/// A player's name and figures by colour.
type Player = (String, ByColor<Side>);

fn games(figures: &ByColor<Side>) -> u64 {
    figures.white.games + figures.black.games
}

/// The table's order: most games first, then by name.
fn by_rank(a: &Player, b: &Player) -> Ordering {
    games(&b.1).cmp(&games(&a.1)).then_with(|| a.0.cmp(&b.0))
}

/// A player of a run sorted by name as told apart ([`key`]), which is kept beside them.
struct ByName {
    key: String,
    player: Player,
}

/// A player of a run sorted in the table's order.
struct ByRank(Player);

impl PartialEq for ByName {
    fn eq(&self, other: &ByName) -> bool {
        self.key == other.key
    }
}
impl Eq for ByName {}
impl PartialOrd for ByName {
    fn partial_cmp(&self, other: &ByName) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for ByName {
    fn cmp(&self, other: &ByName) -> Ordering {
        self.key.cmp(&other.key)
    }
}

impl Record for ByName {
    fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        write_player(out, &self.player.0, &self.player.1)
    }
    fn read_from(input: &mut impl BufRead) -> io::Result<Option<ByName>> {
        let Some(player) = read_player(input)? else { return Ok(None) };
        let key = key(&player.0, &mut String::new()).to_string();
        Ok(Some(ByName { key, player }))
    }
}

impl PartialEq for ByRank {
    fn eq(&self, other: &ByRank) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for ByRank {}
impl PartialOrd for ByRank {
    fn partial_cmp(&self, other: &ByRank) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for ByRank {
    fn cmp(&self, other: &ByRank) -> Ordering {
        by_rank(&self.0, &other.0)
    }
}

impl Record for ByRank {
    fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        write_player(out, &self.0.0, &self.0.1)
    }
    fn read_from(input: &mut impl BufRead) -> io::Result<Option<ByRank>> {
        Ok(read_player(input)?.map(ByRank))
    }
}

/// A side's figures as a run holds them, in order.
fn side_words(s: &Side) -> [u64; 12] {
    let m = &s.moves;
    [
        s.games,
        s.scored,
        s.half_points,
        s.evaluated,
        m.moves,
        m.loss,
        m.loss_moves,
        m.judgements[0],
        m.judgements[1],
        m.judgements[2],
        s.accuracy.to_bits(),
        s.accuracy_games,
    ]
}

fn side_of(w: &[u64]) -> Side {
    Side {
        games: w[0],
        scored: w[1],
        half_points: w[2],
        evaluated: w[3],
        moves: MoveTotals { moves: w[4], loss: w[5], loss_moves: w[6], judgements: [w[7], w[8], w[9]] },
        accuracy: f64::from_bits(w[10]),
        accuracy_games: w[11],
    }
}

/// One player of a run: the name's length and bytes, then White's and Black's figures.
fn write_player(out: &mut impl Write, name: &str, figures: &ByColor<Side>) -> io::Result<()> {
    out.write_all(&(name.len() as u64).to_le_bytes())?;
    out.write_all(name.as_bytes())?;
    for side in [Color::White, Color::Black] {
        for w in side_words(&figures[side]) {
            out.write_all(&w.to_le_bytes())?;
        }
    }
    Ok(())
}

/// The next player of a run, `None` at its end.
fn read_player(run: &mut impl BufRead) -> io::Result<Option<(String, ByColor<Side>)>> {
    let mut word = [0u8; 8];
    if !read_or_end(run, &mut word)? {
        return Ok(None);
    }
    let mut name = vec![0u8; u64::from_le_bytes(word) as usize];
    run.read_exact(&mut name)?;
    let name = String::from_utf8(name).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let mut words = [0u64; 24];
    for w in &mut words {
        run.read_exact(&mut word)?;
        *w = u64::from_le_bytes(word);
    }
    Ok(Some((name, ByColor { white: side_of(&words[..12]), black: side_of(&words[12..]) })))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Games of many players in a fixed pseudo-random order, the same sums whoever adds them.
    fn played() -> Vec<(String, Color, Side)> {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        (0..5_000)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let side = if x & 1 == 0 { Color::White } else { Color::Black };
                let s = Side {
                    games: 1,
                    scored: 1,
                    half_points: x % 3,
                    evaluated: 1,
                    moves: MoveTotals { moves: 40, loss: x % 900, loss_moves: 39, judgements: [1, x % 2, 0] },
                    accuracy: (x % 100) as f64 * 0.5,
                    accuracy_games: 1,
                };
                (format!("p{:04}{}", (x >> 8) % 700, if i % 7 == 0 { "é" } else { "" }), side, s)
            })
            .collect()
    }

    fn table(held: usize) -> Players {
        let mut p = Players::holding(held);
        for (name, side, s) in played() {
            p.add(&name, side, &s).expect("added");
        }
        p
    }

    /// Every qualified player in the table's order, by [`Players::for_each_ranked`].
    fn streamed(p: &Players, min_games: u64) -> Vec<Player> {
        let mut all = Vec::new();
        let n = p
            .for_each_ranked(
                min_games,
                |_| true,
                |name, figures| {
                    all.push((name.to_string(), *figures));
                    ControlFlow::Continue(())
                },
            )
            .expect("ranked");
        assert_eq!(n, all.len());
        all
    }

    #[test]
    fn a_table_written_out_in_runs_ranks_as_one_held_whole() {
        let whole = table(usize::MAX);
        assert!(whole.runs.is_empty());
        let all = whole.ranked(3, |_| true, usize::MAX).expect("ranked");
        assert!(all.qualified > 500 && all.players.len() == all.qualified, "{}", all.qualified);
        assert_eq!(streamed(&whole, 3), all.players);
        for held in [1, 7, 100, 999] {
            let spilt = table(held);
            assert!(!spilt.runs.is_empty() && spilt.figures.len() <= held);
            // The integer figures equal; accuracies are summed in another order, so to 1e-9.
            let got = spilt.ranked(3, |_| true, usize::MAX).expect("ranked");
            assert_eq!(got.qualified, all.qualified);
            for ((n, a), (m, b)) in got.players.iter().zip(&all.players) {
                assert_eq!(n, m);
                for side in [Color::White, Color::Black] {
                    let (x, y) = (a[side], b[side]);
                    assert!((x.accuracy - y.accuracy).abs() < 1e-9, "{n}");
                    assert_eq!(Side { accuracy: 0.0, ..x }, Side { accuracy: 0.0, ..y }, "{n}");
                }
            }
            // Streamed through runs in the table's order too (with `held` players a run).
            assert_eq!(streamed(&spilt, 3), got.players);
            // Asked again, the runs are read again from their start.
            assert_eq!(spilt.ranked(3, |_| true, usize::MAX).expect("again"), got);
        }
    }

    #[test]
    fn the_ranking_lists_the_most_games_first_and_counts_every_qualified_player() {
        let p = table(50);
        let all = p.ranked(1, |_| true, usize::MAX).expect("ranked");
        let top = p.ranked(1, |_| true, 10).expect("ranked");
        assert_eq!(top.qualified, all.qualified);
        assert_eq!(top.players, all.players[..10]);
        assert!(all.players.windows(2).all(|w| by_rank(&w[0], &w[1]) == std::cmp::Ordering::Less));
        assert!(games(&all.players[0].1) > games(&all.players[all.players.len() - 1].1));
        let total: u64 = all.players.iter().map(|p| games(&p.1)).sum();
        assert_eq!(total, played().len() as u64);
        let one = p.ranked(1, |n| n == "p0001", usize::MAX).expect("ranked");
        assert_eq!(one.qualified, 1);
        assert!(one.players.iter().all(|(n, _)| n == "p0001"));
    }

    #[test]
    fn names_in_any_case_are_one_player_shown_as_first_spelt() {
        let one = Side { games: 1, ..Side::default() };
        let names = ["Alice", "ALICE", "bob", "alice", "Ärger", "ÄRGER", "Bob", " alice", "Ärger  ", "bob\t"];
        for held in [usize::MAX, 1, 2] {
            let mut p = Players::holding(held);
            for name in names {
                p.add(name, Color::White, &one).expect("added");
            }
            let got = p.ranked(1, |_| true, usize::MAX).expect("ranked");
            let got: Vec<(&str, u64)> = got.players.iter().map(|(n, f)| (n.as_str(), games(f))).collect();
            assert_eq!(got, [("Alice", 4), ("bob", 3), ("Ärger", 3)], "holding {held}");
            let alice =
                p.ranked(1, |n| super::super::name::same_name(n, "alice"), usize::MAX).expect("ranked");
            assert_eq!(alice.qualified, 1);
        }
    }
}
