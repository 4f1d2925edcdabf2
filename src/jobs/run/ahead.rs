//! An input's first [`LOOKED_AT`] bytes judged before the pipeline reads it. The run's holder of
//! outputs ([`super::format::Held`]) judges whole games, and the pipeline hands out a game only
//! once it ends: one game with no tag pair and no move that never ends (`yes '*'`, whose lone
//! results are one game's, `/dev/zero`, a compressed bomb of zeros) was read whole, into a
//! temporary file for a stream, and for ever from a pipe. Its start is replayed here instead,
//! the game that runs past the bound cut there, so that reading stops at the bound whatever
//! the game boundaries.

use std::io::{self, Read};

use super::format::{self, LOOKED_AT, Shown};
use crate::pipeline::replay::{Games, Hooks};

/// What `bytes` show, replayed as games (the last cut where the bytes end).
fn shown(bytes: &[u8]) -> Shown {
    struct Nothing;
    impl Hooks<'_> for Nothing {}
    format::shown(&mut Games::new(Nothing, bytes))
}

/// The bytes a mapped input (`bytes`) was read to when its first [`LOOKED_AT`] bytes show games
/// and none with a tag pair or a move: it is not PGN. `None` for a shorter input (the run
/// judges it whole) and for one whose start shows PGN or no game.
pub(super) fn mapped(bytes: &[u8]) -> Option<u64> {
    let bound = LOOKED_AT as usize;
    (bytes.len() > bound && shown(&bytes[..bound]) == Shown::Not).then_some(LOOKED_AT)
}

/// Reads of a stream's start ahead: a pipe gives what it holds, so a PGN input shows it in the
/// first few; past this many bytes, garbage is replayed again only each time it doubles.
const EVERY_READ: usize = 1 << 20;

/// Reads the start of `stream` ahead until it shows PGN or no game in its first [`LOOKED_AT`]
/// bytes, or ends: the stream given back reads every byte from its start (an error met reading
/// ahead comes after the bytes before it), or `Err(read)` when those bytes show games and none
/// with a tag pair or a move, the input not PGN and read no further.
pub(super) fn stream<'r>(mut stream: Box<dyn Read + Send + 'r>) -> Result<Box<dyn Read + Send + 'r>, u64> {
    let bound = LOOKED_AT as usize;
    let (mut head, mut error) = (Vec::new(), None);
    let mut buf = vec![0u8; 64 << 10];
    let mut probe_at = 0;
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                error = Some(e);
                break;
            }
        }
        let full = head.len() >= bound;
        if head.len() < EVERY_READ || head.len() >= probe_at || full {
            match shown(&head[..head.len().min(bound)]) {
                Shown::Pgn => break,
                Shown::Not if full => return Err(LOOKED_AT),
                // Blank bytes are no game: past the bound they are read on as before.
                Shown::Blank if full => break,
                Shown::Not | Shown::Blank => probe_at = 2 * head.len(),
            }
        }
    }
    Ok(Box::new(Ahead { head, at: 0, error, inner: stream }))
}

/// A stream whose first bytes were read ahead: they are read again first, then the error met
/// reading them if one was, then the rest. The bytes read ahead are freed once read again.
struct Ahead<R> {
    head: Vec<u8>,
    at: usize,
    error: Option<io::Error>,
    inner: R,
}

impl<R: Read> Read for Ahead<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at < self.head.len() {
            let n = buf.len().min(self.head.len() - self.at);
            buf[..n].copy_from_slice(&self.head[self.at..self.at + n]);
            self.at += n;
            if self.at == self.head.len() {
                (self.head, self.at) = (Vec::new(), 0);
            }
            return Ok(n);
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => self.inner.read(buf),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_shows_pgn_no_game_or_nothing_pgn() {
        assert_eq!(shown(b"[Event \"x\"]\n\n1. e4 *\n"), Shown::Pgn);
        assert_eq!(shown(b"1. e4 "), Shown::Pgn, "a move of a game cut short");
        assert_eq!(shown(b"*\n*\n*\n*\n"), Shown::Not, "lone results");
        assert_eq!(shown(b"\0\0\0\0"), Shown::Not, "binary");
        assert_eq!(shown(b"junk\n\n[Event \"x\"]\n\n1. e4 *\n"), Shown::Pgn, "garbage first");
        assert_eq!(shown(b"\n\r\n  \n"), Shown::Blank);
    }

    /// A reader of `n` bytes of `byte`, an error after them when `fail`.
    struct Endless {
        byte: u8,
        left: usize,
        fail: bool,
    }

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.left == 0 {
                return if self.fail {
                    Err(io::Error::new(io::ErrorKind::InvalidData, "bad"))
                } else {
                    Ok(0)
                };
            }
            let n = buf.len().min(self.left);
            buf[..n].fill(self.byte);
            self.left -= n;
            Ok(n)
        }
    }

    #[test]
    fn a_stream_of_nothing_pgn_is_read_to_the_bound_only() {
        let zeros = Endless { byte: 0, left: usize::MAX, fail: false };
        assert_eq!(stream(Box::new(zeros)).err(), Some(LOOKED_AT));
        // Blank bytes past the bound are read on, every byte given back.
        let blank = Endless { byte: b'\n', left: LOOKED_AT as usize + 10, fail: true };
        let mut back = Vec::new();
        let e = stream(Box::new(blank)).expect("read on").read_to_end(&mut back).unwrap_err();
        assert_eq!((back.len(), e.kind()), (LOOKED_AT as usize + 10, io::ErrorKind::InvalidData));
    }

    #[test]
    fn a_stream_gives_back_what_was_read_ahead() {
        let text = b"junk\n[Event \"x\"]\n\n1. e4 *\n".repeat(1000);
        let mut back = Vec::new();
        stream(Box::new(&text[..])).expect("PGN").read_to_end(&mut back).expect("read");
        assert_eq!(back, text);
        // Short garbage: the run judges it whole.
        let mut back = Vec::new();
        stream(Box::new(&b"*\n*\n"[..])).expect("short").read_to_end(&mut back).expect("read");
        assert_eq!(back, b"*\n*\n");
    }

    #[test]
    fn a_mapped_input_is_judged_on_its_first_bytes() {
        let mut lone = b"*\n".repeat(LOOKED_AT as usize / 2 + 1);
        assert_eq!(mapped(&lone), Some(LOOKED_AT));
        assert_eq!(mapped(&lone[..1000]), None, "short: judged whole");
        lone.splice(0..0, b"[Event \"x\"]\n\n1. e4 *\n\n".iter().copied());
        assert_eq!(mapped(&lone), None, "PGN first");
    }
}
