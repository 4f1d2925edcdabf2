//! An index read back as a stream, each list bounded as it is read: what an index of its input
//! can hold ([`bounds`]), never more, whatever the file (a corrupt or hostile one, `/dev/zero`).

use std::fmt;
use std::io::Read;

use serde::de::{self, DeserializeSeed, Deserializer as _, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{FORMAT_VERSION, Index, STEP};
use crate::pipeline::Start;
use crate::shard::frames::FramePoint;

/// Bytes of one number as written (20 digits at most), with room for a pretty-printer's spacing.
const NUMBER_BYTES: u64 = 32;
/// Bytes of the fields beside the lists (format, fingerprint, counts), generously.
const FIELDS_BYTES: u64 = 64 << 10;
/// Bytes of the smallest zstd frame: magic number (4), frame header (2), one block header (3).
const MIN_FRAME: u64 = 9;

/// What an index of one input holds at most: a plain file's point per [`STEP`] bytes, a zstd
/// file's frame per [`MIN_FRAME`] bytes, and the bytes those take written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Points.
    pub points: u64,
    /// Frames.
    pub frames: u64,
    /// Bytes of the file.
    pub bytes: u64,
}

/// The bounds of the index of an input of `size` bytes, a zstd file of several frames when
/// `framed`: 197 kB for a 1 GiB plain file (1,025 points of 128 bytes, and the fields').
pub fn bounds(size: u64, framed: bool) -> Bounds {
    let points = size / STEP + 1;
    let frames = if framed { size / MIN_FRAME + 1 } else { 0 };
    let bytes = FIELDS_BYTES
        .saturating_add(points.saturating_mul(4 * NUMBER_BYTES))
        .saturating_add(frames.saturating_mul(6 * NUMBER_BYTES));
    Bounds { points, frames, bytes }
}

/// The fields of an index as read, before they are checked.
#[derive(Default)]
pub struct Raw {
    format: Option<String>,
    version: Option<u64>,
    fingerprint: Option<String>,
    modified: Option<u64>,
    points: Option<Vec<[u64; 4]>>,
    end: Option<[u64; 4]>,
    frames: Vec<[u64; 6]>,
}

/// Reads the index `input` holds, within `bounds` (the reader bounds its bytes).
pub(super) fn read(input: impl Read, bounds: Bounds) -> Result<Raw, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_reader(input);
    let raw = (&mut de).deserialize_map(bounds)?;
    de.end()?;
    Ok(raw)
}

impl Raw {
    /// The index, checked as the build makes it.
    pub(super) fn index(self) -> Result<Index, String> {
        if self.format.as_deref() != Some("pgnkit index") {
            return Err("not a pgnkit index".into());
        }
        if self.version != Some(FORMAT_VERSION) {
            return Err(format!("not index format {FORMAT_VERSION}"));
        }
        let start = |[offset, game, line, column]: [u64; 4]| Start { offset, game, line, column };
        let points: Vec<Start> = self.points.ok_or("no points")?.into_iter().map(start).collect();
        if points.windows(2).any(|w| w[0].offset >= w[1].offset) {
            return Err("points out of order".into());
        }
        let frame = |[compressed, decompressed, offset, game, line, column]: [u64; 6]| FramePoint {
            compressed,
            decompressed,
            start: Start { offset, game, line, column },
        };
        let frames: Vec<FramePoint> = self.frames.into_iter().map(frame).collect();
        if frames
            .windows(2)
            .any(|w| w[0].compressed >= w[1].compressed || w[0].start.offset > w[1].start.offset)
        {
            return Err("frames out of order".into());
        }
        Ok(Index {
            fingerprint: self.fingerprint.ok_or("no fingerprint")?,
            modified: self.modified,
            points,
            end: start(self.end.ok_or("no end")?),
            frames,
        })
    }
}

