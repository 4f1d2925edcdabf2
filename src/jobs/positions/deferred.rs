//! `--unique` past the positions held in memory ([`Deferred`]): once the [`Unique`] set is full,
//! every later record whose position it does not hold is a candidate, written to anonymous
//! temporary files in order (its input, its text or row, its position for a shard's keys part;
//! its position and number for the sort), and the output waits. At the end the candidates,
//! sorted by position with an external sort ([`crate::io::sort`]), give the first of each
//! position; those numbers, sorted again, pick the candidates to write, in order, after the
//! records written before. So the output is the same as with the whole set in memory, and
//! memory stays bounded: the set, a sorter's run and the merges' buffers.
//!
//! [`Unique`]: super::Unique

use std::cmp::Ordering;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::ops::Range;

use crate::chess::PackedKey;
use crate::columnar::spool::{Spool, Unspool};
use crate::columnar::{Batch, Schema};
use crate::io::run::Run;
use crate::io::sort::{Record, Sorted, Sorter, SpillError, read_or_end, rewound};
use crate::jobs::keys::Packed;

/// Candidates sorted in memory at a time: about 64 bytes each (4 MB of runs on disk a million).
const CANDIDATES_HELD: usize = 1 << 20;
/// Numbers of the first candidates sorted in memory at a time: 8 bytes each.
const FIRSTS_HELD: usize = 1 << 22;

/// A candidate: its position and its number among the candidates, ordered by position, then
/// number.
#[derive(Debug, PartialEq, Eq)]
struct Candidate {
    hash: u64,
    key: PackedKey,
    number: u64,
}

impl Ord for Candidate {
    fn cmp(&self, other: &Candidate) -> Ordering {
        (self.hash, self.key.words(), self.number).cmp(&(other.hash, other.key.words(), other.number))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Candidate) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Record for Candidate {
    /// The position ([`Packed`]), then the number.
    fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(Packed::of(self.hash, &self.key).bytes())?;
        out.write_all(&self.number.to_le_bytes())
    }

    fn read_from(input: &mut impl BufRead) -> io::Result<Option<Candidate>> {
        let mut word = [0u8; 8];
        if !read_or_end(input, &mut word)? {
            return Ok(None);
        }
        let key = Packed::read_key(input)?;
        let hash = u64::from_le_bytes(word);
        input.read_exact(&mut word)?;
        Ok(Some(Candidate { hash, key, number: u64::from_le_bytes(word) }))
    }
}

/// An entry of the candidates' list, in order.
enum Entry {
    /// The candidates that follow are of this input.
    Input(String),
    /// A candidate: its record's length in bytes (0 for a row), and its position where a keys
    /// part needs it.
    Record(u64, Option<(u64, PackedKey)>),
}

impl Entry {
    /// `I`, the name's length and bytes; `R` and the length; `P`, the length and the position.
    fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        match self {
            Entry::Input(name) => {
                out.write_all(b"I")?;
                out.write_all(&(name.len() as u64).to_le_bytes())?;
                out.write_all(name.as_bytes())
            }
            Entry::Record(len, None) => {
                out.write_all(b"R")?;
                out.write_all(&len.to_le_bytes())
            }
            Entry::Record(len, Some((hash, key))) => {
                out.write_all(b"P")?;
                out.write_all(&len.to_le_bytes())?;
                out.write_all(Packed::of(*hash, key).bytes())
            }
        }
    }

    fn read_from(input: &mut impl BufRead) -> io::Result<Option<Entry>> {
        let mut tag = [0u8; 1];
        if !read_or_end(input, &mut tag)? {
            return Ok(None);
        }
        let mut word = [0u8; 8];
        input.read_exact(&mut word)?;
        let n = u64::from_le_bytes(word);
        Ok(Some(match tag[0] {
            b'I' => {
                let mut name = vec![0u8; n as usize];
                input.read_exact(&mut name)?;
                Entry::Input(String::from_utf8_lossy(&name).into_owned())
            }
            b'R' => Entry::Record(n, None),
            b'P' => {
                input.read_exact(&mut word)?;
                Entry::Record(n, Some((u64::from_le_bytes(word), Packed::read_key(input)?)))
            }
            _ => return Err(io::Error::new(io::ErrorKind::InvalidData, "a temporary file is damaged")),
        }))
    }
}

