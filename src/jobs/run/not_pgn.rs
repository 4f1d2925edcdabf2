//! Whether an input is PGN at all. An input with games of which not one has a tag pair or a
//! move written as one ([`Stats::pgn_games`]) is not PGN: an EPD file, a binary, JSON, prose.
//! It gets one error quoting its first line, nothing of it reaches the sink, and the run's exit
//! code is 65. An input with no game at all (empty, blank) is PGN with no games. The outputs of
//! an input are held back from the sink until one shows PGN, which a PGN input does in its first
//! game: nothing is held for it. Only an input read whole is judged ([`whole`]).
//!
//! [`Stats::pgn_games`]: crate::pipeline::stats::Stats::pgn_games

use std::io::{self, Read};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use super::Span;
use crate::io::{InputError, Source};
use crate::pipeline::Output;

/// Input bytes with nothing PGN in them after which the input is not PGN without reading on:
/// what is held back stays bounded, and a large binary is not read through.
pub const LOOKED_AT: u64 = 16 << 20;

/// Whether a run reading `span` of an input (`None`: all of it) reads it whole, as far as is
/// known before reading: from its start to its end (`u64::MAX`,
/// [`crate::shard::plan::TO_END`]), or past the length of a mapped input. A part of an input is
/// not judged: it may be nothing but the garbage between two of its games.
pub(super) fn whole(span: Option<&Span>, source: &Source) -> bool {
    match (span, source) {
        (None, _) => true,
        (Some(s), _) if s.start.offset > 0 => false,
        (Some(s), Source::Mapped(map)) => s.end >= map.len() as u64,
        (Some(s), Source::Stream(_)) => s.end == u64::MAX,
    }
}

/// Bytes kept of an input's start, where the error looks for its first line.
const HEAD: usize = 4096;

/// The first bytes of an input, kept for the error: taken from a mapped input at once, from a
/// stream as it is read (on whichever thread reads it).
#[derive(Clone, Debug, Default)]
pub(super) struct Head(Arc<Mutex<Vec<u8>>>);

impl Head {
    /// The start of `bytes`.
    pub(super) fn of(bytes: &[u8]) -> Head {
        Head(Arc::new(Mutex::new(bytes[..bytes.len().min(HEAD)].to_vec())))
    }

    /// `r`, which keeps its first bytes here as they are read: a peek ahead would read before
    /// the pipeline does, and a read error there would lose the bytes before it.
    pub(super) fn tap<'r>(&self, r: Box<dyn Read + Send + 'r>) -> Box<dyn Read + Send + 'r> {
        Box::new(Tap { inner: r, head: self.clone(), full: false })
    }

    fn bytes(&self) -> Vec<u8> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

/// A stream keeping its first bytes in a [`Head`].
struct Tap<R> {
    inner: R,
    head: Head,
    /// The head is kept: reads pass untouched.
    full: bool,
}

impl<R: Read> Read for Tap<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if !self.full {
            let mut head = self.head.0.lock().unwrap_or_else(PoisonError::into_inner);
            let take = (HEAD - head.len()).min(n);
            head.extend_from_slice(&buf[..take]);
            self.full = head.len() == HEAD;
        }
        Ok(n)
    }
}

/// The error for the input at `path` that began with `head`: its first line with text is quoted.
/// `read`: the bytes read, when reading stopped before the end.
pub(super) fn not_pgn(path: &Path, head: &Head, read: Option<u64>) -> InputError {
    let head = head.bytes();
    let text = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&head);
    let start = text.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(text.len());
    let blank = &text[..start];
    // A CR LF, a lone CR and a lone LF each end a line.
    let breaks = blank
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && blank.get(i + 1) != Some(&b'\n')))
        .count();
    let rest = &text[start..];
    let end = rest.iter().position(|&b| b == b'\n' || b == b'\r').unwrap_or(rest.len());
    let text = crate::pgn::text::quoted(&rest[..end]);
    InputError::NotPgn { path: path.to_owned(), text, line: 1 + breaks as u64, read }
}

/// An input's outputs held back while none showed PGN.
pub(super) struct Held<T> {
    outputs: Vec<Output<T>>,
    /// Input bytes and games of the outputs held.
    bytes: u64,
    games: u64,
    /// Some output showed PGN, or the input is not judged: outputs pass at once.
    open: bool,
}

impl<T> Held<T> {
    /// For an input that is judged (`judged`), or one whose outputs all pass at once.
    pub(super) fn new(judged: bool) -> Held<T> {
        Held { outputs: Vec::new(), bytes: 0, games: 0, open: !judged }
    }

