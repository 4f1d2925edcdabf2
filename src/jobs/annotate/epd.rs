//! `--format epd`: inputs of positions, one EPD record or FEN a line, each written again as EPD
//! with the engine's findings as operations (`../shared/CONVENTIONS.md` section 3): `ce`
//! (centipawns from the side to move; a mate in N moves is `32767 - (2N - 1)` plies away, being
//! mated in N `-(32767 - 2N)`), `acd` (depth), `acn` (nodes), `acs` (whole seconds), `bm` (SAN),
//! `pv` (SAN) and `dm` (mate in N moves, for the side that mates). The record's other operations
//! are kept; these are replaced. Blank lines and lines starting with `#` are kept as they are; a
//! line that is not a position is kept as it is, with an error diagnostic.
//!
//! Lines are dealt to the engines in stripes and written in input order, a batch at a time
//! ([`EpdAnnotator`]).

use std::fmt::Write as _;
use std::io::BufRead;

use super::analyse::{Analyst, from_rules};
use super::{AnnotateOptions, start_engine};
use crate::analysis::{Analysis, AnalyzerError, Score};
use crate::chess::{CastlingMode, Position, Variant};
use crate::error::Error;
use crate::notation::fen::{EpMode, parse_epd, write_epd};
use crate::notation::san::write_san;

/// The operations this module writes (those the input had are replaced).
const OWN: [&str; 7] = ["ce", "acd", "acn", "acs", "bm", "pv", "dm"];

/// What came of one input of positions.
#[derive(Debug, Default)]
pub struct EpdOutput {
    /// The lines written.
    pub out: Vec<u8>,
    /// Problems, as `LINE: message` (1-based lines).
    pub diagnostics: Vec<(usize, String)>,
    /// Positions analysed (cache hits included) and positions left without an evaluation.
    pub positions: u64,
    /// Positions the engine failed on, and lines that are not positions.
    pub failures: u64,
    /// Of those, the positions where the engine hung (or missed its deadline).
    pub timed_out: u64,
    /// Of those, the positions where the engine crashed on every try.
    pub crashed: u64,
}

/// A record's operations: opcode and operands.
type Ops = Vec<(String, Vec<String>)>;

/// An analysed record: the position, its other operations, the analysis or why there is none,
/// the engine's warnings.
struct Analysed {
    pos: Position,
    ops: Ops,
    result: Result<Analysis, AnalyzerError>,
    warnings: Vec<String>,
}

/// One line's outcome.
enum Done {
    /// Written as given.
    Verbatim,
    /// Not a position.
    Bad(String),
    /// A position.
    Analysed(Box<Analysed>),
}

/// A position's record, as far as the line says.
fn read_line(line: &str) -> Result<Option<(Position, Ops)>, String> {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') {
        return Ok(None);
    }
    let epd = parse_epd(t).map_err(|e| format!("not an EPD or FEN line: {e}"))?;
    let pos = Position::from_setup(epd.setup.clone(), Variant::Standard, CastlingMode::Standard)
        .or_else(|_| Position::from_setup(epd.setup, Variant::Chess960, CastlingMode::Chess960))
        .map_err(|e| format!("not a legal position: {e}"))?;
    let ops = epd.ops.into_iter().filter(|(o, _)| !OWN.contains(&o.as_str())).collect();
    Ok(Some((pos, ops)))
}

fn analyse_line(analyst: &mut Analyst, line: &str) -> Result<Done, Error> {
    let (pos, ops) = match read_line(line) {
        Ok(Some(p)) => p,
        Ok(None) => return Ok(Done::Verbatim),
        Err(e) => return Ok(Done::Bad(e)),
    };
    if let Some(score) = from_rules(&pos) {
        let a = Analysis {
            score,
            depth: 0,
            seldepth: 0,
            nodes: 0,
            time: std::time::Duration::ZERO,
            best_move: None,
            pv: Vec::new(),
        };
        return Ok(Done::Analysed(Box::new(Analysed { pos, ops, result: Ok(a), warnings: Vec::new() })));
    }
    let (result, warnings) = analyst.position(&pos)?;
    Ok(Done::Analysed(Box::new(Analysed { pos, ops, result, warnings })))
}

