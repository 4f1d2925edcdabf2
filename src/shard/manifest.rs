//! A shard's manifest: the JSON file written last, beside its main part, once every part is in
//! place, saying which run the shard belongs to (pgnkit version, job, the options that shape the
//! output, each input's size and fingerprint, N), which part of each input it read, its ledger,
//! each part's name, size and digest, and its exit status. `merge` reads it back.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::error::{Kind, Severity};
use crate::io::name;
use crate::pipeline::Start;
use crate::pipeline::counter::Counter;
use crate::pipeline::stats::Stats;

use super::Spec;
use super::bounded::Bounded;
use super::plan::TO_END;

/// The manifest format this pgnkit writes and reads.
pub const FORMAT_VERSION: u64 = 3;

/// Bytes of a manifest at most: one lists the run's inputs (named on a command line, which
/// Linux keeps within 6 MiB) and, for those the shard read, their ledgers (about 1 kB each), so
/// this holds tens of thousands of inputs; a longer file is refused as it is read.
pub const MAX_BYTES: u64 = 64 << 20;

/// A manifest's name ends so.
pub const SUFFIX: &str = ".manifest.json";

/// The part of one input a shard read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Range {
    /// The input's index in the run.
    pub input: usize,
    /// Where the part starts.
    pub start: Start,
    /// Where it ends ([`TO_END`]: the end of the input).
    pub end: u64,
    /// Games read in it.
    pub games: u64,
    /// Its counts.
    pub stats: Stats,
}

/// One file a shard wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// What it holds: `output`, `rejects`, `duplicates`, `report`.
    pub role: String,
    /// The file name of the part, beside the manifest.
    pub file: PathBuf,
    /// The name the merged file takes (as the shard was given it; shards of one run agree on
    /// its file name only).
    pub target: PathBuf,
    /// Bytes of the part on disk.
    pub size: u64,
    /// XXH3-128 of the part's bytes, hex.
    pub digest: String,
    /// What a single run writes before the games (a CSV header), which the part leaves out.
    pub header: String,
    /// What a single run writes after them, rendered by `merge` from the ledgers: `""` for
    /// nothing, else the name of the record ([`super::merge::footer`]).
    pub footer: String,
    /// A Parquet table: `merge` writes the parts' row groups as one file instead of joining bytes.
    pub table: bool,
}

impl Part {
    /// The file name shard `spec` gives its part of the part's target ([`super::part_path`]).
    fn own_name(&self, spec: Spec) -> std::ffi::OsString {
        super::part_path(&self.target, None, spec).file_name().map(Into::into).unwrap_or_default()
    }

    /// Whether the part's file is one shard `spec` wrote: its own part name, by a relative way
    /// (`../rej/` for `--rejects` in another directory than `-o`'s), so that an edited manifest
    /// makes `merge` read no other file (`../../x`, `/etc/x`).
    fn named_for(&self, spec: Spec) -> bool {
        use std::path::Component;
        let relative =
            self.file.components().all(|c| matches!(c, Component::Normal(_) | Component::ParentDir));
        relative && self.file.file_name().is_some_and(|n| *n == *self.own_name(spec))
    }
}

/// An input a shard could not read as its job reads it, for a reason its bytes hold (not PGN,
/// UTF-16, a corrupt compressed stream): running the shard again cannot complete it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The input's index in the run.
    pub input: usize,
    /// The error, as the shard reported it.
    pub message: String,
}

/// An input of the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputId {
    /// The path as given.
    pub path: PathBuf,
    /// Its size on disk.
    pub size: u64,
    /// [`super::fingerprint::fingerprint`].
    pub fingerprint: String,
}

/// A shard's manifest.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    /// pgnkit's version.
    pub version: String,
    /// The command (`check`, `clean`, ...).
    pub job: String,
    /// The options that shape the output, canonical (sorted `name=value`).
    pub options: Vec<String>,
    /// Every input of the run.
    pub inputs: Vec<InputId>,
    /// Which shard.
    pub spec: Spec,
    /// The parts of inputs it read, in order.
    pub ranges: Vec<Range>,
    /// Its counts over every part.
    pub stats: Stats,
    /// Seconds it ran.
    pub seconds: f64,
    /// Its files.
    pub parts: Vec<Part>,
    /// Its exit status.
    pub exit: u8,
    /// The inputs it could not read for good ([`Failure`]): such a shard wrote its manifest so
    /// that `merge` names them, and is never merged.
    pub failures: Vec<Failure>,
    /// Job-specific figures the footers need (annotate's engines and cache counts).
    pub extra: Value,
}

