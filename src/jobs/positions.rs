//! `positions`: one record per mainline position of every game (the start position and the
//! position after each ply, so a game of P valid plies yields P + 1 records), as FEN, EPD, JSON
//! Lines or CSV, with ply filters and exact deduplication.
//!
//! A record is rendered when the replay leaves its position (at the next mainline move, whose SAN
//! and UCI it carries, or at the end of the game), straight into the chunk's output buffer: no
//! allocation per position, and SAN/UCI are computed only by the formats that print them. The
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
use crate::notation::fen::{EpMode, write_epd_into, write_fen_into};
use crate::notation::san::write_san_into;
use crate::notation::uci::write_uci_into;
use crate::pgn::{EvalScore, LineIndex, RawComment, Reader};
use crate::pipeline::replay::{Game, Hooks, Replayer};
use crate::pipeline::stats::Stats;
use crate::pipeline::{ChunkInput, Job, Worker};

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
    /// Line breaks in the chunk (to make the next chunk's lines absolute).
    pub newlines: u64,
}

/// The move after a position, if any.
#[derive(Clone, Copy)]
enum Next {
    Move(Move),
    Null,
    End,
}

struct PositionsHooks<'o> {
    opts: &'o PositionsOptions,
    out: PositionsOutput,
    /// The requested tags of the current game, rendered once (`,"White":"..."` or `,...`).
    tag_fields: Vec<u8>,
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
    fn new(opts: &'o PositionsOptions, capacity: usize, tag_fields: Vec<u8>) -> PositionsHooks<'o> {
        PositionsHooks {
            opts,
            out: PositionsOutput { bytes: Vec::with_capacity(capacity), ..PositionsOutput::default() },
            tag_fields,
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
    fn emit(&mut self, game: &Game<'_>, pos: &Position, ply: u32, next: Next) {
        let opts = self.opts;
        if !opts.keeps(ply) {
            return;
        }
        let out = &mut self.out.bytes;
        match opts.format {
            Format::Fen => {
                write_fen_into(pos, opts.ep, out);
                out.push(b'\n');
            }
            Format::Epd => {
                write_epd_into(pos, opts.ep, out);
                out.extend_from_slice(b" hmvc ");
                push_u64(out, pos.halfmoves() as u64);
                out.extend_from_slice(b"; fmvn ");
                push_u64(out, pos.fullmoves() as u64);
                out.extend_from_slice(b"; id \"");
                push_epd_string(out, &opts.file);
                out.push(b':');
                push_u64(out, game.number);
                out.push(b':');
                push_u64(out, ply as u64);
                out.extend_from_slice(b"\";");
                match next {
                    Next::Move(m) => {
                        out.extend_from_slice(b" c0 \"");
                        write_san_into(pos, m, out);
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
                write_fen_into(pos, opts.ep, out);
                out.push(b'"');
                match next {
                    Next::Move(m) => {
                        out.extend_from_slice(b",\"san\":\"");
                        write_san_into(pos, m, out);
                        out.extend_from_slice(b"\",\"uci\":\"");
                        write_uci_into(m, pos.castling_mode(), out);
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
                write_fen_into(pos, opts.ep, out);
                out.push(b',');
                match next {
                    Next::Move(m) => {
                        write_san_into(pos, m, out);
                        out.push(b',');
                        write_uci_into(m, pos.castling_mode(), out);
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
    fn leave(&mut self, game: &Game<'_>, before: &Position, next: Next) {
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

    #[inline]
    fn mainline_move(&mut self, game: &Game<'a>, before: &Position, m: Move) {
        self.leave(game, before, Next::Move(m));
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
    last_len: usize,
    tag_fields: Vec<u8>,
}

impl Job for Positions {
    type Worker = PositionsWorker;
    fn worker(&self) -> PositionsWorker {
        PositionsWorker { opts: self.opts.clone(), last_len: 0, tag_fields: Vec::new() }
    }
}

impl Worker for PositionsWorker {
    type Output = PositionsOutput;

    fn process(&mut self, chunk: &ChunkInput<'_>) -> PositionsOutput {
        let capacity = self.last_len + self.last_len / 8;
        let hooks = PositionsHooks::new(&self.opts, capacity, std::mem::take(&mut self.tag_fields));
        let mut replayer = Replayer::new(hooks, chunk.bytes, chunk.offset, chunk.first_game);
        let mut reader = Reader::with_base(chunk.bytes, chunk.offset as usize);
        while reader.read_game(&mut replayer).is_some() {}
        let hooks = replayer.hooks;
        self.tag_fields = hooks.tag_fields;
        let mut out = hooks.out;
        self.last_len = out.bytes.len();
        out.stats.merge(&replayer.stats);
        out.stats.bytes = chunk.bytes.len() as u64;
        out.newlines = LineIndex::new(chunk.bytes).locate(chunk.bytes.len()).line as u64 - 1;
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

#[inline]
fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

fn push_i64(out: &mut Vec<u8>, n: i64) {
    if n < 0 {
        out.push(b'-');
    }
    push_u64(out, n.unsigned_abs());
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
