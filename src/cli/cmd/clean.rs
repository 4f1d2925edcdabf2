//! `pgnkit clean`: every game written again in PGN export format, every repair counted, rejected
//! games kept verbatim, duplicates removed; the ledger on stderr; exit 1 when some game was
//! rejected or kept broken.

use std::path::PathBuf;

use pgnkit::jobs::clean::{Clean, CleanOptions, CleanWriter, EcoTags, Outputs, Rule};
use pgnkit::jobs::diagnostics;
use pgnkit::jobs::run::Summary;
use pgnkit::pipeline::counter::Counter;
use pgnkit::pipeline::replay::export::Strip;
use pgnkit::select::Selection;

use crate::cli::args::{HeadArgs, Leaves, PlyArgs, SelectArgs, finish, warn_absent};
use crate::cli::fail::Fail;
use crate::cli::interrupt;
use crate::cli::progress::Progress;
use crate::cli::shard::{self, Layout, Sharding};
use pgnkit::exit::Code;

pub const EXAMPLES: &str = "\
Examples:
  pgnkit clean games.pgn -o clean.pgn
  pgnkit clean lichess_db_standard_rated_2024-01.pgn.zst -o clean.pgn.zst --rejects rejects.pgn --report report.jsonl
  pgnkit clean --dedup --duplicates dups.pgn a.pgn b.pgn c.pgn -o all.pgn
  pgnkit clean --eco-tags missing --where 'Elo >= 2500' --eco B20-B99 games.pgn -o sicilians.pgn
  pgnkit clean --dedup=prefix --report report.jsonl broadcast.pgn twic*.pgn -o all.pgn
  pgnkit clean --strip comments,variations --tags roster --add-tags PlyCount old.pgn -o slim.pgn