/// A [`Stats`] as JSON.
pub fn stats_json(s: &Stats) -> Value {
    json!({
        "games": s.games, "games_with_errors": s.games_with_errors,
        "games_with_warnings": s.games_with_warnings, "plies": s.plies, "bytes": s.bytes,
        "pgn_games": s.pgn_games, "epd_lines": s.epd_lines, "not_epd_lines": s.not_epd_lines,
        "by_kind": s.by_kind.iter().map(|&(k, sev, n)| json!([k.code(), sev.name(), n])).collect::<Vec<_>>(),
        "counts": s.counts.iter().map(|&(k, n)| json!([k.name(), n])).collect::<Vec<_>>(),
        "wheres_seen": s.wheres_seen,
        "tags_seen": s.tags_seen,
    })
}

fn u(v: &Value, key: &str) -> Result<u64, String> {
    v.get(key).and_then(Value::as_u64).ok_or_else(|| format!("no number {key:?}"))
}

fn s<'v>(v: &'v Value, key: &str) -> Result<&'v str, String> {
    v.get(key).and_then(Value::as_str).ok_or_else(|| format!("no string {key:?}"))
}

/// A path written by [`name::to_json`].
fn path(v: &Value, key: &str) -> Result<PathBuf, String> {
    v.get(key).and_then(name::from_json).ok_or_else(|| format!("no file name {key:?}"))
}

fn list<'v>(v: &'v Value, key: &str) -> Result<&'v Vec<Value>, String> {
    v.get(key).and_then(Value::as_array).ok_or_else(|| format!("no list {key:?}"))
}

/// A [`Stats`] read back from [`stats_json`].
pub fn stats_from_json(v: &Value) -> Result<Stats, String> {
    let mut stats = Stats {
        games: u(v, "games")?,
        games_with_errors: u(v, "games_with_errors")?,
        games_with_warnings: u(v, "games_with_warnings")?,
        plies: u(v, "plies")?,
        bytes: u(v, "bytes")?,
        pgn_games: u(v, "pgn_games")?,
        epd_lines: u(v, "epd_lines")?,
        not_epd_lines: u(v, "not_epd_lines")?,
        ..Stats::default()
    };
    for k in list(v, "by_kind")? {
        let (code, sev, n) = (k[0].as_str(), k[1].as_str(), k[2].as_u64());
        let kind = Kind::ALL
            .iter()
            .find(|k| Some(k.code()) == code)
            .ok_or_else(|| format!("unknown kind {code:?}"))?;
        let sev = match sev {
            Some("error") => Severity::Error,
            Some("warning") => Severity::Warning,
            _ => return Err(format!("unknown severity {sev:?}")),
        };
        let n = n.ok_or("a kind's count is not a number")?;
        let mut one = Stats::default();
        one.by_kind.push((*kind, sev, n));
        stats.merge(&one);
    }
    if let Some(seen) = v.get("wheres_seen").and_then(Value::as_array) {
        stats.wheres_seen = seen.iter().map(|b| b.as_bool().unwrap_or(false)).collect();
    }
    if let Some(seen) = v.get("tags_seen").and_then(Value::as_array) {
        stats.tags_seen = seen.iter().map(|b| b.as_bool().unwrap_or(false)).collect();
    }
    for c in list(v, "counts")? {
        let (name, n) = (c[0].as_str().ok_or("a count's name")?, c[1].as_u64().ok_or("a count's value")?);
        stats.add(Counter::from_name(name).ok_or_else(|| format!("unknown count {name:?}"))?, n);
    }
    Ok(stats)
}

fn start_json(p: &Start) -> Value {
    json!({"offset": p.offset, "game": p.game, "line": p.line, "column": p.column})
}

fn start_from_json(v: &Value) -> Result<Start, String> {
    Ok(Start { offset: u(v, "offset")?, game: u(v, "game")?, line: u(v, "line")?, column: u(v, "column")? })
}

