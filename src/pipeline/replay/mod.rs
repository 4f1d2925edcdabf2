//! Replay: a PGN visitor that plays every game through the rules core. It builds the start
//! position from the `Variant`, `FEN` and `SetUp` tags, resolves each SAN token to a legal move
//! (the mainline, and every variation from the position before the move it replaces when the job
//! asks), checks the result against the `Result` tag and the board, and reports every problem as
//! a located [`Diagnostic`](crate::error::Diagnostic). A bad move ends its line (the valid prefix
//! is kept; the rest of a variation so ended is handed to the job as read, [`Cut`]); the next
//! game is read as usual. Jobs see the games through [`Hooks`].

mod diagnose;
mod evals;
pub mod export;
mod game;
mod lenient;
mod message;
mod reread;
mod result;
mod tags;

use std::ops::ControlFlow;

pub use evals::EvalClock;
pub use game::{Cut, Game, Hooks, Lines, Played, Verdict, played_variant};

use crate::chess::{Bitboard, Move, Position, Variant};
use crate::error::{Kind, Severity};
use crate::notation::san::{Lenience, SanError, Suffix, parse_san_with, suffix_after};
use crate::pgn::{
    GameResult, GameStart, LineIndex, Nag, Problem, ProblemKind, RawComment, RawTag, Reader, SanToken,
    Visitor,
};
use crate::pipeline::chunk::Start;
use crate::pipeline::job::{ChunkEnd, ChunkInput, Output};
use message::{Facts, fen, problem_kind, problem_message, san, text};

/// A move written with `+` that gives check, whose test for mate waits: the next move of its
/// line, once it resolves, shows the position had a legal move, so the mate test (a move
/// generation on every check, 3-4% of `check -j1`) is run only when no legal move follows.
#[derive(Clone, Copy)]
struct PendingMate<'a> {
    mv: Move,
    raw: &'a [u8],
    offset: u64,
    ply: u32,
}

/// A line being replayed: the mainline or a variation.
struct Line {
    pos: Position,
    /// `pos.checkers()`: computed once per position, for resolving and for the check mark.
    checkers: Bitboard,
    /// The position before the last move, where a variation starts; meaningful only when
    /// `has_prev`. Not an `Option`: `Some(pos)` was built in a stack temporary and copied on,
    /// and the copy's overlapping reload of it stalled on store forwarding every ply.
    prev: Position,
    has_prev: bool,
    /// Plies played before `pos` from the game's start.
    ply: u32,
    /// A bad move ended this line.
    dead: bool,
    /// Byte offset of a variation's `(` (0 for the mainline).
    open: u64,
}

impl Line {
    /// A line from `pos`, `ply` plies into the game, with no move played on it yet, opened at
    /// byte `open`.
    fn new(pos: Position, ply: u32, dead: bool, open: u64) -> Line {
        Line { pos, checkers: pos.checkers(), prev: pos, has_prev: false, ply, dead, open }
    }

    /// Before a move: keeps the current position as `prev` when `keep` (a variation may start
    /// there, or a shown warning writes the canonical SAN from it). Copied straight into place:
    /// a copy through a temporary measured 2-3% of `check -j1`.
    #[inline(always)]
    fn remember(&mut self, keep: bool) {
        self.has_prev = keep;
        if keep {
            self.prev = self.pos;
        }
    }

    /// The position before the last move, if it was kept.
    fn prev(&self) -> Option<&Position> {
        self.has_prev.then_some(&self.prev)
    }
}

/// A variation an error ended, until it closes: the error, where its rest starts (absolute), and
/// whether no move of it was replayed.
#[derive(Clone, Copy)]
struct OpenCut {
    kind: Kind,
    from: u64,
    whole: bool,
}

