//! The replay hooks of `clean`: each game is written in export format as it is replayed
//! ([`GameWriter`]: canonical SAN, comments, NAGs and variations where they stand), its tags
//! repaired and written once the game ends, its result settled; every repair is counted, the
//! first [`LOGGED`](super::repair::LOGGED) of each kind logged; a game
//! with an error no repair covers is rejected (its bytes kept as read); a game the selection
//! leaves out is filtered (on its tags before it is replayed, where the filters allow). The
//! tags are written in `game/tags.rs`.

mod tags;

use super::dedup::{self, Date, Encounter, Identity, Name, Occasion, Rule, Who};
use super::repair::{Repair, RepairKind, Tally, results_read, settle_result, standard_date};
use super::spill::{self, Spilled};
use super::{CleanChunk, CleanGame, CleanOptions, Fate};
use crate::chess::Position;
use crate::error::{Diagnostic, Kind, Severity};
use crate::io::spill::{SpillFile, SpilledText};
use crate::notation::san::Lenience;
use crate::pgn::text::decode;
use crate::pgn::writer::without_braces;
use crate::pgn::{CommentKind, GameResult, LineIndex, Nag, RawComment};
use crate::pipeline::replay::export::GameWriter;
use crate::pipeline::replay::{Cut, Game, Hooks, Lines, Played, Verdict};
use crate::select::Filter;

/// The state of the game being replayed.
#[derive(Default)]
struct Current {
    /// Its repairs logged start here in the chunk's list.
    repairs: usize,
    /// Its repairs counted, every one.
    tally: Tally,
    /// Its diagnostics start here in the chunk's list.
    diagnostics: usize,
    /// The first error no repair covers, and its offset.
    error: Option<(Kind, String, u64)>,
    /// A null move was read.
    null_move: bool,
    /// The FEN tag must be written again from the start position.
    fen_repaired: bool,
    /// The start position.
    start: Option<Position>,
    /// Mainline moves, as the dedup key reads them (two bytes each): those past
    /// [`dedup::MOVES_HELD`] bytes are fed to `hashed` (but under `prefix`, which keeps them all).
    moves: Vec<u8>,
    /// The moves key fed the moves before `moves`.
    hashed: Option<dedup::MovesKey>,
    /// With `--keep-broken`: the position before the last mainline move written, and the move.
    last_written: Option<(Position, Option<crate::chess::Move>)>,
    /// Variations written and not yet closed.
    open: u32,
    /// The depth from which variations are read, not written: those begun in the rest of a
    /// variation an error ended, or one with no move to replace.
    unwritten_from: Option<u32>,
    /// The depth of a variation cut at an error, or holding only one: left out whole when
    /// nothing of it was written.
    closing_cut: Option<u32>,
    /// Where tag lines with a problem start: read with a repair (a missing `]`, an unescaped
    /// quote), logged as read and as written; or reading as no tag pair, left out, logged as read.
    bad_tags: Vec<u64>,
    /// Its movetext so far past the bound, on disk.
    movetext: Option<SpillFile>,
}

pub(super) struct CleanHooks<'o> {
    opts: &'o CleanOptions,
    writer: GameWriter,
    pub(super) out: CleanChunk,
    game: Current,
    pub(super) filter: Filter<'o>,
    /// The last game ended was left out by the filters.
    dropped: bool,
    /// Bytes of a game's movetext, or of the game as read, past which they wait on disk.
    spill_at: usize,
    /// The first temporary file that could not be written (the chunk then fails).
    pub(super) failed: Option<std::io::Error>,
}

