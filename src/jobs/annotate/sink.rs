//! The release side of `annotate`: writes each game's text (PGN or JSON Lines) or rows (Parquet)
//! in input order, reports the diagnostics as text, and at the end writes the JSON Lines summary
//! and puts the output in place, unless the run was interrupted or an input failed (then nothing
//! is left under the output's final name). The summaries give the run's pace by position (positions a second,
//! wall time a position, the engines' time a position searched), not by input megabyte.

use std::io::Write;

use serde_json::{Value, json};

use super::{AnnotatedChunk, Format};
use crate::columnar::Batch;
use crate::columnar::write::TableWriter;
use crate::error::Error;
use crate::io::name::Name;
use crate::io::{Output, OutputError};
use crate::jobs::diagnostics::{self, Records};
use crate::jobs::run::{Sink, Summary};
use crate::pipeline::counter::Counter;
use crate::pipeline::stats::Stats;
use crate::select::Selection;

/// Where the records go: text, or the rows of a Parquet table.
#[allow(clippy::large_enum_variant)] // one per run
enum Dest {
    Text(Output),
    Table(TableWriter<Output>),
}

/// The release side of `annotate`; diagnostics go to `diagnostics` as text.
pub struct AnnotateWriter<W> {
    out: Dest,
    diagnostics: W,
    format: Format,
    engines: usize,
    file: String,
    /// JSON Lines end with the summary record (not a shard's part: `merge` writes it).
    summary: bool,
    /// A chunk's rows read back from disk, a group at a time.
    part: Batch,
}

impl<W: Write> AnnotateWriter<W> {
    /// A writer of `format` to `out`, for a run with `engines` engines; `epd_columns`: the
    /// Parquet table's position as EPD columns.
    pub fn new(
        out: Output,
        diagnostics: W,
        format: Format,
        engines: usize,
        epd_columns: bool,
    ) -> Result<AnnotateWriter<W>, Error> {
        let schema = super::table::schema(epd_columns);
        let out = match format {
            Format::Parquet => {
                let path = out.path().to_path_buf();
                let table =
                    TableWriter::new(out, &schema).map_err(|source| OutputError::writing(&path, source))?;
                Dest::Table(table)
            }
            _ => Dest::Text(out),
        };
        let part = Batch::new(&schema);
        Ok(AnnotateWriter { out, diagnostics, format, engines, file: String::new(), summary: true, part })
    }

    /// The same writer for a shard's part: without the summary record.
    pub fn part(self) -> AnnotateWriter<W> {
        AnnotateWriter { summary: false, ..self }
    }

    /// Ends the output: the summary record (JSON Lines), then the file put in place; with
    /// `cached` (a cache was used), its counts go in the summary, and the `--where` expressions of `select` whose
    /// tags no game had under `where_absent`.
    pub fn finish(self, summary: &Summary, cached: bool, select: &Selection) -> Result<(), Error> {
        if summary.stopped.is_some() || summary.input_failed() {
            return Ok(()); // dropped: the temporary file goes
        }
        let mut out = match self.out {
            Dest::Text(out) => out,
            Dest::Table(table) => {
                let path = table.output().path().to_path_buf();
                table.finish().map_err(|source| OutputError::writing(&path, source))?.finish()?;
                return Ok(());
            }
        };
        if self.format == Format::Jsonl && self.summary {
            let mut record = summary_json(summary, cached, self.engines);
            if let Some(absent) = select.absent_json(&summary.stats) {
                record["data"]["where_absent"] = absent;
            }
            writeln!(out, "{record}").map_err(|e| Error::Output(out.error(e)))?;
        }
        out.finish()?;
        Ok(())
    }
}

/// The cache's hits and the positions looked up in it, of the same games.
fn cache_counts(stats: &Stats) -> (u64, u64) {
    (stats.get(Counter::CacheHits), stats.get(Counter::CacheLookups))
}

/// `part` of `whole` in [0, 1] (0 of nothing).
fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 { 0.0 } else { part as f64 / whole as f64 }
}

/// The share of `engines` x the run's wall time that the workers spent waiting on their engines.
fn busy_share(summary: &Summary, engines: usize) -> f64 {
    let engine_secs = summary.stats.get(Counter::EngineMicroseconds) as f64 / 1e6;
    engine_secs / (engines.max(1) as f64 * summary.elapsed.as_secs_f64().max(1e-9))
}

/// The run's pace by position.
struct Pace {
    /// Mainline positions of the annotated games.
    positions: u64,
    /// Wall time of the run, in seconds.
    wall: f64,
    /// Positions a second of wall time.
    per_second: f64,
    /// Wall time a position (`None` without positions).
    wall_per_position: Option<f64>,
    /// The engines' time a position searched, in seconds (`None` when none was searched).
    engine_per_search: Option<f64>,
}

impl Pace {
    fn of(summary: &Summary) -> Pace {
        let stats = &summary.stats;
        let wall = summary.elapsed.as_secs_f64().max(1e-9);
        let positions = stats.get(Counter::Positions);
        let searched = stats.get(Counter::Analysed);
        Pace {
            positions,
            wall,
            per_second: positions as f64 / wall,
            wall_per_position: (positions > 0).then(|| wall / positions as f64),
            engine_per_search: (searched > 0)
                .then(|| stats.get(Counter::EngineMicroseconds) as f64 / 1e6 / searched as f64),
        }
    }
}

/// A duration in seconds with three significant digits and a unit that suits it: `48.1 µs`,
/// `5.35 ms`, `153 ms`, `1.52 s`.
fn duration_text(secs: f64) -> String {
    let (value, unit) = match secs {
        s if s >= 1.0 => (s, "s"),
        s if s >= 1e-3 => (s * 1e3, "ms"),
        s => (s * 1e6, "µs"),
    };
    let decimals = match value {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        _ => 2,
    };
    format!("{value:.decimals$} {unit}")
}

