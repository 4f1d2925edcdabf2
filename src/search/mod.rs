//! The built-in engine: iterative deepening over a principal variation search with aspiration
//! windows, quiescence, a transposition table, null-move pruning and late-move reductions, over the
//! hand-written evaluation of [`eval`].
//!
//! Invariants: with one thread and a node or depth limit the result (move, score, PV, node count)
//! depends only on the position, the history keys and the searcher's state (hash table and history
//! heuristics, both reset by [`Analyzer::new_game`]); the clock is consulted only under a time limit
//! or an infinite search. The inner loop does not allocate: move lists live on the stack, the key
//! stack, PV table and heuristics are allocated once.
//!
//! ```
//! use pgnkit::analysis::{Analyzer, Limit};
//! use pgnkit::search::Searcher;
//! use pgnkit::Position;
//! let mut engine = Searcher::with_hash_mb(1);
//! let analysis = engine.analyse(&Position::default(), &[], &Limit::depth(3)).unwrap();
//! assert!(analysis.best_move.is_some());
//! assert_eq!(analysis.depth, 3);
//! ```

mod alphabeta;
pub mod eval;
pub mod ordering;
pub mod tt;

use std::collections::TryReserveError;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::analysis::{Analysis, Analyzer, AnalyzerError, Limit, Score};
use crate::chess::{Move, MoveList, Position, Square};

use ordering::History;
use tt::TranspositionTable;

/// Deepest ply the search reaches (quiescence included).
pub const MAX_PLY: usize = 128;
/// Larger than any score.
pub const INF: i32 = 32_000;
/// The score of mate at the root; mate found at ply `p` scores `MATE - p`.
pub const MATE: i32 = 31_000;
/// Scores at least this large (in absolute value) are mates.
pub const MATE_BOUND: i32 = MATE - 2 * MAX_PLY as i32;
/// Default hash table size in megabytes.
pub const DEFAULT_HASH_MB: usize = 16;
/// A move that no position generates (from and to coincide), used as "none" in fixed arrays.
pub(crate) const NO_MOVE: Move = Move::normal(Square::A1, Square::A1);

/// How a search spends its `movetime`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimeUse {
    /// All of it, as UCI's `go movetime` asks ("search exactly x mseconds").
    #[default]
    Exact,
    /// A share of a clock: an iteration that would most likely not finish in what is left is
    /// not started, and the time saved goes to later moves.
    Budget,
}

/// Progress after each completed iteration (what a UCI `info` line reports).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    /// Completed depth in plies.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Score from the side to move's point of view.
    pub score: Score,
    /// Nodes so far.
    pub nodes: u64,
    /// Nodes per second so far.
    pub nps: u64,
    /// Time so far.
    pub time: Duration,
    /// Hash table use in permille.
    pub hashfull: u32,
    /// The principal variation.
    pub pv: Vec<Move>,
    /// Which of the [`Searcher::set_multipv`] best lines this is, from 1 (the best).
    pub multipv: u32,
}

/// Most lines [`Searcher::set_multipv`] takes (UCI's `MultiPV`, as Stockfish caps it).
pub const MAX_MULTIPV: usize = 256;

/// The built-in engine. One per thread; see the module docs for determinism.
pub struct Searcher {
    tt: TranspositionTable,
    stop: Arc<AtomicBool>,
    /// Asked with the stop flag: a run's interrupt (Ctrl-C), which ends the search and sets its
    /// answer aside ([`AnalyzerError::Interrupted`]).
    interrupted: Option<fn() -> bool>,
    history: Box<History>,
    killers: Box<[[Move; 2]; MAX_PLY + 2]>,
    pv: Box<[[Move; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    lmr: Box<[[u8; 64]; 64]>,
    /// Keys of the game before the root, then of the current line: `keys[root_index + ply]`.
    keys: Vec<u64>,
    root_index: usize,
    /// The root moves searched (`go searchmoves`); empty: every legal move.
    only: MoveList,
    nodes: u64,
    seldepth: usize,
    node_limit: u64,
    deadline: Option<Instant>,
    aborted: bool,
    /// The root move searched first in the current iteration: the move to play when a limit
    /// cuts the first iteration short before any root move is searched.
    root_first: Option<Move>,
    /// Best lines searched at each depth (UCI's `MultiPV`).
    multipv: usize,
}

impl Default for Searcher {
    fn default() -> Searcher {
        Searcher::new()
    }
}

impl std::fmt::Debug for Searcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Searcher").field("hash_mb", &self.tt.size_mb()).finish_non_exhaustive()
    }
}

