//! Exact game starts found by reading: one sequential pass over an input (mapped or streamed,
//! decompressed) that stops at the first game start (a line start for EPD, [`Unit::Lines`]) at
//! or after each target, with the games and line breaks before it counted. Shard plans and the
//! index sidecar both read through it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::Error;
use crate::io::{Compression, Input, InputError, Source};
use crate::pgn::{LineIndex, Reader, line_breaks, line_end};
use crate::pipeline::Start;
use crate::pipeline::chunk::{Cut, Split, StreamChunks, line_cut, slice_chunks};

/// Decompressed bytes a scan reads at a time; a compressed input's parts start at such chunks.
pub const SCAN_CHUNK: usize = 1 << 20;

/// What a shard's share is made of, so what its ends snap to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Unit {
    /// PGN games: the ends are game starts.
    #[default]
    Games,
    /// Lines (EPD input, a position a line, each a record as [`Cuts::Lines`](crate::pipeline::Cuts)
    /// counts them): the ends are line starts.
    Lines,
}

impl Unit {
    /// How a scan cuts the input, and its chunks' target (bytes, or lines of about 64 bytes).
    pub(super) fn split(self) -> (Split, usize) {
        match self {
            Unit::Games => (crate::pgn::split::cut, SCAN_CHUNK),
            Unit::Lines => (line_cut, SCAN_CHUNK / 64),
        }
    }

    /// The first record start at or after `want` in a chunk that starts one (or, cut at line ends,
    /// the rest of a line over the budget, which starts none) and holds `games`
    /// records, and the records before it: `(bytes.len(), games)` when there is none.
    fn first_at(self, bytes: &[u8], at: (u64, u64), want: usize, games: u64) -> (usize, u64) {
        match self {
            Unit::Games => {
                let mut r = Reader::for_range(bytes, 0..bytes.len()).starting_at(at.0, at.1);
                let (mut pos, mut count) = (0, 0);
                while pos < want {
                    if !r.skip_game() {
                        return (bytes.len(), count);
                    }
                    pos = r.offset();
                    count += 1;
                }
                (pos, count)
            }
            Unit::Lines => {
                // A chunk that starts inside a line (the rest of one over the budget) starts none;
                // else the first line break that ends at or after `want` (the cutter parts no
                // `\r\n`: a `\r` that ends the chunk is lone).
                let pos = if want == 0 && at.1 == 1 {
                    want
                } else {
                    let from = want.saturating_sub(1);
                    match line_end(&bytes[from..], false) {
                        Some((_, next)) => from + next,
                        None => return (bytes.len(), games),
                    }
                };
                if pos == bytes.len() {
                    return (pos, games);
                }
                (pos, line_breaks(&bytes[..pos]))
            }
        }
    }
}

/// Where reading stands in a scan: the games and line breaks before the chunk being looked at.
pub(super) struct Scan {
    unit: Unit,
    /// Where starts are wanted, increasing.
    pub(super) targets: Vec<u64>,
    /// The starts found, one a target.
    pub(super) points: Vec<Start>,
    compressed: Option<Arc<AtomicU64>>,
    /// Line breaks before the chunk being looked at.
    pub(super) lines: u64,
}

impl Scan {
    /// A scan for `targets`: offsets in the text, or compressed bytes consumed (`compressed`).
    pub(super) fn new(unit: Unit, targets: Vec<u64>, compressed: Option<Arc<AtomicU64>>) -> Scan {
        Scan { unit, targets, points: Vec::new(), compressed, lines: 0 }
    }

    /// Looks for the pending targets in `cut`; false once all are found.
    pub(super) fn chunk(&mut self, cut: &Cut<impl std::ops::Deref<Target = [u8]>>) -> bool {
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
                None if t < cut.offset + bytes.len() as u64 => {
                    let want = t.saturating_sub(cut.offset) as usize;
                    let (pos, games) = self.unit.first_at(bytes, (cut.offset, cut.column), want, cut.games);
                    self.points.push(here(pos, games, self.lines));
                }
                None => break,
            }
        }
        self.lines += LineIndex::with_column(bytes, cut.column as usize).locate(bytes.len()).line as u64 - 1;
        self.points.len() < self.targets.len()
    }
}

