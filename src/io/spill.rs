//! Output that waits on disk past a bound of memory, so a worker's memory stays bounded
//! whatever one game's length: a [`SpillFile`] (an unnamed temporary file, appended to, cut
//! back, read back in order), and [`SpilledText`], text written in order whose parts past the
//! bound are such files, for the release side to copy out in order.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};

use super::sort::rewound;

/// Bytes of rendered records a worker holds in memory for one chunk at most.
pub const SPILL_BYTES: usize = 32 << 20;
/// Records (or a table's rows) a worker holds in memory for one chunk at most.
pub const SPILL_RECORDS: u64 = 1 << 18;

/// An unnamed temporary file written in order, its length counted.
#[derive(Debug)]
pub struct SpillFile {
    file: BufWriter<File>,
    len: u64,
}

impl SpillFile {
    /// A new, empty file (gone when dropped).
    pub fn new() -> io::Result<SpillFile> {
        Ok(SpillFile { file: BufWriter::with_capacity(1 << 20, tempfile::tempfile()?), len: 0 })
    }

    /// Bytes written: where the next write starts.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Drops every byte from `len` on.
    pub fn cut(&mut self, len: u64) -> io::Result<()> {
        self.file.flush()?;
        let file = self.file.get_mut();
        file.set_len(len)?;
        file.seek(SeekFrom::Start(len))?;
        self.len = len;
        Ok(())
    }

    /// Reads the `buf.len()` bytes written at `at`; the next write still goes at the end.
    pub fn read_at(&mut self, at: u64, buf: &mut [u8]) -> io::Result<()> {
        self.file.flush()?;
        let file = self.file.get_mut();
        file.seek(SeekFrom::Start(at))?;
        let read = file.read_exact(buf);
        file.seek(SeekFrom::Start(self.len))?;
        read
    }

    /// The bytes written, to read back from the start.
    pub fn reader(self) -> io::Result<BufReader<File>> {
        Ok(BufReader::with_capacity(1 << 20, rewound(self.file)?))
    }
}

impl Write for SpillFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// One part of a [`SpilledText`].
#[derive(Debug)]
enum Part {
    Held(Vec<u8>),
    Spilled(SpillFile),
}

/// Text written in order: `held` is its end, in memory; what came before it is in `parts`, in
/// memory or on disk.
#[derive(Debug, Default)]
pub struct SpilledText {
    parts: Vec<Part>,
    /// The text's last bytes, appended to by the writer.
    pub held: Vec<u8>,
}

impl SpilledText {
    /// Moves the held bytes to disk once there are `bound` of them or more.
    #[inline]
    pub fn spill_past(&mut self, bound: usize) -> io::Result<()> {
        if self.held.len() < bound {
            return Ok(());
        }
        if !matches!(self.parts.last(), Some(Part::Spilled(_))) {
            self.parts.push(Part::Spilled(SpillFile::new()?));
        }
        let Some(Part::Spilled(file)) = self.parts.last_mut() else { unreachable!("pushed above") };
        file.write_all(&self.held)?;
        self.held.clear();
        Ok(())
    }

    /// Appends the bytes of `file` (after those held).
    pub fn push_file(&mut self, file: SpillFile) {
        if !self.held.is_empty() {
            self.parts.push(Part::Held(std::mem::take(&mut self.held)));
        }
        self.parts.push(Part::Spilled(file));
    }

    /// Whether no byte was written.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty() && self.parts.is_empty()
    }

    /// Whether some of its bytes are on disk (tests).
    #[cfg(test)]
    pub fn on_disk(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Spilled(_)))
    }

    /// Bytes written.
    pub fn len(&self) -> u64 {
        let part = |p: &Part| match p {
            Part::Held(bytes) => bytes.len() as u64,
            Part::Spilled(file) => file.len(),
        };
        self.parts.iter().map(part).sum::<u64>() + self.held.len() as u64
    }

    /// Copies the whole text to `out`, in order. `Err(Ok)`: reading a temporary file back
    /// failed; `Err(Err)`: writing to `out` did.
    pub fn write_to(self, out: &mut impl Write) -> Result<(), Result<io::Error, io::Error>> {
        for part in self.parts {
            match part {
                Part::Held(bytes) => out.write_all(&bytes).map_err(Err)?,
                Part::Spilled(file) => copy(file, out)?,
            }
        }
        out.write_all(&self.held).map_err(Err)
    }

    /// The whole text in memory; `Err`: reading a temporary file back failed.
    pub fn read_back(self) -> io::Result<Vec<u8>> {
        let mut out = Vec::with_capacity(usize::try_from(self.len()).unwrap_or(0));
        match self.write_to(&mut out) {
            Err(Ok(read)) => Err(read),
            Ok(()) | Err(Err(_)) => Ok(out), // a Vec takes every write
        }
    }

    /// The whole text in memory (tests).
    #[cfg(test)]
    pub fn to_vec(self) -> Vec<u8> {
        self.read_back().expect("a spilled text reads back")
    }
}

/// Copies `file` to `out`, telling a failed read (`Err(Ok)`) from a failed write (`Err(Err)`).
fn copy(file: SpillFile, out: &mut impl Write) -> Result<(), Result<io::Error, io::Error>> {
    use std::io::BufRead;
    let mut input = file.reader().map_err(Ok)?;
    loop {
        let buf = input.fill_buf().map_err(Ok)?;
        if buf.is_empty() {
            return Ok(());
        }
        let n = buf.len();
        out.write_all(buf).map_err(Err)?;
        input.consume(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_reads_back_in_order_across_parts() {
        let mut text = SpilledText::default();
        text.held.extend_from_slice(b"abc");
        text.spill_past(2).unwrap();
        text.held.extend_from_slice(b"d");
        text.spill_past(2).unwrap();
        let mut file = SpillFile::new().unwrap();
        file.write_all(b"efgXY").unwrap();
        file.cut(3).unwrap();
        text.push_file(file);
        text.held.extend_from_slice(b"hi");
        text.spill_past(2).unwrap();
        text.held.push(b'j');
        assert_eq!(text.len(), 10);
        assert_eq!(text.to_vec(), b"abcdefghij");
    }
}
