//! `pgnkit positions`: one record per mainline position (FEN, EPD, JSON Lines or CSV) to stdout
//! or `-o FILE`; error diagnostics and a summary on stderr; exit 1 when some game has an error.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use pgnkit::io::{Output, OutputError, OutputOptions};
use pgnkit::jobs::positions::{Format, Positions, PositionsOptions, PositionsOutput, Unique, csv_header};
use pgnkit::jobs::report;
use pgnkit::notation::EpMode;
use pgnkit::pipeline::stats::Stats;

use crate::cli::args::{InputArgs, Opened, run_exact, run_guessed, settle};
use crate::cli::{Code, Fail, interrupt};

pub const EXAMPLES: &str = "\
Examples:
  pgnkit positions games.pgn > games.fen
  pgnkit positions --format epd --unique -o positions.epd.zst games.pgn
  pgnkit positions --format jsonl --tags White,Black,Result,WhiteElo lichess.pgn.zst | head
  pgnkit positions --format csv --min-ply 10 --max-ply 40 --every 2 --skip-errors a.pgn b.pgn -o out.csv";

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum FormatArg {
    /// One FEN per line.
    Fen,
    /// EPD: four fields, `hmvc`, `fmvn`, `id "FILE:GAME:PLY"`, `c0 "NEXT-SAN"`.
    Epd,
    /// JSON Lines: game, ply, fen, san, uci, tags, eval, clk.
    Jsonl,
    /// CSV with a header line: game,ply,fen,san,uci and the tags.
    Csv,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum EpArg {
    /// Only when an en passant capture is legal (python-chess's default; best for deduplication).
    Legal,
    /// After every double step (PGN standard).
    Always,
}

/// Keys a JSON record already has, refused as tag names.
const RESERVED: [&str; 7] = ["game", "ply", "fen", "san", "uci", "eval", "clk"];

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    input: InputArgs,
    /// Output file (`.zst` name: zstd); `-` is stdout. Never overwrites an input.
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    output: PathBuf,
    /// Record format.
    #[arg(long, value_enum, default_value = "fen")]
    format: FormatArg,
    /// Which en passant square FEN and EPD show.
    #[arg(long, value_enum, default_value = "legal")]
    ep_square: EpArg,
    /// Tags copied into jsonl and csv records (missing tags: null or empty).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    tags: Vec<String>,
    /// Keep plies from N on (0 is the start position).
    #[arg(long, value_name = "N", default_value_t = 0)]
    min_ply: u32,
    /// Keep plies up to N.
    #[arg(long, value_name = "N")]
    max_ply: Option<u32>,
    /// Keep plies divisible by N.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    every: u32,
    /// Each position once across the whole run (placement, side, castling, legal ep square, pockets).
    #[arg(long)]
    unique: bool,
    /// Drop every game that has an error (default: keep its valid prefix).
    #[arg(long)]
    skip_errors: bool,
}

fn options(args: &Args) -> Result<PositionsOptions, Fail> {
    let format = match args.format {
        FormatArg::Fen => Format::Fen,
        FormatArg::Epd => Format::Epd,
        FormatArg::Jsonl => Format::Jsonl,
        FormatArg::Csv => Format::Csv,
    };
    if !args.tags.is_empty() && !matches!(format, Format::Jsonl | Format::Csv) {
        return Err(Fail::usage("--tags needs --format jsonl or csv"));
    }
    for t in &args.tags {
        if t.is_empty() || (format == Format::Jsonl && RESERVED.contains(&t.as_str())) {
            return Err(Fail::usage(format!("--tags: \"{t}\" cannot be a tag column")));
        }
    }
    if let Some(max) = args.max_ply
        && max < args.min_ply
    {
        return Err(Fail::usage(format!("--max-ply {max} is below --min-ply {}", args.min_ply)));
    }
    Ok(PositionsOptions {
        format,
        ep: match args.ep_square {
            EpArg::Legal => EpMode::Legal,
            EpArg::Always => EpMode::Always,
        },
        tags: args.tags.clone(),
        min_ply: args.min_ply,
        max_ply: args.max_ply,
        every: args.every,
        unique: args.unique,
        skip_errors: args.skip_errors,
        file: String::new(),
    })
}

/// An output failure as the run's end: a closed stdout is a quiet success.
fn output_fail(e: OutputError) -> Fail {
    match e {
        OutputError::BrokenPipe => Fail { code: Code::Ok, message: String::new() },
        e => Fail { code: Code::from_exit(e.exit_code()), message: e.to_string() },
    }
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    interrupt::install();
    let start = Instant::now();
    let base = options(args)?;
    let opts = args.input.pipeline();
    let out_opts = OutputOptions { inputs: args.input.files.clone(), zstd_level: 0 };
    let mut out = Output::create(&args.output, &out_opts).map_err(output_fail)?;
    if base.format == Format::Csv {
        out.write_all(&csv_header(&base.tags)).map_err(|e| output_fail(out.error(e)))?;
    }
    let mut unique = base.unique.then(Unique::new);
    let mut total = Stats::default();
    let mut written = 0u64;
    let mut worst: Option<Code> = None;
    let mut stopped: Option<String> = None;
    for path in &args.input.files {
        let Some(Opened { file, source, compression, progress }) = args.input.open(path, &mut worst) else {
            continue;
        };
        let job = Positions::new(PositionsOptions { file: file.clone(), ..base.clone() });
        let mut lines = 0u64;
        let mut write_error: Option<OutputError> = None;
        let mut release = |mut o: PositionsOutput| -> Result<(), String> {
            let mut stderr = std::io::stderr().lock();
            for mut d in std::mem::take(&mut o.diagnostics) {
                d.line += lines;
                let _ = writeln!(stderr, "{}", report::diagnostic_text(&file, &d));
            }
            lines += o.end.newlines;
            total.merge(&o.stats);
            let result = match unique.as_mut() {
                Some(u) => u.filter(&o, |b| out.write_all(b)),
                None => out.write_all(&o.bytes).map(|()| o.records),
            };
            match result {
                Ok(n) => {
                    written += n;
                    Ok(())
                }
                Err(e) => {
                    let e = out.error(e);
                    let msg = e.to_string();
                    write_error = Some(e);
                    Err(msg)
                }
            }
        };
        let result = if base.format.numbers_games() {
            run_exact(source, &job, &opts, &progress, &mut release)
        } else {
            run_guessed(source, &job, &opts, &progress, &mut release)
        };
        progress.finish();
        settle(path, compression, result, write_error.map(output_fail), &mut worst)?;
        stopped = interrupt::stopped(&file, &progress);
        if stopped.is_some() {
            break;
        }
    }
    if worst.is_some() {
        // An input could not be read (to its end): the output file is not put in place.
        drop(out);
    } else {
        // Interrupted, the output is flushed and put in place too: it ends after a whole game.
        out.finish().map_err(output_fail)?;
        if !args.input.quiet {
            let mut summary = report::summary_text("positions", &total, start.elapsed());
            summary.push_str(&format!("  {written} positions written\n"));
            eprint!("{summary}");
        }
    }
    if let Some(line) = stopped {
        eprint!("{line}");
        return Ok(Code::Interrupted);
    }
    // An unreadable input was reported where it happened.
    Ok(worst.unwrap_or(if total.games_with_errors > 0 { Code::Failures } else { Code::Ok }))
}
