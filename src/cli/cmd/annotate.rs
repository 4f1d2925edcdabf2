//! `pgnkit annotate`: every mainline position analysed by a pool of engines (the built-in one by
//! default), the games written with lichess's annotations or as JSON Lines records; evaluations
//! cached in SQLite so that the same command again resumes where a killed run stopped.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use pgnkit::analysis::Limit;
use pgnkit::analysis::cache::Cache;
use pgnkit::engine::client::EngineConfig;
use pgnkit::jobs::annotate::{
    Annotate, AnnotateOptions, AnnotateWriter, DEFAULT_NODES, EngineChoice, Format, Variations, sink,
};
use pgnkit::jobs::diagnostics::Records;
use pgnkit::pipeline::counter::Counter;

use crate::cli::args::{HeadArgs, Leaves, ParquetArgs, PlyArgs, SelectArgs, finish_records, warn_absent};
use crate::cli::fail::Fail;
use crate::cli::interrupt;
use crate::cli::progress::Progress;
use crate::cli::shard::{self, Layout, Sharding};
use pgnkit::exit::Code;
use pgnkit::shard::plan::Unit;

pub const EXAMPLES: &str = "\
Examples:
  pgnkit annotate games.pgn -o annotated.pgn
  pgnkit annotate --engine /usr/games/stockfish --nodes 1000000 --engines 2 games.pgn -o out.pgn
  pgnkit annotate --engine stockfish --engine-option 'Skill Level=20' --hash 64 games.pgn.zst -o out.pgn.zst
  pgnkit annotate --format jsonl --depth 12 games.pgn -o evals.jsonl
  pgnkit annotate --format parquet --nodes 20000 games.pgn -o evals.parquet
  pgnkit annotate --from-evals --add-tags lichess_export.pgn -o judged.pgn

