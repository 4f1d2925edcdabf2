//! The replay hooks of `positions`: a record is rendered when the replay leaves its position (at
//! the next mainline move, whose SAN and UCI it carries, or at the end of the game), straight
//! into the chunk's output buffer: no allocation per position, FEN ranks that did not change are
//! copied from the previous position ([`FenWriter`]), and SAN/UCI are computed only by the formats
//! that print them. The `[%eval]`/`[%clk]` of a record are those of the comments after the move
//! that led to it.

use std::time::Duration;

use super::spill::Spiller;
use super::table::{self, TagValues};
use super::text::{push_csv_field, push_i64, push_json_string, push_seconds, push_u64};
use super::{Format, PositionsChunk, PositionsOptions, RecordKey};
use crate::chess::{Color, Move, PackedKey, Position};
use crate::error::{Diagnostic, Kind, Severity};
use crate::notation::fen::FenWriter;
use crate::notation::san::write_san;
use crate::notation::uci::write_uci;
use crate::pgn::EvalScore;
use crate::pipeline::replay::{EvalClock, Game, Hooks, Lines, Played, Verdict};
use crate::pipeline::stats::Stats;
use crate::select::Filter;

/// The move after a position, if any.
#[derive(Clone, Copy)]
enum Next<'t> {
    /// A move, with its text when the input wrote it as its canonical SAN.
    Move(Move, Option<&'t [u8]>),
    Null,
    End,
}

/// How a format writes the move after a position: a SAN and a UCI field between these pieces,
/// or the fixed text of a null move or of none.
struct NextFields {
    open: &'static [u8],
    between: &'static [u8],
    close: &'static [u8],
    null: &'static [u8],
    end: &'static [u8],
}

const JSONL_NEXT: NextFields = NextFields {
    open: b",\"san\":\"",
    between: b"\",\"uci\":\"",
    close: b"\"",
    null: b",\"san\":\"--\",\"uci\":\"0000\"",
    end: b",\"san\":null,\"uci\":null",
};

const CSV_NEXT: NextFields = NextFields { open: b"", between: b",", close: b"", null: b"--,0000", end: b"," };

/// Appends the next move's SAN and UCI fields as `fields` lays them out: the SAN is the input's
/// token when it is the canonical SAN already.
#[inline]
fn push_next(pos: &Position, next: Next<'_>, fields: &NextFields, out: &mut Vec<u8>) {
    match next {
        Next::Move(m, written) => {
            out.extend_from_slice(fields.open);
            push_san(pos, m, written, out);
            out.extend_from_slice(fields.between);
            write_uci(m, pos.castling_mode(), out);
            out.extend_from_slice(fields.close);
        }
        Next::Null => out.extend_from_slice(fields.null),
        Next::End => out.extend_from_slice(fields.end),
    }
}

/// Appends the canonical SAN of `m` in `pos`: the input's token when it is that already.
#[inline]
fn push_san(pos: &Position, m: Move, written: Option<&[u8]>, out: &mut Vec<u8>) {
    match written {
        Some(text) => out.extend_from_slice(text),
        None => write_san(pos, m, out),
    }
}

pub(super) struct PositionsHooks<'o> {
    opts: &'o PositionsOptions,
    pub(super) filter: Filter<'o>,
    /// Games the filters left out.
    pub(super) filtered: u64,
    /// Games the filters kept that `--skip-errors` dropped for an error.
    pub(super) skipped: u64,
    /// The last game ended was left out.
    dropped: bool,
    pub(super) out: PositionsChunk,
    /// The requested tags of the current game, rendered once (`,"White":"..."` or `,...`).
    pub(super) tag_fields: Vec<u8>,
    /// `; id "FILE:`, escaped once for every EPD record of the input.
    id_prefix: &'o [u8],
    /// The input's name as a JSON Lines or CSV record's `file` field holds it.
    file_field: &'o [u8],
    /// The input's name.
    file: &'o str,
    /// The requested tags of the current game (Parquet).
    tag_values: TagValues,
    /// Which requested tags some game of the chunk had ([`Stats::tags_seen`]).
    pub(super) tags_seen: TagsSeen,
    /// Reuses the text of unchanged ranks from one position to the next.
    fen: FenWriter,
    /// `[%eval]` and `[%clk]` after the move that led to the current position.
    eval: Option<EvalScore>,
    clk: Option<Duration>,
    /// A mainline move led to the current position and no error came since: its comments count.
    after_move: bool,
    errors_at_move: u32,
    /// Moves records to disk past a bound; knows where the current game's records start.
    pub(super) spiller: Spiller,
    /// Where the current game's diagnostics start in `out`.
    game_diagnostics: usize,
}

