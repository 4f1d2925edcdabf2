//! A shard's manifest: the JSON file written last, beside its main part, once every part is in
//! place, saying which run the shard belongs to (pgnkit version, job, the options that shape the
//! output, each input's size and fingerprint, N), which part of each input it read, its ledger,
//! each part's name, size and digest, and its exit status. `merge` reads it back.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::io::name;
use crate::pipeline::Start;
use crate::pipeline::stats::Stats;

use super::Spec;
use super::plan::TO_END;

mod read;

/// The manifest format this pgnkit writes and reads.
pub const FORMAT_VERSION: u64 = 3;

/// Bytes of a manifest at most: one lists the run's inputs (named on a command line, which
/// Linux keeps within 6 MiB) and, for those the shard read, their ledgers (about 1 kB each), so
/// this holds tens of thousands of inputs; a longer file is refused as it is read. Read into its
/// own types, each list within its bound, a 60 MiB manifest takes at most a few times that in
/// memory (`read`).
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

fn start_json(p: &Start) -> Value {
    json!({"offset": p.offset, "game": p.game, "line": p.line, "column": p.column})
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

    /// Reads the manifest at `path`, as a stream within [`MAX_BYTES`], each list within its bound.
    pub fn read(path: &Path) -> Result<Manifest, String> {
        read::read(path)
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
