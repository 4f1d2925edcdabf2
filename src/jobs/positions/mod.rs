//! `positions`: one record per mainline position of every game (the start position and the
//! position after each ply, so a game of P valid plies yields P + 1 records), as FEN, EPD, JSON
//! Lines, CSV or Parquet ([`table`]). Which positions are written: by ply (`min_ply`, `max_ply`, `every`), by the
//! material on the board (`material`), once each (`unique`); which games: the [`Selection`].
//!
//! Invariants: records of a game with an error are its valid prefix, or nothing at all with
//! [`PositionsOptions::skip_errors`]; [`Unique`] runs in the release step ([`Writer`], in input
//! order, on one thread), so deduplicated output is the same at any thread count; past
//! [`UNIQUE_HELD`] distinct positions the rest is decided on disk ([`deferred`]), to the same
//! output; a chunk's records past a bound wait on disk ([`spill`]), so a worker's memory does
//! not grow with a game's length.

pub mod deferred;
mod records;
pub mod spill;
pub mod table;
mod text;
mod unique;

use std::io::Write;
use std::sync::Arc;

pub use unique::{Filtered, Offered, Unique};

use crate::chess::{PackedKey, Position};
use crate::columnar::write::TableWriter;
use crate::columnar::{Batch, Schema};
use crate::error::{Diagnostic, Error};
use crate::io::Output as Out;
use crate::io::name::Name;
use crate::io::run::Run;
use crate::jobs::diagnostics;
use crate::jobs::run::{Sink, Summary};
use crate::notation::fen::EpMode;
use crate::pipeline::counter::Counter;
use crate::pipeline::replay::replay_chunk;
use crate::pipeline::stats::Stats;
use crate::pipeline::{ChunkInput, Cuts, Job, Located, Output, Spare, Spares, Worker};
use crate::select::Selection;
use crate::select::material::MaterialSig;
use deferred::{Deferred, Kept};
use records::{PositionsHooks, epd_id_prefix};

/// How each position is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// One FEN per line.
    #[default]
    Fen,
    /// EPD (PGN standard 16.2): four fields, then `hmvc`, `fmvn`, `id "FILE:GAME:PLY"` and, unless
    /// the position is the last of its game, `c0 "NEXT-SAN"`.
    Epd,
    /// One JSON object per line: `file` (as JSON records name an input), `game`, `ply`, `fen`,
    /// `san`, `uci`, the requested tags, and `eval`/`clk` when the comments after the move
    /// leading here have them.
    Jsonl,
    /// A header line, then `file,game,ply,fen,san,uci` and the requested tags (RFC 4180 quoting).
    Csv,
    /// An Apache Parquet file of typed columns ([`table`]).
    Parquet,
}

impl Format {
    /// Whether records carry game numbers. Records without them are the same whatever a chunk's
    /// first game is, so a chunk can be read before its game numbers are known ([`Cuts::Guessed`]).
    pub fn numbers_games(self) -> bool {
        self != Format::Fen
    }
}

/// What `positions` writes and which positions it keeps.
#[derive(Clone, Debug, Default)]
pub struct PositionsOptions {
    /// Record format.
    pub format: Format,
    /// Which en passant square the FEN shows.
    pub ep: EpMode,
    /// Parquet: the position as `epd` (its four EPD fields), `hmvc` and `fmvn` columns instead
    /// of `fen`.
    pub epd_columns: bool,
    /// Tags copied into JSON Lines and CSV records (missing: `null` or an empty field).
    pub tags: Vec<String>,
    /// Keep plies from this one (0 is the start position).
    pub min_ply: u32,
    /// Keep plies up to this one.
    pub max_ply: Option<u32>,
    /// Keep plies divisible by this (0 and 1 keep all).
    pub every: u32,
    /// Keep the positions with exactly one of these materials on the board (empty: all). Unlike
    /// the game filter [`Selection::material`], which keeps whole games, this picks positions.
    pub material: Vec<MaterialSig>,
    /// Record the keys needed by [`Unique`] (the release step then drops repeated positions).
    pub unique: bool,
    /// Drop every game with an error, instead of keeping its valid prefix.
    pub skip_errors: bool,
    /// The games whose positions are written: those the filters leave out are counted only.
    pub select: Selection,
}

