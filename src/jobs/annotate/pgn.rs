//! The second reading of a chunk, for `--format pgn`: each annotated game written again in export
//! format ([`GameWriter`]) with its notes where lichess puts them: after a mainline move its
//! judgement NAG (old judgement NAGs and comments replaced), then its comment with `[%eval]` first (what the comment held kept, an old
//! `[%eval]` replaced), then the judgement comment, then the engine's line as a variation before
//! the variations the game had. Games that cannot be annotated are written as read, a line of
//! them that is not UTF-8 read as Windows-1252 (as all text written); filtered games are not
//! written.

use super::AnnotateOptions;
use super::collect::{Fate, Mainline};
use super::notes::{Plan, eval_text};
use crate::chess::Position;
use crate::error::{Kind, Severity};
use crate::pgn::text::push_utf8_lines;
use crate::pgn::{GameResult, Nag, RawComment};
use crate::pipeline::replay::export::{GameWriter, Strip, without_commands};
use crate::pipeline::replay::{Game, Hooks, Lines, Played, Verdict};

/// Tags the job writes itself: an old one is replaced.
const OWN_TAGS: [&str; 5] = ["Annotator", "WhiteACPL", "BlackACPL", "WhiteAccuracy", "BlackAccuracy"];

/// The first sentences of the judgement comments: an old one is replaced.
const JUDGEMENT_COMMENTS: [&str; 5] = [
    "Inaccuracy.",
    "Mistake.",
    "Blunder.",
    "Checkmate is now unavoidable.",
    "Lost forced checkmate sequence.",
];

/// The move whose notes are not all written yet.
#[derive(Clone, Copy)]
struct Pending {
    /// Its index in the mainline.
    index: usize,
    /// Its `[%eval]` went into a comment of the game.
    eval_written: bool,
}

/// The hooks of the second reading.
pub(super) struct AnnotateHooks<'p> {
    games: &'p [Mainline],
    plans: &'p [Option<Plan>],
    annotator: &'p str,
    writer: GameWriter,
    /// The index of the game being read in `games`.
    index: usize,
    /// Mainline moves written of the current game.
    moves: usize,
    pending: Option<Pending>,
    comment: Vec<u8>,
    /// The games written.
    pub out: Vec<u8>,
}

impl<'p> AnnotateHooks<'p> {
    pub(super) fn new(
        opts: &AnnotateOptions,
        games: &'p [Mainline],
        plans: &'p [Option<Plan>],
        annotator: &'p str,
    ) -> AnnotateHooks<'p> {
        AnnotateHooks {
            games,
            plans,
            annotator,
            writer: GameWriter::new(opts.layout(), Strip::default()),
            index: 0,
            moves: 0,
            pending: None,
            comment: Vec::new(),
            out: Vec::new(),
        }
    }

    /// The game's tags (those the job writes replaced), a missing `Result` from the movetext.
    fn write_tags(&mut self, game: &Game<'_>) {
        for (name, value) in &game.tags {
            let name = String::from_utf8_lossy(name);
            if !OWN_TAGS.contains(&name.as_ref()) {
                self.writer.tag(&name, &value.decode().0);
            }
        }
        if game.tag(b"Result").is_none() {
            self.writer.tag("Result", game.result.unwrap_or(GameResult::Unknown).as_str());
        }
        self.writer.tag("Annotator", self.annotator);
        if let Some(plan) = self.plan() {
            for (name, value) in &plan.tags {
                self.writer.tag(name, value);
            }
        }
    }

    fn plan(&self) -> Option<&'p Plan> {
        self.plans.get(self.index).and_then(Option::as_ref)
    }

    /// Writes what is left of the pending move's notes: its `[%eval]` when no comment took it,
    /// its judgement and the engine's line.
    fn flush(&mut self) {
        let (Some(p), Some(plan)) = (self.pending.take(), self.plan()) else { return };
        let note = &plan.notes[p.index];
        if let (false, Some(eval)) = (p.eval_written, note.eval) {
            self.writer.comment(0, format!("[%eval {}]", eval_text(eval)).as_bytes());
        }
        if let Some(advice) = note.advice {
            let mut text = String::new();
            advice.write_comment(note.best.as_deref(), &mut text);
            self.writer.comment(0, text.as_bytes());
        }
        if !note.line.is_empty() {
            let before = self.games[self.index].positions[p.index];
            self.writer.begin_variation(1);
            self.writer.line(1, &before, &note.line);
            self.writer.end_variation(1);
        }
    }
}

