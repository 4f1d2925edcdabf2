//! Cutting the input into chunks: sub-slices of a mapped file, or owned buffers read from a
//! stream. Exact cuts ([`Cut`]) never end inside a game: when no game boundary follows within a
//! chunk's worth of bytes, the chunk grows until one does (or the input ends). Speculative cuts
//! ([`Window`]) end at a guessed game start with look-ahead after it, and the runner verifies
//! them. Either way the chunks cover the input: nothing is dropped.

use std::io::Read;
use std::ops::Deref;
use std::sync::{Arc, Mutex, PoisonError};

use crate::pgn::split::guess_boundary;

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

/// Buffers handed back by dropped [`StreamBytes`], for the reader to fill again: memory already
/// mapped and initialized, where a fresh buffer of each chunk's size cost a page fault per page
/// and a zero fill.
#[derive(Debug)]
struct BufferPool {
    free: Mutex<Vec<Vec<u8>>>,
    /// Larger buffers (grown for one huge game) are freed, not kept for the rest of the run.
    largest: usize,
}

impl BufferPool {
    /// Buffers kept for reuse at most; more in flight are freed when they come back.
    const KEEP: usize = 8;

    /// A pool for chunks of about `target` bytes.
    fn new(target: usize) -> BufferPool {
        BufferPool { free: Mutex::default(), largest: 4 * target.max(64 * 1024) }
    }

    /// A buffer to fill (initialized to its length), empty when none came back yet.
    fn get(&self) -> Vec<u8> {
        self.free.lock().unwrap_or_else(PoisonError::into_inner).pop().unwrap_or_default()
    }

    /// Keeps `buf` for reuse, unless it is empty or oversized or the pool is full.
    fn put(&self, buf: Vec<u8>) {
        if buf.capacity() == 0 || buf.capacity() > self.largest {
            return;
        }
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        if free.len() < Self::KEEP {
            free.push(buf);
        }
    }
}

/// Bytes read from a stream: the first `len` bytes of a buffer that returns to its reader's pool
/// when dropped.
#[derive(Debug)]
pub struct StreamBytes {
    buf: Vec<u8>,
    len: usize,
    pool: Arc<BufferPool>,
}

impl StreamBytes {
    /// The first `len` bytes as a plain vector (the buffer leaves the pool).
    pub fn into_vec(mut self, len: usize) -> Vec<u8> {
        let mut v = std::mem::take(&mut self.buf);
        v.truncate(len.min(self.len));
        v
    }
}

