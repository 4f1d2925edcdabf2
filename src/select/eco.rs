//! ECO classification: a game's opening named from the lichess chess-openings table
//! (<https://github.com/lichess-org/chess-openings>, CC0; the five files and their licence are in
//! `data/openings/` and embedded in the binary) by the deepest position of its mainline that the
//! table lists, as lichess names the openings of its games.
//!
//! # The table
//!
//! 3,807 rows `eco, name, pgn`. At first use ([`table`], a `OnceLock`) each row's moves are
//! played from the standard start with pgnkit's SAN parser and the position reached is keyed as
//! lichess keys it: the EPD without clocks (placement, side to move, castling rights, and the en
//! passant square only when a capture there is legal), what [`Position::same_position`] and
//! [`PackedKey`](crate::chess::PackedKey) compare. Every row replays and reaches its own
//! position (tests). When two rows reach one position the later row names it, as in lichess's
//! map (scalachess `OpeningDb.byFen`, built from the rows in file order); the table has no such
//! pair. Built in about 7 ms (26 M instructions, release build); it holds 0.70 MB of heap (rows
//! 213 KB, positions 335 KB, map 114 KB), beside 389 KB of embedded text.
//!
//! # The rule
//!
//! [`EcoTracker`] is fed the positions of a game's mainline, the start position first, and
//! keeps the deepest one the table lists, so a transposition classifies as the table's
//! position and a game leaving the book by its last book position. It looks no further than
//! the table's deepest row (36 plies from the game's start), and stops once fewer pieces stand
//! than on any listed position (22): pieces never come back in standard chess, so that stop
//! loses nothing. A position costs a test of an 8 KB bitmap (by its occupied squares), and one
//! that passes it a hash of its bitboards, a map probe and a comparison of its fields: 3.1 k
//! instructions a game against 56 k for the replay itself (+5.4%; `examples/eco_cost.rs` under
//! cachegrind on the 35,009 games of `chessgames_master_35k.pgn`, the table's build subtracted).
//! No Zobrist key is needed, which `clean` does not keep: there `--eco` adds 5.3 k instructions
//! a game, against 8.9 k with the keys computed from the board.
//!
//! Lichess (scalachess `OpeningDb.search`) looks at plies 1 to 40 while 20 pieces stand: the
//! two differ only when a game reaches a listed position after ply 36 by a transposition that
//! loses tempo, which no game of the shared lichess exports does. Only standard chess is
//! classified: Chess960 and crazyhouse games are not (lichess tags its crazyhouse games in the
//! shared data `?`). A game set up from a FEN is classified by the positions it reaches, plies
//! counted from its own start, since the position names the opening whatever led there;
//! lichess names no opening for a game from a position (`?`; one study chapter of the shared
//! data set up from a FEN reaches a listed position).
//!
//! # Against lichess's own tags
//!
//! The test `pgnkit_names_openings_as_lichess_tags_them` prints these (`cargo test --profile ci
//! --lib pgnkit_names_openings -- --nocapture`); `scripts/eco_oracle.py --tags` gives the same
//! counts with python-chess, and pgnkit's code, name and ply equal python-chess's on all 2,976
//! games of the 19 files compared (`pgnkit_classifies_as_python_chess_does`). Games tagged `?`
//! (no moves, variants, FEN starts) are not counted as tagged.
//!
//! | file | ECO tag agrees | Opening tag agrees |
//! |---|---|---|
//! | `lichess_db_1000k.pgn` (dump of May 2025) | 431 of 433 (99.5%) | 422 of 433 |
//! | `lichess_db_100k.pgn` (its first 47 games) | 46 of 47 | 45 of 47 |
//! | `otb/dartchess_lichess-bullet-game.pgn` | 1 of 1 | 1 of 1 |
//! | `lichess_DrDrunkenstein_2019-01-29.pgn` (user export, ECO only) | 843 of 980 (86.0%) | - |
//! | `lichess_studies/*.pgn` (9 study exports of 2016-2018) | 4 of 4 | 3 of 4 |
//!
//! The differences, from the game's listed positions:
//! - Files tagged with the current table (434 distinct games): 2 ECO codes, where lichess names
//!   a shallower listed position: the row `1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. Nc3 Nxe4 5. Nxe4 d5`
//!   (C55) came after the dump, and lichess tags its parent (C47, Four Knights Game: Italian
//!   Variation). 11 names: those 2; 7 where lichess names a shallower listed position of the
//!   same code (rows added since, such as "Queen's Pawn Game: London System, with e6" or
//!   "Polish Opening, with d5"); 2 names no row has now ("Indian Defense: Budapest Defense",
//!   "Sicilian Defense: Hyperaccelerated Fianchetto"; renamed).
//! - The 2019 export, tagged with lichess's table of then (whose key also left out the en
//!   passant square): 137 ECO codes. 92 are the code of a shallower listed position of the game
//!   (the deeper positions were not in that table, or had that code: `1. Nf3 Nf6` is A05 now,
//!   tagged A04, the code of `1. Nf3`); 45 are on no listed position of the game (that table
//!   listed a position the current one does not, or gave one another code: a game `1. e4 d6 2. d4
//!   Nf6 3. Nc3 e5` is tagged B07, and the current table lists nothing past `2... Nf6`, B00). The
//!   98% agreement holds for tags of the current table only.
//! - The studies: 1 name no row has now ("Slav Defense: Modern", now "Modern Line").