Every input game ends in one place: written, rejected (kept verbatim in --rejects), filtered
out, or a duplicate (kept verbatim in --duplicates). The exit code is 1 when a game was rejected
or written as its prefix (--keep-broken); repairs (a variation cut at a bad move, a result set
right) leave it 0. --report FILE writes JSON Lines: one record
per repair ({\"type\": \"repair\", \"data\": {file, game, line, offset, kind, before, after}},
its line and offset those of the token repaired where one stands for it, else the game's; a
game logs its first 100 repairs of a kind, and the problems past the 100 diagnostics a game
shows none: one {\"type\": \"unreported\", \"data\": {file, game, kind, count, message}} a kind
gives the count of the others, and the ledger counts every repair), rejection ({kind,
message, error_line, error_offset}: line and offset are the game's, the error's place is where `check` locates it), game kept broken (the same, with the text its prefix
leaves out, as read: left_out), filtered game and duplicate (with the rule that matched and the game kept:
{\"rule\": \"game\", \"of\": {file, game}}), then a summary with the ledger per input. The
output is UTF-8: tag values and comments that are not UTF-8 are read as Windows-1252, one
`encoding` repair a game (its `before` shows the bytes as \\xNN); the rejects and duplicates are
byte copies of the input, in its encoding. An illegal, ambiguous or unreadable move in a
variation stops that line, not the game: the variation is written up to it, and the text left
out is the `before` of a `variation` repair. Outputs are written under a temporary name and
renamed when the run completes: an interrupted run (exit 130) or a failed one leaves none under
its final name.";

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
    /// The Seven Tag Roster only (and FEN, SetUp, Variant, and the tags --add-tags and
    /// --eco-tags write).
    Roster,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum DedupArg {
    /// The same game: the same variant, start position, mainline and result, the same players
    /// (names compared as collections spell them: case, diacritics, hyphens, word order,
    /// initials, doubled letters), and dates, rounds and online games' addresses (the first of
    /// Site, Link, GameURL, LichessURL that is one) that
    /// do not contradict each other (`2022.??.??` matches `2022.01.20`, round `3.5` round `3`
    /// but not `3.2`, `?` anything). A game with no moves: its whole Seven Tag Roster too.
    Game,
    /// The variant, start position and mainline alone (pgn-extract's rule), for collections of
    /// opening lines with made-up headers.
    Moves,
    /// The same game, and also a game whose mainline is a prefix of another's between the same
    /// players on compatible dates (its result the same or `*`; Event, Site and Round not
    /// contradicting): the longer is kept, wherever it stands. Every game waits in temporary
    /// files until every input is read.
    Prefix,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum EcoTagsArg {
    /// Every game the table names an opening for (not Chess960 or crazyhouse, nor one reaching
    /// no position it lists, which keep their tags): ECO and Opening tags replaced by the lichess
    /// table's names, Variation and SubVariation left out (the table's Opening names the
    /// variation); each value replaced or left out a tag repair.
    All,
    /// Only the ECO and Opening tags a game lacks or leaves unknown ("?"); the rest kept. The
    /// Opening is added only beside the table's own ECO code, as beside another it would name
    /// another opening.
    Missing,
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
    pub(crate) head: HeadArgs,
    #[command(flatten)]
    select: SelectArgs,
    #[command(flatten)]
    plies: PlyArgs,
    /// The rejected games, byte for byte as read.
    #[arg(long, value_name = "FILE")]
    rejects: Option<PathBuf>,
    /// The duplicates left out by --dedup, byte for byte as read.
    #[arg(long, value_name = "FILE", requires = "dedup")]
    duplicates: Option<PathBuf>,
    /// JSON Lines: the repairs (a game's first 100 of a kind, then their count), rejections,
    /// filtered games and duplicates, then a summary.
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
    /// Tags left out (comma-separated names; not the roster's seven, FEN, SetUp or Variant).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    drop_tags: Vec<String>,
    /// Write ECO and Opening tags, as the lichess table names the opening from the mainline's
    /// positions: in every game it names one for (all: values replaced and Variation and
    /// SubVariation tags left out, logged as tag repairs), or only where a game lacks them
    /// (missing).
    #[arg(long, value_enum, value_name = "WHICH")]
    eco_tags: Option<EcoTagsArg>,
    /// Tags added: PlyCount.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "NAMES")]
    add_tags: Vec<AddTag>,
    /// Write a game with an error in its mainline as its valid prefix, result `*` and a comment
    /// naming the error, instead of rejecting it; the filters judge that prefix, and --report
    /// keeps the text left out. (A bad move
    /// in a variation only cuts that variation, always: the rest is a `variation` repair.)
    #[arg(long)]
    keep_broken: bool,
    /// Reject games with a null move (`--`, `Z0`) instead of writing it `--`.
    #[arg(long)]
    reject_null_moves: bool,
    /// Where the Result tag and the movetext's result token give two finished results, write
    /// the token's (where the game ends). Without it the tag's value is written. Either way a
    /// mate or stalemate on the board decides, a finished result is written over `*`, and the
    /// `result` repair names both values.
    #[arg(long)]
    fix_results: bool,
    /// Write a game only the first time it comes, across all inputs (the first in input order
    /// is kept; with `prefix`, the longest record); the others are duplicates. RULE says what
    /// makes two games duplicates: `--dedup` alone is `--dedup=game`.
    #[arg(long, value_enum, value_name = "RULE", num_args = 0..=1, require_equals = true, default_missing_value = "game")]
    dedup: Option<DedupArg>,
}

fn options(args: &Args) -> Result<CleanOptions, Fail> {
    if let Some(tag) = args.drop_tags.iter().find(|t| pgnkit::jobs::clean::KEPT.contains(&t.as_str())) {
        return Err(Fail::usage(format!(
            "--drop-tags {tag}: the seven roster tags are in every exported game, and FEN, SetUp \
             and Variant say how its moves are read; none of them can be dropped"
        )));
    }
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
        fix_results: args.fix_results,
        dedup: args.dedup.map(|d| match d {
            DedupArg::Game => Rule::Game,
            DedupArg::Moves => Rule::Moves,
            DedupArg::Prefix => Rule::Prefix,
        }),
        keep_duplicates: args.duplicates.is_some(),
        // --result judges the result written (the board's, the token's with --fix-results).
        select: Selection { result_written: true, ..args.select.selection(Some(&args.plies))? },
        eco_tags: args.eco_tags.map(|e| match e {
            EcoTagsArg::All => EcoTags::All,
            EcoTagsArg::Missing => EcoTags::Missing,
        }),
    })
}

/// The ledger, one line per input read and a total, for stderr; `unkept`: the output was not
/// kept, so the games that would have been written are said to have passed.
pub(crate) fn ledger(summary: &Summary, unkept: bool) -> String {
    let passed = if unkept { "passed" } else { "written" };
    let line = |name: &str, s: &pgnkit::pipeline::stats::Stats| {
        let name = pgnkit::pgn::text::without_controls(name, &[]);
        let broken = s.get(Counter::KeptBroken);
        let broken = if broken > 0 { format!(" ({broken} kept broken)") } else { String::new() };
        format!(
            "  {name}: {} read = {} {passed}{broken} + {} rejected + {} filtered + {} duplicates\n",
            s.games,
            s.get(Counter::Written),
            s.get(Counter::Rejected),
            s.get(Counter::Filtered),
            s.get(Counter::Duplicates)
        )
    };
    let mut text: String = summary.inputs.iter().map(|i| line(i.name.prose(), &i.stats)).collect();
    if summary.inputs.len() > 1 {
        text.push_str(&line("total", &summary.stats));
    }
    text
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    interrupt::install();
    let job = Clean::new(options(args)?);
    // `--dedup prefix` reads `prefix` as an input: a rule is written `--dedup=prefix`.
    if args.dedup.is_some()
        && let Some(f) = args
            .head
            .files
            .iter()
            .find(|f| ["game", "moves", "prefix"].iter().any(|r| f.as_os_str() == *r) && !f.exists())
    {
        return Err(Fail::usage(format!(
            "{}: no such file; a rule of --dedup is written --dedup={}",
            f.display(),
            f.display()
        )));
    }
    let prefix = job.options().dedup == Some(Rule::Prefix);
    let mut sharding = Sharding::new(&args.head, "clean")?;
    let head = &args.head;
    let out = shard::create(&mut sharding, head, "output", &head.output, Layout::PLAIN)?;
    let mut create = |role, path: &Option<PathBuf>, footer| {
        let layout = Layout::Text { header: b"", footer };
        path.as_ref().map(|p| shard::create(&mut sharding, head, role, p, layout)).transpose()
    };
    let outputs = Outputs {
        out,
        rejects: create("rejects", &args.rejects, "")?,
        duplicates: create("duplicates", &args.duplicates, "")?,
        report: create("report", &args.report, "clean-report")?,
    };
    let keys = if args.dedup.is_some() { shard::keys(&mut sharding, head)? } else { None };
    let progress = Progress::new(args.head.quiet);
    let run_options = args.head.run_options();
    let mut writer =
        CleanWriter::new(&job, outputs, pgnkit::io::stderr()).interruptible(interrupt::requested);
    if sharding.is_some() {
        writer = writer.part(keys)?;
    }
    let mut summary = shard::run(&job, &args.head, &run_options, &sharding, &progress, &mut writer)?;
    let waited = match prefix {
        true => "the games, which --dedup=prefix holds back until every input is read",
        false => "the games that waited past --dedup's memory bound",
    };
    if let Some(code) = interrupt::at_finish(writer.finish(&mut summary), waited)? {
        return Ok(code);
    }
    // A game kept broken (its prefix) is not written whole either; a cut variation or a result
    // set right is a repair.
    let failures = summary.stats.get(Counter::Rejected) > 0 || summary.stats.get(Counter::KeptBroken) > 0;
    let code = finish(&args.head, &summary, Leaves::Nothing, failures, |unkept| {
        diagnostics::summary_text("clean", &summary.stats, summary.elapsed, unkept)
            + &ledger(&summary, unkept.is_some())
    });
    if !args.head.quiet && summary.stopped.is_none() && summary.input_failed() {
        // The line above names the output; the others were left unwritten with it.
        let others: Vec<String> = [&args.rejects, &args.duplicates, &args.report]
            .into_iter()
            .flatten()
            .filter(|p| p.as_os_str() != "-")
            .map(|p| p.display().to_string())
            .collect();
        if !others.is_empty() {
            stderrln!("pgnkit: nor were {}", others.join(", "));
        }
    }
    warn_absent(&job.options().select, &summary.stats, sharding.is_some());
    if let Some(warning) = pgnkit::jobs::clean::dedup::in_part_warning(&summary.stats) {
        stderrln!("pgnkit: warning: {warning}");
    }
    Sharding::conclude(sharding, &summary, code, &job.options().select, serde_json::Value::Null)?;
    Ok(code)
}
