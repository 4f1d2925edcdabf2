//! A chunk's records past [`SPILL_BYTES`] or [`SPILL_RECORDS`] wait in a temporary file, in
//! parts, so a worker's memory stays bounded whatever a game's length (one game of 8M plies is
//! 1.2 GB of JSON Lines); the release side reads the parts back one at a time, in order, then
//! the records still in memory. A game's records start a part of their own once any of them
//! is spilled, so a game dropped at its end (filters, `--skip-errors`) is cut off the file whole.

use std::fs::File;
use std::io::{self, BufReader, Read, Write};

use super::{PositionsChunk, RecordKey};
use crate::columnar::spool::{get_group, put_group};
use crate::error::Error;
use crate::io::sort::read_or_end;
use crate::io::spill::SpillFile;
use crate::jobs::keys::Packed;

/// Bytes of rendered records (or of a table's text), and records (their keys and rows count
/// too), a chunk holds in memory at most.
pub use crate::io::spill::{SPILL_BYTES, SPILL_RECORDS};

/// Where a chunk's records are cut into parts: its bytes, its keys, its rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Marks {
    pub bytes: usize,
    pub keys: usize,
    pub records: u64,
}

impl Marks {
    /// The ends of what `chunk` holds in memory.
    pub fn end(chunk: &PositionsChunk) -> Marks {
        Marks { bytes: chunk.bytes.len(), keys: chunk.keys.len(), records: chunk.records }
    }
}

/// The parts of a chunk's records written so far.
#[derive(Debug)]
pub struct Spilled {
    file: SpillFile,
}

impl Spilled {
    fn new() -> io::Result<Spilled> {
        Ok(Spilled { file: SpillFile::new()? })
    }

    /// The length of the file: where the next part starts.
    pub(super) fn len(&self) -> u64 {
        self.file.len()
    }

    /// Writes the records of `chunk` between `from` and `to` as a part: their count, their
    /// bytes, their keys (ends counted from the part's start) and their rows.
    fn put(&mut self, chunk: &PositionsChunk, from: Marks, to: Marks) -> io::Result<()> {
        let mut head = Vec::with_capacity(24);
        head.extend_from_slice(&(to.records - from.records).to_le_bytes());
        head.extend_from_slice(&((to.bytes - from.bytes) as u64).to_le_bytes());
        head.extend_from_slice(&((to.keys - from.keys) as u64).to_le_bytes());
        let out = &mut self.file;
        out.write_all(&head)?;
        out.write_all(&chunk.bytes[from.bytes..to.bytes])?;
        // A key's end counts rows in a table, bytes in text (a table of no columns).
        let table = !chunk.table.columns.is_empty();
        let base = if table { from.records as usize } else { from.bytes };
        for k in &chunk.keys[from.keys..to.keys] {
            out.write_all(Packed::of(k.hash, &k.key).bytes())?;
            out.write_all(&((k.end - base) as u64).to_le_bytes())?;
        }
        let rows = if table { from.records as usize..to.records as usize } else { 0..0 };
        put_group(out, &chunk.table, rows)
    }

    /// Drops every part from `len` on (a dropped game's).
    fn cut(&mut self, len: u64) -> io::Result<()> {
        self.file.cut(len)
    }

    /// The parts, to read back in order.
    pub fn parts(self) -> io::Result<Parts> {
        Ok(Parts { input: self.file.reader()? })
    }
}

/// Reads a chunk's spilled parts back.
pub struct Parts {
    input: BufReader<File>,
}

impl Parts {
    /// Fills `part` (emptied first; its table of the chunk's schema) with the next part; `false`
    /// at the end.
    pub fn next(&mut self, part: &mut PositionsChunk) -> io::Result<bool> {
        let input = &mut self.input;
        let mut word = [0u8; 8];
        if !read_or_end(input, &mut word)? {
            return Ok(false);
        }
        part.records = u64::from_le_bytes(word);
        input.read_exact(&mut word)?;
        part.bytes.resize(u64::from_le_bytes(word) as usize, 0);
        input.read_exact(&mut word)?;
        let keys = u64::from_le_bytes(word);
        input.read_exact(&mut part.bytes)?;
        part.keys.clear();
        for _ in 0..keys {
            input.read_exact(&mut word)?;
            let hash = u64::from_le_bytes(word);
            let key = Packed::read_key(input)?;
            input.read_exact(&mut word)?;
            part.keys.push(RecordKey { hash, key, end: u64::from_le_bytes(word) as usize });
        }
        if !get_group(input, &mut part.table)? {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "a temporary file was cut short"));
        }
        Ok(true)
    }
}

