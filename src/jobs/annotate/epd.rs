//! `--format epd`: inputs of positions, one EPD record or FEN a line, each written again as EPD
//! with the engine's findings as the EPD standard's operations (PGN standard, section 16.2): `acd`
//! (depth), `acn` (nodes), `acs` (whole seconds), `ce` (centipawns from the side to move; a mate
//! in N moves is `32767 - (2N - 1)` plies away, being mated in N `-(32767 - 2N)`), `pv` (SAN, the
//! engine's choice first) and `dm` (mate in N moves, for the side that mates): the input's own
//! operations of these names are replaced (kept when the position is left unevaluated). Every
//! other operation of the input is kept, in its order: `bm` and `am` are a test suite's answers,
//! so the engine's choice is written as `bm` only on a line that has neither. A FEN's clock
//! fields are written as `hmvc` and `fmvn` first, unless the line has those operations. Blank
//! lines and lines starting with `#` are kept as they are; a line that is not a position is kept
//! as it is, with an error diagnostic (`bad_fen`).
//!
//! A record is a line, ended by `\n`, `\r\n` or a lone `\r` ([`line_end`]): the input is cut at
//! line ends ([`Cuts::Lines`](crate::pipeline::Cuts)), [`LINES`] a chunk, and a worker analyses
//! its chunk's lines in order with its engine. Every line
//! counts as a game of the summary (its number is its line number), so diagnostics name the line
//! as `FILE:LINE:1` and the game number, and an interrupted run stops after a line. A line longer
//! than [`MAX_LINE`] is an `over_budget` error, not written: the cutter hands it on in pieces, so
//! that it is never held whole, and the pieces after its first hold no line.

use std::fmt::Write as _;

use super::analyse::from_rules;
use super::{AnnotateWorker, AnnotatedChunk};
use crate::analysis::{Analysis, AnalyzerError, Score};
use crate::chess::{CastlingMode, Position, Variant};
use crate::error::{Diagnostic, Error, Kind};
use crate::notation::fen::{EpMode, escape_epd_string, parse_epd, write_epd, write_fen};
use crate::notation::san::write_san;
use crate::pgn::{line_breaks, line_end};
use crate::pipeline::chunk::MAX_LINE;
use crate::pipeline::counter::Counter;
use crate::pipeline::{ChunkEnd, ChunkInput, Output};

/// Lines a chunk: one, as [`Cuts::PerGame`](crate::pipeline::Cuts) gives one game, since a
/// line costs an engine search.
pub const LINES: usize = 1;

/// The operations of the analysis this module computes: the input's are replaced by the run's.
const ANALYSIS: [&str; 6] = ["ce", "acd", "acn", "acs", "pv", "dm"];

/// The start of the message of a line that does not read as EPD.
const NOT_EPD: &str = "not an EPD or FEN line: ";

/// A record's operations: opcode and operands.
type Ops = Vec<(String, Vec<String>)>;

/// A position line as read.
struct Record {
    pos: Position,
    /// Every operation of the line, in its order.
    ops: Ops,
    /// The clock fields of a FEN, as the operations that carry them in EPD (those the line
    /// does not have already).
    clocks: Vec<(&'static str, u32)>,
}

impl Record {
    /// The line holds a test suite's answer (`bm` or `am`), which the engine's choice must not
    /// pass for.
    fn answered(&self) -> bool {
        self.ops.iter().any(|(o, _)| o == "bm" || o == "am")
    }
}

/// Why a line that holds text is no position: not EPD at all, or EPD of an illegal position.
enum BadLine {
    NotEpd(String),
    Illegal(String),
}

/// A position's record, as far as the line says.
fn read_line(line: &str) -> Result<Option<Record>, BadLine> {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') {
        return Ok(None);
    }
    let epd = parse_epd(t).map_err(|e| BadLine::NotEpd(format!("{NOT_EPD}{e}")))?;
    let has = |op: &str| epd.ops.iter().any(|(o, _)| o == op);
    let mut clocks = Vec::new();
    if epd.clock_fields >= 1 && !has("hmvc") {
        clocks.push(("hmvc", epd.setup.halfmoves));
    }
    if epd.clock_fields >= 2 && !has("fmvn") {
        clocks.push(("fmvn", epd.setup.fullmoves));
    }
    let pos = Position::from_setup(epd.setup.clone(), Variant::Standard, CastlingMode::Standard)
        .or_else(|_| Position::from_setup(epd.setup, Variant::Chess960, CastlingMode::Chess960))
        .map_err(|e| BadLine::Illegal(format!("not a legal position: {e}")))?;
    Ok(Some(Record { pos, ops: epd.ops, clocks }))
}

