//! An external UCI engine as an [`Analyzer`]: [`UciEngine`] runs the program, speaks UCI to it
//! (the UCI protocol, Stefan Meyer-Kahlen's `engine-interface.txt`) and survives what engines do wrong.
//!
//! One position, by default: `ucinewgame` and `isready` (a cleared hash, so that under a node or
//! depth limit the result is a function of the position, the engine, its options and the limit),
//! `position fen ... moves ...` (the moves since the last capture or pawn move; `line.rs` says
//! why), `go`, the `info` lines, `bestmove`. With [`EngineConfig::keep_hash`] the hash lives
//! through a game: `ucinewgame` only after [`Analyzer::new_game`]. Chess960 positions set
//! `UCI_Chess960` and write castling as king takes rook; Crazyhouse positions need an engine that
//! lists `UCI_Variant` with `crazyhouse`, else [`AnalyzerError::UnsupportedVariant`].
//!
//! Faults: a crash (end of output, broken pipe) restarts the engine and tries the position again,
//! at most [`EngineConfig::retries`] times, then gives [`AnalyzerError::Terminated`] for that
//! position; a search past its deadline is sent `stop`, and an engine that does not answer that
//! either is killed with its process group and restarted for the next position; both give
//! [`AnalyzerError::Timeout`]. The deadline follows the engine's pace ([`Timeouts::deadline`]),
//! so that a hung engine costs seconds, not a minute: for its first searches under a limit the
//! engine is asked `isready` after a few seconds (silence is a hang), then a search under a node
//! limit is hung at many times the slowest so far; under a depth limit an overdue engine is asked
//! `isready` and waited for while it answers. An engine that cannot be started or restarted
//! is a [`StartError`] (exit code 69) or [`AnalyzerError::Unavailable`]. What was repaired in the
//! engine's output comes back through [`Analyzer::take_warnings`].
//!
//! ```no_run
//! use pgnkit::analysis::{Analyzer, Limit};
//! use pgnkit::engine::client::{EngineConfig, UciEngine};
//! use pgnkit::Position;
//! let mut engine = UciEngine::start(EngineConfig::new("/usr/games/stockfish"))?;
//! let analysis = engine.analyse_line(&Position::default(), &[], &Limit::nodes(100_000))?;
//! println!("{}: {} {:?}", engine.name(), analysis.score, analysis.best_move);
//! for warning in engine.take_warnings() {
//!     eprintln!("warning: {warning}");
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod deadline;
mod fault;
mod handshake;
mod line;
mod output;
mod process;
#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub use deadline::{Basis, Deadline, MIN_NPS, MULTIPLE, Pace, WARM_UP};
pub use fault::{StartError, Timeouts};
pub use handshake::{EngineId, UciOption};
pub use line::MAX_PLIES;
pub use output::{MAX_CP, MAX_MATE};

use crate::analysis::{Analysis, AnalysisWarning, Analyzer, AnalyzerError, Limit, Score};
use crate::chess::{CastlingMode, Move, Position, Variant};

use deadline::Secs;
use fault::Fault;
use handshake::{Failed, handshake, plan_options, readyok, setoption, wait_ready};
use line::Line;
use output::Collector;
use process::{Process, Read, status_text};

/// How long a dead engine's stderr is waited for, to quote its last words.
const STDERR_WAIT: Duration = Duration::from_millis(200);

/// How many times a position is tried again after the engine crashed on it, by default.
pub const DEFAULT_RETRIES: u32 = 2;

/// How often a running search looks at [`EngineConfig::interrupted`].
pub const INTERRUPT_POLL: Duration = Duration::from_millis(50);

