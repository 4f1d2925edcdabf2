//! `annotate`: every mainline position of every game analysed by an engine (the built-in one, or
//! an external UCI engine per worker), and the games written again with lichess's annotations
//! (`[%eval]` after every move, judgement NAGs and comments, the engine's line after a mistake,
//! an `Annotator` tag), or one JSON Lines record or Parquet row ([`table`]) per analysed position.
//!
//! Each chunk is one game ([`Cuts::PerGame`]): progress, interrupts and work in flight go game by
//! game. A worker replays its chunk once: `collect` keeps each game's mainline (and, for PGN
//! output, its `movetext`: every line's events), [`analyse`] evaluates the positions (the cache
//! first, then the engine; game endings from the rules), `notes` turns the evaluations into
//! judgements, and `pgn` writes the games with their notes from what was kept ([`jsonl`] renders
//! records instead). Games that cannot be annotated (an error in their mainline's moves or
//! setup, a null move in the mainline, no position the engine evaluated) are written as read;
//! an error in a variation ends that variation only (for PGN output, which replays them, the
//! rest of it is kept as read in a comment); games the filters leave out are not written.
//!
//! Invariants: with a node or depth limit and no `keep_hash`, every position is searched from a
//! cleared hash, so an evaluation depends only on the position (and its game's history), the
//! engine, its options and the limit; the output is then the same at any number of engines and
//! after a resume from the cache.

pub mod analyse;
mod collect;
pub mod epd;
pub mod jsonl;
mod movetext;
mod notes;
mod pgn;
mod plies;
pub mod sink;
mod spool;
pub mod table;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::analysis::cache::{Cache, EngineId, cacheable};
use crate::analysis::{AnalysisWarning, Analyzer, Limit, StartError};
use crate::engine::client::{EngineConfig, UciEngine};
use crate::error::{Diagnostic, Error};
use crate::io::spill::{SPILL_BYTES, SpilledText};
use crate::pgn::Writer;
use crate::pipeline::counter::Counter;
use crate::pipeline::replay::export::{GameWriter, Strip};
use crate::pipeline::replay::replay_chunk;
use crate::pipeline::{ChunkInput, Cuts, Job, Located, Output, Worker};
use crate::search::Searcher;
use crate::select::Selection;

pub use analyse::Analyst;
pub use sink::AnnotateWriter;

/// The default node budget per position: about 0.1 s of one core for the built-in engine and
/// for Stockfish, enough for lichess-like judgements of club games.
pub const DEFAULT_NODES: u64 = 100_000;

/// Which engine analyses.
#[derive(Clone, Debug)]
pub enum EngineChoice {
    /// The built-in search, in-process, with a hash table of this many megabytes.
    Builtin {
        /// Hash table size.
        hash_mb: usize,
        /// Asked while a search runs, as [`EngineConfig::interrupted`] is: once it says `true`,
        /// the search ends and the position gives [`crate::analysis::AnalyzerError::Interrupted`].
        interrupted: Option<fn() -> bool>,
    },
    /// An external UCI engine, one process per worker.
    Uci(Box<EngineConfig>),
}

/// What is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The games in PGN export format with lichess's annotations.
    Pgn,
    /// One JSON Lines record per analysed position, then a summary record.
    Jsonl,
    /// Inputs of positions (EPD or FEN lines) written as EPD with the engine's operations
    /// ([`epd`]).
    Epd,
    /// One Parquet row per analysed position ([`table`]).
    Parquet,
}

impl Format {
    /// What the run's records are: lines of EPD input, else games.
    pub fn records(self) -> crate::jobs::diagnostics::Records {
        use crate::jobs::diagnostics::Records;
        if self == Format::Epd { Records::Lines } else { Records::Games }
    }
}

/// Which mainline moves get the engine's line as a variation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variations {
    /// None.
    None,
    /// Judged moves (inaccuracies, mistakes, blunders): lichess's choice.
    Mistakes,
    /// Every move that is not the engine's best.
    All,
}