impl<'o> CleanHooks<'o> {
    /// Hooks writing as `opts` says into `out`'s buffers (empty).
    pub(super) fn new(opts: &'o CleanOptions, out: CleanChunk, spill_at: usize) -> CleanHooks<'o> {
        CleanHooks {
            opts,
            writer: GameWriter::new(opts.layout(), opts.strip),
            out,
            game: Current::default(),
            filter: Filter::new(&opts.select, opts.eco_tags.is_some()),
            dropped: false,
            spill_at,
            failed: None,
        }
    }

    /// Moves the movetext no later event changes to disk once the bound is passed.
    #[inline]
    fn bound(&mut self) {
        if self.writer.movetext_len() >= self.spill_at {
            self.spill_movetext();
        }
    }

    #[cold]
    #[inline(never)]
    fn spill_movetext(&mut self) {
        if self.game.movetext.is_none() {
            match SpillFile::new() {
                Ok(file) => self.game.movetext = Some(file),
                Err(e) => return self.fail(e),
            }
        }
        let Some(file) = &mut self.game.movetext else { return };
        if let Err(e) = self.writer.take_settled(file) {
            self.fail(e);
        }
    }

    /// Feeds the moves held to the game's moves key.
    #[cold]
    #[inline(never)]
    fn hash_moves(&mut self, game: &Game<'_>) {
        let start = self.game.start.as_ref();
        let key = self.game.hashed.get_or_insert_with(|| dedup::MovesKey::new(game.variant, start));
        key.feed(&self.game.moves);
        self.game.moves.clear();
    }

    /// Notes a temporary file that could not be written: the chunk fails, its games held in
    /// memory from then on.
    #[cold]
    fn fail(&mut self, e: std::io::Error) {
        self.failed.get_or_insert(e);
        self.spill_at = usize::MAX;
    }

    /// Counts a repair of `kind`, and logs the one `make` builds while the game's repairs of
    /// that kind are among the first logged (nothing is built past them).
    fn log(&mut self, kind: RepairKind, make: impl FnOnce() -> Repair) {
        if self.game.tally.add(kind) {
            self.out.repairs.push(make());
        }
    }

    fn repair(&mut self, kind: RepairKind, before: impl Into<String>, after: impl Into<String>) {
        self.log(kind, || Repair::new(kind, before, after));
    }

    /// A repair of the text at `offset` of the input.
    fn repair_at(
        &mut self,
        offset: u64,
        kind: RepairKind,
        before: impl Into<String>,
        after: impl Into<String>,
    ) {
        self.log(kind, || Repair::new(kind, before, after).at(offset));
    }

    /// A game's identity under `rule` (its result `result`); under `prefix` its mainline is
    /// appended to the chunk's.
    fn identity(&mut self, rule: Rule, game: &Game<'_>, result: GameResult) -> Identity {
        let (variant, start, moves) = (game.variant, self.game.start.as_ref(), &self.game.moves);
        let moves_key = |hashed: Option<dedup::MovesKey>| match hashed {
            Some(hashed) => hashed.key(moves),
            None => dedup::moves_key(variant, start, moves),
        };
        if rule == Rule::Moves {
            let key = moves_key(self.game.hashed.take());
            return Identity { key, who: Who::default(), occasion: Occasion::default() };
        }
        let text = |name: &[u8]| game.tag(name).map(|t| t.decode().0).unwrap_or_default();
        let date = text(b"Date");
        let who = Who {
            players: [Name::of(&text(b"White")), Name::of(&text(b"Black"))],
            date: Date::of(standard_date(&date).as_deref().unwrap_or(&date)),
            result,
            encounter: Encounter::of(&text(b"Round"), &address(game)),
        };
        let mut occasion = Occasion::default();
        let hashed = self.game.hashed.take();
        let key = if moves.is_empty() && hashed.is_none() {
            dedup::roster_key(variant, start, [&text(b"Event"), &text(b"Site"), &text(b"Round")])
        } else if rule == Rule::Prefix {
            occasion = Occasion::of(&text(b"Event"), &text(b"Site"), &text(b"Round"));
            dedup::mainline(variant, start, moves, &mut self.out.mainlines);
            dedup::moves_key(variant, start, moves)
        } else {
            moves_key(hashed)
        };
        Identity { key, who, occasion }
    }
}

/// A move token as a repair shows it (UTF-8, else Windows-1252); out of line, off the path of
/// every move.
#[cold]
#[inline(never)]
fn token_text(raw: &[u8]) -> String {
    decode(raw).0.into_owned()
}

impl<'a> Hooks<'a> for CleanHooks<'_> {
    fn variations(&self) -> bool {
        !self.opts.strip.variations
    }

    fn zobrist_keys(&self) -> bool {
        false
    }