use std::sync::OnceLock;

use crate::chess::zobrist::MixedMap;
use crate::chess::{Bitboard, Board, Color, Position, Square, Variant};
use crate::notation::san::parse_san;

/// The embedded table: lichess's files by ECO volume, each `eco<TAB>name<TAB>pgn` under a header.
pub const FILES: [(&str, &str); 5] = [
    ("a.tsv", include_str!("../../data/openings/a.tsv")),
    ("b.tsv", include_str!("../../data/openings/b.tsv")),
    ("c.tsv", include_str!("../../data/openings/c.tsv")),
    ("d.tsv", include_str!("../../data/openings/d.tsv")),
    ("e.tsv", include_str!("../../data/openings/e.tsv")),
];

/// A named opening: one row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opening {
    /// ECO code, `A00` to `E99`.
    pub eco: &'static str,
    /// English name, `Family: Variation, Subvariation` (the `Opening` tag lichess writes).
    pub name: &'static str,
    /// The row's moves as PGN movetext (`1. e4 e5 2. Nf3`), from the standard start.
    pub pgn: &'static str,
    /// Plies of [`pgn`](Self::pgn).
    pub ply: u32,
}

/// A row of the table that cannot be read or replayed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct RowError {
    /// The file's name.
    pub file: &'static str,
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// A listed position as lichess's key has it: the EPD without clocks.
#[derive(Clone, Copy)]
struct Key {
    board: Board,
    castling: Bitboard,
    turn: Color,
    /// The en passant square when a capture there is legal.
    ep: Option<Square>,
}

impl Key {
    fn of(pos: &Position) -> Key {
        Key {
            board: *pos.board(),
            castling: pos.castling_rights(),
            turn: pos.turn(),
            ep: pos.ep_square_legal(),
        }
    }

    /// Whether `pos` (standard chess) is this position. With the fields compared here, the
    /// tracker costs 2.5 k instructions a game; with `Position::same_position` (its en passant
    /// test runs on both sides) 3.0 k, and packing a `PackedKey` on every hit 9.9 k.
    #[inline]
    fn is(&self, pos: &Position) -> bool {
        self.board == *pos.board()
            && self.castling == pos.castling_rights()
            && self.turn == pos.turn()
            && match (self.ep, pos.ep_square_always()) {
                (listed, square) if listed == square => true,
                // Same board and side: the game's square counts only if its capture is legal.
                (None, Some(_)) => pos.ep_square_legal().is_none(),
                _ => false,
            }
    }
}