/// Per requested tag, whether some game had it: a name no game had gives a column without a
/// value, worth a warning ([`PositionsOptions::absent_tags`]).
#[derive(Debug)]
pub(super) struct TagsSeen {
    seen: Vec<bool>,
    /// How many of `seen` are false: once none is, games are no longer looked at.
    unseen: usize,
}

impl TagsSeen {
    fn new(tags: usize) -> TagsSeen {
        TagsSeen { seen: vec![false; tags], unseen: tags }
    }

    fn observe(&mut self, tags: &[String], game: &Game<'_>) {
        if self.unseen == 0 {
            return;
        }
        for (seen, name) in self.seen.iter_mut().zip(tags) {
            if !*seen && game.tag(name.as_bytes()).is_some() {
                *seen = true;
                self.unseen -= 1;
            }
        }
    }

    /// Adds what the chunk's games showed to `stats`.
    pub(super) fn count(&self, stats: &mut Stats) {
        stats.see_tags(&self.seen);
    }
}

impl<'o> PositionsHooks<'o> {
    pub(super) fn new(
        opts: &'o PositionsOptions,
        id_prefix: &'o [u8],
        file_field: &'o [u8],
        file: &'o str,
        out: PositionsChunk,
        tag_fields: Vec<u8>,
        spiller: Spiller,
    ) -> PositionsHooks<'o> {
        PositionsHooks {
            opts,
            filter: Filter::new(&opts.select, false),
            filtered: 0,
            skipped: 0,
            dropped: false,
            id_prefix,
            file_field,
            file,
            tag_values: TagValues::default(),
            tags_seen: TagsSeen::new(opts.tags.len()),
            out,
            tag_fields,
            fen: FenWriter::new(),
            eval: None,
            clk: None,
            after_move: false,
            errors_at_move: 0,
            spiller,
            game_diagnostics: 0,
        }
    }

    /// Writes the record of `pos` (at `ply`) if it is kept.
    #[inline]
    fn emit(&mut self, game: &Game<'_>, pos: &Position, ply: u32, next: Next<'_>) {
        let opts = self.opts;
        if !opts.keeps(ply, pos) {
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
                out.extend_from_slice(b"{\"file\":");
                out.extend_from_slice(self.file_field);
                out.extend_from_slice(b",\"game\":");
                push_u64(out, game.number);
                out.extend_from_slice(b",\"ply\":");
                push_u64(out, ply as u64);
                out.extend_from_slice(b",\"fen\":\"");
                self.fen.write_fen(pos, opts.ep, out);
                out.push(b'"');
                push_next(pos, next, &JSONL_NEXT, out);
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
                out.extend_from_slice(self.file_field);
                out.push(b',');
                push_u64(out, game.number);
                out.push(b',');
                push_u64(out, ply as u64);
                out.push(b',');
                self.fen.write_fen(pos, opts.ep, out);
                out.push(b',');
                push_next(pos, next, &CSV_NEXT, out);
                out.extend_from_slice(&self.tag_fields);
                out.push(b'\n');
            }
            Format::Parquet => self.push_row(game, pos, ply, next),
        }
        if opts.unique {
            let end =
                if opts.format == Format::Parquet { self.out.table.rows() } else { self.out.bytes.len() };
            self.out.keys.push(RecordKey { hash: pos.zobrist(), key: PackedKey::of(pos), end });
        }
        self.out.records += 1;
        if self.spiller.full(&self.out) {
            self.spiller.spill(&mut self.out);
        }
    }

    /// Pushes the row of `pos` (at `ply`) to the chunk's table.
    #[inline]
    fn push_row(&mut self, game: &Game<'_>, pos: &Position, ply: u32, next: Next<'_>) {
        let t = &mut self.out.table;
        let (epd, ep, fen) = (self.opts.epd_columns, self.opts.ep, &mut self.fen);
        let at = |col| table::at(col, epd);
        t.push_text(table::FILE, Some(self.file.as_bytes()));
        t.push_i64(table::GAME, Some(game.number as i64));
        t.push_i32(table::PLY, Some(ply as i32));
        table::push_position(t, pos, epd, |out, clocks| {
            if clocks { fen.write_fen(pos, ep, out) } else { fen.write_epd(pos, ep, out) }
        });
        match next {
            Next::Move(m, written) => {
                push_san(pos, m, written, t.text(at(table::SAN)));
                t.end_text(at(table::SAN));
                write_uci(m, pos.castling_mode(), t.text(at(table::UCI)));
                t.end_text(at(table::UCI));
            }
            Next::Null => {
                t.push_text(at(table::SAN), Some(b"--"));
                t.push_text(at(table::UCI), Some(b"0000"));
            }
            Next::End => {
                t.push_null_text(at(table::SAN));
                t.push_null_text(at(table::UCI));
            }
        }
        let turn: &[u8] = if pos.turn() == Color::White { b"white" } else { b"black" };
        t.push_text(at(table::TURN), Some(turn));
        let (cp, mate) = match self.eval {
            Some(EvalScore::Cp(cp)) => (Some(cp), None),
            Some(EvalScore::Mate(n)) => (None, Some(n)),
            None => (None, None),
        };
        t.push_i32(at(table::EVAL_CP), cp);
        t.push_i32(at(table::EVAL_MATE), mate);
        t.push_f64(at(table::CLK), self.clk.map(|c| c.as_secs_f64()));
        self.tag_values.push(&self.opts.tags, t, at(table::TAGS));
        t.end_row();
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
            Format::Parquet => self.tag_values.read(&self.opts.tags, game),
            Format::Fen | Format::Epd => {}
        }
    }
}