    /// Hands `out` to `pass` once the input has shown PGN, the outputs held before it first;
    /// else holds it. `Ok(false)`: [`LOOKED_AT`] bytes held games and nothing PGN, so the input
    /// is not PGN.
    pub(super) fn offer<E>(
        &mut self,
        out: Output<T>,
        pass: &mut impl FnMut(Output<T>) -> Result<(), E>,
    ) -> Result<bool, E> {
        if !self.open && out.stats.pgn_games > 0 {
            self.open = true;
            for held in std::mem::take(&mut self.outputs) {
                pass(held)?;
            }
        }
        if self.open {
            pass(out)?;
            return Ok(true);
        }
        self.bytes += out.stats.bytes;
        self.games += out.stats.games;
        self.outputs.push(out);
        Ok(self.bytes < LOOKED_AT || self.games == 0)
    }

    /// Input bytes of the outputs held.
    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// At the input's end: the outputs still held go to `pass` unless the input is not PGN
    /// (`Ok(false)`: it has games, none of them PGN).
    pub(super) fn end<E>(self, pass: &mut impl FnMut(Output<T>) -> Result<(), E>) -> Result<bool, E> {
        if !self.open && self.games > 0 {
            return Ok(false);
        }
        for held in self.outputs {
            pass(held)?;
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An output of `games` games, `pgn` of them PGN, read from `bytes` bytes, its records the
    /// chunk's number.
    fn out(n: u32, games: u64, pgn: u64, bytes: u64) -> Output<u32> {
        let mut o = Output { records: n, ..Output::default() };
        (o.stats.games, o.stats.pgn_games, o.stats.bytes) = (games, pgn, bytes);
        o
    }

    /// Offers `outputs` in order, then ends: the records passed, and whether the input was PGN
    /// (`None`: it was found not to be before its end).
    fn run(judged: bool, outputs: Vec<Output<u32>>) -> (Vec<u32>, Option<bool>) {
        let mut held = Held::new(judged);
        let mut passed = Vec::new();
        let mut pass = |o: Output<u32>| -> Result<(), ()> {
            passed.push(o.records);
            Ok(())
        };
        for o in outputs {
            if !held.offer(o, &mut pass).expect("pass") {
                return (passed, None);
            }
        }
        let pgn = held.end(&mut pass).expect("pass");
        (passed, Some(pgn))
    }

    #[test]
    fn outputs_pass_in_order_once_one_shows_pgn() {
        let pgn = run(true, vec![out(0, 1, 1, 10), out(1, 2, 0, 10), out(2, 1, 1, 10)]);
        assert_eq!(pgn, (vec![0, 1, 2], Some(true)), "PGN from the first output: nothing held");
        let late = run(true, vec![out(0, 1, 0, 10), out(1, 1, 0, 10), out(2, 1, 1, 10), out(3, 1, 0, 10)]);
        assert_eq!(late, (vec![0, 1, 2, 3], Some(true)), "garbage first, then games");
        assert_eq!(run(true, vec![out(0, 0, 0, 3), out(1, 0, 0, 0)]), (vec![0, 1], Some(true)), "no game");
        assert_eq!(
            run(false, vec![out(0, 1, 0, 10), out(1, 1, 0, 10)]),
            (vec![0, 1], Some(true)),
            "not judged"
        );
    }

    #[test]
    fn games_and_nothing_pgn_is_not_pgn_and_nothing_passes() {
        assert_eq!(run(true, vec![out(0, 1, 0, 10), out(1, 0, 0, 1)]), (vec![], Some(false)));
        let half = LOOKED_AT / 2;
        let big = vec![out(0, 1, 0, half), out(1, 1, 0, half), out(2, 1, 1, 10)];
        assert_eq!(run(true, big), (vec![], None), "reading stops once LOOKED_AT bytes showed nothing PGN");
        let blank = vec![out(0, 0, 0, half), out(1, 0, 0, half), out(2, 1, 1, 10)];
        assert_eq!(run(true, blank), (vec![0, 1, 2], Some(true)), "blank bytes are no games: read on");
    }

    #[test]
    fn the_error_quotes_the_first_line_with_text() {
        let message = |head: &[u8]| not_pgn(Path::new("x"), &Head::of(head), None).to_string();
        assert_eq!(
            message(b"\xef\xbb\xbf\r\n\n  \r2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1 w - - bm Qg6;\nnext"),
            "x: not PGN: no tag pair and no move in it; line 4 reads \"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/…\""
        );
        assert_eq!(
            message(b"\x89PNG\r\n\x1a\n"),
            "x: not PGN: no tag pair and no move in it; line 1 reads \"‰PNG\""
        );
        assert_eq!(
            message(b"\x7fELF\x02\x01"),
            "x: not PGN: no tag pair and no move in it; line 1 reads \"\\u{7f}ELF\\u{2}\\u{1}\""
        );
        let stopped = not_pgn(Path::new("x"), &Head::of(b"{}"), Some(LOOKED_AT + (1 << 19))).to_string();
        assert_eq!(
            stopped,
            "x: not PGN: no tag pair and no move in its first 16.5 MiB (read no further); line 1 reads \"{}\""
        );
    }
}
