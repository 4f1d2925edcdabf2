//! Cutting the input into game-aligned chunks: sub-slices of a mapped file, or owned buffers read
//! from a stream. A chunk never ends inside a game: when no game boundary follows within a
//! chunk's worth of bytes, the chunk grows until one does (or the input ends). Nothing is dropped.

use std::io::Read;

/// Where to cut: given `bytes` whose games start at `from`, the end of the first run of whole
/// games at least `target` bytes long, and how many games it holds. With `at_eof == false` the
/// bytes are a prefix of a stream: the cut must not depend on bytes not yet read (return `None`
/// to ask for more); with `at_eof == true` every byte must be taken (`Some` unless `from` is the
/// end). Supplied by the PGN layer, which knows what a game boundary is.
pub type Split = fn(bytes: &[u8], from: usize, target: usize, at_eof: bool) -> Option<(usize, u64)>;

/// One chunk: offset in the input, index of its first game, and its bytes.
pub struct Cut<B> {
    /// Byte offset in the input.
    pub offset: u64,
    /// Index (0-based) of its first game.
    pub first_game: u64,
    /// Games in the chunk.
    pub games: u64,
    /// The bytes.
    pub bytes: B,
}

/// Chunk bytes: borrowed from a mapped input, or owned when read from a stream.
pub enum ChunkBytes<'a> {
    /// A sub-slice of the input.
    Borrowed(&'a [u8]),
    /// Bytes read from a stream.
    Owned(Vec<u8>),
}

impl ChunkBytes<'_> {
    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        match self {
            ChunkBytes::Borrowed(b) => b,
            ChunkBytes::Owned(v) => v,
        }
    }
}

impl Cut<ChunkBytes<'_>> {
    /// The same chunk with its bytes borrowed.
    pub fn borrow(&self) -> Cut<&[u8]> {
        Cut {
            offset: self.offset,
            first_game: self.first_game,
            games: self.games,
            bytes: self.bytes.as_slice(),
        }
    }
}

/// Game-aligned chunks of a slice, each at least `target` bytes (except the last).
pub fn slice_chunks(bytes: &[u8], target: usize, split: Split) -> impl Iterator<Item = Cut<&[u8]>> + '_ {
    let target = target.max(1);
    let (mut pos, mut first_game) = (0usize, 0u64);
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let (end, games) = split(bytes, pos, target, true).unwrap_or((bytes.len(), 0));
        let end = end.clamp(pos + 1, bytes.len());
        let cut = Cut { offset: pos as u64, first_game, games, bytes: &bytes[pos..end] };
        pos = end;
        first_game += games;
        Some(cut)
    })
}

/// Game-aligned chunks read from a stream, as owned buffers.
pub struct StreamChunks<R> {
    reader: R,
    carry: Vec<u8>,
    offset: u64,
    first_game: u64,
    target: usize,
    split: Split,
    done: bool,
}

impl<R: Read> StreamChunks<R> {
    /// Chunks of about `target` bytes from `reader`.
    pub fn new(reader: R, target: usize, split: Split) -> StreamChunks<R> {
        StreamChunks {
            reader,
            carry: Vec::new(),
            offset: 0,
            first_game: 0,
            target: target.max(1),
            split,
            done: false,
        }
    }

    /// Reads until `buf` holds at least `want` bytes or the stream ends.
    fn fill(&mut self, buf: &mut Vec<u8>, want: usize) -> std::io::Result<()> {
        while buf.len() < want && !self.done {
            let old = buf.len();
            buf.resize(want.max(old + 64 * 1024), 0);
            match self.reader.read(&mut buf[old..]) {
                Ok(0) => {
                    buf.truncate(old);
                    self.done = true;
                }
                Ok(n) => buf.truncate(old + n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => buf.truncate(old),
                Err(e) => {
                    buf.truncate(old);
                    return Err(e);
                }
            }
        }
        Ok(())
    }
}

impl<R: Read> Iterator for StreamChunks<R> {
    type Item = std::io::Result<Cut<Vec<u8>>>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut buf = std::mem::take(&mut self.carry);
        // Read a little past the target so the cut rarely needs a second read.
        let mut want = self.target + self.target / 4;
        loop {
            if let Err(e) = self.fill(&mut buf, want) {
                return Some(Err(e));
            }
            if buf.is_empty() {
                return None;
            }
            let cut = (self.split)(&buf, 0, self.target, self.done).filter(|&(end, _)| end > 0 || self.done);
            if let Some((end, games)) = cut {
                let end = if self.done { end.clamp(1, buf.len()) } else { end.min(buf.len()) };
                self.carry = buf.split_off(end);
                let c = Cut { offset: self.offset, first_game: self.first_game, games, bytes: buf };
                self.offset += c.bytes.len() as u64;
                self.first_game += games;
                return Some(Ok(c));
            }
            want = buf.len() * 2; // a game longer than the chunk: grow, never drop
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A toy splitter: a game starts at every line that starts with `[` (shared with the
    /// pipeline's tests).
    pub(crate) fn toy(bytes: &[u8], from: usize, target: usize, at_eof: bool) -> Option<(usize, u64)> {
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
            let a: Vec<Cut<Vec<u8>>> = slice_chunks(&input, target, toy)
                .map(|c| Cut {
                    offset: c.offset,
                    first_game: c.first_game,
                    games: c.games,
                    bytes: c.bytes.to_vec(),
                })
                .collect();
            let b: Vec<Cut<Vec<u8>>> =
                StreamChunks::new(&input[..], target, toy).map(|r| r.expect("in-memory read")).collect();
            assert_eq!(a.concat_bytes(), input);
            assert_eq!(b.concat_bytes(), input);
            for c in a.iter().chain(&b) {
                let first = format!("[G \"{}\"]", c.first_game);
                assert!(
                    c.bytes.starts_with(first.as_bytes()),
                    "target {target}: chunk at {} is game-aligned",
                    c.offset
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
        let chunks: Vec<_> = StreamChunks::new(&input[..], 100, toy).map(|r| r.expect("read")).collect();
        assert_eq!(chunks.concat_bytes(), input);
        assert!(chunks.iter().any(|c| c.bytes.len() > 10_000));
    }

    trait Concat {
        fn concat_bytes(&self) -> Vec<u8>;
    }
    impl Concat for Vec<Cut<Vec<u8>>> {
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
