//! Game boundaries in a byte slice, for cutting a large input into game-aligned chunks.
//!
//! No purely local rule can tell a real game boundary from `{ ... \n\n[Event "..."] ... }`
//! inside a comment, so boundaries are found by a sequential scan with the reader itself
//! ([`Reader::skip_game`], which runs the same code as a full parse without delivering events).
//! Invariant: every chunk starts at 0 or at the end offset of a game of the sequential parse, so
//! [`Reader::for_range`] over the chunks yields exactly the games of one sequential parse, with
//! the same offsets and tokens (tested over every test file at many chunk sizes).
//! For parallel reading without that scan, [`guess_boundary`] guesses a start locally and
//! [`decided`] tells whether a chunk's reading can be trusted; the pipeline verifies every guess.

use std::ops::Range;

use super::{GameResult, Reader};

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
    use super::super::trace::{trace, trace_range};
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
            b"[E \"1\"]\n1. e4 e5\n\n[Event Casual Game\"]\n[E \"2\"]\n1. d4\n[bad\n(1. c4\n[%x]\n*",
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

/// Whether a reading of `bytes`, a prefix of the input, that stopped before `next` (the next
/// game's first byte) after looking for a `}` up to `searched` ([`Reader::searched_to`]) reads
/// the same whatever follows the prefix. A game that ended at its result token
/// (`at_result`, [`Reader::ended_at_result`]) was decided by the bytes before `next` and that
/// byte; any other end may have looked along the line at `next`, which must then end inside
/// `bytes` with one byte more (for a CR LF).
pub fn decided(bytes: &[u8], next: usize, searched: usize, at_result: bool) -> bool {
    let n = bytes.len();
    next < n
        && searched < n
        && (at_result || memchr::memchr2(b'\n', b'\r', &bytes[next..]).is_some_and(|i| next + i + 1 < n))
}

/// A likely game start at or after `from`: a `[` that begins a line after a blank line (LF, CR
/// LF or CR line breaks), or, in exports without blank lines between games, that opens an
/// `[Event ` tag after a line that is no tag pair, or a tag on the line after a result token.
/// Only a guess (such a line can sit inside a comment); the speculative runner verifies every
/// guess. One forward scan over the `[` bytes: linear in the distance to the answer.
pub fn guess_boundary(bytes: &[u8], from: usize) -> usize {
    let from = from.min(bytes.len());
    let brk = |b: u8| b == b'\n' || b == b'\r';
    let blank_before =
        |p: usize| p >= 2 && (bytes[p - 2] == bytes[p - 1] || (p >= 3 && &bytes[p - 3..p] == b"\n\r\n"));
    memchr::memchr_iter(b'[', &bytes[from..])
        .map(|i| from + i)
        .find(|&p| {
            p > from
                && brk(bytes[p - 1])
                && (blank_before(p)
                    || (bytes[p..].starts_with(b"[Event ") && !after_tag_line(bytes, p))
                    || (after_result(bytes, p) && super::tag::is_tag_like(bytes, p)))
        })
        .unwrap_or(bytes.len())
}

/// Whether the line before `p` (the start of a line) ends with `]`, as a tag pair does: the reader
/// takes an `[Event ` line there, with no blank line between, as the same game's tag, so a guess
/// there is wrong, and a window guessed at each line of a long run of tags would read to its end.
fn after_tag_line(bytes: &[u8], p: usize) -> bool {
    bytes[..p].trim_ascii_end().last() == Some(&b']')
}

/// Whether the text before `p` ends with a result token (then only whitespace), as a game's
/// last movetext line does.
fn after_result(bytes: &[u8], p: usize) -> bool {
    GameResult::from_ascii(super::class::last_token(bytes[..p].trim_ascii_end())).is_some()
}

/// Where the game after the one ending at `end` starts: past the whitespace and `%` lines the
/// reader skips, as [`Reader::offset`] gives it after the game (`start`: the input offset and
/// column of `bytes[0]`). A window cut there begins where its predecessor's reading ends.
pub fn next_start(bytes: &[u8], end: usize, start: (u64, u64)) -> usize {
    let mut r = Reader::for_range(bytes, end..bytes.len()).starting_at(start.0, start.1);
    r.is_at_end();
    r.offset()
}

/// How far the look-ahead of a stream chunk cut at `cut` must reach for [`decided`] to hold:
/// one byte past the end of the line where the next game starts (past the blank lines an exact
/// cut leaves before it). May lie past `bytes`: then more must be read.
pub fn look_ahead_end(bytes: &[u8], cut: usize) -> Option<usize> {
    let at = cut + bytes[cut..].iter().take_while(|&&b| super::class::is_space(b)).count();
    memchr::memchr2(b'\n', b'\r', &bytes[at..]).map(|i| at + i + 2)
}

