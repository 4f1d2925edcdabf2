//! An external sort ([`Sorter`]): items pushed in any number are sorted in runs of at most a set
//! number held in memory, each run written to an anonymous temporary file, and read back in
//! order by merging the runs. Every [`FAN`] runs of one length are merged into one run longer by
//! that factor as they come (a counter in base [`FAN`]), so that memory and open files stay
//! bounded whatever the count (at most [`FAN`] runs of each length), and each item is written
//! once per length it reaches.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};

/// Temporary files could not be written or read (exit 74): what needs room beyond memory
/// (`report`'s players' table, `positions --unique`) fails with this.
#[derive(Debug, thiserror::Error)]
#[error(
    "a temporary file in {} ($TMPDIR) could not be used: {source}; set TMPDIR to a directory with room",
    std::env::temp_dir().display()
)]
pub struct SpillError {
    #[from]
    source: io::Error,
}

/// Runs of one length merged into one longer run.
pub const FAN: usize = 32;

/// Bytes of each run's read buffer while merging.
const BUFFER: usize = 64 << 10;

/// An item a [`Sorter`] can write to a run and read back.
pub trait Record: Ord + Sized {
    /// Writes the item.
    fn write_to(&self, out: &mut impl Write) -> io::Result<()>;
    /// Reads the next item; `None` at the run's end.
    fn read_from(input: &mut impl BufRead) -> io::Result<Option<Self>>;
    /// Bytes the item holds in memory, for a sorter bounded by bytes ([`Sorter::with_bytes`]).
    fn bytes(&self) -> usize {
        size_of::<Self>()
    }
}

/// Items sorted in memory up to `held` at a time (or up to `budget` bytes), in runs on disk
/// past that.
pub struct Sorter<T> {
    items: Vec<T>,
    held: usize,
    budget: usize,
    /// Bytes of the items held (counted under a budget only).
    weight: usize,
    /// Runs on disk, each with its level (a run of level L merges FAN^L runs of items held),
    /// levels falling along the list.
    runs: Vec<(File, u32)>,
}

impl<T: Record> Sorter<T> {
    /// A sorter holding at most `held` items (at least 1) in memory.
    pub fn new(held: usize) -> Sorter<T> {
        Sorter { items: Vec::new(), held: held.max(1), budget: usize::MAX, weight: 0, runs: Vec::new() }
    }

    /// A sorter holding items of at most `budget` bytes in all ([`Record::bytes`]), for items
    /// of any length; one item at least.
    pub fn with_bytes(budget: usize) -> Sorter<T> {
        Sorter { budget, ..Sorter::new(usize::MAX) }
    }

    /// Adds `item`.
    pub fn push(&mut self, item: T) -> io::Result<()> {
        let bytes = if self.budget == usize::MAX { 0 } else { item.bytes() };
        if self.items.len() == self.held || (self.weight + bytes > self.budget && !self.items.is_empty()) {
            self.spill()?;
            self.weight = 0;
        }
        self.weight += bytes;
        self.items.push(item);
        Ok(())
    }

    /// Writes the items held out as a run, merging every FAN runs of the last level into one.
    fn spill(&mut self) -> io::Result<()> {
        let run = write_run(std::mem::take(&mut self.items))?;
        self.runs.push((run, 0));
        loop {
            let level = self.runs.last().map_or(0, |r| r.1);
            let same = self.runs.iter().rev().take_while(|r| r.1 == level).count();
            if same < FAN {
                return Ok(());
            }
            let group = self.runs.split_off(self.runs.len() - FAN).into_iter().map(|r| r.0).collect();
            let mut out = BufWriter::new(tempfile::tempfile()?);
            for item in Merge::<T>::new(group)? {
                item?.write_to(&mut out)?;
            }
            self.runs.push((rewound(out)?, level + 1));
        }
    }

    /// Every item pushed, in order (equal items in no set order).
    pub fn finish(mut self) -> io::Result<Sorted<T>> {
        if self.runs.is_empty() {
            self.items.sort_unstable();
            return Ok(Sorted::Held(self.items.into_iter()));
        }
        if !self.items.is_empty() {
            let run = write_run(std::mem::take(&mut self.items))?;
            self.runs.push((run, 0));
        }
        Ok(Sorted::Merged(Merge::new(self.runs.into_iter().map(|r| r.0).collect())?))
    }
}

