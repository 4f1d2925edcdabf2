//! [`Selection`]: the filters of a run, all of which a game must pass (or, with `invert`, fail).
//! Those on the tags (`--where`, `--variant`, `--result`) are decided before the game is
//! replayed, so a game they leave out costs only its reading; the others are decided as its
//! mainline is replayed ([`Tracker`]): its length (`--min-ply`, `--where 'Plies > N'`), the
//! position it reaches, the material on the board, how it ended, and its opening. [`Filter`]
//! also notes which `--where` expressions some game had the tags of ([`Selection::absent`]).

use std::fmt;

use serde_json::{Value, json};

use super::eco::{EcoTracker, Opening};
use super::material::MaterialSig;
use super::tags::TagExpr;
use crate::chess::{Position, Variant};
use crate::pgn::GameResult;
use crate::pipeline::replay::{Game, Verdict, played_variant};
use crate::pipeline::stats::Stats;

/// How a game ended on the board after its mainline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The side to move is mated.
    Checkmate,
    /// The side to move has no move and is not in check.
    Stalemate,
    /// Neither side has the material to mate.
    Insufficient,
    /// Fifty moves without a capture or a pawn move: a draw can be claimed.
    FiftyMoves,
    /// The last position stands for the third time: a draw can be claimed.
    Repetition,
}

impl Ending {
    /// The name `--ending` takes.
    pub const fn name(self) -> &'static str {
        match self {
            Ending::Checkmate => "checkmate",
            Ending::Stalemate => "stalemate",
            Ending::Insufficient => "insufficient",
            Ending::FiftyMoves => "fifty-moves",
            Ending::Repetition => "repetition",
        }
    }
}

/// ECO codes from `A00` to `E99`, as ranges (`A00-B99`, `C42`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EcoRanges(Vec<(u16, u16)>);

impl EcoRanges {
    /// Parses `A00-B99`, `C42`, or several separated by commas.
    pub fn parse(text: &str) -> Result<EcoRanges, String> {
        let ranges = text
            .split(',')
            .map(|r| match r.split_once('-') {
                Some((a, b)) => match (eco_number(a)?, eco_number(b)?) {
                    (a, b) if a <= b => Ok((a, b)),
                    _ => Err(format!("{:?} is reversed: it would match nothing", r.trim())),
                },
                None => eco_number(r).map(|c| (c, c)),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(EcoRanges(ranges))
    }

    /// Every range of `all` as one filter (`None` when there is none).
    pub fn union(all: &[EcoRanges]) -> Option<EcoRanges> {
        (!all.is_empty()).then(|| EcoRanges(all.iter().flat_map(|r| r.0.iter().copied()).collect()))
    }

    /// Whether `eco` (e.g. `B90`) is in a range.
    pub fn contains(&self, eco: &str) -> bool {
        eco_number(eco).is_ok_and(|e| self.0.iter().any(|&(a, b)| (a..=b).contains(&e)))
    }
}

/// `A00`..`E99` as 0..500.
fn eco_number(code: &str) -> Result<u16, String> {
    match code.trim().as_bytes() {
        &[l @ b'A'..=b'E', d1 @ b'0'..=b'9', d2 @ b'0'..=b'9'] => {
            Ok(u16::from(l - b'A') * 100 + u16::from(d1 - b'0') * 10 + u16::from(d2 - b'0'))
        }
        _ => Err(format!("not an ECO code (A00 to E99): {code:?}")),
    }
}

impl fmt::Display for EcoRanges {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let code = |c: u16| format!("{}{:02}", char::from(b'A' + (c / 100) as u8), c % 100);
        let parts: Vec<String> = self
            .0
            .iter()
            .map(|&(a, b)| if a == b { code(a) } else { format!("{}-{}", code(a), code(b)) })
            .collect();
        f.write_str(&parts.join(","))
    }
}

/// The filters of a run.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Tag expressions, all of which must hold.
    pub wheres: Vec<TagExpr>,
    /// At least this many mainline plies.
    pub min_ply: Option<u32>,
    /// At most this many mainline plies.
    pub max_ply: Option<u32>,
    /// This rule set.
    pub variant: Option<Variant>,
    /// This result (the `Result` tag where it spells one, else the movetext's result, else `*`).
    pub result: Option<GameResult>,
    /// `result` is judged on the result the job writes, given at the game's end
    /// ([`Filter::finish_written`]), not on the tags (`clean`, where the board, the token or
    /// `--fix-results` may write another).
    pub result_written: bool,
    /// This ending on the board after the mainline.
    pub ending: Option<Ending>,
    /// The mainline reaches this position (by any move order).
    pub position: Option<Position>,
    /// The mainline reaches this material balance.
    pub material: Option<MaterialSig>,
    /// The opening's ECO code is in these ranges (from the classification, else the `ECO` tag).
    pub eco: Option<EcoRanges>,
    /// Keep the games the filters leave out, and leave out the others.
    pub invert: bool,
}

