//! The release side of `clean`: writes each game where its fate sends it (the output, the rejects
//! or the duplicates file, as read), removes duplicates across the run, writes the report, and
//! keeps the ledger: every game read is written, rejected, filtered out or a duplicate.

use std::io::Write;
use std::sync::Arc;

use serde_json::{Value, json};

use super::dedup::{Dedup, DedupError, Plan, Seen};
use super::{Clean, CleanChunk, CleanGame, CleanOptions, Fate};
use crate::error::Error;
use crate::io::Output;
use crate::jobs::diagnostics;
use crate::jobs::run::{Sink, Summary};
use crate::pipeline::Spares;
use crate::pipeline::counter::Counter;
use crate::pipeline::stats::Stats;

/// Where `clean` writes.
pub struct Outputs {
    /// The games in export format.
    pub out: Output,
    /// The rejected games, as read.
    pub rejects: Option<Output>,
    /// The duplicates, as read.
    pub duplicates: Option<Output>,
    /// JSON Lines: one record per repair, rejection, filtered game and duplicate, then a summary.
    pub report: Option<Output>,
}

/// Writes `bytes` to `out`, an output failure as an [`Error`].
fn write(out: &mut Output, bytes: &[u8]) -> Result<(), Error> {
    out.write_all(bytes).map_err(|e| Error::Output(out.error(e)))
}

/// The release side of `clean`; error diagnostics of rejected games go to `diagnostics` as text.
pub struct CleanWriter<W> {
    outputs: Outputs,
    diagnostics: W,
    dedup: Dedup,
    /// Each input's name and the ordinal of its first game over the run (with
    /// `--dedup=prefix`, every input, as the first pass read them).
    inputs: Vec<(String, u64)>,
    /// The input being read, in `inputs`.
    current: usize,
    /// Games released so far over the run.
    ordinal: u64,
    /// Where a released chunk's buffers go back to the workers.
    spares: Arc<Spares<CleanChunk>>,
    /// The job's options (the summary names the filters' absent tags).
    opts: Arc<CleanOptions>,
    /// The report ends with the summary record (not a shard's part: `merge` writes it).
    summary: bool,
}

impl<W: Write> CleanWriter<W> {
    /// The release side of `job`'s chunks, writing to `outputs`: it removes duplicates when the
    /// job's options say so (under `--dedup=prefix`, use [`CleanWriter::planned`]), and hands
    /// each chunk's buffers back to the job's workers.
    pub fn new(job: &Clean, outputs: Outputs, diagnostics: W) -> CleanWriter<W> {
        let dedup = job.options().dedup.map_or(Dedup::Off, |rule| Dedup::Once(Seen::new(rule)));
        CleanWriter::with(job, outputs, diagnostics, dedup, Vec::new())
    }

    /// The writing pass of `--dedup=prefix`, after the first pass made `plan` ([`Survey`]).
    ///
    /// [`Survey`]: super::Survey
    pub fn planned(job: &Clean, outputs: Outputs, diagnostics: W, plan: Plan) -> CleanWriter<W> {
        let inputs = plan.inputs().to_vec();
        CleanWriter::with(job, outputs, diagnostics, Dedup::Planned(plan), inputs)
    }

    fn with(
        job: &Clean,
        outputs: Outputs,
        diagnostics: W,
        dedup: Dedup,
        inputs: Vec<(String, u64)>,
    ) -> CleanWriter<W> {
        let (spares, opts) = (job.spares.clone(), job.opts.clone());
        CleanWriter {
            outputs,
            diagnostics,
            dedup,
            inputs,
            current: usize::MAX,
            ordinal: 0,
            spares,
            opts,
            summary: true,
        }
    }

    /// The same writer for a shard's parts: the report without its summary record.
    pub fn part(self) -> CleanWriter<W> {
        CleanWriter { summary: false, ..self }
    }

    fn file(&self) -> &str {
        self.inputs.get(self.current).map_or("", |(f, _)| f.as_str())
    }

    /// The input and game number (1-based) of the game released `ordinal`-th over the run.
    fn locate(&self, ordinal: u64) -> (&str, u64) {
        let i = self.inputs.partition_point(|&(_, first)| first <= ordinal).saturating_sub(1);
        let (file, first) = &self.inputs[i];
        (file, ordinal - first + 1)
    }

    /// Writes the record `make` builds, when there is a report: without one nothing is built.
    fn report(&mut self, make: impl FnOnce(&Self) -> Value) -> Result<(), Error> {
        if self.outputs.report.is_none() {
            return Ok(());
        }
        let record = make(self);
        if let Some(out) = &mut self.outputs.report {
            writeln!(out, "{record}").map_err(|e| Error::Output(out.error(e)))?;
        }
        Ok(())
    }

    /// A report record about game `g` of the current input.
    fn record(&self, kind: &str, g: &CleanGame, mut data: Value) -> Value {
        data["file"] = self.file().into();
        data["game"] = g.game.into();
        data["line"] = g.line.into();
        data["offset"] = g.offset.into();
        json!({"type": kind, "data": data})
    }

    /// Writes the report's summary (the ledger per input and in total), then puts every output
    /// in place, unless the run was interrupted or an input could not be read to its end: then
    /// no output is left under its final name.
    pub fn finish(mut self, summary: &Summary) -> Result<(), Error> {
        if summary.stopped.is_some() || summary.input_failed() {
            return Ok(()); // dropped: the temporary files go
        }
        if let Dedup::Planned(plan) = &self.dedup
            && !plan.complete()
        {
            return Err(DedupError::PassesDiffer.into());
        }
        if self.summary {
            let mut total = report_summary(summary);
            if let Some(absent) = self.opts.select.absent_json(&summary.stats) {
                total["data"]["where_absent"] = absent;
            }
            self.report(|_| total)?;
        }
        let Outputs { out, rejects, duplicates, report } = self.outputs;
        out.finish()?;
        for o in [rejects, duplicates, report].into_iter().flatten() {
            o.finish()?;
        }
        Ok(())
    }
}

