//! `positions`: one record per mainline position of every game (the start position and the
//! position after each ply, so a game of P valid plies yields P + 1 records), as FEN, EPD, JSON
//! Lines or CSV, with ply filters and exact deduplication.
//!
//! A record is rendered when the replay leaves its position (at the next mainline move, whose SAN
//! and UCI it carries, or at the end of the game), straight into the chunk's output buffer: no
//! allocation per position, FEN ranks that did not change are copied from the previous position
//! ([`FenWriter`]), and SAN/UCI are computed only by the formats that print them. The
//! `[%eval]`/`[%clk]` of a record are those of the comments after the move that led to it.
//!
//! Invariants: records of a game with an error are its valid prefix, or nothing at all with
//! [`PositionsOptions::skip_errors`]; [`Unique`] runs in the release step (in input order, on one
//! thread), so deduplicated output is the same at any thread count.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;
use std::time::Duration;

use crate::chess::{Bitboard, Color, Move, Position, Role, Variant};
use crate::error::{Diagnostic, Kind, Severity};
use crate::notation::fen::{EpMode, FenWriter};
use crate::notation::san::write_san;
use crate::notation::uci::write_uci;
use crate::pgn::{EvalScore, RawComment};
use crate::pipeline::replay::{Game, Hooks, replay_chunk};
use crate::pipeline::stats::Stats;
use crate::pipeline::{ChunkEnd, ChunkInput, ChunkOutput, Job, Worker};

/// How each position is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// One FEN per line.
    #[default]
    Fen,
    /// EPD (PGN standard 16.2): four fields, then `hmvc`, `fmvn`, `id "FILE:GAME:PLY"` and, unless
    /// the position is the last of its game, `c0 "NEXT-SAN"`.
    Epd,
    /// One JSON object per line: `game`, `ply`, `fen`, `san`, `uci`, the requested tags, and
    /// `eval`/`clk` when the comments after the move leading here have them.
    Jsonl,
    /// A header line, then `game,ply,fen,san,uci` and the requested tags (RFC 4180 quoting).
    Csv,
}

impl Format {
    /// Whether records carry game numbers. Records without them are the same whatever a chunk's
    /// first game is, so a chunk can be read before its game numbers are known
    /// ([`crate::pipeline::run_speculative`]).
    pub fn numbers_games(self) -> bool {
        self != Format::Fen
    }
}

/// What `positions` writes and which positions it keeps.
#[derive(Clone, Debug, Default)]
pub struct PositionsOptions {
    /// Record format.
    pub format: Format,
    /// Which en passant square the FEN shows.
    pub ep: EpMode,
    /// Tags copied into JSON Lines and CSV records (missing: `null` or an empty field).
    pub tags: Vec<String>,
    /// Keep plies from this one (0 is the start position).
    pub min_ply: u32,
    /// Keep plies up to this one.
    pub max_ply: Option<u32>,
    /// Keep plies divisible by this (0 and 1 keep all).
    pub every: u32,
    /// Record the keys needed by [`Unique`] (the release step then drops repeated positions).
    pub unique: bool,
    /// Drop every game with an error, instead of keeping its valid prefix.
    pub skip_errors: bool,
    /// The input's name, for EPD `id` operands.
    pub file: String,
}

impl PositionsOptions {
    #[inline]
    fn keeps(&self, ply: u32) -> bool {
        ply >= self.min_ply
            && self.max_ply.is_none_or(|m| ply <= m)
            && (self.every <= 1 || ply.is_multiple_of(self.every))
    }
}

/// The CSV header line (with its line break) for `tags`.
pub fn csv_header(tags: &[String]) -> Vec<u8> {
    let mut out = b"game,ply,fen,san,uci".to_vec();
    for t in tags {
        out.push(b',');
        push_csv_field(&mut out, t);
    }
    out.push(b'\n');
    out
}

/// The positions job over one input.
#[derive(Clone, Debug)]
pub struct Positions {
    opts: Arc<PositionsOptions>,
}

impl Positions {
    /// A job writing records as `opts` says.
    pub fn new(opts: PositionsOptions) -> Positions {
        Positions { opts: Arc::new(opts) }
    }

    /// The options.
    pub fn options(&self) -> &PositionsOptions {
        &self.opts
    }
}

/// The identity of one written record, for [`Unique`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordKey {
    /// The position's Zobrist key.
    pub hash: u64,
    /// The position itself, packed.
    pub key: PackedKey,
    /// End of the record in [`PositionsOutput::bytes`] (it starts where the previous one ends).
    pub end: usize,
}

/// What one chunk yields.
#[derive(Debug, Default)]
pub struct PositionsOutput {
    /// Rendered records, in input order.
    pub bytes: Vec<u8>,
    /// One key per record when [`PositionsOptions::unique`] is set, else empty.
    pub keys: Vec<RecordKey>,
    /// Records in `bytes`.
    pub records: u64,
    /// Error diagnostics, with lines relative to the chunk.
    pub diagnostics: Vec<Diagnostic>,
    /// Counters.
    pub stats: Stats,
    /// Where reading ended: the next chunk's start, line breaks read, comment look-ahead.
    pub end: ChunkEnd,
}

