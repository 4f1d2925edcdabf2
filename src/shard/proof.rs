//! The proof of one run, which `merge` checks before it writes anything: the manifests agree
//! (version, job, options, inputs, N), every shard is there once and finished, their parts tile
//! each input with game numbers following on, no input is one a shard could not read for what it
//! holds, every part has its size, and no output would replace what the merge reads; before an
//! output written in place (a pipe), every part's digest. Every problem is named.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::io::name;
use crate::pipeline::stats::Stats;

use super::Spec;
use super::manifest::{InputId, Manifest, digest};
use super::plan::TO_END;

/// The run most of a set's manifests are of.
pub(super) struct Members {
    /// Whether each manifest is of the run.
    pub of_the_run: Vec<bool>,
    /// The run's shards that only another run's manifest is there for: to rerun, not missing.
    pub rerun: BTreeSet<u64>,
}

/// Checks that `list` (path, manifest) make one run; every problem found. Returns which
/// manifests are of the run most of them are of.
pub(super) fn check_run(list: &[(PathBuf, Manifest)], problems: &mut Vec<String>) -> Members {
    // The run most manifests are of is the one the others are measured against: one stray
    // manifest among a run's is named, not every good one.
    fn run_of(m: &Manifest) -> (&String, &Vec<String>, u64, &Vec<InputId>, Vec<Role<'_>>) {
        (&m.job, &m.options, m.spec.count, &m.inputs, roles(m))
    }
    let runs: Vec<_> = list.iter().map(|(_, m)| run_of(m)).collect();
    // Each run's first manifest and how many are of it: one pass, as a set holds one run or few.
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        match groups.iter_mut().find(|(first, _)| runs[*first] == *run) {
            Some((_, n)) => *n += 1,
            None => groups.push((i, 1)),
        }
    }
    let most = groups.iter().map(|&(_, n)| n).max().unwrap_or(0);
    let reference = groups.iter().find(|&&(_, n)| n == most).map_or(0, |&(first, _)| first);
    let (first_path, first) = &list[reference];
    let of_the_run: Vec<bool> = runs.iter().map(|run| *run == runs[reference]).collect();
    let held: BTreeSet<u64> =
        list.iter().zip(&of_the_run).filter(|&(_, &of)| of).map(|((_, m), _)| m.spec.index).collect();
    let mut rerun = BTreeSet::new();
    let ours = env!("CARGO_PKG_VERSION");
    for (path, m) in list {
        let p = path.display();
        if m.version != ours {
            problems.push(format!(
                "{p}: made by pgnkit {}, this is pgnkit {ours}: rerun it, or merge with that version",
                m.version
            ));
        }
        let mut differs = Vec::new();
        // An input edited between the shards: no shard run now reads what the others read.
        let mut edited = false;
        if m.job != first.job {
            differs.push(format!("the commands ({} and {})", m.job, first.job));
        }
        if m.options != first.options {
            differs.push(format!(
                "the options ({} and {})",
                options_text(&m.options),
                options_text(&first.options)
            ));
        }
        if m.spec.count != first.spec.count {
            differs.push(format!("the shard counts ({} and {})", m.spec.count, first.spec.count));
        }
        if m.inputs.len() != first.inputs.len() {
            differs.push(format!("the inputs ({} and {} files)", m.inputs.len(), first.inputs.len()));
        } else if m.inputs.iter().zip(&first.inputs).any(|(a, b)| a.path != b.path) {
            // The path as given is in the outputs (report records, EPD ids): both are named.
            let spelled: Vec<String> = m
                .inputs
                .iter()
                .zip(&first.inputs)
                .filter(|(a, b)| a.path != b.path)
                .map(|(a, b)| format!("{} and {}", name::display(&a.path), name::display(&b.path)))
                .collect();
            differs.push(format!("the inputs as given ({})", spelled.join("; ")));
        } else {
            for (a, b) in m.inputs.iter().zip(&first.inputs) {
                if a.size != b.size || a.fingerprint != b.fingerprint {
                    edited = true;
                    differs.push(format!(
                        "the contents of the input {} (it changed between the shards: size {} and {})",
                        name::display(&a.path),
                        a.size,
                        b.size
                    ));
                }
            }
        }
        if differs.is_empty() && roles(m) != roles(first) {
            let names = |m: &Manifest| {
                let names: Vec<String> = m.parts.iter().map(|p| name::display(&target_name(p))).collect();
                names.join(", ")
            };
            differs.push(format!("the outputs ({} and {})", names(m), names(first)));
        }
        if !differs.is_empty() {
            // A shard of the same count where the run has none is one run with other options:
            // the run's shard to run again, not one missing.
            let remedy = if m.spec.count == first.spec.count && !held.contains(&m.spec.index) {
                rerun.insert(m.spec.index);
                if edited {
                    format!(
                        "run all {} shards again on the inputs as they are now (or put back the files \
                         that run's shards read)",
                        m.spec.count
                    )
                } else {
                    format!(
                        "rerun shard {} with the same command, options and inputs as that run's shards",
                        m.spec
                    )
                }
            } else {
                "leave it out of the merge".to_string()
            };
            problems.push(format!(
                "{p}: of another run than {}: {} differ; {remedy}",
                first_path.display(),
                differs.join(", ")
            ));
        }
        for f in &m.failures {
            let input = first.inputs.get(f.input).map_or(f.input.to_string(), |i| name::display(&i.path));
            problems.push(format!(
                "{p}: shard {} cannot complete: {}; no rerun changes that: run the {} shards again without \
                 {input}, or with it converted or replaced",
                m.spec, f.message, m.spec.count
            ));
        }
        if m.exit > 1 && m.failures.is_empty() {
            problems.push(format!("{p}: shard {} did not finish (exit status {}): rerun it", m.spec, m.exit));
        }
    }
    Members { of_the_run, rerun }
}