impl PositionsOptions {
    /// The requested tags no game of a run whose counts are `stats` had, in order: their
    /// columns hold no value (a misspelt name, or a case that differs from the files'). None
    /// when no game was read.
    pub fn absent_tags(&self, stats: &Stats) -> Vec<&str> {
        absent_tags(&self.tags, stats)
    }

    /// Whether the position `pos` at `ply` is written (before `unique`).
    #[inline]
    fn keeps(&self, ply: u32, pos: &Position) -> bool {
        ply >= self.min_ply
            && self.max_ply.is_none_or(|m| ply <= m)
            && (self.every <= 1 || ply.is_multiple_of(self.every))
            && (self.material.is_empty() || self.material.iter().any(|m| m.matches(pos)))
    }
}

/// A CSV record's own columns, before its tags.
pub const CSV_COLUMNS: [&str; 6] = ["file", "game", "ply", "fen", "san", "uci"];

/// A JSON Lines record's own keys, before its tags.
pub const JSONL_KEYS: [&str; 8] = ["file", "game", "ply", "fen", "san", "uci", "eval", "clk"];

/// The `file` field of the records of `input` in `format`: its JSON (a string, or the bytes
/// of a name that is not UTF-8) or its CSV field, as the text Parquet's `file` holds.
fn file_field(format: Format, input: &Name) -> Vec<u8> {
    let mut field = Vec::new();
    match format {
        Format::Jsonl => field = serde_json::to_vec(input.json()).expect("a JSON value"),
        Format::Csv => text::push_csv_field(&mut field, input.text()),
        Format::Fen | Format::Epd | Format::Parquet => {}
    }
    field
}

/// The CSV header line (with its line break) for `tags`.
pub fn csv_header(tags: &[String]) -> Vec<u8> {
    let mut out = CSV_COLUMNS.join(",").into_bytes();
    for t in tags {
        out.push(b',');
        text::push_csv_field(&mut out, t);
    }
    out.push(b'\n');
    out
}

/// The positions job.
#[derive(Clone, Debug)]
pub struct Positions {
    opts: Arc<PositionsOptions>,
    /// The table's columns under [`Format::Parquet`].
    schema: Arc<Schema>,
    spares: Arc<Spares<PositionsChunk>>,
    /// Bytes and records a chunk holds in memory before they are spilled ([`spill`]).
    spill_at: (usize, u64),
}

impl Positions {
    /// A job writing records as `opts` says; an error when two tags would be one Parquet column.
    pub fn new(opts: PositionsOptions) -> Result<Positions, String> {
        let schema = if opts.format == Format::Parquet {
            table::schema(&opts.tags, opts.epd_columns)?
        } else {
            Schema::default()
        };
        let spill_at = (spill::SPILL_BYTES, spill::SPILL_RECORDS);
        Ok(Positions { opts: Arc::new(opts), schema: Arc::new(schema), spares: Arc::default(), spill_at })
    }

    /// Spills a chunk's records past `bytes` bytes or `records` records (tests).
    #[cfg(test)]
    fn spilling_at(self, bytes: usize, records: u64) -> Positions {
        Positions { spill_at: (bytes, records), ..self }
    }

    /// The columns of the Parquet table (none under the text formats).
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The options.
    pub fn options(&self) -> &PositionsOptions {
        &self.opts
    }
}

/// The identity of one written record, for [`Unique`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordKey {
    /// The position's Zobrist key.
    pub hash: u64,
    /// The position itself, packed.
    pub key: PackedKey,
    /// End of the record in [`PositionsChunk::bytes`] (it starts where the previous one ends),
    /// or in rows of [`PositionsChunk::table`].
    pub end: usize,
}

/// The records of one chunk.
#[derive(Debug, Default)]
pub struct PositionsChunk {
    /// Rendered records, in input order (their game numbers are absolute: formats that print
    /// them are cut exactly).
    pub bytes: Vec<u8>,
    /// The rows, under [`Format::Parquet`].
    pub table: Batch,
    /// One key per record when [`PositionsOptions::unique`] is set, else empty.
    pub keys: Vec<RecordKey>,
    /// Records in `bytes`.
    pub records: u64,
    /// Error diagnostics.
    pub diagnostics: Vec<Diagnostic>,
    /// The records before those above, when they grew past the bound held in memory: read them
    /// with [`spill::for_each_part`].
    pub spilled: Option<spill::Spilled>,
}

