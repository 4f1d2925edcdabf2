//! Rows waiting on disk in their in-memory layout ([`Spool`], read back by [`Unspool`]): a
//! temporary file of batches of [`GROUP_ROWS`] rows, each column's entries as little-endian
//! words, for rows that are read back once, in order, by the same process. Through a temporary
//! Parquet file instead, encoding and decoding took a fifth of a spilling `positions --unique
//! --format parquet`. A worker's rows past a bound of memory wait the same way, in groups
//! ([`put_group`]): [`SpilledRows`] (and `positions`' spilled parts).

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::ops::Range;

use super::{Batch, GROUP_ROWS, Schema, Values};
use crate::io::spill::SpillFile;

/// Appends rows to a temporary file, a group of [`GROUP_ROWS`] at a time.
pub struct Spool {
    out: BufWriter<File>,
    pending: Batch,
}

impl Spool {
    /// A spool of `schema`'s rows writing to `file`.
    pub fn new(file: File, schema: &Schema) -> Spool {
        Spool { out: BufWriter::new(file), pending: Batch::new(schema) }
    }

    /// Appends the rows `rows` of `batch` (of the spool's schema).
    pub fn append(&mut self, batch: &Batch, rows: Range<usize>) -> io::Result<()> {
        let mut at = rows.start;
        while at < rows.end {
            let take = (rows.end - at).min(GROUP_ROWS - self.pending.rows());
            self.pending.extend_from(batch, at..at + take);
            at += take;
            if self.pending.rows() == GROUP_ROWS {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// Writes the rows pending as a group.
    fn flush(&mut self) -> io::Result<()> {
        put_group(&mut self.out, &self.pending, 0..self.pending.rows())?;
        self.pending.clear();
        Ok(())
    }

    /// Writes the last group; the rows, to read back.
    pub fn finish(mut self) -> io::Result<Unspool> {
        if self.pending.rows() > 0 {
            self.flush()?;
        }
        Ok(Unspool { input: BufReader::new(crate::io::sort::rewound(self.out)?), empty: self.pending })
    }
}

/// Rows written in order, as [`crate::io::spill::SpilledText`] is text: `held` is their end, in
/// memory; the rows before it wait in a temporary file, a group ([`put_group`]) each time the held
/// rows grew past the bound, so a worker's memory stays bounded whatever one game's length.
#[derive(Debug, Default)]
pub struct SpilledRows {
    spilled: Option<SpillFile>,
    /// The last rows, appended to by the writer.
    pub held: Batch,
}

impl SpilledRows {
    /// No rows yet, of `schema`.
    pub fn new(schema: &Schema) -> SpilledRows {
        SpilledRows { spilled: None, held: Batch::new(schema) }
    }

    /// Moves the held rows to disk once they are `rows` or more, or hold `bytes` of text or more.
    #[inline]
    pub fn spill_past(&mut self, bytes: usize, rows: u64) -> io::Result<()> {
        if (self.held.rows() as u64) < rows && self.held.text_bytes() < bytes {
            return Ok(());
        }
        let file = match &mut self.spilled {
            Some(file) => file,
            None => self.spilled.insert(SpillFile::new()?),
        };
        put_group(file, &self.held, 0..self.held.rows())?;
        self.held.clear();
        Ok(())
    }

    /// Calls `each` with every row in order, a group at a time: those on disk read back into
    /// `part` (a batch of their schema), then those held. `Err(Ok)`: reading a temporary file
    /// back failed; `Err(Err)`: `each` did.
    pub fn for_each_group<E>(
        self,
        part: &mut Batch,
        mut each: impl FnMut(&Batch) -> Result<(), E>,
    ) -> Result<(), Result<io::Error, E>> {
        if let Some(file) = self.spilled {
            let mut input = file.reader().map_err(Ok)?;
            while get_group(&mut input, part).map_err(Ok)? {
                each(part).map_err(Err)?;
            }
        }
        each(&self.held).map_err(Err)
    }
}

/// Writes the rows `rows` of `batch` as a group: their count, then each column's definition
/// levels (nullable columns) and entries (a text column: each entry's end, then the bytes).
pub fn put_group(out: &mut impl Write, batch: &Batch, rows: Range<usize>) -> io::Result<()> {
    out.write_all(&(rows.len() as u64).to_le_bytes())?;
    for (c, &nullable) in batch.columns.iter().zip(&batch.nullable) {
        if nullable {
            put_words(out, c.defs[rows.clone()].iter().map(|d| d.to_le_bytes()))?;
        }
        match &c.values {
            Values::Int64(v) => put_words(out, v[rows.clone()].iter().map(|x| x.to_le_bytes()))?,
            Values::Int32(v) => put_words(out, v[rows.clone()].iter().map(|x| x.to_le_bytes()))?,
            Values::Float64(v) => put_words(out, v[rows.clone()].iter().map(|x| x.to_le_bytes()))?,
            Values::Text { data, ends } => {
                // Ends counted from the group's first entry.
                let start = rows.start.checked_sub(1).map_or(0, |i| ends[i]);
                let end = rows.end.checked_sub(1).map_or(start, |i| ends[i]);
                put_words(out, ends[rows.clone()].iter().map(|&e| ((e - start) as u64).to_le_bytes()))?;
                out.write_all(&data[start..end])?;
            }
        }
    }
    Ok(())
}

/// Reads a group [`put_group`] wrote into `batch` (emptied first; of the group's schema);
/// `false` at the end of `input`.
pub fn get_group(input: &mut impl BufRead, batch: &mut Batch) -> io::Result<bool> {
    batch.clear();
    let mut rows = [0u8; 8];
    if !crate::io::sort::read_or_end(input, &mut rows)? {
        return Ok(false);
    }
    let rows = u64::from_le_bytes(rows) as usize;
    for (c, &nullable) in batch.columns.iter_mut().zip(&batch.nullable) {
        if nullable {
            get_words(input, rows, &mut c.defs, i16::from_le_bytes)?;
        }
        match &mut c.values {
            Values::Int64(v) => get_words(input, rows, v, i64::from_le_bytes)?,
            Values::Int32(v) => get_words(input, rows, v, i32::from_le_bytes)?,
            Values::Float64(v) => get_words(input, rows, v, f64::from_le_bytes)?,
            Values::Text { data, ends } => {
                get_words(input, rows, ends, |w| u64::from_le_bytes(w) as usize)?;
                let len = ends.last().copied().unwrap_or(0);
                data.resize(len, 0);
                input.read_exact(data)?;
            }
        }
    }
    batch.set_rows(rows);
    Ok(true)
}

/// Writes `words` to `out` through a buffer of whole words.
fn put_words<const N: usize>(out: &mut impl Write, words: impl Iterator<Item = [u8; N]>) -> io::Result<()> {
    let mut buf = [0u8; 4096];
    let mut at = 0;
    for w in words {
        if at + N > buf.len() {
            out.write_all(&buf[..at])?;
            at = 0;
        }
        buf[at..at + N].copy_from_slice(&w);
        at += N;
    }
    out.write_all(&buf[..at])
}

/// Reads `count` words of `N` bytes from `input` into `to`, each through `word`.
fn get_words<const N: usize, T>(
    input: &mut impl Read,
    count: usize,
    to: &mut Vec<T>,
    word: impl Fn([u8; N]) -> T,
) -> io::Result<()> {
    let mut buf = [0u8; 4096];
    let per = buf.len() / N;
    let mut left = count;
    to.reserve(count);
    while left > 0 {
        let n = left.min(per);
        input.read_exact(&mut buf[..n * N])?;
        to.extend(buf[..n * N].chunks_exact(N).map(|c| word(c.try_into().expect("N bytes"))));
        left -= n;
    }
    Ok(())
}

/// Reads a [`Spool`]'s rows back, a group at a time.
pub struct Unspool {
    input: BufReader<File>,
    /// A batch of the spool's schema, without rows.
    empty: Batch,
}

impl Unspool {
    /// A batch of the spool's schema without rows, for [`Unspool::next_group`] to fill.
    pub fn batch(&self) -> Batch {
        self.empty.clone()
    }

    /// Fills `batch` (emptied first; of the spool's schema) with the next group; `false` at the
    /// end of the spool.
    pub fn next_group(&mut self, batch: &mut Batch) -> io::Result<bool> {
        get_group(&mut self.input, batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columnar::{Field, Kind};

    #[test]
    fn spooled_rows_come_back_as_they_went() {
        let schema = Schema {
            fields: vec![
                Field::required("fen", Kind::Text),
                Field::nullable("move", Kind::Label),
                Field::required("ply", Kind::Int32),
                Field::nullable("game", Kind::Int64),
                Field::nullable("eval", Kind::Float64),
                Field::nullable("date", Kind::Date),
            ],
        };
        let mut all = Batch::new(&schema);
        let rows = GROUP_ROWS + GROUP_ROWS / 2 + 7;
        for i in 0..rows {
            let text = "x".repeat(i % 13);
            all.push_text(0, Some(text.as_bytes()));
            all.push_text(1, (i % 3 != 0).then_some(b"Nf3".as_slice()));
            all.push_i32(2, Some(i as i32));
            all.push_i64(3, (i % 5 != 0).then_some(-(i as i64)));
            all.push_f64(4, (i % 7 != 0).then_some(i as f64 / 3.0));
            all.push_i32(5, (i % 2 == 0).then_some(19000 + i as i32));
            all.end_row();
        }
        let mut spool = Spool::new(tempfile::tempfile().expect("temp"), &schema);
        // Runs of several lengths, one across a group's end.
        for run in [0..1, 1..1, 1..500, 500..GROUP_ROWS + 3, GROUP_ROWS + 3..rows] {
            spool.append(&all, run).expect("append");
        }
        let mut back = spool.finish().expect("finish");
        let (mut read, mut batch) = (Batch::new(&schema), back.batch());
        while back.next_group(&mut batch).expect("read") {
            read.extend_from(&batch, 0..batch.rows());
        }
        assert_eq!(read, all);
        assert!(!back.next_group(&mut batch).expect("at the end"));
    }

    #[test]
    fn spilled_rows_come_back_in_order_across_groups() {
        let schema =
            Schema { fields: vec![Field::nullable("san", Kind::Text), Field::required("ply", Kind::Int32)] };
        let mut rows = SpilledRows::new(&schema);
        let mut all = Batch::new(&schema);
        for i in 0..100 {
            for b in [&mut rows.held, &mut all] {
                b.push_text(0, (i % 3 != 0).then_some(format!("m{i}").as_bytes()));
                b.push_i32(1, Some(i));
                b.end_row();
            }
            // Groups of 7 rows, and of 10 bytes of text or more.
            rows.spill_past(if i < 50 { usize::MAX } else { 10 }, 7).expect("spill");
        }
        assert!(rows.held.rows() < 7 && rows.spilled.is_some());
        let (mut read, mut part) = (Batch::new(&schema), Batch::new(&schema));
        let mut groups = 0;
        rows.for_each_group(&mut part, |b| {
            read.extend_from(b, 0..b.rows());
            groups += 1;
            io::Result::Ok(())
        })
        .expect("read back");
        assert_eq!(read, all);
        assert!(groups > 14, "{groups} groups");
    }

    #[test]
    fn a_spool_cut_short_is_an_error() {
        let schema = Schema { fields: vec![Field::required("fen", Kind::Text)] };
        let mut all = Batch::new(&schema);
        for _ in 0..10 {
            all.push_text(0, Some(b"8/8/8/8/8/8/8/8 w - - 0 1"));
            all.end_row();
        }
        let mut spool = Spool::new(tempfile::tempfile().expect("temp"), &schema);
        spool.append(&all, 0..10).expect("append");
        let mut back = spool.finish().expect("finish");
        back.input.get_ref().set_len(100).expect("cut");
        let mut batch = back.batch();
        assert!(back.next_group(&mut batch).is_err());
    }
}
