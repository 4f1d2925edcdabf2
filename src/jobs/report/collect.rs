//! Reading a chunk of PGN for the report: each game replayed once, its [`GameRecord`] built from
//! its events (tags, the mainline with each move's `[%eval]`, `[%clk]`, judgement NAG and
//! `X was best.` comment, the first variation after each move), its phases and opening observed
//! as it is played, and the filters' verdict (with `--player`, games the player is not in are
//! left out).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::divider::Divider;
use super::game::{Figures, GameRecord, LINE_PLIES, TagName, nag_judgement};
use super::stats::Analysed;
use super::sums::Spread;
use super::tally::Tally;
use crate::analysis::Score;
use crate::analysis::judge::{AccuracyBuffers, INITIAL_EVAL, accuracy_in, eval_score, judge, read_comment};
use crate::chess::{Color, Position};
use crate::error::{Diagnostic, Kind, Severity};
use crate::notation::san::parse_san;
use crate::pgn::{GameResult, Nag, RawComment, RawTag};
use crate::pipeline::replay::{EvalClock, Game, Hooks, Lines, Played, Verdict};
use crate::select::{Filter, Selection};

/// Whether `text` is a web address worth a link.
pub fn is_url(text: &str) -> bool {
    (text.starts_with("https://") || text.starts_with("http://"))
        && if text.is_ascii() {
            !text.bytes().any(|b| b.is_ascii_whitespace() || b == 0x0b)
        } else {
            !text.contains(char::is_whitespace)
        }
}

/// The hooks of one chunk.
pub(super) struct Collect<'s> {
    pub(super) filter: Filter<'s>,
    /// With `--player`: the name as players are told apart ([`super::name::key`]).
    player: Option<&'s str>,
    /// The games kept, with their figures (those that cannot get a section without their moves).
    pub games: Vec<Analysed>,
    /// Their moves by phase and by loss.
    pub spread: Spread,
    /// Games the filters left out.
    pub filtered: u64,
    /// Games `--player` is in (every game without it), kept or not.
    pub played: u64,
    /// The errors of the games kept.
    pub diagnostics: Vec<Diagnostic>,
    current: Option<GameRecord>,
    divider: Divider,
    /// The position before the mainline's last move.
    before_last: Option<Position>,
    /// The mainline move whose first variation is being read.
    line_of: Option<usize>,
    /// `--player` is not in the game being read.
    excluded: bool,
    /// A null move ended the moves read of the game being read.
    null_move: bool,
    /// The last game was kept.
    kept: bool,
    /// The totals' [`section_bar`](super::Totals::section_bar).
    bar: &'s AtomicU64,
    /// Boards a section draws at most.
    boards: usize,
    /// A record whose memory the next game reuses (a game sent without its moves
    /// leaves them here: allocating them for each game measured 9% of the report's time).
    spare: Option<GameRecord>,
    accuracy: AccuracyBuffers,
}

impl<'s> Collect<'s> {
    pub(super) fn new(
        select: &'s Selection,
        player: Option<&'s str>,
        bar: &'s AtomicU64,
        boards: usize,
    ) -> Collect<'s> {
        Collect {
            filter: Filter::new(select, true),
            player,
            games: Vec::new(),
            spread: Spread::default(),
            filtered: 0,
            played: 0,
            diagnostics: Vec::new(),
            current: None,
            divider: Divider::new(),
            before_last: None,
            line_of: None,
            excluded: false,
            null_move: false,
            kept: true,
            bar,
            boards,
            spare: None,
            accuracy: AccuracyBuffers::default(),
        }
    }
}

/// The place in `read_tags`'s list of a tag the report reads (a `match` on the name: by its
/// length, then its bytes).
fn wanted(name: &[u8]) -> Option<usize> {
    Some(match name {
        b"White" => 0,
        b"Black" => 1,
        b"Event" => 2,
        b"Round" => 3,
        b"TimeControl" => 4,
        b"Opening" => 5,
        b"Annotator" => 6,
        b"WhiteElo" => 7,
        b"BlackElo" => 8,
        b"Date" => 9,
        b"UTCDate" => 10,
        b"Site" => 11,
        b"Link" => 12,
        b"GameURL" => 13,
        b"LichessURL" => 14,
        _ => return None,
    })
}