/// A manifest's options as a message shows them: `name=value`, several values comma-separated.
fn options_text(options: &[String]) -> String {
    match options.is_empty() {
        true => "the defaults".into(),
        false => options.iter().map(|o| o.replace('\u{1f}', ",")).collect::<Vec<_>>().join(" "),
    }
}

/// What must be the same of a part in every shard: its role, its output's file name (which
/// says its kind: `.zst`, `.parquet`), what one run writes around it and whether it is a table.
type Role<'a> = (&'a str, PathBuf, &'a str, &'a str, bool);

/// The parts of `m` as [`Role`]s: the directory each shard writes to is its own.
fn roles(m: &Manifest) -> Vec<Role<'_>> {
    m.parts
        .iter()
        .map(|p| (p.role.as_str(), target_name(p), p.header.as_str(), p.footer.as_str(), p.table))
        .collect()
}

/// The file name of the output `part` is a part of.
fn target_name(part: &super::manifest::Part) -> PathBuf {
    part.target.file_name().map_or_else(|| part.target.clone(), PathBuf::from)
}

/// Missing shards named in a refusal, at most.
const SHOWN: usize = 20;

/// Checks that every shard is there once and that their parts of each input tile it; the shards
/// in `rerun` are named already (another run's manifest is there for each), not as missing.
pub(super) fn check_cover(list: &[&(PathBuf, Manifest)], rerun: &BTreeSet<u64>, problems: &mut Vec<String>) {
    let count = list[0].1.spec.count;
    let mut by_index: BTreeMap<u64, Vec<&PathBuf>> = BTreeMap::new();
    for (path, m) in list {
        by_index.entry(m.spec.index).or_default().push(path);
    }
    // The gaps between the shards there, walked rather than counted out: N may be huge.
    let gaps = count - by_index.len() as u64;
    let absent = gaps - rerun.len() as u64;
    let mut missing = Vec::new();
    let mut next = 0u64;
    for &i in by_index.keys().chain(std::iter::once(&count)) {
        let gap = (next..i).filter(|i| !rerun.contains(i));
        missing.extend(gap.take(SHOWN - missing.len().min(SHOWN)).map(|i| i.to_string()));
        next = i + 1;
    }
    if absent > SHOWN as u64 {
        missing.push(format!("and {} more", absent - SHOWN as u64));
    }
    if absent > 0 {
        problems.push(format!(
            "missing shards (no manifest: not run, killed, still running, or stopped by an input it \
             could not read, which its log names; rerun them): {} of {count}",
            missing.join(", ")
        ));
    }
    for (i, paths) in &by_index {
        if paths.len() > 1 {
            let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            problems.push(format!(
                "shard {i} of {count} is there {} times: {}",
                paths.len(),
                names.join(", ")
            ));
        }
    }
    if gaps > 0 || by_index.values().any(|p| p.len() > 1) {
        return; // the ranges of a broken set say nothing more
    }
    let mut ordered: Vec<&Manifest> = list.iter().map(|(_, m)| m).collect();
    ordered.sort_by_key(|m| m.spec.index);
    for (k, input) in list[0].1.inputs.iter().enumerate() {
        // A failed input's games were never counted: its shard's failure is the problem named.
        if ordered.iter().any(|m| m.failures.iter().any(|f| f.input == k)) {
            continue;
        }
        let mut next = (0u64, 0u64);
        let mut ended = false;
        for m in &ordered {
            for r in m.ranges.iter().filter(|r| r.input == k) {
                if ended || (r.start.offset, r.start.game) != next {
                    let before = if ended {
                        "the input's end".to_string()
                    } else {
                        format!("byte {}, game {}", next.0, next.1 + 1)
                    };
                    problems.push(format!(
                        "{}: shard {} starts at byte {} (game {}), not where the shards before end ({before}): the shards are not of one run",
                        name::display(&input.path), m.spec, r.start.offset, r.start.game + 1
                    ));
                }
                next = (r.end, r.start.game + r.games);
                ended = r.end == TO_END;
            }
        }
        if !ended {
            problems.push(format!("{}: no shard read it to its end", name::display(&input.path)));
        }
        not_read(&ordered, k, problems);
    }
}

