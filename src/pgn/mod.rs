//! PGN syntax: a streaming, visitor-based reader over byte slices, raw tokens with lazy
//! decoding, game boundaries for parallel chunking, and a writer of the export format.
//!
//! The reader is pure syntax (no chess rules): it delivers tags, move tokens, NAGs, comments,
//! variations, results and diagnostics, each with its byte offset. Text is delivered as bytes;
//! [`text`] reads it as UTF-8, else Windows-1252, wherever it is written again. Line and column are computed
//! on demand from an offset with [`LineIndex`] or [`line_col`], never in the hot loop. The
//! [`Writer`] takes the same kinds of events (a move as SAN bytes with its number) and writes
//! them in the standard's export format.

pub(crate) mod class;
pub mod comment;
pub mod date;
pub mod game;
pub mod nag;
pub mod reader;
mod scan;
pub mod split;
pub mod tag;
pub mod text;
#[cfg(test)]
mod trace;
pub mod visitor;
pub mod writer;

pub use comment::{CommentKind, Eval, EvalScore, RawComment};
pub use game::{GameError, PgnGame, read_games};
pub use nag::Nag;
pub use reader::{Limits, Reader};
pub use tag::RawTag;
pub use visitor::{GameResult, GameStart, Problem, ProblemKind, SanToken, Visitor};
pub use writer::Writer;

/// A 1-based line and column (column in bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    /// 1-based line; `\n`, `\r\n` and a lone `\r` each end a line.
    pub line: usize,
    /// 1-based byte column.
    pub col: usize,
}

/// Where the first line of `bytes` ends: the length of its text and where the next line starts;
/// `None` when no line break ends it. The one rule of line breaks for every input read as lines
/// (PGN, EPD, line counts, shard starts): `\n`, `\r\n` and a lone `\r` each end a line. With
/// `more` (bytes may follow `bytes`), a `\r` that ends them may start a `\r\n`: `None` too.
///
/// ```
/// use pgnkit::pgn::line_end;
/// assert_eq!(line_end(b"ab\r\ncd", false), Some((2, 4)));
/// assert_eq!(line_end(b"ab\rcd", false), Some((2, 3)));
/// assert_eq!(line_end(b"ab\r", true), None);
/// assert_eq!(line_end(b"ab\r", false), Some((2, 3)));
/// ```
#[inline]
pub fn line_end(bytes: &[u8], more: bool) -> Option<(usize, usize)> {
    let i = memchr::memchr2(b'\n', b'\r', bytes)?;
    match bytes.get(i + 1) {
        _ if bytes[i] == b'\n' => Some((i, i + 1)),
        Some(b'\n') => Some((i, i + 2)),
        None if more => None,
        _ => Some((i, i + 1)),
    }
}

/// The line breaks in `bytes`, which no byte follows ([`line_end`]).
pub fn line_breaks(bytes: &[u8]) -> u64 {
    line_col(bytes, bytes.len()).line as u64 - 1
}

/// Line and column of `offset` in `bytes` (offsets past the end are clamped).
///
/// ```
/// use pgnkit::pgn::{line_col, LineCol};
/// assert_eq!(line_col(b"ab\r\ncd\ref", 8), LineCol { line: 3, col: 2 });
/// ```
pub fn line_col(bytes: &[u8], offset: usize) -> LineCol {
    LineIndex::new(bytes).locate(offset)
}

/// Computes line/column for increasing offsets in time linear in the distance walked
/// (queries going backwards restart from the beginning).
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    bytes: &'a [u8],
    /// Offset up to which lines were counted, and the line and line start there.
    at: usize,
    line: usize,
    line_start: usize,
    /// Columns before `bytes[0]` on its line (the text starts mid-line).
    shift: usize,
}

