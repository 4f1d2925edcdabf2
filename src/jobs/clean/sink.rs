//! The release side of `clean`: writes each game where its fate sends it (the output, the rejects
//! or the duplicates file, as read), removes duplicates across the run, writes the report, and
//! keeps the ledger: every game read is written, rejected, filtered out or a duplicate.

use std::io::Write;
use std::sync::Arc;

use serde_json::{Value, json};

use super::dedup::late::{self, Late, Place, Waiting};
use super::dedup::{Dedup, Repeat};
use super::spill::{self, Bytes};
use super::{Clean, CleanChunk, CleanGame, CleanOptions, Fate, Rule};
use crate::error::Error;
use crate::io::Output;
use crate::io::name::Name;
use crate::io::run::Run;
use crate::jobs::diagnostics;
use crate::jobs::keys::{self, GameEntry};
use crate::jobs::run::{Sink, Summary};
use crate::pipeline::Spares;
use crate::pipeline::counter::{Counter, RepairKind};
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

/// Counts a game written: kept broken or not, with its repairs (each kind and how many).
fn count_written(stats: &mut Stats, broken: bool, repairs: impl Iterator<Item = (RepairKind, u64)>) {
    stats.add(Counter::Written, 1);
    if broken {
        stats.add(Counter::KeptBroken, 1);
    }
    for (kind, n) in repairs {
        stats.add(Counter::Repaired(kind), n);
    }
}

/// Each kind of repair game `g` of `chunk` has, and how many.
fn repairs_of<'c>(
    g: &CleanGame,
    chunk: &'c CleanChunk,
) -> impl ExactSizeIterator<Item = (RepairKind, u64)> + 'c {
    chunk.tallies[g.tally.clone()].iter().map(|c| (c.kind, c.n))
}

/// The `unreported` record's data for `n` repairs of `kind` a game did not log.
fn unreported_data(kind: RepairKind, n: u64) -> Value {
    let message = format!("{n} {} repairs of this game not logged: counted in the ledger", kind.code());
    json!({"kind": kind.code(), "count": n, "message": message})
}

/// The release side of `clean`; error diagnostics of rejected games go to `diagnostics` as text.
pub struct CleanWriter<W> {
    outputs: Outputs,
    diagnostics: W,
    dedup: Dedup,
    /// The inputs, in the order read.
    inputs: Vec<InputAt>,
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
    /// A shard's keys part ([`keys`]), for `merge` to settle duplicates across shards.
    keys: Option<Output>,
    /// The keys part's game entries hold mainlines (`prefix`).
    key_lines: bool,
    /// Bytes written so far to the output, the duplicates and the report.
    at: [u64; 3],
    /// Distinct games `--dedup` holds before later games wait ([`Late`]).
    held: usize,
    /// The games waiting, once the set holds `held`.
    pub(super) late: Option<Late>,
    /// Bytes of a waiting game's text read back into memory ([`Late::new`]).
    spill_at: usize,
    /// Whether a stop was asked for, checked as the waiting games are judged and written.
    requested: fn() -> bool,
}

/// An input, as the writer numbers its games.
struct InputAt {
    name: Name,
    /// The ordinal over the run of its first game released.
    first: u64,
    /// That game's number in the input: past 1 when a shard starts past the input's first game.
    number: u64,
}

/// Where [`CleanWriter::at`] counts.
const OUT: usize = 0;
const DUP: usize = 1;
const REPORT: usize = 2;

/// The report record of a duplicate: game `game` (line `line`, byte `offset`) of `file`
/// repeats game `of.1` of `of.0` under `rule` (a shard's writer and `merge` both write it).
pub fn duplicate_record(
    rule: &str,
    of: (&Name, u64),
    file: &Name,
    game: u64,
    line: u64,
    offset: u64,
) -> Value {
    let of = json!({"file": of.0.json(), "game": of.1});
    let data =
        json!({"rule": rule, "of": of, "file": file.json(), "game": game, "line": line, "offset": offset});
    json!({"type": "duplicate", "data": data})
}

