//! `clean`: every game written again in PGN export format, with every repair counted (the first
//! of each kind in a game logged), the games no repair can save kept verbatim in a rejects file,
//! filters, duplicate removal ([`dedup`]), and a ledger in which every input game is written,
//! rejected, filtered out or a duplicate.
//!
//! Workers replay each chunk (`game.rs`: the hooks, which write and repair), the release side
//! ([`CleanWriter`]) writes the games in input order, removes duplicates across the whole run
//! ([`dedup`]) and keeps the ledger. Games are cut at guessed boundaries: nothing a worker
//! renders carries a game number, so the report's numbers are made absolute on release.
//! A long game's texts wait on disk past a bound (`clean::spill`).

pub mod dedup;
mod game;
pub mod repair;
pub mod sink;
mod spill;

use std::ops::Range;
use std::sync::Arc;

pub use dedup::{DedupKey, Identity, Rule};
pub use sink::{CleanWriter, Outputs};

use crate::error::{Diagnostic, Error, Kind};
use crate::pgn::Writer;
use crate::pipeline::replay::export::Strip;
use crate::pipeline::replay::replay_chunk;
use crate::pipeline::{ChunkInput, Cuts, Job, Located, Output, Spare, Spares, Worker};
use crate::select::Selection;
use game::CleanHooks;
use repair::Repair;
use spill::Spilled;

/// What `clean` writes and how.
#[derive(Clone, Debug)]
pub struct CleanOptions {
    /// Movetext lines hold fewer than this many characters (80: the PGN standard's limit).
    pub line_width: usize,
    /// What is left out of the movetext.
    pub strip: Strip,
    /// Keep only the Seven Tag Roster (and `FEN`, `SetUp`, `Variant`, and the tags
    /// `add_ply_count` and `eco_tags` write).
    pub roster_only: bool,
    /// Tags left out.
    pub drop_tags: Vec<String>,
    /// Add a `PlyCount` tag (the mainline's plies).
    pub add_ply_count: bool,
    /// Write a game with an error as its valid prefix, result `*` and a comment naming the
    /// error, instead of rejecting it.
    pub keep_broken: bool,
    /// Reject games with a null move instead of writing it `--`.
    pub reject_null_moves: bool,
    /// Where the Result tag and the result token conflict, write the one that says more (see
    /// [`repair::settle_result`]) instead of the tag's.
    pub fix_results: bool,
    /// Write a game only the first time it comes, by this rule ([`dedup`]).
    pub dedup: Option<Rule>,
    /// With `dedup`: keep a copy of every written game's bytes as read, so that a duplicate can
    /// go to a duplicates file ([`Outputs::duplicates`]); without it duplicates are counted and
    /// reported only.
    pub keep_duplicates: bool,
    /// The filters: games they leave out are counted as filtered, not written.
    pub select: Selection,
    /// Name openings in `ECO` and `Opening` tags.
    pub eco_tags: Option<EcoTags>,
}

/// Which games get `ECO` and `Opening` tags from the classification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcoTags {
    /// Every game the table classifies (tags it had replaced, each value replaced a `tag`
    /// repair); the others keep theirs.
    All,
    /// Those without an `ECO` tag, or `?` (and those without an `Opening` tag get one, unless
    /// the `ECO` they keep is another code than the table's).
    Missing,
}

impl Default for CleanOptions {
    fn default() -> CleanOptions {
        CleanOptions {
            line_width: 80,
            strip: Strip::default(),
            roster_only: false,
            drop_tags: Vec::new(),
            add_ply_count: false,
            keep_broken: false,
            reject_null_moves: false,
            fix_results: false,
            dedup: None,
            keep_duplicates: false,
            select: Selection::default(),
            eco_tags: None,
        }
    }
}

impl CleanOptions {
    /// The writer's layout: the roster filled, lines under the width.
    fn layout(&self) -> Writer {
        Writer::new().fill_roster(true).max_line(self.line_width.saturating_sub(1))
    }

    /// Whether a tag named `name` is written. The [`KEPT`] tags always are: the roster, and
    /// the tags that say how the moves are read; under `roster_only`, also those `eco_tags`
    /// asks for (as `add_ply_count`'s, and as pgn-extract's `-7 -e` writes them).
    fn keeps_tag(&self, name: &str) -> bool {
        if KEPT.contains(&name) {
            return true;
        }
        let asked = self.eco_tags.is_some() && matches!(name, "ECO" | "Opening");
        (!self.roster_only || asked)
            && !self.drop_tags.iter().any(|d| d == name)
            && (!self.add_ply_count || name != "PlyCount")
    }
}

/// The tags every written game has (the seven of the roster, `?` where the input has none) or
/// keeps (the setup's): `--tags roster` keeps them, `--drop-tags` cannot drop them.
pub const KEPT: [&str; 10] =
    ["Event", "Site", "Date", "Round", "White", "Black", "Result", "FEN", "SetUp", "Variant"];

/// Bytes of a game's movetext, or of a game as read, past which they wait on disk: far past real
/// games, and low enough that the buffers a long game leaves behind stay small (its movetext's
/// grows to twice the bound before it is cut back).
pub const GAME_SPILL_BYTES: usize = 1 << 20;

