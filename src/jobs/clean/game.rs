//! The replay hooks of `clean`: each game is written in export format as it is replayed
//! ([`GameWriter`]: canonical SAN, comments, NAGs and variations where they stand), its tags
//! repaired and written once the game ends, its result settled; every repair is counted, the
//! first [`LOGGED`](super::repair::LOGGED) of each kind logged; a game
//! with an error no repair covers is rejected (its bytes kept as read); a game the selection
//! leaves out is filtered (on its tags before it is replayed, where the filters allow).

use std::borrow::Cow;

use super::dedup::{self, Date, Encounter, Identity, Name, Occasion, Rule, Who};
use super::repair::{Repair, RepairKind, Tally, results_read, settle_result, standard_date};
use super::{CleanChunk, CleanGame, CleanOptions, EcoTags, Fate};
use crate::chess::Position;
use crate::error::{Diagnostic, Kind, Severity};
use crate::notation::fen::{EpMode, write_fen};
use crate::notation::san::Lenience;
use crate::pgn::date::is_date_tag;
use crate::pgn::tag::{ascii_str, is_standard_name};
use crate::pgn::text::{decode, escape_not_utf8, windows_1252};
use crate::pgn::writer::{ROSTER, roster_place, without_braces};
use crate::pgn::{CommentKind, GameResult, LineIndex, Nag, RawComment, RawTag};
use crate::pipeline::replay::export::GameWriter;
use crate::pipeline::replay::{Cut, Game, Hooks, Lines, Played, Verdict, played_variant};
use crate::select::Filter;
use crate::select::eco::Opening;

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
    /// Mainline moves, as the dedup key reads them (two bytes each).
    moves: Vec<u8>,
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
}

/// What a tag's name makes of it when its game is written.
#[derive(Clone, Copy)]
enum TagRole {
    /// Its place in the Seven Tag Roster (Date, 2, is a date too).
    Roster(usize),
    /// `ECO` (0) or `Opening` (1).
    Opening(usize),
    /// `Variation` or `SubVariation`, the parts of an opening's name some files give apart.
    SubOpening,
    SetUp,
    Fen,
    Variant,
    /// Any other `...Date` tag.
    Date,
    Other,
}

impl TagRole {
    fn of(name: &str) -> TagRole {
        if let Some(place) = roster_place(name) {
            return TagRole::Roster(place);
        }
        match name {
            "ECO" => TagRole::Opening(0),
            "Opening" => TagRole::Opening(1),
            "Variation" | "SubVariation" => TagRole::SubOpening,
            "SetUp" => TagRole::SetUp,
            "FEN" => TagRole::Fen,
            "Variant" => TagRole::Variant,
            n if is_date_tag(n.as_bytes()) => TagRole::Date,
            _ => TagRole::Other,
        }
    }
}

pub(super) struct CleanHooks<'o> {
    opts: &'o CleanOptions,
    writer: GameWriter,
    pub(super) out: CleanChunk,
    game: Current,
    pub(super) filter: Filter<'o>,
    /// The last game ended was left out by the filters.
    dropped: bool,
}

