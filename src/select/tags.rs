//! Tag expressions (`--where EXPR`, repeatable; a game is selected when all hold): a condition
//! on one tag of a game, parsed once and decided on the game's tags before it is replayed.
//!
//! Syntax: `TAG OP VALUE`, blanks around the operator optional:
//!
//! - `TAG`: a tag name as PGN writes it (letters, digits, `_ + # : -`; `=` ends the name, as it
//!   starts an operator), matched case-sensitively against the game's first tag of that name,
//!   or one of the pseudo-tags below.
//! - `OP`: `=`, `!=`, `<`, `<=`, `>`, `>=`, `~` (case-insensitive substring) or `=~` (regular
//!   expression of the `regex` crate, unanchored, case-sensitive unless it says `(?i)`).
//! - `VALUE`: quoted with `"` (escapes `\"` and `\\`; a backslash before anything else stays, so
//!   `"\d+"` is the regex `\d+`), or bare: the rest of the expression, blanks trimmed. Quoting
//!   only delimits: `"2500"` still reads as a number.
//!
//! Comparing (`=`, `!=`, `<`, `<=`, `>`, `>=`), the tag's value against the operand:
//!
//! - Dates: when both read as PGN dates (`YYYY`, `YYYY.MM`, `YYYY.MM.DD`, also with `-` or `/`;
//!   months 1-12 and days 1-31 of one or two digits; `??` for an unknown part) they compare by
//!   value (`2024.1.5` = `2024.01.05`). The operand names a period (a year, a month or a day):
//!   a date within it is equal to it, so `Date = 2024.01` holds for `2024.01.05` and
//!   `Date >= 1999` for every date of 1999 on. A tag's date that knows fewer parts than the
//!   operand and agrees with it on those (`1999.??.??` against `1999.05.01`) is neither before,
//!   within nor after it: every operator but `!=` is false. A part after an unknown one is
//!   ignored. (A bare four-digit year compares as its number would, so `WhiteElo >= 2500` is
//!   the same either way.) A tag's date that names no day (`YYYY.MM.DD` or a form `clean`
//!   rewrites to it: `2024-04-31`) has the parts that make it impossible unknown, as `clean` writes it (`1992.05.00` lies in May 1992, `2024.13.01` in
//!   2024); an operand that names no day is refused ([`TagExprError::NoDay`]).
//! - Numbers: else, when both read as numbers (`[+-]DIGITS[.DIGITS]`, as Elo, PlyCount and
//!   FideId are) they compare by value, exactly (`2500` = `2500.0`).
//! - Text: else, when the operand reads as neither a date nor a number, as text: `=` exactly
//!   (case-sensitive), `<` and `>` in byte order of the decoded text. On a tag whose values are
//!   numbers ([`NUMERIC`]: `WhiteElo`, `BlackElo` and the pseudo-tags `Elo`, `Year`, `Plies`,
//!   `PlyCount`) such an operand is refused with `<`, `<=`, `>` and `>=`
//!   ([`TagExprError::NotANumber`]): it would hold for no game, or for every one (`=` and `!=`
//!   stay, as `Elo = ?` finds the unrated).
//! - Otherwise (the operand is a date or a number, the tag's value is neither of the same kind)
//!   the two do not compare: every operator but `!=` is false, as for a missing tag. The
//!   standard's unknown values (`?`, `-`, `????.??.??`) and an empty value are such values, so
//!   `WhiteElo >= 2000` is false for `WhiteElo "?"`, as it is for `WhiteElo "2000?"`, and
//!   `TimeControl >= 300` for `TimeControl "300+0"` (a number is the whole value).
//!
//! `~` and `=~` always look at the decoded text; `~` compares Unicode lower case, character by
//! character (`~ müller` holds for `MÜLLER, Hans`).
//!
//! A missing tag: every operator is false except `!=`, which is true (pgn-extract treats a
//! missing tag so). More generally `A != v` is exactly `not (A = v)`, for pseudo-tags too.
//!
//! Pseudo-tags (they shadow a game's tags of the same name):
//!
//! - `Player`: `White` or `Black` satisfies the operator (`Player ~ carlsen`); `Player != X`
//!   holds when neither player is `X`.
//! - `Elo`: both `WhiteElo` and `BlackElo` satisfy it (`Elo >= 2500`: both players rated 2500
//!   or more); `Elo != X` holds when not both are `X`.
//! - `Year`: the year of `Date`, a number (`Year < 2000`); missing when `Date` is missing or
//!   its year is unknown.
//! - `Plies`: the number of plies of the mainline as replayed (null moves count; a game with an
//!   error counts its valid prefix), a number computed from the moves, so known only once the
//!   game is replayed ([`TagExpr::decide`]).
//! - `PlyCount`: the `PlyCount` tag where the game has one, else `Plies`: exports without the
//!   tag (TWIC, lichess, most online sites) are filtered on their length as written.
//!
//! ```
//! use std::borrow::Cow;
//! use pgnkit::select::tags::TagExpr;
//!
//! let tags = [("White", "Carlsen, Magnus"), ("WhiteElo", "2830"), ("BlackElo", "?"), ("Date", "2024.05.??")];
//! let lookup = |name: &str| tags.iter().find(|t| t.0 == name).map(|t| Cow::Borrowed(t.1));
//! let holds = |expr: &str| TagExpr::parse(expr).unwrap().matches(lookup);
//! assert!(holds("WhiteElo >= 2800"));
//! assert!(holds("Player ~ carlsen"));
//! assert!(!holds("Elo >= 2000")); // BlackElo is unknown
//! assert!(holds("Date = 2024.05") && holds("Year = 2024"));
//! assert!(!holds("Date < 2024.05.10") && !holds("Date >= 2024.05.10"));
//! assert!(!holds("Event = x") && holds("Event != x")); // no Event tag
//! // The length of the mainline is known once the game is replayed.
//! let long = TagExpr::parse("PlyCount > 80").unwrap();
//! assert_eq!(long.decide(lookup, None), None);
//! assert_eq!(long.decide(lookup, Some(81)), Some(true));
//! ```

