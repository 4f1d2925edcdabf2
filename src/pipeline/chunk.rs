//! Cutting the input into chunks at exact game boundaries ([`Cut`]): sub-slices of a mapped
//! file, or owned buffers read from a stream (`pipeline::stream`). A cut never ends inside a game:
//! when no game boundary follows within a chunk's worth of bytes, the chunk grows until one does
//! (or the input ends), so the chunks cover the input and nothing is dropped. Speculative cuts
//! are [`super::window`]'s.

use std::io::Read;
#[cfg(test)]
use std::ops::Deref;

use super::stream::{Refill, read_size};
pub use super::stream::{StoppedAt, StreamBytes};
use crate::pgn::line_end;

/// Where to cut: given `bytes` whose games start at `from` (`start`: the input offset and the
/// column of `bytes[0]`, column 1 when it begins a line), the end of the first run of whole games
/// at least `target` bytes long, and how many games it holds. With `at_eof == false` the
/// bytes are a prefix of a stream: the cut must not depend on bytes not yet read (return `None`
/// to ask for more); with `at_eof == true` every byte must be taken (`Some` unless `from` is the
/// end). Supplied by the PGN layer, which knows what a game boundary is; [`line_cut`] cuts
/// inputs whose records are lines, its `target` a count of lines.
pub type Split =
    fn(bytes: &[u8], from: usize, start: (u64, u64), target: usize, at_eof: bool) -> Option<(usize, u64)>;

/// Where the bytes handed to the pipeline begin in their input: the offset, the games and line
/// breaks before them and the column of their first byte, so that the records of a run over a
/// part of an input (a shard) carry the numbers a run over the whole input gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Start {
    /// Byte offset in the (decompressed) input.
    pub offset: u64,
    /// Games before it.
    pub game: u64,
    /// Line breaks before it (a CR LF counts once).
    pub line: u64,
    /// Column (1-based) of its first byte.
    pub column: u64,
}

impl Default for Start {
    fn default() -> Start {
        Start { offset: 0, game: 0, line: 0, column: 1 }
    }
}

/// One chunk: offset in the input, index of its first game, and its bytes.
pub struct Cut<B> {
    /// Byte offset in the input.
    pub offset: u64,
    /// Index (0-based) of its first game.
    pub first_game: u64,
    /// Games in the chunk.
    pub games: u64,
    /// Column (1-based) of the chunk's first byte in its line of the input; 1: it begins a line.
    pub column: u64,
    /// The bytes.
    pub bytes: B,
}

/// The column of the byte after `bytes`, given the column of `bytes[0]`.
pub fn column_after(column: u64, bytes: &[u8]) -> u64 {
    match memchr::memrchr2(b'\n', b'\r', bytes) {
        Some(i) => (bytes.len() - i) as u64,
        None => column + bytes.len() as u64,
    }
}

/// Chunk bytes: borrowed from a mapped input, or owned when read from a stream.
pub enum ChunkBytes<'a> {
    /// A sub-slice of the input.
    Borrowed(&'a [u8]),
    /// Bytes read from a stream, in a buffer that goes back to the reader when dropped.
    Stream(StreamBytes),
    /// Bytes joined into one buffer (a reading that needed more look-ahead).
    Owned(Vec<u8>),
}

impl ChunkBytes<'_> {
    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        match self {
            ChunkBytes::Borrowed(b) => b,
            ChunkBytes::Stream(s) => s,
            ChunkBytes::Owned(v) => v,
        }
    }
}

impl<B> Cut<B> {
    /// The same chunk with its bytes converted.
    pub fn map_bytes<C>(self, f: impl FnOnce(B) -> C) -> Cut<C> {
        let Cut { offset, first_game, games, column, bytes } = self;
        Cut { offset, first_game, games, column, bytes: f(bytes) }
    }
}

