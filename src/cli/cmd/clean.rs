//! `pgnkit clean`: every game written again in PGN export format, every repair logged, rejected
//! games kept verbatim, duplicates removed; the ledger on stderr; exit 1 when some game was
//! rejected.

use std::path::PathBuf;

use pgnkit::io::{Output, OutputOptions};
use pgnkit::jobs::clean::sink::{DUPLICATES, FILTERED, KEPT_BROKEN, REJECTED, WRITTEN};
use pgnkit::jobs::clean::{Clean, CleanOptions, CleanWriter, EcoTags, Outputs};
use pgnkit::jobs::export::Strip;
use pgnkit::jobs::run::Summary;
use pgnkit::jobs::{report, run};

use crate::cli::args::{InputArgs, PlyArgs, SelectArgs, conclude};
use crate::cli::progress::Progress;
use crate::cli::{Code, Fail, interrupt};

pub const EXAMPLES: &str = "\
Examples:
  pgnkit clean games.pgn -o clean.pgn
  pgnkit clean lichess_db_standard_rated_2024-01.pgn.zst -o clean.pgn.zst --rejects rejects.pgn --report report.jsonl
  pgnkit clean --dedup --duplicates dups.pgn a.pgn b.pgn c.pgn -o all.pgn
  pgnkit clean --strip comments,variations --tags roster --add-tags PlyCount old.pgn -o slim.pgn

Every input game ends in one place: written, rejected (kept verbatim in --rejects), filtered
out, or a duplicate (kept verbatim in --duplicates). --report FILE writes JSON Lines: one record
per repair ({\"type\": \"repair\", \"data\": {file, game, line, offset, kind, before, after}}),
rejection, filtered game and duplicate (with the game it repeats), then a summary with the
ledger per input. The output is UTF-8: tag values and comments that are not UTF-8 are read as
Windows-1252, one `encoding` repair a game (its `before` shows the bytes as \\xNN); the rejects
and duplicates are byte copies of the input, in its encoding. Outputs are written under a
temporary name and renamed when the run completes: an interrupted run (exit 130) or a failed one
leaves none under its final name.";

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum StripArg {
    /// Every comment.
    Comments,
    /// Every NAG.
    Nags,
    /// Every variation.
    Variations,
    /// `[%clk]` commands in comments.
    Clock,
    /// `[%eval]` commands in comments.
    Eval,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum TagsArg {
    /// Every tag, the Seven Tag Roster first.
    All,
    /// The Seven Tag Roster only (and FEN, SetUp, Variant).
    Roster,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum AddTag {
    /// The number of plies of the mainline (named as the tag is; `ply-count` too).
    #[value(name = "PlyCount", alias = "ply-count")]
    PlyCount,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    select: SelectArgs,
    #[command(flatten)]
    plies: PlyArgs,
    /// Output file (`.zst`/`.gz` name: compressed); `-` is stdout. Never overwrites an input.
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    output: PathBuf,
    /// The rejected games, byte for byte as read.
    #[arg(long, value_name = "FILE")]
    rejects: Option<PathBuf>,
    /// The duplicates left out by --dedup, byte for byte as read.
    #[arg(long, value_name = "FILE")]
    duplicates: Option<PathBuf>,
    /// JSON Lines: every repair, rejection, filtered game and duplicate, then a summary.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Movetext lines hold fewer than W characters (80: the PGN standard's limit).
    #[arg(long, value_name = "W", default_value_t = 80, value_parser = clap::value_parser!(u32).range(2..))]
    line_width: u32,
    /// Leave out of the movetext: comments, nags, variations, clock, eval (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "WHAT")]
    strip: Vec<StripArg>,
    /// Which tags are written.
    #[arg(long, value_enum, default_value = "all")]
    tags: TagsArg,
    /// Tags left out (comma-separated names).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    drop_tags: Vec<String>,
    /// Tags added: PlyCount.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "NAMES")]
    add_tags: Vec<AddTag>,
    /// Write a game with an error as its valid prefix, result `*` and a comment naming the
    /// error, instead of rejecting it.
    #[arg(long)]
    keep_broken: bool,
    /// Reject games with a null move (`--`, `Z0`) instead of writing it `--`.
    #[arg(long)]
    reject_null_moves: bool,
    /// Write a game only the first time its variant, start position and mainline moves come,
    /// across all inputs (the first in input order is kept).
    #[arg(long)]
    dedup: bool,
}

fn options(args: &Args) -> Result<CleanOptions, Fail> {
    let has = |s: StripArg| args.strip.contains(&s);
    Ok(CleanOptions {
        line_width: args.line_width as usize,
        strip: Strip {
            comments: has(StripArg::Comments),
            nags: has(StripArg::Nags),
            variations: has(StripArg::Variations),
            clock: has(StripArg::Clock),
            eval: has(StripArg::Eval),
        },
        roster_only: args.tags == TagsArg::Roster,
        drop_tags: args.drop_tags.clone(),
        add_ply_count: args.add_tags.contains(&AddTag::PlyCount),
        keep_broken: args.keep_broken,
        reject_null_moves: args.reject_null_moves,
        dedup: args.dedup,
        keep_duplicates: args.duplicates.is_some(),
        select: args.select.selection(Some(&args.plies), &args.input.files)?,
        eco_tags: args
            .select
            .eco_tags()
            .map(|e| if e == "missing" { EcoTags::Missing } else { EcoTags::All }),
    })
}

/// The ledger, one line per input read and a total, for stderr.
fn ledger(summary: &Summary) -> String {
    let line = |name: &str, s: &pgnkit::pipeline::stats::Stats| {
        let broken = s.get(KEPT_BROKEN);
        let broken = if broken > 0 { format!(" ({broken} kept broken)") } else { String::new() };
        format!(
            "  {name}: {} read = {} written{broken} + {} rejected + {} filtered + {} duplicates\n",
            s.games,
            s.get(WRITTEN),
            s.get(REJECTED),
            s.get(FILTERED),
            s.get(DUPLICATES)
        )
    };
    let mut text: String = summary.inputs.iter().map(|i| line(&i.name, &i.stats)).collect();
    if summary.inputs.len() > 1 {
        text.push_str(&line("total", &summary.stats));
    }
    text
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    interrupt::install();
    let job = Clean::new(options(args)?);
    let inputs = OutputOptions { inputs: args.input.files.clone(), zstd_level: 0 };
    let create = |path: &Option<PathBuf>| path.as_ref().map(|p| Output::create(p, &inputs)).transpose();
    let outputs = Outputs {
        out: Output::create(&args.output, &inputs)?,
        rejects: create(&args.rejects)?,
        duplicates: create(&args.duplicates)?,
        report: create(&args.report)?,
    };
    let mut writer = CleanWriter::new(&job, outputs, std::io::stderr());
    let progress = Progress::new(args.input.quiet);
    let summary = run::run(&job, &args.input.files, &args.input.run_options(), &progress, &mut writer)?;
    writer.finish(&summary)?;
    if !args.input.quiet {
        eprint!("{}{}", report::summary_text("clean", &summary.stats, summary.elapsed), ledger(&summary));
    }
    Ok(conclude(&summary, summary.stats.get(REJECTED) > 0))
}