pub mod error;
mod value;

#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use regex::Regex;

pub use self::error::TagExprError;
use self::value::{Date, Decimal, OwnedDecimal};
use crate::pgn::date::TagDate;
use crate::pipeline::replay::Game;

/// The operator of a tag expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `=`: equal (text exactly; numbers and dates by value).
    Eq,
    /// `!=`: not `=`.
    Ne,
    /// `<`: before.
    Lt,
    /// `<=`: before or equal.
    Le,
    /// `>`: after.
    Gt,
    /// `>=`: after or equal.
    Ge,
    /// `~`: contains, ignoring case.
    Contains,
    /// `=~`: matches the regular expression.
    Matches,
}

impl Op {
    /// Every operator, as [`Op::symbol`] spells them.
    pub const ALL: [Op; 8] = [Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Contains, Op::Matches];

    /// The operator as written: `=`, `!=`, `<`, `<=`, `>`, `>=`, `~` or `=~`.
    pub const fn symbol(self) -> &'static str {
        match self {
            Op::Eq => "=",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Contains => "~",
            Op::Matches => "=~",
        }
    }

    /// Whether the tag's value standing `ord` to the operand satisfies a comparison.
    fn holds(self, ord: Ordering) -> bool {
        match self {
            Op::Eq => ord.is_eq(),
            Op::Ne => ord.is_ne(),
            Op::Lt => ord.is_lt(),
            Op::Le => ord.is_le(),
            Op::Gt => ord.is_gt(),
            Op::Ge => ord.is_ge(),
            Op::Contains | Op::Matches => unreachable!("not a comparison"),
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// What an expression looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Subject {
    /// The tag of the expression's name.
    Tag,
    /// `White` or `Black`.
    Player,
    /// `WhiteElo` and `BlackElo`.
    Elo,
    /// The year of `Date`.
    Year,
    /// The mainline's plies.
    Plies,
    /// The `PlyCount` tag, else the mainline's plies.
    PlyCount,
}

/// The operand in the form its operator uses, prepared by [`TagExpr::parse`].
#[derive(Clone, Debug)]
enum Test {
    /// A comparison: the operand as a date and as a number where it reads so (text otherwise).
    Compare { date: Option<Date>, number: Option<OwnedDecimal> },
    /// `~`: the operand in lower case.
    Contains { folded: Box<str> },
    /// `=~`.
    Matches(Regex),
}

/// A parsed `--where` expression: `TAG OP VALUE` (see the [module docs](self) for the rules).
#[derive(Clone, Debug)]
pub struct TagExpr {
    name: Box<str>,
    subject: Subject,
    op: Op,
    value: Box<str>,
    test: Test,
}

/// The tags and pseudo-tags whose values are numbers: an ordering against text is refused.
pub const NUMERIC: [&str; 6] = ["WhiteElo", "BlackElo", "Elo", "Year", "Plies", "PlyCount"];

/// Bytes PGN allows in a tag name, less `=` (which starts an operator).
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'#' | b':' | b'-')
}