/// How to run an engine.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// The program (a bare name is looked up on `PATH`).
    pub path: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Options to set, in order (`--engine-option NAME=VALUE`). `Threads` is 1 unless set here.
    pub options: Vec<(String, String)>,
    /// `Hash` in megabytes (`--hash`), unless `options` sets it.
    pub hash_mb: Option<u32>,
    /// Keep the hash through a game (`ucinewgame` only at [`Analyzer::new_game`]): stronger,
    /// but a position's result then depends on the positions analysed before it.
    pub keep_hash: bool,
    /// How long each step may take.
    pub timeouts: Timeouts,
    /// What the searches so far have shown, which the deadlines follow; clones share it, so the
    /// engines of a pool started from one configuration learn together.
    pub pace: Pace,
    /// How many times a position is tried again after a crash.
    pub retries: u32,
    /// Asked at least every [`INTERRUPT_POLL`] while a search runs or the engine is waited for
    /// (`uciok`, `readyok`): once it says `true` (Ctrl-C), a search is sent `stop` and the
    /// position gives [`AnalyzerError::Interrupted`], as does a start, which no engine is given
    /// again ([`StartError::Interrupted`] for the first).
    pub interrupted: Option<fn() -> bool>,
}

impl EngineConfig {
    /// `path` with no arguments, no options, a cleared hash per position, the default timeouts
    /// and retries.
    pub fn new(path: impl Into<PathBuf>) -> EngineConfig {
        EngineConfig {
            path: path.into(),
            args: Vec::new(),
            options: Vec::new(),
            hash_mb: None,
            keep_hash: false,
            timeouts: Timeouts::default(),
            pace: Pace::new(),
            retries: DEFAULT_RETRIES,
            interrupted: None,
        }
    }

    /// The `Threads` the options ask for (the last, its name in any case), when more than one:
    /// threads that share a hash search differently from run to run, so the results are not a
    /// function of the position.
    pub fn threads(&self) -> Option<u32> {
        let (_, value) = self.options.iter().rev().find(|(n, _)| n.eq_ignore_ascii_case("Threads"))?;
        value.parse().ok().filter(|&n: &u32| n > 1)
    }

    /// Reads `NAME=VALUE` (the value may be empty, as for a `button`); names keep their spaces.
    /// One that holds a line break is refused.
    pub fn parse_option(arg: &str) -> Result<(String, String), String> {
        // A line break would end the `setoption` line, and what follows would be a command.
        if arg.contains(['\n', '\r']) {
            return Err(format!("engine option {arg:?} holds a line break"));
        }
        match arg.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => {
                Ok((name.trim().to_string(), value.trim().to_string()))
            }
            _ => Err(format!("engine option {arg:?} is not NAME=VALUE")),
        }
    }
}

/// A running UCI engine; see the module docs. Dropping it sends `quit` and kills what is left.
pub struct UciEngine {
    config: EngineConfig,
    process: Option<Process>,
    id: EngineId,
    name: String,
    /// The `setoption`s sent after every start, in order.
    options: Vec<(String, String)>,
    /// `UCI_Chess960` as last set in this process (`None`: not set yet).
    chess960: Option<bool>,
    /// `UCI_Variant` as last set in this process.
    variant: Option<&'static str>,
    /// Send `ucinewgame` before the next search (with `keep_hash`).
    new_game: bool,
    warnings: Vec<AnalysisWarning>,
    restarts: u64,
}

impl std::fmt::Debug for UciEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UciEngine")
            .field("name", &self.name)
            .field("path", &self.config.path)
            .field("running", &self.process.is_some())
            .field("restarts", &self.restarts)
            .finish_non_exhaustive()
    }
}

impl UciEngine {
    /// Starts the engine: the handshake, the options (warnings for those it does not list, from
    /// [`Analyzer::take_warnings`]), `isready`.
    pub fn start(config: EngineConfig) -> Result<UciEngine, StartError> {
        let (process, id) = launch(&config)?;
        let (options, warnings) = plan_options(&id, &config.options, config.hash_mb);
        let name = id.name.clone().unwrap_or_else(|| {
            config
                .path
                .file_name()
                .map_or_else(|| config.path.display().to_string(), |n| n.to_string_lossy().into())
        });
        let mut engine = UciEngine {
            config,
            process: None,
            id,
            name,
            options,
            chess960: None,
            variant: None,
            new_game: true,
            warnings,
            restarts: 0,
        };
        engine.process = Some(engine.configure(process)?);
        Ok(engine)
    }

