//! `--format parquet`: the table's columns and a game's tag values. The columns are `file`,
//! `game`, `ply`, `fen` (or, with `--epd-columns`, `epd`, `hmvc` and `fmvn`), `san`, `uci`,
//! `turn`, `eval_cp`, `eval_mate`, `clk`, then one per requested tag, typed as the PGN standard
//! types it: Elo, USCF and FIDE ids and `PlyCount` as integers, `Date`, `EventDate` and
//! `UTCDate` as dates (with the text as read beside them in `TAG_text`, since `2024.??.??` is no
//! date), every other tag as dictionary-encoded text. The column constants are the places in a
//! table of `fen`; [`at`] gives them under `--epd-columns`.

use crate::chess::Position;
use crate::columnar::{Batch, Field, Kind, Schema, days_from_civil};
use crate::pgn::date::TagDate;
use crate::pipeline::replay::Game;

/// The input's name as given.
pub const FILE: usize = 0;
/// The game's number in its input (from 1).
pub const GAME: usize = 1;
/// Plies played before the position (0: the start position).
pub const PLY: usize = 2;
/// The position: its FEN, or its four EPD fields (then `hmvc` and `fmvn` follow).
pub const FEN: usize = 3;
/// The game's move from the position (null after the last).
pub const SAN: usize = 4;
/// The same move in UCI.
pub const UCI: usize = 5;
/// The side to move: `white` or `black`.
pub const TURN: usize = 6;
/// The `[%eval]` after the move leading here, in centipawns (White's view).
pub const EVAL_CP: usize = 7;
/// ... or as a mate in N moves (negative: Black mates).
pub const EVAL_MATE: usize = 8;
/// The `[%clk]` after the move leading here, in seconds.
pub const CLK: usize = 9;
/// The first tag column.
pub const TAGS: usize = 10;

/// The place of column `col` (one of the constants) in a table with `epd` columns or not: those
/// after the position move right by the two clock columns.
#[inline]
pub fn at(col: usize, epd: bool) -> usize {
    if epd && col > FEN { col + 2 } else { col }
}

/// Tags the PGN standard gives integer values.
const NUMBERS: [&str; 7] =
    ["WhiteElo", "BlackElo", "WhiteUSCF", "BlackUSCF", "WhiteFideId", "BlackFideId", "PlyCount"];

/// Tags the PGN standard gives dates (`YYYY.MM.DD`).
const DATES: [&str; 3] = ["Date", "EventDate", "UTCDate"];

/// How a tag is typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TagKind {
    Label,
    Number,
    Date,
}

fn tag_kind(name: &str) -> TagKind {
    if NUMBERS.contains(&name) {
        TagKind::Number
    } else if DATES.contains(&name) {
        TagKind::Date
    } else {
        TagKind::Label
    }
}

/// The columns every table of positions starts with (`positions` and `annotate`): where the
/// position is, the position (`fen`, or with `epd` the four EPD fields and the clocks as
/// integers), the move played from it, and an evaluation.
pub(crate) fn position_fields(epd: bool) -> Vec<Field> {
    let mut fields = vec![
        Field::required("file", Kind::Label),
        Field::required("game", Kind::Int64),
        Field::required("ply", Kind::Int32),
    ];
    if epd {
        fields.extend([
            Field::required("epd", Kind::Text),
            // A FEN's clocks go up to 2^32 - 1: int64 holds every one.
            Field::required("hmvc", Kind::Int64),
            Field::required("fmvn", Kind::Int64),
        ]);
    } else {
        fields.push(Field::required("fen", Kind::Text));
    }
    fields.extend([
        Field::nullable("san", Kind::Label),
        Field::nullable("uci", Kind::Label),
        Field::required("turn", Kind::Label),
        Field::nullable("eval_cp", Kind::Int32),
        Field::nullable("eval_mate", Kind::Int32),
    ]);
    fields
}

/// Pushes the position's columns of a row from [`FEN`] on: `write` appends the FEN to its
/// argument, or with `epd` the four EPD fields (`false`: without the clocks), then the clocks go
/// in their own columns.
#[inline]
pub(crate) fn push_position(
    t: &mut Batch,
    pos: &Position,
    epd: bool,
    write: impl FnOnce(&mut Vec<u8>, bool),
) {
    write(t.text(FEN), !epd);
    t.end_text(FEN);
    if epd {
        t.push_i64(FEN + 1, Some(i64::from(pos.halfmoves())));
        t.push_i64(FEN + 2, Some(i64::from(pos.fullmoves())));
    }
}