/// For [`crate::pipeline::run_speculative`]: only diagnostics are renumbered, so it serves the
/// formats that do not number games in their records ([`Format::numbers_games`]).
impl ChunkOutput for PositionsOutput {
    fn games(&self) -> u64 {
        self.stats.games
    }

    fn end(&self) -> &ChunkEnd {
        &self.end
    }

    fn renumber(&mut self, first_game: u64) {
        for d in &mut self.diagnostics {
            d.game += first_game;
        }
    }
}

/// The move after a position, if any.
#[derive(Clone, Copy)]
enum Next<'t> {
    /// A move, with its text when the input wrote it as its canonical SAN.
    Move(Move, Option<&'t [u8]>),
    Null,
    End,
}

/// Appends the canonical SAN of `m` in `pos`: the input's token when it is that already.
#[inline]
fn push_san(pos: &Position, m: Move, written: Option<&[u8]>, out: &mut Vec<u8>) {
    match written {
        Some(text) => out.extend_from_slice(text),
        None => write_san(pos, m, out),
    }
}

struct PositionsHooks<'o> {
    opts: &'o PositionsOptions,
    out: PositionsOutput,
    /// The requested tags of the current game, rendered once (`,"White":"..."` or `,...`).
    tag_fields: Vec<u8>,
    /// `; id "FILE:`, escaped once for every EPD record.
    id_prefix: &'o [u8],
    /// Reuses the text of unchanged ranks from one position to the next.
    fen: FenWriter,
    /// `[%eval]` and `[%clk]` after the move that led to the current position.
    eval: Option<EvalScore>,
    clk: Option<Duration>,
    /// A mainline move led to the current position and no error came since: its comments count.
    after_move: bool,
    errors_at_move: u32,
    /// Where the current game's records start in `out`.
    game_bytes: usize,
    game_keys: usize,
    game_records: u64,
}

impl<'o> PositionsHooks<'o> {
    fn new(
        opts: &'o PositionsOptions,
        id_prefix: &'o [u8],
        capacity: usize,
        tag_fields: Vec<u8>,
    ) -> PositionsHooks<'o> {
        PositionsHooks {
            opts,
            id_prefix,
            out: PositionsOutput { bytes: Vec::with_capacity(capacity), ..PositionsOutput::default() },
            tag_fields,
            fen: FenWriter::new(),
            eval: None,
            clk: None,
            after_move: false,
            errors_at_move: 0,
            game_bytes: 0,
            game_keys: 0,
            game_records: 0,
        }
    }

    /// Writes the record of `pos` (at `ply`) if it is kept.
    #[inline]
    fn emit(&mut self, game: &Game<'_>, pos: &Position, ply: u32, next: Next<'_>) {
        let opts = self.opts;
        if !opts.keeps(ply) {
            return;
        }
        let out = &mut self.out.bytes;
        match opts.format {
            Format::Fen => {
                self.fen.write_fen(pos, opts.ep, out);
                out.push(b'\n');
            }
            Format::Epd => {
                self.fen.write_epd(pos, opts.ep, out);
                out.extend_from_slice(b" hmvc ");
                push_u64(out, pos.halfmoves() as u64);
                out.extend_from_slice(b"; fmvn ");
                push_u64(out, pos.fullmoves() as u64);
                out.extend_from_slice(self.id_prefix);
                push_u64(out, game.number);
                out.push(b':');
                push_u64(out, ply as u64);
                out.extend_from_slice(b"\";");
                match next {
                    Next::Move(m, written) => {
                        out.extend_from_slice(b" c0 \"");
                        push_san(pos, m, written, out);
                        out.extend_from_slice(b"\";");
                    }
                    Next::Null => out.extend_from_slice(b" c0 \"--\";"),
                    Next::End => {}
                }
                out.push(b'\n');
            }
            Format::Jsonl => {
                out.extend_from_slice(b"{\"game\":");
                push_u64(out, game.number);
                out.extend_from_slice(b",\"ply\":");
                push_u64(out, ply as u64);
                out.extend_from_slice(b",\"fen\":\"");
                self.fen.write_fen(pos, opts.ep, out);
                out.push(b'"');
                match next {
                    Next::Move(m, written) => {
                        out.extend_from_slice(b",\"san\":\"");
                        push_san(pos, m, written, out);
                        out.extend_from_slice(b"\",\"uci\":\"");
                        write_uci(m, pos.castling_mode(), out);
                        out.push(b'"');
                    }
                    Next::Null => out.extend_from_slice(b",\"san\":\"--\",\"uci\":\"0000\""),
                    Next::End => out.extend_from_slice(b",\"san\":null,\"uci\":null"),
                }
                out.extend_from_slice(&self.tag_fields);
                match self.eval {
                    Some(EvalScore::Cp(cp)) => {
                        out.extend_from_slice(b",\"eval\":{\"cp\":");
                        push_i64(out, cp as i64);
                        out.push(b'}');
                    }
                    Some(EvalScore::Mate(n)) => {
                        out.extend_from_slice(b",\"eval\":{\"mate\":");
                        push_i64(out, n as i64);
                        out.push(b'}');
                    }
                    None => {}
                }
                if let Some(clk) = self.clk {
                    out.extend_from_slice(b",\"clk\":");
                    push_seconds(out, clk);
                }
                out.extend_from_slice(b"}\n");
            }
            Format::Csv => {
                push_u64(out, game.number);
                out.push(b',');
                push_u64(out, ply as u64);
                out.push(b',');
                self.fen.write_fen(pos, opts.ep, out);
                out.push(b',');
                match next {
                    Next::Move(m, written) => {
                        push_san(pos, m, written, out);
                        out.push(b',');
                        write_uci(m, pos.castling_mode(), out);
                    }
                    Next::Null => out.extend_from_slice(b"--,0000"),
                    Next::End => out.push(b','),
                }
                out.extend_from_slice(&self.tag_fields);
                out.push(b'\n');
            }
        }
        if opts.unique {
            let end = out.len();
            self.out.keys.push(RecordKey { hash: pos.zobrist(), key: PackedKey::of(pos), end });
        }
        self.out.records += 1;
    }

    /// The position is left by a move (or a null move) `next`.
    #[inline]
    fn leave(&mut self, game: &Game<'_>, before: &Position, next: Next<'_>) {
        self.emit(game, before, game.plies, next);
        self.eval = None;
        self.clk = None;
        self.after_move = true;
        self.errors_at_move = game.errors;
    }

    fn render_tags(&mut self, game: &Game<'_>) {
        self.tag_fields.clear();
        match self.opts.format {
            Format::Jsonl => {
                for name in &self.opts.tags {
                    self.tag_fields.push(b',');
                    push_json_string(&mut self.tag_fields, name);
                    self.tag_fields.push(b':');
                    match game.tag(name.as_bytes()) {
                        Some(t) => push_json_string(&mut self.tag_fields, &t.decode().0),
                        None => self.tag_fields.extend_from_slice(b"null"),
                    }
                }
            }
            Format::Csv => {
                for name in &self.opts.tags {
                    self.tag_fields.push(b',');
                    if let Some(t) = game.tag(name.as_bytes()) {
                        push_csv_field(&mut self.tag_fields, &t.decode().0);
                    }
                }
            }
            Format::Fen | Format::Epd => {}
        }
    }
}