impl Spare for PositionsChunk {
    /// A record buffer past 16 MiB (a chunk of huge games) is not kept.
    fn empty(&mut self) -> bool {
        self.bytes.clear();
        self.table.clear();
        self.keys.clear();
        self.records = 0;
        self.diagnostics.clear();
        self.spilled = None;
        self.bytes.capacity() <= 16 << 20
    }
}

impl Located for PositionsChunk {
    fn shift(&mut self, games: u64, lines: u64) {
        self.diagnostics.shift(games, lines);
    }
}

/// Per-thread state: the options, the EPD id and the `file` field of the input being read, the
/// size of the last chunk's output (to size the next), and the buffers handed back by the
/// release side.
pub struct PositionsWorker {
    opts: Arc<PositionsOptions>,
    schema: Arc<Schema>,
    spares: Arc<Spares<PositionsChunk>>,
    /// The input `id_prefix` and `file_field` were made for.
    input: String,
    id_prefix: Vec<u8>,
    file_field: Vec<u8>,
    last_len: usize,
    tag_fields: Vec<u8>,
    spill_at: (usize, u64),
}

impl Job for Positions {
    type Worker = PositionsWorker;

    /// Formats that print game numbers need them when a chunk is read: exact cuts.
    fn cuts(&self) -> Cuts {
        if self.opts.format.numbers_games() { Cuts::Exact } else { Cuts::Guessed }
    }

    fn worker(&self) -> Result<PositionsWorker, Error> {
        Ok(PositionsWorker {
            opts: self.opts.clone(),
            schema: self.schema.clone(),
            spares: self.spares.clone(),
            input: String::new(),
            id_prefix: epd_id_prefix(""),
            file_field: Vec::new(),
            last_len: 0,
            tag_fields: Vec::new(),
            spill_at: self.spill_at,
        })
    }
}

impl Worker for PositionsWorker {
    type Records = PositionsChunk;

    fn process(&mut self, chunk: &ChunkInput<'_>) -> Result<Output<PositionsChunk>, Error> {
        if chunk.input.text() != self.input {
            self.input = chunk.input.text().into();
            self.id_prefix = epd_id_prefix(chunk.input.text());
            self.file_field = file_field(self.opts.format, chunk.input);
        }
        let mut out = self.spares.take();
        out.bytes.reserve(self.last_len + self.last_len / 8);
        if out.table.columns.len() != self.schema.fields.len() {
            out.table = Batch::new(&self.schema);
        }
        let hooks = PositionsHooks::new(
            &self.opts,
            &self.id_prefix,
            &self.file_field,
            &self.input,
            out,
            std::mem::take(&mut self.tag_fields),
            spill::Spiller::new(self.spill_at.0, self.spill_at.1),
        );
        let (mut hooks, mut out) = replay_chunk(hooks, chunk);
        if let Some(e) = hooks.spiller.error.take() {
            return Err(spill(e));
        }
        if hooks.filter.is_active() {
            out.stats.add(Counter::Filtered, hooks.filtered);
        }
        if self.opts.skip_errors {
            out.stats.add(Counter::SkippedForErrors, hooks.skipped);
        }
        hooks.filter.count(&mut out.stats);
        hooks.tags_seen.count(&mut out.stats);
        self.tag_fields = hooks.tag_fields;
        self.last_len = hooks.out.bytes.len();
        Ok(Output { records: hooks.out, stats: out.stats, end: out.end })
    }
}

/// The names of `tags` (as `--tags` gave them) no game of a run whose counts are `stats` had
/// ([`Stats::tags_seen`]); none when no game was read.
pub fn absent_tags<'t>(tags: &'t [String], stats: &Stats) -> Vec<&'t str> {
    if stats.games == 0 {
        return Vec::new();
    }
    let seen = |i: usize| stats.tags_seen.get(i).copied().unwrap_or(false);
    tags.iter().enumerate().filter(|&(i, _)| !seen(i)).map(|(_, t)| t.as_str()).collect()
}

/// The warning for a requested tag no game had.
pub fn absent_tag_message(name: &str) -> String {
    format!(
        "--tags {name}: no game had this tag, so its column holds no value (tag names are case-sensitive)"
    )
}

