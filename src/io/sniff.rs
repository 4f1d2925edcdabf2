//! What an input's first bytes say before it is read as PGN: text in UTF-16 or UTF-32 (plain, or
//! inside zstd or gzip) and compressions pgnkit does not read are refused with the command that
//! converts them.

use std::io::{self, Read};
use std::path::Path;

use super::input::{Compression, InputError};

/// A decoder whose first bytes were read ahead (to sniff the text's encoding) and are read again
/// first; an error met reading them is returned after them, where the run reports a decoder's
/// errors (with the games before it).
pub(super) struct Peeked {
    head: Vec<u8>,
    at: usize,
    error: Option<io::Error>,
    inner: Box<dyn Read + Send>,
}

impl Peeked {
    /// `inner`, a compressed input's text, refused as [`check_encoding`] refuses a plain file.
    pub(super) fn sniffed(
        path: &Path,
        compression: Compression,
        mut inner: Box<dyn Read + Send>,
    ) -> Result<Peeked, InputError> {
        // Reads as large as the pipeline's: a zstd frame of one block then fails its checksum
        // before giving any byte, as it does unsniffed (a 4-byte read would get its text first).
        let (mut head, mut n, mut error) = (vec![0u8; Peeked::READ], 0, None);
        // Not read_full: the bytes before an error are the input's, and stay.
        while n < 4 {
            match inner.read(&mut head[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        check_encoding(path, compression, &head[..n.min(4)])?;
        head.truncate(n);
        Ok(Peeked { head, at: 0, error, inner })
    }

    /// Bytes of the first read: a zstd block's most.
    const READ: usize = 128 << 10;

    /// `inner` with its first line that is not blank (and the blank lines before it) read
    /// ahead, `limit` bytes at most.
    pub(super) fn first_line(mut inner: Box<dyn Read + Send>, limit: usize) -> Peeked {
        let (mut head, mut error) = (Vec::new(), None);
        let mut chunk = vec![0u8; Peeked::READ.min(limit.max(1))];
        while head.len() < limit && line_end(&head).is_none() {
            let want = chunk.len().min(limit - head.len());
            match inner.read(&mut chunk[..want]) {
                Ok(0) => break,
                Ok(k) => head.extend_from_slice(&chunk[..k]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        Peeked { head, at: 0, error, inner }
    }

    /// The bytes read ahead.
    pub(super) fn head(&self) -> &[u8] {
        &self.head
    }
}

impl Read for Peeked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at < self.head.len() {
            let n = buf.len().min(self.head.len() - self.at);
            buf[..n].copy_from_slice(&self.head[self.at..self.at + n]);
            self.at += n;
            return Ok(n);
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => self.inner.read(buf),
        }
    }
}

/// Where the first line of `text` that is not blank ends (after its line break), if it does.
pub(super) fn line_end(text: &[u8]) -> Option<usize> {
    let start = text.iter().position(|b| !b.is_ascii_whitespace())?;
    text[start..].iter().position(|&b| b == b'\n').map(|i| start + i + 1)
}

/// Refuses text that is UTF-16 or UTF-32 by its first bytes: a byte order mark, or ASCII with
/// NULs before or after each character.
fn check_encoding(path: &Path, compression: Compression, head: &[u8]) -> Result<(), InputError> {
    let text = |b: &u8| b.is_ascii_graphic() || b.is_ascii_whitespace();
    let wide = match head {
        // UTF-32 first: its little-endian mark starts as UTF-16's does.
        [0xff, 0xfe, 0, 0] | [0, 0, 0xfe, 0xff] => Some("UTF-32"),
        [a, 0, 0, 0] if text(a) => Some("UTF-32LE"),
        [0, 0, 0, a] if text(a) => Some("UTF-32BE"),
        [0xff, 0xfe, ..] | [0xfe, 0xff, ..] => Some("UTF-16"),
        // No byte order mark: `[\0E\0`, `\0[\0E`, where UTF-8 text has no NUL.
        [a, 0, b, 0, ..] if text(a) && text(b) => Some("UTF-16LE"),
        [0, a, 0, b, ..] if text(a) && text(b) => Some("UTF-16BE"),
        _ => None,
    };
    match wide {
        Some(encoding) => Err(InputError::Utf16 { path: path.to_owned(), compression, encoding }),
        None => Ok(()),
    }
}

/// The start of a command line that writes the text inside `compression` (for advice): nothing
/// for plain text.
pub(super) fn decompressing(compression: Compression, path: &Path) -> String {
    match compression {
        Compression::None => String::new(),
        Compression::Zstd => format!("zstdcat {} | ", path.display()),
        Compression::Gzip => format!("zcat {} | ", path.display()),
    }
}

/// Refuses an uncompressed-looking input that is not 8-bit text: UTF-16, or a compression
/// pgnkit does not read (read as text, it would give one game of binary-data errors).
pub(super) fn check_text(path: &Path, head: &[u8]) -> Result<(), InputError> {
    check_encoding(path, Compression::None, head)?;
    let (format, tool) = match head {
        [b'B', b'Z', b'h', b'1'..=b'9', ..] => ("bzip2", "bzcat"),
        [0xfd, b'7', b'z', b'X', ..] => ("xz", "xzcat"),
        [b'P', b'K', 3, 4, ..] => ("zip", "unzip -p"),
        [b'7', b'z', 0xbc, 0xaf, ..] => ("7z", "7z x -so"),
        [0x04, 0x22, 0x4d, 0x18, ..] => ("lz4", "lz4cat"),
        _ => return Ok(()),
    };
    Err(InputError::Unsupported { path: path.to_owned(), format, tool })
}
