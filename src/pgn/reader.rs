//! [`Reader`]: a streaming PGN tokenizer over a byte slice that drives a [`Visitor`].
//!
//! Invariants:
//! - Time is linear in the input whatever it contains: every byte is examined a bounded number
//!   of times (look-ahead searches for `}` are cached), nothing recurses, variation depth is a
//!   counter, and a per-game budget ([`Limits`]) caps tokens, nesting, comment look-ahead and
//!   diagnostics.
//! - Between games the only state is the position: a reader started at the end offset of any
//!   game (see [`Reader::for_range`]) reads exactly the games a sequential reader reads from
//!   there. [`super::split`] relies on this.
//! - Skipped parts are scanned by the same code as delivered parts, so where a game ends never
//!   depends on the visitor.
//!
//! Game boundaries: a game starts at its first token after whitespace and `%` escape lines. It
//! ends (1) at a line starting with `[` after the movetext began (a tag, or a malformed tag line
//! such as `[Event Casual Game"]`), (2) after the main-line result token plus the comments that
//! follow it before any other token, (3) in the tag section, at a blank
//! line followed by `Event` or a tag the game already has (header-only games), (4) at binary
//! data (skipped to the next line starting with a tag), or (5) at the end of the input.
//! Comments: `{` ends at the first `}`, except that a comment containing a line that starts with
//! a tag is unterminated when no `}` follows or another `{` comes before the `}`: it then ends
//! before that line, which starts the next game.

use std::ops::Range;

use super::class::{
    CTRL, DOLLAR, GLYPH, LBRACE, LBRACKET, LPAREN, OTHER, PERCENT, RBRACE, RPAREN, SEMI, STAR, TOKEN,
    TOKEN_END, WS, class,
};
use super::scan;
use super::visitor::{GameResult, GameStart, Problem, ProblemKind, SanToken, Visitor};
use super::{CommentKind, Nag, RawComment};
use comments::{BraceCache, find_tag_line, short_comment_end};
use tags::TagSection;

mod comments;
mod tags;

/// Per-game budget. Exceeding it is a [`Problem`]; the game is still delimited exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Movetext tokens per game before the rest is skipped.
    pub max_tokens: u32,
    /// Variation nesting beyond which variations are skipped.
    pub max_depth: u32,
    /// Bytes of a `{` comment's text kept: a longer one is cut there (and still ends at its `}`).
    pub max_comment: usize,
    /// Bytes of one token (a move or word in movetext, a tag pair): a longer one is skipped
    /// ([`ProblemKind::TokenTooLong`]), the reading goes on after it. At least 64: a movetext
    /// token is measured only when it runs past the reader's 64-byte window.
    pub max_token: usize,
    /// Tag pairs per game: from the first past it, or past [`Limits::max_tag_bytes`], the rest
    /// of the game's tags are skipped ([`ProblemKind::TooManyTags`]); its movetext is read.
    pub max_tags: u32,
    /// Bytes of a game's tag pairs (from `[` to `]`), the budget [`Limits::max_tags`] counts too.
    pub max_tag_bytes: usize,
    /// Problems per game passed on before one [`ProblemKind::TooManyProblems`] (an error) and
    /// no more; none by default: every problem is passed on, and the replay counts each (its
    /// severity decides the game's) and shows the first [`Limits::MAX_PROBLEMS`].
    pub max_problems: u32,
}

impl Limits {
    /// The diagnostics of a game the replay shows.
    pub const MAX_PROBLEMS: u32 = 100;
}

/// UTF-8's byte order mark.
const BOM: &[u8] = b"\xef\xbb\xbf";

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_tokens: 8_000_000,
            max_depth: 128,
            max_comment: 64 << 20,
            max_token: 1 << 20,
            max_tags: 4096,
            max_tag_bytes: 16 << 20,
            max_problems: u32::MAX,
        }
    }
}

