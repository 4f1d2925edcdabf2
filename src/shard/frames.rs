//! zstd inputs of several independent frames (pzstd's output and the lichess dumps, each data
//! frame after a skippable frame holding its size; or plain concatenated frames): where their
//! data frames start, found from the frame headers without decompressing ([`walk`]), and,
//! decoding frame by frame, where each frame starts in the text with the first record start at
//! or after it ([`points`]). A shard of such an input starts at a frame and seeks to it.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::error::Error;
use crate::io::{Compression, InputError};
use crate::pipeline::Start;
use crate::pipeline::chunk::StreamChunks;

use super::scan::{Scan, Unit, after};

/// A data frame of a zstd input, and the first record start at or after its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FramePoint {
    /// Offset of the frame in the file.
    pub compressed: u64,
    /// Offset of its first byte in the decompressed text.
    pub decompressed: u64,
    /// The first record start at or after it, with the records and line breaks before it.
    pub start: Start,
}

const DATA_MAGIC: u32 = 0xFD2F_B528;

fn skippable(magic: u32) -> bool {
    magic & 0xFFFF_FFF0 == 0x184D_2A50
}

/// Reads up to `buf.len()` bytes at `pos`: fewer only at the end of the file.
fn read_at(file: &mut File, pos: u64, buf: &mut [u8]) -> io::Result<usize> {
    file.seek(SeekFrom::Start(pos))?;
    crate::io::read_full(file, buf)
}

fn u32_at(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// The end of the data frame at `pos` by its header and block headers (RFC 8878, 3.1.1), or
/// `None` when they do not make a frame inside the file.
fn data_frame_end(file: &mut File, pos: u64, size: u64) -> io::Result<Option<u64>> {
    let mut head = [0u8; 5];
    if read_at(file, pos, &mut head)? < 5 {
        return Ok(None);
    }
    let fhd = head[4];
    let single_segment = fhd & 0x20 != 0;
    let fcs = match fhd >> 6 {
        0 => u64::from(single_segment),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let dict = [0, 1, 2, 4][usize::from(fhd & 3)];
    let mut at = pos + 5 + u64::from(!single_segment) + dict + fcs;
    loop {
        let mut block = [0u8; 3];
        if read_at(file, at, &mut block)? < 3 {
            return Ok(None);
        }
        let h = u32::from(block[0]) | u32::from(block[1]) << 8 | u32::from(block[2]) << 16;
        let len = match (h >> 1) & 3 {
            1 => 1, // RLE: one byte repeated
            3 => return Ok(None),
            _ => u64::from(h >> 3),
        };
        at += 3 + len;
        if at > size {
            return Ok(None);
        }
        if h & 1 == 1 {
            break;
        }
    }
    let end = at + if fhd & 4 != 0 { 4 } else { 0 };
    Ok((end <= size).then_some(end))
}

/// The offsets of the data frames of the zstd file `path`, in order, found without decompressing:
/// a skippable frame of four bytes right before a data frame gives its size (pzstd, lichess),
/// otherwise its block headers do. The walk stops at the first data frame at or after `upto`
/// once two are found, at the end of the file, or where the bytes make no frame (the decoder
/// reports that; the rest is one frame for the plan).
pub fn walk(path: &Path, upto: u64) -> io::Result<Vec<u64>> {
    let mut file = File::open(path)?;
    let size = file.metadata()?.len();
    let mut frames = Vec::new();
    let mut pos = 0;
    // The size a skippable frame just read gives the data frame after it.
    let mut hint: Option<u64> = None;
    while pos < size {
        if frames.len() >= 2 && frames.last().is_some_and(|&f| f >= upto) {
            break;
        }
        let mut head = [0u8; 8];
        let n = read_at(&mut file, pos, &mut head)?;
        if n < 4 {
            break;
        }
        let magic = u32_at(&head);
        if skippable(magic) && n == 8 {
            let len = u64::from(u32_at(&head[4..]));
            if len == 4 {
                let mut next = [0u8; 4];
                hint = (read_at(&mut file, pos + 8, &mut next)? == 4).then(|| u64::from(u32_at(&next)));
            } else {
                hint = None;
            }
            pos += 8 + len;
        } else if magic == DATA_MAGIC {
            frames.push(pos);
            let hinted = hint.take().map(|len| pos + len).filter(|&end| {
                let mut m = [0u8; 4];
                end == size
                    || (end < size
                        && read_at(&mut file, end, &mut m).is_ok_and(|k| k == 4)
                        && (skippable(u32_at(&m)) || u32_at(&m) == DATA_MAGIC))
            });
            match hinted {
                Some(end) => pos = end,
                None => match data_frame_end(&mut file, pos, size)? {
                    Some(end) => pos = end,
                    None => break,
                },
            }
        } else {
            break;
        }
    }
    Ok(frames)
}

/// Decompressed text of a zstd file decoded one frame at a time: each of the known frames by a
/// decoder of its own bytes, the last to the file's end, so that where each starts in the text
/// is known (pushed to `starts` before its first byte is handed out).
struct Chain {
    file: File,
    /// The frames' offsets, then the file's size.
    bounds: Vec<u64>,
    next: usize,
    decoder: Option<zstd::stream::read::Decoder<'static, io::BufReader<io::Take<File>>>>,
    written: u64,
    starts: Arc<Mutex<Vec<u64>>>,
}

impl Read for Chain {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(d) = &mut self.decoder {
                let n = d.read(buf)?;
                if n > 0 || buf.is_empty() {
                    self.written += n as u64;
                    return Ok(n);
                }
                self.decoder = None;
            }
            if self.next + 1 >= self.bounds.len() {
                return Ok(0);
            }
            let (from, to) = (self.bounds[self.next], self.bounds[self.next + 1]);
            self.next += 1;
            let mut file = self.file.try_clone()?;
            file.seek(SeekFrom::Start(from))?;
            self.starts.lock().unwrap_or_else(|e| e.into_inner()).push(self.written);
            self.decoder = Some(zstd::stream::read::Decoder::new(file.take(to - from))?);
        }
    }
}

