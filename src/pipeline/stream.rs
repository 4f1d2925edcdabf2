//! A stream read into a buffer that is handed out in prefixes, what both stream cutters share
//! ([`super::chunk::StreamChunks`], [`super::window::StreamWindows`]), and the buffers that go
//! back to it when the pipeline drops them. Past [`SPILL_AT`] bytes held (one game longer than
//! that, or text with no game boundary), the held bytes move to an unnamed temporary file,
//! mapped for reading: such a game costs disk and page cache, as a mapped file's game does, not
//! heap.

use std::fs::File;
use std::io::{Read, Write};
use std::ops::Deref;
use std::sync::{Arc, Mutex, PoisonError};

use memmap2::Mmap;

use super::chunk::{Start, column_after};

/// Buffers handed back by dropped [`StreamBytes`], for the reader to fill again: memory already
/// mapped and initialized, where a fresh buffer of each chunk's size cost a page fault per page
/// and a zero fill.
#[derive(Debug)]
pub(super) struct BufferPool {
    pub(super) free: Mutex<Vec<Vec<u8>>>,
    /// Larger buffers (grown for one huge game) are freed, not kept for the rest of the run.
    largest: usize,
}

impl BufferPool {
    /// Buffers kept for reuse at most; more in flight are freed when they come back.
    pub(super) const KEEP: usize = 8;

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

/// Bytes held past this many go to a temporary file ([`Spill`]).
pub(super) const SPILL_AT: usize = 64 << 20;

/// Bytes read from a stream: `len` bytes of a buffer that returns to its reader's pool when
/// dropped, or of a spilled stream's mapped file.
#[derive(Debug)]
pub struct StreamBytes {
    buf: Vec<u8>,
    map: Option<Arc<Mmap>>,
    start: usize,
    len: usize,
    pool: Arc<BufferPool>,
}

impl StreamBytes {
    /// The first `len` bytes as a plain vector (a heap buffer leaves the pool).
    pub fn into_vec(mut self, len: usize) -> Vec<u8> {
        let len = len.min(self.len);
        if self.map.is_some() || self.start > 0 {
            return self[..len].to_vec();
        }
        let mut v = std::mem::take(&mut self.buf);
        v.truncate(len);
        v
    }
}

impl Deref for StreamBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        let held = self.map.as_deref().map_or(&self.buf[..], |m| &m[..]);
        &held[self.start..self.start + self.len]
    }
}

impl Drop for StreamBytes {
    fn drop(&mut self) {
        self.pool.put(std::mem::take(&mut self.buf));
    }
}

/// A read error of a stream, with where it stopped: the games before `offset` were handed out
/// (and are reported on) but the one the error cut, from `left_out`; nothing after it was read.
#[derive(Debug, thiserror::Error)]
#[error("{source} (reading stopped at byte {offset}{})", left_out.map_or(String::new(), |at| format!("; the game it cut, from byte {at}, is left out")))]
pub struct StoppedAt {
    /// Input offset (in the decompressed text) of the first byte not read.
    pub offset: u64,
    /// The reader's error.
    pub source: std::io::Error,
    /// Input offset of the game the error cut, which is not handed out.
    pub left_out: Option<u64>,
}

/// Bytes a stream cutter reads for a chunk of about `target`: a little past the target, so the
/// cut rarely needs a second read. A chunk is at most this long unless one game is longer.
pub(super) fn read_size(target: usize) -> usize {
    target + target / 4
}

/// Held bytes in an unnamed temporary file (gone when the last mapping of it is dropped), mapped
/// for reading after each append.
struct Spill {
    file: File,
    map: Arc<Mmap>,
}

impl Spill {
    /// A temporary file holding `bytes`.
    fn new(bytes: &[u8]) -> std::io::Result<Spill> {
        let mut file = tempfile::tempfile()?;
        file.write_all(bytes)?;
        let map = Arc::new(Self::map(&file)?);
        Ok(Spill { file, map })
    }

