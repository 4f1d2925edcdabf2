//! Tests of tag expressions: each operator on dates, numbers and text, quoting, every error,
//! the pseudo-tags, a missing tag, `~` on non-ASCII text, regexes, the normalized form, and the
//! expressions against an independent computation over the tags of real collections.

use std::collections::HashMap;
use std::ops::ControlFlow;

use super::*;
use crate::pgn::{RawTag, Reader, Visitor};
use crate::pipeline::replay::{Games, Hooks, Verdict};

fn expr(text: &str) -> TagExpr {
    TagExpr::parse(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

/// Whether `text` holds for a game with exactly `tags`.
fn holds(text: &str, tags: &[(&str, &str)]) -> bool {
    expr(text).matches(|name| tags.iter().find(|t| t.0 == name).map(|t| Cow::Borrowed(t.1)))
}

/// The six comparisons `T = v`, `T != v`, `T < v`, `T <= v`, `T > v`, `T >= v` on `T "value"`.
fn comparisons(value: &str, operand: &str) -> [bool; 6] {
    ["=", "!=", "<", "<=", ">", ">="].map(|op| holds(&format!("T {op} \"{operand}\""), &[("T", value)]))
}

const EQUAL: [bool; 6] = [true, false, false, true, false, true];
const BEFORE: [bool; 6] = [false, true, true, true, false, false];
const AFTER: [bool; 6] = [false, true, false, false, true, true];
/// Neither before, within nor after; or not comparable; or missing.
const NONE: [bool; 6] = [false, true, false, false, false, false];

fn check_rows(rows: &[(&str, &str, [bool; 6])]) {
    for &(value, operand, want) in rows {
        assert_eq!(comparisons(value, operand), want, "T {value:?} against {operand:?}");
    }
}

#[test]
fn numbers_compare_by_value_exactly() {
    check_rows(&[
        ("2500", "2500.0", EQUAL),
        ("2500", "02500", EQUAL),
        ("2500", "+2500", EQUAL),
        (" 2500 ", "2500", EQUAL),
        ("2499", "2500", BEFORE),
        ("10", "9", AFTER), // as text "10" < "9"
        ("1.25", "1.5", BEFORE),
        ("1.50", "1.5", EQUAL),
        ("0.05", "0.5", BEFORE),
        ("-3", "2", BEFORE),
        ("-3", "-2", BEFORE),
        ("-2.5", "-2.25", BEFORE),
        ("-0", "0.000", EQUAL),
        // Beyond f64's 53 bits: FideId-sized integers stay exact.
        ("12345678901234567891", "12345678901234567890", AFTER),
        ("900", "1000", BEFORE),
    ]);
}

#[test]
fn values_that_are_not_numbers_do_not_compare_with_one() {
    for value in ["?", "-", "", "  ", "2500?", "1e3", ".5", "5.", "300+0", "--5", "abc"] {
        assert_eq!(comparisons(value, "300"), NONE, "{value:?}");
    }
}

#[test]
fn dates_compare_by_value_with_separators_and_short_parts() {
    check_rows(&[
        ("2024.01.05", "2024.1.5", EQUAL),
        ("2024-01-05", "2024/01/05", EQUAL),
        ("2024.1.5", "2024-01-05", EQUAL),
        ("2024.01.05", "2024.01.06", BEFORE),
        ("2024.01.05", "2023.12.31", AFTER),
        ("2024.10.01", "2024.9.30", AFTER), // as numbers 2024.1 < 2024.9
        // The operand names a period: a year, a month.
        ("2024.01.05", "2024.01", EQUAL),
        ("2024.01.05", "2024", EQUAL),
        ("2023.12.31", "2024", BEFORE),
        ("2024.02.01", "2024.01", AFTER),
        ("2024.1", "2024.10", BEFORE),
        ("1851.??.??", "1900", BEFORE),
    ]);
}

#[test]
fn unknown_date_parts() {
    check_rows(&[
        // Knows less than the operand and agrees on it: neither before, within nor after.
        ("1999.??.??", "1999.05.01", NONE),
        ("1999.05.??", "1999.05.01", NONE),
        ("1999", "1999.05", NONE),
        // Decided by the parts both know.
        ("1999.??.??", "2000.01.01", BEFORE),
        ("1999.05.??", "1999.04.30", AFTER),
        ("1999.??.??", "1999", EQUAL),
        ("1999.05.??", "1999.05", EQUAL),
        // A part after an unknown one is ignored.
        ("1999.??.05", "1999.03", NONE),
        ("1999.??.05", "1999", EQUAL),
        // No part known: the standard's unknown date, missing for the comparison.
        ("????.??.??", "1999", NONE),
        ("????.05.01", "1999.05.01", NONE),
        ("????", "2000.01.01", NONE),
    ]);
}

/// A tag's date that names no day, in the standard's form or one written for it, is read with
/// its impossible parts unknown, as `clean` writes it: `1992.05.00` (a day written unknown so)
/// lies in May 1992.
#[test]
fn a_tag_date_that_names_no_day_keeps_its_possible_parts() {
    check_rows(&[
        ("1992.05.00", "1992", EQUAL),
        ("1992.05.00", "1992.01.01", AFTER),
        ("1992.05.00", "1992.05.10", NONE),
        ("2024.13.01", "2024", EQUAL),
        ("2024.13.01", "2024.06", NONE),
        ("2024.04.31", "2024.04", EQUAL),
        ("2024.04.31", "2024.04.30", NONE),
        ("1999.00.00", "1999.05.01", NONE),
        ("1999.01.32", "1999.05.01", BEFORE),
        ("2024-04-31", "2024.04.30", NONE),
        ("2024/2/30", "2024.02", EQUAL),
        ("2024/2/30", "2024.02.29", NONE),
        ("1999.1.32", "1999.05.01", BEFORE),
        ("1999.13.1", "1999", EQUAL),
        ("1999.13.1", "1999.05.01", NONE),
        ("1999.0.0", "1999", EQUAL),
    ]);
    assert!(holds("Year = 2024", &[("Date", "2024.13.01")]));
    assert!(!holds("Year != 2024", &[("Date", "2024.00.00")]));
}

#[test]
fn what_reads_as_a_date() {
    // Not dates (and not numbers): they do not compare with a date.
    for value in ["1999.05-01", "99.05.01", "1999.001.01", "1999.5.1.1", "1999.1?.01"] {
        assert_eq!(comparisons(value, "1999.05.01"), NONE, "{value:?}");
    }
    // `2500.0` has no month 0: it is a number, equal to 2500 (which also reads as a year).
    check_rows(&[("2500", "2500.0", EQUAL), ("2500", "2500", EQUAL), ("2499", "2500", BEFORE)]);
    // An operand with no part known is text.
    check_rows(&[("????.??.??", "????.??.??", EQUAL), ("1999.??.??", "????.??.??", BEFORE)]);
}

#[test]
fn text_compares_exactly_in_byte_order() {
    check_rows(&[
        ("Carlsen, Magnus", "Carlsen, Magnus", EQUAL),
        ("carlsen, magnus", "Carlsen, Magnus", AFTER), // case-sensitive: 'c' > 'C'
        ("Anand, V.", "Carlsen, Magnus", BEFORE),
        ("Carlsen", "Carlsen, Magnus", BEFORE),
        ("1-0", "1-0", EQUAL),
        ("1/2-1/2", "1-0", AFTER), // '/' > '-'
        ("Éric", "Zoe", AFTER),    // UTF-8 bytes of É above ASCII
        ("?", "?", EQUAL),
        ("", "x", BEFORE),
    ]);
}

#[test]
fn a_missing_tag_fails_every_operator_but_not_equal() {
    let tags = [("White", "x")];
    for op in Op::ALL {
        assert_eq!(holds(&format!("Black {op} x"), &tags), op == Op::Ne, "{op}");
    }
    for value in ["?", "-", "????.??.??", ""] {
        assert_eq!(comparisons(value, "2000"), NONE, "{value:?}");
        assert_eq!(comparisons(value, "2000.01.01"), NONE, "{value:?}");
    }
}

#[test]
fn contains_ignores_case() {
    let t = |value: &str, needle: &str| holds(&format!("T ~ \"{needle}\""), &[("T", value)]);
    assert!(t("World Championship Match", "world championship"));
    assert!(t("WORLD", "orl"));
    assert!(!t("World", "worlds"));
    assert!(t("anything", ""));
    assert!(t("", ""));
    assert!(!t("", "x"));
    // Non-ASCII, both ways, and in either side's case.
    assert!(t("MÜLLER, Hans", "müller"));
    assert!(t("Müller, Hans", "MÜLLER"));
    assert!(t("Dvořák", "OŘÁ"));
    assert!(!t("Muller", "müller"));
    assert!(!t("ASCII only", "ü"));
    assert!(t("Ivanchuk, Vassily", "IVANCHUK"));
    // A non-ASCII character whose lower case is ASCII (KELVIN SIGN).
    assert!(t("\u{212a}asparov", "kasp"));
    assert!(t("Kasparov", "\u{212a}asp"));
    // Character by character: a capital sigma is a small sigma wherever it stands.
    assert!(t("ΟΔΟΣ", "οσ"));
}

#[test]
fn regex_matches_decoded_text() {
    let tags = [("Site", "https://lichess.org/abc"), ("Event", "Rated Blitz game"), ("WhiteElo", "2500")];
    assert!(holds("Site =~ ^https://lichess", &tags));
    assert!(!holds("Site =~ ^lichess", &tags));
    assert!(holds("Event =~ Blitz", &tags));
    assert!(!holds("Event =~ blitz", &tags));
    assert!(holds("Event =~ (?i)blitz", &tags));
    assert!(holds(r#"WhiteElo =~ "^\d{4}$""#, &tags));
    assert!(holds(r"WhiteElo =~ ^25\d\d$", &tags));
    assert!(!holds("Black =~ .*", &tags));
    assert!(holds("Black != x", &tags));
}

#[test]
fn pseudo_tags() {
    let game = [
        ("White", "Carlsen, Magnus"),
        ("Black", "Nakamura, Hikaru"),
        ("WhiteElo", "2830"),
        ("BlackElo", "2780"),
        ("Date", "2024.05.??"),
    ];
    assert!(holds("Player = Nakamura, Hikaru", &game));
    assert!(holds("Player ~ carlsen", &game));
    assert!(!holds("Player ~ anand", &game));
    // `!=` is `not =`: neither player.
    assert!(!holds("Player != Nakamura, Hikaru", &game));
    assert!(holds("Player != Anand, Viswanathan", &game));
    // Elo: both players.
    assert!(holds("Elo >= 2780", &game));
    assert!(!holds("Elo >= 2800", &game));
    assert!(holds("Elo < 2900", &game));
    assert!(!holds("Elo = 2830", &game));
    assert!(holds("Elo != 2830", &game));
    assert!(!holds("Elo >= 2000", &[("WhiteElo", "2830"), ("BlackElo", "?")]));
    assert!(!holds("Elo >= 2000", &[("WhiteElo", "2830")]));
    // Year: of Date, a number.
    assert!(holds("Year = 2024", &game));
    assert!(holds("Year > 1999", &game));
    assert!(holds("Year = 2024.0", &game));
    assert!(holds("Year ~ 02", &game));
    assert!(holds("Year < 2000", &[("Date", "1999.??.??")]));
    assert!(holds("Year = 1851", &[("Date", "1851")]));
    assert!(holds("Year = 2024", &[("Date", "2024-01-05")]));
    for date in [None, Some("????.??.??"), Some("?"), Some("")] {
        let tags: Vec<_> = date.map(|d| ("Date", d)).into_iter().collect();
        assert!(!holds("Year < 3000", &tags) && !holds("Year >= 0", &tags) && holds("Year != 1", &tags));
    }
    // A pseudo-tag shadows a tag of the same name.
    assert!(!holds("Player = x", &[("Player", "x")]));
}

#[test]
fn quoting_and_escapes() {
    let e = expr(r#"White = "Carlsen, \"Magnus\" \\ x""#);
    assert_eq!(e.value(), r#"Carlsen, "Magnus" \ x"#);
    // A backslash before anything else stays (regexes keep their escapes).
    assert_eq!(expr(r#"Site =~ "^a\d\.b$""#).value(), r"^a\d\.b$");
    // Quoted values keep their blanks; bare ones are trimmed and may hold anything.
    assert_eq!(expr(r#"Event = "  two  spaces ""#).value(), "  two  spaces ");
    assert_eq!(expr("Event =   World  Cup \t").value(), "World  Cup");
    assert_eq!(expr(r#"Event = a "b" c"#).value(), r#"a "b" c"#);
    assert_eq!(expr("Event = =x").value(), "=x");
    assert_eq!(expr(r#"Annotator = """#).value(), "");
    assert_eq!(expr(r#"T="a"  "#).value(), "a");
    // Blanks around the operator are optional.
    for text in ["WhiteElo>=2500", "WhiteElo >=2500", "  WhiteElo>= 2500  ", "WhiteElo\t>=\t2500"] {
        assert_eq!(expr(text), expr("WhiteElo >= 2500"), "{text:?}");
    }
    assert_eq!((expr("Site=~^x").op(), expr("Site=~^x").value()), (Op::Matches, "^x"));
    // Quoting only delimits: a quoted number is a number.
    assert!(holds(r#"WhiteElo >= "2500""#, &[("WhiteElo", "10000")]));
    // Every name byte PGN allows.
    assert_eq!(expr("Aa_09+#:- = x").tag(), "Aa_09+#:-");
    assert!(holds("empty = \"\"", &[("empty", "")]));
}

#[test]
fn errors_name_what_and_where() {
    use TagExprError::*;
    let cases: &[(&str, TagExprError)] = &[
        ("", EmptyTagName { column: 1 }),
        ("   ", EmptyTagName { column: 4 }),
        (">= 2500", EmptyTagName { column: 1 }),
        ("  = x", EmptyTagName { column: 3 }),
        ("White.Elo >= 5", BadTagName { column: 6, found: '.' }),
        ("Wéite = x", BadTagName { column: 2, found: 'é' }),
        ("\"White\" = x", BadTagName { column: 1, found: '"' }),
        ("WhiteElo", MissingOperator { column: 9 }),
        ("WhiteElo   ", MissingOperator { column: 12 }),
        ("WhiteElo == 2500", UnknownOperator { column: 10, found: "==".into() }),
        ("WhiteElo => 2500", UnknownOperator { column: 10, found: "=>".into() }),
        ("WhiteElo=<2500", UnknownOperator { column: 9, found: "=<".into() }),
        ("Event ! x", UnknownOperator { column: 7, found: "!".into() }),
        ("White Elo >= 2500", UnknownOperator { column: 7, found: "Elo".into() }),
        ("Event ~= x", UnknownOperator { column: 7, found: "~=".into() }),
        ("WhiteElo >=", MissingValue { column: 12 }),
        ("WhiteElo >=   ", MissingValue { column: 15 }),
        (r#"White = "Carlsen"#, UnterminatedQuote { column: 9 }),
        (r#"White = "Carlsen\""#, UnterminatedQuote { column: 9 }),
        (r#"Événement = "x"#, BadTagName { column: 1, found: 'É' }),
        (r#"Event = "ä"x"#, TrailingText { column: 12 }),
        (r#"Event = "a" "b""#, TrailingText { column: 13 }),
        ("Elo >= abc", NotANumber { column: 8, tag: "Elo".into(), op: ">=", found: "abc".into() }),
        (r#"WhiteElo < "?""#, NotANumber { column: 12, tag: "WhiteElo".into(), op: "<", found: "?".into() }),
        ("Year > 1999-05", NotANumber { column: 8, tag: "Year".into(), op: ">", found: "1999-05".into() }),
        (
            "Date > 2024.02.30",
            NoDay { column: 8, found: "2024.02.30".into(), why: "February 2024 has 29 days".into() },
        ),
        ("Plies <= x", NotANumber { column: 10, tag: "Plies".into(), op: "<=", found: "x".into() }),
        (r#"PlyCount > """#, NotANumber { column: 12, tag: "PlyCount".into(), op: ">", found: "".into() }),
    ];
    for (text, want) in cases {
        assert_eq!(TagExpr::parse(text).as_ref(), Err(want), "{text:?}");
    }
    // Columns count characters, not bytes.
    assert_eq!(TagExpr::parse(r#"Event = "ü" x"#), Err(TrailingText { column: 13 }));
    match TagExpr::parse("Site =~ ^(https") {
        Err(BadRegex { column: 9, message }) => {
            // The same pattern compiled here (not a literal: clippy rejects invalid ones).
            let pattern = String::from("^(https");
            let regex_says = regex::Regex::new(&pattern).unwrap_err().to_string();
            assert_eq!(message, regex_says);
            assert!(message.contains("unclosed group"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // The messages say what and where.
    let shown = |text: &str| TagExpr::parse(text).unwrap_err().to_string();
    assert_eq!(
        shown("WhiteElo == 2500"),
        "unknown operator \"==\" at column 10 (operators: = != < <= > >= ~ =~)"
    );
    assert_eq!(shown("Event = \"x"), "unterminated quote: the value opened at column 9 has no closing '\"'");
    assert_eq!(shown("= 5"), "expected a tag name at column 1");
    assert!(shown("Site =~ (").starts_with("bad regular expression at column 9: "));
    assert_eq!(
        shown("Elo >= abc"),
        "Elo holds numbers: >= compares it with a number, not \"abc\" (column 8)"
    );
    // Equality against text stays (`?` is the unknown rating), as does ordering on other tags.
    for text in ["Elo = ?", "WhiteElo != -", "Year = x", "Event < M", "White >= abc", "Date >= 2024.05"] {
        assert!(TagExpr::parse(text).is_ok(), "{text}");
    }
}

#[test]
fn normalized_form_parses_back() {
    let cases = [
        ("WhiteElo>=2500", "WhiteElo >= 2500"),
        ("Event ~ \"world championship\"", "Event ~ \"world championship\""),
        ("Site =~ ^https://lichess", "Site =~ ^https://lichess"),
        ("Date<2000.01.01", "Date < 2000.01.01"),
        ("Result = 1-0", "Result = 1-0"),
        ("White != \"Carlsen, Magnus\"", "White != \"Carlsen, Magnus\""),
        ("Event = World  Cup", "Event = \"World  Cup\""),
        (r#"T = "a\"b\\c""#, r#"T = a"b\c"#),
        (r#"T = "a \"b\\c""#, r#"T = "a \"b\\c""#),
        (r#"T = "\"quoted\"""#, r#"T = "\"quoted\"""#),
        (r#"T = """#, r#"T = """#),
        ("T = =x", "T = =x"),
        (r#"Site =~ "^a\d""#, r"Site =~ ^a\d"),
        ("Player~müller", "Player ~ müller"),
    ];
    for (text, shown) in cases {
        let e = expr(text);
        assert_eq!(e.to_string(), shown, "{text:?}");
        assert_eq!(expr(&e.to_string()), e, "{text:?}");
        assert_eq!(expr(shown).value(), e.value(), "{text:?}");
    }
    assert_eq!("WhiteElo >= 2500".parse::<TagExpr>(), Ok(expr("WhiteElo>=2500")));
    assert_ne!(expr("WhiteElo >= 2500"), expr("WhiteElo > 2500"));
}

/// Records, for each game, whether each expression holds on its tags as replay sees them.
struct Selected<'e> {
    exprs: &'e [TagExpr],
    seen: Vec<Vec<bool>>,
}

impl<'a> Hooks<'a> for Selected<'_> {
    fn tags(&mut self, game: &crate::pipeline::replay::Game<'a>) -> Verdict {
        self.seen.push(self.exprs.iter().map(|e| e.matches_game(game)).collect());
        Verdict::Skip
    }
}

#[test]
fn matches_game_reads_the_first_tag_decoded() {
    let pgn = b"[White \"M\\\"uller\"]\n[Black \"Andr\xe9\"]\n[WhiteElo \"2500\"]\n[WhiteElo \"1000\"]\n\n1. e4 *\n\n\
[White \"x\"]\n[BlackElo \"?\"]\n\n1. d4 *\n";
    let exprs: Vec<TagExpr> =
        [r#"White = "M\"uller""#, "Black ~ andré", "WhiteElo > 2000", "BlackElo != 5", "Player = x"]
            .into_iter()
            .map(expr)
            .collect();
    let mut games = Games::new(Selected { exprs: &exprs, seen: Vec::new() }, pgn);
    while games.next_game() {}
    let seen = games.into_hooks().seen;
    assert_eq!(seen, [[true, true, true, true, false], [false, false, false, true, true]]);
}

/// The tags of each game of a collection, decoded.
struct TagsOnly<'a>(Vec<(&'a [u8], RawTag<'a>)>);

impl<'a> Visitor<'a> for TagsOnly<'a> {
    type Output = HashMap<String, String>;
    fn tag(&mut self, name: &'a [u8], value: RawTag<'a>) {
        self.0.push((name, value));
    }
    fn begin_movetext(&mut self) -> ControlFlow<()> {
        ControlFlow::Break(())
    }
    fn end_game(&mut self) -> HashMap<String, String> {
        let mut tags = HashMap::new();
        for (name, value) in self.0.drain(..) {
            let name = String::from_utf8_lossy(name).into_owned();
            tags.entry(name).or_insert_with(|| value.decode().0.into_owned());
        }
        tags
    }
}

fn games_tags(bytes: &[u8]) -> Vec<HashMap<String, String>> {
    let mut reader = Reader::new(bytes);
    let mut visitor = TagsOnly(Vec::new());
    std::iter::from_fn(|| reader.read_game(&mut visitor)).collect()
}

/// An expression and the same condition computed on the tags without it.
type Check = (&'static str, fn(&HashMap<String, String>) -> bool);

fn int(tags: &HashMap<String, String>, name: &str) -> Option<i64> {
    tags.get(name)?.parse::<i64>().ok()
}

fn year(tags: &HashMap<String, String>) -> Option<i64> {
    tags.get("Date")?.get(..4).filter(|y| y.bytes().all(|b| b.is_ascii_digit()))?.parse().ok()
}

/// `Date >= 2025.06.25` on zero-padded `YYYY.MM.DD` dates: the known prefix (`YYYY`,
/// `YYYY.MM` or all of it) compared as text with the operand's; an equal partial prefix is
/// undecided, so false.
fn on_or_after_2025_06_25(tags: &HashMap<String, String>) -> bool {
    let Some(date) = tags.get("Date") else { return false };
    let shape = |n: usize| {
        date.len() >= n
            && date
                .bytes()
                .take(n)
                .enumerate()
                .all(|(i, b)| if i == 4 || i == 7 { b == b'.' } else { b.is_ascii_digit() })
    };
    let Some(known) = [10, 7, 4].into_iter().find(|&n| shape(n)) else { return false };
    let (p, q) = (&date[..known], &"2025.06.25"[..known]);
    p > q || (p == q && known == 10)
}

/// Checks that select some games and not others among the fixtures alone.
const FIXTURE_CHECKS: &[Check] = &[
    ("WhiteElo >= 2000", |t| int(t, "WhiteElo").is_some_and(|e| e >= 2000)),
    ("WhiteElo != 2767", |t| int(t, "WhiteElo") != Some(2767)),
    ("BlackElo < 2400", |t| int(t, "BlackElo").is_some_and(|e| e < 2400)),
    ("Elo >= 2700", |t| {
        int(t, "WhiteElo").is_some_and(|e| e >= 2700) && int(t, "BlackElo").is_some_and(|e| e >= 2700)
    }),
    ("Date >= 2025.06.25", on_or_after_2025_06_25),
    ("Result = 1-0", |t| t.get("Result").is_some_and(|r| r == "1-0")),
    ("Result != 1/2-1/2", |t| t.get("Result").is_none_or(|r| r != "1/2-1/2")),
    ("Player ~ NODIRBEK", |t| {
        ["White", "Black"].iter().any(|n| t.get(*n).is_some_and(|v| v.to_lowercase().contains("nodirbek")))
    }),
    ("Event =~ (?i)blitz|rapid", |t| {
        t.get("Event").is_some_and(|e| ["blitz", "rapid"].iter().any(|w| e.to_lowercase().contains(w)))
    }),
    ("White < M", |t| t.get("White").is_some_and(|w| w.as_str() < "M")),
];

/// Checks that need the shared collections to select some games and not others.
const SHARED_CHECKS: &[Check] = &[
    ("Year < 2000", |t| year(t).is_some_and(|y| y < 2000)),
    ("Year != 2025", |t| year(t) != Some(2025)),
    ("WhiteElo < 1000", |t| int(t, "WhiteElo").is_some_and(|e| e < 1000)),
];

/// The expressions against a computation of their own, on every game of the fixtures and,
/// where present, of shared collections with unknown and empty Elos, partial dates and
/// Windows-1252 names.
#[test]
fn expressions_agree_with_an_independent_computation() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files =
        vec![root.join("fixtures/pgn/lichess_db_10k.pgn"), root.join("fixtures/pgn/twic1599_10k.pgn")];
    let shared = [
        "games/lichess_db_100k.pgn",
        "games/twic1599_100k.pgn",
        "games/otb/pgn2tex_Capablanca.pgn",
        "games/otb/python-chess_immortal-games.pgn",
    ];
    let mut all_shared = true;
    for rel in shared {
        let path = crate::shared_data_dir().join(rel);
        if path.exists() {
            files.push(path);
        } else {
            all_shared = false;
            crate::skip::skip(format_args!(
                "{} not found (the shared data sets are not part of the repository)",
                path.display()
            ));
        }
    }
    let checks: Vec<(TagExpr, &Check)> =
        FIXTURE_CHECKS.iter().chain(SHARED_CHECKS).map(|c| (expr(c.0), c)).collect();
    let mut games = 0;
    let mut counts = vec![0usize; checks.len()];
    for path in &files {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for tags in games_tags(&bytes) {
            games += 1;
            for ((e, (text, want)), count) in checks.iter().zip(&mut counts) {
                let got = e.matches(|name| tags.get(name).map(|v| Cow::Borrowed(v.as_str())));
                assert_eq!(got, want(&tags), "{text} on {}: {tags:?}", path.display());
                *count += usize::from(got);
            }
        }
    }
    assert!(games >= 14, "{games} games");
    // Each expression selects some games and not others: the agreement is not vacuous.
    for (i, ((_, (text, _)), count)) in checks.iter().zip(&counts).enumerate() {
        if i < FIXTURE_CHECKS.len() || all_shared {
            assert!(0 < *count && *count < games, "{text}: {count} of {games}");
        }
    }
}