impl<W: Write> CleanWriter<W> {
    /// The release side of `job`'s chunks, writing to `outputs`: it removes duplicates when the
    /// job's options say so, and hands each chunk's buffers back to the job's workers. Under
    /// `--dedup=prefix` every game waits ([`Late`]): the longest record may come last.
    pub fn new(job: &Clean, outputs: Outputs, diagnostics: W) -> CleanWriter<W> {
        let (spares, opts) = (job.spares.clone(), job.opts.clone());
        CleanWriter {
            outputs,
            diagnostics,
            dedup: Dedup::of(job.options().dedup),
            inputs: Vec::new(),
            current: usize::MAX,
            ordinal: 0,
            spares,
            opts,
            summary: true,
            keys: None,
            key_lines: false,
            at: [0; 3],
            held: late::HELD,
            late: None,
            spill_at: job.spill_at,
            requested: || false,
        }
    }

    /// Asks `requested` whether to stop while the games waiting past the memory bound are
    /// judged and written at the end: then [`CleanWriter::finish`] fails with
    /// [`Error::Interrupted`] and no output is put in place.
    pub fn interruptible(self, requested: fn() -> bool) -> CleanWriter<W> {
        CleanWriter { requested, ..self }
    }

    /// The same writer holding at most `held` distinct games before later ones wait in
    /// temporary files (tests reach the bound with a few).
    pub fn holding(self, held: usize) -> CleanWriter<W> {
        CleanWriter { held, ..self }
    }

    /// The same writer for a shard's parts: the report without its summary record; with
    /// `--dedup`, `keys` gets the shard's keys part.
    pub fn part(self, keys: Option<Output>) -> Result<CleanWriter<W>, Error> {
        let mut w = CleanWriter { summary: false, keys, ..self };
        if let (Some(out), Dedup::Once(seen)) = (&mut w.keys, &w.dedup) {
            write(out, &keys::clean_header(seen.rule()))?;
            w.key_lines = seen.rule() == Rule::Prefix;
        }
        Ok(w)
    }

    fn file(&self) -> &Name {
        self.inputs.get(self.current).map_or(&crate::io::name::NONE, |i| &i.name)
    }

    /// The input and game number (1-based) of the game released `ordinal`-th over the run.
    fn locate(&self, ordinal: u64) -> (&Name, u64) {
        let (i, game) = self.locate_index(ordinal);
        (&self.inputs[i].name, game)
    }

    /// The input (its index in `inputs`) and game number (1-based) of the game released
    /// `ordinal`-th over the run.
    fn locate_index(&self, ordinal: u64) -> (usize, u64) {
        let i = self.inputs.partition_point(|input| input.first <= ordinal).saturating_sub(1);
        let input = &self.inputs[i];
        (i, ordinal - input.first + input.number)
    }

    /// The report records of written game `g`: kept broken, then its repairs logged, then per
    /// kind the count of those not logged.
    fn records(&self, g: &CleanGame, chunk: &CleanChunk) -> Vec<Value> {
        let mut records = Vec::new();
        if let Fate::Broken { kind, message, left_out } = &g.fate {
            let data = json!({"kind": kind.code(), "message": message, "left_out": left_out});
            records.push(self.record("kept_broken", g, data));
        }
        for r in &chunk.repairs[g.repairs.clone()] {
            let data = json!({"kind": r.kind.code(), "before": r.before, "after": r.after});
            let mut record = self.record("repair", g, data);
            if let Some(offset) = r.offset {
                record["data"]["line"] = (g.line + r.lines_in).into();
                record["data"]["offset"] = offset.into();
            }
            records.push(record);
        }
        for c in chunk.tallies[g.tally.clone()].iter().filter(|c| c.unlogged > 0) {
            records.push(self.record("unreported", g, unreported_data(c.kind, c.unlogged)));
        }
        records
    }

    /// The keys entry of game `g` of the current input, without its places and copies.
    fn entry(&self, g: &CleanGame, chunk: &CleanChunk) -> GameEntry {
        GameEntry {
            input: self.current as u32,
            game: g.game,
            line: g.line,
            offset: g.offset,
            id: g.dedup,
            broken: matches!(g.fate, Fate::Broken { .. }),
            repairs: repair_counts(repairs_of(g, chunk)),
            ..GameEntry::default()
        }
    }