/// Judges input `k` of a whole set of shards as one run judges an input: not PGN (or not EPD,
/// for `annotate --format epd`) when it has records and none shows the format. A shard judges
/// only an input it reads whole, so one split between shards is judged here, over every part.
fn not_read(ordered: &[&Manifest], k: usize, problems: &mut Vec<String>) {
    let mut stats = Stats::default();
    for r in ordered.iter().flat_map(|m| &m.ranges).filter(|r| r.input == k) {
        stats.merge(&r.stats);
    }
    let first = ordered[0];
    let lines = first.extra.get("lines").and_then(Value::as_bool).unwrap_or(false);
    let (records, shown, said) = match lines {
        false => (stats.games, stats.pgn_games, "not PGN: no tag pair and no move in its games"),
        true => (
            stats.epd_lines + stats.not_epd_lines,
            stats.epd_lines,
            "not EPD: no EPD record and no FEN in its lines",
        ),
    };
    if records > 0 && shown == 0 {
        problems.push(format!(
            "{}: {said} (a single run refuses it); no rerun changes that: run the {} shards again without it",
            name::display(&first.inputs[k].path),
            first.spec.count
        ));
    }
}

/// Refuses targets that would replace what the merge reads (the run's inputs, as given or
/// beside the manifests; a manifest; a part) or that two outputs share.
pub(super) fn check_targets(list: &[(PathBuf, Manifest)], targets: &[PathBuf], problems: &mut Vec<String>) {
    let mut read = Vec::new();
    for (path, m) in list {
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        read.push(path.clone());
        read.extend(m.parts.iter().map(|p| dir.join(&p.file)));
        for input in &m.inputs {
            read.push(PathBuf::from(&input.path));
            read.push(dir.join(&input.path));
        }
    }
    let read: Vec<PathBuf> = read.iter().filter_map(|p| p.canonicalize().ok()).collect();
    let mut seen = Vec::new();
    for target in targets {
        // In a directory still to be made, nothing is read: the path as given tells two apart.
        let at = crate::io::canonical(target).unwrap_or_else(|| target.clone());
        if read.contains(&at) {
            problems.push(format!(
                "{}: refusing to overwrite a file the merge reads (an input, a manifest or a part)",
                target.display()
            ));
        } else if seen.contains(&at) {
            problems.push(format!("{}: named as two outputs of the merge", target.display()));
        }
        seen.push(at);
    }
}

/// What merge says of shard `spec`'s part `at` that is not what its manifest says: `len` bytes
/// where it says `size`, or a digest that differs.
pub(super) fn changed(at: &Path, spec: Spec, len: u64, size: u64) -> String {
    format!(
        "{}: shard {spec}'s part changed since it was written ({len} bytes, the manifest says {size}; digest differs): rerun shard {}",
        at.display(),
        spec.index
    )
}

/// What merge says of shard `spec`'s part `at` that is not there.
pub(super) fn missing(at: &Path, spec: Spec) -> String {
    format!("{}: shard {spec}'s part is missing: rerun shard {}", at.display(), spec.index)
}

/// Checks every part of the run's manifests, keys parts too, against its size alone (a file's
/// length, no read): each one missing or cut short is named before settling, which stops at the
/// first keys part it cannot read and reads an edited part by its keys' offsets.
pub(super) fn check_sizes(run: &[&(PathBuf, Manifest)], problems: &mut Vec<String>) {
    for (path, m) in run {
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        for part in &m.parts {
            let at = dir.join(&part.file);
            match std::fs::metadata(&at) {
                Ok(meta) if meta.is_file() && meta.len() != part.size => {
                    problems.push(changed(&at, m.spec, meta.len(), part.size))
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => problems.push(missing(&at, m.spec)),
                // Anything else (a pipe, no permission) is told where the part is read.
                _ => {}
            }
        }
    }
}

/// Checks every part of `list` (keys parts aside: settling checks them) against its size and
/// digest: each one missing or changed in `problems`, each one the system fails to read in
/// `failed`. An output written in place (a pipe, a device) cannot be taken back, so nothing
/// may reach it before every part is known good.
pub(super) fn check_parts(
    list: &[(PathBuf, Manifest)],
    problems: &mut Vec<String>,
    failed: &mut Vec<String>,
) {
    for (path, m) in list {
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        for part in m.parts.iter().filter(|p| p.role != super::settle::KEYS) {
            let at = dir.join(&part.file);
            let read = std::fs::File::open(&at).and_then(|mut f| digest(&mut f));
            match read {
                Ok((len, hash)) if len == part.size && hash == part.digest => {}
                Ok((len, _)) => problems.push(changed(&at, m.spec, len, part.size)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => problems.push(missing(&at, m.spec)),
                Err(e) => match super::merge::Stop::part(&at, e) {
                    super::merge::Stop::Part(e) => problems.push(e),
                    super::merge::Stop::Read(e) | super::merge::Stop::Write(e) => failed.push(e),
                    super::merge::Stop::Interrupted | super::merge::Stop::Stopped(_) => {}
                },
            }
        }
    }
}
