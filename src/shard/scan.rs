//! Exact game starts found by reading: one sequential pass over an input (mapped or streamed,
//! decompressed) that stops at the first game start at or after each target, with the games and
//! line breaks before it counted. Shard plans and the index sidecar both read through it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::Error;
use crate::io::{Compression, Input, InputError, Source};
use crate::pgn::{LineIndex, Reader};
use crate::pipeline::Start;
use crate::pipeline::chunk::{Cut, StreamChunks, slice_chunks};

/// Decompressed bytes a scan reads at a time; a compressed input's parts start at such chunks.
pub const SCAN_CHUNK: usize = 1 << 20;

/// Where reading stands in a scan: the games and line breaks before the chunk being looked at.
struct Scan {
    targets: Vec<u64>,
    points: Vec<Start>,
    compressed: Option<Arc<AtomicU64>>,
    lines: u64,
}

impl Scan {
    /// Looks for the pending targets in `cut`; false once all are found.
    fn chunk(&mut self, cut: &Cut<impl std::ops::Deref<Target = [u8]>>) -> bool {
        let bytes: &[u8] = &cut.bytes;
        let here = |pos: usize, games: u64, lines: u64| {
            let lc = LineIndex::with_column(bytes, cut.column as usize).locate(pos);
            Start {
                offset: cut.offset + pos as u64,
                game: cut.first_game + games,
                line: lines + lc.line as u64 - 1,
                column: if lc.line == 1 { cut.column + pos as u64 } else { lc.col as u64 },
            }
        };
        while let Some(&t) = self.targets.get(self.points.len()) {
            match &self.compressed {
                // A compressed input's parts start at the first chunk read once `t` compressed
                // bytes were consumed.
                Some(consumed) if consumed.load(Ordering::Relaxed) >= t => {
                    self.points.push(here(0, 0, self.lines));
                }
                Some(_) => break,
                None if t <= cut.offset => self.points.push(here(0, 0, self.lines)),
                None if t < cut.offset + bytes.len() as u64 => {
                    let want = (t - cut.offset) as usize;
                    let mut r = Reader::for_range(bytes, 0..bytes.len()).starting_at(cut.offset, cut.column);
                    let (mut pos, mut games) = (0, 0);
                    while pos < want {
                        if !r.skip_game() {
                            pos = bytes.len();
                            break;
                        }
                        pos = r.offset();
                        games += 1;
                    }
                    self.points.push(here(pos, games, self.lines));
                }
                None => break,
            }
        }
        self.lines += LineIndex::with_column(bytes, cut.column as usize).locate(bytes.len()).line as u64 - 1;
        self.points.len() < self.targets.len()
    }
}

/// The exact game starts for `targets` (increasing; offsets of a plain input, compressed bytes
/// consumed of a compressed one), in one sequential pass from `from` (a game start of a mapped
/// input whose numbers are known, else the start) that stops at the last of them. A target past
/// the input's last game gives its end.
pub(super) fn scan(
    input: Input,
    targets: &[u64],
    from: Start,
    scanned: &mut u64,
) -> Result<Vec<Start>, Error> {
    let path = input.path.clone();
    let compressed = (input.compression != Compression::None).then(|| Arc::clone(&input.consumed));
    let mut scan = Scan { targets: targets.to_vec(), points: Vec::new(), compressed, lines: 0 };
    let mut end = Start::default();
    let split = crate::pgn::split::cut;
    let compression = input.compression;
    match input.source {
        Source::Mapped(map) => {
            let at = (from.offset as usize).min(map.len());
            scan.lines = from.line;
            end = from;
            for cut in slice_chunks(&map[at..], SCAN_CHUNK, split, from) {
                end = after(&cut, scan.lines);
                *scanned += cut.bytes.len() as u64;
                if !scan.chunk(&cut) {
                    break;
                }
            }
        }
        Source::Stream(r) => {
            for cut in StreamChunks::new(r, SCAN_CHUNK, split, Start::default()) {
                let cut = cut.map_err(|e| Error::Input(InputError::reading(&path, compression, e)))?;
                end = after(&cut, scan.lines);
                *scanned += cut.bytes.len() as u64;
                if !scan.chunk(&cut) {
                    break;
                }
            }
        }
    }
    let mut points = scan.points;
    while points.len() < targets.len() {
        points.push(end);
    }
    Ok(points)
}

/// The point just after `cut` (whose first line break count is `lines`).
fn after(cut: &Cut<impl std::ops::Deref<Target = [u8]>>, lines: u64) -> Start {
    let bytes: &[u8] = &cut.bytes;
    let lc = LineIndex::with_column(bytes, cut.column as usize).locate(bytes.len());
    Start {
        offset: cut.offset + bytes.len() as u64,
        game: cut.first_game + cut.games,
        line: lines + lc.line as u64 - 1,
        column: if lc.line == 1 { cut.column + bytes.len() as u64 } else { lc.col as u64 },
    }
}