impl<'de> Visitor<'de> for Bounds {
    type Value = Raw;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a pgnkit index")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
        let mut raw = Raw::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "format" => raw.format = Some(map.next_value()?),
                "format_version" => raw.version = Some(map.next_value()?),
                "fingerprint" => raw.fingerprint = Some(map.next_value()?),
                "modified_ns" => raw.modified = map.next_value()?,
                "end" => raw.end = Some(map.next_value()?),
                "points" => {
                    raw.points = Some(map.next_value_seed(Records { max: self.points, what: "points" })?)
                }
                "frames" => raw.frames = map.next_value_seed(Records { max: self.frames, what: "frames" })?,
                // Figures for people (`games`, `step`): read through, never held.
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(raw)
    }
}

/// A list of records of `N` numbers, at most `max` of them, taken in one at a time.
struct Records<const N: usize> {
    max: u64,
    what: &'static str,
}

impl<'de, const N: usize> DeserializeSeed<'de> for Records<N>
where
    [u64; N]: de::Deserialize<'de>,
{
    type Value = Vec<[u64; N]>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, const N: usize> Visitor<'de> for Records<N>
where
    [u64; N]: de::Deserialize<'de>,
{
    type Value = Vec<[u64; N]>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a list of {}, each {N} numbers", self.what)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut records = Vec::new();
        while let Some(record) = seq.next_element()? {
            if records.len() as u64 == self.max {
                let (max, what) = (self.max, self.what);
                return Err(de::Error::custom(format!(
                    "more than the {max} {what} an index of this input holds: not its index, or stale"
                )));
            }
            records.push(record);
        }
        Ok(records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shard::bounded::Bounded;

    fn index(points: u64, frames: u64) -> Index {
        let start = |k: u64| Start { offset: k * STEP, game: k, line: k, column: 1 };
        let frame = |k: u64| FramePoint { compressed: k * 100, decompressed: k * 1000, start: start(k) };
        Index {
            fingerprint: "f".repeat(32),
            modified: Some(7),
            points: (1..=points).map(start).collect(),
            end: start(points + 1),
            frames: (1..=frames).map(frame).collect(),
        }
    }

    fn back(text: &str, bounds: Bounds) -> Result<Index, String> {
        let reader = Bounded::new(text.as_bytes(), bounds.bytes, "an index of this input".into());
        read(reader, bounds).map_err(|e| e.to_string())?.index()
    }

    #[test]
    fn an_index_reads_back_as_written() {
        for (points, frames) in [(0, 0), (3, 0), (0, 5)] {
            let index = index(points, frames);
            let size = (points + 2) * STEP;
            assert_eq!(back(&index.to_json().to_string(), bounds(size, frames > 0)), Ok(index));
        }
        // Pretty-printed (`jq .`), with keys in another order: the same index.
        let index = index(2, 2);
        let pretty = serde_json::to_string_pretty(&index.to_json()).expect("JSON");
        assert_eq!(back(&pretty, bounds(4 * STEP, true)), Ok(index));
    }

    /// More records than an index of its input holds: an error as the list is read, not once it
    /// is held (memory stays within the bound whatever the file).
    #[test]
    fn more_records_than_the_input_holds_is_an_error() {
        let text = index(5, 0).to_json().to_string();
        let e = back(&text, bounds(3 * STEP, false)).expect_err("5 points of a 3 MiB input");
        assert!(e.starts_with("more than the 4 points an index of this input holds: not its index"), "{e}");
        assert_eq!(back(&text, bounds(4 * STEP, false)), Ok(index(5, 0)), "one more MiB holds them");
        let text = index(0, 3).to_json().to_string();
        assert!(back(&text, bounds(17, true)).is_err_and(|e| e.starts_with("more than the 2 frames")));
        assert_eq!(back(&text, bounds(18, true)), Ok(index(0, 3)));
        let e = back(&" ".repeat(100_000), bounds(0, false)).expect_err("whitespace");
        assert_eq!(
            e,
            format!("longer than {} bytes, the most an index of this input takes", bounds(0, false).bytes)
        );
        assert!(back("\0\0\0", bounds(0, false)).is_err_and(|e| e.starts_with("expected value")));
        assert_eq!(back("{}", bounds(0, false)), Err("not a pgnkit index".into()));
    }
}