/// The run's summary record: the usual one, with the positions, the analyses, the pace by
/// position (`positions_per_s`, `seconds_per_position` of wall time and
/// `engine_seconds_per_position` searched; `null` without such positions), how busy the
/// `engines` were, and the cache's hits among the positions looked up in it (`cached`: a cache
/// was used), counted like every other figure over the games the run went through.
pub fn summary_json(summary: &Summary, cached: bool, engines: usize) -> Value {
    let stats = &summary.stats;
    let pace = Pace::of(summary);
    let mut record = diagnostics::summary_json("annotate", stats, summary.elapsed);
    record["data"]["positions"] = stats.get(Counter::Positions).into();
    record["data"]["analysed"] = stats.get(Counter::Analysed).into();
    record["data"]["positions_per_s"] = pace.per_second.into();
    record["data"]["seconds_per_position"] = pace.wall_per_position.into();
    record["data"]["engine_seconds_per_position"] = pace.engine_per_search.into();
    record["data"]["engines"] = engines.into();
    record["data"]["engine_busy"] = busy_share(summary, engines).into();
    record["data"]["unevaluated"] = stats.get(Counter::Unevaluated).into();
    record["data"]["timed_out"] = stats.get(Counter::TimedOut).into();
    record["data"]["crashed"] = stats.get(Counter::Crashed).into();
    record["data"]["cache"] = if cached {
        let (hits, lookups) = cache_counts(stats);
        json!({"hits": hits, "lookups": lookups, "hit_share": share(hits, lookups)})
    } else {
        Value::Null
    };
    record
}

/// The run's closing lines for stderr: the usual summary (of `records`: lines under `--format epd`) with the
/// pace by position (positions, analyses, cache hits among the counts), why positions were left
/// without an evaluation, the engines' time a position searched and how busy the `engines` were,
/// then the cache's hits among the positions looked up in it (`cached`: a cache was used); all of
/// the games the run went through, those an interrupt left unfinished not counted; `unkept`:
/// the output, when it was not kept (see [`diagnostics::summary_text`]).
pub fn summary_text(
    summary: &Summary,
    cached: bool,
    engines: usize,
    records: Records,
    unkept: Option<&str>,
) -> String {
    let pace = Pace::of(summary);
    let mut head =
        format!("{} in {:.2} s", diagnostics::counted(pace.positions, "position", "positions"), pace.wall);
    if let Some(each) = pace.wall_per_position {
        head.push_str(&format!(" ({:.1} positions/s, {} a position)", pace.per_second, duration_text(each)));
    }
    // The engines' time is said per position below, the cache's lookups on its line: not as counts.
    let mut stats = summary.stats.clone();
    stats
        .counts
        .retain(|&(counter, _)| !matches!(counter, Counter::EngineMicroseconds | Counter::CacheLookups));
    let mut text = diagnostics::summary_lines("annotate", records, &stats, &head, unkept);
    let unevaluated = stats.get(Counter::Unevaluated);
    if unevaluated > 0 {
        let (hung, crashed) = (stats.get(Counter::TimedOut), stats.get(Counter::Crashed));
        let other = unevaluated.saturating_sub(hung + crashed);
        text.push_str(&format!(
            "pgnkit annotate: unevaluated positions: {hung} the engine hung or timed out on, \
             {crashed} it crashed on at every try, {other} other (a diagnostic of their game says why)\n"
        ));
    }
    if let Some(each) = pace.engine_per_search {
        let share = 100.0 * busy_share(summary, engines);
        text.push_str(&format!(
            "pgnkit annotate: engine time {} a position searched ({} searched); engines busy {share:.1}% of {engines} x {:.2} s\n",
            duration_text(each),
            stats.get(Counter::Analysed),
            pace.wall
        ));
    }
    let cache = match (cached, cache_counts(&summary.stats)) {
        (true, (hits, lookups)) if lookups > 0 => {
            format!(
                "cache: {hits} hits of {lookups} positions looked up ({:.1}%)",
                100.0 * share(hits, lookups)
            )
        }
        (true, _) => "cache: no lookups".to_string(),
        (false, _) => "no cache".to_string(),
    };
    text.push_str(&format!("pgnkit annotate: {cache}\n"));
    text
}

impl<W: Write> Sink<AnnotatedChunk> for AnnotateWriter<W> {
    fn begin_input(&mut self, input: &Name) -> Result<(), Error> {
        self.file = input.prose().into();
        Ok(())
    }

    fn release(&mut self, chunk: AnnotatedChunk, _: &mut Stats) -> Result<(), Error> {
        for d in &chunk.diagnostics {
            let _ = writeln!(self.diagnostics, "{}", diagnostics::diagnostic_text(&self.file, d));
        }
        match &mut self.out {
            Dest::Text(out) => chunk.out.write_to(out).map_err(|e| match e {
                Ok(read) => Error::Spill(read.into()),
                Err(write) => Error::Output(out.error(write)),
            }),
            Dest::Table(table) => chunk
                .table
                .for_each_group(&mut self.part, |rows| table.append(rows, 0..rows.rows()))
                .map_err(|e| match e {
                    Ok(read) => Error::Spill(read.into()),
                    Err(write) => Error::Output(table.output().error(write)),
                }),
        }
    }

    fn flush(&mut self) -> Result<(), Error> {
        match &mut self.out {
            Dest::Text(out) => Ok(out.flush_followed()?),
            Dest::Table(_) => Ok(()),
        }
    }
}
