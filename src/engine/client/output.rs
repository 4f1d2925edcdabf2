//! What an engine prints while it searches, made into an [`Analysis`]: `info` lines (depth,
//! seldepth, nodes, time, score, PV), then `bestmove`.
//!
//! Rules (the UCI protocol's `info` fields; a bound is not a score): only the first PV
//! (`multipv 1`, or no `multipv`) counts; the final score is the last one that is not a `lowerbound`/`upperbound`, with the depth
//! and PV of its line; nodes and time are the last reported; `info string` and unknown tokens are
//! ignored. Moves are read with pgnkit's own UCI parser against the position: a PV is cut at its
//! first illegal move, an illegal `bestmove` is replaced by the PV's first move, and each repair is
//! an [`AnalysisWarning`]. A line that is no UCI at all is counted as garbage, and one too long to
//! read (skipped as it comes) as a long line. A score past
//! [`MAX_CP`] or [`MAX_MATE`], or a final `mate 0` (mated, in a position that has moves), is
//! nonsense: the position gets a protocol error, not that score.

use std::time::Duration;

use crate::analysis::{Analysis, AnalysisWarning, AnalyzerError, Score};
use crate::chess::{Move, Position};
use crate::notation::uci::parse_uci;

pub use crate::analysis::{MAX_CP, MAX_MATE};

/// Tokens that start a field of an `info` line (they end a `pv`).
const INFO_KEYWORDS: [&str; 18] = [
    "depth",
    "seldepth",
    "time",
    "nodes",
    "pv",
    "multipv",
    "score",
    "currmove",
    "currmovenumber",
    "hashfull",
    "nps",
    "tbhits",
    "sbhits",
    "cpuload",
    "string",
    "refutation",
    "currline",
    "wdl",
];

/// One `info` line, as far as the analysis cares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Info<'a> {
    pub depth: Option<u32>,
    pub seldepth: Option<u32>,
    pub multipv: Option<u32>,
    /// The score, and whether it is only a bound.
    pub score: Option<(Score, bool)>,
    pub nodes: Option<u64>,
    pub time: Option<Duration>,
    /// The PV's move texts, when the line has a `pv`.
    pub pv: Option<Vec<&'a str>>,
    /// A score whose number is out of range (`cp -2147483648`), as written.
    pub insane: Option<String>,
}

/// What one line of engine output is, during a search.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Message<'a> {
    /// `info ...` with its fields (`info string` has none).
    Info(Info<'a>),
    /// `bestmove X [ponder Y]`; X may be `(none)`, `0000`, `NULL` or missing.
    BestMove { best: Option<&'a str>, ponder: Option<&'a str> },
    /// A UCI line that does not matter here (`readyok`, `id`, `option`, an empty line...).
    Ignored,
    /// Not UCI.
    Garbage,
}