    fn wants(&self, kind: Kind, severity: Severity) -> bool {
        // Moves written otherwise than canonical are logged from the replay's lenience (no
        // message to build); every other problem names a rejection or a repair.
        severity == Severity::Error || !matches!(kind, Kind::NonCanonicalSan | Kind::CheckMark)
    }

    fn refuses_null_moves(&self, _: bool) -> bool {
        self.opts.reject_null_moves
    }

    fn moves(&self) -> Lines {
        Lines::All
    }

    fn written_san(&self) -> bool {
        true
    }

    fn tags(&mut self, game: &Game<'a>) -> Verdict {
        self.filter.tags(game)
    }

    fn start(&mut self, _: &Game<'a>, pos: &Position) {
        self.game.start = Some(*pos);
    }

    fn played(&mut self, game: &Game<'a>, p: &Played<'a, '_>) {
        // A broken game is written up to its first error.
        if self.game.error.is_some() {
            return;
        }
        if p.depth == 0 && self.opts.keep_broken {
            self.game.last_written = Some((*p.before, p.mv));
        }
        if p.depth == 0
            && let Some(rule) = self.opts.dedup
        {
            self.game.moves.extend_from_slice(&p.mv.map_or(0, |m| m.to_u16()).to_le_bytes());
            if self.game.moves.len() >= dedup::MOVES_HELD && rule != Rule::Prefix {
                self.hash_moves(game);
            }
        }
        let san = self.writer.played(p);
        if p.depth == 0 {
            self.filter.observe(p.before);
        }
        if p.mv.is_none() {
            self.game.null_move = true;
            if p.token.raw != b"--" {
                let at = p.token.offset as u64;
                self.log(RepairKind::NullMove, || {
                    Repair::new(RepairKind::NullMove, token_text(p.token.raw), "--").at(at)
                });
            }
        } else if !p.canonical {
            let kind =
                if p.lenience == Lenience::CHECK_MARK { RepairKind::CheckMark } else { RepairKind::San };
            // The SAN written is the writer's: the fields apart, not through `log`.
            if self.game.tally.add(kind) {
                let repair = Repair::new(kind, token_text(p.token.raw), String::from_utf8_lossy(san));
                self.out.repairs.push(repair.at(p.token.offset as u64));
            }
        }
        self.bound();
    }

    fn nag(&mut self, game: &Game<'a>, depth: u32, nag: Nag, offset: u64) {
        if self.game.error.is_none() && game.cutting.is_none() {
            if self.writer.nag_has_no_move(depth) {
                let before = format!("${} before the first move of a variation", nag.0);
                self.repair_at(offset, RepairKind::Syntax, before, "");
            } else {
                self.writer.nag(depth, nag);
                self.bound();
            }
        }
    }

    fn comment(&mut self, game: &Game<'a>, depth: u32, comment: RawComment<'a>) {
        if self.game.error.is_none() && game.cutting.is_none() {
            // A `}` can stand in a `;` comment, not in the `{}` one it is written as: left out.
            if comment.kind == CommentKind::Line
                && !self.opts.strip.comments
                && memchr::memchr(b'}', comment.raw).is_some()
            {
                let before = String::from_utf8_lossy(comment.raw);
                let after = String::from_utf8_lossy(&without_braces(comment.raw)).into_owned();
                self.repair_at(comment.offset as u64, RepairKind::Syntax, before.trim(), after);
            }
            self.writer.comment(depth, comment.raw);
            self.bound();
        }
    }

    fn begin_variation(&mut self, game: &Game<'a>, depth: u32, _: bool) {
        // After an error, which rejects the game, nothing is written; in the rest of a variation
        // an error ended, nothing of it (the cut gives its text).
        if self.game.error.is_some() {
            return;
        }
        if game.cutting.is_some() || self.game.unwritten_from.is_some() {
            self.game.unwritten_from.get_or_insert(depth);
            return;
        }
        self.game.open += 1;
        self.writer.begin_variation(depth);
    }

