//! The release side of `annotate`: writes each game's text (PGN or JSON Lines) in input order,
//! reports the diagnostics as text, and at the end writes the JSON Lines summary and puts the
//! output in place, unless the run was interrupted or an input failed (then nothing is left under
//! the output's final name).

use std::io::Write;

use serde_json::{Value, json};

use super::{
    ANALYSED, AnnotatedChunk, CACHE_HITS, CRASHED, ENGINE_MICROSECONDS, Format, POSITIONS, TIMED_OUT,
    UNEVALUATED,
};
use crate::analysis::cache::CacheStats;
use crate::error::Error;
use crate::io::Output;
use crate::jobs::diagnostics;
use crate::jobs::run::{Sink, Summary};
use crate::pipeline::stats::Stats;

/// The release side of `annotate`; diagnostics go to `diagnostics` as text.
pub struct AnnotateWriter<W> {
    out: Output,
    diagnostics: W,
    format: Format,
    engines: usize,
    file: String,
    /// JSON Lines end with the summary record (not a shard's part: `merge` writes it).
    summary: bool,
}

impl<W: Write> AnnotateWriter<W> {
    /// A writer of `format` to `out`, for a run with `engines` engines.
    pub fn new(out: Output, diagnostics: W, format: Format, engines: usize) -> AnnotateWriter<W> {
        AnnotateWriter { out, diagnostics, format, engines, file: String::new(), summary: true }
    }

    /// The same writer for a shard's part: without the summary record.
    pub fn part(self) -> AnnotateWriter<W> {
        AnnotateWriter { summary: false, ..self }
    }

    /// Ends the output: the summary record (JSON Lines), then the file put in place; with
    /// `cache`, its counters go in the summary.
    pub fn finish(mut self, summary: &Summary, cache: Option<CacheStats>) -> Result<(), Error> {
        if summary.stopped.is_some() || summary.input_failed() {
            return Ok(()); // dropped: the temporary file goes
        }
        if self.format == Format::Jsonl && self.summary {
            let record = summary_json(summary, cache, self.engines);
            writeln!(self.out, "{record}").map_err(|e| Error::Output(self.out.error(e)))?;
        }
        self.out.finish()?;
        Ok(())
    }
}

/// The share of `engines` x the run's wall time that the workers spent waiting on their engines.
fn busy_share(summary: &Summary, engines: usize) -> f64 {
    let engine_secs = summary.stats.get(ENGINE_MICROSECONDS) as f64 / 1e6;
    engine_secs / (engines.max(1) as f64 * summary.elapsed.as_secs_f64().max(1e-9))
}

/// The run's summary record: the usual one, with the positions, the analyses, how busy the
/// `engines` were, and the cache.
pub fn summary_json(summary: &Summary, cache: Option<CacheStats>, engines: usize) -> Value {
    let stats = &summary.stats;
    let mut record = diagnostics::summary_json("annotate", stats, summary.elapsed);
    record["data"]["positions"] = stats.get(POSITIONS).into();
    record["data"]["analysed"] = stats.get(ANALYSED).into();
    record["data"]["engines"] = engines.into();
    record["data"]["engine_busy"] = busy_share(summary, engines).into();
    record["data"]["unevaluated"] = stats.get(UNEVALUATED).into();
    record["data"]["timed_out"] = stats.get(TIMED_OUT).into();
    record["data"]["crashed"] = stats.get(CRASHED).into();
    record["data"]["cache"] = match cache {
        Some(c) => {
            json!({"hits": stats.get(CACHE_HITS), "lookups": c.hits + c.misses, "hit_share": c.hit_share()})
        }
        None => Value::Null,
    };
    record
}

/// The run's closing lines for stderr: the usual summary (positions, analyses, cache hits among
/// the counts), why positions were left without an evaluation, how busy the `engines` were,
/// then the cache's share of the lookups.
pub fn summary_text(summary: &Summary, cache: Option<CacheStats>, engines: usize) -> String {
    let stats = &summary.stats;
    let mut text = diagnostics::summary_text("annotate", stats, summary.elapsed);
    let unevaluated = stats.get(UNEVALUATED);
    if unevaluated > 0 {
        let (hung, crashed) = (stats.get(TIMED_OUT), stats.get(CRASHED));
        let other = unevaluated.saturating_sub(hung + crashed);
        text.push_str(&format!(
            "pgnkit annotate: unevaluated positions: {hung} the engine hung or timed out on, \
             {crashed} it crashed on at every try, {other} other (each named by a diagnostic)\n"
        ));
    }
    if stats.get(ANALYSED) > 0 {
        let share = 100.0 * busy_share(summary, engines);
        let wall = summary.elapsed.as_secs_f64();
        text.push_str(&format!("pgnkit annotate: engines busy {share:.1}% of {engines} x {wall:.2} s\n"));
    }
    let cache = match cache {
        Some(c) if c.hits + c.misses > 0 => {
            format!("cache: {} hits of {} lookups ({:.1}%)", c.hits, c.hits + c.misses, 100.0 * c.hit_share())
        }
        Some(_) => "cache: no lookups".to_string(),
        None => "no cache".to_string(),
    };
    text.push_str(&format!("pgnkit annotate: {cache}\n"));
    text
}

impl<W: Write> Sink<AnnotatedChunk> for AnnotateWriter<W> {
    fn begin_input(&mut self, input: &str) -> Result<(), Error> {
        self.file = input.to_string();
        Ok(())
    }

    fn release(&mut self, chunk: AnnotatedChunk, _: &mut Stats) -> Result<(), Error> {
        for d in &chunk.diagnostics {
            let _ = writeln!(self.diagnostics, "{}", diagnostics::diagnostic_text(&self.file, d));
        }
        self.out.write_all(&chunk.out).map_err(|e| Error::Output(self.out.error(e)))
    }
}
