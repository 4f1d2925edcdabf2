//! `pgnkit check`: validate every game of the inputs; one diagnostic per problem (stdout or
//! `-o FILE`), a summary on stderr; exit 1 when some game has an error.

use std::sync::Arc;

use pgnkit::jobs::check::{Check, CheckOptions, Report};
use pgnkit::jobs::diagnostics;

use crate::cli::args::{HeadArgs, Leaves, PlyArgs, SelectArgs, finish, warn_absent};
use crate::cli::fail::Fail;
use crate::cli::interrupt;
use crate::cli::progress::Progress;
use crate::cli::shard::{self, Layout, Sharding};
use pgnkit::exit::Code;

pub const EXAMPLES: &str = "\
Examples:
  pgnkit check games.pgn
  pgnkit check --json --games lichess_db_standard_rated_2024-01.pgn.zst -o report.jsonl.zst
  zstdcat big.pgn.zst | pgnkit check -
  pgnkit check --strict-san -j 1 old_collection.pgn
  pgnkit check --where 'Elo >= 2500' --where 'Event ~ olympiad' --eco C60-C99 games.pgn

JSON Lines records (--json): {\"type\": \"diagnostic\", \"data\": {...}} with file, game, line,
column (in bytes, from 1), offset (byte of the decompressed input), ply, severity, kind
(illegal_move, ambiguous_move, bad_fen, ...), san (the move as written), fen (the position it was
played in), white, black and message; with --games one {\"type\": \"game\"} record per game;
last a {\"type\": \"summary\"} record. Games the filters (--where, --eco, ...) leave out are read and
counted as filtered; their problems are neither reported nor counted, nor their plies.";

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub(crate) head: HeadArgs,
    #[command(flatten)]
    select: SelectArgs,
    #[command(flatten)]
    plies: PlyArgs,
    /// JSON Lines on stdout: one `diagnostic` record per problem and a final `summary`.
    #[arg(long)]
    json: bool,
    /// Also one record per game (number, offset, line, plies, result, variant, final FEN, counts).
    #[arg(long)]
    games: bool,
    /// Show SAN-form warnings (non-canonical SAN, wrong check marks); always counted.
    #[arg(long)]
    strict_san: bool,
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    interrupt::install();
    let select = Arc::new(args.select.selection(Some(&args.plies))?);
    let job = Check { opts: CheckOptions { strict_san: args.strict_san, games: args.games }, select };
    let mut sharding = Sharding::new(&args.head, "check")?;
    let footer = if args.json { "check-summary" } else { "" };
    let layout = Layout::Text { header: b"", footer };
    let out = shard::create(&mut sharding, &args.head, "output", &args.head.output, layout)?;
    let mut report = Report::new(out, args.json);
    if sharding.is_some() {
        report = report.part();
    }
    let progress = Progress::new(args.head.quiet);
    let summary = shard::run(&job, &args.head, &args.head.run_options(), &sharding, &progress, &mut report)?;
    report.finish(&summary, &job.select)?;
    let failures = summary.stats.games_with_errors > 0;
    let code = finish(&args.head, &summary, Leaves::Prefix, failures, |unkept| {
        diagnostics::summary_text("check", &summary.stats, summary.elapsed, unkept)
    });
    warn_absent(&job.select, &summary.stats, sharding.is_some());
    Sharding::conclude(sharding, &summary, code, &job.select, serde_json::Value::Null)?;
    Ok(code)
}