impl<'a> Hooks<'a> for PositionsHooks<'_> {
    fn zobrist_keys(&self) -> bool {
        self.opts.unique
    }

    fn wants(&self, _: Kind, severity: Severity) -> bool {
        // Warnings are only counted: positions reports what cost the user positions.
        severity == Severity::Error
    }

    fn start(&mut self, game: &Game<'a>, _: &Position) {
        self.eval = None;
        self.clk = None;
        self.after_move = false;
        if !self.opts.tags.is_empty() {
            self.render_tags(game);
        }
    }

    fn written_san(&self) -> bool {
        self.opts.format != Format::Fen
    }

    #[inline]
    fn mainline_move(&mut self, game: &Game<'a>, before: &Position, m: Move, san: Option<&'a [u8]>) {
        self.leave(game, before, Next::Move(m, san));
    }

    fn mainline_null_move(&mut self, game: &Game<'a>, before: &Position) {
        self.leave(game, before, Next::Null);
    }

    fn mainline_comment(&mut self, game: &Game<'a>, comment: RawComment<'a>) {
        if self.opts.format != Format::Jsonl || !self.after_move || game.errors != self.errors_at_move {
            return;
        }
        for c in comment.commands() {
            match c.name {
                b"eval" if self.eval.is_none() => {
                    self.eval = crate::pgn::comment::parse_eval(c.args).map(|e| e.score);
                }
                b"clk" if self.clk.is_none() => self.clk = crate::pgn::comment::parse_clock(c.args),
                _ => {}
            }
        }
    }

    fn diagnostic(&mut self, d: Diagnostic) {
        self.out.diagnostics.push(d);
    }

    fn end(&mut self, game: &Game<'a>, last: Option<&Position>) {
        if let Some(pos) = last {
            self.emit(game, pos, game.plies, Next::End);
        }
        if self.opts.skip_errors && game.errors > 0 {
            self.out.bytes.truncate(self.game_bytes);
            self.out.keys.truncate(self.game_keys);
            self.out.records = self.game_records;
        }
        self.game_bytes = self.out.bytes.len();
        self.game_keys = self.out.keys.len();
        self.game_records = self.out.records;
    }
}

/// Per-thread state: the options and the size of the last chunk's output (to size the next).
pub struct PositionsWorker {
    opts: Arc<PositionsOptions>,
    id_prefix: Vec<u8>,
    last_len: usize,
    tag_fields: Vec<u8>,
}