/// Positions numbered in the order they come, in any number (sorted on disk past a million), to
/// tell which number is the first of its position: what `--unique` decides once its set is
/// full, and what `merge` settles of its shards' positions.
pub struct Firsts {
    sorter: Sorter<Candidate>,
}

impl Default for Firsts {
    fn default() -> Firsts {
        Firsts { sorter: Sorter::new(CANDIDATES_HELD) }
    }
}

impl Firsts {
    /// Sorting at most `held` positions in memory at a time (tests).
    pub fn holding(held: usize) -> Firsts {
        Firsts { sorter: Sorter::new(held) }
    }

    /// The position (`hash`, `key`) came as `number`.
    pub fn push(&mut self, hash: u64, key: &PackedKey, number: u64) -> io::Result<()> {
        self.sorter.push(Candidate { hash, key: key.clone(), number })
    }

    /// Calls `f` with each number and whether it is the first (the least) of its position, by
    /// position.
    pub fn verdicts(self, mut f: impl FnMut(u64, bool) -> io::Result<()>) -> io::Result<()> {
        let mut last: Option<Candidate> = None;
        for c in self.sorter.finish()? {
            let c = c?;
            let first = last.as_ref().is_none_or(|l| (l.hash, l.key.words()) != (c.hash, c.key.words()));
            f(c.number, first)?;
            if first {
                last = Some(c);
            }
        }
        Ok(())
    }
}

