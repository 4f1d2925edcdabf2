//! Whether an input is the format its job reads at all ([`Format`]). An input whose games have
//! not one tag pair or move written as one is not PGN (an EPD file, a binary, JSON, prose); one
//! with lines of text of which not one reads as an EPD record or a FEN is not EPD (a PGN file).
//! It gets one error quoting its first line, nothing of it reaches the sink, and the run's exit
//! code is 65 ([`not_pgn`] gives the same verdict to a tool that replays an input in memory). An
//! input with no game or line of text at all (empty, blank, PGN's `%` escape lines, EPD's `#`
//! comment lines) is of the format with no records; a PGN game of comments alone is a game, and
//! not PGN. The outputs of an input are held back from the sink until one shows the format,
//! which an input of it does in its first record: nothing is held for it. Only an input read
//! whole is judged ([`whole`]).

use std::io::{self, Read};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use super::Span;
use crate::io::{InputError, Source};
use crate::pipeline::replay::{Games, Hooks};
use crate::pipeline::stats::Stats;
use crate::pipeline::{Cuts, Output};

/// The format a job reads, which an input read whole must show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Format {
    /// PGN games: shown by a game with a tag pair or a move ([`Stats::pgn_games`]).
    Pgn,
    /// An EPD record or FEN a line, for jobs cut at line ends: shown by a line read as one
    /// ([`Stats::epd_lines`]).
    Epd,
}

impl Format {
    /// The format of a job cut as `cuts` says.
    pub(super) fn of(cuts: Cuts) -> Format {
        match cuts {
            Cuts::Lines(_) => Format::Epd,
            _ => Format::Pgn,
        }
    }

    /// Input bytes with nothing of this format after which the input is not of it.
    pub(super) fn looked_at(self) -> u64 {
        match self {
            Format::Pgn => LOOKED_AT,
            Format::Epd => EPD_LOOKED_AT,
        }
    }

    /// Whether `stats` show this format.
    fn shown(self, stats: &Stats) -> bool {
        match self {
            Format::Pgn => stats.pgn_games > 0,
            Format::Epd => stats.epd_lines > 0,
        }
    }

    /// The records of `stats` that could have shown this format: every game, or the lines of
    /// text but comments (an EPD job counts blank and comment lines as games too).
    fn records(self, stats: &Stats) -> u64 {
        match self {
            Format::Pgn => stats.games,
            Format::Epd => stats.epd_lines + stats.not_epd_lines,
        }
    }
}

/// Input bytes with nothing of the format in them after which the input is not of it without
/// reading on: what is held back stays bounded, and a large binary is not read through.
pub const LOOKED_AT: u64 = 16 << 20;

/// [`LOOKED_AT`] for EPD lines: their outputs are held a line each, not a chunk each (16 MiB of
/// a PGN file given as EPD held 655 MB at most, 1 MiB 85 MB: `chessgames_master_35k`).
pub const EPD_LOOKED_AT: u64 = 1 << 20;

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

/// The error for the input at `path`, not of `format`, that began with `head`: its first line
/// with text is quoted. `read`: the bytes read, when reading stopped before the end.
pub(super) fn not_read(format: Format, path: &Path, head: &Head, read: Option<u64>) -> InputError {
    let head = head.bytes();
    let text = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&head);
    let start = text.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(text.len());
    let line = crate::pgn::line_col(text, start).line as u64;
    let rest = &text[start..];
    let end = crate::pgn::line_end(rest, false).map_or(rest.len(), |(end, _)| end);
    let text = crate::pgn::text::quoted(&rest[..end]);
    let path = path.to_owned();
    match format {
        Format::Pgn => InputError::NotPgn { path, text, line, read },
        Format::Epd => InputError::NotEpd { path, text, line, read },
    }
}

