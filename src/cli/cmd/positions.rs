//! `pgnkit positions`: one record per mainline position (FEN, EPD, JSON Lines, CSV or Parquet) to
//! stdout or `-o FILE`; error diagnostics and a summary on stderr; exit 1 when some game has an error.

use pgnkit::jobs::diagnostics;
use pgnkit::jobs::positions::{Format, Positions, PositionsOptions, Writer, absent_tag_message, csv_header};
use pgnkit::notation::EpMode;

use crate::cli::args::{HeadArgs, Leaves, ParquetArgs, SelectArgs, finish, warn_absent};
use crate::cli::fail::Fail;
use crate::cli::interrupt;
use crate::cli::progress::Progress;
use crate::cli::shard::{self, Layout, Sharding};
use pgnkit::exit::Code;

pub const EXAMPLES: &str = "\
Examples:
  pgnkit positions games.pgn > games.fen
  pgnkit positions --format epd --unique -o positions.epd.zst games.pgn
  pgnkit positions --format jsonl --tags White,Black,Result,WhiteElo lichess.pgn.zst | head
  pgnkit positions --format csv --min-ply 10 --max-ply 40 --every 2 --skip-errors a.pgn b.pgn -o out.csv.gz
  pgnkit positions --format parquet --tags White,Black,WhiteElo,BlackElo,Date games.pgn -o positions.parquet
  pgnkit positions --format epd --position-material KRPkr,KRkrp --where 'Plies > 80' games.pgn > rook-endings.epd
  pgnkit positions --format epd --where 'Elo >= 2400' --material KRPkr games.pgn > games-reaching-krpkr.epd

--min-ply, --max-ply, --every, --position-material and --unique choose the positions written;
the game filters (--where, --eco, --material, ...) choose the games, and every position of a game
they keep is written (--material KRPkr keeps the games that reach that material, and writes their
openings and middlegames too; --position-material KRPkr writes only the positions with it).

--format parquet writes one row per position, with typed columns (`?`: may be null):
  file string, game int64, ply int32, fen string (with --epd-columns: epd string, hmvc int64,
  fmvn int64), san string?, uci string?, turn string (white|black), eval_cp int32?,
  eval_mate int32?, clk double? (seconds),