impl Manifest {
    /// The manifest as JSON.
    pub fn to_json(&self) -> Value {
        json!({
            "format": "pgnkit shard manifest",
            "format_version": FORMAT_VERSION,
            "pgnkit_version": self.version,
            "job": self.job,
            "options": self.options,
            "inputs": self.inputs.iter().map(|i| json!({"path": name::to_json(&i.path), "size": i.size, "fingerprint": i.fingerprint})).collect::<Vec<_>>(),
            "shard": {"index": self.spec.index, "count": self.spec.count},
            "ranges": self.ranges.iter().map(|r| json!({
                "input": r.input, "start": start_json(&r.start),
                "end": if r.end == TO_END { Value::Null } else { r.end.into() },
                "first_game": r.start.game + 1, "last_game": r.start.game + r.games, "games": r.games,
                "ledger": stats_json(&r.stats),
            })).collect::<Vec<_>>(),
            "ledger": stats_json(&self.stats),
            "seconds": self.seconds,
            "parts": self.parts.iter().map(|p| json!({
                "role": p.role, "file": name::to_json(&p.file), "target": name::to_json(&p.target), "size": p.size, "xxh3_128": p.digest,
                "header": p.header, "footer": p.footer, "table": p.table,
            })).collect::<Vec<_>>(),
            "exit_status": self.exit,
            "failures": self.failures.iter().map(|f| json!({"input": f.input, "message": f.message})).collect::<Vec<_>>(),
            "extra": self.extra,
        })
    }

    /// Reads a manifest back; the error says what is wrong with it.
    pub fn from_json(v: &Value) -> Result<Manifest, String> {
        if v.get("format").and_then(Value::as_str) != Some("pgnkit shard manifest") {
            return Err("not a pgnkit shard manifest".into());
        }
        let format = u(v, "format_version")?;
        if format != FORMAT_VERSION {
            return Err(format!("manifest format {format}; this pgnkit reads format {FORMAT_VERSION}"));
        }
        let shard = v.get("shard").ok_or("no shard")?;
        let spec = Spec::new(u(shard, "index")?, u(shard, "count")?)?;
        let inputs: Vec<InputId> = list(v, "inputs")?
            .iter()
            .map(|i| {
                Ok(InputId {
                    path: path(i, "path")?,
                    size: u(i, "size")?,
                    fingerprint: s(i, "fingerprint")?.into(),
                })
            })
            .collect::<Result<_, String>>()?;
        let ranges: Vec<Range> = list(v, "ranges")?
            .iter()
            .map(|r| {
                Ok(Range {
                    input: u(r, "input")? as usize,
                    start: start_from_json(r.get("start").ok_or("no start")?)?,
                    end: r.get("end").and_then(Value::as_u64).unwrap_or(TO_END),
                    games: u(r, "games")?,
                    stats: stats_from_json(r.get("ledger").ok_or("no ledger")?)?,
                })
            })
            .collect::<Result<_, String>>()?;
        if let Some(r) = ranges.iter().find(|r| r.input >= inputs.len()) {
            return Err(format!("a range of input {} where the manifest lists {}", r.input, inputs.len()));
        }
        // A manifest written before the field had none: a shard with a failure wrote no manifest.
        let failures: Vec<Failure> = match v.get("failures") {
            None => Vec::new(),
            Some(list) => list
                .as_array()
                .ok_or("failures is not a list")?
                .iter()
                .map(|f| Ok(Failure { input: u(f, "input")? as usize, message: s(f, "message")?.into() }))
                .collect::<Result<_, String>>()?,
        };
        if let Some(f) = failures.iter().find(|f| f.input >= inputs.len()) {
            return Err(format!("a failure of input {} where the manifest lists {}", f.input, inputs.len()));
        }
        let parts: Vec<Part> = list(v, "parts")?
            .iter()
            .map(|p| {
                Ok(Part {
                    role: s(p, "role")?.into(),
                    file: path(p, "file")?,
                    target: path(p, "target")?,
                    size: u(p, "size")?,
                    digest: s(p, "xxh3_128")?.into(),
                    header: s(p, "header")?.into(),
                    footer: s(p, "footer")?.into(),
                    // A manifest written before the field: a table was known by its name then.
                    table: match p.get("table") {
                        Some(t) => t.as_bool().ok_or("table is not true or false")?,
                        None => super::is_parquet(&path(p, "target")?),
                    },
                })
            })
            .collect::<Result<_, String>>()?;
        if let Some(p) = parts.iter().find(|p| !p.named_for(spec)) {
            return Err(format!(
                "its {} part's file {:?} is not shard {spec}'s part of {:?} ({:?}, beside the manifest or \
                 by a relative way from it): refused, no part is read from elsewhere",
                p.role,
                p.file.display().to_string(),
                p.target.display().to_string(),
                p.own_name(spec).to_string_lossy()
            ));
        }
        Ok(Manifest {
            version: s(v, "pgnkit_version")?.into(),
            job: s(v, "job")?.into(),
            options: list(v, "options")?
                .iter()
                .map(|o| o.as_str().map(str::to_owned).ok_or("an option is not a string"))
                .collect::<Result<_, _>>()?,
            inputs,
            spec,
            ranges,
            stats: stats_from_json(v.get("ledger").ok_or("no ledger")?)?,
            seconds: match v.get("seconds").and_then(Value::as_f64) {
                // Summed over the shards into a `Duration`: a time no run takes is no manifest's.
                Some(s) if !(0.0..1e12).contains(&s) => return Err(format!("seconds {s} is no run's time")),
                s => s.unwrap_or(0.0),
            },
            parts,
            exit: u(v, "exit_status")? as u8,
            failures,
            extra: v.get("extra").cloned().unwrap_or(Value::Null),
        })
    }