/// The replaying visitor over one chunk of input.
pub struct Replayer<'a, H> {
    /// The job's hooks.
    pub hooks: H,
    chunk: &'a [u8],
    chunk_offset: u64,
    lines: LineIndex<'a>,
    next_number: u64,
    game: Game<'a>,
    stack: Vec<Line>,
    /// The innermost line's last move's `+`, not yet told from a mate: settled before a line
    /// is entered or left and before anything else can report (a problem, the game's end).
    pending_mate: Option<PendingMate<'a>>,
    /// Depth of skipped or dead variations, to ignore their tokens.
    in_variation: usize,
    /// The variation an error ended, while its rest is read ([`Game::cutting`] its depth).
    cut: Option<OpenCut>,
    /// Variation depth of the events being read (replayed or not).
    depth: u32,
    pending_result_token: Option<u64>,
    /// The result came from a repaired token: the reader's end of movetext does not clear it.
    result_repaired: bool,
    /// The mainline's first move is written as a move, though illegal or ambiguous where it
    /// stands, or a tag pair as one, though skipped for its length: the game is PGN with a bad
    /// move or tag, not other text ([`Stats::pgn_games`]).
    pgn_written: bool,
    /// Games, plies and diagnostics counted so far.
    pub stats: super::stats::Stats,
    /// The current game's diagnostics, counted when it ends if the hooks count it: runs of one
    /// kind as one entry (a game of a million null moves holds one).
    game_kinds: Vec<(Kind, Severity, u32)>,
    /// The White and Black tags diagnostics name, of the game numbered and with the tags counted
    /// here: looked up once for a game's many diagnostics, not once each over all its tags.
    named: Option<Box<Named>>,
    /// Problems found among the tags, reported once they are all read, so that they name the
    /// players whose tags come after them; past the first that are shown, only counted.
    tag_problems: Vec<Problem>,
    /// The kinds of the tag problems past those kept in `tag_problems`, as in `game_kinds`.
    tag_problems_past: Vec<(Kind, Severity, u32)>,
    /// The game's tags are being read.
    in_tags: bool,
    /// The game's first error came past its first diagnostics, and was shown.
    late_error: bool,
    /// The current mainline move's evaluation and clock, once handed to the hooks.
    given: evals::Given,
}

/// A game's number and count of tags, and its White and Black tags then.
type Named = (u64, usize, Option<String>, Option<String>);

/// Replays the games of `chunk` that start before its `end` (the last may run past it) through
/// `hooks`, stopping between games when the run is cancelled; returns the hooks and the chunk's
/// counters (with the bytes read) and where reading ended, for the job to make its [`Output`].
pub fn replay_chunk<'a, H: Hooks<'a>>(hooks: H, chunk: &ChunkInput<'a>) -> (H, Output<()>) {
    let mut replayer = Replayer::new(hooks, chunk.bytes, chunk.offset, chunk.first_game);
    replayer.lines = LineIndex::with_column(chunk.bytes, chunk.column as usize);
    let base = chunk.offset as usize;
    let mut reader = Reader::with_base(chunk.bytes, base).starting_at(chunk.offset, chunk.column);
    while !reader.is_at_end() && reader.offset() - base < chunk.end && !chunk.cancel.is_set() {
        replayer.read_game(&mut reader);
    }
    let consumed = reader.offset() - base;
    replayer.count_diagnostics(true);
    let newlines = replayer.newlines_to(consumed);
    let mut stats = replayer.stats;
    stats.bytes = consumed as u64;
    let searched_to = reader.searched_to() as u64;
    let at_result = reader.ended_at_result();
    let end = ChunkEnd { next: reader.offset() as u64, newlines, searched_to, at_result };
    (replayer.hooks, Output { records: (), stats, end })
}

/// The games of an input in memory (or of a game-aligned piece of it), replayed one at a time,
/// for tools that stop early (`pgnkit show` looks for one game).
pub struct Games<'a, H> {
    reader: Reader<'a>,
    replayer: Replayer<'a, H>,
    /// The input offset of the bytes' start.
    base: usize,
}

