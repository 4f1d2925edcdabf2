//! The evaluation of a game's mainline positions: game endings from the rules (never sent), then
//! the cache, then the engine (its result stored in the cache). What the engine did wrong comes
//! back as diagnostics with the game and the ply; a position the engine could not evaluate is
//! left without an evaluation (a diagnostic of kind `unevaluated`), and the game goes on. An
//! engine that cannot be restarted stops the run (exit code 69), and so does one that crashed at
//! every try or hung on [`CRASH_STREAK`] positions in a row across the pool ([`Crashes`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use super::collect::Mainline;
use super::spool::Spool;
use crate::analysis::cache::{Cache, EngineId};
use crate::analysis::{Analysis, AnalysisWarning, Analyzer, AnalyzerError, Limit, PovScore, Score};
use crate::chess::outcome::repetition_window;
use crate::chess::{Position, Termination};
use crate::engine::client::MAX_PLIES;
use crate::error::{Diagnostic, Error, Kind, Severity};
use crate::notation::fen::{EpMode, write_fen};
use crate::pgn::reader::Limits;
use crate::pipeline::Cancel;
use crate::pipeline::counter::Counter;
use crate::pipeline::stats::Stats;

/// What is known of one mainline position.
#[derive(Clone, Debug, Default)]
pub struct Evaluated {
    /// The evaluation from White's view (`None`: none could be had).
    pub white: Option<Score>,
    /// The engine's analysis (from the engine or the cache); `None` for a game ending, a
    /// failure, or an evaluation read from the game. Boxed: most positions of a long game have
    /// none (`--from-evals`), and a position's state stays a few words.
    pub analysis: Option<Box<Analysis>>,
    /// The depth of an evaluation read from the game.
    pub game_depth: Option<u32>,
}

/// The evaluation the rules give a finished position: checkmate (`Mate(0)`) or stalemate (0).
pub fn from_rules(pos: &Position) -> Option<Score> {
    pos.mate_or_stalemate().map(|o| match o.termination {
        Termination::Checkmate => Score::Mate(0),
        _ => Score::Cp(0),
    })
}

/// A diagnostic about `game` (`None`: before any game) at the position after ply `ply`.
pub(super) fn diagnostic(
    game: Option<&Mainline>,
    ply: Option<u32>,
    kind: Kind,
    message: String,
) -> Diagnostic {
    let mut d = Diagnostic { kind, severity: kind.severity(), ply, message, ..Diagnostic::default() };
    if let Some(g) = game {
        d.game = g.number;
        d.offset = g.offset;
        d.line = g.line;
        d.column = 1;
        d.white = g.white.clone();
        d.black = g.black.clone();
        if let Some(pos) = ply.and_then(|p| g.position(p as usize)) {
            let mut fen = String::new();
            write_fen(&pos, EpMode::Legal, &mut fen);
            d.fen = Some(fen);
        }
    }
    d
}

/// An engine warning as a diagnostic.
pub(super) fn warning_diagnostic(game: Option<&Mainline>, ply: Option<u32>, message: String) -> Diagnostic {
    diagnostic(game, ply, Kind::EngineWarning, format!("engine: {message}"))
}

/// A game's engine diagnostics: each counted, the first [`Limits::MAX_PROBLEMS`] kept and then one
/// `unreported` warning, as the replay does: an engine failing on every position of a long game
/// gives a bounded output.
struct Shown<'d> {
    out: &'d mut Vec<Diagnostic>,
    n: u32,
}

impl Shown<'_> {
    fn push(&mut self, d: Diagnostic, stats: &mut Stats) {
        stats.count(&d);
        self.n = self.n.saturating_add(1);
        if self.n <= Limits::MAX_PROBLEMS {
            self.out.push(d);
        } else if self.n == Limits::MAX_PROBLEMS + 1 {
            let message = crate::error::unreported_message("engine ");
            self.out.push(Diagnostic { kind: Kind::Unreported, severity: Severity::Warning, message, ..d });
        }
    }
}

/// Where in the game a position stands, for messages.
fn place(ply: u32) -> String {
    if ply == 0 { "the start position".to_string() } else { format!("the position after ply {ply}") }
}

/// Where the line that leads to position `ply` starts, given the last position up to it reached
/// by a capture or a pawn move (its halfmove clock is 0; `None`: none, always in crazyhouse):
/// there, or the game's start; at most the UCI client's [`MAX_PLIES`] moves back.
fn line_start(last_reset: Option<usize>, ply: usize) -> usize {
    let earliest = ply.saturating_sub(MAX_PLIES);
    last_reset.filter(|&r| r >= earliest).unwrap_or(earliest)
}

/// Positions in a row on which the engines crashed at every try or hung, with no search that
/// succeeded between them, that stop a run: 20 (60 crashed processes, or 20 searches past their
/// deadline) lose little to an engine that cannot search at all, and an engine that fails on
/// positions of one kind only (a rare ending) seldom meets 20 in a row across a pool with none
/// it can search between them.
pub const CRASH_STREAK: u32 = 20;

