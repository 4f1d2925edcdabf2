//! A shard's JSON file (an input's index, a shard's manifest), read as a stream within a bound:
//! another machine writes it, and a corrupt or hostile one (10 GB, `/dev/zero`) is an error that
//! names its bound, never a read without end. What a file of each kind can legitimately hold is
//! its reader's to say ([`super::index`], [`super::manifest`]).

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

/// Bytes of one JSON string (a key, a fingerprint, a file name, a message): the parser holds a
/// string whole, and none of either file comes near (a path is at most 4 KiB on Linux).
pub const MAX_STRING: u64 = 64 << 10;

/// `inner`, failing once it has given more than `limit` bytes or a JSON string longer than
/// [`MAX_STRING`]: `what` names the file's kind in the error ("an index of this input").
pub struct Bounded<R> {
    inner: R,
    read: u64,
    limit: u64,
    what: String,
    /// Inside a string: its bytes so far, and whether the last was an unescaped `\`.
    string: Option<(u64, bool)>,
}

impl Bounded<File> {
    /// The file at `path`, read within `limit` bytes, buffered (the parser reads a byte at a time).
    pub fn open(path: &Path, limit: u64, what: String) -> io::Result<BufReader<Self>> {
        Ok(BufReader::new(Bounded::new(File::open(path)?, limit, what)))
    }
}

impl<R: Read> Bounded<R> {
    /// `inner` within `limit` bytes.
    pub fn new(inner: R, limit: u64, what: String) -> Self {
        Bounded { inner, read: 0, limit, what, string: None }
    }

    fn over(&self, why: String) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, why)
    }
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // One byte past the limit tells a file of exactly `limit` bytes from a longer one.
        let room = self.limit.saturating_add(1).saturating_sub(self.read).min(buf.len() as u64) as usize;
        let n = self.inner.read(&mut buf[..room])?;
        self.read += n as u64;
        if self.read > self.limit {
            let (limit, what) = (self.limit, &self.what);
            return Err(self.over(format!("longer than {limit} bytes, the most {what} takes")));
        }
        for &b in &buf[..n] {
            self.string = match (self.string, b) {
                (None, b'"') => Some((0, false)),
                (None, _) => None,
                (Some((_, false)), b'"') => None,
                (Some((len, escaped)), _) if len < MAX_STRING => Some((len + 1, !escaped && b == b'\\')),
                (Some(_), _) => {
                    return Err(self.over(format!("a string longer than {MAX_STRING} bytes")));
                }
            };
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &[u8], limit: u64) -> Result<serde_json::Value, String> {
        serde_json::from_reader(Bounded::new(text, limit, "a test file".into())).map_err(|e| e.to_string())
    }

    #[test]
    fn a_file_within_its_bounds_reads_as_json() {
        let text = br#"{"a": "x\"y\\", "b": [1, 2]}"#;
        assert_eq!(read(text, text.len() as u64), Ok(serde_json::json!({"a": "x\"y\\", "b": [1, 2]})));
    }

    #[test]
    fn a_longer_file_or_string_is_an_error_naming_the_bound() {
        let text = br#"{"a": [1, 2]}"#;
        let e = read(text, text.len() as u64 - 1).expect_err("one byte over");
        assert!(e.starts_with("longer than 12 bytes, the most a test file takes"), "{e}");
        let mut long = br#"{"a": ""#.to_vec();
        long.extend(std::iter::repeat_n(b'\\', 2 * MAX_STRING as usize));
        long.extend(br#""}"#);
        let e = read(&long, u64::MAX).expect_err("a long string");
        assert!(e.starts_with("a string longer than 65536 bytes"), "{e}");
    }
}