/// The table's positions, each with the row that names it.
///
/// Positions are keyed as lichess keys them, by the EPD without clocks (placement, side to move,
/// castling rights, and the en passant square only when a capture there is legal), which is what
/// [`PackedKey`](crate::chess::PackedKey) and [`Position::same_position`] compare. A lookup
/// tests a bitmap, then probes a map by a hash of the board and the side to move, and on a hit
/// compares the position.
///
/// When two rows reach the same position, the later row (files `a` to `e`, lines in order) names
/// it: lichess builds its map from the rows in that order, a later row replacing an earlier one
/// (scalachess `OpeningDb.byFen`). The embedded table has no such pair (a test checks), so the
/// rule only matters for another table.
pub struct Table {
    rows: Vec<Opening>,
    /// Each row's position, confirming a probe.
    keys: Vec<Key>,
    /// [`board_hash`] to the row naming that position.
    by_hash: MixedMap<u32>,
    /// One bit per value of [`filter_bit`] (16 bits of the occupied squares and the side to
    /// move), set for the listed positions: most positions of a game are not listed, and this
    /// 8 KB test turns them away before the map is probed.
    filter: Box<[u64; 1024]>,
    /// Rows whose position shares its hash with another listed position, looked through
    /// when the position refutes a probe (one in the embedded table, a position of the same
    /// board with another en passant square; a test checks).
    collisions: Vec<u32>,
    positions: usize,
    max_ply: u32,
    min_pieces: u32,
}

/// A position's bit in [`Table`]'s filter (its word and mask there): 16 bits of a multiplicative
/// hash of its occupied squares and side to move, which costs a multiplication where a Zobrist
/// key not kept by the replay costs a pass over the board.
#[inline]
fn filter_bit(pos: &Position) -> (usize, u64) {
    let occupied = pos.board().occupied().0 ^ u64::from(pos.turn() == Color::Black);
    let bit = occupied.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 48;
    ((bit / 64) as usize, 1 << (bit % 64))
}

/// A hash of a position's board and side to move, the map's key: independent multiplications
/// of its bitboards, where a Zobrist key not kept by the replay costs a lookup per piece.
#[inline]
fn board_hash(pos: &Position) -> u64 {
    const ODD: [u64; 7] = [
        0x9e37_79b9_7f4a_7c15,
        0xc2b2_ae3d_27d4_eb4f,
        0x1656_67b1_9e37_79f9,
        0x85eb_ca77_c2b2_ae63,
        0x27d4_eb2f_1656_67c5,
        0xff51_afd7_ed55_8ccd,
        0xc4ce_b9fe_1a85_ec53,
    ];
    let b = pos.board();
    let words =
        [b.pawns(), b.knights(), b.bishops(), b.rooks(), b.queens(), b.kings(), b.by_color(Color::White)];
    let mut h = u64::from(pos.turn() == Color::Black);
    for (w, k) in words.iter().zip(ODD) {
        h = h.wrapping_add((w.0 ^ k).wrapping_mul(k));
    }
    // The map takes its index from the low bits and its tags from the top ones: mix both ways.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ h >> 33
}

impl Table {
    /// Reads and replays the rows of `files` (name, text), each text a header line then
    /// `eco<TAB>name<TAB>pgn` lines; move numbers in `pgn` are skipped.
    pub fn parse(files: &[(&'static str, &'static str)]) -> Result<Table, RowError> {
        let mut table = Table {
            rows: Vec::new(),
            keys: Vec::new(),
            by_hash: MixedMap::default(),
            filter: Box::new([0; 1024]),
            collisions: Vec::new(),
            positions: 0,
            max_ply: 0,
            min_pieces: u32::MAX,
        };
        for &(file, text) in files {
            let mut lines = text.lines().enumerate();
            match lines.next() {
                Some((_, header)) if header.split('\t').eq(["eco", "name", "pgn"]) => {}
                _ => return Err(RowError { file, line: 1, message: "no `eco, name, pgn` header".into() }),
            }
            for (i, line) in lines {
                let err = |message: String| RowError { file, line: i + 1, message };
                let mut cols = line.split('\t');
                let (Some(eco), Some(name), Some(pgn), None) =
                    (cols.next(), cols.next(), cols.next(), cols.next())
                else {
                    return Err(err("expected 3 tab-separated columns".into()));
                };
                let (pos, ply) = replay(pgn).map_err(err)?;
                table.insert(Opening { eco, name, pgn, ply }, &pos);
            }
        }
        table.rows.shrink_to_fit();
        table.keys.shrink_to_fit();
        table.by_hash.shrink_to_fit();
        Ok(table)
    }