/// What the tags tell of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OnTags {
    /// Kept, whatever its moves: replay it.
    Keep,
    /// Left out, by the filter named: no need to replay it.
    Drop(String),
    /// The moves decide: replay it and ask [`Tracker::finish`].
    Replay,
}

impl Selection {
    /// Whether there is no filter.
    pub fn is_empty(&self) -> bool {
        self.wheres.is_empty()
            && self.variant.is_none()
            && self.result.is_none()
            && !self.on_moves()
            && self.eco.is_none()
    }

    /// Whether a filter is decided on the moves.
    fn on_moves(&self) -> bool {
        self.min_ply.is_some()
            || self.max_ply.is_some()
            || self.ending.is_some()
            || self.position.is_some()
            || self.material.is_some()
    }

    /// The first filter on the tags that `game` fails, if any (`None`: the tags pass, or say
    /// nothing yet, as a missing Result tag); `plies`, the mainline's length once replayed,
    /// decides the expressions on it (before, they say nothing yet).
    fn failed_on_tags(&self, game: &Game<'_>, plies: Option<u32>) -> Option<String> {
        if let Some(w) = self.wheres.iter().find(|w| w.decide_game(game, plies) == Some(false)) {
            return Some(format!("where {w}"));
        }
        if let Some(v) = self.variant
            && !variant_waits(game, plies)
        {
            let tag = game.tag_text(b"Variant");
            let variant = tag.as_deref().map_or(Ok(Variant::Standard), Variant::from_tag);
            // Once replayed, an untagged game whose FEN needs Chess960 castling is Chess960.
            let variant = variant.map(|v| played_variant(v, game.start.as_ref()));
            if variant != Ok(v) {
                return Some(format!("variant {}", v.name()));
            }
        }
        if let Some(r) = self.result.filter(|_| !self.result_written)
            && let Some(t) = game.tag(b"Result").and_then(|t| GameResult::from_tag(&t.unescape()))
            && t != r
        {
            return Some(format!("result {}", r.as_str()));
        }
        None
    }

    /// What the tags decide for `game`. Filters that need the moves or the opening answer
    /// [`OnTags::Replay`].
    pub fn on_tags(&self, game: &Game<'_>) -> OnTags {
        let failed = self.failed_on_tags(game, None);
        let moves_decide = self.on_moves()
            || self.eco.is_some()
            || self.result.is_some()
            || self.wheres.iter().any(|w| w.needs_plies(game))
            || (self.variant.is_some() && variant_waits(game, None));
        match (failed, self.invert) {
            (Some(by), false) => OnTags::Drop(by),
            (Some(_), true) => OnTags::Keep,
            (None, _) if moves_decide => OnTags::Replay,
            (None, false) => OnTags::Keep,
            (None, true) => OnTags::Drop("invert".into()),
        }
    }

    /// A tracker for the games' mainlines; it names their openings when `classify` says so or
    /// a filter asks for it.
    pub fn tracker(&self, classify: bool) -> Tracker {
        Tracker { eco: (classify || self.eco.is_some()).then(EcoTracker::new), ..Tracker::default() }
    }

    /// The `--where` expressions that no game of a run whose counts are `stats` had the tags
    /// of ([`TagExpr::has_value`]), in order: each held for no game (with `!=`, for every
    /// game), which is worth a warning. None when no game was read.
    pub fn absent(&self, stats: &Stats) -> Vec<Absent<'_>> {
        if stats.games == 0 {
            return Vec::new();
        }
        let seen = |i: usize| stats.wheres_seen.get(i).copied().unwrap_or(false);
        self.wheres.iter().enumerate().filter(|&(i, _)| !seen(i)).map(|(_, expr)| Absent { expr }).collect()
    }

    /// [`absent`](Self::absent) as JSON for a run's summary record (`null` when none is):
    /// `[{"where": "WhiteElo >= 2500", "tags": ["WhiteElo"], "message": "..."}]`.
    pub fn absent_json(&self, stats: &Stats) -> Option<Value> {
        let absent = self.absent(stats);
        (!absent.is_empty()).then(|| absent.iter().map(Absent::json).collect::<Vec<_>>().into())
    }
}

/// Whether `--variant` waits for the replay to decide on `game` (`plies`: `None` before it): a
/// game with a FEN and no Variant tag is Chess960 when the FEN needs its castling
/// ([`played_variant`]), which the start position tells.
fn variant_waits(game: &Game<'_>, plies: Option<u32>) -> bool {
    plies.is_none() && game.tag(b"FEN").is_some() && game.tag(b"Variant").is_none()
}