/// Spills a worker's records as they grow, keeping the marks of the current game's start.
#[derive(Debug)]
pub(super) struct Spiller {
    /// Bytes and records held in memory past which they are spilled.
    bytes: usize,
    records: u64,
    /// Where the current game's records start in memory.
    pub game: Marks,
    /// Where they start in the spilled parts, once some of them are there.
    game_spilled: Option<u64>,
    /// Spilling failed: the chunk's output is an error.
    pub error: Option<io::Error>,
}

impl Spiller {
    /// Spills past `bytes` bytes or `records` records held.
    pub fn new(bytes: usize, records: u64) -> Spiller {
        Spiller { bytes, records, game: Marks::default(), game_spilled: None, error: None }
    }

    /// Whether `chunk` holds too much in memory.
    #[inline]
    pub fn full(&self, chunk: &PositionsChunk) -> bool {
        chunk.bytes.len() >= self.bytes
            || chunk.records >= self.records
            || (!chunk.table.columns.is_empty() && chunk.table.text_bytes() >= self.bytes)
    }

    /// Moves what `chunk` holds in memory to its spilled parts; the game's records start a part.
    pub fn spill(&mut self, chunk: &mut PositionsChunk) {
        if self.error.is_none()
            && let Err(e) = self.try_spill(chunk)
        {
            self.error = Some(e);
        }
        // Once failed, nothing more is kept: the chunk's output is dropped.
        chunk.bytes.clear();
        chunk.keys.clear();
        chunk.table.clear();
        chunk.records = 0;
        self.game = Marks::default();
    }

    fn try_spill(&mut self, chunk: &mut PositionsChunk) -> io::Result<()> {
        // Taken out while its parts are written from the chunk's buffers.
        let mut spilled = match chunk.spilled.take() {
            Some(s) => s,
            None => Spilled::new()?,
        };
        let result = self.put_held(&mut spilled, chunk);
        chunk.spilled = Some(spilled);
        result
    }

    /// Writes what `chunk` holds to `spilled`: before the game's start, then from it.
    fn put_held(&mut self, spilled: &mut Spilled, chunk: &PositionsChunk) -> io::Result<()> {
        let (start, end) = (Marks::default(), Marks::end(chunk));
        if self.game_spilled.is_none() {
            if self.game != start {
                spilled.put(chunk, start, self.game)?;
            }
            self.game_spilled = Some(spilled.len());
        }
        if end != self.game {
            spilled.put(chunk, self.game, end)?;
        }
        Ok(())
    }

    /// The current game ended; `dropped`: its records are taken back.
    pub fn end_game(&mut self, chunk: &mut PositionsChunk, dropped: bool) {
        if dropped {
            chunk.bytes.truncate(self.game.bytes);
            chunk.table.truncate(self.game.records as usize);
            chunk.keys.truncate(self.game.keys);
            chunk.records = self.game.records;
            if let (Some(len), Some(s)) = (self.game_spilled, chunk.spilled.as_mut())
                && let Err(e) = s.cut(len)
            {
                self.error.get_or_insert(e);
            }
        }
        self.game = Marks::end(chunk);
        self.game_spilled = None;
    }
}

/// Calls `each` with every part of `chunk`'s records in order: the spilled ones, read back into
/// `part` (a chunk whose table is of the schema of `chunk`'s), then those held in memory.
pub fn for_each_part(
    chunk: &mut PositionsChunk,
    part: &mut PositionsChunk,
    mut each: impl FnMut(&PositionsChunk) -> Result<(), Error>,
) -> Result<(), Error> {
    if let Some(spilled) = chunk.spilled.take() {
        let mut parts = spilled.parts().map_err(super::spill)?;
        while parts.next(part).map_err(super::spill)? {
            each(part)?;
        }
    }
    each(chunk)
}