    fn cut(&mut self, _: &Game<'a>, depth: u32, cut: Cut<'a>) {
        if self.game.error.is_some() {
            return;
        }
        // An illegal, ambiguous or unreadable move stops its variation, not the game: the
        // variation is written up to it and the rest logged as read.
        let before = token_text(cut.text.trim_ascii());
        self.repair_at(cut.offset, RepairKind::Variation, before, "");
        self.game.closing_cut = match self.game.unwritten_from {
            Some(from) if from == depth => depth.checked_sub(1).filter(|&d| d > 0),
            _ => Some(depth),
        };
    }

    fn end_variation(&mut self, _: &Game<'a>, depth: u32) {
        if self.game.error.is_some() {
            return;
        }
        if let Some(from) = self.game.unwritten_from {
            if depth == from {
                self.game.unwritten_from = None;
            }
            return;
        }
        let cut = self.game.closing_cut == Some(depth);
        self.game.closing_cut = None;
        // A variation emptied by a cut is left out, and its parent may be emptied so too.
        if cut && self.writer.end_cut_variation(depth) && depth > 1 {
            self.game.closing_cut = Some(depth - 1);
        } else if !cut && self.writer.end_cut_variation(depth) {
            // A variation with no move is no line (pgn-extract refuses it): left out.
            self.repair(RepairKind::Syntax, "an empty variation ()", "");
        }
        self.game.open -= 1;
    }

    // Rare (a problem in the input): kept out of the replay loop it is called from.
    #[inline(never)]
    fn diagnostic(&mut self, game: &Game<'a>, d: Diagnostic) {
        // Problems in the rest of a variation an error ended are in the text its cut logs.
        if game.cutting.is_some() {
            if d.severity == Severity::Error {
                self.out.diagnostics.push(d);
            }
            return;
        }
        let before = || d.san.clone().unwrap_or_default();
        match d.kind {
            // Settled by the board, the tag and the token at the end of the game.
            Kind::ResultMismatch | Kind::MissingResult => {}
            Kind::GluedResult => {
                self.repair_at(d.offset, RepairKind::GluedResult, before(), d.message.clone())
            }
            Kind::ResultSpelling => {
                self.repair_at(d.offset, RepairKind::ResultSpelling, before(), d.message.clone());
            }
            Kind::FenRepaired | Kind::CastlingRights => self.game.fen_repaired = true,
            Kind::BadTag => self.game.bad_tags.push(d.offset),
            // Rejected by the option: the first one is the located reason.
            Kind::NullMove if self.opts.reject_null_moves && self.game.error.is_none() => {
                let message = format!("{} (--reject-null-moves)", d.message);
                self.game.error = Some((d.kind, message.clone(), d.offset));
                self.out.diagnostics.push(Diagnostic { message, ..d });
            }
            // Text the reader skipped, which the written game leaves out.
            Kind::SyntaxWarning => self.repair_at(d.offset, RepairKind::Syntax, d.message.clone(), ""),
            // Logged where they are written: null moves, SetUp, encodings, repeated tags.
            Kind::NullMove | Kind::MissingSetUp | Kind::Encoding | Kind::DuplicateTag => {}
            _ if d.severity == Severity::Error => {
                if self.game.error.is_none() {
                    self.game.error = Some((d.kind, d.message.clone(), d.offset));
                }
                self.out.diagnostics.push(d);
            }
            _ => {}
        }
    }

    // Problems past the game's first shown: the repairs they stand for are counted, not logged.
    #[inline(never)]
    fn unshown(&mut self, game: &Game<'a>, kind: Kind, _: Severity, n: u32) {
        if game.cutting.is_some() {
            return;
        }
        let repair = match kind {
            Kind::GluedResult => RepairKind::GluedResult,
            Kind::ResultSpelling => RepairKind::ResultSpelling,
            Kind::SyntaxWarning => RepairKind::Syntax,
            Kind::BadTag => RepairKind::Tag,
            Kind::FenRepaired | Kind::CastlingRights => return self.game.fen_repaired = true,
            _ => return,
        };
        self.game.tally.add_unlogged(repair, u64::from(n));
    }

    fn counted(&self) -> bool {
        !self.dropped
    }