/// What became of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Written in export format.
    Written,
    /// Written as its valid prefix (`--keep-broken`).
    Broken {
        /// The error.
        kind: Kind,
        /// Its message.
        message: String,
        /// The game's text from the error on, as read: what the prefix leaves out.
        left_out: String,
    },
    /// Not written: kept verbatim in the rejects.
    Rejected {
        /// The error.
        kind: Kind,
        /// Its message.
        message: String,
    },
    /// Left out by a filter.
    Filtered {
        /// The filter.
        by: String,
    },
}

/// One game of a chunk as `clean` left it.
#[derive(Clone, Debug)]
pub struct CleanGame {
    /// Game number in its input, 1-based.
    pub game: u64,
    /// Line of the game's start.
    pub line: u64,
    /// Byte offset of the game.
    pub offset: u64,
    /// What became of it.
    pub fate: Fate,
    /// Its export text in [`CleanChunk::out`] (written or broken).
    pub text: Range<usize>,
    /// Its bytes as read in [`CleanChunk::verbatim`] (rejected, or a candidate duplicate).
    pub verbatim: Range<usize>,
    /// Its identity, with `--dedup`, when written.
    pub dedup: Option<Identity>,
    /// With `--dedup=prefix`, its mainline in [`CleanChunk::mainlines`].
    pub mainline: Range<usize>,
    /// Its repairs logged in [`CleanChunk::repairs`] (the first [`repair::LOGGED`] of each kind).
    pub repairs: Range<usize>,
    /// Its repairs counted by kind, every one, in [`CleanChunk::tallies`].
    pub tally: Range<usize>,
    /// Where the error that rejected it or cut it short stands, when a place in its text does:
    /// the byte offset, and the line breaks between the game's start and it.
    pub error_at: Option<(u64, u64)>,
    /// Its texts on disk, if any: their place in `CleanChunk::spilled`.
    pub spilled: Option<usize>,
}

/// The records of one chunk.
#[derive(Debug, Default)]
pub struct CleanChunk {
    /// The export text of the games written.
    pub out: Vec<u8>,
    /// The bytes, as read, of the games that may not be written.
    pub verbatim: Vec<u8>,
    /// One record per game read.
    pub games: Vec<CleanGame>,
    /// The repairs of the games logged, in order.
    pub repairs: Vec<Repair>,
    /// The games' repairs counted by kind ([`repair::Tally`]).
    pub tallies: Vec<repair::Count>,
    /// Errors of rejected games.
    pub diagnostics: Vec<Diagnostic>,
    /// The written games' mainlines ([`dedup::mainline`]) with `--dedup=prefix`.
    pub mainlines: Vec<u8>,
    /// The texts of long games, on disk ([`spill`]).
    spilled: Vec<Spilled>,
}

impl Spare for CleanChunk {
    /// Text buffers past 4 MiB (a chunk of huge games) are not kept.
    fn empty(&mut self) -> bool {
        self.out.clear();
        self.verbatim.clear();
        self.games.clear();
        self.repairs.clear();
        self.tallies.clear();
        self.diagnostics.clear();
        self.mainlines.clear();
        self.spilled.clear();
        self.out.capacity().max(self.verbatim.capacity()).max(self.mainlines.capacity()) <= 4 << 20
    }
}

impl Located for CleanChunk {
    fn shift(&mut self, games: u64, lines: u64) {
        for g in &mut self.games {
            g.game += games;
            g.line += lines;
        }
        self.diagnostics.shift(games, lines);
    }
}

/// The clean job.
#[derive(Clone, Debug)]
pub struct Clean {
    opts: Arc<CleanOptions>,
    spares: Arc<Spares<CleanChunk>>,
    /// Bytes of a game's movetext, or of the game as read, past which it waits on disk.
    spill_at: usize,
}

impl Clean {
    /// A job writing games as `opts` says.
    pub fn new(opts: CleanOptions) -> Clean {
        Clean { opts: Arc::new(opts), spares: Arc::default(), spill_at: GAME_SPILL_BYTES }
    }

    /// The same job, a game's texts waiting on disk past `bytes` (tests reach it with a few).
    #[cfg(test)]
    fn spilling_at(self, bytes: usize) -> Clean {
        Clean { spill_at: bytes, ..self }
    }

    /// The options.
    pub fn options(&self) -> &CleanOptions {
        &self.opts
    }
}

/// Per-thread state: the options, and the buffers handed back by the release side.
pub struct CleanWorker {
    opts: Arc<CleanOptions>,
    spares: Arc<Spares<CleanChunk>>,
    spill_at: usize,
}

impl Job for Clean {
    type Worker = CleanWorker;

    /// Nothing a worker renders carries a game number: guessed cuts.
    fn cuts(&self) -> Cuts {
        Cuts::Guessed
    }

    fn worker(&self) -> Result<CleanWorker, Error> {
        Ok(CleanWorker { opts: self.opts.clone(), spares: self.spares.clone(), spill_at: self.spill_at })
    }
}

impl Worker for CleanWorker {
    type Records = CleanChunk;

    fn process(&mut self, chunk: &ChunkInput<'_>) -> Result<Output<CleanChunk>, Error> {
        let hooks = CleanHooks::new(&self.opts, self.spares.take(), self.spill_at);
        let (hooks, mut out) = replay_chunk(hooks, chunk);
        if let Some(e) = hooks.failed {
            return Err(Error::Spill(e.into()));
        }
        hooks.filter.count(&mut out.stats);
        Ok(Output { records: hooks.out, stats: out.stats, end: out.end })
    }
}

#[cfg(test)]
mod tests;
