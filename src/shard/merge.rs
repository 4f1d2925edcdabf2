//! `pgnkit merge`: reads the shards' manifests, checks that they make one run (one pgnkit
//! version, job, options, inputs and N; every shard once, finished; their parts of each input
//! tiling it, game numbers following on; no input a shard could not read for what it holds, not
//! PGN say, which it names; every part's size and digest, hashed as it is copied)
//! and writes each output once: what a single run writes before the games, the parts in order,
//! and the summary record a single run writes last, from the shards' ledgers added up (its
//! `seconds` are the shards' sum); duplicates that lie in different shards are settled first
//! ([`super::settle`]); Parquet parts are read back and written again as one file. Anything
//! wrong: nothing is written, and every problem is
//! named, so the user reruns just those shards.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::exit::Code;
use crate::io::{OutputError, Watched, name};
use crate::jobs::diagnostics::{self, Records};
use crate::jobs::run::{InputSummary, Summary};
use crate::pipeline::stats::Stats;

use super::manifest::{Manifest, SUFFIX};
use super::proof::{changed, check_cover, check_parts, check_run, check_sizes, check_targets, missing};

/// A merged run: the job, its summary, the files written and the bytes copied.
#[derive(Debug)]
pub struct Merged {
    /// The command the shards ran.
    pub job: String,
    /// The run's summary from the ledgers.
    pub summary: Summary,
    /// The files written, in role order.
    pub files: Vec<PathBuf>,
    /// Bytes of parts copied.
    pub bytes: u64,
    /// The shards' exit statuses, highest.
    pub exit: u8,
    /// The job-specific figures the footers read ([`absent`]).
    pub extra: Value,
}

/// Why a merge stopped: every problem, the exit code they make and the outputs put in place
/// before it stopped (none unless putting a later one in place failed). The code is 65 when the
/// shards do not make one run, else 74 when a part could not be read or an output could not be
/// written or put in place (disk full, a rename refused), else 73: all that stopped it is an
/// output it could not create; 130 when a signal stopped it.
#[derive(Debug)]
pub struct Refused {
    /// Each problem, in words.
    pub problems: Vec<String>,
    /// [`Code::DataErr`], [`Code::IoErr`], [`Code::CantCreate`] or [`Code::Interrupted`].
    pub code: Code,
    /// The outputs put in place.
    pub written: Vec<PathBuf>,
    /// The outputs written in place (a pipe, a device) that got bytes before the stop: every
    /// part was checked first, so only a failed write, a read error or a part changed since
    /// leaves one there.
    pub streamed: Vec<PathBuf>,
}

impl Refused {
    /// A refusal for `problems`, exit `code`, nothing written.
    pub(super) fn new(problems: Vec<String>, code: Code) -> Refused {
        Refused { problems, code, written: Vec::new(), streamed: Vec::new() }
    }

    /// A merge stopped by a signal (130): what it wrote is removed, nothing is put in place.
    pub(super) fn interrupted() -> Refused {
        Refused::new(vec!["interrupted".into()], Code::Interrupted)
    }

    /// [`Refused::interrupted`] where the stop ended a wait on an output: `words`, the jobs' own
    /// ([`crate::io::OutputError::Interrupted`]).
    fn stopped(words: String) -> Refused {
        Refused::new(vec![words], Code::Interrupted)
    }

    /// The same refusal, the outputs written in place named.
    fn streamed(mut self, streamed: &[PathBuf]) -> Refused {
        self.streamed = streamed.to_vec();
        self
    }
}

impl From<Vec<String>> for Refused {
    fn from(problems: Vec<String>) -> Refused {
        Refused::new(problems, Code::DataErr)
    }
}

/// What stopped writing an output: a part that is not what its manifest says or cannot be read
/// as one (a problem of the shards, 65), a part the system failed to read, or the output itself,
/// which could not be written (both I/O errors, 74).
#[derive(Debug)]
pub(super) enum Stop {
    /// A part, in words.
    Part(String),
    /// Reading a part failed (its name).
    Read(String),
    /// A write to the output (its target's name) failed.
    Write(String),
    /// A stop was asked for (a signal).
    Interrupted,
    /// A stop ended a wait on the output (a pipe no process reads), in the jobs' words.
    Stopped(String),
}

