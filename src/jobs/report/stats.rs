//! The release side of the report: every game's figures added up in input order ([`Totals`]):
//! the collection (games, results, dates, variants, sources, games without evaluations), each
//! player by colour, each opening family, the phases, the distribution of losses, accuracy by
//! rating, the recurring mistakes, and the games with the largest losses kept for their own
//! sections. Memory is bounded: the games kept are at most `--games`, the games without
//! evaluations listed at most [`LISTED`], the recurring mistakes counted at most [`RECURRING`]
//! (past that, mistakes seen once are forgotten to make room), the players held at most
//! [`HELD`](super::players::HELD) (the others written out in runs, [`super::players`]); the
//! opening families are the table's.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use hashbrown::HashMap;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::game::{Figures, GameRecord};
use super::html::{LISTED_PLIES, section_body};
use super::name::same_name;
use super::players::{Players, RankedPlayers, SpillError};
use super::sums::{Side, Spread};
use super::tally::{Judged, Tally};
use crate::chess::{ByColor, Color, Move, Position};
use crate::error::{Diagnostic, Error};
use crate::io::name::Name;
use crate::jobs::diagnostics;
use crate::jobs::run::Sink;
use crate::pgn::GameResult;
use crate::pipeline::Located;
use crate::pipeline::stats::Stats;

/// Games without evaluations listed by name, at most.
pub const LISTED: usize = 1_000;
/// Distinct recurring-mistake candidates (position and move) counted at once, at most.
pub const RECURRING: usize = 200_000;
/// The width of the rating buckets of accuracy by rating.
pub const RATING_BUCKET: u32 = 100;
/// The start of the last rating bucket, which holds every rating from it up: above any rating
/// list's, so a tag holding something else (an ID, a typo) adds no bucket of its own.
pub const RATING_TOP: u32 = 4_000;

/// The start of the rating bucket of `elo`.
pub fn rating_bucket(elo: u32) -> u32 {
    elo.min(RATING_TOP) / RATING_BUCKET * RATING_BUCKET
}

/// The last rating of the bucket starting at `from`; `None` for the last bucket, which has no end.
pub fn rating_last(from: u32) -> Option<u32> {
    (from < RATING_TOP).then(|| from + RATING_BUCKET - 1)
}

/// The ratings of the bucket starting at `from`: `1500-1599`, or `4000+` for the last.
pub fn rating_range(from: u32) -> String {
    match rating_last(from) {
        Some(last) => format!("{from}-{last}"),
        None => format!("{from}+"),
    }
}

/// A game with its figures. A game that cannot rank among the sections' (see
/// [`Totals::section_bar`]) travels without its moves: its record's per-move vectors and its
/// figures are empty, and its tally holds all the totals need.
#[derive(Clone, Debug)]
pub struct Analysed {
    /// The game.
    pub game: GameRecord,
    /// What its evaluations say.
    pub figures: Figures,
    /// What it adds to the totals.
    pub tally: Tally,
    /// The section after its heading ([`section_body`]), drawn as the game was read when it is
    /// longer than [`LISTED_PLIES`]: its record then travels without its moves and its figures
    /// empty, so a section holds a bounded drawing, not the game.
    pub drawn: Option<String>,
}

impl Analysed {
    /// `game` with its figures and tally from the point of view of `player` ([`super::name::key`]), its
    /// moves by phase and loss added to `spread`.
    pub fn new(game: GameRecord, player: Option<&str>, spread: &mut Spread) -> Analysed {
        let figures = Figures::of(&game);
        let tally = Tally::of(&game, figures.accuracy, player, spread);
        Analysed { game, figures, tally, drawn: None }
    }

    /// Draws the section of a game longer than [`LISTED_PLIES`] now (its boards flipped for
    /// `player`, at most `boards`), and hands back its record with its moves (for reuse).
    pub fn draw_if_long(&mut self, player: Option<&str>, boards: usize) -> Option<GameRecord> {
        if self.game.moves.len() <= LISTED_PLIES {
            return None;
        }
        let mut body = String::new();
        section_body(&mut body, self, player, boards);
        self.drawn = Some(body);
        self.figures = Figures::default();
        let head = self.game.take_head();
        Some(std::mem::replace(&mut self.game, head))
    }
}

