//! `pgnkit check`: validate every game of the inputs; one diagnostic per problem (stdout), a
//! summary on stderr; exit 1 when some game has an error.

use std::path::PathBuf;
use std::sync::Arc;

use pgnkit::io::{Output, OutputOptions};
use pgnkit::jobs::check::{Check, CheckOptions, Report};
use pgnkit::jobs::{diagnostics, run};

use crate::cli::args::{InputArgs, PlyArgs, SelectArgs, conclude};
use crate::cli::progress::Progress;
use crate::cli::shard::{ShardArgs, Sharding};
use crate::cli::{Code, Fail, interrupt};

pub const EXAMPLES: &str = "\
Examples:
  pgnkit check games.pgn
  pgnkit check --json --games lichess_db_standard_rated_2024-01.pgn.zst > report.jsonl
  zstdcat big.pgn.zst | pgnkit check -
  pgnkit check --strict-san -j 1 old_collection.pgn
  pgnkit check --where 'Elo >= 2500' --where 'Event ~ olympiad' --eco=C60-C99 games.pgn

JSON Lines records (--json): {\"type\": \"diagnostic\", \"data\": {...}} with file, game, line,
column, offset (byte of the decompressed input), ply, severity, kind (illegal_move,
ambiguous_move, bad_fen, ...), san (the move as written), fen (the position it was played in),
white, black and message; with --games one {\"type\": \"game\"} record per game; last a
{\"type\": \"summary\"} record. Games the filters (--where, --eco, ...) leave out are read and
counted as filtered; their problems are neither reported nor counted.";

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    select: SelectArgs,
    #[command(flatten)]
    plies: PlyArgs,
    #[command(flatten)]
    shard: ShardArgs,
    /// Write the diagnostics to FILE (`.zst`/`.gz` name: compressed) instead of stdout.
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    output: PathBuf,
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
    let select = Arc::new(args.select.selection(Some(&args.plies), &args.input.files)?);
    args.select.no_eco_tags("check")?;
    let job = Check { opts: CheckOptions { strict_san: args.strict_san, games: args.games }, select };
    let mut sharding = Sharding::new(&args.shard, &args.input, "check")?;
    let out_opts = OutputOptions { inputs: args.input.files.clone(), zstd_level: 0 };
    let progress = Progress::new(args.input.quiet);
    let summary = match sharding.as_mut() {
        Some(s) => {
            let footer = if args.json { "check-summary" } else { "" };
            let part = s.output("output", &args.output, b"", footer)?;
            let mut report =
                Report::new(Output::create_as(&part, &args.output, &out_opts)?, args.json).part();
            let summary =
                run::run_shares(&job, &s.shares(), &args.input.run_options(), &progress, &mut report)?;
            report.finish(&summary)?;
            summary
        }
        None => {
            let mut report = Report::new(Output::create(&args.output, &out_opts)?, args.json);
            let summary =
                run::run(&job, &args.input.files, &args.input.run_options(), &progress, &mut report)?;
            report.finish(&summary)?;
            summary
        }
    };
    eprint!("{}", diagnostics::summary_text("check", &summary.stats, summary.elapsed));
    let code = conclude(&summary, summary.stats.games_with_errors > 0);
    if let Some(s) = sharding {
        s.finish(&summary, code, serde_json::Value::Null)?;
    }
    Ok(code)
}
