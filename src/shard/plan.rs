//! Which part of each input shard I of N reads, a function of the inputs and N only (never of
//! `-j`, the machine or the time). The inputs, in order, weigh their sizes on disk (compressed
//! bytes for compressed inputs), W in all; shard I takes the weights `[I*W/N, (I+1)*W/N)`, each
//! end moved forward to an exact game start of the sequential reading ([`crate::pgn::split`]; a
//! line start for EPD input, [`Unit::Lines`]): in a plain file the first game start at or after
//! that byte; in a zstd file of several frames ([`frames`](super::frames)) the first game start
//! at or after the first byte of the first data frame at or after it (the input's end when there
//! is none), so the shard reads from that frame on; in any other compressed one (a single zstd
//! frame, gzip) the first scan chunk (game-aligned, about [`SCAN_CHUNK`] decompressed bytes) read
//! once the decoder has consumed that many compressed bytes, or, under [`MEASURED_BELOW`] on
//! disk, the first game start at that fraction of its text. The parts of one input tile it:
//! shard I's end is shard I+1's start, with the games and line breaks before it counted, so its
//! records carry the numbers one run gives them. Finding a start reads the input before it (a
//! skip at the reader's speed, decompressing a compressed input), or, with an
//! [`index`](super::index) sidecar, only the bytes from the indexed game start before it (a
//! plain file), nothing (a zstd file of several frames: the index has each frame's numbers).

use std::io::Read;
use std::path::PathBuf;

use crate::error::Error;
use crate::io::{Compression, Input, InputError, InputOptions};
use crate::jobs::run::{Seek, Share, Span};
use crate::pipeline::Start;
use crate::pipeline::chunk::StoppedAt;

use super::Spec;
use super::fingerprint::fingerprint;
use super::scan::scan;
pub use super::scan::{SCAN_CHUNK, Unit};

/// A span's end that is the end of its input.
pub const TO_END: u64 = u64::MAX;

/// One input of the run as a shard sees it.
#[derive(Clone, Debug)]
pub struct InputShare {
    /// The path as given.
    pub path: PathBuf,
    /// Size on disk.
    pub size: u64,
    /// [`fingerprint`].
    pub fingerprint: String,
    /// How it is compressed.
    pub compression: Compression,
    /// The part this shard reads (its end [`TO_END`] for the rest of the input); `None`: none.
    pub span: Option<Span>,
    /// A corrupt stream met while finding that part: the shard reads none of it and reports it.
    pub failed: Option<InputError>,
}

/// What shard I of N reads of each input.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The shard.
    pub spec: Spec,
    /// Every input of the run, in order.
    pub inputs: Vec<InputShare>,
    /// Bytes read before this shard's share to find where it starts.
    pub scanned: u64,
}

impl Plan {
    /// The inputs this shard reads, with their parts, for [`crate::jobs::run::run_shares`].
    pub fn shares(&self) -> Vec<Share> {
        self.read()
            .map(|(_, i)| Share { path: i.path.clone(), span: i.span, failed: i.failed.clone() })
            .collect()
    }

    /// The inputs a run of this shard goes through, in order, with their indices in the run:
    /// those it reads a part of and those it found failed.
    pub fn read(&self) -> impl Iterator<Item = (usize, &InputShare)> {
        self.inputs.iter().enumerate().filter(|(_, i)| i.span.is_some() || i.failed.is_some())
    }
}

/// The weights of input `k` that shard `spec` covers, as (local start, local end or `None`
/// when it reaches the end of the input), or `None` when the shard reads nothing of it.
/// `starts[k]` is the input's first weight and `sizes[k]` its weight.
fn bounds(spec: Spec, total: u64, start: u64, size: u64) -> Option<(u64, Option<u64>)> {
    let at = |i: u64| (u128::from(i) * u128::from(total) / u128::from(spec.count)) as u64;
    let (lo, hi, end) = (at(spec.index), at(spec.index + 1), start + size);
    // The shard whose range first reaches the input's end reads its last part (an empty input
    // is read by exactly one shard).
    let last = hi >= end && (spec.index == 0 || lo < end);
    if !last && (lo >= end || hi <= start) {
        return None;
    }
    Some((lo.saturating_sub(start), (!last).then(|| hi - start)))
}

/// Compressed streams (a single zstd frame, gzip) smaller than this on disk are measured
/// (decompressed to their end) before their shares are found: above it their text is at least a
/// few hundred scan chunks, and decompressing it all again in every shard would cost more.
pub const MEASURED_BELOW: u64 = 64 << 20;

