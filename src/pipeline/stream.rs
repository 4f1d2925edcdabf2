//! A stream read into a buffer that is handed out in prefixes, what both stream cutters share
//! ([`super::chunk::StreamChunks`], [`super::window::StreamWindows`]), and the buffers that go
//! back to it when the pipeline drops them.

use std::io::Read;
use std::ops::Deref;
use std::sync::{Arc, Mutex, PoisonError};

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
pub(super) struct Refill<R> {
    reader: R,
    /// `buf[..filled]` is read and not yet handed out; all of `buf` is initialized.
    buf: Vec<u8>,
    filled: usize,
    pub(super) pool: Arc<BufferPool>,
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
    pub(super) fn new(reader: R, target: usize, start: Start) -> Refill<R> {
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
    pub(super) fn data(&self) -> &[u8] {
        &self.buf[..self.filled]
    }

    /// The input offset and column of [`Refill::data`]'s first byte, as a [`super::chunk::Split`]
    /// takes them.
    pub(super) fn at(&self) -> (u64, u64) {
        (self.offset, self.column)
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
    pub(super) fn next_with<T>(
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
    pub(super) fn take(&mut self, len: usize, end: usize) -> (StreamBytes, u64, u64) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::chunk::tests::{games, toy};
    use crate::pipeline::chunk::{Start, StreamChunks};
    use crate::pipeline::window::StreamWindows;

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
}