/// The report's tags of `game`: the first of each name, found in one pass over the tags (a
/// search by name for each measured 3% of the report's time).
pub(super) fn read_tags(game: &Game<'_>, record: &mut GameRecord) {
    let mut found: [Option<RawTag<'_>>; 15] = [None; 15];
    for (name, value) in &game.tags {
        if let Some(k) = wanted(name) {
            found[k].get_or_insert(*value);
        }
    }
    let value = |k: usize| found[k].map(|t| t.decode().0);
    let t = &mut record.tags;
    for (k, tag) in [
        TagName::White,
        TagName::Black,
        TagName::Event,
        TagName::Round,
        TagName::TimeControl,
        TagName::Opening,
        TagName::Annotator,
    ]
    .into_iter()
    .enumerate()
    {
        if let Some(v) = value(k) {
            t.set(tag, &v);
        }
    }
    let number = |k: usize| value(k).and_then(|e| e.trim().parse().ok());
    t.elo.white = number(7);
    t.elo.black = number(8);
    match value(9).filter(|d| !matches!(d.as_ref(), "" | "?" | "????.??.??")) {
        Some(d) => t.set(TagName::Date, &d),
        None => {
            if let Some(d) = value(10) {
                t.set(TagName::Date, &d);
            }
        }
    }
    // Site, Link, GameURL, LichessURL: the first that is a URL.
    if let Some(url) = (11..15).find_map(|k| value(k).filter(|v| is_url(v))) {
        t.set(TagName::Url, &url);
    }
    if let Some(site) = value(11).filter(|v| !is_url(v)) {
        t.set(TagName::Site, &site);
    }
    record.judged_in_file = t.get(TagName::Annotator).is_some_and(|a| a.starts_with("pgnkit"));
}

impl<'a> Hooks<'a> for Collect<'_> {
    fn variations(&self) -> bool {
        true
    }

    fn zobrist_keys(&self) -> bool {
        false
    }

    fn reads_evals(&self) -> bool {
        true
    }

    fn wants(&self, kind: Kind, severity: Severity) -> bool {
        severity == Severity::Error || kind == Kind::BadEval
    }

    fn moves(&self) -> Lines {
        Lines::All
    }

    fn tags(&mut self, game: &Game<'a>) -> Verdict {
        let mut record = match self.spare.take() {
            Some(mut r) => {
                r.reset(game.number);
                r
            }
            None => GameRecord::new(game.number),
        };
        read_tags(game, &mut record);
        self.divider = Divider::new();
        self.before_last = None;
        self.line_of = None;
        let plays = self.player.is_none_or(|p| {
            [Color::White, Color::Black]
                .iter()
                .any(|&c| record.tags.player(c).is_some_and(|n| super::name::same_name(n, p)))
        });
        self.current = Some(record);
        self.played += u64::from(plays);
        self.excluded = !plays;
        self.null_move = false;
        let verdict = self.filter.tags(game);
        if plays { verdict } else { Verdict::Skip }
    }

    fn start(&mut self, _: &Game<'a>, pos: &Position) {
        self.divider.observe(pos);
        if let Some(g) = &mut self.current {
            g.start = Some(*pos);
        }
    }

    fn played(&mut self, _: &Game<'a>, p: &Played<'a, '_>) {
        let Some(g) = &mut self.current else { return };
        if p.depth == 1 {
            if let (Some(i), Some(m)) = (self.line_of, p.mv)
                && let Some((_, line)) = g.lines.last_mut().filter(|(at, _)| *at as usize == i)
                && line.len() < LINE_PLIES
            {
                line.push(m);
            }
            return;
        }
        if p.depth != 0 {
            return;
        }
        self.filter.observe(p.before);
        let Some(m) = p.mv else {
            // A null move ends what the evaluations can be read against.
            g.broken = true;
            self.null_move = true;
            return;
        };
        if g.broken {
            return;
        }
        if !g.moves.is_empty() {
            // The position before this move is the one the last move led to.
            self.divider.observe(p.before);
        }
        g.push_move(m);
        self.before_last = Some(*p.before);
    }

    fn nag(&mut self, _: &Game<'a>, depth: u32, nag: Nag, _: u64) {
        let Some(g) = &mut self.current else { return };
        if depth != 0 || g.broken {
            return;
        }
        if let (Some(slot), Some(j)) = (g.nags.last_mut(), nag_judgement(nag))
            && slot.is_none()
        {
            *slot = Some(j);
            g.judged_in_file = true;
            if let Some(before) = &self.before_last {
                let i = g.moves.len() - 1;
                g.keep_position(i, before);
            }
        }
    }

    fn comment(&mut self, _: &Game<'a>, depth: u32, comment: RawComment<'a>) {
        let Some(g) = &mut self.current else { return };
        if depth != 0 || g.moves.is_empty() || g.broken {
            return;
        }
        let i = g.moves.len() - 1;
        let text = comment.text();
        // Judgement comments start with their word, or with lichess's `(0.25 → 1.02)`.
        if g.best[i].is_none()
            && text.first().is_some_and(|b| b"(ILMBC".contains(b))
            && let Some(before) = &self.before_last
            && let Some(Some(san)) = read_comment(text)
            && let Ok((m, _)) = parse_san(before, san)
        {
            g.best[i] = Some(m);
        }
    }

    fn eval_clock(&mut self, _: &Game<'a>, figures: EvalClock) {
        let Some(g) = &mut self.current else { return };
        if g.moves.is_empty() || g.broken {
            return;
        }
        let i = g.moves.len() - 1;
        if let Some(e) = figures.eval {
            set_eval(g, i, eval_score(e.score), self.before_last.as_ref());
        }
        if figures.clock.is_some() {
            g.clocks[i] = figures.clock;
        }
    }

    fn begin_variation(&mut self, _: &Game<'a>, depth: u32, replayed: bool) {
        let Some(g) = &mut self.current else { return };
        if depth != 1 || !replayed || g.moves.is_empty() {
            return;
        }
        let i = g.moves.len() - 1;
        if g.line(i).is_none() {
            g.lines.push((i as u32, Vec::new()));
            self.line_of = Some(i);
        }
    }

    fn end_variation(&mut self, _: &Game<'a>, depth: u32) {
        if depth == 1
            && let Some(i) = self.line_of.take()
            && let Some(g) = &mut self.current
        {
            // The line's first move is the engine's best when no comment named it.
            if let Some(&first) = g.line(i).and_then(|l| l.first())
                && g.best[i].is_none()
            {
                g.best[i] = Some(first);
            }
            g.lines.retain(|(_, l)| !l.is_empty());
        }
    }

    fn diagnostic(&mut self, _: &Game<'a>, d: Diagnostic) {
        self.diagnostics.push(d);
    }

    fn end(&mut self, game: &Game<'a>, last: Option<&Position>) {
        let Some(mut g) = self.current.take() else { return };
        self.kept = self.filter.finish(game, last).is_ok() && !self.excluded;
        if !self.kept {
            self.diagnostics.retain(|d| d.game != game.number);
            self.filtered += 1;
            return;
        }
        g.broken |= game.errors > 0;
        g.variant = game.played_variant();
        g.result = game
            .tag(b"Result")
            .and_then(|t| GameResult::from_tag(&t.unescape()))
            // A `*` tag takes a finished token's result, as `clean` writes the game.
            .filter(|&r| r != GameResult::Unknown || game.result.is_none())
            .or(game.result)
            .unwrap_or(GameResult::Unknown);
        if let Some(pos) = last.filter(|_| g.start.is_some() && !self.null_move) {
            self.divider.observe(pos);
        }
        g.division = self.divider.division();
        g.opening = self.filter.opening();
        let accuracy = accuracy_in(&g.evals, g.first_mover(), &mut self.accuracy);
        let tally = Tally::of(&g, accuracy, self.player, &mut self.spread);
        if tally.evaluated && tally.ranked_loss() >= self.bar.load(Ordering::Relaxed) {
            let figures = Figures::with_accuracy(&g, accuracy);
            let mut a = Analysed { game: g, figures, tally, drawn: None };
            // A long game's section is drawn here, so that it never travels whole.
            if let Some(whole) = a.draw_if_long(self.player, self.boards) {
                self.spare = Some(whole);
            }
            self.games.push(a);
        } else {
            let head = g.take_head();
            self.games.push(Analysed { game: head, figures: Figures::default(), tally, drawn: None });
            self.spare = Some(g);
        }
    }

    fn counted(&self) -> bool {
        self.kept
    }
}

/// The evaluation after move `i` is `score`; judged by the evaluations, the position before it
/// (`before`) is kept for the recurring mistakes when the move is judged.
#[inline(always)]
fn set_eval(g: &mut GameRecord, i: usize, score: Score, before: Option<&Position>) {
    g.evals[i] = Some(score);
    let previous = if i == 0 { Some(INITIAL_EVAL) } else { g.evals[i - 1] };
    if !g.judged_in_file
        && let (Some(b), Some(a), Some(pos)) = (previous, g.evals[i], before)
        && judge(b, a, g.mover(i), false).is_some()
    {
        g.keep_position(i, pos);
    }
}

/// A clock as tenths of a second, for charts.
pub fn tenths(d: Duration) -> u64 {
    (d.as_millis() / 100) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_told_from_other_text() {
        assert!(is_url("https://lichess.org/abc") && !is_url("Las Vegas") && !is_url("https://a b"));
        for space in ["\t", "\n", "\u{b}", "\u{c}", "\r", "\u{a0}", "\u{2003}"] {
            assert!(!is_url(&format!("https://a{space}b")), "{space:?}");
        }
    }
}