impl<'a> Message<'a> {
    /// Reads one line of engine output.
    pub(crate) fn parse(line: &'a str) -> Message<'a> {
        let mut tokens = line.split_whitespace();
        match tokens.next() {
            Some("info") => Message::Info(parse_info(tokens)),
            Some("bestmove") => Message::BestMove {
                best: tokens.next(),
                ponder: match tokens.next() {
                    Some("ponder") => tokens.next(),
                    _ => None,
                },
            },
            None | Some("readyok" | "uciok" | "id" | "option" | "copyprotection" | "registration") => {
                Message::Ignored
            }
            Some(_) => Message::Garbage,
        }
    }
}

fn parse_info<'a>(mut tokens: impl Iterator<Item = &'a str>) -> Info<'a> {
    let mut info = Info::default();
    let mut bound = false;
    let mut pending = tokens.next();
    while let Some(token) = pending.take() {
        let mut value = || tokens.next();
        match token {
            "string" => return Info::default(),
            "depth" => info.depth = value().and_then(|v| v.parse().ok()),
            "seldepth" => info.seldepth = value().and_then(|v| v.parse().ok()),
            "multipv" => info.multipv = value().and_then(|v| v.parse().ok()),
            "nodes" => info.nodes = value().and_then(|v| v.parse().ok()),
            "time" => info.time = value().and_then(|v| v.parse().ok()).map(Duration::from_millis),
            "score" => {
                let kind = value();
                let text = value().filter(|t| is_integer(t));
                let max = if kind == Some("mate") { MAX_MATE } else { MAX_CP };
                // `None` past `i64` too: a number all the same.
                let n = text.and_then(|t| t.parse::<i64>().ok()).filter(|n| n.unsigned_abs() <= max);
                info.score = match (kind, n) {
                    (Some("cp"), Some(n)) => Some((Score::Cp(n as i32), bound)),
                    (Some("mate"), Some(n)) => Some((Score::Mate(n as i32), bound)),
                    _ => None,
                };
                if let (Some(kind @ ("cp" | "mate")), Some(t), None) = (kind, text, n) {
                    info.insane = Some(format!("{kind} {t}"));
                }
            }
            // Stockfish writes it after `wdl W D L` when `UCI_ShowWDL` is on, so it is a field
            // of the line, wherever it stands.
            "lowerbound" | "upperbound" => {
                bound = true;
                if let Some((_, b)) = info.score.as_mut() {
                    *b = true;
                }
            }
            "pv" => {
                let mut pv = Vec::new();
                pending = tokens.next();
                while let Some(m) = pending.filter(|t| !INFO_KEYWORDS.contains(t)) {
                    pv.push(m);
                    pending = tokens.next();
                }
                info.pv = Some(pv);
                continue;
            }
            // Unknown tokens and fields that do not matter (their values are read as unknown tokens).
            _ => {}
        }
        pending = tokens.next();
    }
    info
}

