//! The one reading of a chunk: each game's mainline as the analysis needs it (start position,
//! moves, the position before each move and after the last), the `[%eval]` of each mainline
//! move's comments (for `--from-evals`), the filters' verdict, the errors that keep a game from
//! being annotated, and, for PGN output, what [`super::pgn`] writes the game from: its tags,
//! result, bytes and [`Movetext`] (every line replayed; a variation an error ended is kept up to
//! the error, its rest as read in a comment, so the game loses no text and is annotated).

use super::analyse::Evaluated;
use super::movetext::{Event, Movetext};
use super::plies::Marks;
use super::spool::Spool;
use crate::analysis::judge::eval_score;
use crate::chess::{Move, Position};
use crate::error::{Diagnostic, Kind, Severity};
use crate::pgn::{GameResult, Nag, RawComment, RawTag};
use crate::pipeline::replay::{Cut, EvalClock, Game, Hooks, Lines, Played, Verdict};
use crate::select::{Filter, Selection};

/// What becomes of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fate {
    /// Analysed and written with annotations (its errors, if any, each in a variation that is
    /// written up to it with the rest as read).
    Annotate,
    /// Written as read: an error outside the cut variations (in the mainline's moves, its setup,
    /// its result, its syntax), or its mainline holds a null move.
    AsRead,
    /// Left out by the filters.
    Filtered,
}

/// One game's mainline.
#[derive(Debug)]
pub(crate) struct Mainline<'a> {
    /// Game number in its input.
    pub number: u64,
    /// Byte offset and line of its start (the line relative to the chunk).
    pub offset: u64,
    pub line: u64,
    /// The players, for diagnostics.
    pub white: Option<String>,
    pub black: Option<String>,
    /// The start position (`None` for a bad setup).
    pub start: Option<Position>,
    /// The mainline's moves.
    pub moves: Vec<Move>,
    /// Every [`super::plies::EVERY`]th mainline position (read with [`Mainline::position`] and
    /// [`Mainline::positions`]).
    pub marks: Marks,
    /// Read for `--from-evals` alone: one per position, the `[%eval]` after each move as the game
    /// gives it (White's view) and its depth (none for the start).
    pub game_evals: Spool<'static, Evaluated>,
    /// Some move of the mainline has an `[%eval]` of the game's.
    pub has_evals: bool,
    pub fate: Fate,
    /// Its worst diagnostic as the replay counted the game (`None`: none).
    pub counted: Option<Severity>,
    /// Written as read for a null move in the mainline alone: its positions are unevaluated.
    pub null_move: bool,
    /// The tags as written (JSON Lines records hold them), and for PGN output the movetext's
    /// result, the game's bytes (known at its end) and its movetext.
    pub tags: Vec<(&'a [u8], RawTag<'a>)>,
    pub result: Option<GameResult>,
    pub bytes: &'a [u8],
    pub movetext: Movetext<'a>,
}

/// The hooks of the reading.
pub(super) struct Collect<'s, 'a> {
    pub(super) filter: Filter<'s>,
    /// Every game of the chunk.
    pub games: Vec<Mainline<'a>>,
    /// Errors of the games (the reasons they are written as read).
    pub diagnostics: Vec<Diagnostic>,
    /// Keep what PGN output writes: every line's events, the tags.
    write: bool,
    /// Keep the games' own evaluations (`--from-evals`).
    evals: bool,
    /// Where the mainline's first null move is (absolute offset), and how many it has.
    null_move: Option<u64>,
    null_moves: u32,
    /// A variation cut whole is not written: its end is not either.
    skip_end: bool,
    /// The chunk's bytes, and those of each kind of a game's state held in memory at most.
    base: &'a [u8],
    held_bytes: usize,
}

impl<'s, 'a> Collect<'s, 'a> {
    /// Hooks reading the chunk `base` for the analysis, for writing the games again when `write`,
    /// and keeping their own evaluations when `evals`; past `held_bytes` of a kind, a game's
    /// state waits on disk.
    pub(super) fn new(
        select: &'s Selection,
        write: bool,
        evals: bool,
        base: &'a [u8],
        held_bytes: usize,
    ) -> Collect<'s, 'a> {
        Collect {
            filter: Filter::new(select, false),
            games: Vec::new(),
            diagnostics: Vec::new(),
            write,
            evals,
            null_move: None,
            null_moves: 0,
            skip_end: false,
            base,
            held_bytes,
        }
    }

    fn current(&mut self) -> &mut Mainline<'a> {
        self.games.last_mut().expect("tags come before every other event of a game")
    }

    /// Records an event of the movetext, when the games are written (those inside a cut are in
    /// its text).
    fn record(&mut self, game: &Game<'a>, event: Event<'a>) {
        if self.write && game.cutting.is_none() {
            self.current().movetext.events.push(event);
        }
    }
}

impl<'a> Hooks<'a> for Collect<'_, 'a> {
    fn variations(&self) -> bool {
        self.write
    }

    fn zobrist_keys(&self) -> bool {
        false
    }

    fn reads_evals(&self) -> bool {
        self.evals
    }

    fn wants(&self, kind: Kind, severity: Severity) -> bool {
        severity == Severity::Error || kind == Kind::BadEval
    }

    fn moves(&self) -> Lines {
        if self.write { Lines::All } else { Lines::Mainline }
    }

    fn written_san(&self) -> bool {
        self.write
    }