    /// What the engine said about itself: `id name`, `id author`, its options.
    pub fn id(&self) -> &EngineId {
        &self.id
    }

    /// The options sent after every start, in order, as (the engine's name for it, value): with
    /// the engine's name and the limit, what an evaluation depends on.
    pub fn options_sent(&self) -> &[(String, String)] {
        &self.options
    }

    /// How the engine is run.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// How many times the engine was started again after a crash or a hang.
    pub fn restarts(&self) -> u64 {
        self.restarts
    }

    /// Sends the options and waits for `readyok`.
    fn configure(&self, mut process: Process) -> Result<Process, StartError> {
        let sent =
            self.options.iter().try_for_each(|(name, value)| process.send(&setoption(&self.id, name, value)));
        let ready = sent
            .map_err(|_| Read::Eof)
            .and_then(|()| wait_ready(&mut process, self.config.timeouts.ready, self.config.interrupted));
        match ready {
            Ok(()) => Ok(process),
            // Its drop kills it.
            Err(Read::Interrupted) => Err(StartError::Interrupted),
            Err(end) => {
                let failed = match end {
                    Read::Timeout => {
                        let ready = self.config.timeouts.ready.as_secs_f64();
                        Failed { what: format!("no readyok within {ready:.1} s"), closed_before: None }
                    }
                    _ => Failed { what: "it exited before readyok".into(), closed_before: Some("readyok") },
                };
                Err(handshake_error(&self.config, process, failed))
            }
        }
    }

    /// Starts the engine again after a crash or a hang.
    fn restart(&mut self) -> Result<(), AnalyzerError> {
        let (process, _) = launch(&self.config)?;
        self.process = Some(self.configure(process)?);
        self.restarts += 1;
        self.chess960 = None;
        self.variant = None;
        self.new_game = true;
        Ok(())
    }

    /// The `UCI_Chess960`/`UCI_Variant` settings `line` needs that the engine does not have yet.
    fn variant_options(&self, line: &Line) -> Result<Vec<(String, &'static str)>, AnalyzerError> {
        let mut wanted = Vec::new();
        let chess960 = line.root.castling_mode().is_chess960();
        match self.id.option("UCI_Chess960") {
            Some(o) if self.chess960 != Some(chess960) => {
                wanted.push((o.name.clone(), if chess960 { "true" } else { "false" }))
            }
            Some(_) => {}
            // Without castling rights a Chess960 position is one any engine reads.
            None if chess960 && line.start.castling_rights().any() => {
                return Err(AnalyzerError::UnsupportedVariant);
            }
            None => {}
        }
        let variant = match line.root.variant() {
            Variant::Crazyhouse => "crazyhouse",
            Variant::Standard | Variant::Chess960 => "chess",
        };
        match self.id.option("UCI_Variant") {
            Some(o) if o.has_var(variant) && self.variant != Some(variant) => {
                wanted.push((o.name.clone(), variant))
            }
            Some(o) if o.has_var(variant) => {}
            _ if variant == "chess" => {}
            _ => return Err(AnalyzerError::UnsupportedVariant),
        }
        Ok(wanted)
    }

