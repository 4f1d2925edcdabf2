//! `pgnkit positions`: one record per mainline position (FEN, EPD, JSON Lines or CSV) to stdout
//! or `-o FILE`; error diagnostics and a summary on stderr; exit 1 when some game has an error.

use pgnkit::jobs::positions::{Format, Positions, PositionsOptions, Writer};
use pgnkit::jobs::{diagnostics, run};
use pgnkit::notation::EpMode;

use crate::cli::args::{HeadArgs, Leaves, SelectArgs, finish};
use crate::cli::progress::Progress;
use crate::cli::{Code, Fail, interrupt};

pub const EXAMPLES: &str = "\
Examples:
  pgnkit positions games.pgn > games.fen
  pgnkit positions --format epd --unique -o positions.epd.zst games.pgn
  pgnkit positions --format jsonl --tags White,Black,Result,WhiteElo lichess.pgn.zst | head
  pgnkit positions --format csv --min-ply 10 --max-ply 40 --every 2 --skip-errors a.pgn b.pgn -o out.csv.gz
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
    head: HeadArgs,
    #[command(flatten)]
    select: SelectArgs,
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
        select: args.select.selection(None)?,
    })
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    interrupt::install();
    let job = Positions::new(options(args)?);
    let out = args.head.create_output()?;
    let mut writer = Writer::new(&job, out, std::io::stderr())?;
    let progress = Progress::new(args.head.quiet);
    let summary = run::run(&job, &args.head.files, &args.head.run_options(), &progress, &mut writer)?;
    writer.finish(&summary)?;
    let failures = summary.stats.games_with_errors > 0;
    Ok(finish(&args.head, &summary, Leaves::Prefix, failures, || {
        diagnostics::summary_text("positions", &summary.stats, summary.elapsed)
    }))
}
