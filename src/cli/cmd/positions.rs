//! `pgnkit positions`: one record per mainline position (FEN, EPD, JSON Lines or CSV) to stdout
//! or `-o FILE`; error diagnostics and a summary on stderr; exit 1 when some game has an error.

use std::path::PathBuf;

use pgnkit::io::{Output, OutputOptions};
use pgnkit::jobs::positions::{Format, Positions, PositionsOptions, Writer, csv_header};
use pgnkit::jobs::{diagnostics, run};
use pgnkit::notation::EpMode;

use crate::cli::args::{InputArgs, SelectArgs, conclude};
use crate::cli::progress::Progress;
use crate::cli::shard::{ShardArgs, Sharding};
use crate::cli::{Code, Fail, interrupt};

pub const EXAMPLES: &str = "\
Examples:
  pgnkit positions games.pgn > games.fen
  pgnkit positions --format epd --unique -o positions.epd.zst games.pgn
  pgnkit positions --format jsonl --tags White,Black,Result,WhiteElo lichess.pgn.zst | head
  pgnkit positions --format csv --min-ply 10 --max-ply 40 --every 2 --skip-errors a.pgn b.pgn -o out.csv
  pgnkit positions --format epd --where 'Elo >= 2400' --material KRPkr games.pgn > endgames.epd

--min-ply and --max-ply choose the plies written; the filters (--where, --eco, --material, ...)
choose the games: the positions of a game they leave out are not written.";

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
    #[command(flatten)]
    select: SelectArgs,
    #[command(flatten)]
    shard: ShardArgs,
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
        select: {
            let select = args.select.selection(None, &args.input.files)?;
            args.select.no_eco_tags("positions")?;
            select
        },
    })
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    interrupt::install();
    let job = Positions::new(options(args)?);
    let mut sharding = Sharding::new(&args.shard, &args.input, "positions")?;
    let out_opts = OutputOptions { inputs: args.input.files.clone(), zstd_level: 0 };
    let progress = Progress::new(args.input.quiet);
    let (summary, writer) = match sharding.as_mut() {
        Some(s) => {
            if args.unique {
                return Err(Fail::usage(format!(
                    "--shard {}: --unique across shards is not supported yet; run positions --unique over the merged output's games",
                    s.spec()
                )));
            }
            let opts = job.options();
            let header = if opts.format == Format::Csv { csv_header(&opts.tags) } else { Vec::new() };
            let part = s.output("output", &args.output, &header, "")?;
            let out = Output::create_as(&part, &args.output, &out_opts)?;
            let mut writer = Writer::part(&job, out, std::io::stderr());
            (run::run_shares(&job, &s.shares(), &args.input.run_options(), &progress, &mut writer)?, writer)
        }
        None => {
            let out = Output::create(&args.output, &out_opts)?;
            let mut writer = Writer::new(&job, out, std::io::stderr())?;
            (run::run(&job, &args.input.files, &args.input.run_options(), &progress, &mut writer)?, writer)
        }
    };
    let input_failed = summary.input_failed();
    writer.finish(&summary)?;
    if !input_failed && !args.input.quiet {
        eprint!("{}", diagnostics::summary_text("positions", &summary.stats, summary.elapsed));
    }
    let code = conclude(&summary, summary.stats.games_with_errors > 0);
    if let Some(s) = sharding {
        s.finish(&summary, code, serde_json::Value::Null)?;
    }
    Ok(code)
}