/// How `annotate` runs and what it writes.
#[derive(Clone, Debug)]
pub struct AnnotateOptions {
    /// The engine.
    pub engine: EngineChoice,
    /// The limit per position.
    pub limit: Limit,
    /// Keep the built-in engine's hash through a game (external engines: in their config).
    pub keep_hash: bool,
    /// What is written.
    pub format: Format,
    /// Where the engine's line goes in as a variation.
    pub variations: Variations,
    /// Add `WhiteACPL`, `BlackACPL`, `WhiteAccuracy`, `BlackAccuracy` tags.
    pub add_tags: bool,
    /// No engine: judge the games' own `[%eval]`s.
    pub from_evals: bool,
    /// The evaluation cache (none: every position is analysed).
    pub cache: Option<Arc<Cache>>,
    /// The filters.
    pub select: Selection,
    /// Movetext lines hold fewer than this many characters.
    pub line_width: usize,
    /// Parquet: the position as `epd` (its four EPD fields), `hmvc` and `fmvn` columns instead
    /// of `fen`.
    pub epd_columns: bool,
}

impl Default for AnnotateOptions {
    fn default() -> AnnotateOptions {
        AnnotateOptions {
            engine: EngineChoice::Builtin { hash_mb: crate::search::DEFAULT_HASH_MB, interrupted: None },
            limit: Limit::nodes(DEFAULT_NODES),
            keep_hash: false,
            format: Format::Pgn,
            variations: Variations::Mistakes,
            add_tags: false,
            from_evals: false,
            cache: None,
            select: Selection::default(),
            line_width: 80,
            epd_columns: false,
        }
    }
}

impl AnnotateOptions {
    /// The writer's layout: the roster filled, lines under the width.
    fn layout(&self) -> Writer {
        Writer::new().fill_roster(true).max_line(self.line_width.saturating_sub(1))
    }

    /// Whether the engine keeps its hash from one position to the next.
    fn keeps_hash(&self) -> bool {
        match &self.engine {
            EngineChoice::Builtin { .. } => self.keep_hash,
            EngineChoice::Uci(c) => c.keep_hash || self.keep_hash,
        }
    }

    /// Whether a position's result under these options is a function of the position: a node or
    /// depth limit, a cleared hash for every position, one search thread.
    pub fn reproducible(&self) -> bool {
        self.not_cached().is_none()
    }

    /// The cache, when the results are [reproducible](AnnotateOptions::reproducible).
    fn usable_cache(&self) -> Option<Arc<Cache>> {
        self.cache.clone().filter(|_| self.reproducible() && !self.from_evals)
    }

    /// Why the engine's results are not cached, as the option that makes it so (`--movetime`,
    /// `--keep-hash`, `Threads`); `None` when they are (given a cache).
    pub fn not_cached(&self) -> Option<&'static str> {
        let threads = matches!(&self.engine, EngineChoice::Uci(c) if c.threads().is_some());
        if !cacheable(&self.limit) {
            Some(if self.limit.movetime.is_some() { "--movetime" } else { "an unlimited search's" })
        } else if self.keeps_hash() {
            Some("--keep-hash")
        } else if threads {
            Some("several search threads'")
        } else {
            None
        }
    }
}

/// The limit as the `Annotator` tag and the summary name it: `nodes 100000`, `depth 12`, ...
pub fn limit_text(limit: &Limit) -> String {
    let mut parts = Vec::new();
    if let Some(n) = limit.nodes {
        parts.push(format!("nodes {n}"));
    }
    if let Some(d) = limit.depth {
        parts.push(format!("depth {d}"));
    }
    if let Some(t) = limit.movetime {
        parts.push(format!("movetime {} ms", t.as_millis()));
    }
    if parts.is_empty() { "infinite".to_string() } else { parts.join(", ") }
}