/// Bytes operators are written with.
fn is_op_byte(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'<' | b'>' | b'~')
}

impl TagExpr {
    /// Parses `TAG OP VALUE`.
    ///
    /// ```
    /// use pgnkit::select::tags::{Op, TagExpr, TagExprError};
    ///
    /// let e = TagExpr::parse(r#"White != "Carlsen, Magnus""#).unwrap();
    /// assert_eq!((e.tag(), e.op(), e.value()), ("White", Op::Ne, "Carlsen, Magnus"));
    /// assert_eq!(TagExpr::parse("WhiteElo>=2500").unwrap().to_string(), "WhiteElo >= 2500");
    /// assert_eq!(
    ///     TagExpr::parse("WhiteElo == 2500").unwrap_err(),
    ///     TagExprError::UnknownOperator { column: 10, found: "==".into() }
    /// );
    /// ```
    pub fn parse(text: &str) -> Result<TagExpr, TagExprError> {
        let b = text.as_bytes();
        let column = |at: usize| text[..at].chars().count() + 1;
        let blanks = |mut at: usize| {
            while at < b.len() && b[at].is_ascii_whitespace() {
                at += 1;
            }
            at
        };
        let start = blanks(0);
        let mut at = start;
        while at < b.len() && is_name_byte(b[at]) {
            at += 1;
        }
        let name = &text[start..at];
        match b.get(at) {
            Some(&c) if !c.is_ascii_whitespace() && !is_op_byte(c) => {
                let found = text[at..].chars().next().expect("a character at a char boundary");
                return Err(TagExprError::BadTagName { column: column(at), found });
            }
            _ if name.is_empty() => return Err(TagExprError::EmptyTagName { column: column(start) }),
            _ => {}
        }
        at = blanks(at);
        if at == b.len() {
            return Err(TagExprError::MissingOperator { column: column(at) });
        }
        let op_start = at;
        let op_end = if is_op_byte(b[at]) {
            at + b[at..].iter().take_while(|&&c| is_op_byte(c)).count()
        } else {
            at + b[at..].iter().take_while(|&&c| !c.is_ascii_whitespace()).count()
        };
        let symbol = &text[op_start..op_end];
        let Some(op) = Op::ALL.into_iter().find(|op| op.symbol() == symbol) else {
            return Err(TagExprError::UnknownOperator { column: column(op_start), found: symbol.into() });
        };
        at = blanks(op_end);
        let value_start = at;
        let value: Cow<'_, str> = match b.get(at) {
            None => return Err(TagExprError::MissingValue { column: column(at) }),
            Some(b'"') => {
                let (value, end) = unquote(&text[at + 1..])
                    .ok_or(TagExprError::UnterminatedQuote { column: column(value_start) })?;
                let after = blanks(at + 1 + end);
                if after < b.len() {
                    return Err(TagExprError::TrailingText { column: column(after) });
                }
                Cow::Owned(value)
            }
            Some(_) => Cow::Borrowed(text[at..].trim_ascii_end()),
        };
        let test = match op {
            Op::Contains => Test::Contains { folded: value.chars().flat_map(char::to_lowercase).collect() },
            Op::Matches => Test::Matches(Regex::new(&value).map_err(|e| TagExprError::BadRegex {
                column: column(value_start),
                message: e.to_string(),
            })?),
            Op::Lt | Op::Le | Op::Gt | Op::Ge
                if NUMERIC.contains(&name) && OwnedDecimal::parse(&value).is_none() =>
            {
                return Err(TagExprError::NotANumber {
                    column: column(value_start),
                    tag: name.into(),
                    op: op.symbol(),
                    found: value.into_owned(),
                });
            }
            _ => {
                if let Some(why) = TagDate::parse(value.trim_ascii().as_bytes()).and_then(|d| d.impossible())
                {
                    return Err(TagExprError::NoDay {
                        column: column(value_start),
                        found: value.into_owned(),
                        why,
                    });
                }
                Test::Compare { date: Date::parse(&value), number: OwnedDecimal::parse(&value) }
            }
        };
        let subject = match name {
            "Player" => Subject::Player,
            "Elo" => Subject::Elo,
            "Year" => Subject::Year,
            "Plies" => Subject::Plies,
            "PlyCount" => Subject::PlyCount,
            _ => Subject::Tag,
        };
        Ok(TagExpr { name: name.into(), subject, op, value: value.into(), test })
    }

    /// The tag (or pseudo-tag) name.
    pub fn tag(&self) -> &str {
        &self.name
    }

    /// The operator.
    pub fn op(&self) -> Op {
        self.op
    }

    /// The operand, unquoted.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// Whether the expression holds for a game whose tags `tag` looks up: `tag(name)` is the
    /// decoded value of the game's first tag named `name`, `None` when it has none. The
    /// mainline's length is unknown here: `Plies` (and `PlyCount` without the tag) is missing.
    pub fn matches<'v>(&self, tag: impl FnMut(&str) -> Option<Cow<'v, str>>) -> bool {
        self.decide(tag, None).unwrap_or(self.op == Op::Ne)
    }

    /// Whether the expression holds for a game whose tags `tag` looks up (as for
    /// [`matches`](Self::matches)) and whose mainline has `plies` plies; `None` when that
    /// decides and `plies` is `None` (the game is not replayed yet).
    pub fn decide<'v>(
        &self,
        mut tag: impl FnMut(&str) -> Option<Cow<'v, str>>,
        plies: Option<u32>,
    ) -> Option<bool> {
        // `!=` is exactly `not =`: also for a missing tag and for the pseudo-tags.
        let (op, negate) = match self.op {
            Op::Ne => (Op::Eq, true),
            op => (op, false),
        };
        let plies_hold = |n: u32| self.holds(op, Some(itoa::Buffer::new().format(n)));
        let hit = match self.subject {
            Subject::Tag => self.holds(op, tag(&self.name).as_deref()),
            Subject::Player => {
                self.holds(op, tag("White").as_deref()) || self.holds(op, tag("Black").as_deref())
            }
            Subject::Elo => {
                self.holds(op, tag("WhiteElo").as_deref()) && self.holds(op, tag("BlackElo").as_deref())
            }
            Subject::Year => {
                let date = tag("Date");
                self.holds(op, date.as_deref().and_then(value::year_text))
            }
            Subject::Plies => plies_hold(plies?),
            Subject::PlyCount => match tag("PlyCount") {
                Some(v) => self.holds(op, Some(&v)),
                None => plies_hold(plies?),
            },
        };
        Some(hit != negate)
    }

    /// [`matches`](Self::matches) on a game's tags (the first of each name, decoded with
    /// [`RawTag::decode`](crate::pgn::RawTag::decode): borrowed unless it has an escape or is
    /// not UTF-8).
    pub fn matches_game(&self, game: &Game<'_>) -> bool {
        self.matches(|name| game.tag(name.as_bytes()).map(|t| t.decode().0))
    }

    /// [`decide`](Self::decide) on a game's tags, as [`matches_game`](Self::matches_game) reads
    /// them.
    pub fn decide_game(&self, game: &Game<'_>, plies: Option<u32>) -> Option<bool> {
        self.decide(|name| game.tag(name.as_bytes()).map(|t| t.decode().0), plies)
    }

    /// Whether deciding the expression on `game` needs its mainline's length (`Plies`, or
    /// `PlyCount` for a game without that tag).
    pub fn needs_plies(&self, game: &Game<'_>) -> bool {
        match self.subject {
            Subject::Plies => true,
            Subject::PlyCount => game.tag(b"PlyCount").is_none(),
            _ => false,
        }
    }

    /// Whether `game` has what the expression compares: the tag (`White` or `Black` for
    /// `Player`, both `WhiteElo` and `BlackElo` for `Elo`, a `Date` with a known year for
    /// `Year`); always for `Plies` and `PlyCount`, which the moves give.
    pub fn has_value(&self, game: &Game<'_>) -> bool {
        let has = |name: &[u8]| game.tag(name).is_some();
        match self.subject {
            Subject::Tag => has(self.name.as_bytes()),
            Subject::Player => has(b"White") || has(b"Black"),
            Subject::Elo => has(b"WhiteElo") && has(b"BlackElo"),
            Subject::Year => game.tag(b"Date").is_some_and(|d| value::year_text(&d.decode().0).is_some()),
            Subject::Plies | Subject::PlyCount => true,
        }
    }

    /// What a game must have for the expression to compare anything, as a warning names it
    /// (`the tag WhiteElo`; see [`has_value`](Self::has_value)).
    pub fn value_source(&self) -> String {
        match self.subject {
            Subject::Tag => format!("the tag {}", self.name),
            Subject::Player => "a White or Black tag".into(),
            Subject::Elo => "both WhiteElo and BlackElo tags".into(),
            Subject::Year => "a Date tag with a known year".into(),
            Subject::Plies | Subject::PlyCount => "moves".into(),
        }
    }

    /// The tags the expression reads (`White` and `Black` for `Player`; none for `Plies`).
    pub fn tags_read(&self) -> Vec<&str> {
        match self.subject {
            Subject::Tag | Subject::PlyCount => vec![&self.name],
            Subject::Player => vec!["White", "Black"],
            Subject::Elo => vec!["WhiteElo", "BlackElo"],
            Subject::Year => vec!["Date"],
            Subject::Plies => vec![],
        }
    }

    /// Whether `op` (not `!=`) holds for one tag's value (`None`: missing).
    fn holds(&self, op: Op, value: Option<&str>) -> bool {
        let Some(value) = value else { return false };
        match &self.test {
            Test::Contains { folded } => contains_folded(value, folded),
            Test::Matches(re) => re.is_match(value),
            Test::Compare { date, number } => {
                self.compare(value, *date, number.as_ref()).is_some_and(|o| op.holds(o))
            }
        }
    }

    /// How `value` stands to the operand; `None` when they do not compare (module docs).
    fn compare(&self, value: &str, date: Option<Date>, number: Option<&OwnedDecimal>) -> Option<Ordering> {
        if date.is_none() && number.is_none() {
            return Some(value.cmp(&self.value));
        }
        if let Some(d) = date
            && let Some(v) = Date::of_tag(value)
        {
            return v.compare_to_period(d);
        }
        number.zip(Decimal::parse(value)).map(|(n, v)| v.cmp(&n.view()))
    }
}

