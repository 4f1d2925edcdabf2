//! [`Writer`]: games in the PGN export format (PGN standard, 1994, section 8), written event by
//! event into a caller's reused `Vec<u8>`, so a job that replays a game can write it as it goes.
//!
//! The writer is syntax only (no chess rules): a move comes as its SAN bytes, its move number
//! and whether Black plays it. Events of one game, in order: [`Writer::tag`]*, then any of
//! [`Writer::san`], [`Writer::nag`], [`Writer::comment`], [`Writer::begin_variation`] /
//! [`Writer::end_variation`], and [`Writer::end_game`] last; the first movetext event (or
//! `end_game`) writes the tag section. After `end_game` the writer is ready for the next game.
//!
//! # Layout
//! - Tag section: the Seven Tag Roster (Event, Site, Date, Round, White, Black, Result) first
//!   and in that order, then the other tags in the order given; a tag given twice is written
//!   twice, in order. `[Name "value"]`, one a line, the value escaped (`\` as `\\`, `"` as
//!   `\"`; a line break in a value is written as a space). A tag whose name is not a PGN tag
//!   name ([`is_standard_name`]) is left out and reported ([`Writer::take_left_out_tags`]).
//!   With [`Writer::fill_roster`], roster tags the game lacks are written with the standard's
//!   unknown values (`?`, `????.??.??` for Date, `*` for Result). A blank line follows the
//!   section (an empty section writes nothing).
//! - Movetext: tokens separated by one space on lines of at most [`Writer::LINE_WIDTH`] (79, or
//!   what [`Writer::max_line`] sets)
//!   characters (characters, not bytes: a UTF-8 comment counts its characters), as many tokens
//!   per line as fit; no line starts or ends with a space. A token wider than a line stands
//!   alone on its line.
//! - A move number before every White move (`12.`), and `12...` before a Black move that is the
//!   first of the movetext or of a variation or that follows a comment, a NAG or a variation
//!   (the standard's "intervening annotation or commentary"). The number is a token of its own
//!   (it may end a line).
//! - NAGs as `$n`. Comments as `{ text }`: whitespace runs collapsed to one space, trimmed, `}`
//!   removed (a `;` comment may hold one). A comment that fits on a line is one token, moved
//!   whole to the next line when it does not fit on the current one; a longer one is broken at
//!   spaces (`{ first` and `last }` stay together).
//! - Variations in parentheses glued to their first and last tokens, `(1... c5 2. Nf3)`. A `)`
//!   that would not fit moves down with the token before it, so no line starts with `)` unless
//!   that token fills a line by itself.
//! - The result token last (variations left open are closed before it), then a line end and one
//!   blank line: games are separated by exactly one blank line. A game without moves is its
//!   result alone.
//!
//! # The standard and python-chess
//! python-chess's `StringExporter(columns=80)` (the oracle of `scripts/pgn_export_oracle.py`)
//! wraps at the same width with the same greedy rule and the same `N...` rule after comments
//! and variations, so games of moves and short comments come out byte for byte the same: the
//! games of `lichess_db_1000k.pgn`, `lichess_DrDrunkenstein_2019-01-29.pgn` and
//! `twic1599_1000k.pgn` of the shared data (2,532 games with canonical SAN, clocks and evals),
//! written from the reader's events with the roster filled, equal python-chess's export. Where
//! the two differ, pgnkit follows the standard:
//! - python-chess does not escape `"` and `\` in tag values; pgnkit does.
//! - python-chess writes `( 1... c5 )` with spaces inside the parentheses (so a line may start
//!   with `)`); pgnkit glues them: `(1... c5)`.
//! - python-chess does not force `N...` after a NAG; pgnkit does (a NAG is an annotation).
//! - python-chess merges consecutive comments into one (and keeps a comment's inner line breaks
//!   and runs of spaces); pgnkit writes each comment as given, whitespace collapsed.
//! - python-chess lets a comment longer than a line exceed the width; pgnkit breaks it at spaces.
//! - python-chess writes a crazyhouse pawn drop `@e4`; pgnkit writes the SAN it is given, which
//!   the replay writes `P@e4`, as lichess does.
//! - python-chess always writes the seven roster tags (a game read without them gets `?`);
//!   pgnkit writes the tags given unless [`Writer::fill_roster`] is set, and writes a duplicate
//!   tag twice where python-chess keeps the last value.
//! - python-chess takes a missing (or `*`) Result tag from the movetext's result token, and
//!   ends the movetext with the Result tag's value; pgnkit ends it with the result given to
//!   [`Writer::end_game`], and a filled Result tag is `*`, the standard's unknown value (the tag
//!   section is written before the result comes: a caller that knows it passes a Result tag).
//!
//! Invariants: what is written is UTF-8 (tag values come as text, a comment that is not UTF-8 is
//! read as Windows-1252, the SAN callers give is ASCII); no allocation per event but for such a
//! comment. Tag lines are kept in the writer's own buffers (reused from game to game) until the
//! movetext starts; movetext goes straight into `out`.

