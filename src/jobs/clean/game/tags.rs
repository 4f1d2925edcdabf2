//! A written game's tags ([`CleanHooks::write_tags`]): repaired (dates, `SetUp`, `FEN`, `Variant`,
//! control characters, names that are no PGN tag name, a name repeated), filtered by the tag
//! options, the roster filled, `ECO` and `Opening` from the classification.

use std::borrow::Cow;

use super::super::EcoTags;
use super::super::repair::{Repair, RepairKind, standard_date};
use super::CleanHooks;
use crate::chess::Position;
use crate::notation::fen::{EpMode, write_fen};
use crate::pgn::date::is_date_tag;
use crate::pgn::tag::{ascii_str, is_standard_name};
use crate::pgn::text::{escape_not_utf8, windows_1252};
use crate::pgn::writer::{ROSTER, roster_place};
use crate::pgn::{GameResult, RawTag};
use crate::pipeline::replay::{Game, played_variant};
use crate::select::eco::Opening;

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

impl CleanHooks<'_> {
    /// The game's tags as written: repaired, filtered by the tag options, the roster filled.
    pub(super) fn write_tags(&mut self, game: &Game<'_>, result: GameResult) {
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

/// The repair of text that was not UTF-8: its bytes (those not UTF-8 as `\xNN`), and the text
/// written.
fn encoding_repair(raw: &[u8], text: &str) -> Repair {
    Repair::new(RepairKind::Encoding, escape_not_utf8(raw), text)
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