/// The table of positions with `tags`, the position as `epd` columns or not; an error names a
/// tag whose column another has, names compared without case (DuckDB's `SELECT FEN` would read
/// the `fen` column).
pub fn schema(tags: &[String], epd: bool) -> Result<Schema, String> {
    let mut fields = position_fields(epd);
    fields.push(Field::nullable("clk", Kind::Float64));
    for t in tags {
        match tag_kind(t) {
            TagKind::Label => fields.push(Field::nullable(t, Kind::Label)),
            TagKind::Number => fields.push(Field::nullable(t, Kind::Int32)),
            TagKind::Date => {
                fields.push(Field::nullable(t, Kind::Date));
                fields.push(Field::nullable(&format!("{t}_text"), Kind::Label));
            }
        }
    }
    for (i, f) in fields.iter().enumerate() {
        if fields[..i].iter().any(|g| g.name.eq_ignore_ascii_case(&f.name)) {
            return Err(format!("\"{}\" would be two columns of the table", f.name));
        }
    }
    Ok(Schema { fields })
}

/// The requested tags of one game, ready to be pushed with each of its positions.
#[derive(Debug, Default)]
pub struct TagValues {
    /// One per requested tag: its text when the game has it.
    texts: Vec<Option<String>>,
}

impl TagValues {
    /// Reads the `tags` of `game`.
    pub fn read(&mut self, tags: &[String], game: &Game<'_>) {
        self.texts.clear();
        self.texts.extend(tags.iter().map(|t| game.tag(t.as_bytes()).map(|v| v.decode().0.into_owned())));
    }

    /// Pushes the tag columns of one row (the columns from `col`, [`TAGS`]' place, on).
    pub fn push(&self, tags: &[String], t: &mut Batch, mut col: usize) {
        for (name, text) in tags.iter().zip(&self.texts) {
            match tag_kind(name) {
                TagKind::Label => t.push_text(col, text.as_deref().map(str::as_bytes)),
                TagKind::Number => t.push_i32(col, text.as_deref().and_then(number)),
                TagKind::Date => {
                    t.push_i32(col, text.as_deref().and_then(date));
                    col += 1;
                    t.push_text(col, text.as_deref().map(str::as_bytes));
                }
            }
            col += 1;
        }
    }
}

/// An integer tag's value: decimal digits only (`?`, `-` and the empty text are none).
fn number(text: &str) -> Option<i32> {
    let text = text.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A date tag's value, `YYYY.MM.DD` with every part known and a real day (year 0000 is unknown,
/// [`crate::pgn::date::known_year`]).
fn date(text: &str) -> Option<i32> {
    let TagDate { year: Some(y), month: Some(m), day: Some(d) } = TagDate::parse(text.trim().as_bytes())?
    else {
        return None;
    };
    days_from_civil(y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_typed_as_the_standard_says() {
        assert_eq!(number("2450"), Some(2450));
        assert_eq!(number("?"), None);
        assert_eq!(number("-"), None);
        assert_eq!(number("-5"), None);
        assert_eq!(date("2024.02.29"), Some(19_782));
        assert_eq!(date("2024.??.??"), None);
        assert_eq!(date("2023.02.29"), None);
        assert_eq!(date("24.02.29"), None);
        assert_eq!(date("0000.01.01"), None, "year 0000 is unknown");
        assert_eq!(date("0001.01.01"), Some(-719_162));
        let s = schema(&["White".into(), "WhiteElo".into(), "Date".into()], false).expect("distinct");
        let names: Vec<&str> = s.fields.iter().skip(TAGS).map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["White", "WhiteElo", "Date", "Date_text"]);
        assert_eq!(s.fields[TAGS + 1].kind, Kind::Int32);
        assert_eq!(s.fields[TAGS + 2].kind, Kind::Date);
        assert!(schema(&["fen".into()], false).is_err());
        assert!(schema(&["fen".into()], true).is_ok());
        assert!(schema(&["hmvc".into()], true).is_err());
        assert!(schema(&["Date".into(), "Date_text".into()], false).is_err());
        let e = schema(&["White".into()], true).expect("distinct");
        let names: Vec<&str> = e.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names[at(FEN, true) - 1..=at(SAN, true)], ["ply", "epd", "hmvc", "fmvn", "san"]);
        assert_eq!(names[at(CLK, true)..], ["clk", "White"]);
    }
}
