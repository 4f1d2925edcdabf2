//! What engines say about positions, and what pgnkit makes of it. The engine-neutral vocabulary
//! shared by the built-in search ([`crate::search::Searcher`]) and external UCI engines: how long
//! to think ([`Limit`]), what a score means ([`Score`], [`PovScore`]), what comes back
//! ([`Analysis`]) and the [`Analyzer`] trait the annotate job drives; what a move's evaluations
//! say about it, lichess style ([`judge`]: winning chances, judgements, ACPL and accuracy); and
//! the evaluation cache in SQLite ([`cache`]), which lets a position be analysed once per cache
//! file and a killed run resume from what was committed.
//!
//! Scores are always from the point of view of the side to move, as in UCI; [`PovScore`] turns them
//! into White's view (the lichess `[%eval]` convention). What an engine did wrong and was survived
//! (output ignored or cut, a restart) comes back as [`AnalysisWarning`]s through
//! [`Analyzer::take_warnings`], for the caller to report with the game and ply.
//!
//! ```
//! use pgnkit::analysis::{Limit, PovScore, Score};
//! use pgnkit::Color;
//! let limit = Limit::depth(8);
//! assert_eq!(limit.depth, Some(8));
//! // Black to move and winning by a pawn is -1.00 for White.
//! assert_eq!(PovScore::new(Color::Black, Score::Cp(100)).white(), Score::Cp(-100));
//! ```

pub mod cache;
pub mod judge;
mod start;

pub use start::StartError;

use std::cmp::Ordering;
use std::fmt;
use std::time::Duration;

use crate::chess::{Color, Move, Position};

/// Longest engine output line kept in a [`AnalysisWarning::Garbage`] or
/// [`AnalysisWarning::LongLines`] message, in bytes.
const GARBAGE_SHOWN: usize = 200;

/// How much work an analysis may do. Every limit that is set applies; the first one reached stops
/// the search. No limit at all means "until stopped" (the UCI `go infinite`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Limit {
    /// Stop after about this many nodes (reproducible with one thread).
    pub nodes: Option<u64>,
    /// Stop after completing this many plies of iterative deepening (reproducible).
    pub depth: Option<u32>,
    /// Stop after this much wall-clock time (not reproducible).
    pub movetime: Option<Duration>,
}

impl Limit {
    /// No limit: search until stopped.
    pub const fn infinite() -> Limit {
        Limit { nodes: None, depth: None, movetime: None }
    }

    /// A node budget.
    pub const fn nodes(nodes: u64) -> Limit {
        Limit { nodes: Some(nodes), depth: None, movetime: None }
    }

    /// A depth in plies.
    pub const fn depth(depth: u32) -> Limit {
        Limit { nodes: None, depth: Some(depth), movetime: None }
    }

    /// A time budget.
    pub const fn movetime(movetime: Duration) -> Limit {
        Limit { nodes: None, depth: None, movetime: Some(movetime) }
    }

    /// `true` when the result depends only on the position and the engine's state (no clock).
    pub const fn is_reproducible(&self) -> bool {
        self.movetime.is_none() && (self.nodes.is_some() || self.depth.is_some())
    }
}

/// The largest centipawn score taken, either sign: a thousand pawns, three times Stockfish's
/// whole scale (its mate value is 32,000 internal units), and far from `i32`'s ends, so that
/// negating or adding scores never wraps.
pub const MAX_CP: u64 = 100_000;

/// The longest mate taken, in moves, either sign: the longest forced mate known with seven
/// pieces takes 549 moves.
pub const MAX_MATE: u64 = 1_000;

/// An evaluation from the point of view of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Score {
    /// Centipawns; positive is good for the side to move.
    Cp(i32),
    /// Mate in this many moves (not plies): positive when the side to move mates, negative when it
    /// is mated. `Mate(0)` means the side to move is checkmated on the board; it has no sign, so
    /// [`Score::negate`] keeps it and [`PovScore`] remembers whose turn it was.
    Mate(i32),
}

impl Score {
    /// Whether it is within [`MAX_CP`] or [`MAX_MATE`], either sign: a score an engine may
    /// give, which pgnkit's arithmetic on scores never wraps.
    pub const fn in_range(self) -> bool {
        match self {
            Score::Cp(cp) => cp.unsigned_abs() as u64 <= MAX_CP,
            Score::Mate(n) => n.unsigned_abs() as u64 <= MAX_MATE,
        }
    }