impl Job for Positions {
    type Worker = PositionsWorker;
    fn worker(&self) -> PositionsWorker {
        let mut id_prefix = b"; id \"".to_vec();
        push_epd_string(&mut id_prefix, &self.opts.file);
        id_prefix.push(b':');
        PositionsWorker { opts: self.opts.clone(), id_prefix, last_len: 0, tag_fields: Vec::new() }
    }
}

impl Worker for PositionsWorker {
    type Output = PositionsOutput;

    fn process(&mut self, chunk: &ChunkInput<'_>) -> PositionsOutput {
        let capacity = self.last_len + self.last_len / 8;
        let hooks =
            PositionsHooks::new(&self.opts, &self.id_prefix, capacity, std::mem::take(&mut self.tag_fields));
        let (hooks, stats, end) = replay_chunk(hooks, chunk);
        self.tag_fields = hooks.tag_fields;
        let mut out = hooks.out;
        self.last_len = out.bytes.len();
        out.stats = stats;
        out.end = end;
        out
    }
}

// --- Deduplication ---------------------------------------------------------------------------

/// A position packed for exact comparison: everything [`Position::same_position`] compares
/// (placement, side to move, castling rights, legal en passant square, pockets, promoted marks).
///
/// Usually 32 bytes: the occupancy, then one 4-bit code per occupied square in square order
/// (as four 32-bit planes), then castling rights, turn and en passant square. Crazyhouse
/// positions and boards of more than 32 pieces take a boxed wide form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PackedKey {
    /// Up to 32 pieces, no pockets, castling rights on the back ranks.
    Compact([u64; 4]),
    /// Anything else: the bitboards by color and role, promoted marks, rights, turn and ep
    /// square, pockets.
    Wide(Box<[u64; 12]>),
}

impl PackedKey {
    /// Packs `pos`.
    pub fn of(pos: &Position) -> PackedKey {
        let b = pos.board();
        let occ = b.occupied().0;
        let rights = pos.castling_rights().0;
        let meta = |rights: u64| {
            let ep = pos.ep_square_legal().map_or(0, |sq| sq as u64 + 1);
            rights | (ep << 16) | ((pos.turn() == Color::Black) as u64) << 23
        };
        let compact = pos.variant() != Variant::Crazyhouse
            && occ.count_ones() <= 32
            && (pos.castling_rights() & !Bitboard::BACKRANKS).is_empty();
        if compact {
            let white = b.by_color(Color::White).0;
            let bit0 = (b.knights() | b.rooks() | b.kings()).0;
            let bit1 = (b.bishops() | b.rooks()).0;
            let bit2 = (b.queens() | b.kings()).0;
            let (mut planes, mut rest, mut i) = ([0u64; 4], occ, 0);
            while rest != 0 {
                let sq = rest & rest.wrapping_neg();
                for (p, set) in planes.iter_mut().zip([white, bit0, bit1, bit2]) {
                    *p |= ((set & sq != 0) as u64) << i;
                }
                rest &= rest - 1;
                i += 1;
            }
            let rights = (rights & 0xff) | (rights >> 48 & 0xff00);
            PackedKey::Compact([occ, planes[0] | planes[1] << 32, planes[2] | planes[3] << 32, meta(rights)])
        } else {
            let mut pockets = [0u64; 2];
            for (c, color) in Color::ALL.into_iter().enumerate() {
                for (r, role) in Role::POCKET.into_iter().enumerate() {
                    pockets[c] |= (pos.pockets()[color].count(role) as u64) << (8 * r);
                }
            }
            PackedKey::Wide(Box::new([
                b.by_color(Color::White).0,
                b.pawns().0,
                b.knights().0,
                b.bishops().0,
                b.rooks().0,
                b.queens().0,
                b.kings().0,
                pos.promoted().0,
                rights,
                meta(0),
                pockets[0],
                pockets[1],
            ]))
        }
    }
}

/// Zobrist keys are already uniformly mixed: hash them as they are.
#[derive(Default, Clone, Copy)]
struct ZobristHasher(u64);

impl Hasher for ZobristHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// The positions already written, across chunks and inputs, for `--unique`. Keyed by Zobrist
/// key, checked against the packed position; a different position with the same key goes to a
/// side set, so the result is exact. Memory grows with the number of distinct positions only.
#[derive(Default)]
pub struct Unique {
    seen: HashMap<u64, PackedKey, BuildHasherDefault<ZobristHasher>>,
    collisions: HashSet<PackedKey>,
}

impl Unique {
    /// An empty set.
    pub fn new() -> Unique {
        Unique::default()
    }

    /// `true` the first time the position (`hash`, `key`) is seen.
    pub fn insert(&mut self, hash: u64, key: &PackedKey) -> bool {
        match self.seen.get(&hash) {
            None => {
                self.seen.insert(hash, key.clone());
                true
            }
            Some(k) if k == key => false,
            Some(_) => self.collisions.insert(key.clone()),
        }
    }

