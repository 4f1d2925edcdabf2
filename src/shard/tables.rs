//! `merge` of Parquet parts: each part is a whole Parquet file, so they are not concatenated but
//! read back row group by row group and written again as one table, row groups of the same size
//! as a single run's: the merged file is byte for byte the file one run writes.

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use super::Spec;
use super::manifest::{Part, digest};
use super::merge::Stop;
use crate::columnar::read::TableReader;
use crate::columnar::write::TableWriter;
use crate::io::Watched;
use crate::io::run::Run;

/// What ends or thins a table's copy: the rows one run does not write, and a stop asked for.
pub(super) struct Stops<'a> {
    /// Whether a row (by shard place and row number in its part) is left out.
    pub dropped: &'a dyn Fn(usize, u64) -> io::Result<bool>,
    /// Whether a stop was asked for (checked at each row group).
    pub requested: &'a dyn Fn() -> bool,
}

/// Writes the rows of `parts` (path, manifest entry, shard, its place among the shards), in
/// order, to `out`, leaving out those `stops.dropped` names and ending at a row group when a
/// stop is requested ([`Stop::Interrupted`]);
/// a part missing or changed since its shard wrote it goes to `problems` (then nothing more is
/// written); `out` is synced at the end when `synced` (not a device or a pipe). Returns the bytes
/// of parts read; stops at a part that cannot be read or a write to `out` that fails.
pub(super) fn merge_parts(
    parts: &[(PathBuf, &Part, Spec, usize)],
    out: BufWriter<Watched>,
    target: &Path,
    synced: bool,
    stops: &Stops<'_>,
    problems: &mut Vec<String>,
) -> Result<u64, Stop> {
    let write_err = |e: io::Error| Stop::write(target, e);
    let mut out = Some(out);
    let mut writer: Option<TableWriter<BufWriter<Watched>>> = None;
    let mut bytes = 0;
    for (at, part, spec, k) in parts {
        let mut file = match File::open(at) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                problems.push(super::proof::missing(at, *spec));
                continue;
            }
            Err(e) => return Err(Stop::part(at, e)),
        };
        let (len, hash) = digest(&mut file).map_err(|e| Stop::part(at, e))?;
        if len != part.size || hash != part.digest {
            problems.push(super::proof::changed(at, *spec, len, part.size));
            continue;
        }
        bytes += len;
        if !problems.is_empty() {
            continue; // nothing is written: the rest are only checked
        }
        let reader = TableReader::new(file).map_err(|e| Stop::part(at, e))?;
        let w = match &mut writer {
            Some(w) => w,
            None => {
                let out = out.take().expect("the output is taken once");
                writer.insert(TableWriter::new(out, reader.schema()).map_err(write_err)?)
            }
        };
        if w.schema() != reader.schema() {
            return Err(Stop::Part(format!("{}: its columns differ from the other parts'", at.display())));
        }
        let mut row = 0u64;
        for g in 0..reader.groups() {
            if (stops.requested)() {
                return Err(Stop::Interrupted);
            }
            let batch = reader.group(g).map_err(|e| Stop::part(at, e))?;
            // The rows kept, a run at a time.
            let mut run = Run::default();
            for r in 0..batch.rows() {
                if !(stops.dropped)(*k, row + r as u64).map_err(|e| Stop::Read(e.to_string()))?
                    && let Some(done) = run.extend(r..r + 1)
                {
                    w.append(&batch, done).map_err(write_err)?;
                }
            }
            if let Some(done) = run.take() {
                w.append(&batch, done).map_err(write_err)?;
            }
            row += batch.rows() as u64;
        }
    }
    if !problems.is_empty() {
        return Ok(bytes);
    }
    let Some(w) = writer else { return Err(Stop::Part(format!("{}: no part to merge", target.display()))) };
    let file = w.finish().map_err(write_err)?.into_inner().map_err(|e| write_err(e.into_error()))?;
    if synced {
        file.file().sync_all().map_err(write_err)?;
    }
    Ok(bytes)
}