/// An operand written back: quoted when it is a string (`id`, `c0`..`c9`) or holds a space or
/// a `;`.
fn operand(op: &str, text: &str, out: &mut String) {
    let string = op == "id" || (op.len() == 2 && op.starts_with('c') && op.as_bytes()[1].is_ascii_digit());
    if string || text.is_empty() || text.contains([' ', ';', '"']) {
        out.push('"');
        escape_epd_string(text, out);
        out.push('"');
    } else {
        out.push_str(text);
    }
}

/// The line of record `r` with the analysis `a` (see the module's documentation).
fn record(r: &Record, a: Option<&Analysis>, out: &mut String) {
    let pos = &r.pos;
    write_epd(pos, EpMode::Legal, out);
    for (op, n) in &r.clocks {
        let _ = write!(out, " {op} {n};");
    }
    // Without an analysis of this run, the line's own stays.
    for (op, operands) in r.ops.iter().filter(|(o, _)| a.is_none() || !ANALYSIS.contains(&o.as_str())) {
        out.push(' ');
        out.push_str(op);
        for o in operands {
            out.push(' ');
            operand(op, o, out);
        }
        out.push(';');
    }
    if let Some(a) = a {
        let ce = match a.score {
            Score::Cp(cp) => cp,
            Score::Mate(n) if n > 0 => 32767 - (2 * n - 1),
            Score::Mate(n) => -(32767 + 2 * n),
        };
        let _ = write!(out, " acd {}; acn {}; acs {}; ce {ce};", a.depth, a.nodes, a.time.as_secs());
        if let Some(b) = a.best_move.filter(|_| !r.answered()) {
            out.push_str(" bm ");
            write_san(pos, b, out);
            out.push(';');
        }
        if !a.pv.is_empty() {
            out.push_str(" pv");
            let mut p = *pos;
            for &m in &a.pv {
                out.push(' ');
                write_san(&p, m, out);
                p.play_unchecked(m);
            }
            out.push(';');
        }
        if let Score::Mate(n) = a.score
            && n > 0
        {
            let _ = write!(out, " dm {n};");
        }
    }
    out.push('\n');
}

/// Where a line stands: its number (1-based; the game number of its diagnostics), its line
/// relative to the chunk and its byte offset.
#[derive(Clone, Copy)]
struct Place {
    number: u64,
    line: u64,
    offset: u64,
}

impl Place {
    /// A diagnostic of `kind` about this line.
    fn diagnostic(self, kind: Kind, message: String, pos: Option<&Position>) -> Diagnostic {
        let fen = pos.map(|p| {
            let mut fen = String::new();
            write_fen(p, EpMode::Legal, &mut fen);
            fen
        });
        Diagnostic {
            kind,
            severity: kind.severity(),
            game: self.number,
            offset: self.offset,
            line: self.line,
            column: 1,
            fen,
            message,
            ..Diagnostic::default()
        }
    }
}