/// One chunk's games, the games the filters left out, and the errors of the games kept.
#[derive(Debug, Default)]
pub struct ReportChunk {
    /// The games kept, in input order.
    pub games: Vec<Analysed>,
    /// Their moves by phase and by loss.
    pub spread: Spread,
    /// Games left out by the filters (or `--player`).
    pub filtered: u64,
    /// Games `--player` is in (every game without it), kept or not.
    pub played: u64,
    /// Errors in the games kept (their valid prefix is reported).
    pub diagnostics: Vec<Diagnostic>,
}

impl Located for ReportChunk {
    fn shift(&mut self, games: u64, lines: u64) {
        for g in &mut self.games {
            g.game.number += games;
        }
        self.diagnostics.shift(games, lines);
    }
}

/// An opening family's figures: its games from the point of view taken (White's, or the
/// player's), and the ECO codes its games were named.
#[derive(Clone, Debug, Default)]
pub struct Family {
    /// The point of view's figures.
    pub side: Side,
    /// The lowest and highest ECO code of its games.
    pub codes: Option<(&'static str, &'static str)>,
}

/// A wrong move played more than once in one position, within a family.
#[derive(Clone, Debug)]
pub struct Recurring {
    /// The family's name.
    pub family: &'static str,
    /// The position.
    pub position: Position,
    /// The move.
    pub mv: Move,
    /// Times judged there.
    pub count: u64,
    /// Centipawns lost, summed over those times.
    pub loss: u64,
    /// The order it was first seen in (among the judged moves counted, so no two share it).
    pub first: u64,
}

/// A game kept for its own section, ranked by its losses.
#[derive(Debug)]
struct Ranked {
    loss: u64,
    seq: u64,
    game: Box<Analysed>,
}

impl Ranked {
    fn key(&self) -> (u64, Reverse<u64>) {
        (self.loss, Reverse(self.seq))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, o: &Ranked) -> bool {
        self.key() == o.key()
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, o: &Ranked) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Ranked {
    fn cmp(&self, o: &Ranked) -> std::cmp::Ordering {
        self.key().cmp(&o.key())
    }
}

/// A game without evaluations, listed.
#[derive(Clone, Debug)]
pub struct Unevaluated {
    /// Its input.
    pub input: Arc<Name>,
    /// Its number there.
    pub number: u64,
    /// White and Black.
    pub players: (String, String),
}

/// Everything the report says, added up game by game in input order.
pub struct Totals<W> {
    diagnostics: W,
    /// The point of view as players are told apart ([`super::name::key`]).
    player: Option<String>,
    /// The point of view as the user named it.
    named: Option<String>,
    wanted: usize,
    /// Boards a section draws at most (see [`Totals::set_boards`]).
    boards: usize,
    input: Arc<Name>,
    seq: u64,
    /// Games reported (kept by the filters).
    pub games: u64,
    /// Games left out by the filters.
    pub filtered: u64,
    /// Games `--player` is in (every game without it), kept or not: none is worth a warning.
    pub played: u64,
    /// Games with evaluations.
    pub evaluated: u64,
    /// Games whose replay an error ended (their valid prefix is reported).
    pub broken: u64,
    /// Games without evaluations: how many, and the first [`LISTED`].
    pub unevaluated: (u64, Vec<Unevaluated>),
    /// 1-0, 0-1, 1/2-1/2, `*`.
    pub results: [u64; 4],
    /// The earliest and latest date (`YYYY.MM.DD`, unknown parts as `??`).
    pub dates: Option<(String, String)>,
    /// Games by variant.
    pub variants: BTreeMap<&'static str, u64>,
    /// Games by input.
    pub sources: Vec<(Name, u64)>,
    /// Each player's figures by colour.
    players: Players,
    /// The players' table could not be written out: the run fails with this.
    failed: Option<SpillError>,
    /// Each opening family's figures.
    pub families: BTreeMap<&'static str, Family>,
    /// The point of view's figures by colour.
    pub sides: ByColor<Side>,
    /// The point of view's moves by phase and by centipawn loss.
    pub spread: Spread,
    /// Accuracy by rating: bucket start -> (games, accuracy summed).
    pub ratings: BTreeMap<u32, (u64, f64)>,
    /// Keyed by the family's number in `family_ids`, the position's key and the move.
    recurring: HashMap<(u32, u64, u16), Recurring>,
    /// A number for each family seen: the recurring mistakes' key, hashed for each judged move.
    family_ids: HashMap<&'static str, u32>,
    /// Judged moves counted so far: the order recurring mistakes were first seen in.
    judged_seen: u64,
    /// Recurring-mistake candidates forgotten to bound memory.
    pub forgotten: u64,
    top: BinaryHeap<Reverse<Ranked>>,
    bar: Arc<AtomicU64>,
}

/// The family name of a game: the lichess table's name up to its colon.
pub fn family_of(game: &GameRecord) -> &'static str {
    match game.opening {
        Some(o) => o.name.split(':').next().unwrap_or(o.name).trim(),
        None => "(unclassified)",
    }
}