/// Game-aligned chunks of a slice, each at least `target` bytes (except the last); `bytes` begin
/// at `start` of their input.
pub fn slice_chunks(
    bytes: &[u8],
    target: usize,
    split: Split,
    start: Start,
) -> impl Iterator<Item = Cut<&[u8]>> + '_ {
    let target = target.max(1);
    let (mut pos, mut first_game, mut column) = (0usize, start.game, start.column);
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let at = (start.offset + pos as u64, column);
        let (end, games) = split(bytes, pos, at, target, true).unwrap_or((bytes.len(), 0));
        let end = end.clamp(pos + 1, bytes.len());
        let offset = start.offset + pos as u64;
        let cut = Cut { offset, first_game, games, column, bytes: &bytes[pos..end] };
        column = column_after(column, cut.bytes);
        pos = end;
        first_game += games;
        Some(cut)
    })
}

/// Bytes of one line of an input cut at line ends, its line break aside: a longer line is over
/// the budget, whatever holds it: the PGN reader's token budget (`Limits::max_token`), some
/// 10,000 times an EPD record's length, and what a chunk of such lines is cut at.
pub const MAX_LINE: usize = 1 << 20;

/// A [`Split`] at line ends ([`line_end`]: `\n`, `\r\n` or a lone `\r`): the first `lines` lines
/// from `from` (each through its line break), fewer once they reach [`MAX_LINE`] bytes, and how
/// many there are; at the end of the input, the rest (its last line may have no line break). A
/// line over [`MAX_LINE`] is never held whole: it is a chunk of its own, its first piece (more
/// than [`MAX_LINE`] bytes, a record), then the rest in pieces of no record, told apart by
/// starting inside a line (`start`'s column is not 1). No cut parts a `\r` from its `\n`.
pub fn line_cut(
    bytes: &[u8],
    from: usize,
    start: (u64, u64),
    lines: usize,
    at_eof: bool,
) -> Option<(usize, u64)> {
    if start.1 != 1 {
        return rest_of_line(&bytes[from..], at_eof).map(|n| (from + n, 0));
    }
    let (mut end, mut count) = (from, 0u64);
    while count < lines as u64 && end - from < MAX_LINE {
        let line = &bytes[end..];
        // The budget's bytes, the byte after them (a line break?) and one more (its `\n`?).
        let window = &line[..line.len().min(MAX_LINE + 2)];
        let more = window.len() < line.len() || !at_eof;
        match line_end(window, more) {
            Some((text, next)) if text <= MAX_LINE => (end, count) = (end + next, count + 1),
            // Over the budget: it starts the next chunk, or is the first piece of this one.
            _ if line.len() > MAX_LINE && (window.len() > MAX_LINE + 1 || at_eof) => {
                if count > 0 {
                    break;
                }
                return first_piece(line, at_eof).map(|n| (from + n, 1));
            }
            // Fewer lines than asked for: the rest of the input, or more bytes to read first.
            _ => return at_eof.then(|| (bytes.len(), count + u64::from(end < bytes.len()))),
        }
    }
    Some((end, count))
}

/// The length of the first piece of `line`, which has no line break in its first [`MAX_LINE`]
/// + 1 bytes: the whole line when it ends within twice the budget, else more than the budget.
fn first_piece(line: &[u8], at_eof: bool) -> Option<usize> {
    piece(line, MAX_LINE, 2 * MAX_LINE, at_eof)
}

/// The length of the next piece of a line over the budget from `rest`, inside it: through its
/// line break, else [`MAX_LINE`] bytes at most.
fn rest_of_line(rest: &[u8], at_eof: bool) -> Option<usize> {
    piece(rest, 0, MAX_LINE, at_eof)
}

/// A piece of `rest`, inside a line over the budget with no line break before `from`: through the
/// line's break when it ends within `max` bytes, else `max` bytes less a `\r` that ends them (it
/// may start a `\r\n`, and the column after a `\r` is 1, [`column_after`], which reads as a line
/// start), so the piece ends inside the line; `None`: more bytes to read first.
fn piece(rest: &[u8], from: usize, max: usize, at_eof: bool) -> Option<usize> {
    let window = &rest[..rest.len().min(max)];
    match line_end(&window[from..], window.len() < rest.len() || !at_eof) {
        Some((_, next)) => Some(from + next),
        None if window.len() == max => Some(max - usize::from(window[max - 1] == b'\r')),
        None => at_eof.then_some(rest.len()),
    }
}

/// Game-aligned chunks read from a stream, as owned buffers.
pub struct StreamChunks<R> {
    input: Refill<R>,
    first_game: u64,
    target: usize,
    split: Split,
}

