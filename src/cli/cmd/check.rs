//! `pgnkit check`: validate every game of the inputs; one diagnostic per problem (stdout), a
//! summary on stderr; exit 1 when some game has an error.

use std::io::Write;
use std::time::Instant;

use pgnkit::jobs::check::{Check, CheckItem, CheckOptions, CheckOutput, GameRecord};
use pgnkit::jobs::report;
use pgnkit::pipeline::stats::Stats;
use serde_json::json;

use crate::cli::args::{InputArgs, Opened, run_guessed, settle};
use crate::cli::{Code, Fail, interrupt};

pub const EXAMPLES: &str = "\
Examples:
  pgnkit check games.pgn
  pgnkit check --json --games lichess_db_standard_rated_2024-01.pgn.zst > report.jsonl
  zstdcat big.pgn.zst | pgnkit check -
  pgnkit check --strict-san -j 1 old_collection.pgn";

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    input: InputArgs,
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

fn game_text(file: &str, g: &GameRecord) -> String {
    format!(
        "game {file}:{}: game {} offset {} plies {} result {} variant {} errors {} warnings {} final {}",
        g.line,
        g.game,
        g.offset,
        g.plies,
        g.result.map_or("none", |r| r.as_str()),
        g.variant,
        g.errors,
        g.warnings,
        g.final_fen.as_deref().unwrap_or("-")
    )
}

fn game_json(file: &str, g: &GameRecord) -> serde_json::Value {
    json!({"type": "game", "data": {
        "file": file, "game": g.game, "offset": g.offset, "line": g.line, "plies": g.plies,
        "result": g.result.map(|r| r.as_str()), "variant": g.variant, "final_fen": g.final_fen,
        "errors": g.errors, "warnings": g.warnings,
    }})
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    interrupt::install();
    let start = Instant::now();
    let job = Check { opts: CheckOptions { strict_san: args.strict_san, games: args.games } };
    let opts = args.input.pipeline();
    let mut total = Stats::default();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut worst: Option<Code> = None;
    let mut stopped: Option<String> = None;
    for path in &args.input.files {
        let Some(Opened { file, source, compression, progress }) = args.input.open(path, &mut worst) else {
            continue;
        };
        let mut lines = 0u64;
        let mut write_error: Option<std::io::Error> = None;
        let mut release = |o: CheckOutput| -> Result<(), String> {
            let emit = || -> std::io::Result<()> {
                for item in o.items {
                    let line = match item {
                        CheckItem::Diagnostic(mut d) => {
                            d.line += lines;
                            if args.json {
                                report::diagnostic_json(&file, &d).to_string()
                            } else {
                                report::diagnostic_text(&file, &d)
                            }
                        }
                        CheckItem::Game(mut g) => {
                            g.line += lines;
                            if args.json { game_json(&file, &g).to_string() } else { game_text(&file, &g) }
                        }
                    };
                    writeln!(out, "{line}")?;
                }
                Ok(())
            };
            emit().map_err(|e| {
                let msg = e.to_string();
                write_error = Some(e);
                msg
            })?;
            lines += o.end.newlines;
            total.merge(&o.stats);
            Ok(())
        };
        let result = run_guessed(source, &job, &opts, &progress, &mut release);
        progress.finish();
        settle(path, compression, result, write_error.map(Fail::from), &mut worst)?;
        stopped = interrupt::stopped(&file, &progress);
        if stopped.is_some() {
            break;
        }
    }
    if args.json {
        let mut summary = report::summary_json("check", &total, start.elapsed());
        if stopped.is_some() {
            summary["data"]["interrupted"] = true.into();
        }
        writeln!(out, "{summary}")?;
    }
    out.flush()?;
    eprint!("{}", report::summary_text("check", &total, start.elapsed()));
    if let Some(line) = stopped {
        eprint!("{line}");
        return Ok(Code::Interrupted);
    }
    match worst {
        Some(code) => Ok(code), // already reported where it happened
        None if total.games_with_errors > 0 => Ok(Code::Failures),
        None => Ok(Code::Ok),
    }
}