impl<'a> LineIndex<'a> {
    /// An index over `bytes` (nothing is precomputed).
    pub fn new(bytes: &'a [u8]) -> LineIndex<'a> {
        LineIndex::with_column(bytes, 1)
    }

    /// An index over `bytes` whose first byte is at column `column` (1-based) of its line.
    pub fn with_column(bytes: &'a [u8], column: usize) -> LineIndex<'a> {
        LineIndex { bytes, at: 0, line: 1, line_start: 0, shift: column.saturating_sub(1) }
    }

    /// Line and column of `offset`.
    pub fn locate(&mut self, offset: usize) -> LineCol {
        let offset = offset.min(self.bytes.len());
        if offset < self.at {
            *self = LineIndex::with_column(self.bytes, self.shift + 1);
        }
        let b = self.bytes;
        let hay = &b[self.at..offset];
        if memchr::memchr(b'\r', hay).is_none() {
            // LF only (the usual case): count in bulk instead of visiting each line break.
            self.line += count_byte(hay, b'\n');
            if let Some(i) = memchr::memrchr(b'\n', hay) {
                self.line_start = self.at + i + 1;
            }
            self.at = offset;
            return LineCol { line: self.line, col: self.col(offset) };
        }
        // One byte past `offset` tells a `\r` there from a `\r\n`; a break that ends past
        // `offset` is counted by the next call (`offset` on the `\n` of a `\r\n`).
        let look = b.len().min(offset + 1);
        let mut p = self.at;
        while let Some((_, next)) = line_end(&b[p..look], look < b.len()) {
            if p + next > offset {
                break;
            }
            (p, self.line, self.line_start) = (p + next, self.line + 1, p + next);
        }
        self.at = offset;
        // `offset` may sit on the `\n` of a `\r\n`: still the same line.
        LineCol { line: self.line, col: self.col(offset) }
    }

    fn col(&self, offset: usize) -> usize {
        offset - self.line_start + 1 + if self.line == 1 { self.shift } else { 0 }
    }
}

/// How many times `needle` occurs in `hay`. Shaped for the vectorizer: 32 byte-wide counters
/// gather up to 255 whole 32-byte blocks before they are summed (uneven blocks left scalar tails
/// that cost more than the vector part).
fn count_byte(hay: &[u8], needle: u8) -> usize {
    let mut blocks = hay.chunks_exact(32);
    let mut total = 0;
    loop {
        let mut lanes = [0u8; 32];
        let mut n = 0;
        for block in blocks.by_ref().take(255) {
            for (lane, &b) in lanes.iter_mut().zip(block) {
                *lane += u8::from(b == needle);
            }
            n += 1;
        }
        total += lanes.iter().map(|&c| usize::from(c)).sum::<usize>();
        if n < 255 {
            break;
        }
    }
    total + blocks.remainder().iter().filter(|&&b| b == needle).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_index_for_text_that_starts_mid_line() {
        let mut idx = LineIndex::with_column(b"ab\ncd", 7);
        assert_eq!(idx.locate(1), LineCol { line: 1, col: 8 });
        assert_eq!(idx.locate(4), LineCol { line: 2, col: 2 });
        assert_eq!(idx.locate(0), LineCol { line: 1, col: 7 }, "going back keeps the start column");
    }

    #[test]
    fn count_byte_counts_across_block_boundaries() {
        // Long enough to fill the 255-block counters more than once, with a ragged tail.
        let text: Vec<u8> =
            (0..32 * 255 * 2 + 77).map(|i| if i % 7 == 0 || i % 255 == 3 { b'\n' } else { b'x' }).collect();
        for len in [0, 1, 31, 32, 33, 32 * 255, 32 * 255 + 1, text.len()] {
            let naive = text[..len].iter().filter(|&&b| b == b'\n').count();
            assert_eq!(count_byte(&text[..len], b'\n'), naive, "length {len}");
        }
    }

    #[test]
    fn line_cols() {
        let text = b"a\nbc\r\nd\re";
        let mut idx = LineIndex::new(text);
        let expect = [(0, 1, 1), (1, 1, 2), (2, 2, 1), (4, 2, 3), (5, 2, 4), (6, 3, 1), (8, 4, 1)];
        for (off, line, col) in expect {
            assert_eq!(idx.locate(off), LineCol { line, col }, "offset {off}");
            assert_eq!(line_col(text, off), LineCol { line, col });
        }
        assert_eq!(idx.locate(0), LineCol { line: 1, col: 1 });
        assert_eq!(idx.locate(100), LineCol { line: 4, col: 2 });
    }

    /// Every string of `\r`, `\n` and `x` up to 7 bytes: [`LineIndex`], asked at each offset in
    /// turn or at one, stands where the lines [`line_end`] cuts put it, and [`line_end`] with
    /// `more` decides nothing a byte to come could change.
    #[test]
    fn line_index_counts_the_breaks_line_end_finds() {
        for len in 0..=7u32 {
            for code in 0..3usize.pow(len) {
                let text: Vec<u8> = (0..len).map(|k| b"\r\nx"[code / 3usize.pow(k) % 3]).collect();
                // Line and start of each offset by the lines line_end cuts.
                let (mut starts, mut at) = (vec![0], 0);
                while let Some((_, next)) = line_end(&text[at..], false) {
                    at += next;
                    starts.push(at);
                }
                let mut idx = LineIndex::new(&text);
                for off in 0..=text.len() {
                    // The `\n` of a `\r\n` stands on the line of its `\r`.
                    let line = starts.iter().filter(|&&s| s <= off).count();
                    let want = LineCol { line, col: off - starts[line - 1] + 1 };
                    assert_eq!(idx.locate(off), want, "{text:?} at {off}");
                    assert_eq!(line_col(&text, off), want, "{text:?} at {off}");
                }
                assert_eq!(line_breaks(&text), starts.len() as u64 - 1, "{text:?}");
                for cut in 0..=text.len() {
                    let (head, more) = (&text[..cut], cut < text.len());
                    if let Some(end) = line_end(head, more) {
                        assert_eq!(Some(end), line_end(&text, false), "{text:?} cut at {cut}");
                    }
                }
            }
        }
    }

    #[test]
    fn line_cols_of_long_lf_text_in_steps() {
        let text: Vec<u8> =
            (0..3000u32).map(|i| if i % 7 == 0 || i % 300 == 1 { b'\n' } else { b'x' }).collect();
        let mut idx = LineIndex::new(&text);
        for off in (0..=text.len()).step_by(37) {
            let line = 1 + text[..off].iter().filter(|&&c| c == b'\n').count();
            let start = text[..off].iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1);
            assert_eq!(idx.locate(off), LineCol { line, col: off - start + 1 }, "offset {off}");
        }
    }
}
