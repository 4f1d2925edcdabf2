//! Argument groups shared by the commands that read PGN, and the steps they share around the
//! library's run driver: the run options, the exit code and the lines printed at the end.

use std::path::PathBuf;

use crate::cli::fail::Fail;
use pgnkit::chess::Variant;
use pgnkit::error::UsageError;
use pgnkit::io::{Output, OutputError, OutputOptions};
use pgnkit::jobs::diagnostics::Records;
use pgnkit::jobs::run::{RunOptions, Summary};
use pgnkit::pgn::GameResult;
use pgnkit::select::{EcoRanges, Ending, Selection};

use pgnkit::exit::Code;

/// The most worker threads or engines a run takes: beyond, starting them alone takes seconds.
pub const MAX_THREADS: i64 = 1024;

/// The head of every job's arguments: the inputs and how to read them, the output, and how the
/// run shows itself.
#[derive(clap::Args, Debug)]
pub struct HeadArgs {
    /// PGN files (plain, zstd or gzip, detected by content), or `-` for stdin.
    #[arg(required = true, value_name = "FILES")]
    pub files: Vec<PathBuf>,
    /// Output file: plain, or zstd or gzip when its name ends in `.zst` or `.gz`; `-` is stdout.
    /// Never overwrites an input.
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,
    /// Read regular files instead of memory-mapping them.
    #[arg(long)]
    pub no_mmap: bool,
    /// Worker threads, at most 1024 (default, or 0: all cores).
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(0..=MAX_THREADS))]
    pub threads: Option<u16>,
    /// No progress bar and no summary (errors and diagnostics are still written).
    #[arg(short, long)]
    pub quiet: bool,
    /// Target chunk size in KiB, 1 to 1 GiB (output does not depend on it).
    #[arg(long, value_name = "KIB", hide = true, value_parser = clap::value_parser!(u32).range(1..=1 << 20))]
    pub chunk_kib: Option<u32>,
    #[command(flatten)]
    pub shard: ShardArgs,
}

impl HeadArgs {
    /// The run driver's options from the arguments.
    pub fn run_options(&self) -> RunOptions {
        let defaults = RunOptions::default();
        RunOptions {
            threads: self.threads.filter(|&n| n > 0).map_or(defaults.threads, usize::from),
            chunk_size: self.chunk_kib.map_or(defaults.chunk_size, |k| (k as usize) << 10),
            no_mmap: self.no_mmap,
        }
    }

    /// How outputs are created: none of them may be an input.
    pub fn output_options(&self) -> OutputOptions {
        OutputOptions { inputs: self.files.clone(), zstd_level: 0 }
    }

    /// The `-o` output, created.
    pub fn create_output(&self) -> Result<Output, OutputError> {
        Output::create(&self.output, &self.output_options())
    }
}

/// Warns on stderr of each `--where` expression of `select` whose tags no game of the run had
/// (it held for no game, or with `!=` for every game); the exit code does not change. A shard
/// (`shard`) warns of none: another shard's games may have them, its manifest records which
/// its own had, and `merge` warns of those no shard's games had.
pub fn warn_absent(select: &pgnkit::select::Selection, stats: &pgnkit::pipeline::stats::Stats, shard: bool) {
    if shard {
        return;
    }
    for absent in select.absent(stats) {
        stderrln!("pgnkit: warning: {absent}");
    }
}