    fn tags(&mut self, game: &Game<'a>) -> Verdict {
        self.null_move = None;
        self.null_moves = 0;
        self.games.push(Mainline {
            number: game.number,
            offset: game.offset,
            line: game.line,
            white: game.tag_text(b"White"),
            black: game.tag_text(b"Black"),
            start: None,
            moves: Vec::new(),
            marks: Marks::default(),
            game_evals: Spool::new(&[], self.held_bytes),
            has_evals: false,
            fate: Fate::Annotate,
            counted: None,
            null_move: false,
            tags: Vec::new(),
            result: None,
            bytes: &[],
            movetext: Movetext::new(self.base, self.held_bytes),
        });
        self.filter.tags(game)
    }

    fn start(&mut self, _: &Game<'a>, pos: &Position) {
        let evals = self.evals;
        let m = self.current();
        m.start = Some(*pos);
        m.marks.start(pos);
        if evals {
            m.game_evals.push(Evaluated::default());
        }
    }

    fn played(&mut self, _: &Game<'a>, p: &Played<'a, '_>) {
        if self.write {
            self.current().movetext.played(p);
        }
        if p.depth != 0 {
            return;
        }
        self.filter.observe(p.before);
        let Some(mv) = p.mv else {
            self.null_move.get_or_insert(p.token.offset as u64);
            self.null_moves += 1;
            return;
        };
        if self.null_move.is_some() {
            return;
        }
        let evals = self.evals;
        let m = self.current();
        m.marks.played(m.moves.len(), p.before, mv);
        m.moves.push(mv);
        if evals {
            m.game_evals.push(Evaluated::default());
        }
    }

    fn nag(&mut self, game: &Game<'a>, depth: u32, nag: Nag, _: u64) {
        self.record(game, Event::Nag { depth, nag });
    }

    fn comment(&mut self, game: &Game<'a>, depth: u32, comment: RawComment<'a>) {
        self.record(game, Event::Comment { depth, raw: comment.raw });
    }

    fn eval_clock(&mut self, _: &Game<'a>, figures: EvalClock) {
        let Some(eval) = figures.eval else { return };
        let m = self.current();
        // A comment before the first move, or after a null move, evaluates no move of ours.
        if m.game_evals.len() == m.moves.len() + 1
            && !m.moves.is_empty()
            && let Some(last) = m.game_evals.tail().last_mut()
        {
            (last.white, last.game_depth) = (Some(eval_score(eval.score)), eval.depth);
            m.has_evals = true;
        }
    }

    fn begin_variation(&mut self, game: &Game<'a>, depth: u32, _: bool) {
        // A variation with no move to replace is cut from its `(`: its start is recorded, for
        // the cut to find.
        if self.write && game.cutting == Some(depth) {
            self.current().movetext.events.push(Event::Begin { depth });
        } else {
            self.record(game, Event::Begin { depth });
        }
    }

    fn end_variation(&mut self, game: &Game<'a>, depth: u32) {
        if !std::mem::take(&mut self.skip_end) {
            self.record(game, Event::End { depth });
        }
    }

    fn cut(&mut self, game: &Game<'a>, depth: u32, cut: Cut<'a>) {
        let (kind, text) = (cut.kind, cut.text);
        if !cut.whole {
            self.record(game, Event::Cut { depth, kind, text });
            return;
        }
        // A variation with no move is no variation: its text stands where it stood, in the line
        // it would have left; its start may be in a block on disk by now (comments before the
        // error are recorded after it).
        let events = &mut self.current().movetext.events;
        events.truncate_at_last(|e| matches!(e, Event::Begin { depth: d } if *d == depth));
        self.record(game, Event::Cut { depth: depth - 1, kind, text });
        self.skip_end = true;
    }

    /// A mainline null move is an error here: no engine analyses past it.
    fn refuses_null_moves(&self, mainline: bool) -> bool {
        mainline
    }

    fn diagnostic(&mut self, _: &Game<'a>, mut d: Diagnostic) {
        if d.kind == Kind::NullMove {
            d.message.push_str(": no engine analyses past it, so the game is written as read, unevaluated");
        }
        self.diagnostics.push(d);
    }

    fn end(&mut self, game: &Game<'a>, last: Option<&Position>) {
        let kept = self.filter.finish(game, last).is_ok();
        // Errors inside cut variations lose no text: the game is annotated with them. The
        // mainline's null moves are errors of their own kind (said by the replay).
        let errors = game.errors > game.cut_errors + self.null_moves || game.start.is_none();
        let broken = errors || self.null_move.is_some();
        if !kept {
            self.diagnostics.retain(|d| d.game != game.number);
        } else if self.null_move.is_some() && !errors {
            // Written as read for the null moves alone, its positions unevaluated.
            self.current().null_move = true;
        }
        let m = self.current();
        // A name is one tag: the first, as the replay and the filters read it (clean alike).
        m.tags = game.tags.iter().enumerate().filter(|&(i, _)| !game.repeated(i)).map(|(_, &t)| t).collect();
        m.result = game.result;
        m.bytes = game.bytes;
        m.counted = if game.errors > 0 {
            Some(Severity::Error)
        } else {
            (game.warnings > 0).then_some(Severity::Warning)
        };
        m.fate = match (kept, broken) {
            (false, _) => Fate::Filtered,
            (true, true) => Fate::AsRead,
            (true, false) => Fate::Annotate,
        };
    }

    fn counted(&self) -> bool {
        self.games.last().is_none_or(|g| g.fate != Fate::Filtered)
    }
}