/// The report's summary record: the usual summary with the ledger in total and per input (what
/// a single run writes last, and `merge` from the shards' ledgers).
pub fn report_summary(summary: &Summary) -> Value {
    let ledger = |stats: &Stats| {
        let repairs: serde_json::Map<String, Value> = stats
            .counts
            .iter()
            .filter_map(|&(c, n)| match c {
                Counter::Repaired(kind) => Some((kind.code().to_string(), json!(n))),
                _ => None,
            })
            .collect();
        json!({
            "read": stats.games, "written": stats.get(Counter::Written), "rejected": stats.get(Counter::Rejected),
            "filtered": stats.get(Counter::Filtered), "duplicates": stats.get(Counter::Duplicates),
            "kept_broken": stats.get(Counter::KeptBroken), "repairs": repairs,
        })
    };
    let inputs: Vec<Value> = summary
        .inputs
        .iter()
        .map(|i| {
            let mut l = ledger(&i.stats);
            l["file"] = i.name.clone().into();
            l
        })
        .collect();
    let mut total = diagnostics::summary_json("clean", &summary.stats, summary.elapsed);
    total["data"]["ledger"] = ledger(&summary.stats);
    total["data"]["inputs"] = inputs.into();
    total
}

impl<W: Write> Sink<CleanChunk> for CleanWriter<W> {
    fn begin_input(&mut self, input: &str) -> Result<(), Error> {
        self.current = self.current.wrapping_add(1);
        match (&self.dedup, self.inputs.get(self.current)) {
            (Dedup::Planned(_), Some((name, first))) if name == input && *first == self.ordinal => Ok(()),
            (Dedup::Planned(_), _) => Err(DedupError::InputChanged { input: input.to_string() }.into()),
            _ => {
                self.inputs.push((input.to_string(), self.ordinal));
                Ok(())
            }
        }
    }

    fn release(&mut self, chunk: CleanChunk, stats: &mut Stats) -> Result<(), Error> {
        for d in &chunk.diagnostics {
            let _ = writeln!(self.diagnostics, "{}", diagnostics::diagnostic_text(self.file(), d));
        }
        // Games written one after the other are one run of `chunk.out`, written in one call (a
        // run longer than the output's buffer skips the copy into it).
        let mut run = 0..0;
        for g in &chunk.games {
            self.ordinal += 1;
            let verbatim = &chunk.verbatim[g.verbatim.clone()];
            match &g.fate {
                Fate::Written | Fate::Broken { .. } => {
                    let game = g.dedup.as_ref().map(|id| (id, &chunk.prefixes[g.prefixes.clone()]));
                    let file = self.inputs.get(self.current).map_or("", |(f, _)| f.as_str());
                    if let Some(repeat) = self.dedup.next(game, file, g.game)? {
                        self.report(|w| {
                            let (file, game) = w.locate(repeat.of);
                            let of = json!({"file": file, "game": game});
                            w.record("duplicate", g, json!({"rule": repeat.rule.name(), "of": of}))
                        })?;
                        if let Some(out) = &mut self.outputs.duplicates {
                            if g.verbatim.is_empty() {
                                return Err(Error::Internal(
                                    "a duplicates file without CleanOptions::keep_duplicates",
                                ));
                            }
                            write(out, verbatim)?;
                        }
                        stats.add(Counter::Duplicates, 1);
                        continue;
                    }
                    if g.text.start != run.end {
                        write(&mut self.outputs.out, &chunk.out[run])?;
                        run = g.text.start..g.text.start;
                    }
                    run.end = g.text.end;
                    stats.add(Counter::Written, 1);
                    if let Fate::Broken { kind, message } = &g.fate {
                        stats.add(Counter::KeptBroken, 1);
                        self.report(|w| {
                            w.record("kept_broken", g, json!({"kind": kind.code(), "message": message}))
                        })?;
                    }
                    for r in &chunk.repairs[g.repairs.clone()] {
                        stats.add(Counter::Repaired(r.kind), 1);
                        self.report(|w| {
                            let data = json!({"kind": r.kind.code(), "before": r.before, "after": r.after});
                            w.record("repair", g, data)
                        })?;
                    }
                }
                Fate::Rejected { kind, message } => {
                    let file = self.inputs.get(self.current).map_or("", |(f, _)| f.as_str());
                    self.dedup.next(None, file, g.game)?;
                    if let Some(out) = &mut self.outputs.rejects {
                        write(out, verbatim)?;
                    }
                    stats.add(Counter::Rejected, 1);
                    self.report(|w| {
                        w.record("rejected", g, json!({"kind": kind.code(), "message": message}))
                    })?;
                }
                Fate::Filtered { by } => {
                    let file = self.inputs.get(self.current).map_or("", |(f, _)| f.as_str());
                    self.dedup.next(None, file, g.game)?;
                    stats.add(Counter::Filtered, 1);
                    self.report(|w| w.record("filtered", g, json!({"by": by})))?;
                }
            }
        }
        write(&mut self.outputs.out, &chunk.out[run])?;
        self.spares.give(chunk);
        Ok(())
    }
}