    /// The same evaluation from the other side's point of view (`Mate(0)` stays `Mate(0)`).
    pub const fn negate(self) -> Score {
        match self {
            Score::Cp(cp) => Score::Cp(-cp),
            Score::Mate(n) => Score::Mate(-n),
        }
    }

    /// `true` for mate scores.
    pub const fn is_mate(self) -> bool {
        matches!(self, Score::Mate(_))
    }

    /// Centipawns, with mates mapped to `+-mate_value` minus the distance (so a shorter mate is
    /// larger), for arithmetic such as winning chances.
    pub const fn to_cp(self, mate_value: i32) -> i32 {
        match self {
            Score::Cp(cp) => cp,
            Score::Mate(n) if n > 0 => mate_value - n,
            Score::Mate(n) => -mate_value - n,
        }
    }

    /// A total order key: mated-now < mated-in-N < centipawns < mate-in-N (shorter mates first).
    fn rank(self) -> (i32, i64) {
        match self {
            Score::Mate(n) if n <= 0 => (0, -(n as i64)),
            Score::Cp(cp) => (1, cp as i64),
            Score::Mate(n) => (2, -(n as i64)),
        }
    }
}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Score) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Score {
    /// Better for the side to move is greater.
    fn cmp(&self, other: &Score) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl fmt::Display for Score {
    /// The UCI spelling: `cp 31` or `mate -2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

/// A [`Score`] together with the side whose point of view it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PovScore {
    /// The side the score is relative to (the side to move for engine output).
    pub turn: Color,
    /// The score from `turn`'s point of view.
    pub score: Score,
}

impl PovScore {
    /// A score from `turn`'s point of view.
    pub const fn new(turn: Color, score: Score) -> PovScore {
        PovScore { turn, score }
    }

    /// The score from `color`'s point of view.
    pub const fn pov(self, color: Color) -> Score {
        if color as u8 == self.turn as u8 { self.score } else { self.score.negate() }
    }

    /// The score from White's point of view (the `[%eval]` convention).
    pub const fn white(self) -> Score {
        self.pov(Color::White)
    }

    /// The side that is checkmated on the board (`Mate(0)`), if any.
    pub const fn mated(self) -> Option<Color> {
        match self.score {
            Score::Mate(0) => Some(self.turn),
            _ => None,
        }
    }
}

/// The result of analysing one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The evaluation from the side to move's point of view.
    pub score: Score,
    /// Depth in plies of the last completed iteration.
    pub depth: u32,
    /// Deepest ply reached (quiescence included).
    pub seldepth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time spent.
    pub time: Duration,
    /// The best move; `None` when the game is over on the board.
    pub best_move: Option<Move>,
    /// The principal variation, starting with `best_move`; every move is legal in sequence.
    pub pv: Vec<Move>,
}

/// Why an analysis failed. The built-in search never fails; external engines can.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AnalyzerError {
    /// Reading from or writing to the engine failed.
    #[error("engine I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The engine said something that breaks the protocol.
    #[error("engine protocol error: {0}")]
    Protocol(String),
    /// The engine did not answer in time: what it did not answer, and what came of it.
    #[error("engine timed out: {0}")]
    Timeout(String),
    /// The engine exited.
    #[error("engine terminated")]
    Terminated,
    /// The engine cannot play this position's variant.
    #[error("engine does not support this variant")]
    UnsupportedVariant,
    /// The engine could not be started or restarted (binary missing, handshake failed): the run
    /// cannot go on with it, and stops with exit code 69 (`crate::error::Error::Analysis`).
    #[error("engine unavailable: {0}")]
    Unavailable(#[source] StartError),
    /// The engine crashed at every try or hung on each of this many positions in a row, with no
    /// search that succeeded between them: it cannot search at all (a build for another CPU, a
    /// network file it loads only to search, a search that never ends), and the run stops with
    /// exit code 69.
    #[error("the engine crashed at every try or hung on each of the last {0} positions: it cannot be used")]
    FailsEverywhere(u32),
    /// The search was stopped because the run is being interrupted (Ctrl-C): the position has
    /// no result, and nothing should be made of it.
    #[error("the search was interrupted")]
    Interrupted,
    /// Move `index` of a line given to [`Analyzer::analyse_line`] is not legal (a caller's bug:
    /// lines come from pgnkit's own replay).
    #[error("move {index} of the line to analyse is illegal")]
    IllegalLine {
        /// 0-based index of the illegal move.
        index: usize,
    },
}