use super::class::is_space;
use super::tag::is_standard_name;
use super::{GameResult, Nag};

/// The Seven Tag Roster, in the standard's order, with the values it gives for "unknown".
pub(crate) const ROSTER: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

/// A tag's place in the Seven Tag Roster, if it is one of them.
pub(crate) fn roster_place(name: &str) -> Option<usize> {
    ROSTER.iter().position(|&(n, _)| n == name)
}

/// Rank of a tag in the tag section: its place in the roster, or 7 for any other tag.
fn rank(name: &str) -> u8 {
    roster_place(name).map_or(7, |i| i as u8)
}

/// The last token written on the movetext line: a `)` that does not fit moves down with it.
#[derive(Debug, Clone, Copy, Default)]
struct Last {
    /// Offset in `out` of the space written before it; `None` when it starts its line.
    space: Option<usize>,
    /// Its width in characters (with the parentheses glued to it).
    width: usize,
}

/// Writes games in export format; see the module docs for the layout and the order of calls.
///
/// ```
/// use pgnkit::pgn::{GameResult, Nag, Writer};
/// let mut out = Vec::new();
/// let mut w = Writer::new();
/// w.tag("White", "Anderssen, Adolf");
/// w.tag("Event", "London \"casual\"");
/// w.san(&mut out, b"e4", 1, false);
/// w.nag(&mut out, Nag::GOOD_MOVE);
/// w.san(&mut out, b"e5", 1, true);
/// w.begin_variation(&mut out);
/// w.san(&mut out, b"c5", 1, true);
/// w.comment(&mut out, b"  the   Sicilian ");
/// w.end_variation(&mut out);
/// w.san(&mut out, b"Nf3", 2, false);
/// w.end_game(&mut out, GameResult::WhiteWins);
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "[Event \"London \\\"casual\\\"\"]\n[White \"Anderssen, Adolf\"]\n\n\
///      1. e4 $1 1... e5 (1... c5 { the Sicilian }) 2. Nf3 1-0\n\n"
/// );
/// ```
#[derive(Debug, Clone)]
pub struct Writer {
    fill_roster: bool,
    /// Longest movetext line, in characters.
    max_line: usize,
    /// The tag lines of the game, as they will be written, in the order given.
    tags: Vec<u8>,
    /// Per tag line: its rank (see [`rank`]) and where it ends in `tags`.
    tag_lines: Vec<(u8, usize)>,
    /// The tag section is written; movetext events follow.
    in_movetext: bool,
    /// Characters on the current movetext line (0: nothing written on it yet).
    col: usize,
    last: Last,
    /// `(` of variations begun but not yet written: they are glued to the next token.
    opens: usize,
    /// Variations open.
    depth: usize,
    /// The next Black move needs its `N...`.
    number_due: bool,
    /// `number_due` before the first of the `opens` was begun: a variation left out whole
    /// gives it back.
    due_before_opens: bool,
    /// The game's first comment that was not UTF-8, as given.
    not_utf8: Option<Vec<u8>>,
    /// The game's tag pairs left out for their names, as given.
    left_out: Vec<(String, String)>,
}

impl Writer {
    /// Longest movetext line, in characters: the standard's "fewer than 80".
    pub const LINE_WIDTH: usize = 79;

    /// A writer with the default layout: tags as given (roster first).
    pub fn new() -> Writer {
        Writer {
            fill_roster: false,
            max_line: Self::LINE_WIDTH,
            tags: Vec::new(),
            tag_lines: Vec::new(),
            in_movetext: false,
            col: 0,
            last: Last::default(),
            opens: 0,
            depth: 0,
            number_due: true,
            due_before_opens: true,
            not_utf8: None,
            left_out: Vec::new(),
        }
    }