impl<'a, H: Hooks<'a>> Games<'a, H> {
    /// The games of `bytes`, numbered from 1.
    pub fn new(hooks: H, bytes: &'a [u8]) -> Games<'a, H> {
        Games { reader: Reader::new(bytes), replayer: Replayer::new(hooks, bytes, 0, 0), base: 0 }
    }

    /// The games of `bytes`, a piece of an input that begins at a game's start, `start`:
    /// offsets and game numbers are the input's. Lines are the piece's, as a pipeline chunk's
    /// are: its diagnostics are shifted by `start.line` to be the input's.
    pub fn starting(hooks: H, bytes: &'a [u8], start: Start) -> Games<'a, H> {
        let mut replayer = Replayer::new(hooks, bytes, start.offset, start.game);
        replayer.lines = LineIndex::with_column(bytes, start.column as usize);
        let base = start.offset as usize;
        let reader = Reader::with_base(bytes, base).starting_at(start.offset, start.column);
        Games { reader, replayer, base }
    }

    /// The line breaks in the bytes read so far.
    pub fn newlines(&mut self) -> u64 {
        self.replayer.newlines_to(self.reader.offset() - self.base)
    }

    /// Replays the next game; `false` at the end of the input.
    pub fn next_game(&mut self) -> bool {
        !self.reader.is_at_end() && self.replayer.read_game(&mut self.reader)
    }

    /// The hooks.
    pub fn hooks(&self) -> &H {
        &self.replayer.hooks
    }

    /// The counts of the games replayed so far.
    pub fn stats(&self) -> &super::stats::Stats {
        &self.replayer.stats
    }

    /// The hooks, once done.
    pub fn into_hooks(self) -> H {
        self.replayer.hooks
    }
}

/// Tokens that mean "no move" in real files.
#[inline]
pub(super) fn is_null_move(raw: &[u8]) -> bool {
    matches!(raw, b"--" | b"Z0" | b"0000" | b"@@@@")
}

impl<'a, H: Hooks<'a>> Replayer<'a, H> {
    /// The line breaks in the chunk's first `consumed` bytes. The line index stands at the last
    /// game's start: only the rest is counted.
    fn newlines_to(&mut self, consumed: usize) -> u64 {
        self.lines.locate(consumed).line as u64 - 1
    }

    /// A replayer for `chunk`, which starts at byte `chunk_offset` of the input and holds games
    /// numbered from `first_game + 1`.
    fn new(hooks: H, chunk: &'a [u8], chunk_offset: u64, first_game: u64) -> Replayer<'a, H> {
        Replayer {
            hooks,
            chunk,
            chunk_offset,
            lines: LineIndex::new(chunk),
            next_number: first_game + 1,
            game: Game::new(),
            stack: Vec::new(),
            in_variation: 0,
            cut: None,
            depth: 0,
            pending_result_token: None,
            result_repaired: false,
            pgn_written: false,
            pending_mate: None,
            stats: Default::default(),
            game_kinds: Vec::new(),
            named: None,
            tag_problems: Vec::new(),
            tag_problems_past: Vec::new(),
            late_error: false,
            given: evals::Given::default(),
            in_tags: false,
        }
    }

    /// Reads and replays one game from `reader`, then ends it where the reader stopped.
    fn read_game(&mut self, reader: &mut Reader<'a>) -> bool {
        let read = reader.read_game(self).is_some();
        if read {
            self.finish(reader.offset() as u64);
        }
        read
    }

    /// Whether the moves of the innermost line go to [`Hooks::played`].
    #[inline(always)]
    fn delivers(&self) -> bool {
        match self.hooks.moves() {
            Lines::None => false,
            Lines::Mainline => self.stack.len() == 1,
            Lines::All => true,
        }
    }

    /// A null move (`--`, `Z0`, `0000`, `@@@@`): played with a warning, or refused in check.
    #[cold]
    #[inline(never)]
    fn play_null(&mut self, token: SanToken<'a>) {
        self.settle_mate();
        let variations = self.hooks.variations();
        let mainline = self.stack.len() == 1;
        let deliver = self.delivers();
        let depth = self.stack.len().saturating_sub(1) as u32;
        let Some(line) = self.stack.last_mut() else { return };
        let ply = line.ply + 1;
        let offset = token.offset as u64;
        let before = line.pos;
        if at_limit(&line.pos) && overflows(&line.pos, None) {
            return self.past_limit(token, ply);
        }
        if deliver && !line.pos.is_check() {
            let lenience = Lenience::NULL_MOVE;
            let played = Played {
                depth,
                ply: line.ply,
                before: &line.pos,
                mv: None,
                token,
                canonical: false,
                lenience,
            };
            self.hooks.played(&self.game, &played);
        }
        // Kept even if the null move is refused: the line is then dead, and a dead line's
        // variations are read, not replayed, from any position.
        line.remember(variations);
        let san = || Some(text(token.raw));
        if line.pos.play_null().is_ok() {
            line.checkers = line.pos.checkers();
            line.ply = ply;
            if mainline {
                self.game.plies = ply;
            }
            let severity =
                if self.hooks.refuses_null_moves(mainline) { Severity::Error } else { Severity::Warning };
            self.report(Kind::NullMove, severity, offset, Some(ply), || Facts {
                message: format!("null move \"{}\"", text(token.raw)),
                san: san(),
                fen: Some(fen(&before)),
            });
        } else {
            line.dead = true;
            let fen = fen(&line.pos);
            self.open_cut(Kind::IllegalMove, offset);
            self.report(Kind::IllegalMove, Severity::Error, offset, Some(ply), || Facts {
                message: format!("null move while in check in position {fen}"),
                san: san(),
                fen: Some(fen),
            });
        }
    }

    fn play(&mut self, token: SanToken<'a>) {
        let variations = self.hooks.variations();
        let mainline = self.stack.len() == 1;
        let deliver = self.delivers();
        let depth = self.stack.len().saturating_sub(1) as u32;
        let Some(line) = self.stack.last_mut() else { return };
        if line.dead {
            return;
        }
        let ply = line.ply + 1;
        let offset = token.offset as u64;
        match parse_san_with(&line.pos, line.checkers, token.raw) {
            Ok(r) if at_limit(&line.pos) && overflows(&line.pos, Some((r.mv, r.role))) => {
                self.past_limit(token, ply)
            }
            Ok(r) => {
                // A legal move: the position before it was no mate.
                self.pending_mate = None;
                let m = r.mv;
                let show = self.hooks.wants(Kind::NonCanonicalSan, Severity::Warning)
                    || self.hooks.wants(Kind::CheckMark, Severity::Warning);
                // A copy of the position only when something reads it: it measured 2-5% of
                // `positions --format fen`.
                let after = deliver && self.hooks.written_san();
                line.remember(variations || show || after);
                if deliver && !after {
                    let played = Played {
                        depth,
                        ply: line.ply,
                        before: &line.pos,
                        mv: Some(m),
                        token,
                        canonical: false,
                        lenience: Lenience::CANONICAL,
                    };
                    self.hooks.played(&self.game, &played);
                }
                if mainline && !after {
                    self.game.plies = ply;
                }
                line.pos.play_known(m, r.role);
                line.checkers = line.pos.checkers();
                line.ply = ply;
                let mut lenience = r.lenience;
                // A `+` that checks is right unless it mates: the next legal move tells (a job
                // that reads the written SAN at once is told at once, and a SAN already warned
                // about gets its check mark judged in the same warning).
                if !after && lenience.is_canonical() && r.suffix == Some(Suffix::Check) && line.checkers.any()
                {
                    self.pending_mate = Some(PendingMate { mv: m, raw: token.raw, offset, ply });
                } else if suffix_after(&line.pos, line.checkers) != r.suffix {
                    lenience |= Lenience::CHECK_MARK;
                }
                if after {
                    // Called once the check mark is verified, so the token can stand for the SAN.
                    let canonical = lenience.is_canonical();
                    let (before, mv) = (&line.prev, Some(m));
                    let played = Played { depth, ply: ply - 1, before, mv, token, canonical, lenience };
                    self.hooks.played(&self.game, &played);
                    if mainline {
                        self.game.plies = ply;
                    }
                }
                if !lenience.is_canonical() {
                    self.san_warning(lenience, m, token.raw, offset, ply);
                }
            }
            // No null-move spelling resolves: tested only here, off the path of every move.
            Err(_) if is_null_move(token.raw) => self.play_null(token),
            Err(e) => {
                if !self.no_break_space(token, ply)
                    && !self.dotted_move(token, ply)
                    && !self.detached_check_mark(token)
                    && !self.repaired_result(token)
                    && !self.annotation_word(token, ply)
                {
                    self.unresolved(e, token, ply);
                }
            }
        }
    }

    /// Refuses `token`, a move that takes a counter past its limit, and ends the innermost line
    /// there: a FEN can give a clock near it, and a count held at its limit would be wrong.
    #[cold]
    #[inline(never)]
    fn past_limit(&mut self, token: SanToken<'a>, ply: u32) {
        self.settle_mate();
        self.pgn_written |= self.stack.len() == 1;
        let Some(line) = self.stack.last_mut() else { return };
        line.dead = true;
        let fen = fen(&line.pos);
        let offset = token.offset as u64;
        self.open_cut(Kind::CounterLimit, offset);
        self.report(Kind::CounterLimit, Severity::Error, offset, Some(ply), || Facts {
            message: format!(
                "move \"{}\" takes the halfmove clock or the fullmove number past {} in position {fen}",
                text(token.raw),
                u32::MAX
            ),
            san: Some(text(token.raw)),
            fen: Some(fen),
        });
    }

    /// Reports `token`, which did not resolve, and ends the innermost line there.
    #[inline(never)]
    fn unresolved(&mut self, e: SanError, token: SanToken<'a>, ply: u32) {
        self.settle_mate();
        self.pgn_written |= self.stack.len() == 1 && e != SanError::Syntax;
        let Some(line) = self.stack.last_mut() else { return };
        line.dead = true;
        let kind = match e {
            SanError::Illegal => Kind::IllegalMove,
            SanError::Ambiguous => Kind::AmbiguousMove,
            SanError::Syntax => Kind::InvalidMove,
        };
        let what = match e {
            SanError::Illegal => "illegal SAN",
            SanError::Ambiguous => "ambiguous SAN",
            SanError::Syntax => "unreadable move",
        };
        let fen = fen(&line.pos);
        let raw = text(token.raw);
        self.open_cut(kind, token.offset as u64);
        self.report(kind, Severity::Error, token.offset as u64, Some(ply), || Facts {
            message: format!("{what} \"{raw}\" in position {fen}"),
            san: Some(raw),
            fen: Some(fen),
        });
    }

    /// The innermost line, when it is a variation, was ended by an error of `kind` at byte
    /// `offset`: its rest, from there (from its `(` when none of its moves was replayed), is cut.
    fn open_cut(&mut self, kind: Kind, offset: u64) {
        let n = self.stack.len();
        if n < 2 || self.cut.is_some() {
            return;
        }
        let (line, parent) = (&self.stack[n - 1], &self.stack[n - 2]);
        // A variation starts a ply before its parent's last move.
        let whole = line.ply + 1 == parent.ply;
        self.cut = Some(OpenCut { kind, from: if whole { line.open } else { offset }, whole });
        self.game.cutting = Some(n as u32 - 1);
    }

    /// The variation being cut closes at byte `offset` (its `)`, or the game's end when it was
    /// not closed): its rest goes to the hooks.
    fn close_cut(&mut self, offset: usize) {
        let Some(c) = self.cut.take() else { return };
        self.game.cutting = None;
        let from = (c.from - self.chunk_offset) as usize;
        let mut to = offset - self.chunk_offset as usize;
        if c.whole && self.chunk.get(to) == Some(&b')') {
            to += 1;
        }
        let cut = Cut { kind: c.kind, offset: c.from, text: &self.chunk[from..to], whole: c.whole };
        self.hooks.cut(&self.game, self.depth, cut);
    }

    /// Warns that move `m` of the innermost line, written `raw`, is not its canonical SAN.
    fn san_warning(&mut self, lenience: Lenience, m: Move, raw: &'a [u8], offset: u64, ply: u32) {
        let kind = if lenience == Lenience::CHECK_MARK { Kind::CheckMark } else { Kind::NonCanonicalSan };
        // Only a shown warning needs the position before the move; counted ones skip copying it.
        let before = (self.stack.last().and_then(Line::prev))
            .filter(|_| self.hooks.wants(kind, Severity::Warning))
            .copied();
        self.report(kind, Severity::Warning, offset, Some(ply), || {
            let canonical = before.map(|p| san(&p, m)).unwrap_or_default();
            let how: Vec<&str> = lenience.describe().collect();
            Facts {
                message: format!("\"{}\" written for {canonical} ({})", text(raw), how.join(", ")),
                san: Some(text(raw)),
                fen: before.map(|p| fen(&p)),
            }
        });
    }

    /// Tells the innermost line's pending `+` from a mate, when no legal move follows it.
    #[inline]
    fn settle_mate(&mut self) {
        if let Some(p) = self.pending_mate.take()
            && let Some(line) = self.stack.last()
            && !line.pos.has_legal_moves()
        {
            self.san_warning(Lenience::CHECK_MARK, p.mv, p.raw, p.offset, p.ply);
        }
    }

    /// Ends the game the reader has just read, which stops at `end` (absolute).
    fn finish(&mut self, end: u64) {
        self.tags_read();
        self.settle_mate();
        let start = (self.game.offset - self.chunk_offset) as usize;
        let stop = (end - self.chunk_offset) as usize;
        self.game.end = end;
        self.game.bytes = &self.chunk[start.min(stop)..stop];
        if self.no_game() {
            self.report(Kind::Syntax, Severity::Error, self.game.offset, None, || {
                Facts::message(
                    "not a game: no tag, move, comment or result, only text that is skipped".into(),
                )
            });
        } else if self.pending_result_token.is_some() {
            self.check_result();
        }
        self.stack.truncate(1);
        let last = self.stack.first().map(|l| &l.pos);
        self.hooks.end(&self.game, last);
        self.stats.games += 1;
        // Tags first: nearly every game has some, and the rest is looked at only without them.
        if !self.game.tags.is_empty()
            || self.game.plies > 0
            || self.pgn_written
            || (self.game.skipped && reread::first_move_written(self.game.bytes))
        {
            self.stats.pgn_games += 1;
        }
        let counted = self.hooks.counted();
        // Plies of the games reported on: one a filter leaves out adds none, replayed or not.
        if counted {
            self.stats.plies += self.game.plies as u64;
        }
        if counted && self.game.errors > 0 {
            self.stats.games_with_errors += 1;
        } else if counted && self.game.warnings > 0 {
            self.stats.games_with_warnings += 1;
        }
        self.count_diagnostics(counted);
    }

    /// Whether the game read holds nothing of a game, only text the reader skipped (stray
    /// punctuation, a NAG with no move, `$256`): an error, so that `clean` keeps it verbatim
    /// with the rejects instead of writing an empty game, and `check` shows it as what it is.
    fn no_game(&self) -> bool {
        self.game.errors == 0
            && !self.game.skipped
            && self.game.tags.is_empty()
            && self.game.plies == 0
            && !self.pgn_written
            && self.game.result.is_none()
            && !reread::has_comment(self.game.bytes)
    }
}

impl<'a, H: Hooks<'a>> Visitor<'a> for Replayer<'a, H> {
    type Output = ();

    fn begin_game(&mut self, start: GameStart) -> ControlFlow<()> {
        self.game.number = self.next_number;
        self.next_number += 1;
        self.game.offset = start.offset as u64;
        self.game.end = start.offset as u64;
        self.game.bytes = &[];
        self.game.line = self.lines.locate(start.offset - self.chunk_offset as usize).line as u64;
        self.game.clear_tags();
        self.game.variant = Variant::Standard;
        self.game.start = None;
        self.game.plies = 0;
        self.game.errors = 0;
        self.game.warnings = 0;
        self.game.cutting = None;
        self.game.cut_errors = 0;
        self.late_error = false;
        self.game.result = None;
        self.game.skipped = false;
        self.stack.clear();
        self.pending_mate = None;
        self.in_variation = 0;
        self.cut = None;
        self.depth = 0;
        self.pending_result_token = None;
        self.result_repaired = false;
        self.pgn_written = false;
        self.in_tags = true;
        ControlFlow::Continue(())
    }

    fn tag(&mut self, name: &'a [u8], value: RawTag<'a>) {
        self.game.push_tag(name, value);
    }

    fn begin_movetext(&mut self) -> ControlFlow<()> {
        self.tags_read();
        if self.game.has_repeats() || self.game.has_no_day() {
            self.tag_warnings();
        }
        if self.hooks.tags(&self.game) == Verdict::Skip {
            self.game.skipped = true;
            return ControlFlow::Break(());
        }
        let start = self.setup();
        if let Some(pos) = &start {
            self.hooks.start(&self.game, pos);
            let mut pos = *pos;
            pos.set_hashing(self.hooks.zobrist_keys());
            self.stack.push(Line::new(pos, 0, false, 0));
        }
        self.game.start = start;
        ControlFlow::Continue(())
    }

    fn san(&mut self, san: SanToken<'a>) -> ControlFlow<()> {
        if self.in_variation == 0 {
            self.play(san);
        }
        ControlFlow::Continue(())
    }

    fn nag(&mut self, nag: Nag, offset: usize) {
        self.hooks.nag(&self.game, self.depth, nag, offset as u64);
    }

    fn comment(&mut self, comment: RawComment<'a>) {
        self.hooks.comment(&self.game, self.depth, comment);
        if self.depth == 0 && !self.game.skipped && self.hooks.reads_evals() {
            self.read_evals(&comment);
        }
    }

    fn begin_variation(&mut self, offset: usize) -> ControlFlow<()> {
        if !self.hooks.variations() {
            return ControlFlow::Break(());
        }
        self.settle_mate();
        self.depth += 1;
        if self.in_variation > 0 {
            self.in_variation += 1;
            self.hooks.begin_variation(&self.game, self.depth, false);
            return ControlFlow::Continue(());
        }
        let replayed = match self.stack.last().and_then(|l| l.prev().map(|&p| (p, l.ply, l.dead))) {
            Some((pos, ply, dead)) => {
                self.stack.push(Line::new(pos, ply - 1, dead, offset as u64));
                !dead
            }
            // A variation with no move to replace (or no start position): read, not replayed.
            // Reported unless an error came first (no start position, a dead line's variation).
            None => {
                if self.stack.last().is_some_and(|l| !l.dead) {
                    let whole = OpenCut { kind: Kind::Syntax, from: offset as u64, whole: true };
                    self.cut = Some(whole);
                    self.game.cutting = Some(self.depth);
                    self.report(Kind::Syntax, Severity::Error, offset as u64, None, || {
                        Facts::message("a variation with no move before it to replace".to_string())
                    });
                }
                self.in_variation = 1;
                false
            }
        };
        self.hooks.begin_variation(&self.game, self.depth, replayed);
        ControlFlow::Continue(())
    }

    fn end_variation(&mut self, offset: usize) {
        if self.in_variation > 0 {
            self.in_variation -= 1;
        } else if self.stack.len() > 1 {
            self.settle_mate();
            self.stack.pop();
        }
        if self.game.cutting == Some(self.depth) {
            self.close_cut(offset);
        }
        self.hooks.end_variation(&self.game, self.depth);
        self.depth = self.depth.saturating_sub(1);
    }

    fn outcome(&mut self, result: Option<GameResult>, offset: usize) {
        self.settle_mate();
        if result.is_none() && self.result_repaired {
            return; // the movetext ended after a result the replay repaired
        }
        self.game.result = result;
        self.pending_result_token = Some(offset as u64);
    }

    fn problem(&mut self, p: Problem) {
        if self.in_tags {
            // A tag pair past the token budget is one all the same (a 20 MB value is PGN).
            self.pgn_written |= p.kind == ProblemKind::TokenTooLong;
            self.hold_tag_problem(p);
            return;
        }
        if self.game.skipped {
            return; // a skipped game's movetext is not checked
        }
        self.settle_mate();
        let (chunk, at) = (self.chunk, (p.offset as u64 - self.chunk_offset) as usize);
        let (kind, severity) = problem_kind(p.kind, chunk, at);
        self.report(kind, severity, p.offset as u64, None, || {
            Facts::message(problem_message(p.kind, chunk, at))
        });
    }

    fn end_game(&mut self) {}
}

#[cfg(test)]
mod tests;

/// Whether a counter of `pos` is at its limit (the next move may take it past).
#[inline(always)]
fn at_limit(pos: &Position) -> bool {
    pos.halfmoves() == u32::MAX || pos.fullmoves() == u32::MAX
}

/// Whether the move `m` (and its role; `None`: a null move) takes a counter of `pos` past its
/// limit: the halfmove clock when it is no capture nor pawn move, the fullmove number after
/// Black's move.
#[cold]
#[inline(never)]
fn overflows(pos: &Position, m: Option<(Move, crate::chess::Role)>) -> bool {
    let mut after = *pos;
    match m {
        Some((m, role)) => after.play_known(m, role),
        None => {
            let _ = after.play_null();
        }
    }
    (pos.halfmoves() == u32::MAX && after.halfmoves() == u32::MAX)
        || (pos.fullmoves() == u32::MAX && !pos.turn().is_white())
}
