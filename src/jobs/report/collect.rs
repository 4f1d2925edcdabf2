//! Reading a chunk of PGN for the report: each game replayed once, its [`GameRecord`] built from
//! its events (tags, the mainline with each move's `[%eval]`, `[%clk]`, judgement NAG and
//! `X was best.` comment, the first variation after each move), its phases and opening observed
//! as it is played, and the filters' verdict (with `--player`, games the player is not in are
//! left out).

use std::time::Duration;

use super::divider::Divider;
use super::game::{GameRecord, LINE_PLIES, TagName, nag_judgement};
use crate::analysis::judge::{INITIAL_EVAL, eval_score, judge};
use crate::chess::{Color, Position};
use crate::error::{Diagnostic, Kind, Severity};
use crate::notation::san::parse_san;
use crate::pgn::comment::{parse_clock, parse_eval};
use crate::pgn::{GameResult, Nag, RawComment};
use crate::pipeline::replay::{Game, Hooks, Lines, Played, Verdict};
use crate::select::{Filter, Selection};

/// The tags that may hold a game's page.
const URL_TAGS: [&[u8]; 4] = [b"Site", b"Link", b"GameURL", b"LichessURL"];

/// Whether `text` is a web address worth a link.
pub fn is_url(text: &str) -> bool {
    (text.starts_with("https://") || text.starts_with("http://")) && !text.contains(char::is_whitespace)
}

/// The hooks of one chunk.
pub(super) struct Collect<'s> {
    filter: Filter<'s>,
    /// With `--player`: the name, lower case.
    player: Option<&'s str>,
    /// The games kept.
    pub games: Vec<GameRecord>,
    /// Games the filters left out.
    pub filtered: u64,
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
}

impl<'s> Collect<'s> {
    pub(super) fn new(select: &'s Selection, player: Option<&'s str>) -> Collect<'s> {
        Collect {
            filter: Filter::new(select, true),
            player,
            games: Vec::new(),
            filtered: 0,
            diagnostics: Vec::new(),
            current: None,
            divider: Divider::new(),
            before_last: None,
            line_of: None,
            excluded: false,
            null_move: false,
            kept: true,
        }
    }
}

/// The report's tags of `game`.
fn read_tags(game: &Game<'_>, record: &mut GameRecord) {
    let value = |name: &[u8]| game.tag(name).map(|t| t.decode().0);
    let t = &mut record.tags;
    for (tag, name) in [
        (TagName::White, &b"White"[..]),
        (TagName::Black, b"Black"),
        (TagName::Event, b"Event"),
        (TagName::Round, b"Round"),
        (TagName::TimeControl, b"TimeControl"),
        (TagName::Opening, b"Opening"),
        (TagName::Annotator, b"Annotator"),
    ] {
        if let Some(v) = value(name) {
            t.set(tag, &v);
        }
    }
    let number = |name: &[u8]| value(name).and_then(|e| e.trim().parse().ok());
    t.elo.white = number(b"WhiteElo");
    t.elo.black = number(b"BlackElo");
    match value(b"Date").filter(|d| !matches!(d.as_ref(), "" | "?" | "????.??.??")) {
        Some(d) => t.set(TagName::Date, &d),
        None => {
            if let Some(d) = value(b"UTCDate") {
                t.set(TagName::Date, &d);
            }
        }
    }
    if let Some(url) = URL_TAGS.iter().find_map(|n| value(n).filter(|v| is_url(v))) {
        t.set(TagName::Url, &url);
    }
    if let Some(site) = value(b"Site").filter(|v| !is_url(v)) {
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

    fn wants(&self, _: Kind, severity: Severity) -> bool {
        severity == Severity::Error
    }

    fn moves(&self) -> Lines {
        Lines::All
    }

    fn tags(&mut self, game: &Game<'a>) -> Verdict {
        let mut record = GameRecord::new(game.number);
        read_tags(game, &mut record);
        self.divider = Divider::new();
        self.before_last = None;
        self.line_of = None;
        let plays = self.player.is_none_or(|p| {
            [Color::White, Color::Black]
                .iter()
                .any(|&c| record.tags.player(c).is_some_and(|n| n.to_lowercase() == p))
        });
        self.current = Some(record);
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
        // One pass over the comment's commands for both.
        for c in comment.commands() {
            match c.name {
                b"eval" => {
                    if let Some(e) = parse_eval(c.args) {
                        g.evals[i] = Some(eval_score(e.score));
                        // Judged by the evaluations: its position is kept for the recurring mistakes.
                        let before = if i == 0 { Some(INITIAL_EVAL) } else { g.evals[i - 1] };
                        if !g.judged_in_file
                            && let (Some(b), Some(a), Some(pos)) = (before, g.evals[i], &self.before_last)
                            && judge(b, a, g.mover(i), false).is_some()
                        {
                            g.keep_position(i, pos);
                        }
                    }
                }
                b"clk" => g.clocks[i] = parse_clock(c.args).or(g.clocks[i]),
                _ => {}
            }
        }
        let text = comment.text();
        // Judgement comments start with their word, or with lichess's `(0.25 → 1.02)`.
        if g.best[i].is_none()
            && text.first().is_some_and(|b| b"(ILMBC".contains(b))
            && let Some(before) = &self.before_last
            && let Some(san) = best_san(text)
            && let Ok((m, _)) = parse_san(before, san)
        {
            g.best[i] = Some(m);
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

    fn diagnostic(&mut self, d: Diagnostic) {
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
        g.variant = game.variant;
        g.result = game
            .tag(b"Result")
            .and_then(|t| GameResult::from_ascii(&t.unescape()))
            .or(game.result)
            .unwrap_or(GameResult::Unknown);
        if let Some(pos) = last.filter(|_| g.start.is_some() && !self.null_move) {
            self.divider.observe(pos);
        }
        g.division = self.divider.division();
        g.opening = self.filter.opening();
        self.games.push(g);
    }

    fn counted(&self) -> bool {
        self.kept
    }
}

/// The SAN of `X was best.` in a judgement comment (`Mistake. Nf3 was best.`, lichess's
/// `(0.25 → 1.02) Mistake. Nf3 was best.`).
fn best_san(text: &[u8]) -> Option<&[u8]> {
    let end = memchr::memmem::find(text, b" was best.")?;
    let start = text[..end].iter().rposition(|&b| b == b' ').map_or(0, |i| i + 1);
    let san = &text[start..end];
    (!san.is_empty()).then_some(san)
}

/// A clock as tenths of a second, for charts.
pub fn tenths(d: Duration) -> u64 {
    (d.as_millis() / 100) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_moves_are_read_from_judgement_comments() {
        assert_eq!(best_san(b"Mistake. Nf3 was best."), Some(&b"Nf3"[..]));
        assert_eq!(best_san(b"(0.25 \xe2\x86\x92 1.02) Blunder. Qxd8+ was best."), Some(&b"Qxd8+"[..]));
        assert_eq!(best_san(b"Inaccuracy."), None);
        assert!(is_url("https://lichess.org/abc") && !is_url("Las Vegas") && !is_url("https://a b"));
    }
}