    /// Distinct positions seen.
    pub fn len(&self) -> usize {
        self.seen.len() + self.collisions.len()
    }

    /// `true` before the first position.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Passes the records of `out` seen for the first time to `write` (runs of adjacent kept
    /// records in one call), in order; returns how many were kept. `out` must have been made
    /// with [`PositionsOptions::unique`].
    pub fn filter<E>(
        &mut self,
        out: &PositionsOutput,
        mut write: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<u64, E> {
        let (mut kept, mut run_start, mut start) = (0, 0, 0);
        for r in &out.keys {
            if !self.insert(r.hash, &r.key) {
                if run_start < start {
                    write(&out.bytes[run_start..start])?;
                }
                run_start = r.end;
            } else {
                kept += 1;
            }
            start = r.end;
        }
        if run_start < start {
            write(&out.bytes[run_start..start])?;
        }
        Ok(kept)
    }
}

// --- Text helpers ----------------------------------------------------------------------------

#[inline(always)]
fn push_u64(out: &mut Vec<u8>, n: u64) {
    // Clocks, move numbers and plies are mostly one or two digits.
    if n < 10 {
        out.push(b'0' + n as u8);
    } else if n < 100 {
        out.extend_from_slice(&[b'0' + (n / 10) as u8, b'0' + (n % 10) as u8]);
    } else {
        out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    }
}

fn push_i64(out: &mut Vec<u8>, n: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Seconds as a JSON number: `180`, `178.6`.
fn push_seconds(out: &mut Vec<u8>, d: Duration) {
    push_u64(out, d.as_secs());
    let nanos = d.subsec_nanos();
    if nanos != 0 {
        let mut digits = [b'0'; 9];
        let mut n = nanos;
        for d in digits.iter_mut().rev() {
            *d = b'0' + (n % 10) as u8;
            n /= 10;
        }
        let len = digits.iter().rposition(|&d| d != b'0').map_or(0, |i| i + 1);
        out.push(b'.');
        out.extend_from_slice(&digits[..len]);
    }
}

/// A JSON string literal.
fn push_json_string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for &b in s.as_bytes() {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0..0x20 | 0x7f => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(b >> 4) as usize]);
                out.push(HEX[(b & 15) as usize]);
            }
            _ => out.push(b),
        }
    }
    out.push(b'"');
}

/// A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
fn push_csv_field(out: &mut Vec<u8>, s: &str) {
    if s.bytes().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r')) {
        out.push(b'"');
        for &b in s.as_bytes() {
            if b == b'"' {
                out.push(b'"');
            }
            out.push(b);
        }
        out.push(b'"');
    } else {
        out.extend_from_slice(s.as_bytes());
    }
}