    /// Writes `entry` to the keys part, its copies (`verbatim`, `text`, `records`) from
    /// `copies`, wherever they are.
    fn put_key(&mut self, entry: &GameEntry, copies: [Bytes<'_>; 3]) -> Result<(), Error> {
        if let Some(out) = &mut self.keys {
            let mut bytes = Vec::new();
            keys::put_game_facts(&mut bytes, entry, self.key_lines);
            write(out, &bytes)?;
            for copy in copies {
                write(out, &keys::put_copy_len(copy.len()))?;
                copy.write_to(out)?;
            }
        }
        Ok(())
    }

    /// Writes `bytes` to the output, the duplicates or the report ([`OUT`], [`DUP`],
    /// [`REPORT`]) when there is one, counting them in [`CleanWriter::at`].
    fn put(&mut self, part: usize, bytes: &[u8]) -> Result<(), Error> {
        let out = match part {
            OUT => Some(&mut self.outputs.out),
            DUP => self.outputs.duplicates.as_mut(),
            _ => self.outputs.report.as_mut(),
        };
        if let Some(out) = out {
            write(out, bytes)?;
            self.at[part] += bytes.len() as u64;
        }
        Ok(())
    }

    /// Writes `bytes` as [`CleanWriter::put`] does, wherever they are.
    fn put_bytes(&mut self, part: usize, bytes: Bytes<'_>) -> Result<(), Error> {
        let out = match part {
            OUT => Some(&mut self.outputs.out),
            DUP => self.outputs.duplicates.as_mut(),
            _ => self.outputs.report.as_mut(),
        };
        if let Some(out) = out {
            let n = bytes.len();
            bytes.write_to(out)?;
            self.at[part] += n;
        }
        Ok(())
    }

    /// Writes the record `make` builds, when there is a report: without one nothing is built.
    fn report(&mut self, make: impl FnOnce(&Self) -> Value) -> Result<(), Error> {
        if self.outputs.report.is_none() {
            return Ok(());
        }
        let record = format!("{}\n", make(self));
        self.put(REPORT, record.as_bytes())
    }

    /// A report record about game `g` of the current input.
    fn record(&self, kind: &str, g: &CleanGame, mut data: Value) -> Value {
        data["file"] = self.file().json().clone();
        data["game"] = g.game.into();
        data["line"] = g.line.into();
        data["offset"] = g.offset.into();
        // A game rejected or cut short: where its error stands too, as `check` locates it.
        if let (Some((offset, lines_in)), Fate::Rejected { .. } | Fate::Broken { .. }) = (g.error_at, &g.fate)
        {
            data["error_line"] = (g.line + lines_in).into();
            data["error_offset"] = offset.into();
        }
        json!({"type": kind, "data": data})
    }

    /// Writes the report's summary (the ledger per input and in total), then puts every output
    /// in place, unless the run was interrupted or an input could not be read to its end: then
    /// no output is left under its final name.
    pub fn finish(mut self, summary: &mut Summary) -> Result<(), Error> {
        if summary.stopped.is_some() || summary.input_failed() {
            return Ok(()); // dropped: the temporary files go
        }
        let mut in_part = match &self.dedup {
            Dedup::Once(seen) => seen.compared_in_part(),
            Dedup::Off => 0,
        };
        if let Some(late) = self.late.take() {
            let Dedup::Once(held) = std::mem::replace(&mut self.dedup, Dedup::Off) else {
                return Err(Error::Internal("games waiting without a set of distinct games"));
            };
            let requested = self.requested;
            // The run's time (the report's summary, a shard's manifest) includes this end.
            let start = std::time::Instant::now();
            in_part += late.resolve(&held, &requested, |w, verdict| self.replay(w, verdict, summary))?;
            summary.elapsed += start.elapsed();
        }
        if in_part > 0 {
            summary.stats.add(Counter::ComparedInPart, in_part);
        }
        if self.summary {
            let mut total = report_summary(summary);
            if let Some(absent) = self.opts.select.absent_json(&summary.stats) {
                total["data"]["where_absent"] = absent;
            }
            self.report(|_| total)?;
        }
        let Outputs { out, rejects, duplicates, report } = self.outputs;
        let all = [Some(out), rejects, duplicates, report, self.keys];
        Ok(Output::finish_all(all.into_iter().flatten())?)
    }
}

impl<W: Write> CleanWriter<W> {
    /// Writes game `g` (its text `verbatim`) to the rejects when rejected and counts it,
    /// rejected or filtered out; its report record when there is a report. Nothing for a game
    /// written.
    fn set_aside(
        &mut self,
        g: &CleanGame,
        verbatim: Bytes<'_>,
        stats: &mut Stats,
    ) -> Result<Option<Value>, Error> {
        // The record is built only for a report: filtered games can be most of a run.
        let report = self.outputs.report.is_some();
        Ok(match &g.fate {
            Fate::Rejected { kind, message } => {
                if let Some(out) = &mut self.outputs.rejects {
                    verbatim.write_to(out)?;
                }
                stats.add(Counter::Rejected, 1);
                report.then(|| self.record("rejected", g, json!({"kind": kind.code(), "message": message})))
            }
            Fate::Filtered { by } => {
                stats.add(Counter::Filtered, 1);
                report.then(|| self.record("filtered", g, json!({"by": by})))
            }
            Fate::Written | Fate::Broken { .. } => None,
        })
    }