/// `--shard` and its companions.
#[derive(clap::Args, Debug, Default)]
pub struct ShardArgs {
    /// Run shard I of N (0-based) of the inputs' games (lines for annotate --format epd): a
    /// contiguous run of them, the same on any machine and at any -j. Outputs become parts (`-o
    /// out.pgn` writes `out.pgn.part-I-of-N`) with a manifest beside them; `pgnkit merge` joins
    /// them. `auto` reads the scheduler's index (Slurm, Kubernetes, AWS Batch, Google Batch). A
    /// shard of a plain file reads the file before its share once at skip speed to find its
    /// first game, or only the MiB before it with `pgnkit index`'s sidecar. A zstd file of
    /// several frames (pzstd, the lichess dumps) is shared out by frames: a shard decodes only
    /// its frames with the sidecar, else also those before them (to number its games). A
    /// single-frame zstd stream or gzip is decompressed from its start by every shard. clean
    /// --dedup and positions --unique also write a keys part (`-o`'s name + `.keys`), with which
    /// merge settles the repeats (and shorter records) that lie in different shards. Not for
    /// stdin.
    #[arg(long, value_name = "I/N|auto")]
    pub shard: Option<String>,
    /// The number of shards for `--shard auto` where the scheduler does not say it
    /// (Kubernetes; or set PGNKIT_SHARDS).
    #[arg(long, value_name = "N", requires = "shard")]
    pub shards: Option<u64>,
    /// With --shard: write the parts and the manifest in DIR (named after the outputs).
    #[arg(long, value_name = "DIR", requires = "shard")]
    pub output_dir: Option<PathBuf>,
}

/// What a job leaves under its output's name when it is interrupted or an input fails (cannot
/// be read to its end, or is not PGN).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaves {
    /// Every record of the games read, either way (`check`).
    Prefix,
    /// Interrupted, every record of the games read before the stop; an input failed, nothing
    /// (`positions`).
    PrefixUnlessFailed,
    /// Nothing, either way: the output is written under a temporary name and dropped (`clean`,
    /// `annotate`).
    Nothing,
}

/// Ends a run the same way for every job: its summary on stderr unless `-q` (`summary` writes
/// it, given the output's name when the output was not kept, so that it claims no record
/// written), the line saying where an interrupted run stopped and what it left, and the exit
/// code (`failures`: the job found what makes it exit 1).
pub fn finish(
    head: &HeadArgs,
    run: &Summary,
    leaves: Leaves,
    failures: bool,
    summary: impl FnOnce(Option<&str>) -> String,
) -> Code {
    finish_records(head, run, leaves, Records::Games, failures, summary)
}

/// [`finish`] of a run whose records are `records` (lines of EPD input, for `annotate`).
pub fn finish_records(
    head: &HeadArgs,
    run: &Summary,
    leaves: Leaves,
    records: Records,
    failures: bool,
    summary: impl FnOnce(Option<&str>) -> String,
) -> Code {
    // Stdout cannot be taken back: what it got stays written.
    let stdout = head.output == std::path::Path::new("-");
    let kept = stdout
        || match leaves {
            Leaves::Prefix => true,
            Leaves::PrefixUnlessFailed => run.stopped.is_some() || !run.input_failed(),
            Leaves::Nothing => run.stopped.is_none() && !run.input_failed(),
        };
    if !head.quiet {
        let name = head.output.display().to_string();
        stderr!("{}", summary((!kept).then_some(name.as_str())));
    }
    if let Some(s) = &run.stopped {
        let record = records.one();
        let left = match leaves {
            Leaves::Prefix | Leaves::PrefixUnlessFailed => format!("the output holds every {record} before"),
            // What stdout got is said, not denied.
            Leaves::Nothing if stdout => {
                format!("stdout got the {record}s written before, with nothing after them")
            }
            // A file already under the name is an earlier run's: said, lest it pass for this one's.
            Leaves::Nothing if head.shard.shard.is_none() && head.output.exists() => {
                format!("no output was written: {} is as it was before this run", head.output.display())
            }
            Leaves::Nothing => "no output was written".to_string(),
        };
        // A shard's numbers are the input's: its first record is not the input's first.
        let at = match (s.games == s.first, s.first) {
            (true, 0) => format!("before the first {record} of {}", s.input),
            (true, n) => {
                format!("before the first {record} of this shard's share, {record} {} of {}", n + 1, s.input)
            }
            (false, 0) => format!("after {record} {} of {}", s.games, s.input),
            (false, n) => {
                format!(
                    "after {record} {} of {} (this shard's share starts at {record} {})",
                    s.games,
                    s.input,
                    n + 1
                )
            }
        };
        stderrln!("pgnkit: interrupted: stopped {at}; {left}");
    } else if !kept {
        // The records the summary counted as passed went to a temporary file, which is gone.
        stderrln!("pgnkit: an input failed (above), so {} was not written", head.output.display());
    }
    run.exit_code(failures)
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndingArg {
    /// The side to move is mated.
    Checkmate,
    /// The side to move has no move and is not in check.
    Stalemate,
    /// Neither side has the material to mate.
    Insufficient,
    /// Fifty moves without a capture or pawn move.
    FiftyMoves,
    /// The last position for the third time.
    Repetition,
}

/// A rule set `--variant` selects.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum VariantArg {
    /// Standard chess.
    Standard,
    /// Chess960 (Fischer random).
    #[value(alias = "960", alias = "fischerandom", alias = "frc")]
    Chess960,
    /// Crazyhouse.
    #[value(alias = "zh")]
    Crazyhouse,
}