/// The pipeline's cut (see `pipeline::chunk::Split`): from `from` (0 or the end of a game; `start`
/// is the input offset and column of `bytes[0]`), the end of the first run of whole games at least
/// `target` bytes long, and how many games it holds.
/// With `at_eof == false`, `bytes` is the prefix of a stream read so far: a game whose reading
/// was not [`decided`] by it might read differently with more input, so the cut goes before it
/// (`None`: read more).
pub fn cut(
    bytes: &[u8],
    from: usize,
    start: (u64, u64),
    target: usize,
    at_eof: bool,
) -> Option<(usize, u64)> {
    let mut r = Reader::for_range(bytes, from..bytes.len()).starting_at(start.0, start.1);
    let mut games = 0u64;
    let mut last_end = from;
    while r.skip_game() {
        let end = r.offset();
        // Where the next game starts: past whitespace and `%` lines, as the reader skips them.
        r.is_at_end();
        if !at_eof && !decided(bytes, r.offset(), r.searched_to(), r.ended_at_result()) {
            return (games > 0).then_some((last_end, games));
        }
        games += 1;
        last_end = end;
        if end - from >= target {
            return Some((end, games));
        }
    }
    // Only whitespace (or nothing) is left after the last game.
    if at_eof { Some((bytes.len(), games)) } else { (games > 0).then_some((last_end, games)) }
}

#[cfg(test)]
mod cut_tests {
    use super::*;

    #[test]
    fn cuts_whole_games_and_counts_them() {
        let pgn = b"[Event \"a\"]\n1. e4 *\n\n[Event \"b\"]\n1. d4 *\n\n[Event \"c\"]\n1. c4 *\n";
        assert_eq!(cut(pgn, 0, (0, 1), 1, true), Some((19, 1)));
        assert_eq!(cut(pgn, 0, (0, 1), 30, true), Some((40, 2)));
        assert_eq!(cut(pgn, 0, (0, 1), 10_000, true), Some((pgn.len(), 3)));
        // A stream prefix: a game is cut off only when what follows cannot change it. After the
        // last result a comment may still come (it would belong to that game), so it waits.
        assert_eq!(cut(pgn, 0, (0, 1), 10_000, false), Some((40, 2)), "the last game waits for more input");
        let more = [&pgn[..], b"[Event \"d\"]\n\n"].concat();
        assert_eq!(cut(&more, 0, (0, 1), 10_000, false), Some((61, 3)), "the next game's first line decides");
        let truncated = &pgn[..pgn.len() - 3];
        assert_eq!(
            cut(truncated, 0, (0, 1), 10_000, false),
            Some((40, 2)),
            "a game cut off by the buffer waits"
        );
        assert_eq!(cut(&pgn[..34], 0, (0, 1), 1, false), Some((19, 1)), "the next tag line was read");
        assert_eq!(
            cut(&pgn[..22], 0, (0, 1), 1, false),
            Some((19, 1)),
            "a result's game: the next byte decides"
        );
        assert_eq!(cut(&pgn[..21], 0, (0, 1), 1, false), None, "a comment may come yet");
        assert_eq!(cut(&pgn[..15], 0, (0, 1), 1, false), None);
        // A game of tags alone ends where a tag named like one of its own or `Event` follows
        // a blank line: the name decides, so the whole line must be read.
        let tags = b"[Event \"a\"]\n\n[Event \"b\"]\n*\n";
        assert_eq!(cut(&tags[..16], 0, (0, 1), 1, false), None, "`[Ev` may be a tag of the first game");
        assert_eq!(cut(&tags[..24], 0, (0, 1), 1, false), None, "the line is not complete");
        assert_eq!(cut(&tags[..25], 0, (0, 1), 1, false), None, "a CR LF may be cut");
        assert_eq!(cut(&tags[..26], 0, (0, 1), 1, false), Some((13, 1)));
        // A `}` not yet read may close a comment that, without it, would end at a tag line.
        let open = b"[Event \"a\"]\n1. e4 { x\n\n[Event \"b\"]\n1. d4 *\n\n[Event \"c\"]\n";
        assert_eq!(cut(open, 0, (0, 1), 1, false), None, "the comment's end is not decided");
        let first = next_game_start(open, 0).expect("a game");
        assert_eq!(cut(open, 0, (0, 1), 1, true), Some((first, 1)), "at the end of the input it is");
        assert_eq!(cut(b"\n\n", 0, (0, 1), 1, true), Some((2, 0)));
    }

    #[test]
    fn look_ahead_reaches_past_the_next_games_first_line() {
        let pgn = b"1-0\n\n[E \"x\"]\nabc";
        assert_eq!(look_ahead_end(pgn, 3), Some(14), "blank lines skipped, the tag line and one byte");
        assert_eq!(look_ahead_end(pgn, 5), Some(14));
        assert_eq!(look_ahead_end(&pgn[..10], 3), None, "the line is not complete yet");
        assert!(decided(pgn, 5, 0, false));
        assert!(!decided(&pgn[..10], 5, 0, false), "the line at the next game is needed");
        assert!(decided(&pgn[..6], 5, 0, true), "not after a result");
    }

    /// Games run together on one line (no line break at all), read as a stream: each is cut off
    /// as soon as the byte after its result is read, not at the end of the line.
    #[test]
    fn games_on_one_line_are_cut_at_their_results() {
        let game = "[Event \"x\"] [Result \"1-0\"] 1. e4 e5 1-0 ";
        let line = game.repeat(1000);
        let prefix = &line.as_bytes()[..10 * game.len() + 5];
        assert_eq!(cut(prefix, 0, (0, 1), 1, false), Some((game.len() - 1, 1)));
        assert_eq!(cut(prefix, 0, (0, 1), 3 * game.len(), false), Some((4 * game.len() - 1, 4)));
        let (mut from, mut games) = (0, 0);
        while let Some((end, n)) = cut(prefix, from, (0, 1), 1, false) {
            (from, games) = (end, games + n);
        }
        assert_eq!(games, 10, "every game before the last byte read");
    }
}
