//! `pgnkit index`: a small sidecar beside an input (`FILE.pgnkit-index`, JSON). For a plain
//! file it holds the exact game start at or after every [`STEP`] bytes (1 MiB: a shard reads half
//! of that on average before each end of its share) with the games and line breaks before it,
//! made in one pass at the reader's skip speed. For a zstd file of several frames it holds each
//! data frame's offset in the file and in the text, and the first game start at or after it
//! with its numbers ([`FramePoint`]), made in one pass decoding frame by frame (a single-frame
//! stream is not indexed). A shard that finds it (and its fingerprint matching the input's)
//! reads from the indexed start before its own (the frame its share starts at) instead of from
//! the input's beginning; the parts are the same either way. A sidecar whose fingerprint or
//! recorded modification time differs is stale: an error, never used. The time catches an edit
//! of the same length between the fingerprint's samples, whose line and game counts the index
//! would otherwise hand out wrong; a copy that does not keep the time (`cp` without `-p`) is
//! indexed again.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::error::Error;
use crate::io::{Compression, Input, InputOptions};
use crate::pipeline::Start;

use super::bounded::Bounded;
use super::fingerprint::fingerprint;
use super::frames::{self, FramePoint};
use super::scan::{Unit, scan};
use read::bounds;

mod read;

/// Bytes between indexed points.
pub const STEP: u64 = 1 << 20;

/// The format this pgnkit writes and reads.
pub const FORMAT_VERSION: u64 = 1;

/// The sidecar of `input`.
pub fn index_path(input: &Path) -> PathBuf {
    let mut name = input.as_os_str().to_os_string();
    name.push(".pgnkit-index");
    PathBuf::from(name)
}

/// The modification time of the file at `path`, in nanoseconds since the Unix epoch.
fn modified(path: &Path) -> Option<u64> {
    let time = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
    u64::try_from(time.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos()).ok()
}

/// An input's index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Index {
    /// The input's fingerprint when indexed.
    pub fingerprint: String,
    /// The input's modification time when indexed, in nanoseconds since the Unix epoch (`None`
    /// in a sidecar that does not record it, or where the system does not tell).
    pub modified: Option<u64>,
    /// Game starts with their numbers, increasing.
    pub points: Vec<Start>,
    /// Where the input ends: its games and line breaks in all.
    pub end: Start,
    /// A zstd input's data frames (empty for a plain one).
    pub frames: Vec<FramePoint>,
}