    /// Adds a row naming `pos`, replacing an earlier row naming the same position.
    fn insert(&mut self, opening: Opening, pos: &Position) {
        let index = self.rows.len() as u32;
        self.max_ply = self.max_ply.max(opening.ply);
        self.min_pieces = self.min_pieces.min(pos.board().occupied().count());
        self.rows.push(opening);
        self.keys.push(Key::of(pos));
        let hash = board_hash(pos);
        let (word, mask) = filter_bit(pos);
        self.filter[word] |= mask;
        let Some(&first) = self.by_hash.get(&hash) else {
            self.by_hash.insert(hash, index);
            self.positions += 1;
            return;
        };
        if self.keys[first as usize].is(pos) {
            self.by_hash.insert(hash, index);
        } else if let Some(same) = self.collisions.iter_mut().find(|j| self.keys[**j as usize].is(pos)) {
            *same = index;
        } else {
            self.collisions.push(index);
            self.positions += 1;
        }
    }

    /// The row naming `pos`, if the table lists it: the position is compared, not how it was
    /// reached. The table is of standard chess: a position of another variant is not listed.
    #[inline]
    pub fn lookup(&self, pos: &Position) -> Option<&Opening> {
        let (word, mask) = filter_bit(pos);
        if self.filter[word] & mask == 0 || pos.variant() != Variant::Standard {
            return None;
        }
        let &i = self.by_hash.get(&board_hash(pos))?;
        self.confirm(i, pos)
    }

    /// The position decides between the probed row and any colliding ones.
    #[inline]
    fn confirm(&self, i: u32, pos: &Position) -> Option<&Opening> {
        std::iter::once(&i)
            .chain(&self.collisions)
            .find(|&&j| self.keys[j as usize].is(pos))
            .map(|&j| &self.rows[j as usize])
    }

    /// Every row, in file order (rows that another replaced included).
    pub fn rows(&self) -> &[Opening] {
        &self.rows
    }

    /// Distinct positions listed.
    pub fn positions(&self) -> usize {
        self.positions
    }

    /// Hashes that two listed positions share (the same board and side to move with other
    /// castling rights or en passant square, or a collision).
    pub fn collisions(&self) -> usize {
        self.collisions.len()
    }

    /// The deepest row's plies: a game's positions past it are not looked up.
    pub fn max_ply(&self) -> u32 {
        self.max_ply
    }

    /// The fewest pieces on a listed position: a standard game never gains pieces, so once it
    /// has fewer, no later position of it is listed.
    pub fn min_pieces(&self) -> u32 {
        self.min_pieces
    }

    /// Heap bytes the table holds (its vectors and map at their capacity; the names and moves
    /// point into the embedded text).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        // hashbrown: one control byte per bucket plus a group of 16, buckets a power of two.
        let buckets = (self.by_hash.capacity() * 8 / 7).next_power_of_two();
        self.rows.capacity() * size_of::<Opening>()
            + self.keys.capacity() * size_of::<Key>()
            + buckets * (size_of::<(u64, u32)>() + 1)
            + 16
            + self.collisions.capacity() * size_of::<u32>()
            + size_of::<[u64; 1024]>()
    }
}

/// A summary: the rows are thousands.
impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("rows", &self.rows.len())
            .field("positions", &self.positions)
            .field("max_ply", &self.max_ply)
            .field("min_pieces", &self.min_pieces)
            .finish_non_exhaustive()
    }
}