    /// Writes the Seven Tag Roster tags a game lacks with the standard's unknown values (`?`,
    /// `????.??.??` for Date, `*` for Result) when `fill` is set.
    pub fn fill_roster(mut self, fill: bool) -> Writer {
        self.fill_roster = fill;
        self
    }

    /// Movetext lines of at most `chars` characters (at least 1) instead of [`Writer::LINE_WIDTH`].
    pub fn max_line(mut self, chars: usize) -> Writer {
        self.max_line = chars.max(1);
        self
    }

    /// Writes the tag section now (as the first movetext event would), for a caller that writes
    /// the movetext with another writer: the tags then go out once they are all known (a result
    /// reconciled at the end of the game, an opening classified from its moves).
    pub fn tag_section(&mut self, out: &mut Vec<u8>) {
        self.start_movetext(out);
    }

    /// How much of the `len` bytes of movetext written so far no later call changes: all but the
    /// last token's space, which a `)` that does not fit turns into a line break.
    pub fn settled(&self, len: usize) -> usize {
        self.last.space.unwrap_or(len)
    }

    /// The first `n` bytes of the movetext were taken out of the output (`n` at most
    /// [`Writer::settled`]): the offsets kept are moved back.
    pub fn forget_front(&mut self, n: usize) {
        if let Some(at) = &mut self.last.space {
            *at -= n;
        }
    }

    /// Forgets the game being written (its tags, open variations, line state), as after
    /// [`Writer::end_game`]; a caller that abandons a game also truncates its `out`.
    pub fn reset(&mut self) {
        self.tags.clear();
        self.tag_lines.clear();
        self.in_movetext = false;
        self.col = 0;
        self.last = Last::default();
        self.opens = 0;
        self.depth = 0;
        self.number_due = true;
        self.due_before_opens = true;
        self.not_utf8 = None;
        self.left_out.clear();
    }

    /// A tag pair, `value` as text (the caller decodes it; the writer escapes it). A pair whose
    /// `name` is not a PGN tag name ([`is_standard_name`]: letters, digits and `_`, from a
    /// letter or digit) is left out, as `}` is left out of a comment: written, `[Br]acket "x"]`
    /// would read back as no tag and movetext, `[Ev-ent "x"]` splits the game for pgn-extract.
    /// [`Writer::take_left_out_tags`] gives the pairs left out.
    ///
    /// ```
    /// use pgnkit::pgn::{GameResult, Writer};
    /// let (mut out, mut w) = (Vec::new(), Writer::new());
    /// w.tag("Br]acket", "{");
    /// w.tag("White", "A");
    /// assert_eq!(w.take_left_out_tags(), [("Br]acket".to_string(), "{".to_string())]);
    /// w.end_game(&mut out, GameResult::Draw);
    /// assert_eq!(out, b"[White \"A\"]\n\n1/2-1/2\n\n");
    /// ```
    ///
    /// # Panics
    /// After a movetext event of the same game: the tag section is already written.
    pub fn tag(&mut self, name: &str, value: &str) {
        assert!(!self.in_movetext, "pgn::Writer::tag after the movetext began");
        if !is_standard_name(name.as_bytes()) {
            self.left_out_tag(name, value);
            return;
        }
        push_tag(&mut self.tags, name, value);
        self.tag_lines.push((rank(name), self.tags.len()));
    }

    #[cold]
    fn left_out_tag(&mut self, name: &str, value: &str) {
        self.left_out.push((name.to_owned(), value.to_owned()));
    }

    /// The tag pairs of the game that [`Writer::tag`] left out for their names, in the order
    /// given; empty after this call until another comes, and after the game ends.
    pub fn take_left_out_tags(&mut self) -> Vec<(String, String)> {
        std::mem::take(&mut self.left_out)
    }

    /// A move: its SAN bytes as they should appear (`--` for a null move), its move number and
    /// whether Black plays it.
    #[inline(always)]
    pub fn san(&mut self, out: &mut Vec<u8>, san: &[u8], number: u32, black: bool) {
        self.start_movetext(out);
        let numbered = !black || self.number_due;
        self.number_due = false;
        // Nearly every move: no `(` to glue, a number and a SAN of at most 8 ASCII characters.
        if self.opens == 0
            && let Some(token) = Short::of(san)
        {
            if numbered {
                match Short::number(number, black) {
                    Some(number) => self.place_short(out, number),
                    None => self.place_number(out, number, black),
                }
            }
            return self.place_short(out, token);
        }
        if numbered {
            self.place_number(out, number, black);
        }
        self.place(out, width(san), |out| out.extend_from_slice(san));
    }