    /// Reads the manifest at `path`, as a stream within [`MAX_BYTES`].
    pub fn read(path: &Path) -> Result<Manifest, String> {
        let reader = Bounded::open(path, MAX_BYTES, "a manifest".into()).map_err(|e| e.to_string())?;
        let v: Value = serde_json::from_reader(reader).map_err(|e| match e.classify() {
            // A failed read, or a bound of the reader's.
            serde_json::error::Category::Io => e.to_string(),
            _ => format!("not JSON: {e}"),
        })?;
        Manifest::from_json(&v)
    }
}

/// XXH3-128 of everything `r` yields, hex, with its length.
pub fn digest(r: &mut impl std::io::Read) -> std::io::Result<(u64, String)> {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut len = 0u64;
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        len += n as u64;
    }
    Ok((len, format!("{:032x}", hasher.digest128())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_survive_json() {
        let mut s = Stats {
            games: 5,
            games_with_errors: 1,
            games_with_warnings: 2,
            pgn_games: 4,
            epd_lines: 7,
            not_epd_lines: 8,
            plies: 99,
            bytes: 1234,
            ..Stats::default()
        };
        s.count_kind(Kind::IllegalMove, Severity::Error);
        s.count_kind(Kind::IllegalMove, Severity::Error);
        s.count_kind(Kind::NullMove, Severity::Warning);
        s.add(Counter::Written, 4);
        s.add(Counter::Repaired(crate::pipeline::counter::RepairKind::Fen), 1);
        s.wheres_seen = vec![true, false];
        s.tags_seen = vec![false, true, true];
        let back = stats_from_json(&stats_json(&s)).expect("reads back");
        assert_eq!(back, s);
    }

    /// A part's file is its own part name, beside the manifest or by a relative way from it.
    #[test]
    fn a_part_file_is_its_own_part_name() {
        let spec = Spec::new(0, 4).expect("spec");
        let part = |file: &str, target: &str| Part {
            role: "rejects".into(),
            file: file.into(),
            target: target.into(),
            size: 0,
            digest: String::new(),
            header: String::new(),
            footer: String::new(),
            table: false,
        };
        for (file, target) in [
            ("r.pgn.part-0-of-4", "r.pgn"),
            ("../rej/r.pgn.part-0-of-4", "/data/rej/r.pgn"),
            ("a.part-0-of-4.parquet", "out/a.parquet"),
        ] {
            assert!(part(file, target).named_for(spec), "{file}");
        }
        for file in ["../../x", "/data/r.pgn.part-0-of-4", "r.pgn.part-1-of-4", "r.pgn", "", "./"] {
            assert!(!part(file, "r.pgn").named_for(spec), "{file}");
        }
    }
}