impl AnnotateWorker {
    /// The lines of `chunk` analysed and written in order (see the module's documentation).
    /// A search stopped by Ctrl-C, or the run cancelled, drops the chunk's output.
    pub(super) fn lines(&mut self, chunk: &ChunkInput<'_>) -> Result<Output<AnnotatedChunk>, Error> {
        let mut out = Output::<AnnotatedChunk>::default();
        let (records, stats) = (&mut out.records, &mut out.stats);
        let Some(analyst) = &mut self.analyst else {
            return Err(Error::Internal("an EPD worker without an engine"));
        };
        let mut text = String::new();
        let (mut start, mut place) = (0, Place { number: chunk.first_game, line: 0, offset: chunk.offset });
        // A chunk that starts inside a line is the rest of one over the budget, reported already.
        if chunk.column != 1 {
            start = chunk.bytes.len();
        }
        while start < chunk.bytes.len() {
            if chunk.cancel.is_set() {
                return Ok(Output::default());
            }
            let rest = &chunk.bytes[start..];
            // The cutter never parts a `\r` from its `\n`: a `\r` that ends the chunk is lone.
            let (len, next) = line_end(rest, false).unwrap_or((rest.len(), rest.len()));
            let line = &rest[..len];
            place =
                Place { number: place.number + 1, line: place.line + 1, offset: chunk.offset + start as u64 };
            start += next;
            stats.games += 1;
            for w in self.startup.drain(..) {
                let d = place.diagnostic(Kind::EngineWarning, format!("engine: {w}"), None);
                stats.count(&d);
                records.diagnostics.push(d);
            }
            if line.len() > MAX_LINE {
                // Its first piece: the cutter hands the rest on as chunks of no line.
                stats.not_epd_lines += 1;
                stats.games_with_errors += 1;
                let why = format!("line longer than the budget ({} MiB); skipped", MAX_LINE >> 20);
                let d = place.diagnostic(Kind::OverBudget, why, None);
                stats.count(&d);
                records.diagnostics.push(d);
                continue;
            }
            let line = crate::pgn::text::decode(line).0;
            let line_record = match read_line(&line) {
                Ok(Some(record)) => record,
                Ok(None) => {
                    records.out.held.extend_from_slice(line.as_bytes());
                    records.out.held.push(b'\n');
                    continue;
                }
                Err(bad) => {
                    let why = match bad {
                        BadLine::NotEpd(why) => {
                            stats.not_epd_lines += 1;
                            why
                        }
                        BadLine::Illegal(why) => {
                            stats.epd_lines += 1;
                            why
                        }
                    };
                    let d = place.diagnostic(Kind::BadFen, why, None);
                    stats.count(&d);
                    stats.games_with_errors += 1;
                    stats.add(Counter::WrittenAsRead, 1);
                    records.diagnostics.push(d);
                    records.out.held.extend_from_slice(line.as_bytes());
                    records.out.held.push(b'\n');
                    continue;
                }
            };
            stats.epd_lines += 1;
            let pos = line_record.pos;
            stats.add(Counter::Positions, 1);
            let before = records.diagnostics.len();
            let analysis = if let Some(score) = from_rules(&pos) {
                stats.add(Counter::FromRules, 1);
                let time = std::time::Duration::ZERO;
                Some(Analysis {
                    score,
                    depth: 0,
                    seldepth: 0,
                    nodes: 0,
                    time,
                    best_move: None,
                    pv: Vec::new(),
                })
            } else {
                let (result, warnings) = analyst.position(&pos, stats)?;
                for w in warnings {
                    let d = place.diagnostic(Kind::EngineWarning, format!("engine: {w}"), Some(&pos));
                    stats.count(&d);
                    records.diagnostics.push(d);
                }
                match result {
                    Ok(a) => Some(a),
                    // Ctrl-C stopped the search: the chunk is dropped as the run ends.
                    Err(AnalyzerError::Interrupted) => return Ok(Output::default()),
                    Err(e) => {
                        stats.add(Counter::Unevaluated, 1);
                        match e {
                            AnalyzerError::Timeout(_) => stats.add(Counter::TimedOut, 1),
                            AnalyzerError::Terminated => stats.add(Counter::Crashed, 1),
                            _ => {}
                        }
                        let message = format!("left without an evaluation: {e}");
                        let d = place.diagnostic(Kind::Unevaluated, message, Some(&pos));
                        stats.count(&d);
                        records.diagnostics.push(d);
                        None
                    }
                }
            };
            // The engine's diagnostics are the line's: one left unevaluated is a line with errors.
            stats.recount_game(None, records.diagnostics[before..].iter().map(|d| d.severity).max());
            text.clear();
            record(&line_record, analysis.as_ref(), &mut text);
            records.out.held.extend_from_slice(text.as_bytes());
        }
        stats.bytes = chunk.bytes.len() as u64;
        let next = chunk.offset + chunk.bytes.len() as u64;
        out.end = ChunkEnd { next, newlines: line_breaks(chunk.bytes), searched_to: next, at_result: false };
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Annotate, AnnotateOptions, EngineChoice, Format};
    use crate::analysis::{Analysis, Score};
    use crate::chess::{CastlingMode, Position, Variant};
    use crate::error::{Diagnostic, Kind, Severity};
    use crate::pipeline::counter::Counter;
    use crate::pipeline::stats::Stats;
    use crate::pipeline::{Input, NoProgress, Options, Run, Workers};

    fn options() -> AnnotateOptions {
        AnnotateOptions {
            engine: EngineChoice::Builtin { hash_mb: 1, interrupted: None },
            limit: crate::analysis::Limit::depth(3),
            format: Format::Epd,
            ..AnnotateOptions::default()
        }
    }