/// The records of one chunk: the text written and the diagnostics to report.
#[derive(Debug, Default)]
pub struct AnnotatedChunk {
    /// PGN games or JSON Lines records, in input order; past [`SPILL_BYTES`] on disk.
    pub out: SpilledText,
    /// The rows, under [`Format::Parquet`]; past [`SPILL_BYTES`] of text or
    /// [`crate::io::spill::SPILL_RECORDS`] rows on disk.
    pub table: crate::columnar::spool::SpilledRows,
    /// Problems of the games (their moves, the engine's faults), located.
    pub diagnostics: Vec<Diagnostic>,
}

impl Located for AnnotatedChunk {
    fn shift(&mut self, games: u64, lines: u64) {
        self.diagnostics.shift(games, lines);
    }
}

/// Why a chunk's text stopped short: the run was cancelled (the chunk's output is dropped), or
/// its temporary file failed.
#[derive(Debug)]
pub(super) enum Halt {
    Cancelled,
    Spill(std::io::Error),
}

impl From<std::io::Error> for Halt {
    fn from(e: std::io::Error) -> Halt {
        Halt::Spill(e)
    }
}

/// Plies (or movetext events) written between two looks at the run's interrupt: a long game's
/// output stops within a fraction of a second.
const CANCEL_EVERY: usize = 1 << 12;

/// [`Halt::Cancelled`] when the run is cancelled, looked at once every [`CANCEL_EVERY`] of a
/// game's plies or events (the `i`th).
pub(super) fn stop_at(i: usize, cancel: &crate::pipeline::Cancel<'_>) -> Result<(), Halt> {
    if i % CANCEL_EVERY == CANCEL_EVERY - 1 && cancel.is_set() { Err(Halt::Cancelled) } else { Ok(()) }
}

/// The annotate job.
#[derive(Debug)]
pub struct Annotate {
    opts: Arc<AnnotateOptions>,
    /// The engine's start-up warnings (unknown options) were reported: once per run, not once
    /// per engine.
    reported: AtomicBool,
    /// The positions in a row the engines crashed on at every try.
    crashes: Arc<analyse::Crashes>,
    /// Bytes of a chunk's text (or of a game's movetext) held in memory before they wait on
    /// disk.
    spill_at: usize,
}

impl Annotate {
    /// A job annotating as `opts` says.
    pub fn new(opts: AnnotateOptions) -> Annotate {
        let (reported, crashes) = (AtomicBool::new(false), Arc::default());
        Annotate { opts: Arc::new(opts), reported, crashes, spill_at: SPILL_BYTES }
    }

    /// Spills a chunk's text past `bytes` bytes (tests).
    #[cfg(test)]
    fn spilling_at(self, bytes: usize) -> Annotate {
        Annotate { spill_at: bytes, ..self }
    }

    /// The options.
    pub fn options(&self) -> &AnnotateOptions {
        &self.opts
    }
}

/// Per-thread state: the engine (none with `from_evals`) and the warnings it gave at start-up.
pub struct AnnotateWorker {
    opts: Arc<AnnotateOptions>,
    schema: crate::columnar::Schema,
    analyst: Option<Analyst>,
    startup: Vec<AnalysisWarning>,
    /// PGN output's writer, its buffers kept from game to game.
    writer: GameWriter,
    spill_at: usize,
}

impl AnnotateWorker {
    fn new(
        opts: Arc<AnnotateOptions>,
        analyst: Option<Analyst>,
        startup: Vec<AnalysisWarning>,
        spill_at: usize,
    ) -> AnnotateWorker {
        let writer = GameWriter::new(opts.layout(), Strip::default());
        let schema = table::schema(opts.epd_columns);
        AnnotateWorker { opts, schema, analyst, startup, writer, spill_at }
    }