    fn end(&mut self, game: &Game<'a>, last: Option<&Position>) {
        self.settle(game, last);
        self.dropped = matches!(self.out.games.last(), Some(CleanGame { fate: Fate::Filtered { .. }, .. }));
        // The next game's events (its tag problems among them) come before its tags.
        let (mut moves, mut tally) =
            (std::mem::take(&mut self.game.moves), std::mem::take(&mut self.game.tally));
        moves.clear();
        tally.clear();
        self.game = Current {
            repairs: self.out.repairs.len(),
            diagnostics: self.out.diagnostics.len(),
            moves,
            tally,
            ..Current::default()
        };
    }
}

impl CleanHooks<'_> {
    /// Decides the fate of the game just replayed, and writes it if it is written.
    fn settle(&mut self, game: &Game<'_>, last: Option<&Position>) {
        let mut record = CleanGame {
            game: game.number,
            line: game.line,
            offset: game.offset,
            fate: Fate::Written,
            text: 0..0,
            verbatim: 0..0,
            dedup: None,
            mainline: 0..0,
            repairs: self.game.repairs..self.out.repairs.len(),
            tally: 0..0,
            error_at: None,
            spilled: None,
        };
        let rejected = match &self.game.error {
            Some((kind, message, offset)) => Some((*kind, message.clone(), Some(*offset))),
            None if self.game.null_move && self.opts.reject_null_moves => {
                Some((Kind::NullMove, "a null move (--reject-null-moves)".into(), None))
            }
            None => None,
        };
        // A game with an error no repair covers is rejected whatever the filters say; one kept
        // broken (`--keep-broken`) is its valid prefix, which the filters judge.
        let kept_broken = rejected.is_some() && self.opts.keep_broken && self.game.start.is_some();
        // The game rejected whole, or the result it is written with, which `--result` judges.
        let settled = match &rejected {
            Some((kind, message, _)) if !kept_broken => Err((*kind, message.clone())),
            _ => Ok(self.settled(game, last, kept_broken)),
        };
        let filtered = match self.filter.finish_written(game, last, settled.as_ref().ok().map(|s| s.0)) {
            Err(by) if rejected.is_none() || game.skipped || kept_broken => Some(by),
            _ => None,
        };
        if let Some(by) = filtered {
            // A game the filters leave out is not reported (as `check` does): a kept-broken one
            // had its error pushed already.
            self.out.diagnostics.truncate(self.game.diagnostics);
            return self.leave_out(record, Fate::Filtered { by });
        }
        let keep_verbatim = rejected.is_some() || (self.opts.dedup.is_some() && self.opts.keep_duplicates);
        if keep_verbatim {
            // A blank line after it, in the game's own line ends (CRLF, CR alone, or LF).
            let blank: &[u8] = if memchr::memmem::find(game.bytes, b"\r\n").is_some() {
                b"\r\n\r\n"
            } else if memchr::memchr(b'\r', game.bytes).is_some() {
                b"\r\r"
            } else {
                b"\n\n"
            };
            let start = self.out.verbatim.len();
            match (game.bytes.len() >= self.spill_at).then(|| spill::verbatim(game.bytes, blank)) {
                Some(Ok(text)) => self.spilled(&mut record).verbatim = Some(text),
                held => {
                    if let Some(Err(e)) = held {
                        self.fail(e);
                    }
                    self.out.verbatim.extend_from_slice(game.bytes);
                    self.out.verbatim.extend_from_slice(blank);
                }
            }
            record.verbatim = start..self.out.verbatim.len();
        }
        if let Some((_, _, Some(offset))) = rejected {
            let lines_in = LineIndex::new(game.bytes).locate(game.at(offset)).line as u64 - 1;
            record.error_at = Some((offset, lines_in));
        }
        let (result, repair) = match settled {
            // A game with no start position has no valid prefix to keep.
            Err((kind, message)) => return self.leave_out(record, Fate::Rejected { kind, message }),
            Ok(settled) => settled,
        };
        if let Some((kind, message, offset)) = rejected {
            // Kept broken: the variations open at the error close; one the error left with no
            // move is left out (`()` is no line).
            for depth in (1..=self.game.open).rev() {
                self.writer.end_cut_variation(depth);
            }
            // Left out with --strip comments, as every comment (the report names it).
            self.writer.comment(0, format!("pgnkit: {kind}: {message}").as_bytes());
            // What is not written, from the error on, as read: the report keeps it.
            let from = offset.map_or(game.bytes.len(), |o| game.at(o));
            let left_out = token_text(game.bytes[from..].trim_ascii());
            record.fate = Fate::Broken { kind, message, left_out };
        }
        if let Some(repair) = repair {
            self.log(repair.kind, || repair);
        }
        self.write_tags(game, result);
        let start = self.out.out.len();
        match self.game.movetext.take() {
            None => self.writer.finish(&mut self.out.out, result),
            // Its tag section in front of the movetext on disk, its end after it.
            Some(file) => {
                let mut text = SpilledText::default();
                self.writer.tag_section(&mut text.held);
                text.push_file(file);
                self.writer.end_movetext(&mut text.held, result);
                self.spilled(&mut record).text = Some(text);
            }
        }
        record.text = start..self.out.out.len();
        record.repairs = self.game.repairs..self.out.repairs.len();
        let tallies = self.out.tallies.len();
        self.out.tallies.extend_from_slice(self.game.tally.counts());
        record.tally = tallies..self.out.tallies.len();
        // The lines of the repairs of a game written (in the order read: one walk); a game
        // left out reports none.
        let mut lines = LineIndex::new(game.bytes);
        for r in self.out.repairs[record.repairs.clone()].iter_mut() {
            if let Some(offset) = r.offset {
                r.lines_in = lines.locate(game.at(offset)).line as u64 - 1;
            }
        }
        if let Some(rule) = self.opts.dedup
            && record.fate == Fate::Written
        {
            let start = self.out.mainlines.len();
            record.dedup = Some(self.identity(rule, game, result));
            record.mainline = start..self.out.mainlines.len();
        }
        self.out.games.push(record);
    }

    /// The result `game` (ending in `last`) is written with, and the repair that logs it. A game
    /// kept `broken` is its valid prefix: the board decides a mate or a stalemate the prefix ends
    /// in, anything else is unfinished, and what the tag or the token said is logged, not lost
    /// with the moves cut.
    fn settled(
        &self,
        game: &Game<'_>,
        last: Option<&Position>,
        broken: bool,
    ) -> (GameResult, Option<Repair>) {
        let result_tag = game.tag(b"Result");
        let tag = result_tag.and_then(|t| GameResult::from_tag(&t.unescape()));
        // Shown in a repair only when it spells no result.
        let tag_text = result_tag.filter(|_| tag.is_none()).map(|t| t.decode().0);
        if !broken {
            return settle_result(tag, tag_text.as_deref(), game.result, last, self.opts.fix_results);
        }
        let end = match self.game.last_written {
            Some((mut pos, Some(m))) => pos.play(m).is_ok().then_some(pos),
            Some((_, None)) => None,
            None => self.game.start,
        };
        let result = settle_result(None, None, None, end.as_ref(), false).0;
        let repair = [tag, game.result].into_iter().flatten().any(|r| r != result).then(|| {
            Repair::new(
                RepairKind::Result,
                results_read(tag, tag_text.as_deref(), game.result),
                result.as_str(),
            )
        });
        (result, repair)
    }

    /// The texts of game `record` on disk, where they go.
    fn spilled(&mut self, record: &mut CleanGame) -> &mut Spilled {
        let spilled = &mut self.out.spilled;
        let i = *record.spilled.get_or_insert_with(|| {
            spilled.push(Spilled::default());
            spilled.len() - 1
        });
        &mut spilled[i]
    }

    /// Records a game that is not written: none of its repairs are made.
    fn leave_out(&mut self, mut record: CleanGame, fate: Fate) {
        self.writer.abandon();
        self.out.repairs.truncate(self.game.repairs);
        record.repairs = self.game.repairs..self.game.repairs;
        record.fate = fate;
        self.out.games.push(record);
    }
}

/// The game's online address: the first of its `Site`, `Link` (chess.com's), `GameURL` and
/// `LichessURL` tags that is one (empty for none).
fn address(game: &Game<'_>) -> String {
    [&b"Site"[..], b"Link", b"GameURL", b"LichessURL"]
        .into_iter()
        .filter_map(|name| game.tag(name).map(|t| t.decode().0.into_owned()))
        .find(|v| v.contains("://"))
        .unwrap_or_default()
}