/// A `--where` expression whose tags no game of the run had.
#[derive(Clone, Copy, Debug)]
pub struct Absent<'s> {
    /// The expression.
    pub expr: &'s TagExpr,
}

impl Absent<'_> {
    /// As a summary record lists it: the expression, the tags it reads, the warning's text.
    pub fn json(&self) -> Value {
        json!({"where": self.expr.to_string(), "tags": self.expr.tags_read(), "message": self.to_string()})
    }
}

/// The warning: `--where 'WhiteElo >= 2500': no game had the tag WhiteElo, so it held for none`.
impl fmt::Display for Absent<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self.expr;
        let held = if e.op() == super::tags::Op::Ne { "every game" } else { "none" };
        write!(f, "--where '{e}': no game had {}, so it held for {held}", e.value_source())
    }
}

/// What a game's mainline showed, position by position.
#[derive(Debug, Default)]
pub struct Tracker {
    position: bool,
    material: bool,
    /// Keys of the mainline's positions, for `--ending repetition`.
    keys: Vec<u64>,
    /// The opening classification, when asked for.
    eco: Option<EcoTracker>,
}

impl Tracker {
    /// Starts a new game.
    pub fn clear(&mut self) {
        self.position = false;
        self.material = false;
        self.keys.clear();
        if let Some(e) = &mut self.eco {
            e.reset();
        }
    }

    /// The opening of the game's mainline (the deepest position the table lists), when the
    /// tracker classifies.
    pub fn opening(&self) -> Option<&'static Opening> {
        self.eco.as_ref()?.opening()
    }

    /// A position of the mainline (the start and after each ply).
    #[inline]
    pub fn observe(&mut self, sel: &Selection, pos: &Position) {
        if let Some(target) = &sel.position
            && !self.position
        {
            self.position = pos.same_position(target);
        }
        if let Some(m) = &sel.material
            && !self.material
        {
            self.material = m.matches(pos);
        }
        if sel.ending == Some(Ending::Repetition) {
            self.keys.push(pos.zobrist());
        }
        if let Some(e) = &mut self.eco {
            e.observe(pos);
        }
    }

    /// Whether `game` (replayed, ending in `last`, every position of its mainline observed)
    /// passes `sel`: `Ok` to keep it, else the filter that left it out (or `invert`).
    pub fn finish(&self, sel: &Selection, game: &Game<'_>, last: Option<&Position>) -> Result<(), String> {
        self.finish_written(sel, game, last, None)
    }

    /// [`Tracker::finish`] with the result the job writes, which judges
    /// [`Selection::result`] when [`Selection::result_written`] (`None`: not known, a rejected
    /// game's, which no result leaves out).
    pub fn finish_written(
        &self,
        sel: &Selection,
        game: &Game<'_>,
        last: Option<&Position>,
        written: Option<GameResult>,
    ) -> Result<(), String> {
        let failed = self.failed(sel, game, last, written);
        match (failed, sel.invert) {
            (None, false) | (Some(_), true) => Ok(()),
            (Some(by), false) => Err(by),
            (None, true) => Err("invert".into()),
        }
    }

    fn failed(
        &self,
        sel: &Selection,
        game: &Game<'_>,
        last: Option<&Position>,
        written: Option<GameResult>,
    ) -> Option<String> {
        if let Some(by) = sel.failed_on_tags(game, Some(game.plies)) {
            return Some(by);
        }
        if let Some(r) = sel.result {
            let fails = if sel.result_written {
                written.is_some_and(|w| w != r)
            } else {
                // The tag judged it where it reads as a result; else the token, else unknown (`*`):
                // `[Result "?"]` is no result, nor a game that ends without a token.
                let tag = game.tag(b"Result").and_then(|t| GameResult::from_tag(&t.unescape()));
                tag.is_none() && game.result.unwrap_or(GameResult::Unknown) != r
            };
            if fails {
                return Some(format!("result {}", r.as_str()));
            }
        }
        let plies = game.plies;
        if let Some(min) = sel.min_ply.filter(|&m| plies < m) {
            return Some(format!("min-ply {min}"));
        }
        if let Some(max) = sel.max_ply.filter(|&m| plies > m) {
            return Some(format!("max-ply {max}"));
        }
        if let Some(e) = sel.ending {
            let ended = last.is_some_and(|pos| match e {
                Ending::Checkmate => pos.is_checkmate(),
                Ending::Stalemate => pos.is_stalemate(),
                Ending::Insufficient => pos.is_insufficient_material(),
                // The clock alone, as `scripts/select_oracle.py` reads it.
                Ending::FiftyMoves => pos.halfmoves() >= 100,
                Ending::Repetition => {
                    use crate::chess::outcome::{repetition_window, repetitions};
                    repetitions(&self.keys, repetition_window(pos)) >= 3
                }
            });
            if !ended {
                return Some(format!("ending {}", e.name()));
            }
        }
        if sel.position.is_some() && !self.position {
            return Some("position".into());
        }
        if let Some(m) = &sel.material
            && !self.material
        {
            return Some(format!("material {m}"));
        }
        if let Some(r) = &sel.eco
            && !match self.opening() {
                Some(o) => r.contains(o.eco),
                None => game.tag_text(b"ECO").is_some_and(|e| r.contains(&e)),
            }
        {
            return Some(format!("eco {r}"));
        }
        None
    }
}