/// A record [`Deferred::resolve`] writes, or the start of an input.
pub enum Kept<'a> {
    /// The candidates that follow are of this input, begun after the first candidate's.
    Input(&'a str),
    /// A record's text.
    Text {
        /// Its position's Zobrist key and the position, when kept for a keys part.
        key: Option<(u64, &'a PackedKey)>,
        /// The text.
        text: &'a [u8],
    },
    /// A record of a table: its row comes with the run of rows it ends or lies in ([`Kept::Rows`]).
    Row {
        /// Its position's Zobrist key and the position, when kept for a keys part.
        key: Option<(u64, &'a PackedKey)>,
    },
    /// The rows of the records passed since the last rows, in order: `rows` of `batch`.
    Rows {
        /// The rows read back.
        batch: &'a Batch,
        /// The run of them.
        rows: Range<usize>,
    },
}

/// The candidates of a run whose [`Unique`](super::Unique) set is full.
pub struct Deferred {
    /// Inputs and candidates in order ([`Entry`]): their texts' lengths, and their positions
    /// where a keys part needs them.
    entries: BufWriter<File>,
    keyed: bool,
    /// Their texts, in order.
    texts: BufWriter<File>,
    /// Their rows, in order (Parquet).
    rows: Option<Spool>,
    candidates: Firsts,
    count: u64,
}

impl Deferred {
    /// Candidates of text, or with `schema` of rows; `keyed`: their positions are kept for a
    /// keys part.
    pub fn new(schema: Option<&Schema>, keyed: bool) -> io::Result<Deferred> {
        let rows = schema.map(|s| io::Result::Ok(Spool::new(tempfile::tempfile()?, s))).transpose()?;
        Ok(Deferred {
            entries: BufWriter::new(tempfile::tempfile()?),
            keyed,
            texts: BufWriter::new(tempfile::tempfile()?),
            rows,
            candidates: Firsts::default(),
            count: 0,
        })
    }

    /// Candidates so far.
    pub fn len(&self) -> u64 {
        self.count
    }

    /// `true` before the first candidate.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The candidates that follow are of the input `name` (the first candidate's input is the
    /// one being read when the set filled).
    pub fn begin_input(&mut self, name: &str) -> io::Result<()> {
        Entry::Input(name.to_string()).write_to(&mut self.entries)
    }

    /// A candidate: the position (`hash`, `key`) and its record's `text`.
    pub fn push_text(&mut self, hash: u64, key: &PackedKey, text: &[u8]) -> io::Result<()> {
        self.texts.write_all(text)?;
        self.push(hash, key, text.len())
    }

    /// A candidate of a table: the position (`hash`, `key`); its row is appended with the run
    /// it belongs to ([`Deferred::push_rows`]).
    pub fn push_row(&mut self, hash: u64, key: &PackedKey) -> io::Result<()> {
        self.push(hash, key, 0)
    }

    /// The rows of the candidates of a table pushed since the last call, in order: `rows` of
    /// `batch` (a run at a time: a row at a time measured a fifth of a spilling run's time).
    pub fn push_rows(&mut self, batch: &Batch, rows: Range<usize>) -> io::Result<()> {
        match &mut self.rows {
            Some(t) => t.append(batch, rows),
            None => Err(io::Error::other("rows for candidates of text")),
        }
    }

    fn push(&mut self, hash: u64, key: &PackedKey, len: usize) -> io::Result<()> {
        let len = len as u64;
        self.entries.write_all(if self.keyed { b"P" } else { b"R" })?;
        self.entries.write_all(&len.to_le_bytes())?;
        if self.keyed {
            self.entries.write_all(Packed::of(hash, key).bytes())?;
        }
        self.candidates.push(hash, key, self.count)?;
        self.count += 1;
        Ok(())
    }

    /// Passes each input and the first candidate of each position to `kept`, in order; returns
    /// how many candidates were kept.
    pub fn resolve<E: From<SpillError>>(
        mut self,
        mut kept: impl FnMut(Kept<'_>) -> Result<(), E>,
    ) -> Result<u64, E> {
        let spill = |e: io::Error| E::from(SpillError::from(e));
        let mut firsts = self.firsts().map_err(spill)?;
        let mut next_first = firsts.next().transpose().map_err(spill)?;
        let mut entries = BufReader::new(rewound(self.entries).map_err(spill)?);
        let mut texts = BufReader::new(rewound(self.texts).map_err(spill)?);
        let mut rows = match self.rows {
            Some(t) => Some(Rows::new(t.finish().map_err(spill)?)),
            None => None,
        };
        let (mut number, mut written, mut text) = (0u64, 0u64, Vec::new());
        // The first candidates' rows in the group read back, passed a run at a time.
        let mut run = Run::default();
        while let Some(e) = Entry::read_from(&mut entries).map_err(spill)? {
            let (len, position) = match e {
                Entry::Input(name) => {
                    kept(Kept::Input(&name))?;
                    continue;
                }
                Entry::Record(len, position) => (len, position),
            };
            let key = position.as_ref().map(|(hash, key)| (*hash, key));
            let first = next_first == Some(number);
            if first {
                next_first = firsts.next().transpose().map_err(spill)?;
            }
            number += 1;
            match &mut rows {
                Some(rows) => {
                    if rows.group_read()
                        && let Some(done) = run.take()
                    {
                        kept(Kept::Rows { batch: &rows.batch, rows: done })?;
                    }
                    let row = rows.next().map_err(spill)?;
                    if first {
                        if let Some(done) = run.extend(row..row + 1) {
                            kept(Kept::Rows { batch: &rows.batch, rows: done })?;
                        }
                        kept(Kept::Row { key })?;
                    }
                }
                None if first => {
                    text.resize(len as usize, 0);
                    texts.read_exact(&mut text).map_err(spill)?;
                    kept(Kept::Text { key, text: &text })?;
                }
                None => {
                    io::copy(&mut texts.by_ref().take(len), &mut io::sink()).map_err(spill)?;
                }
            }
            written += u64::from(first);
        }
        if let (Some(rows), Some(done)) = (rows, run.take()) {
            kept(Kept::Rows { batch: &rows.batch, rows: done })?;
        }
        Ok(written)
    }

    /// The numbers of the first candidate of each position, in order.
    fn firsts(&mut self) -> io::Result<Sorted<u64>> {
        let mut firsts = Sorter::<u64>::new(FIRSTS_HELD);
        std::mem::take(&mut self.candidates).verdicts(|number, first| match first {
            true => firsts.push(number),
            false => Ok(()),
        })?;
        firsts.finish()
    }
}

/// The candidates' rows read back, a row group at a time.
struct Rows {
    spool: Unspool,
    batch: Batch,
    row: usize,
}

impl Rows {
    fn new(spool: Unspool) -> Rows {
        Rows { batch: spool.batch(), spool, row: 0 }
    }

    /// Whether every row of the group in `batch` was read: the next reads another group.
    fn group_read(&self) -> bool {
        self.row == self.batch.rows()
    }

    /// The next row, in `batch`.
    fn next(&mut self) -> io::Result<usize> {
        while self.row == self.batch.rows() {
            if !self.spool.next_group(&mut self.batch)? {
                return Err(io::Error::other("the candidates' rows end before their entries"));
            }
            self.row = 0;
        }
        self.row += 1;
        Ok(self.row - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;
    use crate::notation::san::parse_san;

    /// Firsts sorted on disk in runs of 1 to 7 tell the first of each position as a set does,
    /// with two positions under one hash.
    #[test]
    fn firsts_on_disk_are_the_first_of_each_position() {
        let mut pos = Position::default();
        let mut positions = vec![(pos.zobrist(), PackedKey::of(&pos))];
        for san in ["Nf3", "Nf6", "Ng1", "Ng8", "e4", "e5", "Nf3", "Nc6", "Ng1", "Nb8"] {
            let (m, _) = parse_san(&pos, san.as_bytes()).expect("legal");
            pos.play_unchecked(m);
            positions.push((pos.zobrist(), PackedKey::of(&pos)));
        }
        // Another position under the start's hash, and the start again.
        positions.push((positions[0].0, positions[1].1.clone()));
        positions.push(positions[0].clone());
        let mut seen = std::collections::HashSet::new();
        let want: Vec<bool> = positions.iter().map(|p| seen.insert(p.clone())).collect();
        assert_eq!(want.iter().filter(|&&f| !f).count(), 3, "the start twice more, 1. e4 e5 once more");
        for held in [1, 2, 7, 100] {
            let mut firsts = Firsts::holding(held);
            for (n, (hash, key)) in positions.iter().enumerate() {
                firsts.push(*hash, key, n as u64).expect("push");
            }
            let mut got = vec![None; positions.len()];
            firsts
                .verdicts(|n, first| {
                    got[n as usize] = Some(first);
                    Ok(())
                })
                .expect("sorted");
            let got: Vec<bool> = got.into_iter().map(|g| g.expect("every number")).collect();
            assert_eq!(got, want, "held {held}");
        }
    }

    /// Rows deferred in runs of every length, past a spool group's end, come back as the first
    /// of each position's, in order, whatever runs they went in and came out in.
    #[test]
    fn deferred_rows_come_back_in_order_across_groups() {
        use crate::columnar::{Field, GROUP_ROWS, Kind};
        use crate::error::Error;
        let schema = Schema { fields: vec![Field::required("n", Kind::Int64)] };
        let n = GROUP_ROWS + GROUP_ROWS / 3;
        let mut batch = Batch::new(&schema);
        for i in 0..n {
            batch.push_i64(0, Some(i as i64));
            batch.end_row();
        }
        let key = PackedKey::of(&Position::default());
        // Positions told apart by their hash: runs of firsts between repeats of a recent
        // position, and now and then of one a group before.
        let hash = |i: usize| match i {
            _ if i % 10 == 9 => i - 5,
            _ if i.is_multiple_of(1009) => i / 2,
            _ => i,
        } as u64;
        let mut seen = std::collections::HashSet::new();
        let want: Vec<i64> = (0..n).filter(|&i| seen.insert(hash(i))).map(|i| i as i64).collect();
        assert!(want.len() > GROUP_ROWS && want.len() < n);
        let mut d = Deferred::new(Some(&schema), false).expect("deferred");
        let mut at = 0;
        for len in (1..).map(|k| k * 37 % 500 + 1) {
            let run = at..(at + len).min(n);
            for i in run.clone() {
                d.push_row(hash(i), &key).expect("push");
            }
            d.push_rows(&batch, run.clone()).expect("rows");
            at = run.end;
            if at == n {
                break;
            }
            if len % 3 == 0 {
                d.begin_input("next").expect("input");
            }
        }
        let (mut got, mut rows) = (Vec::new(), 0);
        let kept = d
            .resolve(|k| {
                match k {
                    Kept::Row { .. } => rows += 1,
                    Kept::Rows { batch, rows } => match &batch.columns[0].values {
                        crate::columnar::Values::Int64(v) => got.extend_from_slice(&v[rows]),
                        _ => unreachable!("an Int64 column"),
                    },
                    Kept::Input(_) | Kept::Text { .. } => {}
                }
                Ok::<(), Error>(())
            })
            .expect("resolve");
        assert_eq!(got, want);
        assert_eq!((kept, rows), (want.len() as u64, want.len()));
    }
}