    /// Analyses `line.root`, restarting and retrying after crashes.
    fn run(&mut self, line: &Line, limit: &Limit) -> Result<Analysis, AnalyzerError> {
        if line.root.legal_moves().is_empty() {
            // Mate or stalemate: the rules say it all, and engines answer such positions oddly.
            let score = if line.root.is_check() { Score::Mate(0) } else { Score::Cp(0) };
            let (depth, seldepth, nodes, time) = (0, 0, 0, Duration::ZERO);
            return Ok(Analysis { score, depth, seldepth, nodes, time, best_move: None, pv: Vec::new() });
        }
        // Refused before anything is sent or restarted.
        self.variant_options(line)?;
        let mut crashes = 0;
        loop {
            if self.process.is_none() {
                // An interrupted run starts no engine again.
                if self.interrupted() {
                    return Err(AnalyzerError::Interrupted);
                }
                self.restart()?;
            }
            // Again after a restart: a new engine has its options' defaults.
            let variant_options = self.variant_options(line)?;
            match self.attempt(line, &variant_options, limit) {
                Ok(analysis) => return Ok(analysis),
                Err(Fault::Crashed(what)) => {
                    let why = self.process.take().map_or(what.clone(), |mut p| crash_report(&what, &mut p));
                    crashes += 1;
                    if crashes > self.config.retries {
                        return Err(AnalyzerError::Terminated);
                    }
                    self.warnings.push(AnalysisWarning::Restarted(why));
                }
                Err(Fault::Hung(why)) => {
                    self.process = None;
                    // Killed when it ignored the `stop` of an interrupt, or as one came: the
                    // position is not a timeout, and the run goes to no next one.
                    return Err(if self.interrupted() {
                        AnalyzerError::Interrupted
                    } else {
                        AnalyzerError::Timeout(why)
                    });
                }
                Err(Fault::Stopped(why)) => return Err(AnalyzerError::Timeout(why)),
                Err(Fault::Interrupted) => return Err(AnalyzerError::Interrupted),
                Err(Fault::Failed(e)) => return Err(e),
            }
        }
    }

    /// Whether the run is being interrupted ([`EngineConfig::interrupted`]).
    fn interrupted(&self) -> bool {
        self.config.interrupted.is_some_and(|asked| asked())
    }

