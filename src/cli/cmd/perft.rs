//! `pgnkit perft`: node counts of the legal move tree, per root move with `--divide` (the root
//! moves counted in parallel), or a whole suite file checked against its expected counts (the
//! cases run in parallel, reported in suite order).

use std::io::Write;
use std::time::Instant;

use pgnkit::chess::perft::{MAX_DEPTH, divide, perft};
use pgnkit::chess::{Position, Variant};
use pgnkit::io::{Input, InputOptions};
use pgnkit::notation::fen::{FenError, STARTING_FEN, implied_variant, parse_fen};
use pgnkit::notation::perft_suite::parse_suite;
use pgnkit::notation::uci::write_uci;
use rayon::prelude::*;

use pgnkit::error::UsageError;

use crate::cli::fail::Fail;
use pgnkit::exit::Code;

pub const EXAMPLES: &str = "\
Examples:
  pgnkit perft 6
  pgnkit perft --fen 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1' 5 --divide
  pgnkit perft --variant crazyhouse 4
  pgnkit perft --suite fixtures/perft/tricky.perft --max-nodes 10000000";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Depth in plies, at most 128 (with --suite: the deepest depth to check; default all).
    #[arg(value_parser = clap::value_parser!(u32).range(..=i64::from(MAX_DEPTH)))]
    depth: Option<u32>,
    /// Start position (default: the standard start).
    #[arg(long)]
    fen: Option<String>,
    /// Rule set: standard, chess960 or crazyhouse (with --suite: default from each FEN).
    #[arg(long)]
    variant: Option<String>,
    /// Print the count under each root move (UCI, sorted), then a blank line.
    #[arg(long)]
    divide: bool,
    /// Run a perft suite file (shakmaty `id`/`epd`/`perft` blocks, or `FEN ;D1 n ;D2 n` lines).
    #[arg(long, conflicts_with_all = ["fen", "divide"])]
    suite: Option<std::path::PathBuf>,
    /// With --suite: skip expected counts above this many nodes.
    #[arg(long)]
    max_nodes: Option<u64>,
    /// Threads for --divide and --suite, at most 1024 (default, or 0: all cores); a plain count
    /// runs on one.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(0..=crate::cli::args::MAX_THREADS))]
    threads: Option<u16>,
}

fn parse_variant(v: Option<&str>) -> Result<Option<Variant>, Fail> {
    v.map(|s| Variant::from_tag(s).map_err(|_| Fail::usage(format!("unknown variant {s:?}")))).transpose()
}

/// Reads a FEN for perft: crazyhouse when it carries a pocket; impossible checkers and too much
/// material accepted (the suites hold such positions on purpose: they test the generator).
fn load(fen: &str, variant: Option<Variant>) -> Result<Position, FenError> {
    let variant = variant.unwrap_or_else(|| implied_variant(fen));
    match parse_fen(fen, variant) {
        Err(FenError::Position(e)) => {
            e.ignore_impossible_check().or_else(|e| e.ignore_too_much_material()).map_err(FenError::Position)
        }
        r => r,
    }
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    crate::cli::interrupt::install_immediate();
    let threads = args.threads.map_or(0, usize::from);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Fail::Command { code: Code::Software, message: format!("thread pool: {e}") })?;
    pool.install(|| count(args))
}

