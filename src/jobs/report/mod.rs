//! `report`: an analysed collection as one self-contained HTML page (or its summary tables as
//! text or JSON): the collection, each player's accuracy and average centipawn loss by colour,
//! the opening families with their most costly recurring mistake, the losses by phase, charts of
//! accuracy against rating and of the losses, and a section for each of the games with the
//! largest losses (its evaluation graph, clocks, and each mistake and blunder on a board).
//!
//! # What is read
//!
//! Annotated PGN ([`collect`], through the pipeline like every job): `annotate`'s output, lichess
//! exports with their `[%eval]`s and judgement glyphs, or any PGN with `[%eval]` comments; or
//! `annotate --format jsonl` records ([`jsonl`]), told from PGN by their first line
//! ([`jsonl::is_records`]) whatever the input's name. A game is *judged by its file* when its
//! `Annotator` tag names pgnkit or a mainline move carries a judgement NAG (`$6`/`?!`, `$2`/`?`,
//! `$4`/`??`, as lichess and `annotate` write them): its judgements are those NAGs. Any other game
//! with evaluations is judged from its `[%eval]`s by the rules of `annotate --from-evals`. Each
//! side's average centipawn loss and accuracy come from the evaluations by lichess's formulas, as
//! `annotate --add-tags` computes them ([`crate::analysis::judge`]). Games without evaluations are
//! counted and listed, and count in the results and scores only.
//!
//! # The figures
//!
//! - A side's ACPL over several games is its centipawn losses summed over the moves that have an
//!   evaluation before and after them, divided by the number of such moves; its accuracy is the
//!   mean of its games' accuracies. Judgements per 100 moves count every move of the side in its
//!   games with evaluations.
//! - Point of view: every side of every game, or with `--player NAME` (case-insensitive, games
//!   without the player are left out) that player's side. An opening family's games and score
//!   are White's without `--player`, the player's with it; its accuracy is the mean over the
//!   sides taken.
//! - Players: told apart by their name in any case, as `--player` matches it (`Alice` and
//!   `ALICE` are one player, shown as first spelt: [`players`]).
//! - Opening families: the lichess table's name up to its colon (`Sicilian Defense`), for the
//!   opening the table names from the mainline's positions, as `clean --eco` does; other games
//!   (variants, positions the table does not list) are `(unclassified)`. Its most costly
//!   recurring mistake: among the judged moves of the sides taken in its games, the same move in
//!   the same position (placement, side to move, castling, en passant) judged more than once,
//!   with the largest centipawn loss summed over its occurrences.
//! - Phases: lichess's rule, in [`divider`]. A move belongs to the phase of the position it
//!   leads to.
//! - The games with sections: those with evaluations whose sides taken lost the most centipawns
//!   in total, at most `--games` of them, in that order (input order among equals).

pub mod board;
pub mod charts;
pub mod collect;
pub mod divider;
pub mod escape;
pub mod game;
pub mod html;
pub mod jsonl;
pub mod name;
pub mod players;
pub mod stats;
pub mod sums;
pub mod tally;
pub mod text;

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use crate::error::Error;
use crate::pipeline::replay::replay_chunk;
use crate::pipeline::{ChunkInput, Cuts, Job, Output, Worker};
use crate::select::Selection;

pub use game::{Figures, GameRecord};
pub use stats::{Analysed, ReportChunk, Totals};
pub use tally::Tally;

/// The default number of games with a section of their own.
pub const DEFAULT_GAMES: usize = 200;
/// The default number of boards a game section draws at most: about twice the mistakes and
/// blunders of the worst of 41 games lichess analysed (26), few enough that a game of any length
/// keeps its boards under 25 KB.
pub const DEFAULT_BOARDS: usize = 50;
/// The default number of players with a row, those with the most games: three rows each, so
/// the table of a collection of any size stays under 1 MB.
pub const DEFAULT_PLAYERS: usize = 500;
/// The default number of games a player needs to have a row.
pub const DEFAULT_MIN_GAMES: u64 = 3;

/// What the report reads and from whose point of view.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// The filters.
    pub select: Selection,
    /// One player's point of view ([`name::key`]); games without them are left out.
    pub player: Option<String>,
    /// The totals' [`Totals::section_bar`]: the games below it are read without their moves
    /// (the default, 0, sends every game with them).
    pub section_bar: Arc<AtomicU64>,
    /// Boards a section draws at most ([`html::Page::boards`]): a long game's section is drawn
    /// as it is read.
    pub boards: usize,
}

impl Default for ReportOptions {
    fn default() -> ReportOptions {
        ReportOptions {
            select: Selection::default(),
            player: None,
            section_bar: Arc::default(),
            boards: DEFAULT_BOARDS,
        }
    }
}

/// The report job: each chunk's games read and their figures computed on the workers.
#[derive(Debug)]
pub struct Report {
    opts: Arc<ReportOptions>,
}

impl Report {
    /// A job reading as `opts` says.
    pub fn new(opts: ReportOptions) -> Report {
        Report { opts: Arc::new(opts) }
    }

    /// The options.
    pub fn options(&self) -> &ReportOptions {
        &self.opts
    }
}

/// Per-thread state.
pub struct ReportWorker {
    opts: Arc<ReportOptions>,
}

impl Job for Report {
    type Worker = ReportWorker;

    fn cuts(&self) -> Cuts {
        Cuts::Guessed
    }

    fn worker(&self) -> Result<ReportWorker, Error> {
        Ok(ReportWorker { opts: self.opts.clone() })
    }
}

impl Worker for ReportWorker {
    type Records = ReportChunk;

    fn process(&mut self, chunk: &ChunkInput<'_>) -> Result<Output<ReportChunk>, Error> {
        let o = &self.opts;
        let hooks = collect::Collect::new(&o.select, o.player.as_deref(), &o.section_bar, o.boards);
        let (hooks, mut out) = replay_chunk(hooks, chunk);
        hooks.filter.count(&mut out.stats);
        let records = ReportChunk {
            games: hooks.games,
            spread: hooks.spread,
            filtered: hooks.filtered,
            played: hooks.played,
            diagnostics: hooks.diagnostics,
        };
        Ok(Output { records, stats: out.stats, end: out.end })
    }
}