impl Stop {
    /// Writing to the output `target` failed with `e`.
    pub(super) fn write(target: &Path, e: io::Error) -> Stop {
        match OutputError::stopped(target, &e) {
            Some(stopped) => Stop::Stopped(stopped.to_string()),
            None => Stop::Write(format!("{}: write error: {e}", target.display())),
        }
    }

    /// Reading the part `at` failed with `e`: an error of the system (EIO, a directory) is a
    /// read error, anything else (a zstd frame cut short, a Parquet file that is not one) the
    /// part's.
    pub(super) fn part(at: &Path, e: io::Error) -> Stop {
        match e.raw_os_error() {
            Some(_) => Stop::Read(format!("{}: read error: {e}", at.display())),
            None => Stop::Part(format!("{}: {e}", at.display())),
        }
    }
}

/// The refusal of a merge that found `problems` in the shards, `failed` outputs it could not
/// write or put in place and `uncreated` ones it could not create, every one listed; `None` when
/// there is none. The shards' problems come first: rerunning shards rewrites the outputs anyway.
fn refusal(problems: Vec<String>, failed: Vec<String>, uncreated: Vec<String>) -> Option<Refused> {
    let code = if !problems.is_empty() {
        Code::DataErr
    } else if !failed.is_empty() {
        Code::IoErr
    } else if !uncreated.is_empty() {
        Code::CantCreate
    } else {
        return None;
    };
    Some(Refused::new([problems, failed, uncreated].concat(), code))
}

/// An output file that remembers whether a write to it failed (an interrupted one is retried):
/// a copy that fails is then told to have failed writing (74), not reading a part (65). A write
/// asked for once a stop is `requested` fails, so a long copy ends at its next buffer; one that
/// waits for room in a pipe ends at the stop ([`Watched`]).
struct Tracked<'a> {
    file: Watched,
    failed: bool,
    requested: &'a dyn Fn() -> bool,
}

impl Tracked<'_> {
    fn watch<T>(&mut self, result: io::Result<T>) -> io::Result<T> {
        self.failed |= result.as_ref().is_err_and(|e| e.kind() != io::ErrorKind::Interrupted);
        result
    }
}

impl Write for Tracked<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if (self.requested)() {
            return self.watch(Err(io::Error::other("interrupted")));
        }
        let written = self.file.write(buf);
        self.watch(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        let flushed = self.file.flush();
        self.watch(flushed)
    }
}

/// The manifests named by `args`: files as given, and every `*.manifest.json` of a directory.
pub fn manifests(args: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    for a in args {
        if a.is_dir() {
            let entries = std::fs::read_dir(a).map_err(|e| format!("{}: {e}", a.display()))?;
            let mut in_dir: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.to_string_lossy().ends_with(SUFFIX))
                .collect();
            if in_dir.is_empty() {
                return Err(format!("{}: no shard manifest (*{SUFFIX}) in this directory", a.display()));
            }
            in_dir.sort();
            found.extend(in_dir);
        } else if a.exists() {
            found.push(a.clone());
        } else {
            return Err(format!("{}: no such file", a.display()));
        }
    }
    // One manifest named twice (`merge out out`, two spellings of a path) is read once.
    let mut seen = std::collections::HashSet::new();
    found.retain(|p| seen.insert(p.canonicalize().unwrap_or_else(|_| p.clone())));
    Ok(found)
}

/// The record a single run writes last in an output, named by a part's `footer`.
pub fn footer(kind: &str, summary: &Summary, extra: &Value) -> Result<Vec<u8>, String> {
    let record = match kind {
        "" => return Ok(Vec::new()),
        "check-summary" => diagnostics::summary_json("check", &summary.stats, summary.elapsed),
        "clean-report" => crate::jobs::clean::sink::report_summary(summary),
        "annotate-summary" => {
            let (cached, engines, _) = annotate_figures(extra);
            crate::jobs::annotate::sink::summary_json(summary, cached, engines)
        }
        other => return Err(format!("a part ends with {other:?}, which this pgnkit does not write")),
    };
    let mut record = record;
    let absent = absent(&summary.stats, extra);
    if !absent.is_empty() {
        record["data"]["where_absent"] = absent.into();
    }
    Ok(format!("{record}\n").into_bytes())
}