/// Reads games from a byte slice; see the module docs for the grammar it accepts.
///
/// ```
/// use pgnkit::pgn::{Reader, Visitor, SanToken};
/// use std::ops::ControlFlow;
///
/// struct CountMoves(usize);
/// impl Visitor<'_> for CountMoves {
///     type Output = usize;
///     fn san(&mut self, _: SanToken<'_>) -> ControlFlow<()> {
///         self.0 += 1;
///         ControlFlow::Continue(())
///     }
///     fn end_game(&mut self) -> usize {
///         std::mem::take(&mut self.0)
///     }
/// }
///
/// let pgn = b"[Event \"x\"]\n\n1. e4 e5 (1... c5) 2. Nf3 1-0\n\n1. d4 *\n";
/// let mut reader = Reader::new(pgn);
/// let mut v = CountMoves(0);
/// assert_eq!(reader.read_game(&mut v), Some(4));
/// assert_eq!(reader.read_game(&mut v), Some(1));
/// assert_eq!(reader.read_game(&mut v), None);
/// ```
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    /// Input up to the end of the range being read (earlier bytes are context only).
    bytes: &'a [u8],
    pos: usize,
    /// Added to every reported offset.
    base: usize,
    limits: Limits,
    problems: u32,
    brace: BraceCache,
    /// End of the farthest look-ahead for a `}` so far (see [`Reader::searched_to`]).
    searched: usize,
    /// `bytes[0]` is not the first byte of the input (see [`Reader::starting_at`]).
    mid_input: bool,
    /// The byte before `bytes[0]` does not end a line (see [`Reader::starting_at`]).
    mid_line: bool,
    /// The tags of the game being read.
    tags: TagSection<'a>,
    /// Where the movetext of the game being read starts, while it is to be checked for text that
    /// is not UTF-8 (`usize::MAX`: its tags were not UTF-8 already).
    movetext: usize,
    /// The last game ended at its result token (see [`Reader::ended_at_result`]).
    at_result: bool,
}