/// Sorts `items` and writes them to a new temporary file, read from its start.
fn write_run<T: Record>(mut items: Vec<T>) -> io::Result<File> {
    items.sort_unstable();
    let mut out = BufWriter::new(tempfile::tempfile()?);
    for item in &items {
        item.write_to(&mut out)?;
    }
    rewound(out)
}

/// The file behind `out`, flushed and read from its start.
pub fn rewound(out: BufWriter<File>) -> io::Result<File> {
    let mut file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
    file.seek(SeekFrom::Start(0))?;
    Ok(file)
}

/// The items of a [`Sorter`], in order.
pub enum Sorted<T> {
    /// All in memory.
    Held(std::vec::IntoIter<T>),
    /// Merged from runs on disk.
    Merged(Merge<T>),
}

impl<T: Record> Iterator for Sorted<T> {
    type Item = io::Result<T>;

    fn next(&mut self) -> Option<io::Result<T>> {
        match self {
            Sorted::Held(items) => items.next().map(Ok),
            Sorted::Merged(m) => m.next(),
        }
    }
}

/// Sorted runs merged into one order.
pub struct Merge<T> {
    runs: Vec<BufReader<File>>,
    heads: BinaryHeap<Reverse<(T, usize)>>,
    failed: bool,
}

impl<T: Record> Merge<T> {
    /// The items of `runs`, each sorted and read from its start, in order (equal items in the
    /// order of their runs in `runs`).
    pub fn new(runs: Vec<File>) -> io::Result<Merge<T>> {
        let mut runs: Vec<BufReader<File>> =
            runs.into_iter().map(|f| BufReader::with_capacity(BUFFER, f)).collect();
        let mut heads = BinaryHeap::with_capacity(runs.len());
        for (i, run) in runs.iter_mut().enumerate() {
            if let Some(item) = T::read_from(run)? {
                heads.push(Reverse((item, i)));
            }
        }
        Ok(Merge { runs, heads, failed: false })
    }
}

impl<T: Record> Iterator for Merge<T> {
    type Item = io::Result<T>;

    fn next(&mut self) -> Option<io::Result<T>> {
        if self.failed {
            return None;
        }
        let Reverse((item, i)) = self.heads.pop()?;
        match T::read_from(&mut self.runs[i]) {
            Ok(Some(next)) => self.heads.push(Reverse((next, i))),
            Ok(None) => {}
            Err(e) => {
                self.failed = true;
                return Some(Err(e));
            }
        }
        Some(Ok(item))
    }
}

/// Reads exactly `buf.len()` bytes, or none at the end of `input` (`false`); a partial read is
/// an error.
pub fn read_or_end(input: &mut impl BufRead, buf: &mut [u8]) -> io::Result<bool> {
    if input.fill_buf()?.is_empty() {
        return Ok(false);
    }
    input.read_exact(buf)?;
    Ok(true)
}

impl Record for u64 {
    fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(&self.to_le_bytes())
    }

    fn read_from(input: &mut impl BufRead) -> io::Result<Option<u64>> {
        let mut word = [0u8; 8];
        Ok(read_or_end(input, &mut word)?.then(|| u64::from_le_bytes(word)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(held: usize, items: &[u64]) -> Vec<u64> {
        let mut s = Sorter::new(held);
        for &i in items {
            s.push(i).expect("push");
        }
        s.finish().expect("finish").collect::<io::Result<Vec<u64>>>().expect("read")
    }

    #[test]
    fn runs_on_disk_merge_to_the_order_held_in_memory() {
        // A scrambled sequence with repeats.
        let items: Vec<u64> = (0..20_000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) % 5_000).collect();
        let mut expected = items.clone();
        expected.sort_unstable();
        assert_eq!(sorted(usize::MAX, &items), expected);
        // Held 1: 20,000 runs, merged up to a third level.
        const { assert!(20_000 > FAN * FAN) };
        for held in [1, 7, 100, 19_999, 20_000] {
            assert_eq!(sorted(held, &items), expected, "held {held}");
        }
        assert_eq!(sorted(3, &[]), Vec::<u64>::new());
    }

    #[test]
    fn a_run_cut_short_is_an_error() {
        let mut run = io::Cursor::new(vec![1u8, 2, 3]);
        assert!(u64::read_from(&mut run).is_err());
        let mut empty = io::Cursor::new(Vec::new());
        assert!(u64::read_from(&mut empty).expect("end").is_none());
    }
}