impl Searcher {
    /// A searcher with the default hash size.
    pub fn new() -> Searcher {
        Searcher::with_hash_mb(DEFAULT_HASH_MB)
    }

    /// A searcher with a hash table of `mb` megabytes; aborts when the table cannot be allocated
    /// (see [`Searcher::try_with_hash_mb`]).
    pub fn with_hash_mb(mb: usize) -> Searcher {
        let mut lmr = Box::new([[0u8; 64]; 64]);
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (0.5 + (d as f64).ln() * (m as f64).ln() / 2.25) as u8;
            }
        }
        Searcher {
            tt: TranspositionTable::new(mb),
            stop: Arc::new(AtomicBool::new(false)),
            interrupted: None,
            history: Box::default(),
            killers: Box::new([[NO_MOVE; 2]; MAX_PLY + 2]),
            pv: Box::new([[NO_MOVE; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            lmr,
            keys: Vec::with_capacity(1024),
            root_index: 0,
            only: MoveList::new(),
            nodes: 0,
            seldepth: 0,
            node_limit: u64::MAX,
            deadline: None,
            aborted: false,
            root_first: None,
            multipv: 1,
        }
    }

    /// A searcher with a hash table of `mb` megabytes, or the allocator's refusal of the table
    /// (a size taken from a user, who gets an error instead of an abort).
    pub fn try_with_hash_mb(mb: usize) -> Result<Searcher, TryReserveError> {
        let mut searcher = Searcher::with_hash_mb(0);
        searcher.set_hash_mb(mb)?;
        Ok(searcher)
    }

    /// Replaces the hash table with one of `mb` megabytes (empty). When that much memory cannot
    /// be had, the table stays as it was and the allocator's refusal is returned.
    pub fn set_hash_mb(&mut self, mb: usize) -> Result<(), TryReserveError> {
        self.tt = TranspositionTable::try_new(mb)?;
        Ok(())
    }

    /// Searches the best `n` lines at each depth (UCI's `MultiPV`, 1 to [`MAX_MULTIPV`]): the
    /// second best is the best of the root moves but the first line's, and so on; each is told
    /// to `on_info` with its [`Info::multipv`]. The result is the first line's.
    pub fn set_multipv(&mut self, n: usize) {
        self.multipv = n.clamp(1, MAX_MULTIPV);
    }

    /// The lines searched at each depth (see [`Searcher::set_multipv`]).
    pub fn multipv(&self) -> usize {
        self.multipv
    }

    /// The hash table size in megabytes.
    pub fn hash_mb(&self) -> usize {
        self.tt.size_mb()
    }

    /// The flag that stops a running [`Searcher::search`] when set (from another thread). The
    /// search does not clear it: clear it before starting one.
    pub fn stop_handle(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    /// Ends every search once `interrupted` says `true`, looked at as often as the stop flag; an
    /// [`Analyzer::analyse`] then gives [`AnalyzerError::Interrupted`].
    pub fn set_interrupt(&mut self, interrupted: fn() -> bool) {
        self.interrupted = Some(interrupted);
    }

    fn is_interrupted(&self) -> bool {
        self.interrupted.is_some_and(|asked| asked())
    }

    /// Searches `pos` within `limit`, calling `on_info` after every completed iteration. `history`
    /// holds the keys of the game's earlier positions, oldest first. A `movetime` is used whole
    /// ([`TimeUse::Exact`]).
    pub fn search(
        &mut self,
        pos: &Position,
        history: &[u64],
        limit: &Limit,
        on_info: &mut dyn FnMut(&Info),
    ) -> Analysis {
        self.search_among(pos, history, limit, &[], TimeUse::Exact, on_info)
    }

    /// [`Searcher::search`] of the root moves in `only` alone (UCI's `go searchmoves`), spending
    /// the `movetime` as `time_use` says; the moves of `only` that are not legal are passed over, and
    /// when none is, every move is searched.
    pub fn search_among(
        &mut self,
        pos: &Position,
        history: &[u64],
        limit: &Limit,
        only: &[Move],
        time_use: TimeUse,
        on_info: &mut dyn FnMut(&Info),
    ) -> Analysis {
        let start = Instant::now();
        self.prepare(pos, history, limit, start);
        let mut root_moves = pos.legal_moves();
        self.only.clear();
        if root_moves.iter().any(|m| only.contains(m)) {
            root_moves.retain(|m| only.contains(m));
            self.only = root_moves.clone();
        }
        if root_moves.is_empty() {
            let score = if pos.is_check() { Score::Mate(0) } else { Score::Cp(0) };
            // Said as an iteration too (as Stockfish does): clients read the score from `info`.
            let time = start.elapsed();
            on_info(&Info {
                depth: 0,
                seldepth: 0,
                score,
                nodes: 0,
                nps: 0,
                time,
                hashfull: 0,
                pv: Vec::new(),
                multipv: 1,
            });
            return Analysis {
                score,
                depth: 0,
                seldepth: 0,
                nodes: 0,
                time: start.elapsed(),
                best_move: None,
                pv: Vec::new(),
            };
        }
        let max_depth = limit.depth.map_or(MAX_PLY as u32 - 8, |d| d.clamp(1, MAX_PLY as u32 - 8));
        let mut result = Analysis {
            score: Score::Cp(0),
            depth: 0,
            seldepth: 0,
            nodes: 0,
            time: Duration::ZERO,
            best_move: root_moves.first().copied(),
            pv: root_moves.first().copied().into_iter().collect(),
        };
        let lines = self.multipv.min(root_moves.len());
        // Each line's score at the last depth, its next aspiration window's centre.
        let mut last_scores = vec![0; lines];
        let mut score = 0;
        // The lines of the last depth searched whole, and of this one so far (MultiPV).
        let (mut whole, mut now): (Vec<Analysis>, Vec<Analysis>) = (Vec::new(), Vec::new());
        'deepening: for depth in 1..=max_depth {
            // Each line searches the root moves the better lines did not take.
            let mut taken = MoveList::new();
            now.clear();
            for (line, last) in last_scores.iter_mut().enumerate() {
                if lines > 1 {
                    self.only = root_moves.clone();
                    self.only.retain(|m| !taken.contains(m));
                }
                self.seldepth = 0;
                let line_score = self.aspiration(pos, depth as i32, *last);
                if self.aborted {
                    if depth == 1 && line == 0 {
                        result = self.first_iteration_cut_short(pos, line_score, start, &result);
                        on_info(&self.info(&result, 1));
                    }
                    self.complete_lines(&now, &whole, lines, on_info);
                    break 'deepening;
                }
                *last = line_score;
                let pv: Vec<Move> = self.pv[0][..self.pv_len[0]].to_vec();
                // The first line keeps the last depth's moves when this depth left no PV.
                let pv = if pv.is_empty() && line == 0 { result.pv.clone() } else { pv };
                let Some(&first) = pv.first() else { break };
                taken.push(first);
                let analysis = Analysis {
                    score: to_score(line_score),
                    depth,
                    seldepth: self.seldepth.max(depth as usize) as u32,
                    nodes: self.nodes,
                    time: start.elapsed(),
                    best_move: Some(first),
                    pv,
                };
                on_info(&self.info(&analysis, line as u32 + 1));
                if lines > 1 {
                    now.push(analysis.clone());
                }
                if line == 0 {
                    (result, score) = (analysis, line_score);
                }
            }
            std::mem::swap(&mut whole, &mut now);
            if self.nodes >= self.node_limit || self.stop.load(Ordering::Relaxed) || self.is_interrupted() {
                break;
            }
            // Another iteration would most likely not finish: its time is kept for later moves.
            if time_use == TimeUse::Budget
                && let Some(movetime) = limit.movetime
                && start.elapsed() * 2 > movetime
            {
                break;
            }
            // A forced mate found by a full-width search at this depth will not get shorter (the
            // other lines may yet: they go on). A search without a limit (`go infinite`, an
            // analysis) deepens on, as an analysing GUI waits for depths.
            if lines == 1
                && score.abs() >= MATE_BOUND
                && (MATE - score.abs()) < depth as i32
                && limit.depth.is_none()
                && *limit != Limit::infinite()
            {
                break;
            }
        }
        result.nodes = self.nodes;
        result.time = start.elapsed();
        result
    }

    /// The result of a first iteration that a limit cut short: the best of the root moves it
    /// searched, or else the move it would have searched first, by the static evaluation.
    fn first_iteration_cut_short(
        &self,
        pos: &Position,
        score: i32,
        start: Instant,
        fallback: &Analysis,
    ) -> Analysis {
        let pv: Vec<Move> = self.pv[0][..self.pv_len[0]].to_vec();
        let (depth, score, pv) = if pv.is_empty() {
            let guess = self.root_first.or(fallback.best_move);
            (0, eval::evaluate(pos), guess.into_iter().collect())
        } else {
            (1, score, pv)
        };
        Analysis {
            score: to_score(score),
            depth,
            seldepth: self.seldepth as u32,
            nodes: self.nodes,
            time: start.elapsed(),
            best_move: pv.first().copied(),
            pv,
        }
    }

    /// What `on_info` is told of `result`, line `multipv` of the depth.
    /// A MultiPV search stopped inside a depth whose first lines it had searched (`now`): the
    /// ranks after them are said again from the last whole depth's lines (`whole`) whose moves
    /// `now` does not hold, in their order, so that the last line of each rank is one of
    /// `lines` different moves (as Stockfish ends a stopped search), not a line of the depth
    /// before that repeats a move.
    fn complete_lines(
        &self,
        now: &[Analysis],
        whole: &[Analysis],
        lines: usize,
        on_info: &mut dyn FnMut(&Info),
    ) {
        if now.is_empty() {
            return;
        }
        let fresh = |a: &&Analysis| now.iter().all(|n| n.best_move != a.best_move);
        for (rank, a) in (now.len()..lines).zip(whole.iter().filter(fresh)) {
            on_info(&self.info(a, rank as u32 + 1));
        }
    }

    fn info(&self, result: &Analysis, multipv: u32) -> Info {
        Info {
            depth: result.depth,
            seldepth: result.seldepth,
            score: result.score,
            nodes: self.nodes,
            nps: (self.nodes as u128 * 1_000_000 / result.time.as_micros().max(1)) as u64,
            time: result.time,
            hashfull: self.tt.hashfull(),
            pv: result.pv.clone(),
            multipv,
        }
    }

    fn prepare(&mut self, pos: &Position, history: &[u64], limit: &Limit, start: Instant) {
        self.keys.clear();
        let history = match history.split_last() {
            Some((&last, rest)) if last == pos.zobrist() => rest,
            _ => history,
        };
        self.keys.extend_from_slice(history);
        self.root_index = self.keys.len();
        self.keys.resize(self.root_index + MAX_PLY + 2, 0);
        self.keys[self.root_index] = pos.zobrist();
        self.nodes = 0;
        self.seldepth = 0;
        self.node_limit = limit.nodes.unwrap_or(u64::MAX).max(1);
        // A movetime past what an `Instant` holds has no deadline.
        self.deadline = limit.movetime.and_then(|t| start.checked_add(t));
        self.aborted = false;
        self.root_first = None;
        self.killers.fill([NO_MOVE; 2]);
        self.pv_len = [0; MAX_PLY + 1];
        self.history.age();
        self.tt.new_search();
    }

    /// Called every node: `true` when the search must unwind.
    #[inline(always)]
    fn should_stop(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        // Polled at every depth, quiescence included: one iteration can take minutes.
        if self.nodes >= self.node_limit {
            self.aborted = true;
        } else if self.nodes & 1023 == 0 {
            if self.stop.load(Ordering::Relaxed) || self.is_interrupted() {
                self.aborted = true;
            } else if let Some(deadline) = self.deadline
                && Instant::now() >= deadline
            {
                self.aborted = true;
            }
        }
        self.aborted
    }
}

/// Internal score to the public one (mates in moves).
pub(crate) fn to_score(score: i32) -> Score {
    if score >= MATE_BOUND {
        Score::Mate((MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        Score::Mate(-(MATE + score) / 2)
    } else {
        Score::Cp(score)
    }
}

impl Analyzer for Searcher {
    fn analyse(&mut self, pos: &Position, history: &[u64], limit: &Limit) -> Result<Analysis, AnalyzerError> {
        self.stop.store(false, Ordering::Relaxed);
        let analysis = (!self.is_interrupted()).then(|| self.search(pos, history, limit, &mut |_| {}));
        // A search the interrupt cut short says less than its limit asked for.
        analysis.filter(|_| !self.is_interrupted()).ok_or(AnalyzerError::Interrupted)
    }

    fn name(&self) -> &str {
        concat!("pgnkit ", env!("CARGO_PKG_VERSION"))
    }

    fn new_game(&mut self) {
        self.tt.clear();
        self.history.clear();
    }
}

/// Depth that [`bench()`] searches each position to.
pub const BENCH_DEPTH: u32 = 7;

/// The positions of [`bench`]: openings, middlegames, endgames, Chess960 and Crazyhouse.
const BENCH_POSITIONS: [(&str, crate::chess::Variant); 8] = {
    use crate::chess::Variant::{Chess960, Crazyhouse, Standard};
    [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Standard),
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", Standard),
        ("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8", Standard),
        ("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1", Standard),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", Standard),
        ("6k1/5p2/6p1/8/7p/8/6PP/6K1 b - - 0 1", Standard),
        ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", Chess960),
        ("r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R/ b KQkq - 0 1", Crazyhouse),
    ]
};

/// Nodes and time of a bench run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchReport {
    /// Total nodes searched (the bench signature).
    pub nodes: u64,
    /// Total time.
    pub time: Duration,
}

impl BenchReport {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        (self.nodes as u128 * 1_000_000 / self.time.as_micros().max(1)) as u64
    }
}

/// Searches the fixed bench positions to `depth` with a fresh 16 MB table per position.
pub fn run_bench(depth: u32) -> BenchReport {
    let mut searcher = Searcher::new();
    let mut nodes = 0;
    let start = Instant::now();
    for (fen, variant) in BENCH_POSITIONS {
        let pos = crate::notation::fen::parse_fen(fen, variant).expect("bench FENs are valid");
        searcher.new_game();
        nodes += searcher.search(&pos, &[], &Limit::depth(depth), &mut |_| {}).nodes;
    }
    BenchReport { nodes, time: start.elapsed() }
}

/// The bench signature: total nodes of [`run_bench`] at [`BENCH_DEPTH`]. Any change to search,
/// evaluation or move generation that changes it should be deliberate.
pub fn bench() -> u64 {
    run_bench(BENCH_DEPTH).nodes
}

#[cfg(test)]
mod tests;

/// A standard position from a FEN known to be valid (tests only).
#[cfg(test)]
pub(crate) fn test_position(fen: &str) -> Position {
    crate::notation::fen::parse_fen(fen, crate::chess::Variant::Standard).expect("valid test FEN")
}
