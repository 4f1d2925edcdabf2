//! Replay: a PGN visitor that plays every game through the rules core. It builds the start
//! position from the `Variant`, `FEN` and `SetUp` tags, resolves each SAN token to a legal move
//! (the mainline, and every variation from the position before the move it replaces when the job
//! asks), checks the result against the `Result` tag and the board, and reports every problem as
//! a located [`Diagnostic`]. A bad move ends its line (the valid prefix is kept); the next game
//! is read as usual. Jobs see the games through [`Hooks`].

use std::ops::ControlFlow;

use crate::chess::{Bitboard, Move, Outcome, Position, Variant};
use crate::error::{Diagnostic, Kind, Severity};
use crate::notation::fen::{EpMode, FenError, parse_fen, write_fen};
use crate::notation::san::{Lenience, SanError, SanPlus, Suffix, parse_san_with, suffix_after};
use crate::pgn::{GameResult, GameStart, LineIndex, Problem, RawComment, RawTag, Reader, SanToken, Visitor};
use crate::pipeline::job::{ChunkEnd, ChunkInput};

/// The first `Variant`, `FEN` and `Result` tags of a game: noted as the tags are read, where a
/// search by name for each compared every tag name of the same length byte by byte.
#[derive(Debug, Default, Clone, Copy)]
struct SetupTags<'a> {
    variant: Option<RawTag<'a>>,
    fen: Option<RawTag<'a>>,
    result: Option<RawTag<'a>>,
}

/// What the replayer knows about the game being read.
#[derive(Debug)]
pub struct Game<'a> {
    /// Game number in its input, 1-based.
    pub number: u64,
    /// Byte offset of the game in the input.
    pub offset: u64,
    /// Line of the game's start, relative to the chunk (1-based).
    pub line: u64,
    /// Tag pairs as written, in order.
    pub tags: Vec<(&'a [u8], RawTag<'a>)>,
    /// The tags every game looks up, noted as they are read.
    setup_tags: SetupTags<'a>,
    /// The rule set (from the `Variant` tag).
    pub variant: Variant,
    /// The start position, unless the setup was bad.
    pub start: Option<Position>,
    /// Mainline plies replayed (the valid prefix).
    pub plies: u32,
    /// Errors so far.
    pub errors: u32,
    /// Warnings so far.
    pub warnings: u32,
    /// The result token of the movetext.
    pub result: Option<GameResult>,
}

impl<'a> Game<'a> {
    fn new() -> Game<'a> {
        Game {
            number: 0,
            offset: 0,
            line: 1,
            tags: Vec::new(),
            setup_tags: SetupTags::default(),
            variant: Variant::Standard,
            start: None,
            plies: 0,
            errors: 0,
            warnings: 0,
            result: None,
        }
    }

    /// Records a tag pair.
    fn push_tag(&mut self, name: &'a [u8], value: RawTag<'a>) {
        let t = &mut self.setup_tags;
        match name {
            b"Variant" if t.variant.is_none() => t.variant = Some(value),
            b"FEN" if t.fen.is_none() => t.fen = Some(value),
            b"Result" if t.result.is_none() => t.result = Some(value),
            _ => {}
        }
        self.tags.push((name, value));
    }

    /// The first tag named `name`.
    pub fn tag(&self, name: &[u8]) -> Option<RawTag<'a>> {
        self.tags.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }

    /// The first tag named `name`, its value as text (Windows-1252 fallback).
    pub fn tag_text(&self, name: &[u8]) -> Option<String> {
        self.tag(name).map(|t| t.decode().0.into_owned())
    }

    /// `White - Black`, for reports; `?` (PGN's unknown) stands for a missing tag.
    pub fn players(&self) -> String {
        let name = |tag: &[u8]| self.tag_text(tag).unwrap_or_else(|| "?".into());
        format!("{} - {}", name(b"White"), name(b"Black"))
    }
}