    /// A move number token, `12.` or `12...`.
    fn place_number(&mut self, out: &mut Vec<u8>, number: u32, black: bool) {
        let mut digits = itoa::Buffer::new();
        let digits = digits.format(number).as_bytes();
        let dots: &[u8] = if black { b"..." } else { b"." };
        self.place(out, digits.len() + dots.len(), |out| {
            out.extend_from_slice(digits);
            out.extend_from_slice(dots);
        });
    }

    /// Whether a variation was begun and nothing written in it yet: a NAG there has no move.
    pub fn in_empty_variation(&self) -> bool {
        self.opens > 0
    }

    /// A NAG, written `$n`.
    pub fn nag(&mut self, out: &mut Vec<u8>, nag: Nag) {
        self.start_movetext(out);
        let mut digits = itoa::Buffer::new();
        let digits = digits.format(nag.0).as_bytes();
        self.place(out, 1 + digits.len(), |out| {
            out.push(b'$');
            out.extend_from_slice(digits);
        });
        self.number_due = true;
    }

    /// A comment's text (without delimiters), written `{ text }` with its whitespace collapsed
    /// and any `}` removed: as UTF-8 when it is that, else read as Windows-1252
    /// ([`super::text`]; the first such comment of a game is kept for [`Writer::take_not_utf8`]).
    pub fn comment(&mut self, out: &mut Vec<u8>, text: &[u8]) {
        self.start_movetext(out);
        // Most comments (`[%clk 0:03:00]`) are written as they stand: one scan, one copy.
        if let Some((plain, spaced)) = plain_comment(text) {
            let whole = if plain.is_empty() { 3 } else { 4 + plain.len() };
            if !spaced || self.opens + whole <= self.max_line {
                self.place(out, whole, |out| {
                    out.extend_from_slice(b"{ ");
                    push_bytes(out, plain);
                    out.extend_from_slice(if plain.is_empty() { b"}" } else { b" }" });
                });
                self.number_due = true;
                return;
            }
        }
        if std::str::from_utf8(text).is_err() {
            if self.not_utf8.is_none() {
                self.not_utf8 = Some(text.trim_ascii().to_vec());
            }
            self.text_comment(out, super::text::windows_1252(text).as_bytes());
            return;
        }
        self.text_comment(out, text);
    }

    /// The first comment of the game written so far that was not UTF-8, as given (it was written
    /// as its Windows-1252 reading); `None` after this call until another comes, and after the
    /// game ends.
    pub fn take_not_utf8(&mut self) -> Option<Vec<u8>> {
        self.not_utf8.take()
    }

    /// [`Writer::comment`] for a comment of UTF-8 text that is not written as it stands.
    fn text_comment(&mut self, out: &mut Vec<u8>, text: &[u8]) {
        let word_width = |w: &[u8]| width(w) - count_braces(w);
        let (mut words, mut inner) = (0usize, 0);
        for w in words_of(text) {
            words += 1;
            inner += word_width(w);
        }
        inner += words.saturating_sub(1);
        let whole = 4 + inner - usize::from(words == 0);
        if words < 2 || self.opens + whole <= self.max_line {
            self.place(out, whole, |out| {
                out.extend_from_slice(b"{ ");
                for (i, w) in words_of(text).enumerate() {
                    if i > 0 {
                        out.push(b' ');
                    }
                    push_word(out, w);
                }
                out.extend_from_slice(if words == 0 { b"}" } else { b" }" });
            });
        } else {
            // Longer than a line: a token per word, the braces glued to the first and last.
            for (i, w) in words_of(text).enumerate() {
                let first = i == 0;
                let last = i + 1 == words;
                let extra = if first { 2 } else { 0 } + if last { 2 } else { 0 };
                // A line starting with `%` is an escape line, which readers skip: such a word
                // starts its line after a space.
                let escape = !first && w.first() == Some(&b'%') && self.breaks(word_width(w) + extra);
                self.place(out, word_width(w) + extra + usize::from(escape), |out| {
                    if first {
                        out.extend_from_slice(b"{ ");
                    }
                    if escape {
                        out.push(b' ');
                    }
                    push_word(out, w);
                    if last {
                        out.extend_from_slice(b" }");
                    }
                });
            }
        }
        self.number_due = true;
    }