    /// The name the `Annotator` tag gives: pgnkit, the engine and the limit.
    fn annotator(&self) -> String {
        let version = concat!("pgnkit ", env!("CARGO_PKG_VERSION"));
        match &self.analyst {
            Some(a) if a.name() == version => {
                format!("{version} (built-in engine, {})", limit_text(&self.opts.limit))
            }
            Some(a) => format!("{version} ({}, {})", a.name(), limit_text(&self.opts.limit)),
            None => format!("{version} (judged from the game's evaluations)"),
        }
    }
}

/// Starts the engine `opts` asks for (exit code 69 when it cannot start).
fn start_engine(opts: &AnnotateOptions) -> Result<(Box<dyn Analyzer + Send>, EngineId), Error> {
    Ok(match &opts.engine {
        EngineChoice::Builtin { hash_mb, interrupted } => {
            let mut engine = Searcher::try_with_hash_mb(*hash_mb)
                .map_err(|source| StartError::Memory { mb: *hash_mb, source })?;
            if let Some(asked) = *interrupted {
                engine.set_interrupt(asked);
            }
            let id = EngineId::new(engine.name(), [("hash", hash_mb.to_string())]);
            (Box::new(engine), id)
        }
        EngineChoice::Uci(config) => {
            let mut config = EngineConfig::clone(config);
            config.keep_hash |= opts.keep_hash;
            // Its arguments may change its evaluations (lc0's `--weights`), as options do.
            let args = config.args.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>().join(" ");
            let args = (!args.is_empty()).then(|| ("(arguments)".to_string(), args));
            let engine = UciEngine::start(config)?;
            let options = engine.options_sent().iter().map(|(n, v)| (n.clone(), v.clone()));
            let id = EngineId::new(engine.name(), options.chain(args));
            (Box::new(engine), id)
        }
    })
}

impl Job for Annotate {
    type Worker = AnnotateWorker;

    /// An engine's minutes per game: one game a chunk; EPD input, whose records are lines:
    /// [`epd::LINES`] lines a chunk.
    fn cuts(&self) -> Cuts {
        match self.opts.format {
            Format::Epd => Cuts::Lines(epd::LINES),
            Format::Pgn | Format::Jsonl | Format::Parquet => Cuts::PerGame,
        }
    }

    fn worker(&self) -> Result<AnnotateWorker, Error> {
        let opts = self.opts.clone();
        if opts.from_evals && opts.format == Format::Epd {
            return Err(Error::Usage(crate::error::UsageError::rule(
                "--from-evals judges the evaluations games hold: not with --format epd",
            )));
        }
        if opts.from_evals {
            return Ok(AnnotateWorker::new(opts, None, Vec::new(), self.spill_at));
        }
        let (mut engine, id) = start_engine(&opts)?;
        let warnings = engine.take_warnings();
        let startup = if self.reported.swap(true, Ordering::Relaxed) { Vec::new() } else { warnings };
        let crashes = Arc::clone(&self.crashes);
        let analyst = Analyst::new(engine, id, opts.usable_cache(), opts.limit, opts.keeps_hash(), crashes);
        Ok(AnnotateWorker::new(opts, Some(analyst), startup, self.spill_at))
    }
}

impl Worker for AnnotateWorker {
    type Records = AnnotatedChunk;