/// The decompressed size of `input`; a read error says where reading stopped, as a run's does.
fn text_size(input: Input) -> Result<u64, Error> {
    let (path, compression) = (input.path.clone(), input.compression);
    let mut r = match input.source {
        crate::io::Source::Mapped(map) => return Ok(map.len() as u64),
        crate::io::Source::Stream(r) => r,
    };
    let mut buf = vec![0u8; 1 << 16];
    let mut offset = 0u64;
    loop {
        match r.read(&mut buf) {
            Ok(0) => return Ok(offset),
            Ok(n) => offset += n as u64,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(source) => {
                let e = std::io::Error::new(source.kind(), StoppedAt { offset, source, left_out: None });
                return Err(Error::Input(InputError::reading(&path, compression, e)));
            }
        }
    }
}

/// The plan of shard `spec` over `paths`, whose shares are runs of `unit`.
pub fn plan(paths: &[PathBuf], spec: Spec, unit: Unit, no_mmap: bool) -> Result<Plan, Error> {
    let mut inputs = Vec::with_capacity(paths.len());
    for path in paths {
        if path.as_os_str() == "-" {
            return Err(Error::Usage(crate::error::UsageError::rule(
                "--shard: stdin cannot be sharded (every shard would need all of it); save it to a file",
            )));
        }
        let io_err = |source| Error::Input(InputError::Io { path: path.clone(), source });
        let meta = std::fs::metadata(path).map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => Error::Input(InputError::NotFound { path: path.clone() }),
            _ => io_err(source),
        })?;
        if !meta.is_file() {
            return Err(Error::Usage(crate::error::UsageError::rule(format!(
                "--shard: {} is not a regular file; shards read their share of files",
                path.display()
            ))));
        }
        let fingerprint = fingerprint(path).map_err(io_err)?;
        inputs.push(InputShare {
            path: path.clone(),
            size: meta.len(),
            fingerprint,
            compression: Compression::None,
            span: None,
            failed: None,
        });
    }
    let total: u64 = inputs.iter().map(|i| i.size).sum();
    let mut scanned = 0;
    let mut start = 0;
    for input in &mut inputs {
        let weight = input.size;
        let b = bounds(spec, total, start, weight);
        start += weight;
        let opened = match Input::open(&input.path, InputOptions { no_mmap }) {
            Ok(opened) => opened,
            // UTF-16, a compression not read: no start can be found in it. The shard whose share
            // starts it reads it whole, and fails it as a run does, which its manifest records.
            Err(e) if e.exit_code() == crate::exit::Code::DataErr => {
                if let Some((0, _)) = b {
                    input.span = Some(Span { start: Start::default(), end: TO_END, seek: None });
                }
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        input.compression = opened.compression;
        let Some((lo, hi)) = b else { continue };
        match share(input, opened, (lo, hi), unit, no_mmap, &mut scanned) {
            Ok(span) => input.span = span,
            // The same bytes fail every rerun: the shard reports the input as failed, as a run
            // reading it does, and its manifest records it.
            Err(Error::Input(e @ InputError::Corrupt { .. })) => input.failed = Some(e),
            Err(e) => return Err(e),
        }
    }
    Ok(Plan { spec, inputs, scanned })
}

/// The part of `input` (opened as `opened`) at its weights `lo..hi`; `None` when no record
/// starts there.
fn share(
    input: &InputShare,
    opened: Input,
    (lo, hi): (u64, Option<u64>),
    unit: Unit,
    no_mmap: bool,
    scanned: &mut u64,
) -> Result<Option<Span>, Error> {
    if input.compression == Compression::Zstd
        && let Some(span) = framed(input, unit, lo, hi, scanned)?
    {
        return Ok(span);
    }
    let mut targets: Vec<u64> = [Some(lo), hi].into_iter().flatten().filter(|&t| t > 0).collect();
    // A small compressed stream is decompressed once for its text's size, and its shares
    // are found at that fraction of its text: at the decoder's pace they would start only
    // at a scan chunk's start, so its shards got nothing, and the last all its games.
    let mut opened = Some(opened);
    let by_text =
        input.compression != Compression::None && input.size < MEASURED_BELOW && !targets.is_empty();
    if by_text {
        let text = text_size(opened.take().expect("opened"))?;
        *scanned += text;
        for t in &mut targets {
            *t = (u128::from(*t) * u128::from(text) / u128::from(input.size.max(1))) as u64;
        }
        opened = Some(Input::open(&input.path, InputOptions { no_mmap })?);
    }
    let opened = opened.expect("opened");
    // The index holds game starts: an EPD input is scanned from its start.
    let index = match (input.compression, unit) {
        (Compression::None, Unit::Games) => {
            super::index::Index::beside(&input.path, &input.fingerprint, Compression::None)?
        }
        _ => None,
    };
    let points = match (&index, targets.is_empty()) {
        (_, true) => Vec::new(),
        (None, false) => scan(opened, &targets, Start::default(), unit, by_text, scanned)?,
        (Some(index), false) => {
            let mut points = Vec::new();
            for &t in &targets {
                let again = Input::open(&input.path, InputOptions { no_mmap })?;
                points.extend(scan(again, &[t], index.before(t), unit, false, scanned)?);
            }
            points
        }
    };
    let mut points = points.into_iter();
    let from = if lo > 0 { points.next().unwrap_or_default() } else { Start::default() };
    let end = match hi {
        Some(h) if h > 0 => points.next().map_or(TO_END, |p| p.offset),
        Some(_) => 0,
        None => TO_END,
    };
    if end != TO_END && end <= from.offset {
        return Ok(None); // nothing of it is this shard's
    }
    Ok(Some(Span { start: from, end, seek: None }))
}

/// The span of weights `lo..hi` of a zstd input of several frames: each end at the first data
/// frame at or after it (the input's end when there is none), moved to the first record start
/// at or after the frame's first byte, read from that frame on. Their numbers come from the
/// index when there is one, else from decoding the frames before. `None`: a single frame.
fn framed(
    input: &InputShare,
    unit: Unit,
    lo: u64,
    hi: Option<u64>,
    scanned: &mut u64,
) -> Result<Option<Option<Span>>, Error> {
    let path = &input.path;
    let index = match unit {
        Unit::Games => super::index::Index::beside(path, &input.fingerprint, Compression::Zstd)?
            .filter(|i| !i.frames.is_empty()),
        Unit::Lines => None, // the index holds game starts
    };
    let targets: Vec<u64> = [Some(lo), hi].into_iter().flatten().filter(|&t| t > 0).collect();
    if targets.is_empty() {
        return Ok(None); // the whole input: nothing to find
    }
    let (frames, points, end) = match index {
        Some(index) => (index.frames.iter().map(|f| f.compressed).collect(), index.frames, index.end),
        None => {
            let io_err = |source| Error::Input(InputError::Io { path: path.clone(), source });
            let frames =
                super::frames::walk(path, targets.iter().copied().max().unwrap_or(0)).map_err(io_err)?;
            if frames.len() < 2 {
                return Ok(None);
            }
            let first_at = |t: u64| frames.partition_point(|&f| f < t);
            let to_end = targets.iter().any(|&t| first_at(t) == frames.len());
            let count = if to_end {
                frames.len()
            } else {
                targets.iter().map(|&t| first_at(t) + 1).max().unwrap_or(0)
            };
            let (points, end) = super::frames::points(path, &frames, count, unit, to_end, scanned)?;
            (frames, points, end)
        }
    };
    // Where the first record at or after target `t` starts, and the frame to read it from.
    let at = |t: u64| -> (Start, Option<Seek>) {
        let k = frames.partition_point(|&f| f < t);
        let seek =
            |p: &super::frames::FramePoint| Seek { compressed: p.compressed, decompressed: p.decompressed };
        match points.get(k) {
            Some(p) => (p.start, Some(seek(p))),
            None => (end, points.last().map(seek)),
        }
    };
    let (from, seek) = if lo > 0 { at(lo) } else { (Start::default(), None) };
    let end = match hi {
        Some(h) if h > 0 => at(h).0.offset,
        Some(_) => 0,
        None => TO_END,
    };
    if end != TO_END && end <= from.offset {
        return Ok(Some(None));
    }
    Ok(Some(Some(Span { start: from, end, seek })))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every weight is read by exactly one shard, for any count, and every input by some.
    #[test]
    fn bounds_tile_the_inputs() {
        for sizes in [vec![0u64], vec![10], vec![0, 0, 5, 0], vec![3, 0, 7, 1, 0], vec![100, 1, 1]] {
            let total: u64 = sizes.iter().sum();
            for count in 1..12 {
                let mut starts = 0;
                for &size in &sizes {
                    let parts: Vec<(u64, Option<u64>)> = (0..count)
                        .filter_map(|index| bounds(Spec { index, count }, total, starts, size))
                        .collect();
                    starts += size;
                    let ends = parts.iter().filter(|p| p.1.is_none()).count();
                    assert_eq!(ends, 1, "one shard reads the end: {sizes:?} {count} {parts:?}");
                    assert_eq!(parts.last().map(|p| p.1), Some(None), "the last part ends it");
                    assert_eq!(parts[0].0, 0);
                    for w in parts.windows(2) {
                        assert_eq!(w[0].1, Some(w[1].0), "contiguous: {sizes:?} {count} {parts:?}");
                    }
                }
            }
        }
    }
}