    /// `(`: the moves that follow, up to [`Writer::end_variation`], are a variation (an
    /// alternative to the move written last).
    pub fn begin_variation(&mut self, out: &mut Vec<u8>) {
        self.start_movetext(out);
        if self.opens == 0 {
            self.due_before_opens = self.number_due;
        }
        self.opens += 1;
        self.depth += 1;
        self.number_due = true;
    }

    /// `)` for a variation cut short: one with nothing written in it is left out whole, not
    /// written `()` (then `true`).
    pub fn end_cut_variation(&mut self, out: &mut Vec<u8>) -> bool {
        if self.depth > 0 && self.opens > 0 {
            self.opens -= 1;
            self.depth -= 1;
            self.number_due = self.opens > 0 || self.due_before_opens;
            return true;
        }
        self.end_variation(out);
        false
    }

    /// `)`: the variation begun last ends. Without an open variation nothing is written.
    pub fn end_variation(&mut self, out: &mut Vec<u8>) {
        if self.depth == 0 {
            return;
        }
        self.depth -= 1;
        self.number_due = true;
        if self.opens > 0 {
            // An empty variation: its `(` was never written.
            let opens = self.opens;
            self.opens = 0;
            self.place(out, opens + 1, |out| {
                out.extend(std::iter::repeat_n(b'(', opens));
                out.push(b')');
            });
            return;
        }
        if self.col + 1 > self.max_line {
            match self.last.space {
                Some(at) => {
                    out[at] = b'\n';
                    self.col = self.last.width;
                    self.last.space = None;
                }
                None => {
                    // The last token fills its line alone: the `)` has a line of its own.
                    out.push(b'\n');
                    self.col = 0;
                    self.last = Last::default();
                }
            }
        }
        out.push(b')');
        self.col += 1;
        self.last.width += 1;
    }

    /// The result token, which ends the game (closing the variations left open), then a line
    /// end and a blank line. The writer is then ready for the next game.
    pub fn end_game(&mut self, out: &mut Vec<u8>, result: GameResult) {
        self.start_movetext(out);
        while self.depth > 0 {
            self.end_variation(out);
        }
        let token = result.as_str().as_bytes();
        self.place(out, token.len(), |out| out.extend_from_slice(token));
        out.extend_from_slice(b"\n\n");
        self.reset();
    }

    /// Writes the tag section if it is not written yet.
    #[inline]
    fn start_movetext(&mut self, out: &mut Vec<u8>) {
        if !self.in_movetext {
            self.write_tags(out);
        }
    }

    /// The tag section: roster tags in roster order, then the others, each rank in the order
    /// given; then a blank line unless no tag was written.
    fn write_tags(&mut self, out: &mut Vec<u8>) {
        self.in_movetext = true;
        let before = out.len();
        let ranks = self.tag_lines.iter().fold(0u8, |seen, &(rank, _)| seen | 1 << rank);
        let missing = self.fill_roster && ranks & 0x7f != 0x7f;
        if !missing && self.tag_lines.is_sorted_by_key(|&(rank, _)| rank) {
            // Given in the order they are written (the roster first, as most games have it).
            out.extend_from_slice(&self.tags);
        } else {
            self.write_tags_in_order(out);
        }
        if out.len() > before {
            out.push(b'\n');
        }
    }

    /// The tag lines by rank, the roster's missing tags filled if asked.
    fn write_tags_in_order(&self, out: &mut Vec<u8>) {
        for r in 0..=7u8 {
            let mut given = false;
            let mut start = 0;
            for &(rank, end) in &self.tag_lines {
                if rank == r {
                    out.extend_from_slice(&self.tags[start..end]);
                    given = true;
                }
                start = end;
            }
            if !given && self.fill_roster && r < 7 {
                let (name, value) = ROSTER[usize::from(r)];
                push_tag(out, name, value);
            }
        }
    }

    /// [`Writer::place`] for a short ASCII token with no `(` waiting: its separator and its
    /// characters go out in one store.
    #[inline(always)]
    fn place_short(&mut self, out: &mut Vec<u8>, token: Short) {
        debug_assert_eq!(self.opens, 0);
        let start = out.len();
        let (bytes, lead, space) = if self.col == 0 {
            (u128::from(token.word), 0, None)
        } else if self.col + 1 + token.len <= self.max_line {
            (u128::from(token.word) << 8 | u128::from(b' '), 1, Some(start))
        } else {
            self.col = 0;
            (u128::from(token.word) << 8 | u128::from(b'\n'), 1, None)
        };
        out.extend_from_slice(&bytes.to_le_bytes());
        out.truncate(start + lead + token.len);
        self.col += usize::from(space.is_some()) + token.len;
        self.last = Last { space, width: token.len };
    }