/// An operand written back: quoted when it is a string (`id`, `c0`..`c9`) or holds a space or
/// a `;`.
fn operand(op: &str, text: &str, out: &mut String) {
    let string = op == "id" || (op.len() == 2 && op.starts_with('c') && op.as_bytes()[1].is_ascii_digit());
    if string || text.is_empty() || text.contains([' ', ';', '"']) {
        let _ = write!(out, "\"{}\"", text.replace('"', "'"));
    } else {
        out.push_str(text);
    }
}

/// The record of `pos` with `ops` and the analysis `a`.
fn record(pos: &Position, ops: &Ops, a: Option<&Analysis>, out: &mut String) {
    write_epd(pos, EpMode::Legal, out);
    for (op, operands) in ops {
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
        if let Some(b) = a.best_move {
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

/// Lines of an EPD input read, analysed and written at a time.
pub const BATCH: usize = 256;

/// Reads the next [`BATCH`] lines of `reader` (fewer at its end, none past it) into `batch`,
/// each as `str::lines` gives it (without its `\n` or `\r\n`), a line that is not UTF-8 read as
/// Windows-1252 (as all input text: [`crate::pgn::text`]).
pub fn read_batch(reader: &mut impl BufRead, batch: &mut Vec<String>) -> std::io::Result<()> {
    batch.clear();
    let mut bytes = Vec::new();
    while batch.len() < BATCH {
        bytes.clear();
        if reader.read_until(b'\n', &mut bytes)? == 0 {
            break;
        }
        let line = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        batch.push(crate::pgn::text::decode(line).0.into_owned());
    }
    Ok(())
}

/// The engines of an EPD run, kept from one batch of lines to the next, so that an input of
/// any size is read and written a batch at a time.
pub struct EpdAnnotator {
    analysts: Vec<Analyst>,
}

impl EpdAnnotator {
    /// Starts `threads` engines (at least one) as `opts` says.
    pub fn new(opts: &AnnotateOptions, threads: usize) -> Result<EpdAnnotator, Error> {
        let mut analysts = Vec::with_capacity(threads.max(1));
        for _ in 0..threads.max(1) {
            let (engine, id) = start_engine(opts)?;
            analysts.push(Analyst::new(engine, id, opts.usable_cache(), opts.limit, false));
        }
        Ok(EpdAnnotator { analysts })
    }

    /// Annotates `lines`, the input's lines from line number `first` (1-based, for the
    /// diagnostics), dealt to the engines in stripes and written in input order.
    pub fn lines(&mut self, lines: &[&str], first: usize) -> Result<EpdOutput, Error> {
        let threads = self.analysts.len();
        // Stripes: line i goes to engine i % threads.
        let results: Vec<Result<Vec<(usize, Done)>, Error>> = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .analysts
                .iter_mut()
                .enumerate()
                .map(|(k, analyst)| {
                    s.spawn(move || {
                        let mut done = Vec::new();
                        for i in (k..lines.len()).step_by(threads) {
                            done.push((i, analyse_line(analyst, lines[i])?));
                        }
                        Ok(done)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(Error::Internal("an engine thread panicked"))))
                .collect()
        });
        let mut all: Vec<(usize, Done)> = Vec::with_capacity(lines.len());
        for r in results {
            all.extend(r?);
        }
        all.sort_by_key(|(i, _)| *i);
        let mut output = EpdOutput::default();
        let mut line = String::new();
        for (i, done) in all {
            line.clear();
            let number = first + i;
            match done {
                Done::Verbatim => {
                    line.push_str(lines[i]);
                    line.push('\n');
                }
                Done::Bad(why) => {
                    line.push_str(lines[i]);
                    line.push('\n');
                    output.failures += 1;
                    output.diagnostics.push((number, format!("error: {why}")));
                }
                Done::Analysed(a) => {
                    let Analysed { pos, ops, result, warnings } = *a;
                    output.positions += 1;
                    for w in warnings {
                        output.diagnostics.push((number, format!("warning: engine: {w}")));
                    }
                    if let Err(why) = &result {
                        output.failures += 1;
                        match why {
                            AnalyzerError::Timeout(_) => output.timed_out += 1,
                            AnalyzerError::Terminated => output.crashed += 1,
                            _ => {}
                        }
                        output
                            .diagnostics
                            .push((number, format!("error: left without an evaluation: {why}")));
                    }
                    record(&pos, &ops, result.as_ref().ok(), &mut line);
                }
            }
            output.out.extend_from_slice(line.as_bytes());
        }
        Ok(output)
    }
}

/// Annotates the positions of `text` with `threads` engines as `opts` says.
pub fn annotate_epd(text: &str, opts: &AnnotateOptions, threads: usize) -> Result<EpdOutput, Error> {
    let lines: Vec<&str> = text.lines().collect();
    EpdAnnotator::new(opts, threads.clamp(1, lines.len().max(1)))?.lines(&lines, 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::annotate::EngineChoice;

    #[test]
    fn positions_get_their_operations_and_keep_the_others() {
        let opts = AnnotateOptions {
            engine: EngineChoice::Builtin { hash_mb: 1 },
            limit: crate::analysis::Limit::depth(3),
            ..AnnotateOptions::default()
        };
        let text = "# mates\n6k1/5ppp/8/8/8/8/8/R6K w - - bm Ra8#; id \"back rank\"; ce 5;\n\
                    rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\nnot a position\n\n\
                    7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\n";
        let one = annotate_epd(text, &opts, 1).expect("run");
        let two = annotate_epd(text, &opts, 2).expect("run");
        assert_eq!(one.out, two.out);
        let out = String::from_utf8(one.out).expect("UTF-8");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "# mates");
        assert!(lines[1].starts_with("6k1/5ppp/8/8/8/8/8/R6K w - - id \"back rank\"; acd 3;"), "{out}");
        assert!(lines[1].contains(" ce 32766; bm Ra8#; pv Ra8#; dm 1;"), "{out}");
        assert!(lines[2].contains(" bm ") && lines[2].contains(" pv "), "{out}");
        assert_eq!(lines[3], "not a position");
        assert_eq!(lines[5], "7k/5Q2/6K1/8/8/8/8/8 b - - acd 0; acn 0; acs 0; ce 0;", "stalemate: {out}");
        assert_eq!((one.positions, one.failures), (3, 1));
        assert_eq!(one.diagnostics.len(), 1);
        assert_eq!(one.diagnostics[0].0, 4);
    }

    /// Batches split the input as `str::lines` does, whatever its line ends, [`BATCH`] lines at
    /// most, and come back empty at its end; a line that is not UTF-8 reads as Windows-1252.
    #[test]
    fn batches_are_the_lines_of_the_input() {
        let mut text = b"a\r\nb\n\n\xff c".to_vec();
        text.extend((0..BATCH).flat_map(|i| format!("\n{i}").into_bytes()));
        let want: Vec<String> = crate::pgn::text::windows_1252(&text).lines().map(String::from).collect();
        assert_eq!(want[3], "ÿ c");
        let mut reader = std::io::Cursor::new(text);
        let (mut got, mut batch) = (Vec::new(), Vec::new());
        let mut sizes = Vec::new();
        loop {
            read_batch(&mut reader, &mut batch).expect("read");
            sizes.push(batch.len());
            if batch.is_empty() {
                break;
            }
            got.append(&mut batch);
        }
        assert_eq!(got, want);
        assert_eq!(sizes, [BATCH, 4, 0]);
    }
}