impl From<VariantArg> for Variant {
    fn from(v: VariantArg) -> Variant {
        match v {
            VariantArg::Standard => Variant::Standard,
            VariantArg::Chess960 => Variant::Chess960,
            VariantArg::Crazyhouse => Variant::Crazyhouse,
        }
    }
}

/// `--result`: one of the four results.
fn parse_result(text: &str) -> Result<GameResult, String> {
    GameResult::from_ascii(text.as_bytes()).ok_or_else(|| "not a result (1-0, 0-1, 1/2-1/2, *)".to_string())
}

/// `--eco`: ECO ranges.
fn parse_eco(text: &str) -> Result<EcoRanges, String> {
    EcoRanges::parse(text)
}

/// The filters a command shares: all must hold (or, with --invert, not all).
#[derive(clap::Args, Debug, Default)]
pub struct SelectArgs {
    /// Keep games whose tags satisfy EXPR, `TAG OP VALUE`: OP is =, !=, <, <=, >, >= (numbers
    /// and dates compare as such, other text in byte order; Elo, WhiteElo, BlackElo, Year, Plies
    /// and PlyCount order against numbers only), ~ (case-insensitive substring) or =~ (regular
    /// expression);
    /// pseudo-tags Player (either side), Elo (both players), Year, Plies (the mainline's plies,
    /// counted from the moves); PlyCount is the tag where a game has one, else Plies.
    /// Repeatable: all must hold. A tag no game has is warned of at the end.
    #[arg(long = "where", value_name = "EXPR")]
    pub wheres: Vec<String>,
    /// Keep games of this rule set.
    #[arg(long = "variant", value_enum, value_name = "VARIANT")]
    pub variant: Option<VariantArg>,
    /// Keep games with this result: 1-0, 0-1, 1/2-1/2 or *.
    #[arg(long, value_name = "RESULT", value_parser = parse_result)]
    pub result: Option<GameResult>,
    /// Keep games that end so on the board after their mainline.
    #[arg(long, value_enum)]
    pub ending: Option<EndingArg>,
    /// Keep games whose mainline reaches this position (FEN; by any move order).
    #[arg(long, value_name = "FEN")]
    pub position: Option<String>,
    /// Keep games whose mainline reaches this material at some point, e.g. KRPkr (White upper
    /// case, kings optional): the whole game is kept.
    #[arg(long, value_name = "SIGNATURE")]
    pub material: Option<String>,
    /// Keep games whose opening is in these ECO ranges (`A00-B99,C42`), as the lichess table
    /// names it from the mainline's positions (else the ECO tag). Repeatable: any may hold.
    #[arg(long, value_name = "RANGES", value_parser = parse_eco)]
    pub eco: Vec<EcoRanges>,
    /// Keep the games the other filters leave out, and leave out the others.
    #[arg(long)]
    pub invert: bool,
}

/// Filters on the length of a game's mainline.
#[derive(clap::Args, Debug, Default)]
pub struct PlyArgs {
    /// Keep games of at least N mainline plies.
    #[arg(long, value_name = "N")]
    pub min_ply: Option<u32>,
    /// Keep games of at most N mainline plies.
    #[arg(long, value_name = "N")]
    pub max_ply: Option<u32>,
}