    /// Whether [`Writer::place`] puts a token of `width` characters on a new line.
    #[inline]
    fn breaks(&self, width: usize) -> bool {
        self.col != 0 && self.col + 1 + width + self.opens > self.max_line
    }

    /// Writes a token of `width` characters (with `write`), after the `(`s waiting to be glued
    /// to it: on the current line after a space when it fits, else on a new line.
    #[inline]
    fn place(&mut self, out: &mut Vec<u8>, width: usize, write: impl FnOnce(&mut Vec<u8>)) {
        let breaks = self.breaks(width);
        let width = width + self.opens;
        let space = if self.col == 0 {
            None
        } else if !breaks {
            out.push(b' ');
            self.col += 1;
            Some(out.len() - 1)
        } else {
            out.push(b'\n');
            self.col = 0;
            None
        };
        out.extend(std::iter::repeat_n(b'(', self.opens));
        self.opens = 0;
        write(out);
        self.col += width;
        self.last = Last { space, width };
    }
}

/// A token of at most 8 ASCII characters (a SAN, a move number) held in a register, so it goes
/// into the output as one 8-byte store instead of a call to `memcpy`: a move writes two of them.
#[derive(Clone, Copy)]
struct Short {
    /// The characters, the first in the lowest byte, zeros after them.
    word: u64,
    len: usize,
}

impl Short {
    /// `text` if it has 1 to 8 bytes, all ASCII.
    #[inline]
    fn of(text: &[u8]) -> Option<Short> {
        let n = text.len();
        // Two overlapping loads cover any length in their range (the overlap ORs equal bytes).
        let word = match n {
            4..=8 => {
                let head = u32::from_le_bytes([text[0], text[1], text[2], text[3]]);
                let tail = u32::from_le_bytes([text[n - 4], text[n - 3], text[n - 2], text[n - 1]]);
                u64::from(head) | u64::from(tail) << (8 * (n - 4))
            }
            2..=3 => {
                let head = u16::from_le_bytes([text[0], text[1]]);
                let tail = u16::from_le_bytes([text[n - 2], text[n - 1]]);
                u64::from(head) | u64::from(tail) << (8 * (n - 2))
            }
            1 => u64::from(text[0]),
            _ => return None,
        };
        (word & HIGH == 0).then_some(Short { word, len: n })
    }

    /// A move number: `12.`, or `12...` before a Black move; `None` past 8 characters.
    #[inline]
    fn number(number: u32, black: bool) -> Option<Short> {
        let (dots, len): (u64, usize) = if black { (0x2e_2e2e, 3) } else { (0x2e, 1) };
        let (mut word, mut n, mut digits) = (0u64, number, 0);
        loop {
            // The digit found last is the first character: each one pushes the others up a byte.
            word = word << 8 | u64::from(b'0' + (n % 10) as u8);
            n /= 10;
            digits += 1;
            if n == 0 {
                break;
            }
        }
        (digits + len <= 8).then(|| Short { word: word | dots << (8 * digits), len: digits + len })
    }
}

/// `out.extend_from_slice(bytes)` for the short texts of PGN (tag names and values, comments):
/// two overlapping copies of a fixed size are moves inlined, where a copy of any length is a
/// call to `memcpy`.
#[inline(always)]
fn push_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    let n = bytes.len();
    let at = out.len();
    match n {
        16..=32 => {
            out.extend_from_slice(&bytes[..16]);
            out.truncate(at + n - 16);
            out.extend_from_slice(&bytes[n - 16..]);
        }
        8..16 => {
            out.extend_from_slice(&bytes[..8]);
            out.truncate(at + n - 8);
            out.extend_from_slice(&bytes[n - 8..]);
        }
        4..8 => {
            out.extend_from_slice(&bytes[..4]);
            out.truncate(at + n - 4);
            out.extend_from_slice(&bytes[n - 4..]);
        }
        _ => out.extend_from_slice(bytes),
    }
}