/// The inside of an EPD string operand: `"` and `\` escaped with `\`, as in PGN strings.
fn push_epd_string(out: &mut Vec<u8>, s: &str) {
    for &b in s.as_bytes() {
        if b == b'"' || b == b'\\' {
            out.push(b'\\');
        }
        out.push(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;
    use crate::pipeline::{Input, NoProgress, Options, run};

    /// Runs the job the way the command line does; returns (output, diagnostics, stats).
    fn positions(
        pgn: &str,
        opts: &PositionsOptions,
        threads: usize,
        chunk: usize,
    ) -> (String, Vec<Diagnostic>, Stats) {
        let job = Positions::new(opts.clone());
        let (mut bytes, mut diags, mut stats, mut lines) = (Vec::new(), Vec::new(), Stats::default(), 0);
        let mut unique = opts.unique.then(Unique::new);
        if opts.format == Format::Csv {
            bytes.extend(csv_header(&opts.tags));
        }
        let pipeline = Options { threads, chunk_size: chunk };
        run(
            Input::Slice(pgn.as_bytes()),
            &job,
            crate::pgn::split::cut,
            &pipeline,
            &NoProgress,
            |o: PositionsOutput| {
                for mut d in o.diagnostics.iter().cloned() {
                    d.line += lines;
                    diags.push(d);
                }
                lines += o.end.newlines;
                stats.merge(&o.stats);
                match unique.as_mut() {
                    Some(u) => {
                        u.filter(&o, |b| {
                            bytes.extend_from_slice(b);
                            Ok::<(), String>(())
                        })?;
                    }
                    None => bytes.extend_from_slice(&o.bytes),
                }
                Ok::<(), String>(())
            },
        )
        .expect("run");
        (String::from_utf8(bytes).expect("UTF-8 output"), diags, stats)
    }

    fn opts(format: Format) -> PositionsOptions {
        PositionsOptions { format, file: "t.pgn".into(), ..PositionsOptions::default() }
    }

    const GAMES: &str = "[Event \"Club, \\\"open\\\"\"]\n[White \"Doe, John\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n\
        1. e4 { [%eval 0.17] [%clk 0:03:00] } 1... e5 { [%clk 0:02:58.6] [%eval #-4] } 2. Qh5 { no commands } 1-0\n\n\
        [Event \"illegal\"]\n[White \"X\"]\n[Result \"*\"]\n\n1. d4 d5 2. Ke3 { [%eval 9.99] } Nf6 *\n\n\
        [Event \"ep\"]\n[Result \"*\"]\n\n1. e4 Nf6 2. e5 d5 3. exd6 *\n";

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn numbers_are_written_as_decimal() {
        let mut n = 1u64;
        for _ in 0..20 {
            for v in [n - 1, n, n + 7, n * 9 + 1] {
                let mut out = b"x".to_vec();
                push_u64(&mut out, v);
                assert_eq!(out, format!("x{v}").into_bytes());
            }
            n = n.saturating_mul(10);
        }
        let mut out = Vec::new();
        push_u64(&mut out, u64::MAX);
        assert_eq!(out, u64::MAX.to_string().into_bytes());
    }

    #[test]
    fn fen_one_record_per_position_and_the_valid_prefix_of_a_bad_game() {
        let (out, diags, stats) = positions(GAMES, &opts(Format::Fen), 1, 1 << 20);
        let lines: Vec<&str> = out.lines().collect();
        // 3 + 1, the valid prefix 2 + 1 (Ke3 is illegal), 5 + 1.
        assert_eq!(lines.len(), 4 + 3 + 6, "{out}");
        assert_eq!(lines[0], START);
        assert_eq!(lines[3], "rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2");
        assert_eq!(lines[6], "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2");
        // After 2... d5 the ep square is shown because exd6 is legal.
        assert_eq!(lines[11], "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
        assert_eq!(stats.games, 3);
        assert_eq!(stats.games_with_errors, 1);
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!((diags[0].game, diags[0].kind, diags[0].ply), (2, Kind::IllegalMove, Some(3)));
        assert_eq!((diags[0].line, diags[0].col), (12, 13));
        // Every FEN reads back.
        for l in &lines {
            assert!(parse_fen(l, Variant::Standard).is_ok(), "{l}");
        }
    }

    #[test]
    fn ep_square_always() {
        let o = PositionsOptions { ep: EpMode::Always, ..opts(Format::Fen) };
        let (out, _, _) = positions(GAMES, &o, 1, 1 << 20);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[1], "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
        assert_eq!(lines[11], "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
    }

    #[test]
    fn skip_errors_drops_the_whole_game() {
        let o = PositionsOptions { skip_errors: true, ..opts(Format::Fen) };
        let (out, diags, stats) = positions(GAMES, &o, 1, 1 << 20);
        assert_eq!(out.lines().count(), 4 + 6);
        assert!(!out.contains("3p4/3P4"), "{out}");
        assert_eq!((diags.len(), stats.games_with_errors), (1, 1));
    }

    #[test]
    fn epd_records() {
        let (out, _, _) = positions(GAMES, &opts(Format::Epd), 1, 1 << 20);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - hmvc 0; fmvn 1; id \"t.pgn:1:0\"; c0 \"e4\";"
        );
        assert_eq!(
            lines[3],
            "rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - hmvc 1; fmvn 2; id \"t.pgn:1:3\";"
        );
        assert!(lines[6].ends_with("id \"t.pgn:2:2\";"), "{}", lines[6]);
        // Reads back as EPD with the same operations.
        let epd = crate::notation::fen::parse_epd(lines[0]).expect("EPD");
        assert_eq!(epd.op("id"), Some(&["t.pgn:1:0".to_string()][..]));
        assert_eq!(epd.op("c0"), Some(&["e4".to_string()][..]));
        let quoted = PositionsOptions { file: "a \"b\".pgn".into(), ..opts(Format::Epd) };
        let (out, _, _) = positions(GAMES, &quoted, 1, 1 << 20);
        assert!(out.starts_with(&format!(
            "{} hmvc 0; fmvn 1; id \"a \\\"b\\\".pgn:1:0\";",
            &START[..START.len() - 4]
        )));
    }

    #[test]
    fn jsonl_records_with_tags_eval_and_clock() {
        let o = PositionsOptions {
            tags: vec!["White".into(), "Event".into(), "Round".into()],
            ..opts(Format::Jsonl)
        };
        let (out, _, _) = positions(GAMES, &o, 1, 1 << 20);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            format!(
                "{{\"game\":1,\"ply\":0,\"fen\":\"{START}\",\"san\":\"e4\",\"uci\":\"e2e4\",\
                 \"White\":\"Doe, John\",\"Event\":\"Club, \\\"open\\\"\",\"Round\":null}}"
            )
        );
        let recs: Vec<serde_json::Value> =
            lines.iter().map(|l| serde_json::from_str(l).expect("valid JSON")).collect();
        assert_eq!(recs[1]["eval"], serde_json::json!({"cp": 17}));
        assert_eq!(recs[1]["clk"], serde_json::json!(180));
        assert_eq!(recs[2]["eval"], serde_json::json!({"mate": -4}));
        assert_eq!(recs[2]["clk"], serde_json::json!(178.6));
        assert_eq!((recs[2]["san"].as_str(), recs[2]["uci"].as_str()), (Some("Qh5"), Some("d1h5")));
        assert!(recs[3].get("eval").is_none() && recs[3].get("clk").is_none());
        assert!(recs[3]["san"].is_null() && recs[3]["uci"].is_null());
        // The eval after the illegal move is not given to the last valid position.
        assert_eq!((recs[6]["game"].as_u64(), recs[6]["ply"].as_u64()), (Some(2), Some(2)));
        assert!(recs[6].get("eval").is_none(), "{}", lines[6]);
        assert!(recs[6]["san"].is_null());
    }

    #[test]
    fn csv_header_and_quoting() {
        let o = PositionsOptions {
            tags: vec!["White".into(), "Event".into(), "Round".into()],
            ..opts(Format::Csv)
        };
        let (out, _, _) = positions(GAMES, &o, 1, 1 << 20);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "game,ply,fen,san,uci,White,Event,Round");
        assert_eq!(lines[1], format!("1,0,{START},e4,e2e4,\"Doe, John\",\"Club, \"\"open\"\"\","));
        assert_eq!(
            lines[4],
            "1,3,rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2,,,\"Doe, John\",\"Club, \"\"open\"\"\","
        );
        assert_eq!(lines[5], format!("2,0,{START},d4,d2d4,X,illegal,"));
        assert_eq!(csv_header(&["a,b".into(), "q\"".into()]), b"game,ply,fen,san,uci,\"a,b\",\"q\"\"\"\n");
    }

    #[test]
    fn ply_filters() {
        let plies = |o: PositionsOptions| -> Vec<(u64, u64)> {
            let (out, _, _) = positions(GAMES, &PositionsOptions { ..o }, 1, 1 << 20);
            out.lines()
                .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON"))
                .map(|v| (v["game"].as_u64().unwrap_or(0), v["ply"].as_u64().unwrap_or(0)))
                .collect()
        };
        let base = opts(Format::Jsonl);
        assert_eq!(
            plies(PositionsOptions { min_ply: 2, ..base.clone() }),
            [(1, 2), (1, 3), (2, 2), (3, 2), (3, 3), (3, 4), (3, 5)]
        );
        assert_eq!(
            plies(PositionsOptions { max_ply: Some(1), ..base.clone() }),
            [(1, 0), (1, 1), (2, 0), (2, 1), (3, 0), (3, 1)]
        );
        assert_eq!(
            plies(PositionsOptions { every: 2, min_ply: 1, ..base.clone() }),
            [(1, 2), (2, 2), (3, 2), (3, 4)]
        );
        assert_eq!(
            plies(PositionsOptions { min_ply: 1, max_ply: Some(1), ..base }),
            [(1, 1), (2, 1), (3, 1)]
        );
    }

    #[test]
    fn null_moves_are_positions_too() {
        let pgn = "[Event \"null\"]\n\n1. e4 -- 2. d4 *\n";
        let (out, _, stats) = positions(pgn, &opts(Format::Csv), 1, 1 << 20);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 1 + 4);
        assert_eq!(lines[2], "1,1,rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1,--,0000");
        assert_eq!(lines[3], "1,2,rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2,d4,d2d4");
        assert_eq!(stats.games_with_errors, 0);
    }

    /// Games that share positions: the start, transpositions, repetitions, ep squares that differ
    /// only in "always" mode.
    fn repeats() -> String {
        let games = [
            "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 *",
            "1. e4 e5 2. Nf3 Nc6 *",
            "1. Nf3 Nc6 2. e4 e5 *",
            "1. e4 d5 2. Nf3 Nf6 *",
            "1. Nf3 Nf6 2. e4 d5 *",
            "1. e4 *",
        ];
        (0..40).map(|i| format!("[Event \"{i}\"]\n\n{}\n\n", games[i % games.len()])).collect()
    }

    #[test]
    fn unique_is_exact_and_the_same_at_any_thread_count() {
        let pgn = repeats();
        let u = PositionsOptions { unique: true, ..opts(Format::Fen) };
        let (one, _, _) = positions(&pgn, &u, 1, 1 << 20);
        let mut seen = HashSet::new();
        // Distinct FENs without the clocks == distinct positions here.
        let mut expected = String::new();
        for l in positions(&pgn, &opts(Format::Fen), 1, 1 << 20).0.lines() {
            let key: Vec<&str> = l.split(' ').take(4).collect();
            if seen.insert(key.join(" ")) {
                expected.push_str(l);
                expected.push('\n');
            }
        }
        assert_eq!(one, expected);
        assert_eq!(one.lines().count(), 4 + 4 + 2 + 3 + 1, "{one}");
        for (threads, chunk) in [(2, 1 << 20), (2, 60), (3, 200), (1, 60)] {
            assert_eq!(positions(&pgn, &u, threads, chunk).0, one, "threads {threads} chunk {chunk}");
        }
        // Other formats carry the same records.
        let uj = PositionsOptions { unique: true, ..opts(Format::Jsonl) };
        assert_eq!(positions(&pgn, &uj, 2, 60).0.lines().count(), 14);
    }

    #[test]
    fn every_format_is_the_same_at_any_thread_count() {
        let pgn = GAMES.repeat(30) + &repeats();
        for format in [Format::Fen, Format::Epd, Format::Jsonl, Format::Csv] {
            for skip_errors in [false, true] {
                let o = PositionsOptions { skip_errors, tags: vec!["White".into()], ..opts(format) };
                let o = if format == Format::Fen || format == Format::Epd {
                    PositionsOptions { tags: vec![], ..o }
                } else {
                    o
                };
                let one = positions(&pgn, &o, 1, 1 << 20);
                for (threads, chunk) in [(2, 100), (2, 1000), (3, 333)] {
                    let many = positions(&pgn, &o, threads, chunk);
                    assert_eq!(many.0, one.0, "{format:?} threads {threads} chunk {chunk}");
                    assert_eq!(many.1, one.1);
                    assert_eq!(many.2, one.2);
                }
            }
        }
    }

    #[test]
    fn packed_keys_follow_same_position() {
        let play = |sans: &[&str]| {
            let mut pos = Position::default();
            for s in sans {
                let (m, _) = crate::notation::san::parse_san(&pos, s.as_bytes()).expect("legal");
                pos.play_unchecked(m);
            }
            pos
        };
        let a = play(&["e4", "e5", "Nf3"]);
        let b = play(&["Nf3", "e5", "e4"]);
        assert!(a.same_position(&b));
        assert_eq!(PackedKey::of(&a), PackedKey::of(&b));
        assert!(matches!(PackedKey::of(&a), PackedKey::Compact(_)));
        // Same placement, other side to move; lost castling rights.
        let c = play(&["Nf3", "Nf6", "Ng1", "Ng8"]);
        assert_eq!(PackedKey::of(&c), PackedKey::of(&Position::default()));
        let d = play(&["Nf3", "Nf6", "Ng1"]);
        assert_ne!(PackedKey::of(&d), PackedKey::of(&Position::default()));
        let e = play(&["Nf3", "Nf6", "Rg1", "Ng8", "Rh1", "Nf6", "Ng1", "Ng8"]);
        assert_ne!(PackedKey::of(&e), PackedKey::of(&Position::default()));
        // An ep square counts only when the capture is legal.
        let f = play(&["e4", "Nf6", "e5", "d5"]);
        let g = play(&["e4", "d5", "e5", "Nf6", "Nf3", "Ng8", "Ng1", "Nf6"]);
        assert!(!f.same_position(&g));
        assert_ne!(PackedKey::of(&f), PackedKey::of(&g));
        // A pinned pawn cannot take en passant: the same position as without the double step.
        let fen = |f: &str| parse_fen(f, Variant::Standard).expect("FEN");
        let h = fen("3k4/8/8/8/3pP3/8/8/3RK3 b - e3 0 1");
        let i = fen("3k4/8/8/8/3pP3/8/8/3RK3 b - - 0 1");
        assert!(h.same_position(&i));
        assert_eq!((PackedKey::of(&h), h.zobrist()), (PackedKey::of(&i), i.zobrist()));
        // Crazyhouse takes the wide form, with pockets.
        let zh =
            parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Pp] w KQkq - 0 1", Variant::Crazyhouse)
                .expect("FEN");
        let zh2 =
            parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[P] w KQkq - 0 1", Variant::Crazyhouse)
                .expect("FEN");
        assert!(matches!(PackedKey::of(&zh), PackedKey::Wide(_)));
        assert_ne!(PackedKey::of(&zh), PackedKey::of(&zh2));
    }

    #[test]
    fn unique_survives_zobrist_collisions() {
        let mut u = Unique::new();
        let a = PackedKey::of(&Position::default());
        let mut b_pos = Position::default();
        b_pos.play_null().expect("not in check");
        let b = PackedKey::of(&b_pos);
        assert!(u.insert(7, &a));
        assert!(!u.insert(7, &a));
        assert!(u.insert(7, &b), "same hash, other position");
        assert!(!u.insert(7, &b));
        assert!(u.insert(8, &a), "other hash: a different position for the set");
        assert_eq!(u.len(), 3);
    }

    #[test]
    fn text_helpers() {
        let mut out = Vec::new();
        push_seconds(&mut out, Duration::from_millis(178_600));
        out.push(b' ');
        push_seconds(&mut out, Duration::from_secs(0));
        out.push(b' ');
        push_i64(&mut out, -4);
        out.push(b' ');
        push_u64(&mut out, u64::MAX);
        out.push(b' ');
        push_json_string(&mut out, "a\"\\\n\u{1}é");
        assert_eq!(
            String::from_utf8(out).expect("UTF-8"),
            "178.6 0 -4 18446744073709551615 \"a\\\"\\\\\\n\\u0001é\""
        );
    }
}