fn count(args: &Args) -> Result<Code, Fail> {
    let variant = parse_variant(args.variant.as_deref())?;
    if let Some(path) = &args.suite {
        return run_suite(path, args.depth, args.max_nodes, variant);
    }
    let depth = args.depth.ok_or_else(|| Fail::usage("missing DEPTH"))?;
    let fen = args.fen.as_deref().unwrap_or(STARTING_FEN);
    let pos = match (&args.fen, variant) {
        (None, Some(v)) => Position::new(v),
        _ => load(fen, variant).map_err(|source| UsageError::Fen {
            option: "bad FEN",
            fen: fen.to_string(),
            source,
        })?,
    };
    let start = Instant::now();
    let mut out = std::io::stdout().lock();
    let nodes = if args.divide {
        let mut rows: Vec<(String, u64)> = divide(&pos, depth)
            .into_iter()
            .map(|(m, n)| {
                let mut uci = String::new();
                write_uci(m, pos.castling_mode(), &mut uci);
                (uci, n)
            })
            .collect();
        rows.sort();
        for (uci, n) in &rows {
            writeln!(out, "{uci}: {n}")?;
        }
        writeln!(out)?;
        rows.iter().map(|r| r.1).sum()
    } else {
        perft(&pos, depth)
    };
    writeln!(out, "Nodes searched: {nodes}")?;
    report_speed(nodes, start);
    Ok(Code::Ok)
}

fn report_speed(nodes: u64, start: Instant) {
    let secs = start.elapsed().as_secs_f64();
    stderrln!("time {:.3} s, {:.1} M nodes/s", secs, nodes as f64 / secs.max(1e-9) / 1e6);
}

/// The whole file as text, decompressed if it is zstd or gzip (detected by magic bytes).
fn read_text(path: &std::path::Path) -> Result<String, Fail> {
    let bytes = Input::open(path, InputOptions::default()).and_then(Input::read_all).map_err(Fail::from)?;
    String::from_utf8(bytes).map_err(|_| Fail::Command {
        code: Code::DataErr,
        message: format!("{}: not UTF-8 text", path.display()),
    })
}

/// What one case of a suite gave: its failure lines, and the checks passed and nodes counted.
#[derive(Default)]
struct CaseResult {
    failures: Vec<String>,
    passed: u64,
    nodes: u64,
}

fn run_suite(
    path: &std::path::Path,
    max_depth: Option<u32>,
    max_nodes: Option<u64>,
    variant: Option<Variant>,
) -> Result<Code, Fail> {
    let text = read_text(path)?;
    let cases = parse_suite(&text)
        .map_err(|e| Fail::Command { code: Code::DataErr, message: format!("{}: {e}", path.display()) })?;
    let start = Instant::now();
    let results: Vec<CaseResult> = cases
        .par_iter()
        .map(|case| {
            let mut r = CaseResult::default();
            let pos = match load(&case.fen, variant) {
                Ok(p) => p,
                Err(e) => {
                    let (line, id, fen) = (case.line, &case.id, &case.fen);
                    r.failures.push(format!("FAIL {}:{line} {id}: bad FEN {fen:?}: {e}", path.display()));
                    return r;
                }
            };
            for &(depth, expected) in &case.expected {
                if max_depth.is_some_and(|d| depth > d) || max_nodes.is_some_and(|n| expected > n) {
                    continue;
                }
                if depth > MAX_DEPTH {
                    let (file, line, id) = (path.display(), case.line, &case.id);
                    r.failures
                        .push(format!("FAIL {file}:{line} {id}: perft {depth} is deeper than {MAX_DEPTH}"));
                    continue;
                }
                let got = perft(&pos, depth);
                r.nodes += got;
                if got == expected {
                    r.passed += 1;
                } else {
                    r.failures.push(format!(
                        "FAIL {}:{} {}: perft {depth} = {got}, expected {expected} ({})",
                        path.display(),
                        case.line,
                        case.id,
                        case.fen
                    ));
                }
            }
            r
        })
        .collect();
    let mut out = std::io::stdout().lock();
    let (mut passed, mut failed, mut nodes_total) = (0u64, 0u64, 0u64);
    for r in &results {
        for line in &r.failures {
            writeln!(out, "{line}")?;
        }
        passed += r.passed;
        failed += r.failures.len() as u64;
        nodes_total += r.nodes;
    }
    writeln!(out, "{passed} passed, {failed} failed")?;
    report_speed(nodes_total, start);
    Ok(if failed == 0 { Code::Ok } else { Code::Failures })
}
