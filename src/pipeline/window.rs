//! Speculative cuts ([`Window`]): chunks that end at a guessed game start with look-ahead after
//! it, which the runner verifies on release; where nothing can be guessed, an exact cut.

use std::io::Read;

use super::chunk::{Split, Start, column_after};
use super::stream::{Refill, StreamBytes, read_size};
use crate::pgn::split::guess_boundary;

/// A chunk for the speculative runner: it owns the games that start in `bytes[..end]`; the bytes
/// after `end` are look-ahead for its last game (the rest of the input for a mapped file, one
/// line for a stream).
pub struct Window<B> {
    /// Input offset of `bytes[0]`.
    pub offset: u64,
    /// The bytes.
    pub bytes: B,
    /// Where the next window starts, relative to `bytes`.
    pub end: usize,
    /// The bytes reach the end of the input: no look-ahead is missing.
    pub complete: bool,
    /// Column (1-based) of `bytes[0]` in its line of the input.
    pub column: u64,
}

impl<B> Window<B> {
    /// The same window with its bytes converted.
    pub fn map_bytes<C>(self, f: impl FnOnce(B) -> C) -> Window<C> {
        let Window { offset, bytes, end, complete, column } = self;
        Window { offset, bytes: f(bytes), end, complete, column }
    }
}

/// Windows over a mapped input (`bytes`, which begin at `from` of it): guessed starts, each
/// window reaching to the end of `bytes`.
pub fn slice_windows(bytes: &[u8], target: usize, from: Start) -> impl Iterator<Item = Window<&[u8]>> + '_ {
    let target = target.max(1);
    let (mut start, mut column) = (0usize, from.column);
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        let end = slice_window_end(bytes, start, target, (from.offset, from.column));
        let offset = from.offset + start as u64;
        let w = Window { offset, bytes: &bytes[start..], end: end - start, complete: true, column };
        column = column_after(column, &bytes[start..end]);
        start = end;
        Some(w)
    })
}

/// Where a window of a mapped input from `start` ends: a guessed game start past `target` bytes,
/// looked for within a few targets; without one there (games run together on one line), the
/// next game's start after the last game those bytes decide, cut exactly (`at`: the offset and
/// column of `bytes[0]`), so such input is read in parallel too. The bytes looked at double
/// while a single game spans them: linear in the window.
fn slice_window_end(bytes: &[u8], start: usize, target: usize, at: (u64, u64)) -> usize {
    let len = bytes.len();
    let mut reach = start.saturating_add(4 * target).min(len);
    let guess = guess_boundary(&bytes[..reach], start + target);
    if guess < reach || reach == len {
        return guess.clamp(start + 1, len);
    }
    loop {
        if let Some(end) = exact_end(crate::pgn::split::cut, &bytes[..reach], start, at) {
            return end;
        }
        if reach == len {
            return len;
        }
        reach = start.saturating_add(2 * (reach - start)).min(len);
    }
}

/// An exact window end in `bytes`, a prefix of the input whose first byte is at `at`, for a
/// window from `from`: the next game's first byte (where the releaser expects the next window)
/// after the last game `split` says `bytes` decide; `None` when none is.
fn exact_end(split: Split, bytes: &[u8], from: usize, at: (u64, u64)) -> Option<usize> {
    let (end, _) = split(bytes, from, at, bytes.len() - from, false).filter(|&(end, _)| end > from)?;
    let next = crate::pgn::split::next_start(bytes, end, at);
    Some(if next < bytes.len() { next } else { end })
}

/// Windows read from a stream: cut at guessed starts, each with the line that follows its `end`
/// as look-ahead. Input without a guessable start (no blank line before a tag), or whose guess
/// starts a line that has not ended within a few targets (games run together on it), is cut by
/// `split` once that much has been read, so memory stays bounded; that cut assumes the window
/// starts a game, so it is verified like a guess.
pub struct StreamWindows<R> {
    input: Refill<R>,
    target: usize,
    split: Split,
}

impl<R: Read> StreamWindows<R> {
    /// Windows of about `target` bytes from `reader`, which begins at `start` of its input.
    pub fn new(reader: R, target: usize, split: Split, start: Start) -> StreamWindows<R> {
        StreamWindows { input: Refill::new(reader, target, start), target: target.max(1), split }
    }

    /// The same, spilling past `spill_at` bytes held (tests).
    #[cfg(test)]
    pub(crate) fn spilling_at(mut self, spill_at: usize) -> StreamWindows<R> {
        self.input = self.input.spilling_at(spill_at);
        self
    }
}

