//! `--format pgn`: each annotated game written again in export format ([`GameWriter`]) from what
//! the reading kept of it ([`Movetext`]), with its notes where lichess puts them: after a
//! mainline move its judgement NAG (old judgement NAGs and comments replaced, pgnkit's and
//! lichess's), then its comment with `[%eval]` first (what the comment held kept, an old
//! `[%eval]` replaced), then the judgement comment, then the engine's line as a variation before
//! the variations the game had (an old judgement's line, the variation after the move that starts
//! with the move its comment named best, goes with the old judgement).
//! A variation an error ended is written up to the error, the rest of it as read in a comment
//! `{ pgnkit: KIND; not replayed: ... }` where it stops (where the variation stood when none of
//! its moves could be replayed): python-chess and lichess cut such a variation there and drop
//! the rest, which is kept here. Games that cannot be annotated are written as read, a line of
//! them that is not UTF-8 read as Windows-1252 (as all text written); filtered games are not
//! written.

use super::analyse::{Evaluated, diagnostic};
use super::collect::{Fate, Mainline};
use super::movetext::{Event, Movetext};
use super::notes::{LINE_PLIES, Note, Plan, eval_text};
use super::spool::Cursor;
use super::{Halt, stop_at};
use crate::analysis::judge::read_comment;
use crate::error::{Diagnostic, Kind};
use crate::io::spill::{SpillFile, SpilledText};
use crate::notation::san::write_san;
use crate::pgn::text::{pieces, push_utf8_lines};
use crate::pgn::writer::tag_line;
use crate::pgn::{GameResult, Nag};
use crate::pipeline::Cancel;
use crate::pipeline::replay::export::{GameWriter, Strip, without_commands};

/// Tags the job writes itself: an old one is replaced.
const OWN_TAGS: [&str; 5] = ["Annotator", "WhiteACPL", "BlackACPL", "WhiteAccuracy", "BlackAccuracy"];

/// Where a game's text goes: `out`, past `spill_at` bytes on disk (a game's movetext too, its
/// tags put in front of it once known); the writing stops when `cancel` is set.
pub(super) struct To<'o, 'c> {
    pub out: &'o mut SpilledText,
    pub spill_at: usize,
    pub cancel: &'o Cancel<'c>,
}

/// Appends `game` to `to`: annotated from `plan`, as read, or not at all, as its fate says. A
/// tag left out of an annotated game (its name is not a PGN tag name) is a `bad_tag` warning.
pub(super) fn write_game(
    writer: &mut GameWriter,
    game: &Mainline<'_>,
    plan: Option<&Plan>,
    annotator: &str,
    to: To<'_, '_>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<(), Halt> {
    match (game.fate, plan) {
        (Fate::Annotate, Some(plan)) => {
            let written = Annotated::new(writer, game, plan).write(annotator, &to);
            let left_out = match written {
                Ok((left_out, spilled)) => {
                    let out = &mut *to.out;
                    out.held.extend_from_slice(&left_out.0);
                    if let Some(file) = spilled {
                        out.push_file(file);
                    }
                    writer.end_movetext(&mut out.held, game.result.unwrap_or(GameResult::Unknown));
                    left_out.1
                }
                Err(halt) => {
                    writer.abandon();
                    return Err(halt);
                }
            };
            for (name, value) in left_out {
                let message =
                    format!("tag {} left out: {name:?} is not a PGN tag name", tag_line(&name, &value));
                diagnostics.push(diagnostic(Some(game), None, Kind::BadTag, message));
            }
        }
        (Fate::Filtered, _) => {}
        (Fate::Annotate | Fate::AsRead, _) => {
            // A piece at a time, so that a long game waits on disk without a copy of it whole.
            for piece in pieces(game.bytes.trim_ascii_end(), to.spill_at) {
                push_utf8_lines(&mut to.out.held, piece);
                to.out.spill_past(to.spill_at)?;
            }
            to.out.held.extend_from_slice(b"\n\n");
        }
    }
    Ok(to.out.spill_past(to.spill_at)?)
}

/// A game's tag section and the tags left out of it for their names, and its movetext so far
/// when it waits on disk.
type Written = ((Vec<u8>, Vec<(String, String)>), Option<SpillFile>);

/// The move whose notes are not all written yet.
#[derive(Clone, Copy)]
struct Pending {
    /// Its index in the mainline.
    index: usize,
    /// Its `[%eval]` went into a comment of the game.
    eval_written: bool,
}

/// One annotated game being written.
struct Annotated<'w, 'g, 'a> {
    writer: &'w mut GameWriter,
    game: &'g Mainline<'a>,
    plan: &'g Plan,
    evals: Cursor<'g, 'static, Evaluated>,
    notes: Cursor<'g, 'static, Note>,
    /// Mainline moves written.
    moves: usize,
    pending: Option<Pending>,
    /// The best move an old judgement comment of the pending move named.
    old_best: Option<&'a [u8]>,
    comment: Vec<u8>,
}