impl<'a> Hooks<'a> for PositionsHooks<'_> {
    fn zobrist_keys(&self) -> bool {
        self.opts.unique
    }

    fn reads_evals(&self) -> bool {
        matches!(self.opts.format, Format::Jsonl | Format::Parquet)
    }

    fn wants(&self, _: Kind, severity: Severity) -> bool {
        // Warnings are only counted: positions reports what cost the user positions.
        severity == Severity::Error
    }

    fn moves(&self) -> Lines {
        Lines::Mainline
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
    fn played(&mut self, game: &Game<'a>, p: &Played<'a, '_>) {
        let next = match p.mv {
            Some(m) => Next::Move(m, p.canonical_san()),
            None => Next::Null,
        };
        self.filter.observe(p.before);
        self.leave(game, p.before, next);
    }

    fn tags(&mut self, game: &Game<'a>) -> Verdict {
        self.tags_seen.observe(&self.opts.tags, game);
        self.filter.tags(game)
    }

    fn counted(&self) -> bool {
        !self.dropped
    }

    fn eval_clock(&mut self, game: &Game<'a>, figures: EvalClock) {
        if !self.after_move || game.errors != self.errors_at_move {
            return;
        }
        if let Some(e) = figures.eval {
            self.eval = Some(e.score);
        }
        if figures.clock.is_some() {
            self.clk = figures.clock;
        }
    }

    fn diagnostic(&mut self, _: &Game<'a>, d: Diagnostic) {
        self.out.diagnostics.push(d);
    }

    fn end(&mut self, game: &Game<'a>, last: Option<&Position>) {
        if let Some(pos) = last {
            self.emit(game, pos, game.plies, Next::End);
        }
        self.dropped = self.filter.finish(game, last).is_err();
        if self.dropped {
            self.filtered += 1;
            self.out.diagnostics.truncate(self.game_diagnostics);
        }
        let skipped = !self.dropped && self.opts.skip_errors && game.errors > 0;
        self.skipped += u64::from(skipped);
        let dropped = self.dropped || skipped;
        self.spiller.end_game(&mut self.out, dropped);
        self.game_diagnostics = self.out.diagnostics.len();
    }
}

/// `; id "FILE:` for the EPD records of input `file`.
pub(super) fn epd_id_prefix(file: &str) -> Vec<u8> {
    let mut id_prefix = b"; id \"".to_vec();
    crate::notation::fen::escape_epd_string(file, &mut id_prefix);
    id_prefix.push(b':');
    id_prefix
}