/// What a job asks of the selection, game by game: the verdict on the tags, the positions of the
/// mainline, and the fate of the game once replayed. One per worker and chunk.
#[derive(Debug)]
pub struct Filter<'s> {
    sel: &'s Selection,
    /// The selection is not empty (asked per move by some jobs: kept, not recomputed).
    active: bool,
    tracker: Tracker,
    classify: bool,
    state: State,
    /// Per `--where` expression: some game had its tags ([`Stats::wheres_seen`]).
    seen: Vec<bool>,
    /// How many of `seen` are false: once none is, games are no longer looked at for them.
    unseen: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    /// Kept whatever its moves, and not classified.
    Keep,
    /// Left out by its tags.
    Dropped(String),
    /// Its mainline is observed.
    Tracked,
    /// Replayed and kept or left out; its opening, when classified.
    Done(Option<&'static Opening>),
}

impl<'s> Filter<'s> {
    /// The filter of `sel`; with `classify`, every game's opening is named too
    /// ([`Filter::opening`]).
    pub fn new(sel: &'s Selection, classify: bool) -> Filter<'s> {
        Filter {
            sel,
            active: !sel.is_empty(),
            tracker: sel.tracker(classify),
            classify,
            state: State::Keep,
            seen: vec![false; sel.wheres.len()],
            unseen: sel.wheres.len(),
        }
    }

    /// Adds what the games so far showed of the `--where` expressions to `stats`
    /// ([`Stats::wheres_seen`]); a job calls it with its chunk's counts.
    pub fn count(&self, stats: &mut Stats) {
        stats.see_wheres(&self.seen);
    }

    /// Whether it leaves any game out.
    #[inline]
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Decides on the game's tags: [`Verdict::Skip`] when they leave it out.
    pub fn tags(&mut self, game: &Game<'_>) -> Verdict {
        if self.unseen > 0 {
            for (w, seen) in self.sel.wheres.iter().zip(&mut self.seen) {
                if !*seen && w.has_value(game) {
                    *seen = true;
                    self.unseen -= 1;
                }
            }
        }
        self.state = match self.sel.on_tags(game) {
            OnTags::Drop(by) => State::Dropped(by),
            OnTags::Keep if !self.classify => State::Keep,
            OnTags::Keep | OnTags::Replay => {
                self.tracker.clear();
                State::Tracked
            }
        };
        if matches!(self.state, State::Dropped(_)) { Verdict::Skip } else { Verdict::Replay }
    }

    /// A position of the mainline (the start position, then after each ply), in order.
    #[inline]
    pub fn observe(&mut self, pos: &Position) {
        if matches!(self.state, State::Tracked) {
            self.tracker.observe(self.sel, pos);
        }
    }

    /// The fate of the game that ended in `last`: `Ok` to keep it, else the filter that left it
    /// out. Call once per game, after its last move.
    pub fn finish(&mut self, game: &Game<'_>, last: Option<&Position>) -> Result<(), String> {
        self.finish_written(game, last, None)
    }

    /// [`Filter::finish`] with the result the job writes (see [`Selection::result_written`]).
    pub fn finish_written(
        &mut self,
        game: &Game<'_>,
        last: Option<&Position>,
        written: Option<GameResult>,
    ) -> Result<(), String> {
        match std::mem::replace(&mut self.state, State::Done(None)) {
            State::Keep | State::Done(_) => Ok(()),
            State::Dropped(by) => Err(by),
            State::Tracked => {
                if let Some(pos) = last {
                    self.tracker.observe(self.sel, pos);
                }
                self.state = State::Done(self.tracker.opening());
                self.tracker.finish_written(self.sel, game, last, written)
            }
        }
    }

    /// The opening of the game just finished, when classifying (`None` for a game left out on
    /// its tags, or one the table does not name).
    pub fn opening(&self) -> Option<&'static Opening> {
        match self.state {
            State::Done(o) => o,
            _ => None,
        }
    }
}