impl Merged {
    /// The closing lines one run of the job prints on stderr, from the ledgers and the shards'
    /// figures.
    pub fn summary_text(&self) -> String {
        if self.job == "annotate" {
            let (cached, engines, lines) = annotate_figures(&self.extra);
            let records = if lines { Records::Lines } else { Records::Games };
            return crate::jobs::annotate::sink::summary_text(&self.summary, cached, engines, records, None);
        }
        diagnostics::summary_text(&self.job, &self.summary.stats, self.summary.elapsed, None)
    }
}

/// What `annotate`'s summary needs beside the ledgers, as its shards recorded it in `extra`:
/// whether they used a cache (its counts are the ledgers'), the most engines a shard ran, and
/// whether its records were lines.
fn annotate_figures(extra: &Value) -> (bool, usize, bool) {
    let engines = extra.get("engines").and_then(Value::as_u64).unwrap_or(1) as usize;
    let cached = extra.get("cache").is_some_and(|c| !c.is_null());
    (cached, engines, extra.get("lines").and_then(Value::as_bool).unwrap_or(false))
}

/// The `--where` expressions (as the shards recorded them in `extra`) whose tags no game of the
/// run had: what a single run's summary lists as `where_absent`. None when no game was read.
pub fn absent(stats: &Stats, extra: &Value) -> Vec<Value> {
    if stats.games == 0 {
        return Vec::new();
    }
    let wheres = extra.get("wheres").and_then(Value::as_array).cloned().unwrap_or_default();
    let seen = |i: usize| stats.wheres_seen.get(i).copied().unwrap_or(false);
    wheres.into_iter().enumerate().filter(|&(i, _)| !seen(i)).map(|(_, w)| w).collect()
}

/// The `positions --tags` names (as the shards recorded them in `extra`) no game of the run
/// had: what a single run warns of.
pub fn absent_tags(stats: &Stats, extra: &Value) -> Vec<String> {
    let tags: Vec<String> = extra
        .get("tags")
        .and_then(Value::as_array)
        .map(|t| t.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    crate::jobs::positions::absent_tags(&tags, stats).into_iter().map(str::to_string).collect()
}

/// Adds up the job-specific figures of the shards (annotate: the most engines, cache counts summed).
fn add_extra(total: &mut Value, more: &Value) {
    if total.is_null() {
        *total = more.clone();
        return;
    }
    if let (Some(a), Some(b)) =
        (total.get("engines").and_then(Value::as_u64), more.get("engines").and_then(Value::as_u64))
    {
        total["engines"] = a.max(b).into();
    }
    if let (Some(a), Some(b)) =
        (total.get_mut("cache").and_then(Value::as_object_mut), more.get("cache").and_then(Value::as_object))
    {
        for (k, v) in b {
            let sum = a.get(k).and_then(Value::as_u64).unwrap_or(0) + v.as_u64().unwrap_or(0);
            a.insert(k.clone(), sum.into());
        }
    }
}

/// `bytes` compressed as the name `target` says (`.zst`, `.gz`), so that a compressed output's
/// header and summary are frames (members) of their own beside the parts'.
fn compressed_as(target: &Path, bytes: &[u8]) -> io::Result<Vec<u8>> {
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    match crate::io::compressed_as(target) {
        Some("zstd") => zstd::encode_all(bytes, 3),
        Some("gzip") => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(bytes)?;
            e.finish()
        }
        _ => Ok(bytes.to_vec()),
    }
}