/// An optional sign and digits (`1e3` and `12.5` are not).
fn is_integer(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Reads `moves` from `pos` on: the legal prefix, and a warning when it stops early.
fn legal_prefix(pos: &Position, moves: &[String]) -> (Vec<Move>, Option<AnalysisWarning>) {
    let mut pos = *pos;
    let mut legal = Vec::with_capacity(moves.len());
    for (index, text) in moves.iter().enumerate() {
        match parse_uci(&pos, text.as_bytes()) {
            Ok(m) => {
                pos.play_unchecked(m);
                legal.push(m);
            }
            Err(_) => return (legal, Some(AnalysisWarning::IllegalPv { index, text: text.clone() })),
        }
    }
    (legal, None)
}

/// A line with a score that is not a bound: the final evaluation is the last of them.
#[derive(Debug, Default)]
struct Exact {
    score: Option<Score>,
    depth: u32,
    seldepth: u32,
    pv: Option<Vec<String>>,
}

/// The facts of one search, gathered line by line, then checked against the position.
#[derive(Debug, Default)]
pub(crate) struct Collector {
    exact: Exact,
    /// The last PV of any first line, bound or not (a `bestmove` may follow a bound's PV).
    last_pv: Vec<String>,
    depth: u32,
    seldepth: u32,
    nodes: u64,
    time: Option<Duration>,
    garbage: Option<AnalysisWarning>,
    /// Lines over [`super::process::MAX_LINE`], skipped.
    long: Option<AnalysisWarning>,
    /// The first score out of range, as written.
    insane: Option<String>,
}

impl Collector {
    /// Takes in one line; `Some((best, ponder))` when it is the `bestmove` that ends the search.
    pub(crate) fn line<'a>(&mut self, line: &'a str) -> Option<(Option<&'a str>, Option<&'a str>)> {
        match Message::parse(line) {
            Message::Info(info) => self.info(info),
            Message::BestMove { best, ponder } => return Some((best, ponder)),
            Message::Ignored => {}
            Message::Garbage => match &mut self.garbage {
                Some(AnalysisWarning::Garbage { lines, .. }) => *lines += 1,
                _ => self.garbage = Some(AnalysisWarning::garbage(line)),
            },
        }
        None
    }

    /// Takes in a line over [`super::process::MAX_LINE`] (`head`, its beginning): skipped, as
    /// garbage is, and said.
    pub(crate) fn too_long(&mut self, head: &str) {
        match &mut self.long {
            Some(AnalysisWarning::LongLines { lines, .. }) => *lines += 1,
            _ => self.long = Some(AnalysisWarning::long_line(head, super::process::MAX_LINE)),
        }
    }

    /// What a search killed for a hang adds to its reason: the long lines it printed, if any.
    pub(crate) fn long_lines(&self) -> String {
        self.long.as_ref().map_or(String::new(), |w| format!(" ({w})"))
    }

    fn info(&mut self, info: Info<'_>) {
        if info.multipv.is_some_and(|k| k != 1) {
            return;
        }
        if self.insane.is_none() {
            self.insane = info.insane;
        }
        if let Some(depth) = info.depth {
            self.depth = depth;
            self.seldepth = info.seldepth.unwrap_or(depth);
        }
        if let Some(nodes) = info.nodes {
            self.nodes = nodes;
        }
        if info.time.is_some() {
            self.time = info.time;
        }
        let pv = info.pv.map(|pv| pv.iter().map(|m| m.to_string()).collect::<Vec<String>>());
        if let Some(pv) = pv.as_ref().filter(|pv| !pv.is_empty()) {
            self.last_pv.clone_from(pv);
        }
        if let Some((score, false)) = info.score {
            self.exact = Exact { score: Some(score), depth: self.depth, seldepth: self.seldepth, pv };
        }
    }

    /// The analysis of `pos` (which has legal moves) once `bestmove` came, with the warnings
    /// about what was repaired; `elapsed` stands for the time when the engine reported none.
    pub(crate) fn finish(
        self,
        pos: &Position,
        best: Option<&str>,
        ponder: Option<&str>,
        elapsed: Duration,
        warnings: &mut Vec<AnalysisWarning>,
    ) -> Result<Analysis, AnalyzerError> {
        warnings.extend(self.garbage);
        warnings.extend(self.long);
        if let Some(score) = self.insane {
            return Err(AnalyzerError::Protocol(format!(
                "score {score} is out of range (at most {MAX_CP} cp or mate in {MAX_MATE} moves, either sign)"
            )));
        }
        let Some(score) = self.exact.score else {
            return Err(AnalyzerError::Protocol("bestmove without a score that is not a bound".into()));
        };
        if score == Score::Mate(0) {
            return Err(AnalyzerError::Protocol(
                "score mate 0 (mated) in a position that has legal moves".into(),
            ));
        }
        let (pv, cut) = match &self.exact.pv {
            Some(pv) if !pv.is_empty() => legal_prefix(pos, pv),
            _ => {
                warnings.push(AnalysisWarning::ScoreWithoutPv);
                (Vec::new(), None)
            }
        };
        warnings.extend(cut);
        let best_text = best.unwrap_or("(none)");
        let best = match best_text {
            "(none)" | "0000" | "NULL" | "none" => None,
            text => parse_uci(pos, text.as_bytes()).ok(),
        };
        let best = match best {
            Some(m) => m,
            None => match pv.first().copied().or_else(|| legal_prefix(pos, &self.last_pv).0.first().copied())
            {
                // The warning says the PV's move was used: only when there is one.
                Some(m) => {
                    warnings.push(AnalysisWarning::IllegalBestMove(best_text.to_string()));
                    m
                }
                None => {
                    return Err(AnalyzerError::Protocol(format!(
                        "no legal best move (bestmove {best_text}, and no legal move begins its PV)"
                    )));
                }
            },
        };
        let pv = if pv.first() == Some(&best) {
            pv
        } else {
            // The score's line is older than the engine's final choice (a later bound changed
            // it): the last PV that starts with the choice, else the choice and its ponder move.
            let (last, last_cut) = legal_prefix(pos, &self.last_pv);
            if last.first() == Some(&best) {
                warnings.extend(last_cut);
                last
            } else {
                let mut after = *pos;
                after.play_unchecked(best);
                let ponder = ponder.and_then(|p| parse_uci(&after, p.as_bytes()).ok());
                std::iter::once(best).chain(ponder).collect()
            }
        };
        Ok(Analysis {
            score,
            depth: self.exact.depth,
            seldepth: self.exact.seldepth,
            nodes: self.nodes,
            time: self.time.unwrap_or(elapsed),
            best_move: Some(best),
            pv,
        })
    }
}