then one column per --tags name: WhiteElo, BlackElo, WhiteUSCF, BlackUSCF, WhiteFideId,
BlackFideId and PlyCount as int32? (null unless all digits, spaces around them ignored); Date,
EventDate and UTCDate as date? (null unless a whole, real YYYY.MM.DD from year 0001) followed by
NAME_text string? (the tag as read);
any other tag as string?. Strings are UTF-8; file, moves, turn and tags are dictionary-encoded.
Pages are zstd-compressed, row groups hold 131072 rows. With --shard, each shard writes
NAME.part-I-of-N.parquet, which DuckDB reads together as read_parquet('DIR/*.part-*.parquet')
(the parts only: merge writes NAME.parquet beside them, which DIR/*.parquet would count again;
under --unique a position repeated in several shards is in each of their parts until merge
settles it).";

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum FormatArg {
    /// One FEN per line.
    Fen,
    /// EPD: four fields, `hmvc`, `fmvn`, `id "FILE:GAME:PLY"`, `c0 "NEXT-SAN"`.
    Epd,
    /// JSON Lines: file, game, ply, fen, san, uci, tags, eval, clk.
    Jsonl,
    /// CSV with a header line: file,game,ply,fen,san,uci and the tags.
    Csv,
    /// Apache Parquet: typed columns (below), zstd pages; needs -o FILE or a pipe.
    Parquet,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum EpArg {
    /// Only when an en passant capture is legal (python-chess's default; best for deduplication).
    Legal,
    /// After every double step (PGN standard).
    Always,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub(crate) head: HeadArgs,
    /// Record format.
    #[arg(long, value_enum, default_value = "fen")]
    format: FormatArg,
    /// Which en passant square FEN and EPD show.
    #[arg(long, value_enum, default_value = "legal")]
    ep_square: EpArg,
    #[command(flatten)]
    parquet: ParquetArgs,
    /// Tags copied into jsonl, csv and parquet records (missing tags: null or empty; a name no
    /// game had is warned of).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    tags: Vec<String>,
    /// Write the positions from ply N on (0 is the start position).
    #[arg(long, value_name = "N", default_value_t = 0, help_heading = "Positions written")]
    min_ply: u32,
    /// Write the positions up to ply N.
    #[arg(long, value_name = "N", help_heading = "Positions written")]
    max_ply: Option<u32>,
    /// Write the positions at plies divisible by N.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..), help_heading = "Positions written")]
    every: u32,
    /// Write only the positions with exactly this material on the board, e.g. KRPkr (White upper
    /// case, kings optional); several, comma-separated or repeated: any of them. Unlike
    /// --material, which keeps whole games that reach it.
    #[arg(long, value_name = "SIGNATURES", value_delimiter = ',', help_heading = "Positions written")]
    position_material: Vec<String>,
    /// Write each position once across the whole run, its first record (placement, side,
    /// castling, legal ep square, pockets). Past 1.8 million distinct positions the rest is
    /// decided in temporary files ($TMPDIR), so memory stays bounded.
    #[arg(long, help_heading = "Positions written")]
    unique: bool,
    /// Drop every game that has an error, counted in the summary as skipped for errors (default:
    /// keep its valid prefix). The positions are the mainline's: variations are skipped unread,
    /// so an error in one counts only for `check`.
    #[arg(long)]
    skip_errors: bool,
    // Last: the heading holds for every option after it.
    #[command(flatten, next_help_heading = "Game filters: the games whose positions are written")]
    select: SelectArgs,
}

fn options(args: &Args) -> Result<PositionsOptions, Fail> {
    let format = match args.format {
        FormatArg::Fen => Format::Fen,
        FormatArg::Epd => Format::Epd,
        FormatArg::Jsonl => Format::Jsonl,
        FormatArg::Csv => Format::Csv,
        FormatArg::Parquet => Format::Parquet,
    };
    if !args.tags.is_empty() && !matches!(format, Format::Jsonl | Format::Csv | Format::Parquet) {
        return Err(Fail::usage("--tags needs --format jsonl, csv or parquet"));
    }
    // `White, Black` as typed: the names without their spaces.
    let tags: Vec<String> = args.tags.iter().map(|t| t.trim().to_string()).collect();
    // The columns a record has before its tags: JSON Lines' keys, CSV's header.
    let own: &[&str] = match format {
        Format::Jsonl => &pgnkit::jobs::positions::JSONL_KEYS,
        Format::Csv => &pgnkit::jobs::positions::CSV_COLUMNS,
        _ => &[],
    };
    // Names compared without case, as DuckDB's and pandas' readers of the columns do.
    let same = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
    for (i, t) in tags.iter().enumerate() {
        if t.is_empty() {
            return Err(Fail::usage("--tags: \"\" cannot be a tag column"));
        }
        if own.iter().any(|o| same(o, t)) {
            return Err(Fail::usage(format!(
                "--tags: \"{t}\" cannot be a tag column (the record's own, names compared without case)"
            )));
        }
        if tags[..i].iter().any(|u| same(u, t)) {
            return Err(Fail::usage(format!("--tags: \"{t}\" is named twice")));
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
        epd_columns: args.parquet.epd_columns,
        tags,
        min_ply: args.min_ply,
        max_ply: args.max_ply,
        every: args.every,
        material: args
            .position_material
            .iter()
            .map(|m| m.parse().map_err(|e| Fail::usage(format!("--position-material {m:?}: {e}"))))
            .collect::<Result<_, _>>()?,
        unique: args.unique,
        skip_errors: args.skip_errors,
        select: args.select.selection(None)?,
    })
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    interrupt::install();
    let job = Positions::new(options(args)?).map_err(|e| Fail::usage(format!("--tags: {e}")))?;
    args.parquet.check(job.options().format == Format::Parquet, &args.head.output)?;
    let mut sharding = Sharding::new(&args.head, "positions")?;
    let opts = job.options();
    let header = if opts.format == Format::Csv { csv_header(&opts.tags) } else { Vec::new() };
    let layout = if opts.format == Format::Parquet {
        Layout::Table
    } else {
        Layout::Text { header: &header, footer: "" }
    };
    let out = shard::create(&mut sharding, &args.head, "output", &args.head.output, layout)?;
    let keys = if args.unique { shard::keys(&mut sharding, &args.head)? } else { None };
    let run_opts = args.head.run_options();
    let writer = match sharding {
        Some(_) => Writer::part(&job, out, pgnkit::io::stderr())?.keys(keys)?,
        None => Writer::new(&job, out, pgnkit::io::stderr())?,
    };
    let mut writer = writer.threads(run_opts.threads)?.interruptible(interrupt::requested);
    let progress = Progress::new(args.head.quiet);
    let mut summary = shard::run(&job, &args.head, &run_opts, &sharding, &progress, &mut writer)?;
    let waited = "the records that waited past --unique's memory bound";
    if let Some(code) = interrupt::at_finish(writer.finish(&mut summary), waited)? {
        return Ok(code);
    }
    let failures = summary.stats.games_with_errors > 0;
    let code = finish(&args.head, &summary, Leaves::PrefixUnlessFailed, failures, |unkept| {
        diagnostics::summary_text("positions", &summary.stats, summary.elapsed, unkept)
    });
    warn_absent(&job.options().select, &summary.stats, sharding.is_some());
    // As `--where`'s: merge warns of the tags no shard's games had.
    for name in job.options().absent_tags(&summary.stats).into_iter().filter(|_| sharding.is_none()) {
        stderrln!("pgnkit: warning: {}", absent_tag_message(name));
    }
    // The tags, for merge to name those no shard's games had.
    let extra = serde_json::json!({ "tags": job.options().tags });
    Sharding::conclude(sharding, &summary, code, &job.options().select, extra)?;
    Ok(code)
}
