//! `pgnkit report`: an analysed collection as one self-contained HTML page (evaluation graphs,
//! the mistakes on boards, each player's accuracy by opening and phase), or its summary tables
//! as text or JSON.

use std::io::Write;

use pgnkit::error::Error;
use pgnkit::io::name::Name;
use pgnkit::io::{Input, InputOptions, Source};
use pgnkit::jobs::report::html::{Page, write_page};
use pgnkit::jobs::report::name::{key, spelt};
use pgnkit::jobs::report::{
    DEFAULT_BOARDS, DEFAULT_GAMES, DEFAULT_MIN_GAMES, DEFAULT_PLAYERS, Report, ReportOptions, Totals, jsonl,
    text,
};
use pgnkit::jobs::run;

use crate::cli::args::{HeadArgs, PlyArgs, SelectArgs, warn_absent};
use crate::cli::fail::Fail;
use crate::cli::interrupt;
use crate::cli::progress::Progress;
use crate::cli::shard;
use pgnkit::exit::Code;

pub const EXAMPLES: &str = "\
Examples:
  pgnkit annotate --engine /usr/games/stockfish --nodes 200000 games.pgn -o annotated.pgn
  pgnkit report annotated.pgn -o report.html
  pgnkit report lichess_export.pgn --player DrNykterstein --games 50 -o me.html
  pgnkit report annotated.pgn --where 'Event ~ Titled' --eco B20-B99 --format text
  pgnkit report evals.jsonl --format json -o summary.json
  pgnkit report evals.jsonl --player DrNykterstein --format text

Reads annotated PGN (annotate's output, lichess exports with their [%eval]s and judgement
glyphs, any PGN with [%eval] comments) or annotate --format jsonl records (told by their
first line, in a file of any name, compressed or not, or stdin), whose first record of a game
holds its tags: the filters and --player apply to them as to PGN (records without tags make
games with no players, date or result). A game whose file judged it (an Annotator tag of pgnkit, or ?!/?/?? on its
moves) keeps those judgements; any other is judged from its [%eval]s as annotate
--from-evals does. Accuracy and ACPL are lichess's, as annotate --add-tags computes
them. Games without evaluations are counted and listed.

The page is one file with inline CSS and SVG (no external script, font or stylesheet), prints
well, and has a text alternative for every chart. Its summary covers every game; the --games
games with the largest losses get a section each: the evaluation graph, the clocks where
[%clk] is present, and each mistake and blunder (at most --boards a game, the largest losses) on a
board with the move played (red) and the engine's best (green). Phases follow lichess's division (the page and README say the rule).

Exit codes: 1 when a game had errors (its moves up to the error are reported) or a JSON Lines
record could not be read; 65 when an input is not PGN or a corrupt compressed stream, 66 or 74
when an input could not be read (then no report is written).";

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum FormatArg {
    /// One self-contained HTML page.
    Html,
    /// The summary tables, as text.
    Text,
    /// The summary, every figure unrounded, as one JSON document.
    Json,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub(crate) head: HeadArgs,
    #[command(flatten)]
    select: SelectArgs,
    #[command(flatten)]
    plies: PlyArgs,
    /// What is written.
    #[arg(long, value_enum, default_value = "html")]
    format: FormatArg,
    /// One player's point of view (their colour in each game; case-insensitive); games without
    /// them are left out (a NAME in no game gets a warning).
    #[arg(long, value_name = "NAME")]
    player: Option<String>,
    /// Games with a section of their own on the page: those with the largest losses (HTML only).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_GAMES)]
    games: usize,
    /// Boards a game section draws at most: its mistakes and blunders with the largest losses
    /// (the others are marked in its moves; HTML only).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BOARDS)]
    boards: usize,
    /// Players with rows on the page and in the text, at most: those with the most games
    /// (`--format json` lists every player).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_PLAYERS)]
    players: usize,
    /// Players with fewer games have no row.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MIN_GAMES)]
    min_games: u64,
}

/// Whether `input` holds `annotate --format jsonl` records: by its name (`.jsonl`, `.ndjson`,
/// compressed or not), else by its first line, whatever its name or compression, stdin too.
fn is_records(name: &Name, input: &mut Input) -> bool {
    jsonl::is_jsonl_name(name.text()) || jsonl::is_records(&input.first_line(jsonl::MAX_LINE))
}

/// Reads the records of `input` into `totals`.
fn read_records(
    input: Input,
    name: &Name,
    reading: jsonl::Reading<'_>,
    totals: &mut Totals<impl Write>,
) -> Result<jsonl::Found, Error> {
    pgnkit::jobs::run::Sink::<pgnkit::jobs::report::ReportChunk>::begin_input(totals, name)?;
    let read = match input.source {
        Source::Mapped(map) => jsonl::read(&map[..], reading, |game| totals.add_record(game)),
        Source::Stream(stream) => jsonl::read(stream, reading, |game| totals.add_record(game)),
    };
    read.map_err(|e| Error::from(pgnkit::io::InputError::reading(&input.path, input.compression, e)))
}

/// Warns on stderr when `--player NAME` is in no game of a run that read some, as
/// [`warn_absent`] warns of a `--where` that held for none; the exit code does not change.
fn warn_no_player(name: &str, played: u64, seen: &pgnkit::pipeline::stats::Stats) {
    if seen.games > 0 && played == 0 {
        stderrln!(
            "pgnkit: warning: --player '{name}': no game had the player (White or Black, in any case), so it held for none"
        );
    }
}