impl<'a> Hooks<'a> for AnnotateHooks<'_> {
    fn variations(&self) -> bool {
        true
    }

    fn zobrist_keys(&self) -> bool {
        false
    }

    fn wants(&self, _: Kind, _: Severity) -> bool {
        false
    }

    fn moves(&self) -> Lines {
        Lines::All
    }

    fn written_san(&self) -> bool {
        true
    }

    fn tags(&mut self, _: &Game<'a>) -> Verdict {
        self.moves = 0;
        self.pending = None;
        if self.games.get(self.index).is_none_or(|g| g.fate != Fate::Annotate) {
            return Verdict::Skip;
        }
        Verdict::Replay
    }

    fn played(&mut self, _: &Game<'a>, p: &Played<'a, '_>) {
        if p.depth == 0 {
            self.flush();
        }
        self.writer.played(p);
        if p.depth != 0 {
            return;
        }
        let index = self.moves;
        self.moves += 1;
        if let Some(advice) = self.plan().and_then(|plan| plan.notes.get(index)).and_then(|n| n.advice) {
            self.writer.nag(0, advice.nag());
        }
        self.pending = Some(Pending { index, eval_written: false });
    }

    fn nag(&mut self, _: &Game<'a>, depth: u32, nag: Nag, _: u64) {
        // The judgement NAGs ($6, $2, $4) of the mainline are the job's to write: old ones go,
        // as old judgement comments do. A judged move keeps no other assessment ($1, $3, $5).
        let judged = self.pending.and_then(|p| self.plan()?.notes.get(p.index)?.advice).is_some();
        if depth == 0
            && self.pending.is_some()
            && (matches!(nag.0, 2 | 4 | 6) || (judged && (1..=6).contains(&nag.0)))
        {
            return;
        }
        self.writer.nag(depth, nag);
    }

    fn comment(&mut self, _: &Game<'a>, depth: u32, comment: RawComment<'a>) {
        if depth != 0 {
            self.writer.comment(depth, comment.raw);
            return;
        }
        let text = comment.text();
        if JUDGEMENT_COMMENTS.iter().any(|j| text.starts_with(j.as_bytes())) && self.plan().is_some() {
            return;
        }
        let eval = match self.pending {
            Some(p) if !p.eval_written => self.plan().and_then(|plan| plan.notes[p.index].eval),
            _ => None,
        };
        let Some(eval) = eval else {
            self.writer.comment(0, comment.raw);
            return;
        };
        self.comment.clear();
        self.comment.extend_from_slice(format!("[%eval {}] ", eval_text(eval)).as_bytes());
        without_commands(text, Strip { eval: true, ..Strip::default() }, &mut self.comment);
        self.writer.comment(0, &self.comment);
        if let Some(p) = &mut self.pending {
            p.eval_written = true;
        }
    }

    fn begin_variation(&mut self, _: &Game<'a>, depth: u32, _: bool) {
        if depth == 1 {
            self.flush();
        }
        self.writer.begin_variation(depth);
    }

    fn end_variation(&mut self, _: &Game<'a>, depth: u32) {
        self.writer.end_variation(depth);
    }

    fn end(&mut self, game: &Game<'a>, _: Option<&Position>) {
        let fate = self.games.get(self.index).map(|g| g.fate);
        match fate {
            Some(Fate::Annotate) => {
                self.flush();
                self.write_tags(game);
                self.writer.finish(&mut self.out, game.result.unwrap_or(GameResult::Unknown));
            }
            Some(Fate::AsRead) => {
                push_utf8_lines(&mut self.out, game.bytes.trim_ascii_end());
                self.out.extend_from_slice(b"\n\n");
            }
            Some(Fate::Filtered) | None => {}
        }
        self.index += 1;
    }
}