/// For a tool that replays an input held whole in memory (`pgnkit show`), `bytes` read from
/// `path` and replayed by `games` (some of them already): the error a run gives the input when it
/// is not PGN, by the same test as a run's holder of outputs. Replays on while no game showed
/// PGN, as a run reads on past garbage before the first game; an input already shown PGN is not
/// read further.
pub fn not_pgn<'a, H: Hooks<'a>>(games: &mut Games<'a, H>, path: &Path, bytes: &[u8]) -> Option<InputError> {
    (shown(games) == Shown::Not).then(|| not_read(Format::Pgn, path, &Head::of(bytes), None))
}

/// What replayed games show of PGN, by the test of a run's holder of outputs ([`Held`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shown {
    /// A game with a tag pair or a move.
    Pgn,
    /// No game at all: blank lines, `%` lines (read on: a blank input is PGN).
    Blank,
    /// Games, none with a tag pair or a move.
    Not,
}

/// What `games` show, replayed on while none showed PGN (the first game of a PGN input does).
pub(super) fn shown<'a, H: Hooks<'a>>(games: &mut Games<'a, H>) -> Shown {
    while !Format::Pgn.shown(games.stats()) && games.next_game() {}
    let stats = games.stats();
    match (Format::Pgn.shown(stats), Format::Pgn.records(stats)) {
        (true, _) => Shown::Pgn,
        (false, 0) => Shown::Blank,
        (false, _) => Shown::Not,
    }
}

/// An input's outputs held back while none showed its format.
pub(super) struct Held<T> {
    format: Format,
    outputs: Vec<Output<T>>,
    /// Input bytes and records ([`Format::records`]) of the outputs held.
    bytes: u64,
    records: u64,
    /// Some output showed the format, or the input is not judged: outputs pass at once.
    open: bool,
}

impl<T> Held<T> {
    /// For an input of `format` that is judged (`judged`), or one whose outputs all pass at once.
    pub(super) fn new(format: Format, judged: bool) -> Held<T> {
        Held { format, outputs: Vec::new(), bytes: 0, records: 0, open: !judged }
    }