/// Distinct positions `--unique` holds in memory, about 100 MB: 7/8 of a table of 2^21
/// buckets, the most it holds before doubling.
pub const UNIQUE_HELD: usize = (1 << 21) / 8 * 7;

/// The release side of `positions`: writes the records to the output (dropping repeated
/// positions with `--unique`) and error diagnostics as text to `diagnostics`, and hands each
/// chunk's buffers back to the workers.
pub struct Writer<W> {
    out: Target,
    diagnostics: W,
    unique: Option<Unique>,
    /// With `--unique`, the records left undecided once `unique` is full, and the number of the
    /// input they start in.
    deferred: Option<(Deferred, usize)>,
    /// Inputs begun.
    inputs: usize,
    file: String,
    spares: Arc<Spares<PositionsChunk>>,
    /// A shard's keys part under `--unique` ([`crate::jobs::keys`]), and its pending bytes.
    keys: Option<(Out, Vec<u8>)>,
    /// Whether a stop was asked for, checked as the deferred records are written.
    requested: fn() -> bool,
    /// A chunk's spilled records, read back a part at a time.
    part: PositionsChunk,
}

/// Where the records go: text, or the rows of a Parquet table.
#[allow(clippy::large_enum_variant)] // one per run
enum Target {
    Text(Out),
    Table(TableWriter<Out>),
}

impl Target {
    fn out(&self) -> &Out {
        match self {
            Target::Text(out) => out,
            Target::Table(t) => t.output(),
        }
    }
}

impl<W: Write> Writer<W> {
    /// A writer of `job`'s records to `out` (a CSV output gets its header at once).
    pub fn new(job: &Positions, mut out: Out, diagnostics: W) -> Result<Writer<W>, Error> {
        let opts = job.options();
        if opts.format == Format::Csv {
            out.write_all(&csv_header(&opts.tags)).map_err(|e| out.error(e))?;
        }
        Writer::part(job, out, diagnostics)
    }

    /// A writer of a shard's part: the records only, without the CSV header (`merge` writes it);
    /// a Parquet part is a whole file.
    pub fn part(job: &Positions, out: Out, diagnostics: W) -> Result<Writer<W>, Error> {
        let opts = job.options();
        let out = match opts.format {
            Format::Parquet => {
                let path = out.path().to_path_buf();
                let table = TableWriter::new(out, &job.schema)
                    .map_err(|source| crate::io::OutputError::writing(&path, source))?;
                Target::Table(table)
            }
            _ => Target::Text(out),
        };
        Ok(Writer {
            out,
            diagnostics,
            unique: opts.unique.then(|| Unique::holding(UNIQUE_HELD)),
            deferred: None,
            inputs: 0,
            file: String::new(),
            spares: job.spares.clone(),
            keys: None,
            requested: || false,
            part: PositionsChunk { table: Batch::new(&job.schema), ..PositionsChunk::default() },
        })
    }

    /// Encodes Parquet row groups on `threads` threads of their own (1: on the releasing
    /// thread), so the releasing thread only orders rows; text formats ignore it.
    pub fn threads(mut self, threads: usize) -> Result<Writer<W>, Error> {
        self.out = match self.out {
            Target::Table(t) => {
                let path = t.output().path().to_path_buf();
                let t =
                    t.threads(threads).map_err(|source| crate::io::OutputError::writing(&path, source))?;
                Target::Table(t)
            }
            text => text,
        };
        Ok(self)
    }

    /// Asks `requested` whether to stop while the deferred records are written at the end:
    /// then [`Writer::finish`] fails with [`Error::Interrupted`] and writes nothing.
    pub fn interruptible(self, requested: fn() -> bool) -> Writer<W> {
        Writer { requested, ..self }
    }

    /// Holds at most `room` distinct positions for `--unique` in memory (tests).
    pub fn holding(mut self, room: usize) -> Writer<W> {
        if self.unique.is_some() {
            self.unique = Some(Unique::holding(room));
        }
        self
    }