/// The exact starts of `unit` for `targets` (increasing; offsets of a plain input, or with
/// `by_text` of a compressed one's text, else compressed bytes consumed of a compressed one), in
/// one sequential pass from `from` (a start of a mapped input whose numbers are known, else the
/// start) that stops at the last of them. A target past the input's last record gives its end.
pub(super) fn scan(
    input: Input,
    targets: &[u64],
    from: Start,
    unit: Unit,
    by_text: bool,
    scanned: &mut u64,
) -> Result<Vec<Start>, Error> {
    let path = input.path.clone();
    let compressed =
        (input.compression != Compression::None && !by_text).then(|| Arc::clone(&input.consumed));
    let mut scan = Scan::new(unit, targets.to_vec(), compressed);
    let mut end = Start::default();
    let (split, chunk) = unit.split();
    let compression = input.compression;
    match input.source {
        Source::Mapped(map) => {
            let at = (from.offset as usize).min(map.len());
            scan.lines = from.line;
            end = from;
            for cut in slice_chunks(&map[at..], chunk, split, from) {
                end = after(&cut, scan.lines);
                *scanned += cut.bytes.len() as u64;
                if !scan.chunk(&cut) {
                    break;
                }
            }
        }
        Source::Stream(r) => {
            for cut in StreamChunks::new(r, chunk, split, Start::default()) {
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
pub(super) fn after(cut: &Cut<impl std::ops::Deref<Target = [u8]>>, lines: u64) -> Start {
    let bytes: &[u8] = &cut.bytes;
    let lc = LineIndex::with_column(bytes, cut.column as usize).locate(bytes.len());
    Start {
        offset: cut.offset + bytes.len() as u64,
        game: cut.first_game + cut.games,
        line: lines + lc.line as u64 - 1,
        column: if lc.line == 1 { cut.column + bytes.len() as u64 } else { lc.col as u64 },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line share starts at the first line start at or after its byte, the lines before it
    /// counted; past the last line break, the chunk's end and all its lines.
    #[test]
    fn lines_start_at_line_starts() {
        let bytes = b"a\nbb\n\nccc";
        let first = |want| Unit::Lines.first_at(bytes, (0, 1), want, 4);
        assert_eq!(first(0), (0, 0));
        assert_eq!(first(1), (2, 1));
        assert_eq!(first(2), (2, 1));
        assert_eq!(first(5), (5, 2));
        assert_eq!(first(6), (6, 3));
        assert_eq!(first(7), (9, 4), "in the last line, unbroken: the end");
        let rest = Unit::Lines.first_at(b"xx\n", (9, 5), 0, 0);
        assert_eq!(rest, (3, 0), "the rest of a line over the budget starts none");
        let rest = Unit::Lines.first_at(b"xx\r\n", (9, 5), 0, 0);
        assert_eq!(rest, (4, 0), "nor one that ends at a CR LF");
    }

    /// A lone CR ends a line as the worker reads it; a CR LF is one line break, never two.
    #[test]
    fn lines_end_at_a_lone_cr_too() {
        let bytes = b"a\rbb\r\n\rccc";
        let first = |want| Unit::Lines.first_at(bytes, (0, 1), want, 4);
        assert_eq!(first(1), (2, 1));
        assert_eq!(first(2), (2, 1));
        assert_eq!(first(3), (6, 2));
        assert_eq!(first(5), (6, 2), "on the LF of a CR LF: the next line");
        assert_eq!(first(6), (6, 2));
        assert_eq!(first(7), (7, 3));
        assert_eq!(first(8), (10, 4), "in the last line, unbroken: the end");
    }
}