impl<'a> Reader<'a> {
    /// Reads `bytes` from the start; offsets are indices into `bytes`. A UTF-8 byte order mark
    /// at the start is skipped; a UTF-16 one is reported and stops the reader.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader::for_range(bytes, 0..bytes.len())
    }

    /// Reads the games in `bytes[range]`, with offsets that are indices into `bytes`.
    /// `range.start` must be 0 or the end offset of a game (as produced by
    /// [`super::split::chunks`]); the reader then reads exactly the games a sequential reader
    /// reads there. Bytes before `range.start` are only looked at to know whether a line starts.
    ///
    /// # Panics
    /// If the range is out of bounds or reversed.
    pub fn for_range(bytes: &'a [u8], range: Range<usize>) -> Reader<'a> {
        assert!(range.start <= range.end && range.end <= bytes.len());
        Reader {
            bytes: &bytes[..range.end],
            pos: range.start,
            base: 0,
            limits: Limits::default(),
            problems: 0,
            brace: BraceCache::default(),
            searched: 0,
            mid_input: false,
            mid_line: false,
            tags: TagSection::default(),
            movetext: 0,
            at_result: false,
        }
    }

    /// Reads a chunk of the input: `chunk` begins at input offset `base` (0, or the end of a
    /// game) and offsets are reported as `base + index`. The byte before the chunk is assumed to
    /// end a line (see [`Reader::starting_at`]); use [`Reader::for_range`] when the whole input
    /// is in memory.
    pub fn with_base(chunk: &'a [u8], base: usize) -> Reader<'a> {
        let mut r = Reader::new(chunk);
        r.base = base;
        r.mid_input = base > 0;
        r
    }

    /// Says where `bytes[0]` sits in the input (default: at its start). A byte order mark is
    /// looked for at offset 0 only, and a chunk that starts mid-line (a game after a result on
    /// the same line; `column` > 1) has no `%` escape line at its start.
    pub fn starting_at(mut self, offset: u64, column: u64) -> Reader<'a> {
        self.mid_input = offset > 0;
        self.mid_line = column != 1;
        self
    }

    /// Replaces the per-game budget.
    pub fn with_limits(mut self, limits: Limits) -> Reader<'a> {
        self.limits = limits;
        self
    }

    /// Offset (as reported in events) of the next byte to read; after a game, where it ended.
    pub fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// Offset just past the farthest byte examined by a look-ahead for a comment's `}` (0 if
    /// none). Every other decision looks no further than the end of the line holding the next
    /// unread byte, so a reader over a prefix of the input reads what a reader over the whole
    /// input reads as long as that line and this offset end inside the prefix.
    pub fn searched_to(&self) -> usize {
        self.base + self.searched
    }

    /// Whether the last game read ended at its result token and the comments after it, none cut
    /// short: then its end was decided by the bytes before the next unread one and that byte,
    /// not by the line it starts (a game that ends at the next game's tags looks at that line).
    /// Games run together on one line end this way, so a stream of them is cut without waiting
    /// for a line break (see [`super::split::decided`]).
    pub fn ended_at_result(&self) -> bool {
        self.at_result
    }

    /// Whether only whitespace and `%` lines remain (no further game).
    pub fn is_at_end(&mut self) -> bool {
        self.skip_between_games();
        self.pos >= self.bytes.len()
    }

    /// Skips one game; `false` at the end of the input.
    pub fn skip_game(&mut self) -> bool {
        self.read_game(&mut super::visitor::Ignore).is_some()
    }

    #[inline]
    fn off(&self, pos: usize) -> usize {
        self.base + pos
    }

    fn line_starts_at(&self, pos: usize) -> bool {
        if pos == 0 { !self.mid_line } else { matches!(self.bytes[pos - 1], b'\n' | b'\r') }
    }

    fn problem<V: Visitor<'a>>(&mut self, v: &mut V, kind: ProblemKind, pos: usize) {
        let max = self.limits.max_problems;
        if self.problems < max {
            v.problem(Problem { kind, offset: self.off(pos) });
        } else if self.problems == max {
            v.problem(Problem { kind: ProblemKind::TooManyProblems, offset: self.off(pos) });
        }
        self.problems = self.problems.saturating_add(1);
    }

    /// Skips whitespace and `%` escape lines; returns how many line breaks were crossed since
    /// the last non-whitespace content (a blank line is two).
    #[inline(always)]
    fn skip_between_games(&mut self) -> u32 {
        // One line break, then content that is no escape line (as between two tags): no call.
        if let [b'\n', c, ..] = self.bytes[self.pos.min(self.bytes.len())..]
            && class(c) != WS
            && c != b'%'
        {
            self.pos += 1;
            return 1;
        }
        self.skip_space_and_escapes()
    }

    /// [`skip_between_games`](Self::skip_between_games) in general.
    #[inline(never)]
    fn skip_space_and_escapes(&mut self) -> u32 {
        let b = self.bytes;
        let mut breaks = 0;
        loop {
            while self.pos < b.len() && class(b[self.pos]) == WS {
                match b[self.pos] {
                    b'\n' => breaks += 1,
                    b'\r' if b.get(self.pos + 1) != Some(&b'\n') => breaks += 1,
                    _ => {}
                }
                self.pos += 1;
            }
            if self.pos < b.len() && b[self.pos] == b'%' && self.line_starts_at(self.pos) {
                self.pos = line_end(b, self.pos);
                breaks = 0;
                continue;
            }
            return breaks;
        }
    }

    /// Reads one game, delivering its events to `v`; `None` at the end of the input.
    pub fn read_game<V: Visitor<'a>>(&mut self, v: &mut V) -> Option<V::Output> {
        let mut utf16 = false;
        if self.pos == 0 && !self.mid_input {
            if self.bytes.starts_with(BOM) {
                self.pos = BOM.len();
            } else if self.bytes.starts_with(b"\xff\xfe") || self.bytes.starts_with(b"\xfe\xff") {
                utf16 = true;
            }
        }
        self.skip_between_games();
        // A byte order mark inside the input (files with one joined by `cat`), wherever a chunk
        // starts.
        if self.bytes[self.pos..].starts_with(BOM) {
            self.pos += BOM.len();
            self.skip_between_games();
        }
        if self.pos >= self.bytes.len() {
            return None;
        }
        self.problems = 0;
        self.at_result = false;
        let start = self.pos;
        let lead = self.skip_leading_comments().then_some(start..self.pos);
        let emit_tags = v.begin_game(GameStart { offset: self.off(start) }).is_continue();
        if utf16 {
            self.problem(v, ProblemKind::Utf16Bom, self.pos);
            self.pos = self.bytes.len();
            return Some(v.end_game());
        }
        let header_only = self.read_tag_section(v, emit_tags);
        // Text that is not UTF-8 is flagged once a game: in the tags (and the comments before
        // them), else in the movetext (where it starts is kept in memory: a value live across
        // the movetext loop cost instructions).
        self.movetext = if self.flag_not_utf8(v, start) { usize::MAX } else { self.pos };
        let emit_moves = v.begin_movetext().is_continue();
        if let Some(lead) = lead {
            self.problem(v, ProblemKind::CommentBeforeTags, lead.start);
            self.lead_comments(v, lead.start, lead.end, emit_moves);
        }
        if header_only {
            if emit_moves {
                v.outcome(None, self.off(self.pos));
            }
        } else {
            self.read_movetext(v, emit_moves);
            if self.movetext != usize::MAX {
                self.flag_not_utf8(v, self.movetext);
            }
        }
        Some(v.end_game())
    }

    /// Reports the first byte of `from..` the position that is not UTF-8 ([`ProblemKind::NotUtf8`])
    /// and returns whether there was one: one ASCII test of the whole range (a vectorized OR,
    /// cheaper than `is_ascii`'s early exits), the look for the byte only if it fails.
    #[inline(always)]
    fn flag_not_utf8<V: Visitor<'a>>(&mut self, v: &mut V, from: usize) -> bool {
        scan::has_high_byte(&self.bytes[from..self.pos]) && self.flag_first_not_utf8(v, from)
    }

    /// [`flag_not_utf8`](Self::flag_not_utf8) for a range that is not ASCII.
    #[cold]
    #[inline(never)]
    fn flag_first_not_utf8<V: Visitor<'a>>(&mut self, v: &mut V, from: usize) -> bool {
        match std::str::from_utf8(&self.bytes[from..self.pos]) {
            Ok(_) => false,
            Err(e) => {
                self.problem(v, ProblemKind::NotUtf8, from + e.valid_up_to());
                true
            }
        }
    }

    fn read_movetext<V: Visitor<'a>>(&mut self, v: &mut V, emit: bool) {
        let b = self.bytes;
        let n = b.len();
        let max_depth = self.limits.max_depth;
        let max_tokens = self.limits.max_tokens;
        let mut tokens: u32 = 0;
        let mut depth: u32 = 0;
        // Events are delivered while `depth < quiet_from`.
        let mut quiet_from: u32 = if emit { u32::MAX } else { 0 };
        let mut outcome_sent = false;
        let mut pos = self.pos;
        // Token ends, and the ends of short comments, are found in a 64-byte window (one shift
        // and count each, where a vector search from each token's start put a load and five
        // vector steps between one token and the next).
        let mut window = Window { at: usize::MAX, ends: 0, stops: 0 };

        loop {
            while pos < n && class(b[pos]) == WS {
                pos += 1;
            }
            if pos >= n {
                break;
            }
            let c = b[pos];
            let cls = class(c);
            if cls != WS {
                tokens += 1;
                if tokens > max_tokens && quiet_from > 0 {
                    if tokens == max_tokens + 1 {
                        self.problem(v, ProblemKind::TooManyTokens, pos);
                    }
                    quiet_from = 0;
                }
            }
            let loud = depth < quiet_from;
            match cls {
                TOKEN => {
                    let start = pos;
                    if c.is_ascii_digit() {
                        let mut q = pos + 1;
                        while q < n && b[q].is_ascii_digit() {
                            q += 1;
                        }
                        if q < n && b[q] == b'.' {
                            // Move number: `12.`, `12...`, also glued as in `12.e4`.
                            while q < n && b[q] == b'.' {
                                q += 1;
                            }
                            pos = q;
                            continue;
                        }
                    }
                    let from = pos + 1;
                    let ahead = window.ahead(from, window.ends);
                    let q = if ahead != 0 {
                        from + ahead.trailing_zeros() as usize
                    } else {
                        let q = window.token_end_slow(b, from);
                        // Only a token longer than the window can be past the budget.
                        if q - start > self.limits.max_token {
                            self.problem(v, ProblemKind::TokenTooLong, start);
                            pos = q;
                            continue;
                        }
                        q
                    };
                    pos = q;
                    let tok = &b[start..q];
                    // A byte order mark before a tag line (files joined by `cat`): the next game.
                    if c == 0xEF && tok == BOM && b.get(q) == Some(&b'[') && self.line_starts_at(start) {
                        pos = start;
                        break;
                    }
                    if matches!(c, b'0' | b'1')
                        && let Some(result) = GameResult::from_ascii(tok)
                    {
                        if depth > 0 {
                            self.problem(v, ProblemKind::ResultInVariation, start);
                            continue;
                        }
                        self.lone_result(v, tokens, start);
                        if loud {
                            v.outcome(Some(result), self.off(start));
                        }
                        outcome_sent = true;
                        self.at_result = true;
                        pos = self.trailing_comments(v, pos, loud);
                        break;
                    }
                    if c != b'0' && tok.iter().all(u8::is_ascii_digit) {
                        continue; // move number without a period (`0000` is a null move)
                    }
                    // No symbol ends in a digit and nearly every move does, so that test goes first:
                    // it predicts well, where the first byte (`N`, `R` of a move or a symbol) did not.
                    if !tok[tok.len() - 1].is_ascii_digit()
                        && tok.len() <= Nag::SYMBOL_MAX_LEN
                        && matches!(c, b'+' | b'-' | b'=' | b'N' | b'R' | b'i')
                        && let Some(nag) = Nag::from_symbol(tok)
                    {
                        if loud {
                            v.nag(nag, self.off(start));
                        }
                        continue;
                    }
                    // No move ends in `.` or `p`: one test sends the rest to `move_part`.
                    let mut tok = tok;
                    if matches!(tok[tok.len() - 1], b'.' | b'p') {
                        match move_part(tok) {
                            Some(part) => tok = part,
                            None => continue,
                        }
                    }
                    if loud && v.san(SanToken { raw: tok, offset: self.off(start) }).is_break() {
                        quiet_from = 0;
                    }
                }
                LBRACE => {
                    // A one-line comment closed within 64 bytes (a lichess clock or eval, on
                    // every ply) is read here, its end from the window when the window holds it;
                    // anything longer takes the general path. (Reading it at the front of an
                    // inlined `brace_comment` instead measured 1% slower.)
                    let body = pos + 1;
                    let limit = n.min(body.saturating_add(self.limits.max_comment));
                    // The window's first stop decides, when it holds one.
                    let ahead = window.ahead(body, window.stops);
                    let stop = ahead.trailing_zeros() as usize;
                    let end = if ahead != 0 {
                        (body + stop < limit && b[body + stop] == b'}').then_some(stop)
                    } else {
                        short_comment_end(&b[body..limit])
                    };
                    if let Some(i) = end {
                        if loud {
                            let raw = &b[body..body + i];
                            v.comment(RawComment { raw, offset: self.off(pos), kind: CommentKind::Brace });
                        }
                        pos = body + i + 1;
                    } else {
                        self.pos = pos;
                        self.brace_comment(v, loud);
                        pos = self.pos;
                    }
                }
                GLYPH => {
                    let len = if pos + 1 < n && Nag::from_glyph(&b[pos..pos + 2]).is_some() { 2 } else { 1 };
                    if loud && let Some(nag) = Nag::from_glyph(&b[pos..pos + len]) {
                        v.nag(nag, self.off(pos));
                    }
                    pos += len;
                }
                LPAREN => {
                    depth += 1;
                    if depth < quiet_from {
                        if depth > max_depth {
                            self.problem(v, ProblemKind::VariationTooDeep, pos);
                            quiet_from = depth;
                        } else if v.begin_variation(self.off(pos)).is_break() {
                            quiet_from = depth;
                        }
                    }
                    pos += 1;
                }
                RPAREN => {
                    if depth == 0 {
                        self.problem(v, ProblemKind::UnmatchedCloseParen, pos);
                    } else {
                        if depth < quiet_from {
                            v.end_variation(self.off(pos));
                        } else if depth == quiet_from {
                            quiet_from = u32::MAX;
                        }
                        depth -= 1;
                    }
                    pos += 1;
                }
                SEMI => {
                    self.pos = pos;
                    self.line_comment(v, loud);
                    pos = self.pos;
                }
                DOLLAR => {
                    let mut q = pos + 1;
                    while q < n && b[q].is_ascii_digit() {
                        q += 1;
                    }
                    match Nag::from_digits(&b[pos + 1..q]) {
                        Some(nag) if loud => v.nag(nag, self.off(pos)),
                        Some(_) => {}
                        None => self.problem(v, ProblemKind::InvalidNag, pos),
                    }
                    pos = q;
                }
                STAR => {
                    if depth > 0 {
                        self.problem(v, ProblemKind::ResultInVariation, pos);
                        pos += 1;
                        continue;
                    }
                    self.lone_result(v, tokens, pos);
                    if loud {
                        v.outcome(Some(GameResult::Unknown), self.off(pos));
                    }
                    outcome_sent = true;
                    self.at_result = true;
                    pos = self.trailing_comments(v, pos + 1, loud);
                    break;
                }
                LBRACKET => {
                    // The next game's tags, malformed ones too: read as movetext they cost two games.
                    // `[%` starts no tag: a comment's command outside its comment (`[%clk 0:01]`).
                    if self.line_starts_at(pos) && b.get(pos + 1) != Some(&b'%') {
                        break;
                    }
                    self.problem(v, ProblemKind::UnexpectedToken, pos);
                    pos = unexpected_token_end(b, pos);
                }
                PERCENT if self.line_starts_at(pos) => pos = line_end(b, pos),
                RBRACE => {
                    self.problem(v, ProblemKind::UnmatchedCloseBrace, pos);
                    pos += 1;
                }
                CTRL => {
                    self.problem(v, ProblemKind::BinaryData, pos);
                    pos = binary_data_end(b, pos);
                    break;
                }
                _ => {
                    // OTHER (and `%` not in column 1): skip the run of such bytes.
                    self.problem(v, ProblemKind::StrayBytes, pos);
                    pos = unexpected_token_end(b, pos);
                }
            }
        }
        self.pos = pos;

        if depth > 0 {
            self.problem(v, ProblemKind::UnclosedVariation, pos);
            let announced = depth.min(quiet_from.saturating_sub(1));
            for _ in 0..announced {
                v.end_variation(self.off(pos));
            }
        }
        if !outcome_sent && quiet_from > 0 {
            v.outcome(None, self.off(pos));
        }
    }

    /// Reports a result at `at` that is the game's first token in a game without tags.
    fn lone_result<V: Visitor<'a>>(&mut self, v: &mut V, tokens: u32, at: usize) {
        if tokens == 1 && self.tags.count == 0 {
            self.problem(v, ProblemKind::LoneResult, at);
        }
    }
}