impl Index {
    /// Indexes the plain or multi-frame zstd file `path` in one pass.
    pub fn build(path: &Path) -> Result<Index, Error> {
        // A device or a pipe has no fixed bytes to index, and no place beside it for the sidecar.
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            return Err(Error::Usage(crate::error::UsageError::rule(format!(
                "{}: not a regular file: only a file is indexed",
                path.display()
            ))));
        }
        let input = Input::open(path, InputOptions::default())?;
        let io_err = |source| Error::Input(crate::io::InputError::Io { path: path.to_owned(), source });
        // Read before the pass: a change during it makes the index stale.
        let modified = modified(path);
        let fingerprint = fingerprint(path).map_err(io_err)?;
        let refuse = |why: &str| {
            Err(Error::Usage(crate::error::UsageError::rule(format!(
                "{}: {why} is not indexed: a shard decompresses it from its start",
                path.display(),
            ))))
        };
        match input.compression {
            Compression::None => {}
            Compression::Zstd => {
                let starts = frames::walk(path, u64::MAX).map_err(io_err)?;
                if starts.len() < 2 {
                    return refuse("a single-frame zstd stream");
                }
                let (frames, end) = frames::points(path, &starts, starts.len(), Unit::Games, true, &mut 0)?;
                return Ok(Index { fingerprint, modified, points: Vec::new(), end, frames });
            }
            Compression::Gzip => return refuse("gzip input"),
        }
        let size = input.total_size.unwrap_or(0);
        let mut targets: Vec<u64> = (1..=size / STEP).map(|k| k * STEP).collect();
        targets.push(u64::MAX);
        let mut scanned = 0;
        let mut points = scan(input, &targets, Start::default(), Unit::Games, false, &mut scanned)?;
        let end = points.pop().unwrap_or_default();
        points.dedup();
        points.retain(|p| p.offset < end.offset);
        Ok(Index { fingerprint, modified, points, end, frames: Vec::new() })
    }

    /// The index beside `input` (`compression` says whether it may list frames) when there is
    /// one; an error when it is stale (made of another version of the input) or no index (65, a
    /// problem of the input's, as a corrupt stream is), or unreadable (66 or 74, as an input).
    /// Read as a stream within what an index of the input can hold: a point per [`STEP`] bytes
    /// of a plain file, a frame per 9 bytes of a zstd one (its smallest frame), and their bytes.
    pub fn beside(input: &Path, fingerprint: &str, compression: Compression) -> Result<Option<Index>, Error> {
        let path = index_path(input);
        let io_err = |path: PathBuf, source| Error::Input(crate::io::InputError::Io { path, source });
        let size = std::fs::metadata(input).map_err(|e| io_err(input.to_owned(), e))?.len();
        let bounds = bounds(size, compression == Compression::Zstd);
        let what = format!("an index of this input ({size} bytes)");
        let reader = match Bounded::open(&path, bounds.bytes, what) {
            Ok(r) => r,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(io_err(path, source)),
        };
        let bad = |why: String| {
            Error::Input(crate::io::InputError::BadIndex { path: path.clone(), input: input.to_owned(), why })
        };
        let raw = read::read(reader, bounds).map_err(|e| {
            use serde_json::error::Category;
            match e.classify() {
                Category::Syntax | Category::Eof => bad(format!("not JSON: {e}")),
                Category::Data => bad(e.to_string()),
                Category::Io => match std::io::Error::from(e) {
                    // A bound of the reader's.
                    e if e.kind() == std::io::ErrorKind::InvalidData => bad(e.to_string()),
                    source => io_err(path.clone(), source),
                },
            }
        })?;
        let index = raw.index().map_err(bad)?;
        if index.fingerprint != fingerprint {
            return Err(bad("stale: the input changed since it was indexed".into()));
        }
        if index.modified.is_some() && index.modified != modified(input) {
            return Err(bad("stale: the input was modified (or copied) since it was indexed".into()));
        }
        Ok(Some(index))
    }

    /// The last indexed game start at or before `offset` (the input's start when none).
    pub fn before(&self, offset: u64) -> Start {
        let i = self.points.partition_point(|p| p.offset <= offset);
        if i == 0 { Start::default() } else { self.points[i - 1] }
    }

    /// The index as JSON.
    pub fn to_json(&self) -> Value {
        let point = |p: &Start| json!([p.offset, p.game, p.line, p.column]);
        let frame = |f: &FramePoint| {
            let s = f.start;
            json!([f.compressed, f.decompressed, s.offset, s.game, s.line, s.column])
        };
        let mut v = json!({
            "format": "pgnkit index", "format_version": FORMAT_VERSION,
            "fingerprint": self.fingerprint, "compression": "plain", "step": STEP,
            "games": self.end.game, "lines": self.end.line, "end": point(&self.end),
            "modified_ns": self.modified,
            "points": self.points.iter().map(point).collect::<Vec<_>>(),
        });
        if !self.frames.is_empty() {
            v["compression"] = "zstd".into();
            v["frames"] = self.frames.iter().map(frame).collect::<Vec<_>>().into();
        }
        v
    }

    /// Writes the index beside `input` (under a temporary name, renamed when complete).
    pub fn write(&self, input: &Path) -> std::io::Result<PathBuf> {
        let path = index_path(input);
        let mut temp = path.as_os_str().to_os_string();
        temp.push(format!(".pgnkit-tmp-{}", std::process::id()));
        let temp = PathBuf::from(temp);
        std::fs::write(&temp, self.to_json().to_string() + "\n")?;
        std::fs::rename(&temp, &path).inspect_err(|_| {
            let _ = std::fs::remove_file(&temp);
        })?;
        Ok(path)
    }
}