    /// The job over `text` on `threads` workers, mapped or streamed: the lines written, the
    /// diagnostics as released (numbers absolute) and the counts.
    fn annotate(text: &[u8], threads: usize, stream: bool) -> (String, Vec<Diagnostic>, Stats) {
        let job = Annotate::new(options());
        let workers = Workers::default();
        let opts = Options { threads, chunk_size: 1 << 16 };
        let run =
            Run { name: &"t.epd".into(), job: &job, workers: &workers, opts: &opts, observer: &NoProgress };
        let (mut out, mut diagnostics, mut stats) = (Vec::new(), Vec::new(), Stats::default());
        let input = if stream { Input::Stream(Box::new(text)) } else { Input::Slice(text) };
        crate::pipeline::run(input, &run, |o| {
            out.extend_from_slice(&o.records.out.to_vec());
            diagnostics.extend(o.records.diagnostics);
            stats.merge(&o.stats);
            Ok(())
        })
        .expect("run");
        (String::from_utf8(out).expect("UTF-8"), diagnostics, stats)
    }

    const TEXT: &[u8] = b"# mates\n6k1/5ppp/8/8/8/8/8/R6K w - - bm Ra8#; id \"back rank\"; ce 5;\n\
        rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\r\nnot a position\n\n\
        7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\n\xff c\n8/8/8/4k3/8/8/4K3/7Q w - -";