    /// Sets game `g` of `chunk` aside to wait for its verdict (the set holds as many distinct
    /// games as it may): counts what does not hang on the verdict, writes its rejects.
    fn defer(
        &mut self,
        g: &CleanGame,
        chunk: &CleanChunk,
        (text, verbatim): (Bytes<'_>, Bytes<'_>),
        stats: &mut Stats,
    ) -> Result<(), Error> {
        let mut records = Vec::new();
        let mut put = |r: Value| records.extend_from_slice(format!("{r}\n").as_bytes());
        let report = self.outputs.report.is_some();
        let (text, verbatim) = match &g.fate {
            Fate::Written | Fate::Broken { .. } => {
                if report {
                    self.records(g, chunk).into_iter().for_each(&mut put);
                }
                (text, verbatim)
            }
            Fate::Rejected { .. } | Fate::Filtered { .. } => {
                if let Some(record) = self.set_aside(g, verbatim, stats)? {
                    put(record);
                }
                (Bytes::Held(&[]), Bytes::Held(&[]))
            }
        };
        let repairs = repairs_of(g, chunk);
        let broken = matches!(g.fate, Fate::Broken { .. });
        let late = self.late.as_mut().ok_or(Error::Internal("a game deferred with nowhere to wait"))?;
        match (&g.fate, &g.dedup) {
            (Fate::Written | Fate::Broken { .. }, Some(id)) => {
                let dup = match &self.outputs.duplicates {
                    Some(_) if verbatim.is_empty() => {
                        return Err(Error::Internal(
                            "a duplicates file without CleanOptions::keep_duplicates",
                        ));
                    }
                    Some(_) => verbatim,
                    None => Bytes::Held(&[]),
                };
                let at = Place {
                    ordinal: self.ordinal - 1,
                    input: self.current as u32,
                    game: g.game,
                    line: g.line,
                    offset: g.offset,
                    broken,
                };
                late.compared(id, &chunk.mainlines[g.mainline.clone()], &at, repairs, text, dup, &records)
            }
            (Fate::Written | Fate::Broken { .. }, None) => {
                count_written(stats, broken, repairs);
                late.settled(text, &records)
            }
            _ => late.settled(text, &records),
        }
    }

