//! Sharding a run for a cluster: shard I of N reads a contiguous run of the inputs' games
//! ([`plan()`]), writes its outputs as parts (`out.pgn.part-I-of-N`) and a [`manifest`] beside
//! them, and [`merge`] checks that the manifests make one run and writes the outputs one run
//! writes. The scheduler (Slurm, Kubernetes, AWS or Google Batch) names the shard ([`Spec`]).

mod bounded;
pub mod fingerprint;
pub mod frames;
pub mod index;
pub mod manifest;
pub mod merge;
pub mod plan;
mod proof;
pub mod scan;
pub mod settle;
pub mod spec;
mod tables;
mod turns;

use std::path::{Path, PathBuf};

pub use manifest::Manifest;
pub use plan::{Plan, plan};
pub use spec::Spec;

/// The name of shard `spec`'s part of the output `path`: `path.part-I-of-N`, in `dir` when
/// given (under `path`'s file name), else beside `path`. A Parquet part is a whole Parquet file
/// and keeps its ending (`a.part-I-of-N.parquet`), as `read_parquet('DIR/*.parquet')` needs.
///
/// ```
/// use pgnkit::shard::{Spec, part_path};
/// use std::path::Path;
/// let spec = Spec::new(3, 12).unwrap();
/// assert_eq!(part_path(Path::new("out/a.pgn"), None, spec), Path::new("out/a.pgn.part-03-of-12"));
/// assert_eq!(part_path(Path::new("out/a.pgn"), Some(Path::new("p")), spec), Path::new("p/a.pgn.part-03-of-12"));
/// assert_eq!(part_path(Path::new("a.parquet"), Some(Path::new("p")), spec), Path::new("p/a.part-03-of-12.parquet"));
/// ```
pub fn part_path(path: &Path, dir: Option<&Path>, spec: Spec) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_else(|| "out".into());
    if is_parquet(path) {
        let mut stem = path.file_stem().unwrap_or_default().to_os_string();
        stem.push(format!(".part-{}.parquet", spec.label()));
        return match dir {
            Some(d) => d.join(stem),
            None => path.with_file_name(stem),
        };
    }
    name.push(format!(".part-{}", spec.label()));
    match dir {
        Some(d) => d.join(name),
        None => path.with_file_name(name),
    }
}

/// The manifest of the shard whose main part is `part`.
pub fn manifest_path(part: &Path) -> PathBuf {
    let mut name = part.as_os_str().to_os_string();
    name.push(manifest::SUFFIX);
    PathBuf::from(name)
}

/// Whether `path` names a Parquet file, whose part keeps the ending (what the part holds is the
/// manifest's [`manifest::Part::table`], not its name).
pub(crate) fn is_parquet(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "parquet")
}