impl<W: Write> Totals<W> {
    /// Totals from the point of view of `player` (as the user wrote it, matched in any case;
    /// `None`: both sides of every game), keeping the `wanted` games with the largest losses;
    /// errors go to `diagnostics`.
    pub fn new(diagnostics: W, player: Option<String>, wanted: usize) -> Totals<W> {
        Totals {
            diagnostics,
            player: player.as_ref().map(|p| super::name::key(p, &mut String::new()).to_owned()),
            named: player,
            wanted,
            boards: super::DEFAULT_BOARDS,
            input: Arc::default(),
            seq: 0,
            games: 0,
            filtered: 0,
            played: 0,
            evaluated: 0,
            broken: 0,
            unevaluated: (0, Vec::new()),
            results: [0; 4],
            dates: None,
            variants: BTreeMap::new(),
            sources: Vec::new(),
            players: Players::default(),
            failed: None,
            families: BTreeMap::new(),
            sides: ByColor::default(),
            spread: Spread::default(),
            ratings: BTreeMap::new(),
            recurring: HashMap::new(),
            family_ids: HashMap::new(),
            judged_seen: 0,
            forgotten: 0,
            top: BinaryHeap::new(),
            bar: Arc::new(AtomicU64::new(if wanted == 0 { u64::MAX } else { 0 })),
        }
    }

    /// The loss a game's sides taken must reach to be able to rank among the sections: a game
    /// that loses less would be turned away by the games kept so far, so its reader sends it
    /// without its moves. It only grows, so a reader that sees it late sends more, never less.
    pub fn section_bar(&self) -> Arc<AtomicU64> {
        self.bar.clone()
    }

    /// Sets the boards a section draws at most, as the page will ([`super::html::Page::boards`]):
    /// a long game's section is drawn as it is kept.
    pub fn set_boards(&mut self, boards: usize) {
        self.boards = boards;
    }

    /// The point of view as the user named it: `None` for both sides.
    pub fn player(&self) -> Option<&str> {
        self.named.as_deref()
    }

    /// The point of view as players are told apart ([`super::name::key`]), as names are matched against it.
    pub fn player_key(&self) -> Option<&str> {
        self.player.as_deref()
    }

    /// Adds one game read outside the pipeline (from JSON Lines).
    pub fn add_record(&mut self, game: GameRecord) {
        let a = Analysed::new(game, self.player.as_deref(), &mut self.spread);
        self.add(a);
    }