/// 64 bytes of movetext from `at`, as bit masks: bit i of `ends` is set when `b[at + i]` ends a
/// token, of `stops` when it ends a one-line comment (`}` or a line break).
struct Window {
    at: usize,
    ends: u64,
    stops: u64,
}

impl Window {
    /// `mask` (one of the window's) from `from` on; 0 when `from` lies outside the window.
    #[inline(always)]
    fn ahead(&self, from: usize, mask: u64) -> u64 {
        let rel = from.wrapping_sub(self.at);
        if rel < 64 { mask >> rel } else { 0 }
    }

    /// The end of the token whose second byte is at `from`, when it lies past the window: the
    /// window moves to `from` (if 64 bytes remain there).
    #[cfg_attr(all(target_arch = "x86_64", target_feature = "avx2"), inline(never))]
    fn token_end_slow(&mut self, b: &[u8], from: usize) -> usize {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        if let Some(block) = b.get(from..from + 64) {
            let block: &[u8; 64] = block.try_into().expect("64 bytes");
            *self = Window {
                at: from,
                ends: TOKEN_END.mask64(block),
                stops: scan::mask64_of(block, [b'}', b'\n', b'\r']),
            };
            if self.ends != 0 {
                return from + self.ends.trailing_zeros() as usize;
            }
            // A token of 64 bytes or more: the search goes on past the window.
            return from + 64 + TOKEN_END.find_in(&b[from + 64..]);
        }
        from + TOKEN_END.find_in(&b[from..])
    }
}