    fn process(&mut self, chunk: &ChunkInput<'_>) -> Result<Output<AnnotatedChunk>, Error> {
        if self.opts.format == Format::Epd {
            return self.lines(chunk);
        }
        let write = self.opts.format == Format::Pgn;
        let held = spool::held_bytes(self.spill_at);
        let collect =
            collect::Collect::new(&self.opts.select, write, self.analyst.is_none(), chunk.bytes, held);
        let (collected, first) = replay_chunk(collect, chunk);
        let mut records = AnnotatedChunk::default();
        let mut stats = first.stats;
        collected.filter.count(&mut stats);
        let mut games = collected.games;
        records.diagnostics = collected.diagnostics;
        // The engine's start is the run's, shown and counted once (by the first worker).
        for w in self.startup.drain(..) {
            let d = analyse::warning_diagnostic(games.first(), None, w.to_string());
            stats.count(&d);
            records.diagnostics.push(d);
        }
        let mut plans = Vec::with_capacity(games.len());
        for game in &mut games {
            if chunk.cancel.is_set() {
                return Ok(Output::default());
            }
            let plan = match game.fate {
                collect::Fate::Annotate => {
                    let before = records.diagnostics.len();
                    // With no engine and no `[%eval]` there is nothing to judge.
                    let unjudged = self.analyst.is_none() && !game.has_evals;
                    if unjudged {
                        records.diagnostics.push(analyse::no_evals(game));
                    }
                    let evals = match &mut self.analyst {
                        Some(a) => {
                            match a.game(game, chunk.cancel, &mut records.diagnostics, &mut stats, held)? {
                                Some(e) => e,
                                None => return Ok(Output::default()),
                            }
                        }
                        None => analyse::from_game(game, &mut stats),
                    };
                    // The engine's diagnostics are the game's, as the replay's are.
                    let worst = records.diagnostics[before..].iter().map(|d| d.severity).max();
                    stats.recount_game(game.counted, worst);
                    // No Annotator tag or record may claim an analysis the game did not get; an
                    // unjudged game's PGN keeps its own judgements, its records its positions.
                    let none =
                        self.analyst.is_some() && analyse::none_evaluated(&evals).map_err(spill_error)?;
                    if none || (unjudged && write) {
                        stats.add(Counter::WrittenAsRead, 1);
                        None
                    } else {
                        stats.add(Counter::Annotated, 1);
                        Some(notes::plan(game, evals, &self.opts, held).map_err(spill_error)?)
                    }
                }
                collect::Fate::AsRead => {
                    stats.add(Counter::WrittenAsRead, 1);
                    if game.null_move {
                        let positions = game.position_count() as u64;
                        stats.add(Counter::Positions, positions);
                        stats.add(Counter::Unevaluated, positions);
                    }
                    None
                }
                collect::Fate::Filtered => {
                    stats.add(Counter::Filtered, 1);
                    None
                }
            };
            plans.push(plan);
        }
        let written = match self.opts.format {
            Format::Pgn => {
                let annotator = self.annotator();
                games.iter().zip(&plans).try_for_each(|(game, plan)| {
                    let to = pgn::To { out: &mut records.out, spill_at: self.spill_at, cancel: chunk.cancel };
                    pgn::write_game(
                        &mut self.writer,
                        game,
                        plan.as_ref(),
                        &annotator,
                        to,
                        &mut records.diagnostics,
                    )
                })
            }
            Format::Jsonl | Format::Epd => games.iter().zip(&plans).try_for_each(|(game, plan)| match plan {
                Some(plan) => {
                    jsonl::write_game(chunk.input, game, plan, &mut records.out, self.spill_at, chunk.cancel)
                }
                None => Ok(()),
            }),
            Format::Parquet => {
                records.table = crate::columnar::spool::SpilledRows::new(&self.schema);
                games.iter().zip(&plans).try_for_each(|(game, plan)| match plan {
                    Some(plan) => {
                        let to = table::To {
                            rows: &mut records.table,
                            spill_at: self.spill_at,
                            cancel: chunk.cancel,
                        };
                        table::write_game(chunk.input.text(), game, plan, self.opts.epd_columns, to)
                    }
                    None => Ok(()),
                })
            }
        };
        match written {
            Ok(()) => Ok(Output { records, stats, end: first.end }),
            Err(Halt::Cancelled) => Ok(Output::default()),
            Err(Halt::Spill(e)) => Err(spill_error(e)),
        }
    }
}

/// A temporary file that could not be written or read back.
fn spill_error(e: std::io::Error) -> Error {
    Error::Spill(e.into())
}

#[cfg(test)]
mod tests;