    /// With `--unique`, also writes the shard's keys part to `keys`, for `merge` to settle the
    /// positions repeated in different shards.
    pub fn keys(mut self, keys: Option<Out>) -> Result<Writer<W>, Error> {
        if let Some(mut k) = keys.filter(|_| self.unique.is_some()) {
            k.write_all(crate::jobs::keys::POSITIONS_HEADER).map_err(|e| k.error(e))?;
            self.keys = Some((k, Vec::new()));
        }
        Ok(self)
    }

    /// Puts the output in place, unless an input could not be read to its end (then it is
    /// removed). Interrupted, it is put in place too: it ends after a whole game. Records
    /// `--unique` left undecided are decided and written first, and counted in `summary`.
    pub fn finish(mut self, summary: &mut Summary) -> Result<(), Error> {
        if !summary.input_failed() {
            if let Some((deferred, input)) = self.deferred.take() {
                self.unique = None;
                // The run's time includes writing what waited.
                let start = std::time::Instant::now();
                self.write_deferred(deferred, input, summary)?;
                summary.elapsed += start.elapsed();
            }
            let out = match self.out {
                Target::Text(out) => out,
                Target::Table(t) => {
                    let path = t.output().path().to_path_buf();
                    t.finish().map_err(|source| crate::io::OutputError::writing(&path, source))?
                }
            };
            let keys = self.keys.map(|(k, _)| k);
            crate::io::Output::finish_all(std::iter::once(out).chain(keys))?;
        }
        Ok(())
    }

    /// Writes the records of `chunk` whose positions are new under `--unique`, as long as the
    /// set has room; the rest whose positions it does not hold are deferred. Returns how many
    /// were written.
    fn release_unique(&mut self, chunk: &PositionsChunk) -> Result<u64, Error> {
        let Some(u) = self.unique.as_mut() else { return Ok(0) };
        let (mut from, mut kept) = (0, 0);
        if self.deferred.is_none() {
            // A record's length in the keys part: its bytes, or its one row.
            let f = match (&mut self.out, self.keys.as_mut()) {
                (Target::Text(out), Some((_, pending))) => {
                    let put =
                        |r: &RecordKey, len| crate::jobs::keys::put_position(pending, r.hash, &r.key, len);
                    u.filter_keyed(&chunk.keys, |r| out.write_all(&chunk.bytes[r]), put)
                }
                (Target::Text(out), None) => u.filter(&chunk.keys, |r| out.write_all(&chunk.bytes[r])),
                (Target::Table(t), Some((_, pending))) => {
                    let put =
                        |r: &RecordKey, len| crate::jobs::keys::put_position(pending, r.hash, &r.key, len);
                    u.filter_keyed(&chunk.keys, |r| t.append(&chunk.table, r), put)
                }
                (Target::Table(t), None) => u.filter(&chunk.keys, |r| t.append(&chunk.table, r)),
            }
            .map_err(|e| self.out.out().error(e))?;
            kept = f.kept;
            let Some(stopped) = f.stopped else { return Ok(kept) };
            from = stopped;
            let schema = match &self.out {
                Target::Table(t) => Some(t.schema().clone()),
                Target::Text(_) => None,
            };
            let d = Deferred::new(schema.as_ref(), self.keys.is_some()).map_err(spill)?;
            self.deferred = Some((d, self.inputs.saturating_sub(1)));
        }
        let Some((d, _)) = self.deferred.as_mut() else { return Ok(kept) };
        let mut start = from.checked_sub(1).map_or(0, |i| chunk.keys[i].end);
        // A table's deferred rows, appended a run at a time.
        let mut run = Run::at(start);
        for r in &chunk.keys[from..] {
            if u.offer(r.hash, &r.key) == Offered::Undecided {
                match &self.out {
                    Target::Text(_) => d.push_text(r.hash, &r.key, &chunk.bytes[start..r.end]),
                    Target::Table(_) => {
                        if let Some(done) = run.extend(start..r.end) {
                            d.push_rows(&chunk.table, done).map_err(spill)?;
                        }
                        d.push_row(r.hash, &r.key)
                    }
                }
                .map_err(spill)?;
            }
            start = r.end;
        }
        if let Some(done) = run.take() {
            d.push_rows(&chunk.table, done).map_err(spill)?;
        }
        Ok(kept)
    }