    /// Writes waiting game `w`, given its verdict (`Some`: it repeats a game, or is a shorter
    /// record of it), counting it in `summary`, total and its input's.
    fn replay(
        &mut self,
        w: &mut Waiting,
        verdict: Option<Repeat>,
        summary: &mut Summary,
    ) -> Result<(), Error> {
        let mut count = |f: &dyn Fn(&mut Stats)| {
            f(&mut summary.stats);
            if let Some(i) = summary.inputs.get_mut(w.at.input as usize) {
                f(&mut i.stats);
            }
        };
        let report_from = self.at[REPORT];
        // A shard's keys entry, as `release` writes it for a game it judged at once.
        let entry = |s: &Self| GameEntry {
            input: w.at.input,
            game: w.at.game,
            line: w.at.line,
            offset: w.at.offset,
            id: w.id,
            broken: w.at.broken,
            repairs: repair_counts(w.repairs.iter().copied()),
            report: report_from..s.at[REPORT],
            mainline: w.mainline.clone(),
            ..GameEntry::default()
        };
        if let (Some(_), Some(Repeat { rule, of })) = (w.id, verdict) {
            self.report(|s| {
                let file = s.inputs.get(w.at.input as usize).map_or(&crate::io::name::NONE, |i| &i.name);
                duplicate_record(rule.name(), s.locate(of), file, w.at.game, w.at.line, w.at.offset)
            })?;
            let dup_from = self.at[DUP];
            self.put_bytes(DUP, Bytes::Spilled(std::mem::take(&mut w.verbatim)))?;
            count(&|s| s.add(Counter::Duplicates, 1));
            if self.keys.is_some() {
                let of = self.locate_index(of);
                let at = self.at[OUT];
                let entry = GameEntry {
                    of: Some((of.0 as u32, of.1)),
                    shorter: rule == Rule::Prefix,
                    out: at..at,
                    dup: dup_from..self.at[DUP],
                    ..entry(self)
                };
                let text = Bytes::Spilled(std::mem::take(&mut w.text));
                self.put_key(&entry, [Bytes::Held(&[]), text, Bytes::Held(&w.records)])?;
            }
            return Ok(());
        }
        let out_at = self.at[OUT];
        self.put_bytes(OUT, Bytes::Spilled(std::mem::take(&mut w.text)))?;
        self.put(REPORT, &w.records)?;
        if w.id.is_some() {
            count(&|s| count_written(s, w.at.broken, w.repairs.iter().copied()));
            if self.keys.is_some() {
                let dup = self.at[DUP];
                let entry = GameEntry { out: out_at..self.at[OUT], dup: dup..dup, ..entry(self) };
                let verbatim = Bytes::Spilled(std::mem::take(&mut w.verbatim));
                self.put_key(&entry, [verbatim, Bytes::Held(&[]), Bytes::Held(&[])])?;
            }
        }
        Ok(())
    }
}

/// A keys entry's repairs: the name of each kind's count, and the count.
fn repair_counts(repairs: impl Iterator<Item = (RepairKind, u64)>) -> Vec<(String, u64)> {
    repairs.map(|(kind, n)| (Counter::Repaired(kind).name().to_string(), n)).collect()
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
            l["file"] = i.name.json().clone();
            l
        })
        .collect();
    let mut total = diagnostics::summary_json("clean", &summary.stats, summary.elapsed);
    total["data"]["ledger"] = ledger(&summary.stats);
    total["data"]["inputs"] = inputs.into();
    total
}

