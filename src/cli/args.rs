//! Argument groups shared by the commands that read PGN, and the steps they share around the
//! library's run driver: the run options, the exit code and the lines printed at the end.

use std::path::PathBuf;

use pgnkit::jobs::run::{RunOptions, Summary};

use crate::cli::Code;

/// Inputs and how to read them.
#[derive(clap::Args, Debug)]
pub struct InputArgs {
    /// PGN files (plain, zstd or gzip, detected by content), or `-` for stdin.
    #[arg(required = true, value_name = "FILES")]
    pub files: Vec<PathBuf>,
    /// Read regular files instead of memory-mapping them.
    #[arg(long)]
    pub no_mmap: bool,
    /// Worker threads (default: all cores).
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
    /// Target chunk size in KiB (output does not depend on it).
    #[arg(long, value_name = "KIB", hide = true)]
    pub chunk_kib: Option<usize>,
}

impl InputArgs {
    /// The run driver's options from the arguments.
    pub fn run_options(&self) -> RunOptions {
        let defaults = RunOptions::default();
        RunOptions {
            threads: self.threads.filter(|&n| n > 0).unwrap_or(defaults.threads),
            chunk_size: self.chunk_kib.map_or(defaults.chunk_size, |k| k.max(1) << 10),
            no_mmap: self.no_mmap,
        }
    }
}

/// Warns on stderr of each `--where` expression of `select` whose tags no game of the run had
/// (it held for no game, or with `!=` for every game); the exit code does not change.
pub fn warn_absent(select: &pgnkit::select::Selection, stats: &pgnkit::pipeline::stats::Stats) {
    for absent in select.absent(stats) {
        eprintln!("pgnkit: warning: {absent}");
    }
}

/// A run's end as the command ends: the line saying where an interrupted run stopped, and the
/// exit code (`failures`: the job found what makes it exit 1).
pub fn conclude(summary: &Summary, failures: bool) -> Code {
    if let Some(s) = &summary.stopped {
        eprintln!(
            "pgnkit: interrupted: stopped after game {} of {}; the output holds every game before",
            s.games, s.input
        );
    }
    Code::from_exit(summary.exit_code(failures))
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

/// The filters a command shares: all must hold (or, with --invert, not all).
#[derive(clap::Args, Debug, Default)]
pub struct SelectArgs {
    /// Keep games whose tags satisfy EXPR, `TAG OP VALUE`: OP is =, !=, <, <=, >, >= (numbers
    /// and dates compare as such), ~ (case-insensitive substring) or =~ (regular expression);
    /// pseudo-tags Player (either side), Elo (both players), Year, Plies (the mainline's plies,
    /// counted from the moves); PlyCount is the tag where a game has one, else Plies.
    /// Repeatable: all must hold. A tag no game has is warned of at the end.
    #[arg(long = "where", value_name = "EXPR")]
    pub wheres: Vec<String>,
    /// Keep games of this rule set: standard, chess960, crazyhouse.
    #[arg(long = "variant", value_name = "VARIANT")]
    pub variant: Option<String>,
    /// Keep games with this result: 1-0, 0-1, 1/2-1/2 or *.
    #[arg(long, value_name = "RESULT")]
    pub result: Option<String>,
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
    /// `--eco=A00-B99,C42`: keep games whose opening is in these ECO ranges, as the lichess
    /// table names it from the mainline's positions (else the ECO tag). `clean` also takes
    /// `--eco` (write ECO and Opening tags) and `--eco=missing` (only where absent). Repeatable.
    #[arg(long, value_name = "RANGES", num_args = 0..=1, require_equals = true, default_missing_value = "all")]
    pub eco: Vec<String>,
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
    /// `--eco all` or `--eco missing`: which games get ECO and Opening tags (`None`: no
    /// `--eco` asks for tags).
    pub fn eco_tags(&self) -> Option<&str> {
        self.eco.iter().map(String::as_str).rfind(|e| matches!(*e, "all" | "missing"))
    }

    /// An error when `--eco all|missing` is given to a command that writes no tags.
    pub fn no_eco_tags(&self, command: &str) -> Result<(), crate::cli::Fail> {
        match self.eco_tags() {
            Some(e) => Err(crate::cli::Fail::usage(format!(
                "--eco {e} writes tags, which {command} does not; give ECO ranges (--eco=C20-C99)"
            ))),
            None => Ok(()),
        }
    }

    /// The run's filters, with the game-length ones of `plies` when the command has them.
    pub fn selection(
        &self,
        plies: Option<&PlyArgs>,
        files: &[PathBuf],
    ) -> Result<pgnkit::select::Selection, crate::cli::Fail> {
        use crate::cli::Fail;
        use pgnkit::chess::Variant;
        use pgnkit::select::{EcoRanges, Ending, Selection};
        // `--eco C20-C99` reads C20-C99 as an input: say how the filter is written.
        for f in files.iter().filter(|f| !f.exists()) {
            let name = f.to_string_lossy();
            if name == "missing" || name == "all" || EcoRanges::parse(&name).is_ok() {
                return Err(Fail::usage(format!(
                    "{name}: no such file; an ECO filter is written --eco={name}"
                )));
            }
        }
        let wheres = self
            .wheres
            .iter()
            .map(|w| {
                pgnkit::select::tags::TagExpr::parse(w)
                    .map_err(|e| Fail::usage(format!("--where {w:?}: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let variant = self
            .variant
            .as_deref()
            .map(|v| {
                Variant::from_tag(v).map_err(|_| Fail::usage(format!("--variant: unknown variant {v:?}")))
            })
            .transpose()?;
        let result = self
            .result
            .as_deref()
            .map(|r| {
                pgnkit::pgn::GameResult::from_ascii(r.as_bytes()).ok_or_else(|| {
                    Fail::usage(format!("--result: not a result (1-0, 0-1, 1/2-1/2, *): {r:?}"))
                })
            })
            .transpose()?;
        let position = self
            .position
            .as_deref()
            .map(|f| {
                let variant = variant.unwrap_or(Variant::Standard);
                pgnkit::notation::fen::parse_fen(f, variant)
                    .map_err(|e| Fail::usage(format!("--position {f:?}: {e}")))
            })
            .transpose()?;
        let material = self
            .material
            .as_deref()
            .map(|m| m.parse().map_err(|e| Fail::usage(format!("--material {m:?}: {e}"))))
            .transpose()?;
        let ending = self.ending.map(|e| match e {
            EndingArg::Checkmate => Ending::Checkmate,
            EndingArg::Stalemate => Ending::Stalemate,
            EndingArg::Insufficient => Ending::Insufficient,
            EndingArg::FiftyMoves => Ending::FiftyMoves,
            EndingArg::Repetition => Ending::Repetition,
        });
        let ranges: Vec<&String> =
            self.eco.iter().filter(|e| !matches!(e.as_str(), "all" | "missing")).collect();
        let eco = match ranges.as_slice() {
            [] => None,
            r => Some(
                EcoRanges::parse(&r.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(","))
                    .map_err(|e| Fail::usage(format!("--eco: {e}")))?,
            ),
        };
        let (min_ply, max_ply) = plies.map_or((None, None), |p| (p.min_ply, p.max_ply));
        if let (Some(min), Some(max)) = (min_ply, max_ply)
            && max < min
        {
            return Err(Fail::usage(format!("--max-ply {max} is below --min-ply {min}")));
        }
        Ok(Selection {
            wheres,
            min_ply,
            max_ply,
            variant,
            result,
            ending,
            position,
            material,
            eco,
            invert: self.invert,
        })
    }
}