    #[test]
    fn positions_get_their_operations_and_keep_the_others() {
        let (out, _, stats) = annotate(TEXT, 1, false);
        for (threads, stream) in [(2, false), (1, true), (2, true), (3, true)] {
            assert_eq!(annotate(TEXT, threads, stream).0, out, "{threads} threads, stream {stream}");
        }
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 8, "{out}");
        assert_eq!(lines[0], "# mates");
        let suite = "6k1/5ppp/8/8/8/8/8/R6K w - - bm Ra8#; id \"back rank\"; acd 3;";
        assert!(lines[1].starts_with(suite), "the suite's answer kept, its stale ce gone: {out}");
        assert!(lines[1].ends_with(" ce 32766; pv Ra8#; dm 1;"), "{out}");
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - hmvc 0; fmvn 1; acd 3;";
        assert!(lines[2].starts_with(fen) && lines[2].contains(" bm ") && lines[2].contains(" pv "), "{out}");
        assert_eq!(lines[3], "not a position");
        assert_eq!(lines[4], "");
        let stalemate = "7k/5Q2/6K1/8/8/8/8/8 b - - hmvc 0; fmvn 1; acd 0; acn 0; acs 0; ce 0;";
        assert_eq!(lines[5], stalemate, "{out}");
        assert_eq!(lines[6], "ÿ c", "a line that is not UTF-8 reads as Windows-1252");
        assert!(lines[7].starts_with("8/8/8/4k3/8/8/4K3/7Q w - - acd 3;"), "the last line, unbroken: {out}");
        assert!(out.ends_with('\n'));
        // Every line is a game of the summary; positions are analysed or decided by the rules.
        assert_eq!((stats.games, stats.games_with_errors, stats.bytes), (8, 2, TEXT.len() as u64));
        assert_eq!((stats.get(Counter::Positions), stats.get(Counter::FromRules)), (4, 1));
        assert_eq!((stats.get(Counter::Analysed), stats.get(Counter::WrittenAsRead)), (3, 2));
    }

    /// A line that is not a position is a typed diagnostic at its line, game and byte, whichever
    /// way the input is cut and read.
    #[test]
    fn a_bad_line_is_a_located_bad_fen_diagnostic() {
        for (threads, stream) in [(1, false), (2, false), (2, true)] {
            let (_, diagnostics, stats) = annotate(TEXT, threads, stream);
            let at =
                |needle: &[u8]| TEXT.windows(needle.len()).position(|w| w == needle).expect("in TEXT") as u64;
            let got: Vec<(Kind, Severity, u64, u64, u64, u64)> = diagnostics
                .iter()
                .map(|d| (d.kind, d.severity, d.game, d.line, d.column, d.offset))
                .collect();
            let want = vec![
                (Kind::BadFen, Severity::Error, 4, 4, 1, at(b"not a position")),
                (Kind::BadFen, Severity::Error, 7, 7, 1, at(b"\xff c")),
            ];
            assert_eq!(got, want, "{threads} threads, stream {stream}");
            assert!(
                diagnostics[0].message.starts_with("not an EPD or FEN line: "),
                "{}",
                diagnostics[0].message
            );
            assert_eq!(stats.by_kind, vec![(Kind::BadFen, Severity::Error, 2)]);
        }
    }

    /// Lines ended by a lone CR, a CR LF and an LF, NULs and other control bytes in them.
    const BREAKS: &[u8] = b"not a position\r6k1/5ppp/8/8/8/8/8/R6K w - - id \"cr\";\r\r\nbad\0line\x01\r\n\
        \x0c\x0b\r8/8/8/4k3/8/8/4K3/7Q w - -\0\n7k/5Q2/6K1/8/8/8/8/8 b - - id \"\0\";\rlast\r";

    /// A lone CR ends a line as an LF and a CR LF do; a NUL or another control byte is a byte of
    /// its line: a line that is no position for it is a located `bad_fen`, the reading goes on.
    #[test]
    fn a_lone_cr_ends_a_line_and_control_bytes_are_in_theirs() {
        let (out, diagnostics, stats) = annotate(BREAKS, 1, false);
        let at = |needle: &[u8]| BREAKS.windows(needle.len()).position(|w| w == needle).expect("in") as u64;
        for (threads, stream) in [(2, false), (1, true), (2, true), (3, true)] {
            let (o, d, _) = annotate(BREAKS, threads, stream);
            assert_eq!((&o, d.len()), (&out, diagnostics.len()), "{threads} threads, stream {stream}");
        }
        let lines: Vec<&str> = out.split('\n').collect();
        assert_eq!(lines.len(), 9, "eight lines and the end: {out:?}");
        assert_eq!(lines[0], "not a position");
        assert!(lines[1].starts_with("6k1/5ppp/8/8/8/8/8/R6K w - - id \"cr\"; acd 3;"), "{out:?}");
        assert_eq!(&lines[2..5], ["", "bad\0line\x01", "\x0c\x0b"], "kept as they are");
        assert_eq!(lines[5], "8/8/8/4k3/8/8/4K3/7Q w - -\0");
        // A string operand is written without control bytes, as `positions` writes them.
        assert!(lines[6].starts_with("7k/5Q2/6K1/8/8/8/8/8 b - - id \" \"; acd 0;"), "{out:?}");
        assert_eq!(&lines[7..], ["last", ""]);
        let got: Vec<(Kind, u64, u64, u64)> =
            diagnostics.iter().map(|d| (d.kind, d.game, d.line, d.offset)).collect();
        let want = vec![
            (Kind::BadFen, 1, 1, 0),
            (Kind::BadFen, 4, 4, at(b"bad")),
            (Kind::BadFen, 6, 6, at(b"8/8/8/4k3")),
            (Kind::BadFen, 8, 8, at(b"last")),
        ];
        assert_eq!(got, want);
        assert_eq!((stats.games, stats.games_with_errors, stats.get(Counter::Positions)), (8, 4, 2));
    }

    /// A record written from `line`, analysed or not.
    fn written(line: &str, a: Option<&Analysis>) -> String {
        let record = match super::read_line(line) {
            Ok(Some(r)) => r,
            _ => panic!("a position: {line}"),
        };
        let mut out = String::new();
        super::record(&record, a, &mut out);
        out
    }

    /// An analysis of `pos`: its line, the first move the choice.
    fn analysis(line: &str, score: Score, pv: &[&str]) -> Analysis {
        let epd = crate::notation::fen::parse_epd(line).expect("EPD");
        let mut pos =
            Position::from_setup(epd.setup, Variant::Standard, CastlingMode::Standard).expect("legal");
        let pv: Vec<_> = pv
            .iter()
            .map(|san| {
                let (m, _) = crate::notation::san::parse_san(&pos, san.as_bytes()).expect("SAN");
                pos.play_unchecked(m);
                m
            })
            .collect();
        let time = std::time::Duration::from_millis(2500);
        Analysis { score, depth: 9, seldepth: 12, nodes: 777, time, best_move: pv.first().copied(), pv }
    }

    /// A suite's operations are kept in their order, its answers (`bm`, `am`) never replaced;
    /// the analysis this run makes replaces the input's; the engine's choice leads `pv`, and is
    /// `bm` only on a line with no answer.
    #[test]
    fn a_suite_keeps_its_answers_and_its_other_operations() {
        let wac = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\"; \
            c0 \"a b\"; ce 5; pv Rf2 Kh7; acd 30; dm 9; acn 1; acs 7; hmvc 3; fmvn 40; c9 \"x\";";
        let a = analysis(wac, Score::Mate(2), &["Qg6", "fxg6", "Bxg6"]);
        assert_eq!(
            written(wac, Some(&a)),
            "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\"; c0 \"a b\"; \
             hmvc 3; fmvn 40; c9 \"x\"; acd 9; acn 777; acs 2; ce 32764; pv Qg6 fxg6 Bxg6; dm 2;\n"
        );
        let avoid = "6k1/5ppp/8/8/8/8/8/R6K w - - am Kh2; id \"avoid\";";
        let a = analysis(avoid, Score::Cp(900), &["Ra8#"]);
        assert_eq!(
            written(avoid, Some(&a)),
            "6k1/5ppp/8/8/8/8/8/R6K w - - am Kh2; id \"avoid\"; acd 9; acn 777; acs 2; ce 900; pv Ra8#;\n",
            "no bm where the suite has an am: the engine's choice would read as the suite's"
        );
        let plain = "6k1/5ppp/8/8/8/8/8/R6K w - - id \"plain\";";
        let a = analysis(plain, Score::Cp(-3), &["Kg2", "Kf8"]);
        assert_eq!(
            written(plain, Some(&a)),
            "6k1/5ppp/8/8/8/8/8/R6K w - - id \"plain\"; acd 9; acn 777; acs 2; ce -3; bm Kg2; pv Kg2 Kf8;\n"
        );
        // Left without an evaluation: the line's own analysis stays, nothing is added.
        assert_eq!(written(wac, None), format!("{wac}\n"));
        // An empty operation (`FEN ; bm X;`) is passed over; a string's quote and backslash are
        // escaped as `positions` writes them, so they read back as they were.
        let quoted = r#"6k1/5ppp/8/8/8/8/8/R6K w - - ; bm Ra8#; id "dir\"q\\g.pgn:1:0";"#;
        let a = analysis(quoted, Score::Mate(1), &["Ra8#"]);
        let line = written(quoted, Some(&a));
        assert_eq!(
            line,
            "6k1/5ppp/8/8/8/8/8/R6K w - - bm Ra8#; id \"dir\\\"q\\\\g.pgn:1:0\"; acd 9; acn 777; acs 2; ce 32766; \
             pv Ra8#; dm 1;\n"
        );
        let read = crate::notation::fen::parse_epd(line.trim_end()).expect("EPD");
        assert_eq!(read.op("id").expect("id"), [r#"dir"q\g.pgn:1:0"#]);
    }

    /// A FEN's clocks become `hmvc` and `fmvn` (one clock, `hmvc` alone); an EPD record's own
    /// `hmvc`/`fmvn` are kept where they stand and not doubled.
    #[test]
    fn a_fen_s_clocks_are_written_as_hmvc_and_fmvn() {
        let a = |line: &str| analysis(line, Score::Cp(10), &["Kg2"]);
        let fen = "6k1/5ppp/8/8/8/8/8/R6K w - - 12 57";
        assert_eq!(
            written(fen, Some(&a(fen))),
            "6k1/5ppp/8/8/8/8/8/R6K w - - hmvc 12; fmvn 57; acd 9; acn 777; acs 2; ce 10; bm Kg2; pv Kg2;\n"
        );
        let one = "6k1/5ppp/8/8/8/8/8/R6K w - - 12 bm Ra8#;";
        assert!(
            written(one, Some(&a(one))).starts_with("6k1/5ppp/8/8/8/8/8/R6K w - - hmvc 12; bm Ra8#; acd 9;")
        );
        let both = "6k1/5ppp/8/8/8/8/8/R6K w - - 1 2 id \"i\"; fmvn 30;";
        assert!(written(both, None).starts_with("6k1/5ppp/8/8/8/8/8/R6K w - - hmvc 1; id \"i\"; fmvn 30;\n"));
        let epd = "6k1/5ppp/8/8/8/8/8/R6K w - -";
        assert_eq!(
            written(epd, Some(&a(epd))),
            "6k1/5ppp/8/8/8/8/8/R6K w - - acd 9; acn 777; acs 2; ce 10; bm Kg2; pv Kg2;\n"
        );
    }
}