    /// Adds one game (its [`Spread`] is added apart: a chunk's at once).
    pub fn add(&mut self, mut a: Analysed) {
        a.game.input = self.input.clone();
        let game = &a.game;
        self.seq += 1;
        self.games += 1;
        if let Some((_, n)) = self.sources.last_mut() {
            *n += 1;
        }
        self.broken += u64::from(game.broken);
        let r = match game.result {
            GameResult::WhiteWins => 0,
            GameResult::BlackWins => 1,
            GameResult::Draw => 2,
            GameResult::Unknown => 3,
        };
        self.results[r] += 1;
        if let Some(d) = game
            .tags
            .get(super::game::TagName::Date)
            .filter(|d| d.len() >= 4 && d.as_bytes()[..4].iter().all(u8::is_ascii_digit))
        {
            match &mut self.dates {
                Some((lo, hi)) => {
                    if d < lo.as_str() {
                        *lo = d.to_string();
                    }
                    if d > hi.as_str() {
                        *hi = d.to_string();
                    }
                }
                None => self.dates = Some((d.to_string(), d.to_string())),
            }
        }
        *self.variants.entry(game.variant.name()).or_default() += 1;
        let evaluated = a.tally.evaluated;
        if evaluated {
            self.evaluated += 1;
        } else {
            self.unevaluated.0 += 1;
            if self.unevaluated.1.len() < LISTED {
                self.unevaluated.1.push(Unevaluated {
                    input: game.input.clone(),
                    number: game.number,
                    players: (game.player(Color::White).to_string(), game.player(Color::Black).to_string()),
                });
            }
        }
        let family = family_of(game);
        let Tally { sides: figures, takes, accuracy, judged, .. } = std::mem::take(&mut a.tally);
        if !judged.is_empty() {
            let next = self.family_ids.len() as u32;
            let id = *self.family_ids.entry(family).or_insert(next);
            for j in &judged {
                self.recur(family, id, j);
            }
        }
        for side in [Color::White, Color::Black] {
            if let Err(e) = self.players.add(game.player(side), side, &figures[side]) {
                self.failed.get_or_insert(e);
            }
        }
        let mut view = Side::default();
        let mut ranked_loss = 0;
        for side in [Color::White, Color::Black].into_iter().filter(|&side| takes[side]) {
            let s = figures[side];
            self.sides[side].add(&s);
            ranked_loss += s.moves.loss;
            if let (Some(elo), Some(acc)) = (game.tags.elo[side], accuracy.map(|a| a[side])) {
                let e = self.ratings.entry(rating_bucket(elo)).or_default();
                e.0 += 1;
                e.1 += acc;
            }
            // Without a player the family's games and score are White's, its accuracy both sides'.
            let counted = if self.player.is_some() || side == Color::White {
                s
            } else {
                Side { games: 0, scored: 0, half_points: 0, ..s }
            };
            view.add(&counted);
        }
        let fam = self.families.entry(family).or_default();
        fam.side.add(&view);
        if let Some(o) = game.opening {
            fam.codes = Some(match fam.codes {
                Some((lo, hi)) => (lo.min(o.eco), hi.max(o.eco)),
                None => (o.eco, o.eco),
            });
        }
        if evaluated {
            self.keep(a, ranked_loss);
        }
    }

    /// Counts a judged move for the recurring mistakes.
    fn recur(&mut self, family: &'static str, id: u32, j: &Judged) {
        let (pos, m, loss) = (&j.position, j.mv, j.loss);
        self.judged_seen += 1;
        let key = (id, j.key, m.to_u16());
        if let Some(r) = self.recurring.get_mut(&key) {
            r.count += 1;
            r.loss += loss;
            return;
        }
        if self.recurring.len() >= RECURRING {
            let before = self.recurring.len();
            self.recurring.retain(|_, r| r.count > 1);
            self.forgotten += (before - self.recurring.len()) as u64;
            if self.recurring.len() >= RECURRING {
                self.forgotten += 1;
                return;
            }
        }
        let r = Recurring { family, position: *pos, mv: m, count: 1, loss, first: self.judged_seen };
        self.recurring.insert(key, r);
    }

    /// Keeps the game for its own section if its loss ranks among the `wanted` largest.
    fn keep(&mut self, mut a: Analysed, loss: u64) {
        if self.wanted == 0 {
            return;
        }
        // Later games rank below earlier ones of the same loss.
        let full = self.top.len() >= self.wanted;
        if full && self.top.peek().is_some_and(|Reverse(min)| loss <= min.loss) {
            return;
        }
        debug_assert!(
            !a.game.moves.is_empty() || a.drawn.is_some(),
            "a game sent without its moves ranked among the sections"
        );
        // A game read from records arrives whole: a long one is drawn now.
        a.draw_if_long(self.player.as_deref(), self.boards);
        if full {
            self.top.pop();
        }
        self.top.push(Reverse(Ranked { loss, seq: self.seq, game: Box::new(a) }));
        if self.top.len() >= self.wanted
            && let Some(Reverse(min)) = self.top.peek()
        {
            // A game losing no more than the least kept is turned away from here on.
            self.bar.store(min.loss.saturating_add(1), Ordering::Relaxed);
        }
    }

    /// The games kept for their own sections, the largest loss first (input order among equals).
    pub fn kept_games(&mut self) -> Vec<Analysed> {
        let mut v: Vec<Ranked> = std::mem::take(&mut self.top).into_iter().map(|Reverse(r)| r).collect();
        v.sort_by(|a, b| b.cmp(a));
        v.into_iter().map(|r| *r.game).collect()
    }