impl<R: Read> StreamChunks<R> {
    /// Chunks of about `target` bytes from `reader`, which begins at `start` of its input.
    pub fn new(reader: R, target: usize, split: Split, start: Start) -> StreamChunks<R> {
        let input = Refill::new(reader, target, start);
        StreamChunks { input, first_game: start.game, target: target.max(1), split }
    }

    /// The same, spilling past `spill_at` bytes held (tests).
    #[cfg(test)]
    pub(crate) fn spilling_at(mut self, spill_at: usize) -> StreamChunks<R> {
        self.input = self.input.spilling_at(spill_at);
        self
    }

    /// The stream's reader (tests).
    #[cfg(test)]
    pub(super) fn refill(&self) -> &Refill<R> {
        &self.input
    }
}

impl<R: Read> Iterator for StreamChunks<R> {
    type Item = std::io::Result<Cut<StreamBytes>>;

    fn next(&mut self) -> Option<Self::Item> {
        let (target, split, first_game) = (self.target, self.split, self.first_game);
        let cut = self.input.next_with(read_size(target), |input, len, done| {
            let cut = if input.failed() {
                // After a read error, the whole records only (lines cut one at a time).
                let at = input.at();
                let bytes = input.sealed();
                split(bytes, 0, at, target, false)
                    .or_else(|| split(bytes, 0, at, 1, false))
                    .filter(|&(end, _)| end > 0 && end <= len)
            } else {
                split(input.data(), 0, input.at(), target, done).filter(|&(end, _)| end > 0 || done)
            };
            let Some((end, games)) = cut else {
                return Err(len * 2); // a game longer than the chunk: grow, never drop
            };
            let end = if done { end.clamp(1, len) } else { end.min(len) };
            let (bytes, offset, column) = input.take(end, end);
            Ok(Cut { offset, first_game, games, column, bytes })
        });
        if let Some(Ok(c)) = &cut {
            self.first_game += c.games;
        }
        cut
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A toy splitter: a game starts at every line that starts with `[` (shared with the
    /// pipeline's tests).
    pub(crate) fn toy(
        bytes: &[u8],
        from: usize,
        _: (u64, u64),
        target: usize,
        at_eof: bool,
    ) -> Option<(usize, u64)> {
        let starts: Vec<usize> =
            (from..bytes.len()).filter(|&i| bytes[i] == b'[' && (i == 0 || bytes[i - 1] == b'\n')).collect();
        match starts.iter().position(|&s| s >= from + target) {
            Some(i) if i > 0 => Some((starts[i], i as u64)),
            _ if at_eof => Some((bytes.len(), starts.len() as u64)),
            _ => None,
        }
    }

    pub(crate) fn games(n: usize) -> Vec<u8> {
        (0..n).flat_map(|i| format!("[G \"{i}\"]\n1. e4 *\n\n").into_bytes()).collect()
    }

    /// `input` cut by `split` into chunks of `target`, mapped and streamed; each way gives the
    /// input back whole.
    fn cut_both_ways(input: &[u8], target: usize, split: Split) -> (Vec<Cut<&[u8]>>, Vec<Cut<StreamBytes>>) {
        let a: Vec<Cut<&[u8]>> = slice_chunks(input, target, split, Start::default()).collect();
        let b: Vec<Cut<StreamBytes>> = StreamChunks::new(input, target, split, Start::default())
            .map(|r| r.expect("in-memory read"))
            .collect();
        assert_eq!(a.concat_bytes(), input);
        assert_eq!(b.concat_bytes(), input);
        (a, b)
    }

    #[test]
    fn slice_and_stream_cut_the_same_games() {
        let input = games(500);
        for target in [1, 7, 64, 1000, 100_000] {
            let (a, b) = cut_both_ways(&input, target, toy);
            let heads = a.iter().map(|c| (c.first_game, c.offset, c.bytes));
            for (first_game, offset, bytes) in
                heads.chain(b.iter().map(|c| (c.first_game, c.offset, &c.bytes[..])))
            {
                let first = format!("[G \"{first_game}\"]");
                assert!(
                    bytes.starts_with(first.as_bytes()),
                    "target {target}: chunk at {offset} is game-aligned"
                );
            }
            assert_eq!(a.iter().map(|c| c.games).sum::<u64>(), 500);
            assert_eq!(b.iter().map(|c| c.games).sum::<u64>(), 500);
        }
    }

    #[test]
    fn a_game_longer_than_the_chunk_grows_it() {
        let mut input = games(3);
        input.extend(std::iter::repeat_n(b'x', 10_000));
        input.extend(games(2));
        let chunks: Vec<_> =
            StreamChunks::new(&input[..], 100, toy, Start::default()).map(|r| r.expect("read")).collect();
        assert_eq!(chunks.concat_bytes(), input);
        assert!(chunks.iter().any(|c| c.bytes.len() > 10_000));
    }

    /// Line cuts give `n` whole lines a chunk, mapped or streamed, the last line of the input
    /// with or without its line break; a line longer than a stream's read grows its chunk.
    #[test]
    fn line_cuts_give_whole_lines_n_at_a_time() {
        let long = "x".repeat(200_000);
        for tail in ["", "last line without a break"] {
            let mut input: Vec<u8> = (0..1000).flat_map(|i| format!("line {i}\r\n").into_bytes()).collect();
            input.extend(format!("{long}\n\n{tail}").as_bytes());
            let lines = 1002 + u64::from(!tail.is_empty());
            for n in [1, 3, 256, 5000] {
                let a: Vec<Cut<&[u8]>> = slice_chunks(&input, n, line_cut, Start::default()).collect();
                let b: Vec<Cut<StreamBytes>> = StreamChunks::new(&input[..], n, line_cut, Start::default())
                    .map(|r| r.expect("in-memory read"))
                    .collect();
                assert_eq!(a.concat_bytes(), input);
                assert_eq!(b.concat_bytes(), input);
                let a: Vec<(u64, u64, u64)> = a.iter().map(|c| (c.offset, c.first_game, c.games)).collect();
                let b: Vec<(u64, u64, u64)> = b.iter().map(|c| (c.offset, c.first_game, c.games)).collect();
                assert_eq!(a, b, "n {n}: the same cuts either way");
                assert!(a.iter().rev().skip(1).all(|&(_, _, games)| games == n as u64), "n {n}");
                let (_, first, last) = *a.last().expect("a chunk");
                assert_eq!(first + last, lines, "n {n}: every line counted once");
                for &(offset, first_game, _) in &a {
                    let before = &input[..offset as usize];
                    assert!(before.is_empty() || before.ends_with(b"\n"), "n {n}: starts a line");
                    assert_eq!(before.iter().filter(|&&b| b == b'\n').count() as u64, first_game, "n {n}");
                }
            }
        }
    }

    /// A line over [`MAX_LINE`] is cut in pieces of at most twice the budget, mapped or streamed:
    /// its first a record, the others none and starting inside the line whatever bytes it holds
    /// (NULs, other control bytes; a piece never ends on a `\r` that may start a `\r\n`, whose
    /// column after would read as a line start), so the lines after it are counted once each.
    #[test]
    fn a_line_over_the_budget_is_cut_in_pieces() {
        let long =
            |len: usize| -> Vec<u8> { b"\0\x0b\x0cy\x1a\x7f".iter().copied().cycle().take(len).collect() };
        let mut input = b"a\n".to_vec();
        // Its `\r\n` straddles the end of the first piece's window.
        input.extend(long(2 * MAX_LINE - 1));
        input.extend(b"\r\nb\r");
        // Over the budget by a byte, ended by a lone CR.
        input.extend(long(MAX_LINE + 1));
        input.extend(b"\rc\n");
        // Its `\r\n` straddles the end of a later piece's window.
        input.extend(long(3 * MAX_LINE - 1));
        input.extend(b"\r\n\r\r\nd");
        input.extend(long(5 * MAX_LINE / 2));
        for n in [1, 1000] {
            let (a, b) = cut_both_ways(&input, n, line_cut);
            let a: Vec<(u64, u64, u64, usize)> =
                a.iter().map(|c| (c.offset, c.first_game, c.column, c.bytes.len())).collect();
            let b: Vec<(u64, u64, u64, usize)> =
                b.iter().map(|c| (c.offset, c.first_game, c.column, c.bytes.len())).collect();
            assert_eq!(a, b, "n {n}: the same cuts either way");
            assert!(a.iter().all(|&(_, _, _, len)| len <= 2 * MAX_LINE), "n {n}: {a:?}");
            // Where each line starts, and the lines before it: one record a line, the long ones too.
            let starts: Vec<(u64, u64)> =
                a.iter().filter(|&&(_, _, column, _)| column == 1).map(|&(o, g, _, _)| (o, g)).collect();
            let at = |s: &[u8]| input.windows(s.len()).position(|w| w == s).expect("in input") as u64;
            let lines = [(2, 1), (at(b"b\r"), 2), (at(b"b\r") + 2, 3), (at(b"c\n"), 4), (at(b"c\n") + 2, 5)];
            // Two empty lines, a lone CR's and a CR LF's, then the last.
            let end = at(b"\r\r\nd");
            let two = if n == 1 { vec![(end, 6), (end + 1, 7)] } else { vec![(end, 6)] };
            for (offset, before) in lines.into_iter().chain(two).chain([(end + 3, 8)]) {
                assert!(
                    starts.contains(&(offset, before)),
                    "n {n}: line {} at a chunk start: {a:?}",
                    before + 1
                );
            }
            assert_eq!(starts.len(), if n == 1 { 9 } else { 8 }, "n {n}: no other line starts: {a:?}");
            let (_, first, _, _) = *a.last().expect("a chunk");
            assert_eq!(first, 9, "n {n}: the last line counted once");
        }
    }

    /// A lone `\r` ends a line as `\n` and `\r\n` do; a `\r` that ends the bytes read so far
    /// waits for the next byte, which may make it a `\r\n`.
    #[test]
    fn a_lone_cr_ends_a_line_and_a_cr_lf_is_never_parted() {
        let cut = |bytes: &[u8], lines, at_eof| line_cut(bytes, 0, (0, 1), lines, at_eof);
        assert_eq!(cut(b"a\rb\n", 1, true), Some((2, 1)));
        assert_eq!(cut(b"a\rb\n", 5, true), Some((4, 2)));
        assert_eq!(cut(b"a\r\rb", 2, false), Some((3, 2)), "a line between two CRs");
        assert_eq!(cut(b"a\r", 1, false), None, "a CR at the end of what was read: more");
        assert_eq!(cut(b"a\r", 1, true), Some((2, 1)));
        assert_eq!(cut(b"a\r\nb", 1, false), Some((3, 1)));
        let mut input = Vec::new();
        for i in 0..300 {
            input.extend(format!("line {i}").as_bytes());
            input.extend([&b"\n"[..], b"\r", b"\r\n"][i % 3]);
        }
        for n in [1, 2, 7, 1000] {
            let (a, b) = cut_both_ways(&input, n, line_cut);
            for (offset, first_game) in
                a.iter().map(|c| (c.offset, c.first_game)).chain(b.iter().map(|c| (c.offset, c.first_game)))
            {
                let line = format!("line {first_game}");
                assert!(input[offset as usize..].starts_with(line.as_bytes()), "n {n}: at {offset}");
            }
        }
    }

    #[test]
    fn column_after_counts_from_the_last_line_break() {
        assert_eq!(column_after(1, b"abc"), 4);
        assert_eq!(column_after(5, b"abc"), 8);
        assert_eq!(column_after(5, b"a\nbc"), 3);
        assert_eq!(column_after(5, b"a\r\n"), 1);
        assert_eq!(column_after(5, b"a\rb"), 2);
    }

    /// Games run together on one line, read from a stream: chunks stay about the target's size
    /// and come out as the games are read, where waiting for the line's end held the whole input.
    #[test]
    fn games_on_one_line_are_chunked_as_they_come() {
        let game = "[Event \"x\"] [Result \"1-0\"] 1. e4 e5 2. Nf3 Nc6 1-0 ";
        let input = game.repeat(20_000).into_bytes();
        let target = 20_000;
        // How far the stream was read when each chunk came out: the chunk and a few reads more.
        let read = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = Counted { bytes: &input, read: std::sync::Arc::clone(&read) };
        let chunks: Vec<_> = StreamChunks::new(counted, target, crate::pgn::split::cut, Start::default())
            .map(|c| c.expect("in-memory read"))
            .inspect(|c| {
                let ahead =
                    read.load(std::sync::atomic::Ordering::Relaxed) - (c.offset as usize + c.bytes.len());
                assert!(ahead <= 8 * target, "chunk at {}: {ahead} bytes read ahead", c.offset);
            })
            .collect();
        assert_eq!(chunks.concat_bytes(), input);
        assert_eq!(chunks.iter().map(|c| c.games).sum::<u64>(), 20_000);
        assert!(
            chunks.iter().all(|c| c.bytes.len() <= 2 * target),
            "{}",
            chunks.iter().map(|c| c.bytes.len()).max().unwrap_or(0)
        );
    }

    /// A reader that gives `parts` one after the other, with a pause between two: its next two
    /// reads fail with `WouldBlock`, as a plain stream that stops coming fails a pausing read
    /// (tests of both cutters).
    pub(crate) struct Pausing<'a> {
        pub(crate) parts: Vec<&'a [u8]>,
        pub(crate) pauses: u32,
    }

    impl Read for Pausing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.pauses > 0 {
                self.pauses -= 1;
                return Err(std::io::ErrorKind::WouldBlock.into());
            }
            let Some(part) = self.parts.first_mut() else { return Ok(0) };
            let n = part.read(buf)?;
            if part.is_empty() {
                self.parts.remove(0);
                self.pauses = 2;
            }
            Ok(n)
        }
    }

    /// A stream that pauses has the whole games it holds cut at once, short of the target (the
    /// last waits: what follows may still be its), then says nothing is ready until more bytes
    /// come; no game is lost or cut twice.
    #[test]
    fn a_paused_stream_hands_on_the_games_it_holds() {
        let input = games(10);
        let (first, rest) = input.split_at(input.len() / 2 + 3);
        let reader = Pausing { parts: vec![first, rest], pauses: 0 };
        let mut chunks = StreamChunks::new(reader, 1 << 20, crate::pgn::split::cut, Start::default());
        let c = chunks.next().expect("an item").expect("the games before the pause");
        let held = std::str::from_utf8(&c.bytes).expect("text");
        assert_eq!(c.games, 5, "five games and a part were read: {held}");
        let paused = chunks.next().expect("an item").err().map(|e| e.kind());
        assert_eq!(paused, Some(std::io::ErrorKind::WouldBlock), "nothing new came");
        let mut all = c.bytes.to_vec();
        let mut games = c.games;
        for item in chunks {
            match item {
                Ok(c) => {
                    all.extend_from_slice(&c.bytes);
                    games += c.games;
                }
                Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock),
            }
        }
        assert_eq!((all, games), (input.clone(), 10));
    }

    /// More than a chunk held at a pause: every whole game is handed on, a chunk at a time,
    /// before the stream is read again.
    #[test]
    fn a_pause_hands_on_every_chunk_held() {
        let input = games(10);
        let (first, rest) = input.split_at(input.len() / 2 + 3);
        let reader = Pausing { parts: vec![first, rest], pauses: 0 };
        let mut chunks = StreamChunks::new(reader, 20, crate::pgn::split::cut, Start::default());
        let mut before_pause = 0;
        for item in chunks.by_ref() {
            match item {
                Ok(c) => before_pause += c.games,
                Err(e) => {
                    assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock);
                    break;
                }
            }
        }
        assert_eq!(before_pause, 5, "the five whole games read");
        let after: u64 = chunks.filter_map(Result::ok).map(|c| c.games).sum();
        assert_eq!(before_pause + after, 10);
    }

    /// A reader over `bytes` that counts what it gave.
    struct Counted<'a> {
        bytes: &'a [u8],
        read: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    }

    impl Read for Counted<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.bytes.read(buf)?;
            self.read.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            Ok(n)
        }
    }

    trait Concat {
        fn concat_bytes(&self) -> Vec<u8>;
    }
    impl<B: Deref<Target = [u8]>> Concat for Vec<Cut<B>> {
        fn concat_bytes(&self) -> Vec<u8> {
            let mut v = Vec::new();
            for c in self {
                assert_eq!(c.offset as usize, v.len(), "offsets are contiguous");
                v.extend_from_slice(&c.bytes);
            }
            v
        }
    }
}