/// Copies `from` to `to`, hashing as it goes: its length and XXH3-128.
fn copy_hashed(from: &Path, to: &mut impl Write, buf: &mut [u8]) -> io::Result<(u64, String)> {
    let mut file = File::open(from)?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut len = 0u64;
    loop {
        let n = match file.read(buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        to.write_all(&buf[..n])?;
        len += n as u64;
    }
    Ok((len, format!("{:032x}", hasher.digest128())))
}

/// A file written under a temporary name beside its target and renamed when all is well.
struct Pending {
    temp: PathBuf,
    target: PathBuf,
}

impl Drop for Pending {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.temp);
    }
}

/// Renames each of `pending` into place, in order: the targets put in place, and each rename
/// that failed (in `failed`, 74: the outputs were written whole, only the rename went wrong).
fn put_in_place(pending: &[Pending], failed: &mut Vec<String>) -> Vec<PathBuf> {
    let mut written = Vec::new();
    for p in pending {
        match std::fs::rename(&p.temp, &p.target) {
            Ok(()) => written.push(p.target.clone()),
            Err(e) => failed.push(format!("{}: cannot put in place: {e}", p.target.display())),
        }
    }
    written
}

/// Merges the shards whose manifests are `paths`: every file in `dir` when given (made if
/// missing), else beside the parts, each under the name the shards were given; `output` names
/// the main one (in `dir`, its file name: as the shards' `--output-dir` places their parts).
/// Every problem, or nothing written. `requested` says whether a stop was asked for (a signal):
/// the merge then stops at its next buffer and removes what it wrote.
pub fn merge(
    paths: &[PathBuf],
    output: Option<&Path>,
    dir: Option<&Path>,
    requested: &dyn Fn() -> bool,
) -> Result<Merged, Refused> {
    merge_holding(paths, output, dir, requested, crate::jobs::clean::dedup::late::HELD)
}