/// A start an interrupt ended is no engine that cannot be used: the position has no result.
impl From<StartError> for AnalyzerError {
    fn from(e: StartError) -> AnalyzerError {
        match e {
            StartError::Interrupted => AnalyzerError::Interrupted,
            e => AnalyzerError::Unavailable(e),
        }
    }
}

impl AnalyzerError {
    /// `true` when no later position can be analysed by this engine either: the run stops.
    pub const fn is_fatal(&self) -> bool {
        matches!(self, AnalyzerError::Unavailable(_) | AnalyzerError::FailsEverywhere(_))
    }
}

/// Something an engine did wrong that the analysis survived. Each is about the position analysed
/// last (or, before the first, about starting the engine).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AnalysisWarning {
    /// Lines of output that are not UCI, ignored: how many, and the first (cut to 200 bytes).
    Garbage {
        /// Number of such lines during the analysis.
        lines: u32,
        /// The first of them.
        first: String,
    },
    /// Lines of output longer than the client reads, each skipped as it came: how many, that
    /// bound in bytes, and the first one's beginning (cut to 200 bytes).
    LongLines {
        /// Number of such lines during the analysis.
        lines: u32,
        /// The bound those lines passed, in bytes.
        max: u64,
        /// The beginning of the first.
        first: String,
    },
    /// The engine's `bestmove` is not legal here, or is `(none)` where moves exist; the first
    /// move of its principal variation was used instead.
    IllegalBestMove(String),
    /// The principal variation was cut before its move `index` (0-based), not legal there.
    IllegalPv {
        /// Index of the first illegal move.
        index: usize,
        /// That move as the engine wrote it.
        text: String,
    },
    /// The final score came with no principal variation: the PV is the best move alone.
    ScoreWithoutPv,
    /// The engine died (exit, broken pipe); it was restarted and the position tried again.
    Restarted(String),
    /// An option the user asked for that the engine does not list: not sent.
    UnknownOption {
        /// The option asked for.
        name: String,
        /// The options the engine lists.
        available: Vec<String>,
    },
}

impl AnalysisWarning {
    /// A [`AnalysisWarning::Garbage`] for one line, cut to a readable length.
    pub fn garbage(line: &str) -> AnalysisWarning {
        AnalysisWarning::Garbage { lines: 1, first: shown(line) }
    }

    /// A [`AnalysisWarning::LongLines`] for one line over `max` bytes, of which `head` came.
    pub fn long_line(head: &str, max: u64) -> AnalysisWarning {
        AnalysisWarning::LongLines { lines: 1, max, first: shown(head) }
    }
}

/// `line` cut to [`GARBAGE_SHOWN`] bytes at most.
fn shown(line: &str) -> String {
    let mut end = line.len().min(GARBAGE_SHOWN);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    line[..end].to_string()
}

impl fmt::Display for AnalysisWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnalysisWarning::Garbage { lines: 1, first } => write!(f, "engine output is not UCI: {first:?}"),
            AnalysisWarning::Garbage { lines, first } => {
                write!(f, "{lines} lines of engine output are not UCI, the first: {first:?}")
            }
            AnalysisWarning::LongLines { lines: 1, max, first } => {
                write!(f, "engine output has a line longer than {max} bytes, skipped; it starts {first:?}")
            }
            AnalysisWarning::LongLines { lines, max, first } => {
                write!(
                    f,
                    "{lines} lines of engine output are longer than {max} bytes, skipped; the first starts {first:?}"
                )
            }
            AnalysisWarning::IllegalBestMove(text) => {
                write!(f, "engine's bestmove {text} is not legal; the first move of its PV was used")
            }
            AnalysisWarning::IllegalPv { index, text } => {
                write!(f, "engine's PV cut at its move {} ({text}), which is not legal", index + 1)
            }
            AnalysisWarning::ScoreWithoutPv => f.write_str("engine gave its score without a PV"),
            AnalysisWarning::Restarted(why) => write!(f, "engine restarted and the position retried: {why}"),
            AnalysisWarning::UnknownOption { name, available } => {
                write!(f, "engine has no option {name:?}; its options: {}", available.join(", "))
            }
        }
    }
}