/// The position `pgn` (movetext from the standard start) reaches, and its plies.
fn replay(pgn: &str) -> Result<(Position, u32), String> {
    let mut pos = Position::default();
    let mut ply = 0;
    for token in pgn.split_ascii_whitespace() {
        if token.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            continue; // a move number
        }
        let (m, _) =
            parse_san(&pos, token.as_bytes()).map_err(|e| format!("{e} \"{token}\" in \"{pgn}\""))?;
        pos.play_unchecked(m);
        ply += 1;
    }
    Ok((pos, ply))
}

/// The embedded table, read and replayed at first use.
pub fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| Table::parse(&FILES).expect("the embedded opening table replays (tested)"))
}

/// The row naming `pos` in the embedded table, if it lists the position.
pub fn lookup(pos: &Position) -> Option<&'static Opening> {
    table().lookup(pos)
}

/// A game's opening, found as its mainline is replayed: fed every position of the mainline in
/// order, from the start position, it keeps the deepest one the table lists.
///
/// Standard chess only: a game of another variant is not classified. Positions are looked up
/// up to the table's deepest row ([`Table::max_ply`] plies from the game's start) and while the
/// board holds at least [`Table::min_pieces`] pieces, so a game costs at most a few dozen probes.
/// A game set up from a FEN is classified like any other, by the positions it reaches, plies
/// counted from its own start.
///
/// ```
/// use pgnkit::chess::Position;
/// use pgnkit::pipeline::replay::{Game, Games, Hooks, Lines, Played};
/// use pgnkit::select::eco::EcoTracker;
///
/// #[derive(Default)]
/// struct Eco(EcoTracker, Vec<Option<&'static str>>);
/// impl<'a> Hooks<'a> for Eco {
///     fn moves(&self) -> Lines {
///         Lines::Mainline
///     }
///     fn start(&mut self, _: &Game<'a>, _: &Position) {
///         self.0.reset();
///     }
///     fn played(&mut self, _: &Game<'a>, p: &Played<'a, '_>) {
///         self.0.observe(p.before);
///     }
///     fn end(&mut self, _: &Game<'a>, last: Option<&Position>) {
///         last.map(|pos| self.0.observe(pos));
///         self.1.push(last.and(self.0.opening()).map(|o| o.eco));
///         self.0.reset();
///     }
/// }
/// let mut games = Games::new(Eco::default(), b"1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. h3 *\n\n1. Nf3 d5 2. d4 *\n");
/// while games.next_game() {}
/// assert_eq!(games.into_hooks().1, [Some("C70"), Some("D02")]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct EcoTracker {
    table: &'static Table,
    /// Plies from the game's start of the next position observed.
    ply: u32,
    searching: bool,
    found: Option<(&'static Opening, u32)>,
}

impl EcoTracker {
    /// A tracker for a game's first position (reads the table on first use).
    pub fn new() -> EcoTracker {
        EcoTracker { table: table(), ply: 0, searching: true, found: None }
    }

    /// Ready for the next game's start position.
    pub fn reset(&mut self) {
        *self = EcoTracker { table: self.table, ply: 0, searching: true, found: None };
    }

    /// The next position of the mainline (the start position first).
    #[inline(always)]
    pub fn observe(&mut self, pos: &Position) {
        // Most of a game's positions come after the search stopped: a test and no call.
        if self.searching {
            self.search(pos);
        }
    }

    /// Looks `pos` up, or stops the search when no later position can be listed.
    fn search(&mut self, pos: &Position) {
        let ply = self.ply;
        self.ply += 1;
        let t = self.table;
        if ply > t.max_ply
            || pos.variant() != Variant::Standard
            || pos.board().occupied().count() < t.min_pieces
        {
            self.searching = false;
            return;
        }
        if let Some(opening) = t.lookup(pos) {
            self.found = Some((opening, ply));
        }
    }

    /// The row naming the deepest listed position observed.
    pub fn opening(&self) -> Option<&'static Opening> {
        self.found.map(|(o, _)| o)
    }

    /// Plies from the game's start to that position.
    pub fn ply(&self) -> Option<u32> {
        self.found.map(|(_, ply)| ply)
    }
}

impl Default for EcoTracker {
    fn default() -> EcoTracker {
        EcoTracker::new()
    }
}

#[cfg(test)]
mod tests;