/// What a job does with the replayed games. Every method has a default that does nothing.
pub trait Hooks<'a> {
    /// Replay variations too (slower; every move of every variation is validated).
    fn variations(&self) -> bool {
        false
    }
    /// Whether the hooks read [`Position::zobrist`]: moves keep the key up to date only then
    /// (else it is computed when asked for), which saves a third of what a move costs.
    fn zobrist_keys(&self) -> bool {
        true
    }
    /// Whether diagnostics of `kind`/`severity` are wanted (building a message costs a FEN).
    fn wants(&self, kind: Kind, severity: Severity) -> bool {
        let _ = (kind, severity);
        true
    }
    /// The game's start position is known (not called when the setup is bad).
    fn start(&mut self, game: &Game<'a>, pos: &Position) {
        let _ = (game, pos);
    }
    /// Whether [`mainline_move`](Self::mainline_move) wants the written SAN: it is then called
    /// after the move is played and its check mark verified, on a copy of the position before.
    fn written_san(&self) -> bool {
        false
    }
    /// A legal mainline move `m`, played from `before` (`game.plies` still counts the plies
    /// before it). With [`written_san`](Self::written_san), `san` is the token as written when it
    /// is exactly the canonical SAN of `m`, check mark included (nearly always), so a job can
    /// copy it instead of writing the SAN again; else `None`.
    fn mainline_move(&mut self, game: &Game<'a>, before: &Position, m: Move, san: Option<&'a [u8]>) {
        let _ = (game, before, m, san);
    }
    /// A mainline null move (`--`), before it is played on `before` (never called in check,
    /// where a null move is an error that ends the line).
    fn mainline_null_move(&mut self, game: &Game<'a>, before: &Position) {
        let _ = (game, before);
    }
    /// A comment after the last mainline move (or before the first).
    fn mainline_comment(&mut self, game: &Game<'a>, comment: RawComment<'a>) {
        let _ = (game, comment);
    }
    /// A problem in the game.
    fn diagnostic(&mut self, d: Diagnostic) {
        let _ = d;
    }
    /// The game is over; `last` is the position after the valid mainline prefix.
    fn end(&mut self, game: &Game<'a>, last: Option<&Position>) {
        let _ = (game, last);
    }
}

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
}