    /// One try at `line.root` with the running engine.
    fn attempt(
        &mut self,
        line: &Line,
        variant_options: &[(String, &'static str)],
        limit: &Limit,
    ) -> Result<Analysis, Fault> {
        let timeouts = self.config.timeouts;
        let Some(p) = self.process.as_mut() else { unreachable!("run starts the engine") };
        let broken = |e: std::io::Error| Fault::Crashed(format!("writing to it failed: {e}"));
        let mut ready = false;
        if !variant_options.is_empty() {
            // Another variant than the last position's: a new game for the engine.
            self.new_game = true;
        }
        for (name, value) in variant_options {
            p.send(&format!("setoption name {name} value {value}")).map_err(broken)?;
            ready = true;
        }
        if let Some(&(_, value)) =
            variant_options.iter().find(|(name, _)| name.eq_ignore_ascii_case("UCI_Chess960"))
        {
            self.chess960 = Some(value == "true");
        }
        if let Some(&(_, value)) =
            variant_options.iter().find(|(name, _)| name.eq_ignore_ascii_case("UCI_Variant"))
        {
            self.variant = Some(value);
        }
        if !self.config.keep_hash || self.new_game {
            p.send("ucinewgame").map_err(broken)?;
            self.new_game = false;
            ready = true;
        }
        if ready {
            match wait_ready(p, timeouts.ready, self.config.interrupted) {
                Ok(()) => {}
                Err(Read::Timeout) => {
                    return Err(Fault::Hung(format!(
                        "no readyok within {:.1} s before the search: the engine was killed",
                        timeouts.ready.as_secs_f64()
                    )));
                }
                // It still owes the `readyok`, which would answer the next `isready` too early.
                Err(Read::Interrupted) => {
                    self.process = None;
                    return Err(Fault::Interrupted);
                }
                Err(_) => return Err(Fault::Crashed("it exited before readyok".into())),
            }
        }
        let mode = CastlingMode::from_chess960(self.chess960 == Some(true));
        p.send_all(&[&line.command(mode), &go_command(limit)]).map_err(broken)?;
        let started = Instant::now();
        let rule = self.config.pace.deadline(&timeouts, limit);
        let hung_at = rule.hung.map(|h| started + h);
        // When the engine is asked `isready` next, if it is asked at all.
        let mut ask_at = rule.ask.map(|a| started + a).filter(|&a| hung_at.is_none_or(|h| a < h));
        let mut deadline = ask_at.into_iter().chain(hung_at).min().expect("a search is asked about or hung");
        // Why `stop` was sent, once it was.
        let mut stopped: Option<String> = None;
        let mut interrupted = false;
        // An `isready` sent during the search whose `readyok` has not come yet.
        let mut asked = false;
        // `stop` was sent because that `readyok` did not come.
        let mut deaf = false;
        let interrupt = self.config.interrupted;
        let mut collector = Collector::default();
        loop {
            // Woken at least every INTERRUPT_POLL to look at the interrupt, until it is seen.
            let wake = match interrupt {
                Some(_) if !interrupted => deadline.min(Instant::now() + INTERRUPT_POLL),
                _ => deadline,
            };
            match p.read_line(wake) {
                Read::Line(text) => {
                    if asked && text.trim() == "readyok" {
                        asked = false;
                        if stopped.is_none() {
                            // Alive: asked again once the search has run twice as long.
                            let next = started + started.elapsed().saturating_mul(2);
                            ask_at = Some(next).filter(|&a| hung_at.is_none_or(|h| a < h));
                            deadline = ask_at.into_iter().chain(hung_at).min().unwrap_or(next);
                        }
                        continue;
                    }
                    let Some((best, ponder)) = collector.line(&text) else { continue };
                    let took = started.elapsed();
                    // The `readyok` still owed would answer the next `isready` too early.
                    let in_step = !asked || readyok(p, Instant::now() + timeouts.alive, None).is_ok();
                    let result = if interrupted {
                        Err(Fault::Interrupted)
                    } else {
                        match stopped {
                            // An unlimited search ends with `stop`; any other that needed it went
                            // wrong.
                            Some(why) if *limit != Limit::infinite() => {
                                if deaf {
                                    // It answers `stop`, not `isready`: it is not asked again.
                                    self.config.pace.set_deaf();
                                }
                                Err(Fault::Stopped(format!("{why}; it answered stop")))
                            }
                            Some(_) => Ok(()),
                            None => {
                                self.config.pace.record(limit, took);
                                Ok(())
                            }
                        }
                        .and_then(|()| {
                            collector
                                .finish(&line.root, best, ponder, took, &mut self.warnings)
                                .map_err(Fault::Failed)
                        })
                    };
                    if !in_step {
                        self.process = None;
                    }
                    return result;
                }
                Read::TooLong(head) => collector.too_long(&head),
                Read::Eof => return Err(Fault::Crashed("its output ended during the search".into())),
                // Not from `read_line`: the interrupt is looked at below, where `stop` is sent.
                Read::Interrupted => return Err(Fault::Interrupted),
                Read::Timeout if Instant::now() < deadline => {
                    if interrupt.is_some_and(|asked| asked()) {
                        p.send("stop").map_err(broken)?;
                        interrupted = true;
                        stopped = Some("interrupted".into());
                        deadline = Instant::now() + timeouts.stop;
                    }
                }
                Read::Timeout
                    if stopped.is_none() && !asked && ask_at.is_some_and(|a| a <= Instant::now()) =>
                {
                    p.send("isready").map_err(broken)?;
                    asked = true;
                    deadline = hung_at
                        .map_or(Instant::now() + timeouts.alive, |h| h.min(Instant::now() + timeouts.alive));
                }
                Read::Timeout if stopped.is_none() => {
                    let why = if asked && hung_at.is_none_or(|h| Instant::now() < h) {
                        deaf = true;
                        format!(
                            "no readyok within {} s of isready, {} s into the search",
                            Secs(timeouts.alive),
                            Secs(started.elapsed().saturating_sub(timeouts.alive))
                        )
                    } else {
                        let after = Secs(rule.hung.unwrap_or_default());
                        format!("no bestmove within {after} s ({})", rule.basis)
                    };
                    p.send("stop").map_err(broken)?;
                    stopped = Some(why);
                    deadline = Instant::now() + timeouts.stop;
                }
                Read::Timeout => {
                    let why = stopped.unwrap_or_default();
                    let stop = Secs(timeouts.stop);
                    let long = collector.long_lines();
                    return Err(Fault::Hung(format!(
                        "{why}, nor within {stop} s of stop{long}: the engine was killed"
                    )));
                }
            }
        }
    }
}

impl Analyzer for UciEngine {
    /// Sends `position fen <fen of pos>`: `history` holds keys, which mean nothing to an engine,
    /// so repetitions before `pos` are not seen. [`Analyzer::analyse_line`] sends the moves.
    fn analyse(
        &mut self,
        pos: &Position,
        _history: &[u64],
        limit: &Limit,
    ) -> Result<Analysis, AnalyzerError> {
        self.run(&Line::position(pos), limit)
    }

    /// Sends `position fen <fen> moves <uci>...` from the last capture or pawn move of the line
    /// (at most [`MAX_PLIES`] moves), so that the engine sees the repetitions the rules count.
    fn analyse_line(
        &mut self,
        start: &Position,
        moves: &[Move],
        limit: &Limit,
    ) -> Result<Analysis, AnalyzerError> {
        let line = Line::game(start, moves)?;
        self.run(&line, limit)
    }

    /// Its `id name`, else the program's file name.
    fn name(&self) -> &str {
        &self.name
    }

    /// With `keep_hash`, the next search starts with `ucinewgame`; without, every search does.
    fn new_game(&mut self) {
        self.new_game = true;
    }

    /// Call after each analysis: they are kept until taken.
    fn take_warnings(&mut self) -> Vec<AnalysisWarning> {
        std::mem::take(&mut self.warnings)
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        if let Some(p) = self.process.as_mut() {
            p.quit(Instant::now() + self.config.timeouts.quit);
        }
    }
}

/// Spawns the program and completes `uci` ... `uciok`.
fn launch(config: &EngineConfig) -> Result<(Process, EngineId), StartError> {
    let mut process = Process::spawn(&config.path, &config.args).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => StartError::NotFound { path: config.path.clone() },
        _ => StartError::Spawn { path: config.path.clone(), source },
    })?;
    match handshake(&mut process, config.timeouts.handshake, config.interrupted) {
        Ok(Some(id)) => Ok((process, id)),
        // Its drop kills it.
        Ok(None) => Err(StartError::Interrupted),
        Err(failed) => Err(handshake_error(config, process, failed)),
    }
}