    /// The file's bytes, mapped.
    fn map(file: &File) -> std::io::Result<Mmap> {
        // SAFETY: the file is unnamed and only this process writes it, by appending: no byte a
        // mapping shows ever changes.
        #[allow(unsafe_code)]
        unsafe {
            Mmap::map(file)
        }
    }
}

/// A stream read into a buffer that is handed out in prefixes: what both stream cutters share.
/// A read error ends the stream; the bytes read before it are still handed out, then the error.
/// Each byte is copied at most once between reading and handing out, so time stays linear
/// whatever the cuts (a chunk after a long game used to copy the bytes read past it anew).
pub(super) struct Refill<R> {
    reader: R,
    /// `buf[start..filled]` is read and not yet handed out (or, once spilled, the same range of
    /// the spill's mapping, `buf` then a buffer to read into); all of `buf` is initialized.
    buf: Vec<u8>,
    start: usize,
    filled: usize,
    /// Where the held bytes are once more than [`Refill::spill_at`] are wanted.
    spill: Option<Spill>,
    spill_at: usize,
    /// Bytes copied from buffer to buffer (tests).
    #[cfg(test)]
    pub(super) copied: usize,
    pub(super) pool: Arc<BufferPool>,
    /// Input offset and column of `buf[0]`.
    offset: u64,
    column: u64,
    /// The stream ended (or failed).
    done: bool,
    /// The last fill ended at a pause of the stream ([`crate::io::read_pausing`]) short of what
    /// was wanted: the cutter hands on the whole games it holds.
    paused: bool,
    /// The input offset where the held bytes ended at the last pause: what is held is cut again
    /// only once bytes past it came, so a game not yet whole is looked at once, not at every
    /// pause.
    paused_at: u64,
    /// Why it failed, once `buf` is handed out.
    error: Option<std::io::Error>,
}

impl<R: Read> Refill<R> {
    /// Reads `reader`, which begins at `start` of its input, in chunks of about `target` bytes.
    pub(super) fn new(reader: R, target: usize, start: Start) -> Refill<R> {
        Refill {
            reader,
            buf: Vec::new(),
            start: 0,
            filled: 0,
            spill: None,
            spill_at: SPILL_AT,
            #[cfg(test)]
            copied: 0,
            pool: Arc::new(BufferPool::new(target)),
            offset: start.offset,
            column: start.column,
            done: false,
            paused: false,
            paused_at: start.offset,
            error: None,
        }
    }

    /// The same, spilling past `spill_at` bytes held (tests).
    #[cfg(test)]
    pub(super) fn spilling_at(mut self, spill_at: usize) -> Refill<R> {
        self.spill_at = spill_at;
        self
    }

    /// The bytes read and not yet handed out.
    pub(super) fn data(&self) -> &[u8] {
        match &self.spill {
            Some(s) => &s.map[self.start..self.filled],
            None => &self.buf[self.start..self.filled],
        }
    }

    /// Whether the held bytes are in a temporary file (tests).
    #[cfg(test)]
    pub(super) fn spilled(&self) -> bool {
        self.spill.is_some()
    }

    /// The input offset and column of [`Refill::data`]'s first byte, as a [`super::chunk::Split`]
    /// takes them.
    pub(super) fn at(&self) -> (u64, u64) {
        (self.offset, self.column)
    }

    /// Whether the last fill ended at a pause of the stream, short of what was wanted.
    pub(super) fn paused(&self) -> bool {
        self.paused
    }

    /// The input offset where the held bytes end.
    fn end(&self) -> u64 {
        self.offset + (self.filled - self.start) as u64
    }