/// [`merge`] holding at most `held` distinct games of `clean --dedup` shards in memory while it
/// settles them (the rest are judged on disk, with the same verdicts): tests reach the bound
/// with a few.
pub fn merge_holding(
    paths: &[PathBuf],
    output: Option<&Path>,
    dir: Option<&Path>,
    requested: &dyn Fn() -> bool,
    held: usize,
) -> Result<Merged, Refused> {
    let mut problems = Vec::new();
    let mut list = Vec::new();
    for p in paths {
        match Manifest::read(p) {
            Ok(m) => list.push((p.clone(), m)),
            Err(e) => problems.push(format!("{}: {e}", p.display())),
        }
    }
    if list.is_empty() {
        problems.push("no manifest to merge".into());
        return Err(problems.into());
    }
    let members = check_run(&list, &mut problems);
    // The cover of the run most manifests are of: another run's would make its messages (a
    // shard twice, a gap) misleading.
    let run: Vec<&(PathBuf, Manifest)> =
        list.iter().zip(&members.of_the_run).filter(|&(_, &of)| of).map(|(m, _)| m).collect();
    check_cover(&run, &members.rerun, &mut problems);
    check_sizes(&run, &mut problems);
    if !problems.is_empty() {
        return Err(problems.into());
    }
    list.sort_by_key(|(_, m)| m.spec.index);
    // Duplicates across shards (`clean --dedup`, `positions --unique`), the ledgers adjusted.
    let settled = super::settle::settle(&mut list, requested, held)?;
    let first = list[0].1.clone();
    // The run's summary from the ledgers.
    let mut stats = Stats::default();
    let mut per_input: BTreeMap<usize, Stats> = BTreeMap::new();
    let (mut seconds, mut extra, mut exit) = (0.0, Value::Null, 0u8);
    for (_, m) in &list {
        stats.merge(&m.stats);
        for r in &m.ranges {
            per_input.entry(r.input).or_default().merge(&r.stats);
        }
        seconds += m.seconds;
        add_extra(&mut extra, &m.extra);
        exit = exit.max(m.exit);
    }
    let inputs = per_input
        .into_iter()
        .map(|(k, stats)| InputSummary { name: name::Name::of(&first.inputs[k].path), stats, error: None })
        .collect();
    let summary =
        Summary { stats, inputs, stopped: None, elapsed: Duration::from_secs_f64(seconds.max(0.0)) };
    let target_of = |role: &super::manifest::Part| {
        // Beside the role's parts (`--rejects` may have another directory than `-o`).
        let manifests = list[0].0.parent().map(Path::to_path_buf).unwrap_or_default();
        let beside = manifests.join(&role.file).parent().map(Path::to_path_buf).unwrap_or(manifests);
        let name =
            Path::new(&role.target).file_name().map(PathBuf::from).unwrap_or_else(|| role.target.clone());
        match (role.role.as_str(), output, dir) {
            ("output", Some(o), Some(d)) => d.join(o.file_name().unwrap_or(o.as_os_str())),
            ("output", Some(o), None) => o.to_path_buf(),
            (_, _, Some(d)) => d.join(name),
            _ => beside.join(name),
        }
    };
    let targets: Vec<PathBuf> =
        first.parts.iter().filter(|r| r.role != super::settle::KEYS).map(target_of).collect();
    // An output onto what the merge reads is one it cannot create (73, as for a single run),
    // unless the shards do not merge either (65).
    let mut clashes = Vec::new();
    check_targets(&list, &targets, &mut clashes);
    if !problems.is_empty() {
        problems.extend(clashes);
        return Err(problems.into());
    }
    if !clashes.is_empty() {
        return Err(Refused::new(clashes, Code::CantCreate));
    }
    // Bytes sent to a pipe or a device cannot be taken back: every part is checked first.
    if targets.iter().any(|t| crate::io::written_in_place(t)) {
        let mut failed = Vec::new();
        check_parts(&list, &mut problems, &mut failed);
        if let Some(refused) = refusal(std::mem::take(&mut problems), failed, Vec::new()) {
            return Err(refused);
        }
    }
    if let Some(d) = dir
        && let Err(e) = std::fs::create_dir_all(d)
    {
        let problems = vec![output_dir_error(d, &e)];
        return Err(Refused::new(problems, Code::CantCreate));
    }
    // Outputs that cannot be created (73) or written (74) are told from shards that do not
    // merge (65).
    let mut uncreated = Vec::new();
    let mut failed = Vec::new();
    let mut pending = Vec::new();
    // Every output in role order, and those written in place.
    let (mut outputs, mut streamed) = (Vec::new(), Vec::new());
    let mut bytes = 0u64;
    let mut buf = vec![0u8; 4 << 20];
    for (role_at, role) in first.parts.iter().enumerate() {
        if role.role == super::settle::KEYS {
            continue;
        }
        let target = target_of(role);
        // A directory is no file name: refused before its parts are copied, not at the rename
        // after it.
        let meta = std::fs::metadata(&target).ok();
        if meta.as_ref().is_some_and(|m| m.is_dir()) {
            uncreated.push(format!("{}: cannot create: is a directory, not a file name", target.display()));
            continue;
        }
        // A device, a pipe or the standard output's file is written in place, unsynced.
        let (file, temp) = match crate::io::place(&target, meta.as_ref()) {
            Ok(placed) => placed,
            Err(e) => {
                // A FIFO no process opened for reading, and a stop came.
                if let Some(stopped) = OutputError::stopped(&target, &e) {
                    return Err(Refused::stopped(stopped.to_string()).streamed(&streamed));
                }
                uncreated.push(format!("{}: cannot create: {e}", target.display()));
                continue;
            }
        };
        let synced = temp.is_some();
        if !synced {
            streamed.push(target.clone());
        }
        outputs.push(target.clone());
        let done = temp.map(|(temp, target)| Pending { temp, target });
        let write_err = |e: io::Error| Stop::write(&target, e);
        let footer = match footer(&role.footer, &summary, &extra) {
            Ok(f) => f,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        if role.table {
            let parts: Vec<_> = list
                .iter()
                .enumerate()
                .filter_map(|(k, (path, m))| {
                    let part = m.parts.get(role_at)?;
                    Some((
                        path.parent().map(Path::to_path_buf).unwrap_or_default().join(&part.file),
                        part,
                        m.spec,
                        k,
                    ))
                })
                .collect();
            let out = io::BufWriter::with_capacity(1 << 20, file);
            // `positions --unique`: the rows one run does not write (repeats across shards).
            let dropped = |k: usize, row: u64| settled.as_ref().map_or(Ok(false), |s| s.drops(k, row));
            let stop = super::tables::Stops { dropped: &dropped, requested };
            let result = super::tables::merge_parts(&parts, out, &target, synced, &stop, &mut problems);
            pending.extend(done);
            bytes += copied(result, requested, &streamed, &mut problems, &mut failed)?;
            continue;
        }
        let mut out = io::BufWriter::with_capacity(1 << 20, Tracked { file, failed: false, requested });
        let result = (|| -> Result<u64, Stop> {
            let mut bytes = 0;
            out.write_all(&compressed_as(&target, role.header.as_bytes()).map_err(write_err)?)
                .map_err(write_err)?;
            for (k, (path, m)) in list.iter().enumerate() {
                let Some(part) = m.parts.get(role_at) else { continue };
                let at = path.parent().map(Path::to_path_buf).unwrap_or_default().join(&part.file);
                let copied = match &settled {
                    Some(s) if s.edits(k, &role.role) => s.copy(k, &role.role, &at, &target, &mut out),
                    _ => copy_hashed(&at, &mut out, &mut buf),
                };
                match copied {
                    Ok((len, digest)) if len == part.size && digest == part.digest => bytes += len,
                    Ok((len, _)) => problems.push(changed(&at, m.spec, len, part.size)),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => problems.push(missing(&at, m.spec)),
                    Err(e) if super::settle::spilled(&e) => return Err(Stop::Read(e.to_string())),
                    Err(e) if out.get_ref().failed => return Err(write_err(e)),
                    Err(e) => return Err(Stop::part(&at, e)),
                }
            }
            out.write_all(&compressed_as(&target, &footer).map_err(write_err)?).map_err(write_err)?;
            let tracked = out.into_inner().map_err(|e| write_err(e.into_error()))?;
            if synced {
                tracked.file.file().sync_all().map_err(write_err)?;
            }
            Ok(bytes)
        })();
        pending.extend(done);
        bytes += copied(result, requested, &streamed, &mut problems, &mut failed)?;
    }
    if let Some(refused) = refusal(problems, failed, uncreated) {
        return Err(refused.streamed(&streamed));
    }
    let mut failed = Vec::new();
    let renamed = put_in_place(&pending, &mut failed);
    if let Some(mut refused) = refusal(Vec::new(), failed, Vec::new()) {
        refused.written = renamed;
        return Err(refused.streamed(&streamed));
    }
    Ok(Merged { job: first.job, summary, files: outputs, bytes, exit, extra })
}

/// The bytes of parts an output's copy read, its problem put with the shards' (`problems`) or
/// the outputs' (`failed`), or the refusal of a stop: `pending`'s drop then removes the files,
/// and `streamed` are the outputs written in place so far.
fn copied(
    result: Result<u64, Stop>,
    requested: &dyn Fn() -> bool,
    streamed: &[PathBuf],
    problems: &mut Vec<String>,
    failed: &mut Vec<String>,
) -> Result<u64, Refused> {
    match result {
        Err(Stop::Stopped(words)) => Err(Refused::stopped(words).streamed(streamed)),
        Err(Stop::Interrupted) => Err(Refused::interrupted().streamed(streamed)),
        // The output fails its next write once a stop is asked for: the copy's own error, if any,
        // is the stop's doing.
        _ if requested() => Err(Refused::interrupted().streamed(streamed)),
        Ok(n) => Ok(n),
        Err(Stop::Part(e)) => {
            problems.push(e);
            Ok(0)
        }
        Err(Stop::Read(e) | Stop::Write(e)) => {
            failed.push(e);
            Ok(0)
        }
    }
}

/// Why `--output-dir DIR` could not be made, as the shards and the merge say it: a path that is
/// something other than a directory is named so (create_dir_all's own "File exists" is not).
pub fn output_dir_error(dir: &Path, e: &std::io::Error) -> String {
    let why = match e.kind() {
        std::io::ErrorKind::AlreadyExists => "it exists and is not a directory".to_string(),
        _ => e.to_string(),
    };
    format!("--output-dir {}: cannot create the directory: {why}", dir.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(n: usize, what: &str) -> Vec<String> {
        (0..n).map(|i| format!("{what} {i}")).collect()
    }

    #[test]
    fn the_shards_problems_come_first_then_writes_then_creation() {
        let code =
            |data, io, create| refusal(said(data, "d"), said(io, "w"), said(create, "c")).map(|r| r.code);
        assert_eq!(code(0, 0, 0), None);
        assert_eq!(code(1, 1, 1), Some(Code::DataErr));
        assert_eq!(code(0, 1, 1), Some(Code::IoErr));
        assert_eq!(code(0, 2, 0), Some(Code::IoErr));
        assert_eq!(code(0, 0, 1), Some(Code::CantCreate));
        let all = refusal(said(1, "d"), said(1, "w"), said(1, "c")).expect("refused");
        assert_eq!(all.problems, ["d 0", "w 0", "c 0"], "every problem is named");
    }

    /// rename(2) onto a directory that is not empty fails whoever runs it (root too): the outputs
    /// were written whole, so the merge stops with an I/O error (74), not a shards' one (65).
    #[test]
    fn a_rename_that_fails_is_an_io_error_and_the_outputs_before_it_stay() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path();
        let (a, b) = (dir.join("a.pgn"), dir.join("b.pgn"));
        std::fs::create_dir_all(b.join("in")).unwrap();
        let pending: Vec<Pending> = [&a, &b]
            .iter()
            .map(|target| {
                let temp = dir.join(format!(".{}.tmp", target.file_name().unwrap().to_string_lossy()));
                std::fs::write(&temp, b"*\n").unwrap();
                Pending { temp, target: target.to_path_buf() }
            })
            .collect();
        let mut failed = Vec::new();
        let written = put_in_place(&pending, &mut failed);
        assert_eq!(written, std::slice::from_ref(&a));
        assert_eq!(std::fs::read(&a).unwrap(), b"*\n");
        assert_eq!(failed.len(), 1, "{failed:?}");
        assert!(failed[0].starts_with(&format!("{}: cannot put in place: ", b.display())), "{failed:?}");
        let refused = refusal(Vec::new(), failed, Vec::new()).expect("refused");
        assert_eq!(refused.code, Code::IoErr);
        drop(pending);
        assert!(!dir.join(".b.pgn.tmp").exists(), "the temporary file is removed");
    }

    /// A copy that fails is a write error when writing the output failed (disk full: /dev/full),
    /// else the part's: the output remembers which.
    #[test]
    fn a_copy_tells_a_failed_write_from_a_part_that_cannot_be_read() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path();
        let part = dir.join("part");
        std::fs::write(&part, vec![b'x'; 3 << 20]).unwrap();
        let mut buf = vec![0u8; 1 << 20];
        #[cfg(target_os = "linux")]
        {
            let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
            let file = Watched::unwatched(full);
            let mut out = io::BufWriter::new(Tracked { file, failed: false, requested: &|| false });
            let e = copy_hashed(&part, &mut out, &mut buf).expect_err("the disk is full");
            assert_eq!(e.kind(), io::ErrorKind::StorageFull);
            assert!(out.get_ref().failed);
        }
        let file = Watched::unwatched(File::create(dir.join("out")).unwrap());
        let mut out = io::BufWriter::new(Tracked { file, failed: false, requested: &|| false });
        // A directory opens, and reading it fails.
        assert!(copy_hashed(dir, &mut out, &mut buf).is_err());
        assert!(!out.get_ref().failed);
        assert_eq!(copy_hashed(&part, &mut out, &mut buf).unwrap().0, 3 << 20);
        assert!(!out.get_ref().failed);
    }
}