    /// Hands `out` to `pass` once the input has shown its format, the outputs held before it
    /// first; else holds it. `Ok(false)`: [`Format::looked_at`] bytes held records and none of
    /// the format, so the input is not of it.
    pub(super) fn offer<E>(
        &mut self,
        out: Output<T>,
        pass: &mut impl FnMut(Output<T>) -> Result<(), E>,
    ) -> Result<bool, E> {
        if !self.open && self.format.shown(&out.stats) {
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
        self.records += self.format.records(&out.stats);
        self.outputs.push(out);
        Ok(self.bytes < self.format.looked_at() || self.records == 0)
    }

    /// Input bytes of the outputs held.
    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// At the input's end: the outputs still held go to `pass` unless the input is not of its
    /// format (`Ok(false)`: it has records, none of the format).
    pub(super) fn end<E>(self, pass: &mut impl FnMut(Output<T>) -> Result<(), E>) -> Result<bool, E> {
        if !self.open && self.records > 0 {
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

    /// An output of an EPD-line job, its records the chunk's number: one line of `bytes` bytes,
    /// an EPD record, a line of other text, or a blank or comment line (neither).
    fn line(n: u32, epd: bool, other: bool, bytes: u64) -> Output<u32> {
        let mut o = out(n, 1, 0, bytes);
        (o.stats.epd_lines, o.stats.not_epd_lines) = (u64::from(epd), u64::from(other));
        o
    }

    /// Offers `outputs` of an input of `format` in order, then ends: the records passed, and
    /// whether the input was of the format (`None`: it was found not to be before its end).
    fn run_as(format: Format, judged: bool, outputs: Vec<Output<u32>>) -> (Vec<u32>, Option<bool>) {
        let mut held = Held::new(format, judged);
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
        let shown = held.end(&mut pass).expect("pass");
        (passed, Some(shown))
    }

    fn run(judged: bool, outputs: Vec<Output<u32>>) -> (Vec<u32>, Option<bool>) {
        run_as(Format::Pgn, judged, outputs)
    }

    fn run_epd(outputs: Vec<Output<u32>>) -> (Vec<u32>, Option<bool>) {
        run_as(Format::Epd, true, outputs)
    }

    #[test]
    fn a_job_cut_at_line_ends_reads_epd() {
        assert_eq!(Format::of(Cuts::Lines(1)), Format::Epd);
        for cuts in [Cuts::Guessed, Cuts::Exact, Cuts::PerGame] {
            assert_eq!(Format::of(cuts), Format::Pgn, "{cuts:?}");
        }
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
    fn epd_lines_pass_in_order_once_one_reads_as_epd() {
        let late = vec![
            line(0, false, true, 10),
            line(1, false, false, 2),
            line(2, true, false, 30),
            line(3, false, true, 10),
        ];
        assert_eq!(run_epd(late), (vec![0, 1, 2, 3], Some(true)), "bad lines first, then EPD");
        let comments = vec![line(0, false, false, 10), line(1, false, false, 1)];
        assert_eq!(run_epd(comments), (vec![0, 1], Some(true)), "comments and blank lines only");
        let pgn = vec![line(0, false, true, 10), line(1, false, false, 1), line(2, false, true, 8)];
        assert_eq!(run_epd(pgn), (vec![], Some(false)), "lines of text, none EPD");
        let half = EPD_LOOKED_AT / 2;
        let big = vec![line(0, false, true, half), line(1, false, true, half), line(2, true, false, 30)];
        assert_eq!(run_epd(big), (vec![], None), "reading stops once EPD_LOOKED_AT bytes showed no EPD");
        let mut games = out(0, 1, 1, 10);
        games.stats.not_epd_lines = 1;
        assert_eq!(run_epd(vec![games]), (vec![], Some(false)), "a PGN game shows no EPD");
    }

    /// [`not_pgn`] of `bytes` after `read` games were replayed, and the games replayed then.
    fn judged_in_memory(bytes: &[u8], read: usize) -> (Option<String>, u64) {
        struct Nothing;
        impl Hooks<'_> for Nothing {}
        let mut games = Games::new(Nothing, bytes);
        for _ in 0..read {
            games.next_game();
        }
        let error = not_pgn(&mut games, Path::new("x"), bytes).map(|e| e.to_string());
        (error, games.stats().games)
    }

    #[test]
    fn an_input_in_memory_is_judged_as_a_run_judges_it() {
        let epd = b"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6;\n";
        for read in [0, 1] {
            let (error, games) = judged_in_memory(epd, read);
            let error = error.expect("not PGN");
            assert!(
                error.starts_with("x: not PGN: no tag pair and no move in it; line 1 reads \"2rr3k/"),
                "{error}"
            );
            assert_eq!(games, 1);
        }
        let late = b"junk here\n[Event \"x\"]\n\n1. e4 *\n\n[Event \"y\"]\n\n1. d4 *\n";
        assert_eq!(
            judged_in_memory(late, 1),
            (None, 2),
            "replayed on past the garbage, to the first PGN game"
        );
        assert_eq!(judged_in_memory(&late[10..], 1), (None, 1), "PGN shown: read no further");
        assert_eq!(judged_in_memory(b"", 0), (None, 0), "no game: PGN without records");
        assert_eq!(judged_in_memory(b"\n \r\n", 0), (None, 0), "blank");
    }

    #[test]
    fn the_error_quotes_the_first_line_with_text() {
        let message = |head: &[u8]| not_read(Format::Pgn, Path::new("x"), &Head::of(head), None).to_string();
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
        let stopped = not_read(Format::Pgn, Path::new("x"), &Head::of(b"{}"), Some(LOOKED_AT + (1 << 19)));
        assert_eq!(
            stopped.to_string(),
            "x: not PGN: no tag pair and no move in its first 16.5 MiB (read no further); line 1 reads \"{}\""
        );
        let epd = not_read(Format::Epd, Path::new("g.pgn"), &Head::of(b"\n[Event \"x\"]\n"), None);
        assert_eq!(
            epd.to_string(),
            "g.pgn: not EPD: no EPD record and no FEN in it; line 2 reads \"[Event \\\"x\\\"]\""
        );
        assert_eq!(epd.exit_code(), crate::exit::Code::DataErr);
    }
}