    /// Writes the records of `part` (a chunk, or a part of one spilled), and its positions to a
    /// shard's keys part; returns how many were written.
    fn release_part(&mut self, part: &PositionsChunk) -> Result<u64, Error> {
        if let Some((_, pending)) = &mut self.keys {
            pending.clear();
        }
        let written = match (&mut self.out, self.unique.is_some()) {
            (_, true) => self.release_unique(part)?,
            (Target::Text(out), false) => {
                out.write_all(&part.bytes).map_err(|e| out.error(e))?;
                part.records
            }
            (Target::Table(t), false) => {
                t.append(&part.table, 0..part.table.rows()).map_err(|e| t.output().error(e))?;
                part.records
            }
        };
        if let Some((k, pending)) = &mut self.keys {
            k.write_all(pending).map_err(|e| k.error(e))?;
        }
        Ok(written)
    }

    /// Writes the first of each position among the records `--unique` deferred, in order, the
    /// first of them read from the input numbered `input`, and counts them in `summary`.
    fn write_deferred(
        &mut self,
        deferred: Deferred,
        input: usize,
        summary: &mut Summary,
    ) -> Result<(), Error> {
        let (out, keys) = (&mut self.out, &mut self.keys);
        let (mut input, mut written, mut entry) = (input, 0u64, Vec::new());
        let count = |summary: &mut Summary, input: usize, written: &mut u64| {
            summary.stats.add(Counter::PositionsWritten, *written);
            if let Some(i) = summary.inputs.get_mut(input) {
                i.stats.add(Counter::PositionsWritten, *written);
            }
            *written = 0;
        };
        let requested = self.requested;
        deferred.resolve(|kept| {
            if requested() {
                return Err(Error::Interrupted);
            }
            entry.clear();
            let len = match kept {
                Kept::Input(name) => {
                    count(summary, input, &mut written);
                    input += 1;
                    crate::jobs::keys::put_input(&mut entry, name);
                    None
                }
                Kept::Text { key, text } => {
                    let Target::Text(o) = out else { unreachable!("text candidates of a table") };
                    o.write_all(text).map_err(|e| o.error(e))?;
                    Some((key, text.len()))
                }
                Kept::Row { key } => Some((key, 1)),
                Kept::Rows { batch, rows } => {
                    let Target::Table(t) = out else { unreachable!("row candidates of text") };
                    t.append(batch, rows).map_err(|e| t.output().error(e))?;
                    None
                }
            };
            if let Some((key, len)) = len {
                written += 1;
                if let Some((hash, key)) = key {
                    crate::jobs::keys::put_position(&mut entry, hash, key, len);
                }
            }
            if let Some((k, _)) = keys.as_mut() {
                k.write_all(&entry).map_err(|e| k.error(e))?;
            }
            Ok::<(), Error>(())
        })?;
        count(summary, input, &mut written);
        Ok(())
    }
}

impl<W: Write> Sink<PositionsChunk> for Writer<W> {
    fn begin_input(&mut self, input: &Name) -> Result<(), Error> {
        self.file = input.prose().to_string();
        let input = input.text();
        self.inputs += 1;
        if let Some((d, _)) = &mut self.deferred {
            return d.begin_input(input).map_err(spill);
        }
        if let Some((k, pending)) = &mut self.keys {
            pending.clear();
            crate::jobs::keys::put_input(pending, input);
            k.write_all(pending).map_err(|e| k.error(e))?;
        }
        Ok(())
    }

    fn release(&mut self, mut chunk: PositionsChunk, stats: &mut Stats) -> Result<(), Error> {
        for d in &chunk.diagnostics {
            let _ = writeln!(self.diagnostics, "{}", diagnostics::diagnostic_text(&self.file, d));
        }
        let mut part = std::mem::take(&mut self.part);
        let mut written = 0;
        let result = spill::for_each_part(&mut chunk, &mut part, |p| {
            written += self.release_part(p)?;
            Ok(())
        });
        self.part = part;
        stats.add(Counter::PositionsWritten, written);
        result?;
        self.spares.give(chunk);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), Error> {
        match &mut self.out {
            Target::Text(out) => Ok(out.flush_followed()?),
            Target::Table(_) => Ok(()),
        }
    }
}

fn spill(e: std::io::Error) -> Error {
    Error::Spill(e.into())
}

#[cfg(test)]
mod tests;