/// Reads a quoted value after its opening `"`: the value with `\"` and `\\` resolved, and the
/// offset just past the closing quote; `None` without one.
fn unquote(text: &str) -> Option<(String, usize)> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, i + 1)),
            '\\' if matches!(text[i + 1..].chars().next(), Some('"' | '\\')) => {
                out.push(chars.next().expect("checked").1);
            }
            c => out.push(c),
        }
    }
    None
}

/// Whether `hay` contains `needle` (already lower case), comparing lower case character by
/// character; allocates nothing.
fn contains_folded(hay: &str, needle: &str) -> bool {
    if hay.is_ascii() {
        // ASCII lowercases byte by byte, and a needle that is not ASCII in lower case cannot
        // occur in it.
        return needle.is_ascii()
            && (needle.is_empty()
                || hay.as_bytes().windows(needle.len()).any(|w| w.eq_ignore_ascii_case(needle.as_bytes())));
    }
    hay.char_indices().any(|(i, _)| {
        let mut lower = hay[i..].chars().flat_map(char::to_lowercase);
        needle.chars().all(|c| lower.next() == Some(c))
    }) || needle.is_empty()
}

impl PartialEq for TagExpr {
    fn eq(&self, other: &TagExpr) -> bool {
        // The rest is derived from these.
        (&self.name, self.op, &self.value) == (&other.name, other.op, &other.value)
    }
}

impl Eq for TagExpr {}

impl FromStr for TagExpr {
    type Err = TagExprError;

    fn from_str(text: &str) -> Result<TagExpr, TagExprError> {
        TagExpr::parse(text)
    }
}

/// The normalized form `TAG OP VALUE`, one blank around the operator; the value bare when it
/// is one word that does not start with `"`, else quoted with `\"` and `\\`. It parses back to
/// an equal expression.
impl fmt::Display for TagExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} ", self.name, self.op)?;
        let v = &*self.value;
        if !v.is_empty() && !v.starts_with('"') && !v.contains(|c: char| c.is_ascii_whitespace()) {
            return f.write_str(v);
        }
        f.write_str("\"")?;
        for c in v.chars() {
            if matches!(c, '"' | '\\') {
                f.write_str("\\")?;
            }
            write!(f, "{c}")?;
        }
        f.write_str("\"")
    }
}