/// A [`StartError::Handshake`] saying what `failed` and, when the engine's pipes closed and it
/// exited, its exit status (a signal names a build for another CPU); then its last stderr lines.
/// Kills it.
fn handshake_error(config: &EngineConfig, mut process: Process, failed: Failed) -> StartError {
    // How it ended says more than which of its pipes broke first.
    let mut reason = match failed.closed_before.and_then(|step| Some((step, process.exited(STDERR_WAIT)?))) {
        Some((step, status)) => format!("it exited before {step} ({})", status_text(status)),
        None => failed.what,
    };
    process.kill();
    let tail = process.stderr_tail(STDERR_WAIT);
    if !tail.is_empty() {
        let _ = write!(reason, "; its stderr: {tail}");
    }
    StartError::Handshake { path: config.path.clone(), reason }
}

/// What is known of a crash: `what` the client saw, the exit status (when the engine exited by
/// itself: a status of pgnkit's own kill would say nothing), the last stderr lines.
fn crash_report(what: &str, process: &mut Process) -> String {
    let mut report = what.to_string();
    if let Some(status) = process.exited(STDERR_WAIT) {
        let _ = write!(report, " ({})", status_text(status));
    }
    process.kill();
    let tail = process.stderr_tail(STDERR_WAIT);
    if !tail.is_empty() {
        let _ = write!(report, "; its stderr: {tail}");
    }
    report
}

/// `go` with every limit that is set, or `go infinite`.
fn go_command(limit: &Limit) -> String {
    let mut go = String::from("go");
    if let Some(nodes) = limit.nodes {
        let _ = write!(go, " nodes {nodes}");
    }
    if let Some(depth) = limit.depth {
        let _ = write!(go, " depth {depth}");
    }
    if let Some(t) = limit.movetime {
        let _ = write!(go, " movetime {}", t.as_millis().max(1));
    }
    if go == "go" {
        go.push_str(" infinite");
    }
    go
}