After every mainline move the output holds [%eval 0.17] / [%eval #-3] (White's view) in the
move's comment; moves that lose enough winning chances get lichess's NAG ($6 ?!, $2 ?, $4 ??),
its comment (Inaccuracy. Nf3 was best.) and the engine's line as a variation (--variations).
Judgements the input holds, pgnkit's or lichess's ({ (0.39 → -4.17) Blunder. c3 was best. }),
are replaced, and the line after one goes with it (where --from-evals judges the move again, the
old line is kept, and so is the best move the old comment named: it writes no line).
A game with an error in its mainline (a move, its setup, its result) is written as read, with
the error reported, and so is a game the engine evaluated no position of (a variant it cannot
play): no Annotator tag, no records. An error in a variation ends that variation only, as python-chess and
lichess read it: the game is annotated, in PGN output the variation written up to the error and
its rest kept as read in a comment { pgnkit: invalid_move; not replayed: Nf9 ... }; the error is
still reported. The output is UTF-8: tags, comments and the lines of games written as read that
are not UTF-8 are read as Windows-1252.

Limits: --nodes and --depth are reproducible: every position is searched from a cleared hash,
so the output is the same at any --engines and from run to run, and evaluations are cached
(by default in $XDG_CACHE_HOME/pgnkit/evals.sqlite). Ctrl-C stops the searches in progress,
commits the cache and leaves no output; running the same command again after a crash or
Ctrl-C analyses only the positions the cache lacks. --movetime results differ from
run to run and are not cached; neither are --keep-hash results, nor those of an engine on
several threads (--engine-option Threads=N, N > 1; a warning says so): a rerun starts over.

An engine that crashes is restarted and the position tried twice more. One that crashed at
every try or hung on 20 positions in a row, with no search that succeeded between them, cannot
be used: the run stops (exit 69) and keeps the cache for a rerun.

--format epd writes each position line again as EPD: its four fields; a FEN's clock fields as
hmvc and fmvn; every operation of the line in its order (bm, am, id, c0..c9 and any other never
replaced: a test suite's answers stay its own), but for acd, acn, acs, ce, pv and dm, which this
run's analysis replaces (kept when the position is left unevaluated); then acd, acn, acs, ce,
bm (the engine's choice, only on a line with neither bm nor am), pv (the engine's line, its
choice first) and dm. Blank and # lines, and lines that are no position (a bad_fen error
each), are written as read; an input none of whose lines is EPD or FEN is one error (exit 65).
Its lines are no games: the game filters (--where, --eco, --min-ply...) are refused with it.

Exit codes: 1 when some position was left without an evaluation (a diagnostic names it) or a
game had errors (written as read, or annotated with a variation cut); 65 when an input of
--format epd has no EPD or FEN line; 69 when the engine is missing, fails its handshake, or
crashes on every search (above).

--format parquet writes one row per analysed position, with typed columns (`?`: may be null):
  file string, game int64, ply int32, fen string (with --epd-columns: epd string, hmvc int64,
  fmvn int64), san string?, uci string?, turn string (white|black), eval_cp int32?,
  eval_mate int32? (White's view), depth int32?, nodes int64?, best string? (UCI),
  pv string? (UCI moves separated by spaces), judgement string? (inaccuracy|mistake|blunder).
Pages are zstd-compressed, row groups hold 131072 rows; the summary stays on stderr.";

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum FormatArg {
    /// The games with lichess's annotations.
    Pgn,
    /// One JSON Lines record per analysed position (a game's first also holds its tags), then
    /// a summary.
    Jsonl,
    /// Inputs of positions (EPD or FEN lines), written as EPD with the line's operations and
    /// this run's acd, acn, acs, ce, pv and dm (below).
    Epd,
    /// Apache Parquet, one row per analysed position: typed columns (below); needs -o FILE or a
    /// pipe.
    Parquet,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum VariationsArg {
    /// No variation.
    None,
    /// The engine's line before each judged move (lichess's choice).
    Mistakes,
    /// The engine's line before every move that is not its best.
    All,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub(crate) head: HeadArgs,
    #[command(flatten)]
    select: SelectArgs,
    #[command(flatten)]
    plies: PlyArgs,
    /// `builtin` (the built-in engine, in-process) or the path of a UCI engine.
    #[arg(long, value_name = "builtin|PATH", default_value = "builtin")]
    engine: String,
    /// An argument for the UCI engine (repeatable).
    #[arg(long, value_name = "ARG", allow_hyphen_values = true)]
    engine_arg: Vec<String>,
    /// A UCI option, NAME=VALUE (repeatable); one the engine does not list is a warning.
    #[arg(long, value_name = "NAME=VALUE")]
    engine_option: Vec<String>,
    /// Engines run at once, one per worker thread, at most 1024 (default, or 0: the number of
    /// cores; -j too).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(0..=crate::cli::args::MAX_THREADS))]
    engines: Option<u16>,
    /// Hash table size in MB of each engine.
    #[arg(long, value_name = "MB")]
    hash: Option<u32>,
    /// Keep the hash through a game (stronger; results then depend on the positions before,
    /// so they are not cached).
    #[arg(long)]
    keep_hash: bool,
    /// Nodes per position (the default, 100000, when no limit is given). Reproducible.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Depth in plies per position. Reproducible.
    #[arg(long, value_name = "D", value_parser = clap::value_parser!(u32).range(1..))]
    depth: Option<u32>,
    /// Milliseconds per position. NOT reproducible: results vary from run to run and with
    /// --engines, and are not cached.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    movetime: Option<u64>,
    /// What is written.
    #[arg(long, value_enum, default_value = "pgn")]
    format: FormatArg,
    #[command(flatten)]
    parquet: ParquetArgs,
    /// Which moves get the engine's line as a variation (--format pgn).
    #[arg(long, value_enum, default_value = "mistakes")]
    variations: VariationsArg,
    /// Add WhiteACPL, BlackACPL, WhiteAccuracy and BlackAccuracy tags (lichess's formulas; both
    /// count a move only with an evaluation before and after it; --format pgn).
    #[arg(long)]
    add_tags: bool,
    /// No engine: judge the games' own [%eval]s and write the judgements (the options of an
    /// engine, its search and its cache are refused with it).
    #[arg(long)]
    from_evals: bool,
    /// The evaluation cache (SQLite; default: $XDG_CACHE_HOME/pgnkit/evals.sqlite).
    #[arg(long, value_name = "FILE", conflicts_with = "no_cache")]
    cache: Option<PathBuf>,
    /// Use no evaluation cache.
    #[arg(long)]
    no_cache: bool,
    /// A fixed deadline for every search, in seconds (past the time under --movetime): an
    /// engine that has not answered by then counts as hung (sent stop, else killed and
    /// restarted) and the position is left without an evaluation. Without it the deadline
    /// follows the engines' pace: for their first 5 searches under the limit an engine is asked
    /// isready from 2 s on and hung when it does not answer; then a search is hung at 10 times
    /// the slowest search so far and at least 2 s, or at --depth asked isready then and waited
    /// for while it answers.
    #[arg(long, value_name = "SECS", value_parser = seconds)]
    engine_timeout: Option<Duration>,
}

/// A positive number of seconds, fractions allowed.
fn seconds(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 1e9 => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!("{text:?} is not a positive number of seconds")),
    }
}

/// Refuses the options the run would ignore: an engine's and its search's under --from-evals,
/// which runs none, the game filters under --format epd, which reads no games, and those that
/// shape only PGN output under another format.
fn refuse_ignored(args: &Args) -> Result<(), Fail> {
    let named = |options: &[(&'static str, bool)]| -> Vec<&'static str> {
        options.iter().filter(|(_, on)| *on).map(|(name, _)| *name).collect()
    };
    if args.from_evals {
        let engine = named(&[
            ("--engine", args.engine != "builtin"),
            ("--engine-arg", !args.engine_arg.is_empty()),
            ("--engine-option", !args.engine_option.is_empty()),
            ("--engines", args.engines.is_some()),
            ("--hash", args.hash.is_some()),
            ("--keep-hash", args.keep_hash),
            ("--nodes", args.nodes.is_some()),
            ("--depth", args.depth.is_some()),
            ("--movetime", args.movetime.is_some()),
            ("--engine-timeout", args.engine_timeout.is_some()),
            ("--cache", args.cache.is_some()),
            ("--variations", shard::given("variations")),
        ]);
        if !engine.is_empty() {
            let threads = if args.engines.is_some() { " (-j sets its threads)" } else { "" };
            return Err(Fail::usage(format!(
                "--from-evals judges the games' own evaluations and runs no engine: {} cannot be \
                 used with it{threads}",
                engine.join(", ")
            )));
        }
    }
    if args.format == FormatArg::Epd {
        let filters = args.select.given(&args.plies);
        if !filters.is_empty() {
            return Err(Fail::usage(format!(
                "--format epd reads lines of positions, not games: the game filters {} cannot be \
                 used with it",
                filters.join(", ")
            )));
        }
    }
    if args.format != FormatArg::Pgn {
        let pgn = named(&[("--variations", shard::given("variations")), ("--add-tags", args.add_tags)]);
        if !pgn.is_empty() {
            return Err(Fail::ignored_by_format(&args.format, "no PGN", &pgn, "PGN output"));
        }
    }
    Ok(())
}

fn limit(args: &Args) -> Limit {
    let limit =
        Limit { nodes: args.nodes, depth: args.depth, movetime: args.movetime.map(Duration::from_millis) };
    if limit == Limit::infinite() { Limit::nodes(DEFAULT_NODES) } else { limit }
}

fn engine(args: &Args) -> Result<EngineChoice, Fail> {
    if args.engine == "builtin" {
        if !args.engine_arg.is_empty() || !args.engine_option.is_empty() || args.engine_timeout.is_some() {
            return Err(Fail::usage(
                "--engine-arg, --engine-option and --engine-timeout need --engine PATH (a UCI engine)",
            ));
        }
        let hash_mb = args.hash.map_or(pgnkit::search::DEFAULT_HASH_MB, |h| h.max(1) as usize);
        return Ok(EngineChoice::Builtin { hash_mb, interrupted: Some(interrupt::requested) });
    }
    let mut config = EngineConfig::new(&args.engine);
    config.args = args.engine_arg.iter().map(Into::into).collect();
    config.options = args
        .engine_option
        .iter()
        .map(|o| EngineConfig::parse_option(o).map_err(Fail::usage))
        .collect::<Result<_, _>>()?;
    config.hash_mb = args.hash;
    config.keep_hash = args.keep_hash;
    config.interrupted = Some(interrupt::requested);
    config.timeouts.fixed = args.engine_timeout;
    Ok(EngineChoice::Uci(Box::new(config)))
}

fn cache(args: &Args) -> Result<Option<Arc<Cache>>, Fail> {
    if args.no_cache || args.from_evals {
        return Ok(None);
    }
    let Some(path) = args.cache.clone().or_else(Cache::default_path) else {
        stderrln!("pgnkit: warning: no cache directory ($XDG_CACHE_HOME, $HOME): running without a cache");
        return Ok(None);
    };
    let cache = Cache::open(&path).map_err(pgnkit::error::Error::from)?;
    Ok(Some(Arc::new(cache)))
}

/// What a run that stopped leaves for the next: the evaluations so far in the cache, which the
/// same command reads (`then` says when), or that they are lost.
fn left_for_a_rerun(opts: &AnnotateOptions, cache: Option<&Cache>, then: &str) -> String {
    let lost = "the evaluations so far are lost, and the same command again starts over";
    match (cache, opts.not_cached()) {
        (None, _) => format!("without a cache {lost}"),
        (Some(cache), None) => format!("the evaluations so far are in {}: {then}", cache.path().display()),
        (Some(_), Some(why)) => format!("{why} results are not cached: {lost}"),
    }
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    refuse_ignored(args)?;
    interrupt::install();
    let cache = cache(args)?;
    let opts = AnnotateOptions {
        engine: engine(args)?,
        limit: limit(args),
        keep_hash: args.keep_hash,
        format: match args.format {
            FormatArg::Pgn => Format::Pgn,
            FormatArg::Jsonl => Format::Jsonl,
            FormatArg::Epd => Format::Epd,
            FormatArg::Parquet => Format::Parquet,
        },
        variations: match args.variations {
            VariationsArg::None => Variations::None,
            VariationsArg::Mistakes => Variations::Mistakes,
            VariationsArg::All => Variations::All,
        },
        add_tags: args.add_tags,
        from_evals: args.from_evals,
        cache: cache.clone(),
        select: args.select.selection(Some(&args.plies))?,
        line_width: 80,
        epd_columns: args.parquet.epd_columns,
    };
    if let EngineChoice::Uci(c) = &opts.engine
        && let Some(n) = c.threads()
    {
        stderrln!(
            "pgnkit: warning: Threads={n}: threads that share a hash search differently from run to run, \
             so the results are neither cached nor reproducible (one thread, the default, is)"
        );
    }
    let threads = args
        .engines
        .or(args.head.threads)
        .filter(|&n| n > 0)
        .map_or_else(pgnkit::pipeline::cores, usize::from);
    // --from-evals judges on its worker threads and runs no engine.
    let engines = if args.from_evals { 0 } else { threads };
    let job = Annotate::new(opts);
    let format = job.options().format;
    // An EPD input's records are lines: its shares end at line starts.
    let unit = if format == Format::Epd { Unit::Lines } else { Unit::Games };
    let mut sharding = Sharding::of(&args.head, "annotate", unit)?;
    args.parquet.check(format == Format::Parquet, &args.head.output)?;
    let layout = match format {
        Format::Parquet => Layout::Table,
        Format::Jsonl => Layout::Text { header: b"", footer: "annotate-summary" },
        _ => Layout::PLAIN,
    };
    let out = shard::create(&mut sharding, &args.head, "output", &args.head.output, layout)?;
    let mut writer =
        AnnotateWriter::new(out, pgnkit::io::stderr(), format, engines, args.parquet.epd_columns)?;
    if sharding.is_some() {
        writer = writer.part();
    }
    let progress = Progress::new(args.head.quiet);
    let mut run_opts = args.head.run_options();
    run_opts.threads = threads;
    let result = shard::run(&job, &args.head, &run_opts, &sharding, &progress, &mut writer);
    // Whatever happened, what the engines found is committed: the next run resumes from it.
    let flushed = cache.as_ref().map(|c| c.flush());
    let summary = match result {
        Ok(summary) => summary,
        // An engine that gave out during the run: what the cache holds is there for a rerun.
        Err(source @ pgnkit::error::Error::Analysis(_)) => {
            let then = "once the engine works, the same command resumes from them";
            let note = left_for_a_rerun(job.options(), cache.as_deref(), then);
            return Err(Fail::Noted { source: Box::new(source), note });
        }
        Err(e) => return Err(e.into()),
    };
    let cache_stats = cache.as_ref().map(|c| c.stats());
    if let Some(Err(e)) = flushed {
        stderrln!("pgnkit: warning: the cache could not be committed: {e}");
    }
    if let Some(c) = cache.as_ref().filter(|c| c.gone() > 0 || !c.path().exists()) {
        stderrln!(
            "pgnkit: warning: the cache {} was removed during the run: {} lookups missed it, and what \
             this run analysed is not kept for the next",
            c.path().display(),
            c.gone()
        );
    }
    writer.finish(&summary, cache_stats.is_some(), &job.options().select)?;
    let failures = summary.stats.get(Counter::Unevaluated) > 0 || summary.stats.games_with_errors > 0;
    let records = format.records();
    let code = finish_records(&args.head, &summary, Leaves::Nothing, records, failures, |unkept| {
        sink::summary_text(&summary, cache_stats.is_some(), engines, records, unkept)
    });
    warn_absent(&job.options().select, &summary.stats, sharding.is_some());
    if summary.stopped.is_some() {
        let note = left_for_a_rerun(job.options(), cache.as_deref(), "run the same command again to resume");
        stderrln!("pgnkit: {note}");
    }
    let cache_json = cache_stats.map(|c| {
        serde_json::json!({"hits": c.hits, "misses": c.misses, "stale": c.stale, "stores": c.stores, "commits": c.commits})
    });
    let extra =
        serde_json::json!({"engines": engines, "cache": cache_json, "lines": records == Records::Lines});
    Sharding::conclude(sharding, &summary, code, &job.options().select, extra)?;
    drop(job);
    if let Some(c) = cache.and_then(Arc::into_inner) {
        let _ = c.close();
    }
    Ok(code)
}