    /// Reads until at least `want` bytes are held, the stream ends, or it pauses.
    fn fill(&mut self, want: usize) {
        self.paused = false;
        if self.filled - self.start >= want || self.done {
            return;
        }
        if want > self.spill_at && self.spill.is_none() {
            match Spill::new(&self.buf[self.start..self.filled]) {
                Ok(s) => {
                    self.spill = Some(s);
                    (self.filled, self.start) = (self.filled - self.start, 0);
                    // The buffer that held them is freed: reading goes through a small one.
                    self.buf = vec![0; 1 << 20];
                }
                Err(e) => return self.fail(e),
            }
        }
        if self.spill.is_some() {
            return self.fill_spilled(want);
        }
        if self.start > 0 {
            // What is held moves to the front: at most a read's worth, as the cutter cuts what it
            // can before it asks for more.
            self.buf.copy_within(self.start..self.filled, 0);
            #[cfg(test)]
            {
                self.copied += self.filled - self.start;
            }
            (self.filled, self.start) = (self.filled - self.start, 0);
        }
        while self.filled < want && !self.done {
            let room = want.max(self.filled + 64 * 1024);
            if self.buf.len() < room {
                // Zeroes only what this buffer never held: a reused one is initialized already.
                self.buf.resize(room, 0);
            }
            let into = &mut self.buf[self.filled..room];
            match crate::io::read_pausing(|| self.reader.read(into)) {
                Ok(0) => self.done = true,
                Ok(n) => self.filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    self.paused = true;
                    return;
                }
                Err(e) => {
                    self.error = Some(e);
                    self.done = true;
                }
            }
        }
    }

    /// [`Refill::fill`] once spilled: reads through `buf` onto the end of the file, then maps it
    /// again.
    fn fill_spilled(&mut self, want: usize) {
        let Some(spill) = &mut self.spill else { return };
        let mut failed = None;
        while self.filled - self.start < want && !self.done {
            match self.reader.read(&mut self.buf) {
                Ok(0) => self.done = true,
                Ok(n) => match spill.file.write_all(&self.buf[..n]) {
                    Ok(()) => self.filled += n,
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                },
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.error = Some(e);
                    self.done = true;
                }
            }
        }
        // The bytes appended before a failed write are in the file, and held.
        match Spill::map(&spill.file) {
            Ok(map) => spill.map = Arc::new(map),
            Err(e) => failed = failed.or(Some(e)),
        }
        // What is held is what the mapping shows.
        self.filled = self.filled.min(spill.map.len());
        if let Some(e) = failed {
            self.fail(e);
        }
    }

    /// A buffer from the pool holding a copy of the held bytes at `range` (positions as
    /// [`Refill::data`]'s source counts them: the spill's mapping once spilled, else `buf`).
    fn copied(&mut self, range: std::ops::Range<usize>) -> Vec<u8> {
        let mut out = self.pool.get();
        if out.len() < range.len() {
            out.resize(range.len(), 0);
        }
        let held = self.spill.as_ref().map_or(&self.buf[..], |s| &s.map[..]);
        out[..range.len()].copy_from_slice(&held[range.clone()]);
        #[cfg(test)]
        {
            self.copied += range.len();
        }
        out
    }

    /// The temporary file failed: the stream ends there, with the error.
    fn fail(&mut self, e: std::io::Error) {
        let spill_at = self.spill_at >> 20;
        let message = format!("holding a game longer than {spill_at} MiB in a temporary file ($TMPDIR): {e}");
        self.error = Some(std::io::Error::new(e.kind(), message));
        self.done = true;
    }

    /// The end of the stream once everything is handed out: `None`, or the read error, which
    /// then says where reading stopped and where the game it cut starts, whose bytes held are
    /// dropped ([`StoppedAt`]; its kind is the original error's).
    fn finish<T>(&mut self) -> Option<std::io::Result<T>> {
        let offset = self.offset + (self.filled - self.start) as u64;
        let data = self.data();
        let blank = data.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let left_out = (blank < data.len()).then_some(self.offset + blank as u64);
        (self.start, self.filled) = (0, 0);
        self.spill = None;
        let stopped = |source: std::io::Error| StoppedAt { offset, source, left_out };
        self.error.take().map(|source| Err(std::io::Error::new(source.kind(), stopped(source))))
    }

    /// Whether the stream ended at a read error (not at its end): the cutters then hand out only
    /// the games the error did not cut, never the one it did as if the input ended there.
    pub(super) fn failed(&self) -> bool {
        self.done && self.error.is_some()
    }

    /// After a read error, the bytes held followed by ` [`, which ends a result token without
    /// ending a line: a cut made with more bytes to come then takes a game that ended at its
    /// result before the error as decided, and the game the error cut as not. Once spilled, the
    /// two bytes are written after the held ones in the file (the bytes held as they are if
    /// that fails).
    pub(super) fn sealed(&mut self) -> &[u8] {
        let end = self.filled + 2;
        if let Some(spill) = &mut self.spill {
            use std::io::{Seek, SeekFrom};
            let file = &mut spill.file;
            let sealed = file.seek(SeekFrom::Start(self.filled as u64)).and_then(|_| file.write_all(b" ["));
            let sealed = match sealed.and_then(|()| Spill::map(file)) {
                Ok(map) if map.len() >= end => {
                    spill.map = Arc::new(map);
                    true
                }
                _ => false,
            };
            let map = self.spill.as_ref().map(|s| &s.map[..]);
            return match map {
                Some(map) if sealed => &map[self.start..end],
                _ => self.data(),
            };
        }
        if self.buf.len() < end {
            self.buf.resize(end, 0);
        }
        self.buf[self.filled..end].copy_from_slice(b" [");
        &self.buf[self.start..end]
    }

    /// The next item `cut` makes of the bytes read: it is given the reader, how many bytes it
    /// holds and whether the stream ended, and returns the item, or how many bytes to hold
    /// before it is asked again (a game longer than a chunk grows it, never dropped). `None`
    /// once everything is handed out; a read error after the bytes read before it. A stream
    /// that pauses ([`Refill::paused`]) has what it holds cut at once (the whole games, once per
    /// bytes that came), else gives [`std::io::ErrorKind::WouldBlock`]: nothing yet, ask again.
    pub(super) fn next_with<T>(
        &mut self,
        mut want: usize,
        mut cut: impl FnMut(&mut Refill<R>, usize, bool) -> Result<T, usize>,
    ) -> Option<std::io::Result<T>> {
        let first = want;
        loop {
            // At a pause, the games held are all cut (a chunk at a time) before the stream is
            // read again.
            if !(self.paused && self.end() > self.paused_at) {
                self.fill(want);
            }
            let (len, done) = (self.filled - self.start, self.done);
            if self.paused {
                if self.end() > self.paused_at
                    && len > 0
                    && let Ok(item) = cut(self, len, false)
                {
                    return Some(Ok(item));
                }
                self.paused_at = self.end();
                return Some(Err(std::io::ErrorKind::WouldBlock.into()));
            }
            if len == 0 {
                return self.finish();
            }
            match cut(self, len, done) {
                Ok(item) => return Some(Ok(item)),
                // What is left after a read error is the game it cut.
                Err(_) if self.failed() => return self.finish(),
                // Never less than a chunk's worth: after a pause, what is held may be little.
                Err(more) => want = more.max(first),
            }
        }
    }

    /// Hands out the first `len` bytes with their input offset and column; reading goes on from
    /// `end` (bytes between `end` and `len` are look-ahead, handed out again with the next take).
    /// Copies the smaller side: the bytes kept when they are fewer than those handed out (the
    /// usual look-ahead), else those handed out (chunks cut from a long run read past a long
    /// game); a spilled stream's bytes are handed out as its mapping, with no copy.
    pub(super) fn take(&mut self, len: usize, end: usize) -> (StreamBytes, u64, u64) {
        let (offset, column) = (self.offset, self.column);
        self.column = column_after(column, &self.data()[..end]);
        self.offset += end as u64;
        let pool = Arc::clone(&self.pool);
        let rest = self.filled - self.start - end;
        if let Some(spill) = &self.spill {
            let map = Arc::clone(&spill.map);
            let bytes = StreamBytes { buf: Vec::new(), map: Some(map), start: self.start, len, pool };
            self.start += end;
            if rest < self.spill_at / 2 {
                // Back to memory: what is left is a few chunks at most.
                let next = self.copied(self.start..self.filled);
                let scratch = std::mem::replace(&mut self.buf, next);
                self.pool.put(scratch);
                (self.spill, self.start, self.filled) = (None, 0, rest);
            }
            return (bytes, offset, column);
        }
        if rest > len {
            let out = self.copied(self.start..self.start + len);
            self.start += end;
            return (StreamBytes { buf: out, map: None, start: 0, len, pool }, offset, column);
        }
        let next = self.copied(self.start + end..self.filled);
        let buf = std::mem::replace(&mut self.buf, next);
        let start = std::mem::replace(&mut self.start, 0);
        self.filled = rest;
        (StreamBytes { buf, map: None, start, len, pool }, offset, column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::chunk::tests::{games, toy};
    use crate::pipeline::chunk::{Start, StreamChunks, slice_chunks};
    use crate::pipeline::window::StreamWindows;

    /// `before` toy games, one game of `long` bytes on one line, `after` toy games.
    fn with_long_game(before: usize, long: usize, after: usize) -> Vec<u8> {
        let mut input = games(before);
        input.extend_from_slice(b"[G \"long\"]\n");
        input.extend(std::iter::repeat_n(b'x', long));
        input.extend_from_slice(b"\n\n");
        input.extend_from_slice(&games(after));
        input
    }

    /// A game longer than the spill limit is held in a temporary file and handed out mapped; the
    /// cuts are those of the input in memory, and reading goes back to memory after it.
    #[test]
    fn a_long_game_is_held_in_a_file_and_cut_as_in_memory() {
        let input = with_long_game(200, 300_000, 300);
        let slice: Vec<_> = slice_chunks(&input, 64, toy, Start::default())
            .map(|c| (c.offset, c.first_game, c.games, c.bytes.to_vec()))
            .collect();
        let mut chunks = StreamChunks::new(&input[..], 64, toy, Start::default()).spilling_at(100_000);
        let (mut stream, mut mapped) = (Vec::new(), 0);
        for c in chunks.by_ref() {
            let c = c.expect("in-memory read");
            mapped += usize::from(c.bytes.map.is_some());
            stream.push((c.offset, c.first_game, c.games, c.bytes.to_vec()));
        }
        assert_eq!(stream, slice);
        assert!(mapped >= 1, "the long game's chunk is the file's mapping");
        assert!(!chunks.refill().spilled(), "back in memory once the rest is short");

        let mut covered = 0usize;
        for w in StreamWindows::new(&input[..], 64, toy, Start::default()).spilling_at(100_000) {
            let w = w.expect("in-memory read");
            assert_eq!(w.offset as usize, covered);
            assert_eq!(&w.bytes[..], &input[covered..covered + w.bytes.len()]);
            covered += w.end;
        }
        assert_eq!(covered, input.len());
    }

    /// Each byte is copied at most once between reading and handing out, whatever the cuts: the
    /// many short chunks after a long game used to copy the bytes read past it anew each time.
    #[test]
    fn bytes_are_copied_at_most_once_whatever_the_cuts() {
        let input = with_long_game(10, 20_000, 2000);
        let mut chunks = StreamChunks::new(&input[..], 64, toy, Start::default());
        let read: Vec<u8> = chunks.by_ref().flat_map(|c| c.expect("in-memory read").bytes.to_vec()).collect();
        assert_eq!(read, input);
        let copied = chunks.refill().copied;
        assert!(copied <= input.len(), "{copied} bytes copied for {}", input.len());
    }

    /// A reader of `bytes` that fails after them.
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

    /// What each cutter hands out of `input` before its read error: the bytes covered, and the
    /// error's text and [`StoppedAt`].
    fn cut_before_an_error(input: &[u8], spill_at: usize) -> Vec<(usize, String, u64, Option<u64>)> {
        let split = crate::pgn::split::cut;
        let ended = |error: std::io::Error, covered| {
            assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
            let stopped =
                error.get_ref().and_then(|e| e.downcast_ref::<StoppedAt>()).expect("where it stopped");
            (covered, error.to_string(), stopped.offset, stopped.left_out)
        };
        let mut windows =
            StreamWindows::new(Failing(input), 64, split, Start::default()).spilling_at(spill_at);
        let mut covered = 0usize;
        let by_windows = loop {
            match windows.next().expect("an error ends the windows") {
                Ok(w) => {
                    assert_eq!(w.offset as usize, covered, "windows are contiguous");
                    covered = w.offset as usize + w.end;
                }
                Err(e) => break ended(e, covered),
            }
        };
        assert!(windows.next().is_none());
        let mut chunks = StreamChunks::new(Failing(input), 64, split, Start::default()).spilling_at(spill_at);
        let mut covered = 0usize;
        let by_chunks = loop {
            match chunks.next().expect("an error ends the chunks") {
                Ok(c) => covered = c.offset as usize + c.bytes.len(),
                Err(e) => break ended(e, covered),
            }
        };
        assert!(chunks.next().is_none());
        vec![by_windows, by_chunks]
    }

    /// The games read whole before a read error are handed out, the last too when it ended at
    /// its result; then the error, which says where reading stopped. A game the error cut is
    /// left out, where it was handed out as if the input ended there (and diagnosed as cut).
    #[test]
    fn streams_hand_out_the_games_read_whole_before_an_error() {
        let whole = games(50);
        let n = whole.len();
        // Every game read before the error; the blank lines after the last may stay.
        let blank_from =
            |covered: usize| covered <= n && whole[covered..].iter().all(u8::is_ascii_whitespace);
        for (covered, said, offset, left_out) in cut_before_an_error(&whole, SPILL_AT) {
            assert!(blank_from(covered), "{covered} of {n}");
            assert_eq!(
                (said, offset, left_out),
                (format!("corrupt (reading stopped at byte {n})"), n as u64, None)
            );
        }
        let mut cut = whole.clone();
        cut.extend_from_slice(b"[G \"cut\"]\n1. e4 e5 {a comment");
        let said = format!(
            "corrupt (reading stopped at byte {}; the game it cut, from byte {n}, is left out)",
            cut.len()
        );
        for (covered, text, offset, left_out) in cut_before_an_error(&cut, SPILL_AT) {
            assert!(blank_from(covered), "{covered} of {n}");
            assert_eq!((offset, left_out), (cut.len() as u64, Some(n as u64)));
            assert_eq!(text, said);
        }
    }

    /// The same once the bytes held are spilled: a long game that ended at its result before
    /// the error is handed out, one the error cut is left out.
    #[test]
    fn a_spilled_game_ended_before_an_error_is_handed_out() {
        let mut long = b"[G \"long\"]\n\n1. e4 {".to_vec();
        long.extend(std::iter::repeat_n(b'x', 5_000));
        long.extend_from_slice(b"} e5 1-0");
        let n = long.len();
        for (covered, said, offset, left_out) in cut_before_an_error(&long, 1_000) {
            assert_eq!((covered, offset, left_out), (n, n as u64, None), "{said}");
        }
        let mut cut = long.clone();
        cut.extend_from_slice(b"\n\n[G \"cut\"]\n1. e4 {");
        cut.extend(std::iter::repeat_n(b'y', 5_000));
        for (covered, _, offset, left_out) in cut_before_an_error(&cut, 1_000) {
            assert!(covered >= n && cut[n..covered].iter().all(u8::is_ascii_whitespace), "{covered}");
            assert_eq!((offset, left_out), (cut.len() as u64, Some(n as u64 + 2)));
        }
    }
}