impl Deref for StreamBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl Drop for StreamBytes {
    fn drop(&mut self) {
        self.pool.put(std::mem::take(&mut self.buf));
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

/// A [`Split`] at line ends: the first `lines` lines from `from` (each through its `\n`) and how
/// many there are; at the end of the input, the rest (its last line may have no line break).
pub fn line_cut(
    bytes: &[u8],
    from: usize,
    _: (u64, u64),
    lines: usize,
    at_eof: bool,
) -> Option<(usize, u64)> {
    let (mut end, mut count) = (from, 0u64);
    for i in memchr::memchr_iter(b'\n', &bytes[from..]) {
        (end, count) = (from + i + 1, count + 1);
        if count >= lines as u64 {
            return Some((end, count));
        }
    }
    // Fewer lines than asked for: the rest of the input, or more bytes to read first.
    at_eof.then(|| (bytes.len(), count + u64::from(end < bytes.len())))
}

/// A read error of a stream, with where it stopped: the bytes before `offset` were handed out
/// (and are reported on), nothing after it was read.
#[derive(Debug, thiserror::Error)]
#[error("{source} (reading stopped at byte {offset})")]
pub struct StoppedAt {
    /// Input offset (in the decompressed text) of the first byte not read.
    pub offset: u64,
    /// The reader's error.
    pub source: std::io::Error,
}

/// Bytes a stream cutter reads for a chunk of about `target`: a little past the target, so the
/// cut rarely needs a second read. A chunk is at most this long unless one game is longer.
pub(super) fn read_size(target: usize) -> usize {
    target + target / 4
}

/// A stream read into a buffer that is handed out in prefixes: what both stream cutters share.
/// A read error ends the stream; the bytes read before it are still handed out, then the error.
struct Refill<R> {
    reader: R,
    /// `buf[..filled]` is read and not yet handed out; all of `buf` is initialized.
    buf: Vec<u8>,
    filled: usize,
    pool: Arc<BufferPool>,
    /// Input offset and column of `buf[0]`.
    offset: u64,
    column: u64,
    /// The stream ended (or failed).
    done: bool,
    /// Why it failed, once `buf` is handed out.
    error: Option<std::io::Error>,
}

impl<R: Read> Refill<R> {
    /// Reads `reader`, which begins at `start` of its input, in chunks of about `target` bytes.
    fn new(reader: R, target: usize, start: Start) -> Refill<R> {
        Refill {
            reader,
            buf: Vec::new(),
            filled: 0,
            pool: Arc::new(BufferPool::new(target)),
            offset: start.offset,
            column: start.column,
            done: false,
            error: None,
        }
    }

    /// The bytes read and not yet handed out.
    fn data(&self) -> &[u8] {
        &self.buf[..self.filled]
    }

    /// Reads until at least `want` bytes are held or the stream ends.
    fn fill(&mut self, want: usize) {
        while self.filled < want && !self.done {
            let room = want.max(self.filled + 64 * 1024);
            if self.buf.len() < room {
                // Zeroes only what this buffer never held: a reused one is initialized already.
                self.buf.resize(room, 0);
            }
            match self.reader.read(&mut self.buf[self.filled..room]) {
                Ok(0) => self.done = true,
                Ok(n) => self.filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.error = Some(e);
                    self.done = true;
                }
            }
        }
    }

    /// The end of the stream once everything is handed out: `None`, or the read error, which
    /// then says where reading stopped ([`StoppedAt`]; its kind is the original error's).
    fn finish<T>(&mut self) -> Option<std::io::Result<T>> {
        let offset = self.offset + self.filled as u64;
        self.error.take().map(|source| Err(std::io::Error::new(source.kind(), StoppedAt { offset, source })))
    }

    /// The next item `cut` makes of the bytes read: it is given the reader, how many bytes it
    /// holds and whether the stream ended, and returns the item, or how many bytes to hold
    /// before it is asked again (a game longer than a chunk grows it, never dropped). `None`
    /// once everything is handed out; a read error after the bytes read before it.
    fn next_with<T>(
        &mut self,
        mut want: usize,
        mut cut: impl FnMut(&mut Refill<R>, usize, bool) -> Result<T, usize>,
    ) -> Option<std::io::Result<T>> {
        loop {
            self.fill(want);
            let (len, done) = (self.filled, self.done);
            if len == 0 {
                return self.finish();
            }
            match cut(self, len, done) {
                Ok(item) => return Some(Ok(item)),
                Err(more) => want = more,
            }
        }
    }

    /// Hands out the first `len` bytes with their input offset and column; reading goes on from
    /// `end` (bytes between `end` and `len` are look-ahead, handed out again with the next take).
    fn take(&mut self, len: usize, end: usize) -> (StreamBytes, u64, u64) {
        let rest = self.filled - end;
        let mut next = self.pool.get();
        if next.len() < rest {
            next.resize(rest, 0);
        }
        next[..rest].copy_from_slice(&self.buf[end..self.filled]);
        let buf = std::mem::replace(&mut self.buf, next);
        self.filled = rest;
        let (offset, column) = (self.offset, self.column);
        self.column = column_after(column, &buf[..end]);
        self.offset += end as u64;
        (StreamBytes { buf, len, pool: Arc::clone(&self.pool) }, offset, column)
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
}

impl<R: Read> Iterator for StreamChunks<R> {
    type Item = std::io::Result<Cut<StreamBytes>>;

    fn next(&mut self) -> Option<Self::Item> {
        let (target, split, first_game) = (self.target, self.split, self.first_game);
        let cut = self.input.next_with(read_size(target), |input, len, done| {
            let cut = split(input.data(), 0, (input.offset, input.column), target, done)
                .filter(|&(end, _)| end > 0 || done);
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
        let cut = crate::pgn::split::cut(&bytes[..reach], start, at, reach - start, false);
        if let Some((end, _)) = cut.filter(|&(end, _)| end > start) {
            let next = crate::pgn::split::next_start(&bytes[..reach], end, at);
            return if next < reach { next } else { end };
        }
        if reach == len {
            return len;
        }
        reach = start.saturating_add(2 * (reach - start)).min(len);
    }
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
            let guess = Some(guess_boundary(input.data(), target)).filter(|&g| g < len);
            let ahead =
                guess.and_then(|g| crate::pgn::split::look_ahead_end(input.data(), g).map(|l| (g, l)));
            if let Some((g, l)) = ahead.filter(|&(_, l)| l <= len) {
                return Ok(window(input, l, g, false));
            }
            if len >= 4 * target {
                // Nothing to guess from, or a guess whose line has not ended within a few
                // targets (games run together on it): an exact cut after the last game the
                // bytes read decide (they are its look-ahead), so little is left to copy on.
                let start = (input.offset, input.column);
                if let Some((end, _)) = split(input.data(), 0, start, len, false).filter(|&(end, _)| end > 0)
                {
                    // At the next game's first byte, where the releaser expects the next window.
                    let next = crate::pgn::split::next_start(input.data(), end, start);
                    return Ok(window(input, len, if next < len { next } else { end }, done));
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

    fn games(n: usize) -> Vec<u8> {
        (0..n).flat_map(|i| format!("[G \"{i}\"]\n1. e4 *\n\n").into_bytes()).collect()
    }

    #[test]
    fn slice_and_stream_cut_the_same_games() {
        let input = games(500);
        for target in [1, 7, 64, 1000, 100_000] {
            let a: Vec<Cut<&[u8]>> = slice_chunks(&input, target, toy, Start::default()).collect();
            let b: Vec<Cut<StreamBytes>> = StreamChunks::new(&input[..], target, toy, Start::default())
                .map(|r| r.expect("in-memory read"))
                .collect();
            assert_eq!(a.concat_bytes(), input);
            assert_eq!(b.concat_bytes(), input);
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

    /// Column (1-based) of `input[offset]`, the slow way.
    fn column_of(input: &[u8], offset: usize) -> u64 {
        let line = input[..offset].iter().rposition(|&b| b == b'\n' || b == b'\r').map_or(0, |i| i + 1);
        (offset - line + 1) as u64
    }

    #[test]
    fn column_after_counts_from_the_last_line_break() {
        assert_eq!(column_after(1, b"abc"), 4);
        assert_eq!(column_after(5, b"abc"), 8);
        assert_eq!(column_after(5, b"a\nbc"), 3);
        assert_eq!(column_after(5, b"a\r\n"), 1);
        assert_eq!(column_after(5, b"a\rb"), 2);
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

    /// Games run together on one line, read from a stream: chunks and windows stay about the
    /// target's size, each verified, where waiting for the line's end held the whole input.
    #[test]
    fn games_on_one_line_are_cut_as_they_come() {
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

    /// Bytes decoded before a read error are still handed out, then the error.
    #[test]
    fn streams_hand_out_what_was_read_before_an_error() {
        struct Failing<'a>(&'a [u8]);
        impl Read for Failing<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                if self.0.is_empty() {
                    return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "corrupt"));
                }
                let n = buf.len().min(self.0.len()).min(100);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let input = games(50);
        let mut covered = 0usize;
        let mut windows = StreamWindows::new(Failing(&input), 64, toy, Start::default());
        let error = loop {
            match windows.next().expect("an error ends the windows") {
                Ok(w) => covered = w.offset as usize + w.end,
                Err(e) => break e,
            }
        };
        assert_eq!(covered, input.len(), "every byte read before the error is in a window");
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
        let stopped = error.get_ref().and_then(|e| e.downcast_ref::<StoppedAt>()).expect("where it stopped");
        assert_eq!(stopped.offset, input.len() as u64);
        assert_eq!(error.to_string(), format!("corrupt (reading stopped at byte {})", input.len()));
        assert!(windows.next().is_none());

        let mut chunks = StreamChunks::new(Failing(&input), 64, toy, Start::default());
        let mut covered = 0usize;
        let error = loop {
            match chunks.next().expect("an error ends the chunks") {
                Ok(c) => covered = c.offset as usize + c.bytes.len(),
                Err(e) => break e,
            }
        };
        assert_eq!(covered, input.len(), "every byte read before the error is in a chunk");
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
        let stopped = error.get_ref().and_then(|e| e.downcast_ref::<StoppedAt>()).expect("where it stopped");
        assert_eq!(stopped.offset, input.len() as u64);
        assert!(chunks.next().is_none());
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