impl<'w, 'g, 'a> Annotated<'w, 'g, 'a> {
    fn new(writer: &'w mut GameWriter, game: &'g Mainline<'a>, plan: &'g Plan) -> Annotated<'w, 'g, 'a> {
        let (evals, notes) = (plan.evals.cursor(), plan.notes.cursor());
        Annotated {
            writer,
            game,
            plan,
            evals,
            notes,
            moves: 0,
            pending: None,
            old_best: None,
            comment: Vec::new(),
        }
    }

    /// The movetext event by event (past `to.spill_at` bytes on disk), then the tags; the
    /// movetext's end stays in the writer.
    fn write(mut self, annotator: &str, to: &To<'_, '_>) -> Result<Written, Halt> {
        let movetext: &Movetext<'a> = &self.game.movetext;
        let mut events = movetext.events.cursor();
        let mut spilled: Option<SpillFile> = None;
        let mut i = 0;
        while let Some(event) = events.value(i)? {
            stop_at(i, to.cancel)?;
            if self.writer.movetext_len() >= to.spill_at {
                let file = match &mut spilled {
                    Some(f) => f,
                    None => spilled.insert(SpillFile::new()?),
                };
                self.writer.take_settled(file)?;
            }
            i += 1;
            match event {
                Event::Move { depth, san, number, black } => {
                    self.played(depth, movetext.san(&san), number, black)?
                }
                Event::Nag { depth, nag } => self.nag(depth, nag)?,
                Event::Comment { depth, raw } => self.comment(depth, raw)?,
                Event::Begin { depth } => {
                    if depth == 1 {
                        let old_line = self.is_old_line(movetext, events.get(i)?)?;
                        self.flush()?;
                        if old_line {
                            // Its events up to its end are not written.
                            while let Some(e) = events.get(i)? {
                                i += 1;
                                if matches!(e, Event::End { depth: 1 }) {
                                    break;
                                }
                            }
                            continue;
                        }
                    }
                    self.writer.begin_variation(depth);
                }
                Event::End { depth } => self.writer.end_variation(depth),
                Event::Cut { depth, kind, text } => self.cut(depth, kind, text)?,
            }
        }
        self.flush()?;
        self.write_tags(annotator);
        let left_out = self.writer.take_left_out_tags();
        let mut tags = Vec::new();
        self.writer.tag_section(&mut tags);
        Ok(((tags, left_out), spilled))
    }

    /// Whether the variation starting before `first` (the first after the pending move) is an
    /// old judgement's line, which goes with the judgement: it starts with the move that the
    /// move's old judgement comment named best. It stays only where this run judges the move and
    /// names that best move again for want of an engine (`--from-evals`), writing no line.
    fn is_old_line(&mut self, movetext: &Movetext<'a>, first: Option<&Event<'a>>) -> std::io::Result<bool> {
        let (Some(p), Some(best)) = (self.pending, self.old_best) else { return Ok(false) };
        let Some(Event::Move { depth: 1, san, .. }) = first else { return Ok(false) };
        let note = self.notes.value(p.index)?.unwrap_or_default();
        let explained = note.advice.is_some() && note.best.is_none() && !note.line;
        Ok(!explained && movetext.san(san) == best)
    }

    /// The game's tags (those the job writes replaced, a variant's name in its canonical
    /// spelling, as `clean` writes it), a missing `Result` from the movetext.
    fn write_tags(&mut self, annotator: &str) {
        let mut result = false;
        let variant = self.game.start.map(|p| p.variant());
        for (name, value) in &self.game.tags {
            result |= *name == b"Result";
            let name = String::from_utf8_lossy(name);
            let value = value.decode().0;
            let canonical = variant.filter(|_| name == "Variant").and_then(|v| v.rewritten_tag(&value));
            if !OWN_TAGS.contains(&name.as_ref()) {
                self.writer.tag(&name, canonical.unwrap_or(&value));
            }
        }
        if !result {
            self.writer.tag("Result", self.game.result.unwrap_or(GameResult::Unknown).as_str());
        }
        self.writer.tag("Annotator", annotator);
        for (name, value) in &self.plan.tags {
            self.writer.tag(name, value);
        }
    }

    /// Writes what is left of the pending move's notes: its `[%eval]` when no comment took it,
    /// its judgement and the engine's line.
    fn flush(&mut self) -> std::io::Result<()> {
        let Some(p) = self.pending.take() else { return Ok(()) };
        let note = self.notes.value(p.index)?.unwrap_or_default();
        if let (false, Some(eval)) = (p.eval_written, self.plan.eval(&mut self.evals, p.index)?) {
            self.writer.comment(0, format!("[%eval {}]", eval_text(eval)).as_bytes());
        }
        if note.advice.is_none() && !note.line {
            return Ok(());
        }
        // The move is judged or gets a line: the position before it is replayed from its mark.
        let before = self.game.position(p.index).unwrap_or_default();
        if let Some(advice) = note.advice {
            let mut text = String::new();
            let best = note.best.map(|b| {
                let mut san = String::new();
                write_san(&before, b, &mut san);
                san
            });
            // With no engine (`--from-evals`) the best move is the one an old judgement named.
            let old_best = self.old_best.and_then(|b| std::str::from_utf8(b).ok());
            advice.write_comment(best.as_deref().or(old_best), &mut text);
            self.writer.comment(0, text.as_bytes());
        }
        let line = if note.line { self.evals.get(p.index)?.and_then(|e| e.analysis.as_ref()) } else { None };
        if let Some(a) = line {
            self.writer.begin_variation(1);
            self.writer.line(1, &before, &a.pv[..a.pv.len().min(LINE_PLIES)]);
            self.writer.end_variation(1);
        }
        Ok(())
    }

    fn played(&mut self, depth: u32, san: &[u8], number: u32, black: bool) -> std::io::Result<()> {
        if depth == 0 {
            self.flush()?;
        }
        self.writer.san(depth, san, number, black);
        if depth != 0 {
            return Ok(());
        }
        let index = self.moves;
        self.moves += 1;
        self.old_best = None;
        if let Some(advice) = self.notes.value(index)?.and_then(|n| n.advice) {
            self.writer.nag(0, advice.nag());
        }
        self.pending = Some(Pending { index, eval_written: false });
        Ok(())
    }

    /// The rest of a variation an error ended, as read, in a comment of its own (a mainline
    /// move's notes come before it, as before a variation).
    fn cut(&mut self, depth: u32, kind: Kind, text: &[u8]) -> std::io::Result<()> {
        if depth == 0 {
            self.flush()?;
        }
        self.comment.clear();
        self.comment.extend_from_slice(format!("pgnkit: {kind}; not replayed: ").as_bytes());
        self.comment.extend_from_slice(text);
        self.writer.comment(depth, &self.comment);
        Ok(())
    }

    fn nag(&mut self, depth: u32, nag: Nag) -> std::io::Result<()> {
        // The judgement NAGs ($6, $2, $4) of the mainline are the job's to write: old ones go,
        // as old judgement comments do. A judged move keeps no other assessment ($1, $3, $5).
        let judged = match self.pending {
            Some(p) => self.notes.value(p.index)?.and_then(|n| n.advice).is_some(),
            None => false,
        };
        if depth == 0
            && self.pending.is_some()
            && (matches!(nag.0, 2 | 4 | 6) || (judged && (1..=6).contains(&nag.0)))
        {
            return Ok(());
        }
        self.writer.nag(depth, nag);
        Ok(())
    }

    fn comment(&mut self, depth: u32, raw: &'a [u8]) -> std::io::Result<()> {
        if depth != 0 {
            self.writer.comment(depth, raw);
            return Ok(());
        }
        let text = raw.trim_ascii();
        if let Some(best) = read_comment(text) {
            if self.pending.is_some() {
                self.old_best = best.or(self.old_best);
            }
            return Ok(());
        }
        let eval = match self.pending {
            Some(p) if !p.eval_written => self.plan.eval(&mut self.evals, p.index)?,
            _ => None,
        };
        let Some(eval) = eval else {
            self.writer.comment(0, raw);
            return Ok(());
        };
        self.comment.clear();
        self.comment.extend_from_slice(format!("[%eval {}] ", eval_text(eval)).as_bytes());
        without_commands(text, Strip { eval: true, ..Strip::default() }, &mut self.comment);
        self.writer.comment(0, &self.comment);
        if let Some(p) = &mut self.pending {
            p.eval_written = true;
        }
        Ok(())
    }
}