/// Something that evaluates positions: the built-in [`crate::search::Searcher`] or an external
/// UCI engine.
pub trait Analyzer {
    /// Analyses `pos` within `limit`. `history` holds the Zobrist keys of the positions of the game
    /// before `pos`, oldest first (a trailing key equal to `pos`'s own is tolerated), so that
    /// repetitions count.
    fn analyse(&mut self, pos: &Position, history: &[u64], limit: &Limit) -> Result<Analysis, AnalyzerError>;

    /// Analyses the position reached by playing `moves` from `start`, the way a game's positions
    /// are analysed: an external engine gets the moves themselves (`position fen ... moves ...`),
    /// since Zobrist keys mean nothing to it, and so sees repetitions. `start` may be any earlier
    /// position of the game; the one after its last capture or pawn move keeps the line short.
    /// The default replays the line and calls [`Analyzer::analyse`] with the keys.
    fn analyse_line(
        &mut self,
        start: &Position,
        moves: &[Move],
        limit: &Limit,
    ) -> Result<Analysis, AnalyzerError> {
        let mut pos = *start;
        let mut history = Vec::with_capacity(moves.len());
        for (index, &m) in moves.iter().enumerate() {
            history.push(pos.zobrist());
            pos.play(m).map_err(|_| AnalyzerError::IllegalLine { index })?;
        }
        self.analyse(&pos, &history, limit)
    }

    /// The engine's name, for the `Annotator` tag.
    fn name(&self) -> &str;

    /// Forgets what was learnt from earlier positions (hash tables, heuristics): call between
    /// games so that results do not depend on which games came before.
    fn new_game(&mut self) {}

    /// The warnings gathered since the last call, oldest first: about the position analysed last
    /// (or about starting the engine). Engines that never misbehave have none.
    fn take_warnings(&mut self) -> Vec<AnalysisWarning> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_order_and_views() {
        let mut v = vec![
            Score::Mate(2),
            Score::Cp(10),
            Score::Mate(-1),
            Score::Mate(0),
            Score::Mate(1),
            Score::Cp(-5),
        ];
        v.sort();
        assert_eq!(
            v,
            [Score::Mate(0), Score::Mate(-1), Score::Cp(-5), Score::Cp(10), Score::Mate(2), Score::Mate(1)]
        );
        let s = PovScore::new(Color::Black, Score::Mate(3));
        assert_eq!(s.white(), Score::Mate(-3));
        assert_eq!(s.pov(Color::Black), Score::Mate(3));
        assert_eq!(PovScore::new(Color::Black, Score::Mate(0)).mated(), Some(Color::Black));
        assert_eq!(Score::Mate(-2).to_string(), "mate -2");
        assert_eq!(Score::Mate(3).to_cp(10_000), 9_997);
        assert!(Limit::nodes(5).is_reproducible() && !Limit::infinite().is_reproducible());
    }

    #[test]
    fn analyse_line_passes_the_keys_of_the_line() {
        use crate::notation::uci::parse_uci;
        use crate::search::Searcher;
        let start = Position::default();
        let (mut pos, mut keys, mut line) = (start, Vec::new(), Vec::new());
        for text in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3"] {
            let m = parse_uci(&pos, text.as_bytes()).unwrap();
            keys.push(pos.zobrist());
            line.push(m);
            pos.play_unchecked(m);
        }
        let limit = Limit::depth(4);
        let by_line = Searcher::with_hash_mb(1).analyse_line(&start, &line, &limit).unwrap();
        let by_keys = Searcher::with_hash_mb(1).analyse(&pos, &keys, &limit).unwrap();
        assert_eq!((by_line.score, by_line.pv), (by_keys.score, by_keys.pv));
        line.insert(2, line[0]);
        let e = Searcher::with_hash_mb(1).analyse_line(&start, &line, &limit).unwrap_err();
        assert!(matches!(e, AnalyzerError::IllegalLine { index: 2 }), "{e}");
        assert!(
            !e.is_fatal() && AnalyzerError::Unavailable(StartError::NotFound { path: "x".into() }).is_fatal()
        );
        assert_eq!(Searcher::new().take_warnings(), []);
    }
}
