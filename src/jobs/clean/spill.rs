//! A long game's bytes wait on disk, not in its chunk's buffers (the files of `io/spill.rs`): its
//! export text once its movetext passes the bound (the tag section put in front of it when the
//! game ends), its bytes as read (rejected, or kept for `--duplicates`) when they pass it. The
//! release side takes each of a game's texts as [`Bytes`], wherever it is.

use std::io::{Read, Write};

use super::{CleanChunk, CleanGame};
use crate::error::Error;
use crate::io::Output;
use crate::io::spill::{SpillFile, SpilledText};

/// A game's texts that are on disk.
#[derive(Debug, Default)]
pub struct Spilled {
    /// Its export text ([`CleanGame::text`] is then empty).
    pub text: Option<SpilledText>,
    /// Its bytes as read ([`CleanGame::verbatim`] is then empty).
    pub verbatim: Option<SpilledText>,
}

/// `bytes` (a game as read), then `blank`, on disk.
pub(super) fn verbatim(bytes: &[u8], blank: &[u8]) -> std::io::Result<SpilledText> {
    let mut file = SpillFile::new()?;
    file.write_all(bytes)?;
    let mut text = SpilledText::default();
    text.push_file(file);
    text.held.extend_from_slice(blank);
    Ok(text)
}

/// One of a game's texts as the release side takes it: in its chunk's buffer, or on disk.
pub(super) enum Bytes<'c> {
    Held(&'c [u8]),
    Spilled(SpilledText),
}

/// Game `g`'s export text and bytes as read in `chunk`, those on disk taken from `spilled` (the
/// chunk's, taken out of it).
pub(super) fn texts<'c>(
    g: &CleanGame,
    chunk: &'c CleanChunk,
    spilled: &mut [Spilled],
) -> (Bytes<'c>, Bytes<'c>) {
    let on_disk = g.spilled.and_then(|i| spilled.get_mut(i));
    let (text, verbatim) = on_disk.map_or((None, None), |s| (s.text.take(), s.verbatim.take()));
    (
        text.map_or_else(|| Bytes::Held(&chunk.out[g.text.clone()]), Bytes::Spilled),
        verbatim.map_or_else(|| Bytes::Held(&chunk.verbatim[g.verbatim.clone()]), Bytes::Spilled),
    )
}

impl<'c> Bytes<'c> {
    /// Bytes in all.
    pub fn len(&self) -> u64 {
        match self {
            Bytes::Held(b) => b.len() as u64,
            Bytes::Spilled(text) => text.len(),
        }
    }

    /// Whether there is no byte.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the bytes to `out`.
    pub fn write_to(self, out: &mut Output) -> Result<(), Error> {
        match self {
            Bytes::Held(b) => out.write_all(b).map_err(|e| Error::Output(out.error(e))),
            Bytes::Spilled(text) => text.write_to(out).map_err(|e| match e {
                Ok(read) => Error::Spill(read.into()),
                Err(write) => Error::Output(out.error(write)),
            }),
        }
    }

    /// Writes the bytes to `out`, a temporary file of the release side's: a failed read or
    /// write is the same error.
    pub fn copy_to(self, out: &mut impl Write) -> std::io::Result<()> {
        match self {
            Bytes::Held(b) => out.write_all(b),
            Bytes::Spilled(text) => text.write_to(out).map_err(|e| e.unwrap_or_else(|write| write)),
        }
    }
}

/// Reads `len` bytes from `from` (a temporary file read in order): in memory up to `bound`,
/// past it copied to a file of their own, so a long game's text read back is not held whole.
pub fn read_text(from: &mut impl Read, len: u64, bound: usize) -> std::io::Result<SpilledText> {
    let mut text = SpilledText::default();
    let got = if len <= bound as u64 {
        text.held.reserve(len as usize);
        from.take(len).read_to_end(&mut text.held)? as u64
    } else {
        let mut file = SpillFile::new()?;
        let got = std::io::copy(&mut from.take(len), &mut file)?;
        text.push_file(file);
        got
    };
    if got != len {
        return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "a text cut short"));
    }
    Ok(text)
}