impl<W: Write> Sink<CleanChunk> for CleanWriter<W> {
    fn begin_input(&mut self, input: &Name) -> Result<(), Error> {
        self.current = self.current.wrapping_add(1);
        self.inputs.push(InputAt { name: input.clone(), first: self.ordinal, number: 1 });
        if let Some(k) = &mut self.keys {
            let mut entry = Vec::new();
            keys::put_input(&mut entry, input.text());
            write(k, &entry)?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), Error> {
        let o = &mut self.outputs;
        for out in [Some(&mut o.out), o.rejects.as_mut(), o.duplicates.as_mut(), o.report.as_mut()]
            .into_iter()
            .flatten()
        {
            out.flush_followed()?;
        }
        Ok(())
    }

    fn release(&mut self, mut chunk: CleanChunk, stats: &mut Stats) -> Result<(), Error> {
        for d in &chunk.diagnostics {
            let _ = writeln!(self.diagnostics, "{}", diagnostics::diagnostic_text(self.file().prose(), d));
        }
        // Games written one after the other are one run of `chunk.out`, written in one call (a
        // run longer than the output's buffer skips the copy into it).
        let mut run = Run::default();
        let mut spilled = std::mem::take(&mut chunk.spilled);
        for g in &chunk.games {
            let (text, verbatim) = spill::texts(g, &chunk, &mut spilled);
            if let Some(input) = self.inputs.last_mut().filter(|i| i.first == self.ordinal) {
                input.number = g.game;
            }
            self.ordinal += 1;
            if self.late.is_none()
                && let Some(rule) = self.dedup.full(self.held)
            {
                // A shard's keys part under `prefix` holds each game's mainline for `merge`.
                self.late = Some(Late::new(rule, self.key_lines, self.spill_at)?);
            }
            if self.late.is_some() {
                self.defer(g, &chunk, (text, verbatim), stats)?;
                continue;
            }
            match &g.fate {
                Fate::Written | Fate::Broken { .. } => {
                    let game = g.dedup.as_ref();
                    let report_from = self.at[REPORT];
                    if let Some(repeat) = self.dedup.next(game)? {
                        self.report(|w| {
                            let of = w.locate(repeat.of);
                            duplicate_record(repeat.rule.name(), of, w.file(), g.game, g.line, g.offset)
                        })?;
                        let dup_from = self.at[DUP];
                        if self.outputs.duplicates.is_some() && verbatim.is_empty() {
                            return Err(Error::Internal(
                                "a duplicates file without CleanOptions::keep_duplicates",
                            ));
                        }
                        self.put_bytes(DUP, verbatim)?;
                        stats.add(Counter::Duplicates, 1);
                        if self.keys.is_some() {
                            // What the game would have written, should `merge` find it first.
                            let mut records = Vec::new();
                            if self.outputs.report.is_some() {
                                for r in self.records(g, &chunk) {
                                    records.extend_from_slice(format!("{r}\n").as_bytes());
                                }
                            }
                            let out_at = self.at[OUT] + run.len() as u64;
                            let of = self.locate_index(repeat.of);
                            let entry = GameEntry {
                                of: Some((of.0 as u32, of.1)),
                                out: out_at..out_at,
                                dup: dup_from..self.at[DUP],
                                report: report_from..self.at[REPORT],
                                ..self.entry(g, &chunk)
                            };
                            self.put_key(&entry, [Bytes::Held(&[]), text, Bytes::Held(&records)])?;
                        }
                        continue;
                    }
                    let len = text.len();
                    let out_at = match text {
                        Bytes::Held(_) => {
                            if let Some(done) = run.extend(g.text.clone()) {
                                self.put(OUT, &chunk.out[done])?;
                            }
                            self.at[OUT] + (run.len() - g.text.len()) as u64
                        }
                        // After the games before it, not in the run.
                        text @ Bytes::Spilled(_) => {
                            if let Some(done) = run.take() {
                                self.put(OUT, &chunk.out[done])?;
                            }
                            let at = self.at[OUT];
                            self.put_bytes(OUT, text)?;
                            at
                        }
                    };
                    let broken = matches!(g.fate, Fate::Broken { .. });
                    count_written(stats, broken, repairs_of(g, &chunk));
                    if self.outputs.report.is_some() {
                        for r in self.records(g, &chunk) {
                            self.report(|_| r)?;
                        }
                    }
                    // A game the rule did not compare (kept broken) has nothing to settle.
                    if self.keys.is_some() && g.dedup.is_some() {
                        let verbatim = match self.outputs.duplicates {
                            Some(_) => verbatim,
                            None => Bytes::Held(&[]),
                        };
                        let entry = GameEntry {
                            out: out_at..out_at + len,
                            dup: self.at[DUP]..self.at[DUP],
                            report: report_from..self.at[REPORT],
                            ..self.entry(g, &chunk)
                        };
                        self.put_key(&entry, [verbatim, Bytes::Held(&[]), Bytes::Held(&[])])?;
                    }
                }
                Fate::Rejected { .. } | Fate::Filtered { .. } => {
                    self.dedup.next(None)?;
                    if let Some(record) = self.set_aside(g, verbatim, stats)? {
                        self.report(|_| record)?;
                    }
                }
            }
        }
        if let Some(done) = run.take() {
            self.put(OUT, &chunk.out[done])?;
        }
        self.spares.give(chunk);
        Ok(())
    }
}