impl<'o> CleanHooks<'o> {
    /// Hooks writing as `opts` says into `out`'s buffers (empty).
    pub(super) fn new(opts: &'o CleanOptions, out: CleanChunk) -> CleanHooks<'o> {
        CleanHooks {
            opts,
            writer: GameWriter::new(opts.layout(), opts.strip),
            out,
            game: Current::default(),
            filter: Filter::new(&opts.select, opts.eco_tags.is_some()),
            dropped: false,
        }
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

    /// The game's tags as written: repaired, filtered by the tag options, the roster filled.
    fn write_tags(&mut self, game: &Game<'_>, result: GameResult) {
        for offset in std::mem::take(&mut self.game.bad_tags) {
            let at = game.at(offset);
            let (before, after) = match game.tags.iter().find(|(_, value)| value.offset as u64 == offset) {
                // Read with a repair: logged as read and as written.
                Some((name, value)) => {
                    let read = &game.bytes[at..crate::pgn::tag::parse_tag(game.bytes, at).end];
                    let name = String::from_utf8_lossy(name);
                    (read, crate::pgn::writer::tag_line(&name, &value.decode().0))
                }
                // A line that reads as no tag pair is left out, shown as read; the game is written
                // without it (as pgn-extract and python-chess read it).
                None => (game.bytes[at..].split(|&b| b == b'\n').next().unwrap_or_default(), String::new()),
            };
            let before = String::from_utf8_lossy(before).trim_end().to_string();
            self.repair_at(offset, RepairKind::Tag, before, after);
        }
        let opts = self.opts;
        let mut setup = false;
        let mut present = [false; 7];
        let opening = self.filter.opening().filter(|_| opts.eco_tags.is_some());
        let read = |n: &str| game.tag(n.as_bytes()).filter(|_| opts.keeps_tag(n)).map(|t| t.raw);
        let eco =
            opening.map_or([None; 2], |o| eco_written(opts.eco_tags, o, [read("ECO"), read("Opening")]));
        let mut named = [false; 2];
        let mut encoding = None;
        let variant = played_variant(game.variant, self.game.start.as_ref());
        let mut variant_named = false;
        for (i, &(name, value)) in game.tags.iter().enumerate() {
            // A name is one tag (the standard's export format): the first is the game's, as the
            // replay and the filters read it; a later one is left out, logged as read.
            if game.repeated(i) {
                self.log(RepairKind::Tag, || {
                    let before = format!("[{} \"{}\"]", String::from_utf8_lossy(name), value.decode().0);
                    Repair::new(RepairKind::Tag, before, "").at(value.offset as u64)
                });
                continue;
            }
            // Tag names are ASCII (the reader reads no other byte in a name).
            let Some(name) = ascii_str(name) else { continue };
            if !opts.keeps_tag(name) {
                continue;
            }
            // Another name (`Ev-ent`) splits the game for pgn-extract: left out, shown as read.
            if !is_standard_name(name.as_bytes()) {
                let before = format!("[{name} \"{}\"]", value.decode().0);
                self.repair_at(value.offset as u64, RepairKind::Tag, before, "");
                continue;
            }
            let role = TagRole::of(name);
            // The table's Opening names the variation too: an older naming's parts would
            // contradict it beside it.
            if matches!(role, TagRole::SubOpening) && opening.is_some() && opts.eco_tags == Some(EcoTags::All)
            {
                let before = format!("[{name} \"{}\"]", value.decode().0);
                self.repair_at(value.offset as u64, RepairKind::Tag, before, "");
                continue;
            }
            if let TagRole::Opening(i) = role {
                named[i] = true;
                // Replaced where it stands by the classification.
                if let Some(new) = eco[i] {
                    self.opening_tag(name, value, new);
                    continue;
                }
            }
            let (text, not_utf8) = value.decode();
            if not_utf8 && encoding.is_none() {
                encoding = Some(encoding_repair(&value.unescape(), &text));
            }
            let mut text: Cow<'_, str> = text;
            if let TagRole::Roster(r) = role {
                present[r] = true;
            }
            match role {
                TagRole::Roster(6) => text = Cow::Borrowed(result.as_str()),
                TagRole::SetUp => {
                    if game.tag(b"FEN").is_none() {
                        // SetUp "1" promises a FEN: without one the game starts from the standard
                        // position, which needs no SetUp ("0" says so and stays).
                        if text != "0" {
                            self.repair(RepairKind::SetUp, format!("[SetUp \"{text}\"]"), "");
                            continue;
                        }
                    } else if text != "1" {
                        self.repair(RepairKind::SetUp, text.as_ref(), "1");
                        text = Cow::Borrowed("1");
                    }
                    setup = true;
                }
                TagRole::Fen if self.game.fen_repaired => {
                    if let Some(start) = &self.game.start {
                        let mut fen = String::new();
                        write_fen(start, EpMode::Legal, &mut fen);
                        self.repair(RepairKind::Fen, text.as_ref(), fen.as_str());
                        text = Cow::Owned(fen);
                    }
                }
                TagRole::Fen => {
                    if let Some(start) = &self.game.start
                        && let Some(fen) = export_fen(&text, start)
                    {
                        self.repair(RepairKind::Fen, text.as_ref(), fen.as_str());
                        text = Cow::Owned(fen);
                    }
                }
                TagRole::Variant => {
                    variant_named = true;
                    if let Some(v) = variant.rewritten_tag(&text) {
                        self.repair(RepairKind::Variant, text.as_ref(), v);
                        text = Cow::Borrowed(v);
                    }
                }
                TagRole::Roster(2) | TagRole::Date => {
                    if let Some(d) = standard_date(&text) {
                        // Named and located: a game has several date tags.
                        let tag = |v: &str| format!("[{name} \"{v}\"]");
                        self.repair_at(value.offset as u64, RepairKind::Date, tag(&text), tag(&d));
                        text = Cow::Owned(d);
                    }
                }
                _ => {}
            }
            // Export format: no tab or other control character inside a string (U+0080..U+009F
            // are 0xC2 then a byte in UTF-8: a byte test first, as tags seldom hold either).
            if text.bytes().any(|b| b < 0x20 || b == 0x7F || b == 0xC2) && text.chars().any(char::is_control)
            {
                let spaced: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
                let tag = |v: &str| format!("[{name} \"{v}\"]");
                self.repair_at(value.offset as u64, RepairKind::Tag, tag(&text), tag(&spaced));
                text = Cow::Owned(spaced);
            }
            self.writer.tag(name, &text);
        }
        if !present[6] {
            self.writer.tag("Result", result.as_str());
            present[6] = true;
        }
        if present.contains(&false) {
            let missing: Vec<&str> =
                ROSTER.iter().zip(present).filter(|(_, p)| !p).map(|(&(r, _), _)| r).collect();
            self.repair(RepairKind::Roster, "", missing.join(", "));
        }
        if variant != game.variant && !variant_named {
            self.writer.tag("Variant", variant.name());
            self.repair(RepairKind::Variant, "", variant.name());
        }
        if game.tag(b"FEN").is_some() && !setup {
            self.writer.tag("SetUp", "1");
            self.repair(RepairKind::SetUp, "", "[SetUp \"1\"]");
        }
        for (i, tag) in ["ECO", "Opening"].into_iter().enumerate() {
            if let Some(value) = eco[i]
                && !named[i]
                && opts.keeps_tag(tag)
            {
                self.writer.tag(tag, value);
            }
        }
        if opts.add_ply_count {
            self.writer.tag("PlyCount", itoa::Buffer::new().format(game.plies));
        }
        // One repair a game, showing the first text read as Windows-1252 (tags come first).
        let comment = self.writer.take_not_utf8();
        let comment = || comment.map(|text| encoding_repair(&text, &windows_1252(&text)));
        if let Some(repair) = encoding.or_else(comment) {
            self.log(repair.kind, || repair);
        }
    }

    /// Writes the classification's `new` for the `ECO` or `Opening` tag `name` read as `value`:
    /// a value replaced is a `tag` repair, as read and as written; one that said nothing (`?`)
    /// is filled in with none, as a tag the game lacks is added.
    fn opening_tag(&mut self, name: &str, value: RawTag<'_>, new: &str) {
        let read = value.decode().0;
        if !matches!(value.raw, b"" | b"?") && read != new {
            let tag = |v: &str| format!("[{name} \"{v}\"]");
            self.repair_at(value.offset as u64, RepairKind::Tag, tag(&read), tag(new));
        }
        self.writer.tag(name, new);
    }

    /// A game's identity under `rule` (its result `result`); under `prefix` its mainline is
    /// appended to the chunk's.
    fn identity(&mut self, rule: Rule, game: &Game<'_>, result: GameResult) -> Identity {
        let (variant, start, moves) = (game.variant, self.game.start.as_ref(), &self.game.moves);
        if rule == Rule::Moves {
            let key = dedup::moves_key(variant, start, moves);
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
        let key = if moves.is_empty() {
            dedup::roster_key(variant, start, [&text(b"Event"), &text(b"Site"), &text(b"Round")])
        } else if rule == Rule::Prefix {
            occasion = Occasion::of(&text(b"Event"), &text(b"Site"), &text(b"Round"));
            dedup::mainline(variant, start, moves, &mut self.out.mainlines);
            dedup::moves_key(variant, start, moves)
        } else {
            dedup::moves_key(variant, start, moves)
        };
        Identity { key, who, occasion }
    }
}

/// The values `--eco-tags` (`mode`) writes for the `ECO` and `Opening` tags of a game the table
/// names `o` for, whose values as read (of those written) are `read`; `None` where the tag stays
/// as read, or absent. Under `all`, the table's; under `missing`, the table's where the game says
/// nothing (no tag, or `?`), its Opening only beside its own code: beside another ECO the game
/// keeps, it would name another opening.
fn eco_written(
    mode: Option<EcoTags>,
    o: &'static Opening,
    read: [Option<&[u8]>; 2],
) -> [Option<&'static str>; 2] {
    if mode == Some(EcoTags::All) {
        return [Some(o.eco), Some(o.name)];
    }
    let unknown = |r: Option<&[u8]>| matches!(r, None | Some(b"" | b"?"));
    let same_code = unknown(read[0]) || read[0].map(<[u8]>::trim_ascii) == Some(o.eco.as_bytes());
    [unknown(read[0]).then_some(o.eco), (unknown(read[1]) && same_code).then_some(o.name)]
}

/// A move token as a repair shows it (UTF-8, else Windows-1252); out of line, off the path of
/// every move.
#[cold]
#[inline(never)]
fn token_text(raw: &[u8]) -> String {
    decode(raw).0.into_owned()
}

/// The repair of text that was not UTF-8: its bytes (those not UTF-8 as `\xNN`), and the text
/// written.
fn encoding_repair(raw: &[u8], text: &str) -> Repair {
    Repair::new(RepairKind::Encoding, escape_not_utf8(raw), text)
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

    fn played(&mut self, _: &Game<'a>, p: &Played<'a, '_>) {
        // A broken game is written up to its first error.
        if self.game.error.is_some() {
            return;
        }
        if p.depth == 0 && self.opts.keep_broken {
            self.game.last_written = Some((*p.before, p.mv));
        }
        let san = self.writer.played(p);
        if p.depth == 0 {
            if self.opts.dedup.is_some() {
                self.game.moves.extend_from_slice(&p.mv.map_or(0, |m| m.to_u16()).to_le_bytes());
            }
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
    }

    fn nag(&mut self, game: &Game<'a>, depth: u32, nag: Nag, offset: u64) {
        if self.game.error.is_none() && game.cutting.is_none() {
            if self.writer.nag_has_no_move(depth) {
                let before = format!("${} before the first move of a variation", nag.0);
                self.repair_at(offset, RepairKind::Syntax, before, "");
            } else {
                self.writer.nag(depth, nag);
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

/// `fen` in export form, when it is not: one space between fields, the fields left out written
/// (as read: `w - - 0 1`), the side and clocks as FEN writes them, and the castling rights as
/// X-FEN writes `start`'s (`KQkq`, a file only when ambiguous; Shredder-FEN's `HAha` is read, not
/// written).
fn export_fen(fen: &str, start: &Position) -> Option<String> {
    let mut written = String::new();
    write_fen(start, EpMode::Legal, &mut written);
    let want: Vec<&str> = written.split(' ').collect();
    let mut fields: Vec<&str> = fen.split_whitespace().collect();
    if fields.len() > want.len() {
        return None;
    }
    // The side, castling and clocks as written (`W`, `00 01` and `HAha` read; the board, its
    // pockets and the en passant square stay as read).
    for i in [1, 2, 4, 5] {
        if let Some(field) = fields.get_mut(i) {
            *field = want[i];
        }
    }
    fields.extend_from_slice(&want[fields.len()..]);
    let export = fields.join(" ");
    (export != fen).then_some(export)
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
            let start = self.out.verbatim.len();
            self.out.verbatim.extend_from_slice(game.bytes);
            // A blank line after it, in the game's own line ends (CRLF, CR alone, or LF).
            let blank: &[u8] = if memchr::memmem::find(game.bytes, b"\r\n").is_some() {
                b"\r\n\r\n"
            } else if memchr::memchr(b'\r', game.bytes).is_some() {
                b"\r\r"
            } else {
                b"\n\n"
            };
            self.out.verbatim.extend_from_slice(blank);
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
        self.writer.finish(&mut self.out.out, result);
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