    /// Each family's most costly recurring mistake (seen more than once): the largest loss
    /// summed, then the most times, then the first seen.
    pub fn recurring(&self) -> BTreeMap<&'static str, Recurring> {
        let mut best: BTreeMap<&'static str, Recurring> = BTreeMap::new();
        for r in self.recurring.values().filter(|r| r.count > 1) {
            let better = |old: &Recurring| {
                (r.loss, r.count, Reverse(r.first)) > (old.loss, old.count, Reverse(old.first))
            };
            match best.get(r.family) {
                Some(old) if !better(old) => {}
                _ => {
                    best.insert(r.family, r.clone());
                }
            }
        }
        best
    }

    /// The first `most` players with at least `min_games` games (but `?`, and with `--player`
    /// that player alone), most games first, then by name, and how many qualified.
    pub fn ranked_players(&mut self, min_games: u64, most: usize) -> Result<RankedPlayers, Error> {
        self.take_failure()?;
        let player = self.player.as_deref();
        Ok(self.players.ranked(min_games, |name| is_listed(name, player), most)?)
    }

    /// Calls `f` for every player [`Totals::ranked_players`] would list, in its order, until `f`
    /// breaks; returns how many qualified (memory bounded however many: they are sorted in runs
    /// on disk past a bound).
    pub fn for_each_player(
        &mut self,
        min_games: u64,
        f: impl FnMut(&str, &ByColor<Side>) -> std::ops::ControlFlow<()>,
    ) -> Result<usize, Error> {
        self.take_failure()?;
        let player = self.player.as_deref();
        Ok(self.players.for_each_ranked(min_games, |name| is_listed(name, player), f)?)
    }

    fn take_failure(&mut self) -> Result<(), Error> {
        match self.failed.take() {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }
}

/// Whether the players' table lists `name`: not `?`, and with `--player` that player alone.
fn is_listed(name: &str, player: Option<&str>) -> bool {
    name != "?" && player.is_none_or(|p| same_name(name, p))
}

impl<W: Write> Sink<ReportChunk> for Totals<W> {
    fn begin_input(&mut self, input: &Name) -> Result<(), Error> {
        self.input = input.clone().into();
        self.sources.push((input.clone(), 0));
        Ok(())
    }

    fn release(&mut self, chunk: ReportChunk, _: &mut Stats) -> Result<(), Error> {
        for d in &chunk.diagnostics {
            let _ = writeln!(self.diagnostics, "{}", diagnostics::diagnostic_text(self.input.prose(), d));
        }
        self.filtered += chunk.filtered;
        self.played += chunk.played;
        self.spread.add(&chunk.spread);
        for g in chunk.games {
            self.add(g);
        }
        self.take_failure()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Square;

    #[test]
    fn ratings_from_4000_up_share_the_last_bucket() {
        let buckets: Vec<u32> = [0, 99, 1599, 3999, 4000, 4_100_018, u32::MAX].map(rating_bucket).to_vec();
        assert_eq!(buckets, [0, 0, 1500, 3900, 4000, 4000, 4000]);
        assert_eq!((rating_range(1500), rating_range(4000)), ("1500-1599".to_string(), "4000+".to_string()));
    }

    fn judged_game(judged: Vec<Judged>) -> Analysed {
        let tally = Tally { evaluated: true, judged, ..Tally::default() };
        Analysed { game: GameRecord::new(1), figures: Figures::default(), tally, drawn: None }
    }

    #[test]
    fn recurring_mistakes_tied_go_to_the_first_seen() {
        // Two mistakes of one game, each repeated in a second: the same loss and count, first
        // seen in the same game. Every map gets its own hash seed, so an order taken from the map
        // would change from one set of totals to the next.
        let judged = |key, mv, loss| Judged { key, position: Position::default(), mv, loss };
        let (d4, e4) = (Move::normal(Square::D2, Square::D4), Move::normal(Square::E2, Square::E4));
        for _ in 0..32 {
            let mut t = Totals::new(std::io::sink(), None, 0);
            for _ in 0..2 {
                t.add(judged_game(vec![judged(2, d4, 100), judged(1, e4, 100)]));
            }
            let r = t.recurring();
            assert_eq!((r["(unclassified)"].mv, r["(unclassified)"].count), (d4, 2));
        }
    }
}