/// The bytes a [`ProblemKind::UnexpectedToken`] or [`ProblemKind::StrayBytes`] at `offset`
/// stands for: what the reader skipped there. `bytes` is the slice the reader read and `offset` an index into it.
///
/// ```
/// use pgnkit::pgn::reader::unexpected_token;
/// assert_eq!(unexpected_token(b"1. e4 \\$14 e5", 6), b"\\");
/// assert_eq!(unexpected_token(b"1. e4 [%clk 0:01] e5", 6), b"[%clk 0:01]");
/// ```
pub fn unexpected_token(bytes: &[u8], offset: usize) -> &[u8] {
    let at = offset.min(bytes.len());
    &bytes[at..unexpected_token_end(bytes, at)]
}

/// The bytes a [`ProblemKind::TokenTooLong`] at `offset` stands for: the tag pair or the
/// movetext token the reader skipped there. `bytes` is the slice the reader read and `offset` an
/// index into it.
///
/// ```
/// use pgnkit::pgn::reader::long_token;
/// assert_eq!(long_token(b"1. e4 Abcd e5", 6), b"Abcd");
/// assert_eq!(long_token(b"[Event \"x\"]\n[Site \"y\"]", 0), b"[Event \"x\"]");
/// ```
pub fn long_token(bytes: &[u8], offset: usize) -> &[u8] {
    let at = offset.min(bytes.len());
    let end = match bytes.get(at) {
        Some(b'[') => super::tag::parse_tag(bytes, at).end,
        Some(_) => at + 1 + TOKEN_END.find_in(&bytes[at + 1..]),
        None => at,
    };
    &bytes[at..end]
}

