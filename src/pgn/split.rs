//! Game boundaries in a byte slice, for cutting a large input into game-aligned chunks.
//!
//! No purely local rule can tell a real game boundary from `{ ... \n\n[Event "..."] ... }`
//! inside a comment, so boundaries are found by a sequential scan with the reader itself
//! ([`Reader::skip_game`], which runs the same code as a full parse without delivering events).
//! Invariant: every chunk starts at 0 or at the end offset of a game of the sequential parse, so
//! [`Reader::for_range`] over the chunks yields exactly the games of one sequential parse, with
//! the same offsets and tokens (tested over every test file at many chunk sizes).

use std::ops::Range;

use super::Reader;

/// The end offset of the game that starts at or after `from`, i.e. where the next game can be
/// read from; `None` when no game remains. `from` must be 0 or the end of a game.
pub fn next_game_start(bytes: &[u8], from: usize) -> Option<usize> {
    let mut r = Reader::for_range(bytes, from..bytes.len());
    r.skip_game().then(|| r.offset())
}

/// Splits `bytes` into consecutive ranges of whole games, each at least `target` bytes long
/// (except the last); a game larger than `target` makes its chunk larger. The ranges cover
/// `0..bytes.len()` without gaps.
///
/// ```
/// use pgnkit::pgn::split::chunks;
/// let pgn = b"[Event \"a\"]\n1. e4 *\n\n[Event \"b\"]\n1. d4 *\n";
/// let ranges: Vec<_> = chunks(pgn, 1).collect();
/// assert_eq!(ranges, [0..19, 19..pgn.len()]);
/// ```
pub fn chunks(bytes: &[u8], target: usize) -> Chunks<'_> {
    Chunks { reader: Reader::new(bytes), len: bytes.len(), target: target.max(1), start: 0 }
}

/// Iterator returned by [`chunks`].
#[derive(Debug, Clone)]
pub struct Chunks<'a> {
    reader: Reader<'a>,
    len: usize,
    target: usize,
    start: usize,
}

impl Iterator for Chunks<'_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        if self.start >= self.len {
            return None;
        }
        let start = self.start;
        loop {
            if !self.reader.skip_game() {
                self.start = self.len;
                return Some(start..self.len);
            }
            let end = self.reader.offset();
            if end - start >= self.target {
                if self.reader.is_at_end() {
                    self.start = self.len;
                    return Some(start..self.len);
                }
                self.start = end;
                return Some(start..end);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::reader::trace::{trace, trace_range};
    use super::*;

    /// Sequential parse == parse chunk by chunk, for several chunk sizes.
    pub(crate) fn assert_chunked_equals_sequential(bytes: &[u8], name: &str) {
        let whole = trace(bytes);
        for target in [1, 7, 64, 500, 4096, 1 << 16] {
            let mut games = Vec::new();
            let mut covered = 0;
            for range in chunks(bytes, target) {
                assert_eq!(range.start, covered, "{name}: gap at {target}");
                covered = range.end;
                games.extend(trace_range(bytes, range));
            }
            assert_eq!(covered, bytes.len(), "{name}: not covered at {target}");
            assert!(games == whole, "{name}: chunked parse differs at target {target}");
        }
    }

    #[test]
    fn tricky_boundaries() {
        let cases: &[&[u8]] = &[
            b"",
            b"   \n",
            b"[Event \"a\"]\n1. e4 *\n\n[Event \"b\"]\n1. d4 *\n",
            b"1. e4 {see:\n\n[Event \"q\"]\n1. d4 1-0\n} e5 *\n\n[Event \"b\"]\n1. d4 *",
            b"1. e4 {open\n\n[Event \"b\"]\n1. d4 {x} *\n\n[Event \"c\"]\n*",
            b"1-0\n1-0 {x}\n0-1\n%esc\n*\n[A \"1\"]\n\n[A \"2\"]\n\n[B \"3\"]\n",
            b"\xef\xbb\xbf1. e4 \0 garbage\n[Event \"x\"]\n*",
            b"1. e4 (((( e5\n[Event \"x\"]\n*)))",
            b" %not escape\n[E \"1\"]\n1. e4\n %x\n[E \"2\"]",
        ];
        for (i, c) in cases.iter().enumerate() {
            assert_chunked_equals_sequential(c, &format!("case {i}"));
        }
    }

    #[test]
    fn next_game_start_walks_games() {
        let pgn = b"[Event \"a\"]\n1. e4 *\n\n[Event \"b\"]\n1. d4 *\n  ";
        assert_eq!(next_game_start(pgn, 0), Some(19));
        assert_eq!(next_game_start(pgn, 19), Some(40));
        assert_eq!(next_game_start(pgn, 40), None);
    }
}