impl Line {
    /// A line from `pos`, `ply` plies into the game, with no move played on it yet.
    fn new(pos: Position, ply: u32, dead: bool) -> Line {
        Line { pos, checkers: pos.checkers(), prev: pos, has_prev: false, ply, dead }
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

/// The replaying visitor over one chunk of input.
pub struct Replayer<'a, H> {
    /// The job's hooks.
    pub hooks: H,
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
    pending_result_token: Option<u64>,
    /// Games, plies and diagnostics counted so far.
    pub stats: super::stats::Stats,
}

/// Replays the games of `chunk` that start before its `end` (the last may run past it) through
/// `hooks`; returns them, the counters (with the bytes read) and where reading ended.
pub fn replay_chunk<'a, H: Hooks<'a>>(
    hooks: H,
    chunk: &ChunkInput<'a>,
) -> (H, super::stats::Stats, ChunkEnd) {
    let mut replayer = Replayer::new(hooks, chunk.bytes, chunk.offset, chunk.first_game);
    replayer.lines = LineIndex::with_column(chunk.bytes, chunk.column as usize);
    let base = chunk.offset as usize;
    let mut reader = Reader::with_base(chunk.bytes, base).starting_at(chunk.offset, chunk.column);
    while !reader.is_at_end() && reader.offset() - base < chunk.end {
        reader.read_game(&mut replayer);
    }
    let consumed = reader.offset() - base;
    let mut stats = replayer.stats;
    stats.bytes = consumed as u64;
    // The replayer's line index stands at the last game's start: only the rest is counted.
    let newlines = replayer.lines.locate(consumed).line as u64 - 1;
    let searched_to = reader.searched_to() as u64;
    (replayer.hooks, stats, ChunkEnd { next: reader.offset() as u64, newlines, searched_to })
}

/// Tokens that mean "no move" in real files.
#[inline]
fn is_null_move(raw: &[u8]) -> bool {
    matches!(raw, b"--" | b"Z0" | b"0000" | b"@@@@")
}

impl<'a, H: Hooks<'a>> Replayer<'a, H> {
    /// A replayer for `chunk`, which starts at byte `chunk_offset` of the input and holds games
    /// numbered from `first_game + 1`.
    pub fn new(hooks: H, chunk: &'a [u8], chunk_offset: u64, first_game: u64) -> Replayer<'a, H> {
        Replayer {
            hooks,
            chunk_offset,
            lines: LineIndex::new(chunk),
            next_number: first_game + 1,
            game: Game::new(),
            stack: Vec::new(),
            in_variation: 0,
            pending_result_token: None,
            pending_mate: None,
            stats: Default::default(),
        }
    }

    /// Reports a problem at `offset` (absolute), building the message only if it is wanted.
    fn report(
        &mut self,
        kind: Kind,
        severity: Severity,
        offset: u64,
        ply: Option<u32>,
        message: impl FnOnce() -> String,
    ) {
        match severity {
            Severity::Error => self.game.errors += 1,
            Severity::Warning => self.game.warnings += 1,
        }
        if !self.hooks.wants(kind, severity) {
            self.stats.count_kind(kind, severity);
            return;
        }
        let at = self.lines.locate((offset - self.chunk_offset) as usize);
        let d = Diagnostic {
            kind,
            severity,
            game: self.game.number,
            offset,
            line: at.line as u64,
            col: at.col as u64,
            ply,
            players: self.game.players(),
            message: message(),
        };
        self.stats.count(&d);
        self.hooks.diagnostic(d);
    }

    fn setup(&mut self) -> Option<Position> {
        if let Some(tag) = self.game.setup_tags.variant {
            let (name, _) = tag.decode();
            match Variant::from_tag(&name) {
                Ok(v) => self.game.variant = v,
                Err(_) => {
                    let name = name.into_owned();
                    self.report(Kind::UnsupportedVariant, Severity::Error, tag.offset as u64, None, || {
                        format!("unsupported variant \"{name}\"")
                    });
                    return None;
                }
            }
        }
        let Some(tag) = self.game.setup_tags.fen else {
            return Some(Position::new(self.game.variant));
        };
        let fen = tag.decode().0.into_owned();
        match parse_fen(&fen, self.game.variant) {
            Ok(pos) => Some(pos),
            Err(FenError::Position(e)) => match e.clone().ignore_invalid_castling_rights() {
                Ok(pos) => {
                    self.report(Kind::CastlingRights, Severity::Warning, tag.offset as u64, None, || {
                        format!("castling rights without their rook in FEN \"{fen}\": dropped")
                    });
                    Some(pos)
                }
                Err(_) => {
                    self.report(Kind::BadFen, Severity::Error, tag.offset as u64, None, || {
                        format!("{e} in FEN \"{fen}\"")
                    });
                    None
                }
            },
            Err(e) => {
                self.report(Kind::BadFen, Severity::Error, tag.offset as u64, None, || {
                    format!("bad FEN \"{fen}\": {e}")
                });
                None
            }
        }
    }

    /// A null move (`--`, `Z0`, `0000`, `@@@@`): played with a warning, or refused in check.
    #[cold]
    #[inline(never)]
    fn play_null(&mut self, token: SanToken<'a>) {
        self.settle_mate();
        let variations = self.hooks.variations();
        let mainline = self.stack.len() == 1;
        let Some(line) = self.stack.last_mut() else { return };
        let ply = line.ply + 1;
        let offset = token.offset as u64;
        if mainline && !line.pos.is_check() {
            self.hooks.mainline_null_move(&self.game, &line.pos);
        }
        // Kept even if the null move is refused: the line is then dead, and a dead line's
        // variations are read, not replayed, from any position.
        line.remember(variations);
        if line.pos.play_null().is_ok() {
            line.checkers = line.pos.checkers();
            line.ply = ply;
            if mainline {
                self.game.plies = ply;
            }
            let raw = String::from_utf8_lossy(token.raw).into_owned();
            self.report(Kind::NullMove, Severity::Warning, offset, Some(ply), || {
                format!("null move \"{raw}\"")
            });
        } else {
            line.dead = true;
            let mut fen = String::new();
            write_fen(&line.pos, EpMode::Legal, &mut fen);
            self.report(Kind::IllegalMove, Severity::Error, offset, Some(ply), || {
                format!("null move while in check in position {fen}")
            });
        }
    }

    fn play(&mut self, token: SanToken<'a>) {
        let variations = self.hooks.variations();
        let mainline = self.stack.len() == 1;
        let Some(line) = self.stack.last_mut() else { return };
        if line.dead {
            return;
        }
        let ply = line.ply + 1;
        let offset = token.offset as u64;
        match parse_san_with(&line.pos, line.checkers, token.raw) {
            Ok(r) => {
                // A legal move: the position before it was no mate.
                self.pending_mate = None;
                let m = r.mv;
                let show = self.hooks.wants(Kind::NonCanonicalSan, Severity::Warning)
                    || self.hooks.wants(Kind::CheckMark, Severity::Warning);
                // A copy of the position only when something reads it: it measured 2-5% of
                // `positions --format fen`.
                let after = mainline && self.hooks.written_san();
                line.remember(variations || show || after);
                if mainline && !after {
                    self.hooks.mainline_move(&self.game, &line.pos, m, None);
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
                    let san = lenience.is_canonical().then_some(token.raw);
                    self.hooks.mainline_move(&self.game, &line.prev, m, san);
                    self.game.plies = ply;
                }
                if !lenience.is_canonical() {
                    self.san_warning(lenience, m, token.raw, offset, ply);
                }
            }
            // No null-move spelling resolves: tested only here, off the path of every move.
            Err(_) if is_null_move(token.raw) => self.play_null(token),
            Err(e) => self.unresolved(e, token, ply),
        }
    }

    /// Reports `token`, which did not resolve, and ends the innermost line there.
    #[inline(never)]
    fn unresolved(&mut self, e: SanError, token: SanToken<'a>, ply: u32) {
        self.settle_mate();
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
        let mut fen = String::new();
        write_fen(&line.pos, EpMode::Legal, &mut fen);
        let raw = String::from_utf8_lossy(token.raw).into_owned();
        self.report(kind, Severity::Error, token.offset as u64, Some(ply), || {
            format!("{what} \"{raw}\" in position {fen}")
        });
    }

    /// Warns that move `m` of the innermost line, written `raw`, is not its canonical SAN.
    fn san_warning(&mut self, lenience: Lenience, m: Move, raw: &'a [u8], offset: u64, ply: u32) {
        let kind = if lenience == Lenience::CHECK_MARK { Kind::CheckMark } else { Kind::NonCanonicalSan };
        // Only a shown warning needs the canonical SAN; counted ones skip writing it.
        let san = (self.stack.last().and_then(Line::prev))
            .filter(|_| self.hooks.wants(kind, Severity::Warning))
            .map(|p| SanPlus::from_move(p, m).to_string());
        self.report(kind, Severity::Warning, offset, Some(ply), || {
            let san = san.unwrap_or_default();
            let how: Vec<&str> = lenience.describe().collect();
            format!("\"{}\" written for {san} ({})", String::from_utf8_lossy(raw), how.join(", "))
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

    /// Compares the result token with the `Result` tag and with the board after the mainline.
    fn check_result(&mut self) {
        let end = self.pending_result_token.unwrap_or(self.game.offset);
        let tag = self.game.setup_tags.result;
        let tag_result = tag.and_then(|t| GameResult::from_ascii(&t.unescape()));
        let Some(token) = self.game.result else {
            self.report(Kind::MissingResult, Severity::Warning, end, None, || {
                "no result token at the end of the movetext".into()
            });
            return;
        };
        if let Some(t) = tag_result
            && t != token
        {
            let sev = if t == GameResult::Unknown || token == GameResult::Unknown {
                Severity::Warning
            } else {
                Severity::Error
            };
            self.report(Kind::ResultMismatch, sev, end, None, || {
                format!("result {} differs from the Result tag \"{}\"", token.as_str(), t.as_str())
            });
        }
        let Some(line) = self.stack.first().filter(|l| !l.dead) else { return };
        let on_board: Option<Outcome> = line.pos.outcome().filter(|o| {
            o.termination == crate::chess::Termination::Checkmate
                || o.termination == crate::chess::Termination::Stalemate
        });
        if let Some(o) = on_board
            && token != GameResult::Unknown
            && o.result() != token.as_str()
        {
            let ply = line.ply;
            self.report(Kind::ResultMismatch, Severity::Error, end, Some(ply), || {
                format!("result {} but the board shows {:?} ({})", token.as_str(), o.termination, o.result())
            });
        }
    }
}

impl<'a, H: Hooks<'a>> Visitor<'a> for Replayer<'a, H> {
    type Output = ();

    fn begin_game(&mut self, start: GameStart) -> ControlFlow<()> {
        self.game.number = self.next_number;
        self.next_number += 1;
        self.game.offset = start.offset as u64;
        self.game.line = self.lines.locate(start.offset - self.chunk_offset as usize).line as u64;
        self.game.tags.clear();
        self.game.setup_tags = SetupTags::default();
        self.game.variant = Variant::Standard;
        self.game.start = None;
        self.game.plies = 0;
        self.game.errors = 0;
        self.game.warnings = 0;
        self.game.result = None;
        self.stack.clear();
        self.pending_mate = None;
        self.in_variation = 0;
        self.pending_result_token = None;
        ControlFlow::Continue(())
    }

    fn tag(&mut self, name: &'a [u8], value: RawTag<'a>) {
        self.game.push_tag(name, value);
    }

    fn begin_movetext(&mut self) -> ControlFlow<()> {
        let start = self.setup();
        if let Some(pos) = &start {
            self.hooks.start(&self.game, pos);
            let mut pos = *pos;
            pos.set_hashing(self.hooks.zobrist_keys());
            self.stack.push(Line::new(pos, 0, false));
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

    fn comment(&mut self, comment: RawComment<'a>) {
        if self.stack.len() == 1 && self.in_variation == 0 {
            self.hooks.mainline_comment(&self.game, comment);
        }
    }

    fn begin_variation(&mut self, _offset: usize) -> ControlFlow<()> {
        if !self.hooks.variations() {
            return ControlFlow::Break(());
        }
        self.settle_mate();
        if self.in_variation > 0 {
            self.in_variation += 1;
            return ControlFlow::Continue(());
        }
        match self.stack.last().and_then(|l| l.prev().map(|&p| (p, l.ply, l.dead))) {
            Some((pos, ply, dead)) => self.stack.push(Line::new(pos, ply - 1, dead)),
            // A variation with no move to replace (or no start position): read, not replayed.
            None => self.in_variation = 1,
        }
        ControlFlow::Continue(())
    }

    fn end_variation(&mut self, _offset: usize) {
        if self.in_variation > 0 {
            self.in_variation -= 1;
        } else if self.stack.len() > 1 {
            self.settle_mate();
            self.stack.pop();
        }
    }

    fn outcome(&mut self, result: Option<GameResult>, offset: usize) {
        self.settle_mate();
        self.game.result = result;
        self.pending_result_token = Some(offset as u64);
    }

    fn problem(&mut self, p: Problem) {
        self.settle_mate();
        let (kind, severity) = Kind::from_problem(p.kind);
        self.report(kind, severity, p.offset as u64, None, || p.kind.message().to_string());
    }

    fn end_game(&mut self) {
        self.settle_mate();
        if self.pending_result_token.is_some() {
            self.check_result();
        }
        self.stack.truncate(1);
        let last = self.stack.first().map(|l| &l.pos);
        self.hooks.end(&self.game, last);
        self.stats.games += 1;
        self.stats.plies += self.game.plies as u64;
        if self.game.errors > 0 {
            self.stats.games_with_errors += 1;
        } else if self.game.warnings > 0 {
            self.stats.games_with_warnings += 1;
        }
    }
}