/// Where the bytes a [`ProblemKind::BinaryData`] at `offset` skips end: at the next line that
/// starts with a tag, else at the end of `bytes` (the slice the reader read; `offset` an index
/// into it).
///
/// ```
/// use pgnkit::pgn::reader::binary_data_end;
/// assert_eq!(binary_data_end(b"1. e4 \0\0\n\0x\n[Event \"a\"]\n", 6), 12);
/// assert_eq!(binary_data_end(b"1. e4 \0\0\n[x\n", 6), 12);
/// ```
pub fn binary_data_end(bytes: &[u8], offset: usize) -> usize {
    let at = offset.min(bytes.len());
    find_tag_line(bytes, at, bytes.len()).unwrap_or(bytes.len())
}

/// End of the unexpected token at `at`: a `[` through its `]` on the same line (to the line's
/// end without one), else the run of bytes with no meaning in movetext.
#[cold]
#[inline(never)]
fn unexpected_token_end(b: &[u8], at: usize) -> usize {
    if at >= b.len() {
        return at;
    }
    if b[at] == b'[' {
        return match memchr::memchr3(b']', b'\n', b'\r', &b[at..]) {
            Some(i) if b[at + i] == b']' => at + i + 1,
            Some(i) => at + i,
            None => b.len(),
        };
    }
    let mut p = at + 1;
    while p < b.len() && matches!(class(b[p]), OTHER | PERCENT) {
        p += 1;
    }
    p
}

/// The move in a token ending in `.` or `p`, if it holds one. A period ends a token (import
/// format): `25 ... Rc8` holds three periods of a move number indication and no move, `e5.` the
/// move `e5`. The en passant marks `e.p.` and `ep` after a move are no move; glued to one
/// (`exd6e.p.`), they stay for the SAN parser to flag.
#[cold]
#[inline(never)]
fn move_part(tok: &[u8]) -> Option<&[u8]> {
    if matches!(tok, b"e.p." | b"ep") {
        return None;
    }
    if tok.ends_with(b"e.p.") {
        return Some(tok);
    }
    let periods = tok.iter().rev().take_while(|&&c| c == b'.').count();
    (periods < tok.len()).then(|| &tok[..tok.len() - periods])
}

/// Position of the line break (`\n` or `\r`) ending the line that contains `pos`, or the end.
fn line_end(b: &[u8], pos: usize) -> usize {
    memchr::memchr2(b'\n', b'\r', &b[pos..]).map_or(b.len(), |i| pos + i)
}

#[cfg(test)]
mod tests;