/// The [`FramePoint`]s of the first `count` of `frames` (offsets from [`walk`]) of the zstd file
/// `path`, decoding from its start, and the input's end when `to_end` (else the end of what was
/// read); `scanned` counts the decompressed bytes read.
pub fn points(
    path: &Path,
    frames: &[u64],
    count: usize,
    unit: Unit,
    to_end: bool,
    scanned: &mut u64,
) -> Result<(Vec<FramePoint>, Start), Error> {
    let corrupt = |source| Error::Input(InputError::reading(path, Compression::Zstd, source));
    let file =
        File::open(path).map_err(|source| Error::Input(InputError::Io { path: path.into(), source }))?;
    let size = file.metadata().map_err(corrupt)?.len();
    let mut bounds = frames.to_vec();
    bounds.push(size);
    let starts = Arc::new(Mutex::new(Vec::new()));
    let chain = Chain { file, bounds, next: 0, decoder: None, written: 0, starts: Arc::clone(&starts) };
    let count = count.min(frames.len());
    let mut scan = Scan::new(unit, Vec::new(), None);
    let (split, chunk) = unit.split();
    let mut end = Start::default();
    for cut in StreamChunks::new(chain, chunk, split, Start::default()) {
        let cut = cut.map_err(corrupt)?;
        {
            let known = starts.lock().unwrap_or_else(|e| e.into_inner());
            let have = scan.targets.len();
            scan.targets.extend(known.iter().skip(have).take(count.saturating_sub(have)));
        }
        end = after(&cut, scan.lines);
        *scanned += cut.bytes.len() as u64;
        scan.chunk(&cut);
        if !to_end && scan.points.len() >= count {
            break;
        }
    }
    let decompressed = starts.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let mut points: Vec<FramePoint> = scan
        .points
        .iter()
        .enumerate()
        .map(|(k, &start)| FramePoint { compressed: frames[k], decompressed: decompressed[k], start })
        .collect();
    // Frames that begin after the last record (empty ones at the end) start at the end.
    for (k, &compressed) in frames.iter().enumerate().take(count).skip(points.len()) {
        let decompressed = decompressed.get(k).copied().unwrap_or(end.offset);
        points.push(FramePoint { compressed, decompressed, start: end });
    }
    Ok((points, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("pgnkit-frames-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f.zst");
        std::fs::write(&p, bytes).unwrap();
        p
    }

    /// Frames of `text` cut every `every` bytes, each after a skippable frame holding its size
    /// when `hinted` (as pzstd and the lichess dumps write them).
    fn framed(text: &[u8], every: usize, hinted: bool, level: i32) -> (Vec<u8>, Vec<u64>) {
        let (mut out, mut starts) = (Vec::new(), Vec::new());
        for piece in text.chunks(every) {
            let frame = zstd::encode_all(piece, level).unwrap();
            if hinted {
                out.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0]);
                out.extend_from_slice(&(frame.len() as u32).to_le_bytes());
            }
            starts.push(out.len() as u64);
            out.extend(frame);
        }
        (out, starts)
    }

    #[test]
    fn walk_finds_every_frame_with_and_without_skippable_frames() {
        let text: Vec<u8> =
            (0..200_000u32).flat_map(|i| format!("{}\n", i * 7919 % 1000).into_bytes()).collect();
        for (hinted, level) in [(true, 3), (false, 3), (false, -5), (true, 19)] {
            let (bytes, starts) = framed(&text, 50_000, hinted, level);
            let p = temp(&format!("{hinted}{level}"), &bytes);
            assert_eq!(walk(&p, u64::MAX).unwrap(), starts, "hinted {hinted} level {level}");
            // Stops at the first frame at or after the target, two at least.
            assert_eq!(walk(&p, 1).unwrap(), starts[..2]);
            assert_eq!(walk(&p, starts[3]).unwrap(), starts[..4]);
            // zstd's own frame size agrees with the block walk.
            for w in starts.windows(2) {
                let from = w[0] as usize;
                let len = zstd::zstd_safe::find_frame_compressed_size(&bytes[from..]).unwrap();
                let skip = if hinted { 12 } else { 0 };
                assert_eq!(from + len + skip, w[1] as usize);
            }
            let (points, end) = points(&p, &starts, starts.len(), Unit::Lines, true, &mut 0).unwrap();
            assert_eq!(end.offset, text.len() as u64);
            for (k, point) in points.iter().enumerate() {
                assert_eq!(point.decompressed, (k * 50_000) as u64);
                let at = point.start.offset as usize;
                assert!(at >= k * 50_000 && at < k * 50_000 + 4, "the next line start: {k} {at}");
                assert!(at == 0 || text[at - 1] == b'\n');
                let lines = text[..at].iter().filter(|&&b| b == b'\n').count() as u64;
                assert_eq!((point.start.game, point.start.line), (lines, lines));
            }
            std::fs::remove_dir_all(p.parent().unwrap()).unwrap();
        }
    }

    #[test]
    fn a_single_frame_and_junk_after_a_frame_end_the_walk() {
        let one = zstd::encode_all(&b"[Event \"x\"]\n\n1. e4 *\n"[..], 3).unwrap();
        let p = temp("one", &one);
        assert_eq!(walk(&p, 5).unwrap(), vec![0]);
        let mut junk = one.clone();
        junk.extend_from_slice(b"not a frame");
        junk.extend_from_slice(&one);
        std::fs::write(&p, &junk).unwrap();
        assert_eq!(walk(&p, 5).unwrap(), vec![0]);
        std::fs::remove_dir_all(p.parent().unwrap()).unwrap();
    }
}