/// The tag pair `[name "value"]`, its value escaped as [`Writer::tag`] escapes it, without a line
/// break: a line to show. `name` is written as given, where [`Writer::tag`] leaves out a name
/// that is not a PGN tag name.
pub fn tag_line(name: &str, value: &str) -> String {
    let mut out = Vec::new();
    push_tag(&mut out, name, value);
    out.pop();
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Appends `[name "value"]` and a line break, the value escaped.
fn push_tag(out: &mut Vec<u8>, name: &str, value: &str) {
    out.push(b'[');
    push_bytes(out, name.as_bytes());
    out.extend_from_slice(b" \"");
    if !value.bytes().any(|b| matches!(b, b'\\' | b'"') || b.is_ascii_control()) {
        push_bytes(out, value.as_bytes());
        out.extend_from_slice(b"\"]\n");
        return;
    }
    // The export format has no ASCII control (a tab, a line break) inside a string; `clean`
    // also turns the others (U+0080..U+009F) to spaces, as a repair that keeps them.
    for &b in value.as_bytes() {
        match b {
            b'\\' | b'"' => out.extend_from_slice(&[b'\\', b]),
            b if b.is_ascii_control() => out.push(b' '),
            _ => out.push(b),
        }
    }
    out.extend_from_slice(b"\"]\n");
}

/// A comment written as it stands, between the blanks at its ends: printable ASCII words
/// without `}`, one space apart. Its text so trimmed, and whether it holds two words or more.
fn plain_comment(text: &[u8]) -> Option<(&[u8], bool)> {
    let start = text.iter().position(|&b| !is_space(b)).unwrap_or(text.len());
    let end = text.iter().rposition(|&b| !is_space(b)).map_or(start, |i| i + 1);
    let plain = &text[start..end];
    // Eight bytes at a time (the comments of clocks and evaluations are 14 to 30 bytes).
    let (mut spaced, mut after_space) = (false, 0u64);
    let mut words = plain.chunks_exact(8);
    for word in &mut words {
        let x = u64::from_le_bytes([word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7]]);
        let control = !(x.wrapping_add(0x6060_6060_6060_6060)) & HIGH;
        if x & HIGH != 0
            || control != 0
            || (zero_bytes(x ^ (ONES * 0x7d)) | zero_bytes(x ^ (ONES * 0x7f))) != 0
        {
            return None;
        }
        let spaces = zero_bytes(x ^ (ONES * u64::from(b' ')));
        if spaces & (spaces << 8 | after_space) != 0 {
            return None;
        }
        spaced |= spaces != 0;
        after_space = spaces >> 56;
    }
    let mut after_space = after_space != 0;
    for &b in words.remainder() {
        match b {
            b' ' if !after_space => (spaced, after_space) = (true, true),
            b'!'..=b'|' | b'~' => after_space = false,
            _ => return None,
        }
    }
    Some((plain, spaced))
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// 0x80 in each byte of `x` that is zero, 0 in the others (exact: no carry crosses bytes).
#[inline]
fn zero_bytes(x: u64) -> u64 {
    !(((x & !HIGH) + !HIGH) | x | !HIGH)
}

/// Characters in `text`, which is UTF-8 (bytes that start a character).
#[inline]
fn width(text: &[u8]) -> usize {
    text.iter().filter(|&&b| b & 0xc0 != 0x80).count()
}

fn count_braces(w: &[u8]) -> usize {
    w.iter().filter(|&&b| b == b'}').count()
}

/// The words of a comment: runs between whitespace that hold something besides `}`.
fn words_of(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split(|&b| is_space(b)).filter(|w| w.iter().any(|&b| b != b'}'))
}

/// A comment's text as [`Writer::comment`] writes one holding a `}`: its words without their
/// `}`s, one space apart.
#[cfg(feature = "cli")]
pub(crate) fn without_braces(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for w in words_of(text) {
        if !out.is_empty() {
            out.push(b' ');
        }
        push_word(&mut out, w);
    }
    out
}

/// Appends a word without its `}`s.
fn push_word(out: &mut Vec<u8>, w: &[u8]) {
    if memchr::memchr(b'}', w).is_none() {
        out.extend_from_slice(w);
    } else {
        out.extend(w.iter().copied().filter(|&b| b != b'}'));
    }
}

impl Default for Writer {
    fn default() -> Writer {
        Writer::new()
    }
}

mod game;
#[cfg(test)]
mod tests;