/// The positions in a row, across the analysts of a run (their pool of engines), on which the
/// engine crashed at every try or hung (an engine hanging on every search would otherwise cost
/// its deadline on every position of the input): a search that succeeds ends the streak, other
/// failures (nonsense output) leave it as it is.
#[derive(Debug, Default)]
pub struct Crashes(AtomicU32);

impl Crashes {
    /// `result` once counted: [`AnalyzerError::FailsEverywhere`] for the crash or hang that makes
    /// the streak [`CRASH_STREAK`] long.
    fn count(&self, result: Result<Analysis, AnalyzerError>) -> Result<Analysis, AnalyzerError> {
        match &result {
            Ok(_) => self.0.store(0, Ordering::Relaxed),
            Err(AnalyzerError::Terminated | AnalyzerError::Timeout(_))
                if self.0.fetch_add(1, Ordering::Relaxed) + 1 >= CRASH_STREAK =>
            {
                return Err(AnalyzerError::FailsEverywhere(CRASH_STREAK));
            }
            Err(_) => {}
        }
        result
    }
}

/// One worker's engine with the cache and the limit.
pub struct Analyst {
    engine: Box<dyn Analyzer + Send>,
    id: EngineId,
    cache: Option<Arc<Cache>>,
    limit: Limit,
    keep_hash: bool,
    crashes: Arc<Crashes>,
}

impl Analyst {
    /// `engine` known to the cache as `id`, analysing under `limit`; with `keep_hash` its hash
    /// is cleared once per game instead of before every position. `crashes` is the run's streak,
    /// shared by its analysts.
    pub fn new(
        engine: Box<dyn Analyzer + Send>,
        id: EngineId,
        cache: Option<Arc<Cache>>,
        limit: Limit,
        keep_hash: bool,
        crashes: Arc<Crashes>,
    ) -> Analyst {
        Analyst { engine, id, cache, limit, keep_hash, crashes }
    }

    /// The engine's name.
    pub fn name(&self) -> &str {
        self.engine.name()
    }

    /// The engine's warnings about the last position, as diagnostics.
    fn warnings(&mut self, game: &Mainline, ply: u32, out: &mut Shown<'_>, stats: &mut Stats) {
        for w in self.engine.take_warnings() {
            out.push(warning_diagnostic(Some(game), Some(ply), format!("{}: {w}", place(ply))), stats);
        }
    }

    /// Evaluates every position of `game`'s mainline, in order. `Ok(None)` when the run was
    /// cancelled meanwhile (the game's output is dropped).
    pub(super) fn game(
        &mut self,
        game: &Mainline,
        cancel: &Cancel<'_>,
        diagnostics: &mut Vec<Diagnostic>,
        stats: &mut Stats,
        held_bytes: usize,
    ) -> Result<Option<Spool<'static, Evaluated>>, Error> {
        let mut out = Spool::new(&[], held_bytes);
        if game.start.is_none() {
            return Ok(Some(out));
        }
        if self.keep_hash {
            self.engine.new_game();
        }
        let mut unsupported = false;
        let mut shown = Shown { out: diagnostics, n: 0 };
        // The position the engine's line starts from and its ply, and the last position with a
        // halfmove clock of 0.
        let (mut root, mut last_reset): (Option<(usize, Position)>, _) = (None, None);
        for (ply, pos) in game.positions().enumerate() {
            let pos = &pos;
            // A capture or pawn move: no earlier position can occur again (never so in crazyhouse,
            // where a captured piece comes back from the pocket).
            if repetition_window(pos) == 0 {
                last_reset = Some(ply);
            }
            if cancel.is_set() {
                return Ok(None);
            }
            stats.add(Counter::Positions, 1);
            let ply = ply as u32;
            if let Some(score) = from_rules(pos) {
                stats.add(Counter::FromRules, 1);
                let white = PovScore::new(pos.turn(), score).white();
                out.push(Evaluated { white: Some(white), ..Evaluated::default() });
                continue;
            }
            // The engine sees the moves since the last capture or pawn move (repetitions; in
            // crazyhouse the last MAX_PLIES), and nothing before: the cache key holds exactly what the evaluation depends on.
            let start = line_start(last_reset, ply as usize);
            let from = match root {
                Some((at, p)) if at == start => p,
                // `start` is at most `ply`: in the mainline.
                _ => game.position(start).unwrap_or(*pos),
            };
            root = Some((start, from));
            let line = &game.moves[start..ply as usize];
            let cached = match &self.cache {
                Some(c) => {
                    stats.add(Counter::CacheLookups, 1);
                    c.lookup_line(&from, line, &self.id, &self.limit)?
                }
                None => None,
            };
            let analysis = match cached {
                Some(a) => {
                    stats.add(Counter::CacheHits, 1);
                    Some(a)
                }
                None if unsupported => None,
                None => {
                    if !self.keep_hash {
                        self.engine.new_game();
                    }
                    let asked = Instant::now();
                    let result = self.engine.analyse_line(&from, line, &self.limit);
                    count_search(&result, asked, stats);
                    let result = self.crashes.count(result);
                    self.warnings(game, ply, &mut shown, stats);
                    match result {
                        Ok(a) => {
                            if let Some(c) = &self.cache {
                                c.store_line(&from, line, &self.id, &self.limit, &a)?;
                            }
                            Some(a)
                        }
                        Err(e) if e.is_fatal() => return Err(e.into()),
                        // Ctrl-C stopped the search: the game is dropped as the run ends.
                        Err(AnalyzerError::Interrupted) => return Ok(None),
                        Err(e) => {
                            unsupported = matches!(e, AnalyzerError::UnsupportedVariant);
                            match e {
                                AnalyzerError::Timeout(_) => stats.add(Counter::TimedOut, 1),
                                AnalyzerError::Terminated => stats.add(Counter::Crashed, 1),
                                _ => {}
                            }
                            let message = format!("{} was left without an evaluation: {e}", place(ply));
                            shown.push(diagnostic(Some(game), Some(ply), Kind::Unevaluated, message), stats);
                            None
                        }
                    }
                }
            };
            if analysis.is_none() {
                stats.add(Counter::Unevaluated, 1);
            }
            let white = analysis.as_ref().map(|a| PovScore::new(pos.turn(), a.score).white());
            out.push(Evaluated { white, analysis: analysis.map(Box::new), game_depth: None });
        }
        Ok(Some(out))
    }
}