/// Refuses `--games` and `--boards` under `--format text` or `json`, which write no game
/// section for them to shape.
fn refuse_ignored(args: &Args) -> Result<(), Fail> {
    if args.format == FormatArg::Html {
        return Ok(());
    }
    let given: Vec<&str> = [("--games", "games"), ("--boards", "boards")]
        .into_iter()
        .filter(|(_, id)| shard::given(id))
        .map(|(name, _)| name)
        .collect();
    if given.is_empty() {
        return Ok(());
    }
    Err(Fail::ignored_by_format(
        &args.format,
        "the summary, no game sections",
        &given,
        "the HTML page's game sections",
    ))
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    interrupt::install();
    if args.head.shard.shard.is_some() {
        return Err(Fail::usage(
            "report cannot be sharded: it adds up the whole collection; run it over the merged output of annotate",
        ));
    }
    refuse_ignored(args)?;
    let selection = args.select.selection(Some(&args.plies))?;
    let player =
        args.player.as_ref().map(|p| key(p, &mut String::new()).to_owned()).filter(|p| !p.is_empty());
    let names: Vec<Name> = args.head.files.iter().map(|f| Name::of(f)).collect();
    let html = args.format == FormatArg::Html;
    let named = args.player.as_ref().map(|p| spelt(p).into_owned()).filter(|p| !p.is_empty());
    let mut totals = Totals::new(pgnkit::io::stderr(), named, if html { args.games } else { 0 });
    totals.set_boards(args.boards);
    let section_bar = totals.section_bar();
    let boards = args.boards;
    let job = Report::new(ReportOptions { select: selection, player: player.clone(), section_bar, boards });
    let progress = Progress::new(args.head.quiet);
    let run_opts = args.head.run_options();
    let start = std::time::Instant::now();
    let (mut failures, mut problems) = (false, 0u64);
    // The PGN runs' counts together, for the filters' warnings.
    let mut seen = pgnkit::pipeline::stats::Stats::default();
    let mut exit = Code::Ok;
    // Inputs in command-line order, each read as records or through the pipeline as PGN.
    for (path, name) in args.head.files.iter().zip(&names) {
        let mut opened = Input::open(path, InputOptions { no_mmap: run_opts.no_mmap });
        let records = opened.as_mut().is_ok_and(|input| is_records(name, input));
        match opened {
            Ok(input) if records => {
                let reading = jsonl::Reading { select: &job.options().select, player: player.as_deref() };
                let found = read_records(input, name, reading, &mut totals)?;
                for p in &found.problems {
                    stderrln!("pgnkit: {}:{}:1: error: {}", name.prose(), p.line, p.message);
                }
                problems += found.problems.len() as u64;
                totals.filtered += found.filtered;
                totals.played += found.played;
                seen.merge(&found.stats);
            }
            opened => {
                let summary = run::run_opened(&job, path, opened, &run_opts, &progress, &mut totals)?;
                failures |= summary.stats.games_with_errors > 0;
                seen.merge(&summary.stats);
                if let Some(s) = &summary.stopped {
                    stderrln!(
                        "pgnkit: interrupted after game {} of {}; no report was written",
                        s.games,
                        s.input
                    );
                    return Ok(Code::Interrupted);
                }
                if exit == Code::Ok {
                    exit = summary.exit_code(false);
                }
            }
        }
    }
    if exit != Code::Ok {
        // A report that leaves out an input would mislead: nothing is written.
        stderrln!("pgnkit: an input could not be read or is not PGN; no report was written");
        return Ok(exit);
    }
    // The page and the text list the first `--players`; JSON streams every one.
    let ranked = match args.format {
        FormatArg::Json => Default::default(),
        _ => totals.ranked_players(args.min_games, args.players)?,
    };
    let mut out = args.head.create_output()?;
    let written = match args.format {
        FormatArg::Html => {
            let generator = concat!("pgnkit ", env!("CARGO_PKG_VERSION"));
            let page = Page {
                inputs: &names,
                min_games: args.min_games,
                players: args.players,
                ranked: &ranked,
                generator,
                boards: args.boards,
            };
            write_page(&mut out, &mut totals, &page)
        }
        FormatArg::Text => {
            let summary = text::summary_text(&totals, &ranked, args.min_games, args.players);
            // Names and events may hold terminal escapes: shown, not run.
            out.write_all(pgnkit::pgn::text::without_controls(&summary, &['\n']).as_bytes())
        }
        FormatArg::Json => text::write_summary_json(&mut out, &mut totals, args.min_games)?,
    };
    written.map_err(|e| Error::Output(out.error(e)))?;
    out.finish()?;
    if !args.head.quiet {
        stderrln!(
            "pgnkit report: {} ({} with evaluations, {} without, {} left out by the filters) in {:.2} s",
            pgnkit::jobs::diagnostics::counted(totals.games, "game", "games"),
            totals.evaluated,
            totals.unevaluated.0,
            totals.filtered,
            start.elapsed().as_secs_f64()
        );
    }
    warn_absent(&job.options().select, &seen, false);
    if let Some(name) = args.player.as_deref().map(str::trim).filter(|_| player.is_some()) {
        warn_no_player(name, totals.played, &seen);
    }
    Ok(if failures || problems > 0 { Code::Failures } else { Code::Ok })
}
