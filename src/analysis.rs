//! Engine-neutral vocabulary shared by the built-in search ([`crate::search::Searcher`]) and
//! external UCI engines: how long to think ([`Limit`]), what a score means ([`Score`], [`PovScore`]),
//! what comes back ([`Analysis`]) and the [`Analyzer`] trait the annotate job drives.
//!
//! Scores are always from the point of view of the side to move, as in UCI; [`PovScore`] turns them
//! into White's view (the lichess `[%eval]` convention).
//!
//! ```
//! use pgnkit::analysis::{Limit, PovScore, Score};
//! use pgnkit::Color;
//! let limit = Limit::depth(8);
//! assert_eq!(limit.depth, Some(8));
//! // Black to move and winning by a pawn is -1.00 for White.
//! assert_eq!(PovScore::new(Color::Black, Score::Cp(100)).white(), Score::Cp(-100));
//! ```

use std::cmp::Ordering;
use std::fmt;
use std::time::Duration;

use crate::chess::{Color, Move, Position};

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
    /// The engine did not answer in time.
    #[error("engine timed out")]
    Timeout,
    /// The engine exited.
    #[error("engine terminated")]
    Terminated,
    /// The engine cannot play this position's variant.
    #[error("engine does not support this variant")]
    UnsupportedVariant,
}

/// Something that evaluates positions: the built-in [`crate::search::Searcher`] or an external
/// UCI engine.
pub trait Analyzer {
    /// Analyses `pos` within `limit`. `history` holds the Zobrist keys of the positions of the game
    /// before `pos`, oldest first (a trailing key equal to `pos`'s own is tolerated), so that
    /// repetitions count.
    fn analyse(&mut self, pos: &Position, history: &[u64], limit: &Limit) -> Result<Analysis, AnalyzerError>;

    /// The engine's name, for the `Annotator` tag.
    fn name(&self) -> &str;

    /// Forgets what was learnt from earlier positions (hash tables, heuristics): call between
    /// games so that results do not depend on which games came before.
    fn new_game(&mut self) {}
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
}