impl<R: Read> Iterator for StreamWindows<R> {
    type Item = std::io::Result<Window<StreamBytes>>;

    fn next(&mut self) -> Option<Self::Item> {
        let (target, split) = (self.target, self.split);
        self.input.next_with(read_size(target), |input, len, done| {
            // A guessed start, verified by the releaser with the look-ahead: the line where the
            // next game starts and one byte more (for a CR LF).
            let window = |input: &mut Refill<R>, len, end, complete| {
                let (bytes, offset, column) = input.take(len, end);
                Window { offset, bytes, end, complete, column }
            };
            if input.failed() {
                // After a read error, the games it did not cut, as a window with nothing to
                // look ahead at; the one it cut is left out.
                let at = input.at();
                return match exact_end(split, input.sealed(), 0, at).map(|e| e.min(len)) {
                    Some(end) => Ok(window(input, end, end, true)),
                    None => Err(len),
                };
            }
            let guess = Some(guess_boundary(input.data(), target)).filter(|&g| g < len);
            let ahead =
                guess.and_then(|g| crate::pgn::split::look_ahead_end(input.data(), g).map(|l| (g, l)));
            if let Some((g, l)) = ahead.filter(|&(_, l)| l <= len) {
                return Ok(window(input, l, g, false));
            }
            if len >= 4 * target || input.paused() {
                // Nothing to guess from, or a guess whose line has not ended within a few
                // targets (games run together on it), or a stream that paused: an exact cut
                // after the last game the bytes read decide (they are its look-ahead), so
                // little is left to copy on.
                if let Some(end) = exact_end(split, input.data(), 0, input.at()) {
                    return Ok(window(input, len, end, done));
                }
            }
            if done {
                let end = guess.unwrap_or(len);
                return Ok(window(input, len, end, true));
            }
            // Where an exact cut is to be made, no more than it needs: the rest is copied on.
            let more = len + len.max(64 * 1024);
            Err(if len < 4 * target { more.min(4 * target) } else { more })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::chunk::tests::{games, toy};
    use crate::pipeline::stream::BufferPool;

    /// Column (1-based) of `input[offset]`, the slow way.
    fn column_of(input: &[u8], offset: usize) -> u64 {
        let line = input[..offset].iter().rposition(|&b| b == b'\n' || b == b'\r').map_or(0, |i| i + 1);
        (offset - line + 1) as u64
    }

    #[test]
    fn stream_windows_cover_the_input_with_a_line_of_look_ahead() {
        let blank = games(300);
        // No blank line, no result before a tag: nothing to guess from, so the split cuts exactly.
        let tight: Vec<u8> = (0..300).flat_map(|i| format!("[G \"{i}\"] 1. e4\n").into_bytes()).collect();
        // No blank line, but a result before each tag line: cut at guesses.
        let results: Vec<u8> =
            (0..300).flat_map(|i| format!("[G \"{i}\"]\n1. e4 *\n").into_bytes()).collect();
        for (input, guessed) in [(blank, true), (tight, false), (results, true)] {
            for target in [1, 10, 100, 5000] {
                let mut covered = 0usize;
                for w in StreamWindows::new(&input[..], target, toy, Start::default()) {
                    let w = w.expect("in-memory read");
                    let at = w.offset as usize;
                    assert_eq!(at, covered, "windows are contiguous");
                    assert_eq!(&input[at..at + w.bytes.len()], &w.bytes[..]);
                    assert_eq!(w.column, column_of(&input, at));
                    assert!(w.end > 0 && w.end <= w.bytes.len());
                    if !w.complete {
                        let ahead = &w.bytes[w.end..];
                        let br = ahead.iter().position(|&b| b == b'\n').expect("a whole line of look-ahead");
                        if guessed {
                            assert_eq!(br + 2, ahead.len(), "the line and one byte more");
                        } else {
                            assert!(br + 2 <= ahead.len(), "an exact cut has what decided it");
                        }
                    }
                    covered += w.end;
                }
                assert_eq!(covered, input.len(), "target {target}");
            }
        }
    }

    /// A dropped window's buffer goes back to the reader, which fills it again; beyond
    /// `BufferPool::KEEP` returned buffers, and buffers grown far past the target, are freed, so
    /// memory stays bounded. Reuse changes no byte handed out.
    #[test]
    fn stream_buffers_go_back_to_the_reader() {
        let input = games(3000);
        let mut windows = StreamWindows::new(&input[..], 1000, toy, Start::default());
        let pooled = |w: &StreamWindows<&[u8]>| w.input.pool.free.lock().expect("not poisoned").len();
        let mut check = |w: &Window<StreamBytes>| {
            let at = w.offset as usize;
            assert_eq!(&input[at..at + w.bytes.len()], &w.bytes[..]);
            w.end
        };
        let first = windows.next().expect("a window").expect("in-memory read");
        let mut covered = check(&first);
        assert_eq!(pooled(&windows), 0);
        drop(first);
        assert_eq!(pooled(&windows), 1);
        let second = windows.next().expect("a window").expect("in-memory read");
        covered += check(&second);
        assert_eq!(pooled(&windows), 0, "the next read reuses it");
        let held: Vec<_> =
            Iterator::take(windows.by_ref(), 3 * BufferPool::KEEP).map(|w| w.expect("read")).collect();
        covered += held.iter().map(&mut check).sum::<usize>();
        drop(held);
        assert_eq!(pooled(&windows), BufferPool::KEEP);
        for w in windows {
            covered += check(&w.expect("in-memory read"));
        }
        assert_eq!(covered, input.len());

        // A buffer grown for one huge game is freed, not kept for the rest of the run.
        let mut input = games(3);
        input.extend(std::iter::repeat_n(b'x', 1 << 20));
        input.extend(games(3));
        let mut windows = StreamWindows::new(&input[..], 1000, toy, Start::default());
        let big = windows.find_map(|w| Some(w.expect("read")).filter(|w| w.bytes.len() > 1 << 20));
        let kept = pooled(&windows);
        drop(big.expect("the long game's window"));
        assert_eq!(pooled(&windows), kept);
    }

    /// Exports without blank lines between games (chess.com) are cut at their `[Event ` lines,
    /// mapped or streamed, so they are read in parallel and no guess needs a re-read.
    #[test]
    fn exports_without_blank_lines_are_cut_at_event_tags() {
        let input: Vec<u8> = (0..3000)
            .flat_map(|i| format!("[Event \"{i}\"]\n[Site \"x\"]\n\n1. e4 *\n").into_bytes())
            .collect();
        let mapped: Vec<_> = slice_windows(&input, 1000, Start::default()).collect();
        let streamed: Vec<_> =
            StreamWindows::new(&input[..], 1000, toy, Start::default()).map(|w| w.expect("read")).collect();
        assert!(mapped.len() > 50 && streamed.len() > 50, "{} {}", mapped.len(), streamed.len());
        for (offset, end) in
            mapped.iter().map(|w| (w.offset, w.end)).chain(streamed.iter().map(|w| (w.offset, w.end)))
        {
            let next = &input[offset as usize + end..];
            assert!(next.is_empty() || next.starts_with(b"[Event "), "cut at {}", offset as usize + end);
        }
    }

    /// An exact cut ends a game before the blank lines that follow it: the look-ahead still
    /// holds the line where the next game starts, so the releaser can verify the cut.
    #[test]
    fn exact_cuts_look_ahead_past_blank_lines() {
        // No `[` after a blank line and no `[Event `: nothing to guess, every cut is exact.
        let input: Vec<u8> =
            (0..3000).flat_map(|i| format!("[G \"{i}\"] 1. e4 *\n \n").into_bytes()).collect();
        let mut windows = 0;
        for w in StreamWindows::new(&input[..], 1000, crate::pgn::split::cut, Start::default()) {
            let w = w.expect("in-memory read");
            if !w.complete {
                assert!(reads_as_decided(&w).0, "window at {}", w.offset);
                windows += 1;
            }
        }
        assert!(windows > 10, "{windows}");
    }

    /// Whether a reading of `w`'s games, as a worker reads them, is decided by its bytes, and
    /// the input offset where it ends (where the releaser expects the next window).
    fn reads_as_decided(w: &Window<StreamBytes>) -> (bool, u64) {
        let mut r = crate::pgn::Reader::with_base(&w.bytes, 0).starting_at(w.offset, w.column);
        while !r.is_at_end() && r.offset() < w.end {
            r.skip_game();
        }
        let decided = crate::pgn::split::decided(&w.bytes, r.offset(), r.searched_to(), r.ended_at_result());
        (decided, w.offset + r.offset() as u64)
    }

    /// A stream that pauses has its whole games windowed at once, short of the target, each
    /// window decided by its bytes; then nothing is ready until more bytes come; the windows
    /// cover the input.
    #[test]
    fn a_paused_stream_hands_on_the_games_it_holds() {
        let input = games(10);
        let (first, rest) = input.split_at(input.len() / 2 + 3);
        let reader = crate::pipeline::chunk::tests::Pausing { parts: vec![first, rest], pauses: 0 };
        let mut windows = StreamWindows::new(reader, 1 << 20, crate::pgn::split::cut, Start::default());
        let w = windows.next().expect("an item").expect("the games before the pause");
        assert!(!w.complete && w.end < first.len() && reads_as_decided(&w).0, "window to {}", w.end);
        let paused = windows.next().expect("an item").err().map(|e| e.kind());
        assert_eq!(paused, Some(std::io::ErrorKind::WouldBlock), "nothing new came");
        let mut covered = w.end;
        for item in windows {
            match item {
                Ok(w) => {
                    assert_eq!(w.offset as usize, covered, "windows are contiguous");
                    covered += w.end;
                }
                Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock),
            }
        }
        assert_eq!(covered, input.len());
    }

    /// Games run together on one line: windows, streamed or mapped, stay about the target's
    /// size, each verified, where waiting for the line's end made one window of the input.
    #[test]
    fn games_on_one_line_are_cut_as_they_come() {
        let game = "[Event \"x\"] [Result \"1-0\"] 1. e4 e5 2. Nf3 Nc6 1-0 ";
        let input = game.repeat(20_000).into_bytes();
        let target = 20_000;
        let windows: Vec<_> =
            StreamWindows::new(&input[..], target, crate::pgn::split::cut, Start::default())
                .map(|w| w.expect("in-memory read"))
                .collect();
        assert!(windows.len() > 5, "{}", windows.len());
        let mapped: Vec<_> = slice_windows(&input, target, Start::default()).collect();
        assert!(mapped.len() > 5, "mapped: {}", mapped.len());
        let mut at = 0;
        for w in &mapped {
            assert_eq!(w.offset, at, "mapped windows follow each other");
            assert!(w.end <= 8 * target, "mapped window at {}: {} bytes", w.offset, w.end);
            let rest = &input[at as usize + w.end..];
            assert!(rest.is_empty() || rest.starts_with(b"[Event "), "cut at a game's start");
            at += w.end as u64;
        }
        assert_eq!(at, input.len() as u64);
        let (mut at, mut expected) = (0, 0);
        for w in &windows {
            assert_eq!(w.offset, at, "windows follow each other");
            assert_eq!(w.offset, expected, "a window starts where its predecessor's reading ends");
            assert!(w.bytes.len() <= 8 * target, "window at {}: {} bytes", w.offset, w.bytes.len());
            let (decided, next) = reads_as_decided(w);
            assert!(w.complete || decided, "window at {}", w.offset);
            (at, expected) = (at + w.end as u64, next);
        }
        assert_eq!(at, input.len() as u64);
    }

    /// A guessed start whose line is long (games run together on it after a blank line): the
    /// windows stay about the target's size, where waiting for the line's end made one window of
    /// it.
    #[test]
    fn a_guess_on_a_long_line_is_cut_exactly() {
        let target = 20_000;
        let mut input = format!("[Event \"a\"]\n1. e4 {{{}}} *\n\n", "x".repeat(30_000)).into_bytes();
        input.extend("[Event \"x\"] [Result \"1-0\"] 1. e4 e5 1-0 ".repeat(40_000).bytes());
        input.push(b'\n');
        let windows: Vec<_> =
            StreamWindows::new(&input[..], target, crate::pgn::split::cut, Start::default())
                .map(|w| w.expect("in-memory read"))
                .collect();
        let (mut at, mut expected) = (0, 0);
        for w in &windows {
            assert_eq!(w.offset, at, "windows follow each other");
            assert!(w.bytes.len() <= 8 * target, "window at {}: {} bytes", w.offset, w.bytes.len());
            let (decided, next) = reads_as_decided(w);
            assert!(w.complete || decided, "window at {}", w.offset);
            assert!(
                w.offset == expected || w.offset == 0,
                "window at {} after a reading that ended at {expected}",
                w.offset
            );
            (at, expected) = (at + w.end as u64, next);
        }
        assert_eq!(at, input.len() as u64);
        assert!(windows.len() > 10, "{}", windows.len());
    }
}