impl Analyst {
    /// Analyses `pos` alone (an EPD record: no moves before it), through the cache, counting
    /// cache hits, analyses and the engine's time in `stats`. `Ok(Err)`: the engine failed on
    /// it; the warnings it gave are returned too.
    pub(super) fn position(
        &mut self,
        pos: &Position,
        stats: &mut Stats,
    ) -> Result<(Result<Analysis, AnalyzerError>, Vec<AnalysisWarning>), Error> {
        if let Some(c) = &self.cache {
            stats.add(Counter::CacheLookups, 1);
            if let Some(a) = c.lookup(pos, &self.id, &self.limit)? {
                stats.add(Counter::CacheHits, 1);
                return Ok((Ok(a), Vec::new()));
            }
        }
        self.engine.new_game();
        let asked = Instant::now();
        let result = self.engine.analyse(pos, &[], &self.limit);
        count_search(&result, asked, stats);
        let result = self.crashes.count(result);
        let warnings = self.engine.take_warnings();
        match result {
            Ok(a) => {
                if let Some(c) = &self.cache {
                    c.store(pos, &self.id, &self.limit, &a)?;
                }
                Ok((Ok(a), warnings))
            }
            Err(e) if e.is_fatal() => Err(e.into()),
            Err(e) => Ok((Err(e), warnings)),
        }
    }
}

/// Counts a search asked for at `asked` that gave `result`: a position sent to the engine and
/// the time it took. An engine refuses a variant it cannot play before anything is sent.
fn count_search(result: &Result<Analysis, AnalyzerError>, asked: Instant, stats: &mut Stats) {
    if !matches!(result, Err(AnalyzerError::UnsupportedVariant)) {
        stats.add(Counter::Analysed, 1);
        stats.add(Counter::EngineMicroseconds, asked.elapsed().as_micros() as u64);
    }
}

/// Whether the engine evaluated none of a game's positions though some needed it (an engine
/// that cannot play its variant, one that failed on every position): nothing to annotate with.
pub(super) fn none_evaluated(evals: &Spool<'_, Evaluated>) -> std::io::Result<bool> {
    let (mut c, mut i, mut missing) = (evals.cursor(), 0, false);
    while let Some(e) = c.get(i)? {
        if e.analysis.is_some() {
            return Ok(false);
        }
        missing |= e.white.is_none();
        i += 1;
    }
    Ok(missing)
}

/// The warning for a game `--from-evals` writes as read: it holds no `[%eval]`.
pub(super) fn no_evals(game: &Mainline) -> Diagnostic {
    let message = "no [%eval] in the game: --from-evals has nothing to judge (a PGN output has it as read)";
    diagnostic(Some(game), None, Kind::NoEvals, message.to_string())
}

/// The evaluations a game gives itself (`--from-evals`), taken from it: none for the start
/// position, then the `[%eval]` after each move; a game ending from the rules when the game
/// gives none.
pub(super) fn from_game(game: &mut Mainline, stats: &mut Stats) -> Spool<'static, Evaluated> {
    stats.add(Counter::Positions, game.position_count() as u64);
    let mut evals = std::mem::take(&mut game.game_evals);
    if evals.is_empty() {
        evals.push(Evaluated::default());
    }
    // The rules score a finished position only, and only the last can be one: no move follows
    // it. The last value pushed is in memory, whatever the game's length.
    let last = evals.len() - 1;
    if let Some(e) = evals.tail().last_mut()
        && e.white.is_none()
        && last > 0
        && let Some(pos) = game.position(last)
    {
        e.white = from_rules(&pos).map(|s| PovScore::new(pos.turn(), s).white());
    }
    evals
}
