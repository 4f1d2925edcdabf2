//! `pgnkit bench`: the engine's node signature and speed over fixed positions.

use std::io::Write;

use pgnkit::search::{BENCH_DEPTH, run_bench};

use crate::cli::fail::Fail;
use pgnkit::exit::Code;

pub const EXAMPLES: &str = "\
Prints `Nodes: N` (the signature: it changes only when search, evaluation or move generation
change) and `NPS: X` (nodes per second; build with --release for meaningful speed).

Examples:
  pgnkit bench
  pgnkit bench --depth 10";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Depth in plies for every position.
    #[arg(long, default_value_t = BENCH_DEPTH, value_parser = clap::value_parser!(u32).range(1..=64))]
    depth: u32,
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    crate::cli::interrupt::install_immediate();
    let report = run_bench(args.depth);
    let mut out = std::io::stdout().lock();
    writeln!(out, "Nodes: {}", report.nodes)?;
    writeln!(out, "NPS: {}", report.nps())?;
    stderrln!("time {:.3} s", report.time.as_secs_f64());
    Ok(Code::Ok)
}