impl SelectArgs {
    /// The filters given, by their option names, with the game-length ones of `plies`: for a
    /// run that reads no games (`annotate --format epd`) to refuse them.
    pub fn given(&self, plies: &PlyArgs) -> Vec<&'static str> {
        [
            ("--where", !self.wheres.is_empty()),
            ("--variant", self.variant.is_some()),
            ("--result", self.result.is_some()),
            ("--ending", self.ending.is_some()),
            ("--position", self.position.is_some()),
            ("--material", self.material.is_some()),
            ("--eco", !self.eco.is_empty()),
            ("--invert", self.invert),
            ("--min-ply", plies.min_ply.is_some()),
            ("--max-ply", plies.max_ply.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, on)| on.then_some(name))
        .collect()
    }

    /// The run's filters, with the game-length ones of `plies` when the command has them.
    pub fn selection(&self, plies: Option<&PlyArgs>) -> Result<Selection, UsageError> {
        let wheres = self
            .wheres
            .iter()
            .map(|w| {
                pgnkit::select::tags::TagExpr::parse(w)
                    .map_err(|source| UsageError::Where { expr: w.clone(), source })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let variant = self.variant.map(Variant::from);
        let position = self
            .position
            .as_deref()
            .map(|fen| {
                pgnkit::notation::fen::parse_fen(fen, variant.unwrap_or(Variant::Standard))
                    .map_err(|source| UsageError::Fen { option: "--position", fen: fen.to_string(), source })
            })
            .transpose()?;
        let material = self
            .material
            .as_deref()
            .map(|m| m.parse().map_err(|source| UsageError::Material { signature: m.to_string(), source }))
            .transpose()?;
        let ending = self.ending.map(|e| match e {
            EndingArg::Checkmate => Ending::Checkmate,
            EndingArg::Stalemate => Ending::Stalemate,
            EndingArg::Insufficient => Ending::Insufficient,
            EndingArg::FiftyMoves => Ending::FiftyMoves,
            EndingArg::Repetition => Ending::Repetition,
        });
        let (min_ply, max_ply) = plies.map_or((None, None), |p| (p.min_ply, p.max_ply));
        if let (Some(min), Some(max)) = (min_ply, max_ply)
            && max < min
        {
            return Err(UsageError::PlyRange { min, max });
        }
        let selection = Selection {
            wheres,
            min_ply,
            max_ply,
            variant,
            result: self.result,
            result_written: false,
            ending,
            position,
            material,
            eco: EcoRanges::union(&self.eco),
            invert: self.invert,
        };
        // Alone it would leave out every game, and count none as filtered.
        if selection.invert && selection.is_empty() {
            let lengths = if plies.is_some() { ", --min-ply, --max-ply" } else { "" };
            return Err(UsageError::rule(format!(
                "--invert keeps the games the filters leave out, and no filter is given (--where, \
                 --variant, --result, --ending, --position, --material, --eco{lengths})"
            )));
        }
        Ok(selection)
    }
}

/// The options of `--format parquet` that `positions` and `annotate` share.
#[derive(clap::Args, Debug, Clone)]
pub struct ParquetArgs {
    /// --format parquet: the position as `epd` (its four EPD fields, as --format epd writes
    /// them) and int64 `hmvc` and `fmvn` columns, instead of `fen`.
    #[arg(long)]
    pub epd_columns: bool,
}

impl ParquetArgs {
    /// Refuses what the format cannot take: `--epd-columns` without `--format parquet`, and
    /// Parquet, which is binary, to a terminal (`-o -` to a pipe or a file is fine: the writer only
    /// appends).
    pub fn check(&self, parquet: bool, output: &std::path::Path) -> Result<(), Fail> {
        use std::io::IsTerminal;
        if !parquet {
            if self.epd_columns {
                return Err(Fail::usage("--epd-columns needs --format parquet"));
            }
        } else if output == std::path::Path::new("-") && std::io::stdout().is_terminal() {
            return Err(Fail::usage(
                "--format parquet writes a binary file: give it a name (-o FILE.parquet) or a pipe",
            ));
        } else if pgnkit::io::compressed_as(output).is_some() {
            // A compressed stream around a Parquet file is a file no Parquet reader opens.
            return Err(Fail::usage(format!(
                "--format parquet compresses its own pages (zstd): give -o a name that does not end \
                 in .zst or .gz, not {}",
                output.display()
            )));
        }
        Ok(())
    }
}
