//! `--format parquet`: one row per mainline position of each annotated game, the JSON Lines
//! record's fields as typed columns: `file`, `game` (int64), `ply` (int32), `fen` (or, with
//! `--epd-columns`, `epd` and the clocks `hmvc` and `fmvn` as int64), `san`, `uci`, `turn`,
//! `eval_cp` and `eval_mate` (int32, White's view), `depth` (int32), `nodes` (int64), `best`
//! (UCI), `pv` (UCI moves separated by spaces) and `judgement`; every column but `file`, `game`,
//! `ply`, the position's and `turn` may be null. A chunk's rows past [`SPILL_RECORDS`] or its
//! bytes of text wait on disk ([`SpilledRows`]), so one long game's table is not held whole.

use super::collect::Mainline;
use super::notes::Plan;
use super::{Halt, stop_at};
use crate::analysis::Score;
use crate::chess::{Color, Move, Position};
use crate::columnar::spool::SpilledRows;
use crate::columnar::{Field, Kind, Schema};
use crate::io::spill::SPILL_RECORDS;
use crate::jobs::positions::table::{FEN, at, position_fields, push_position};
use crate::notation::fen::{EpMode, write_epd, write_fen};
use crate::notation::san::write_san;
use crate::notation::write_uci;
use crate::pipeline::Cancel;

/// The table's columns, the position as EPD columns or not.
pub fn schema(epd: bool) -> Schema {
    let mut fields = position_fields(epd);
    fields.extend([
        Field::nullable("depth", Kind::Int32),
        Field::nullable("nodes", Kind::Int64),
        Field::nullable("best", Kind::Label),
        Field::nullable("pv", Kind::Text),
        Field::nullable("judgement", Kind::Label),
    ]);
    Schema { fields }
}

/// Where a game's rows go: `rows`, those held past `spill_at` bytes of text on disk; the writing
/// stops when `cancel` is set.
pub(super) struct To<'o, 'c> {
    pub rows: &'o mut SpilledRows,
    pub spill_at: usize,
    pub cancel: &'o Cancel<'c>,
}

/// Appends the rows of `game`'s positions to `to`, the position as EPD columns or not.
pub(super) fn write_game(
    file: &str,
    game: &Mainline,
    plan: &Plan,
    epd: bool,
    to: To<'_, '_>,
) -> Result<(), Halt> {
    // The columns after the position's.
    let c = at(FEN + 1, epd);
    let (mut evals, mut notes) = (plan.evals.cursor(), plan.notes.cursor());
    for (ply, pos) in game.positions().enumerate() {
        let Some(e) = evals.get(ply)? else { break };
        stop_at(ply, to.cancel)?;
        let (pos, t) = (&pos, &mut to.rows.held);
        t.push_text(0, Some(file.as_bytes()));
        t.push_i64(1, Some(game.number as i64));
        t.push_i32(2, Some(ply as i32));
        push_position(t, pos, epd, |out, clocks| {
            if clocks { write_fen(pos, EpMode::Legal, out) } else { write_epd(pos, EpMode::Legal, out) }
        });
        match game.moves.get(ply).copied() {
            Some(m) => {
                write_san(pos, m, t.text(c));
                t.end_text(c);
                write_uci(m, pos.castling_mode(), t.text(c + 1));
                t.end_text(c + 1);
            }
            None => {
                t.push_null_text(c);
                t.push_null_text(c + 1);
            }
        }
        t.push_text(c + 2, Some(if pos.turn() == Color::White { b"white" } else { b"black" }));
        let (cp, mate) = match e.white {
            Some(Score::Cp(cp)) => (Some(cp), None),
            Some(Score::Mate(n)) => (None, Some(n)),
            None => (None, None),
        };
        t.push_i32(c + 3, cp);
        t.push_i32(c + 4, mate);
        match &e.analysis {
            Some(a) => {
                t.push_i32(c + 5, Some(a.depth as i32));
                t.push_i64(c + 6, Some(a.nodes as i64));
                match a.best_move {
                    Some(m) => {
                        write_uci(m, pos.castling_mode(), t.text(c + 7));
                        t.end_text(c + 7);
                    }
                    None => t.push_null_text(c + 7),
                }
                push_line(pos, &a.pv, t.text(c + 8));
                t.end_text(c + 8);
            }
            None => {
                t.push_i32(c + 5, e.game_depth.map(|d| d as i32));
                t.push_i64(c + 6, None);
                t.push_null_text(c + 7);
                t.push_null_text(c + 8);
            }
        }
        match notes.value(ply)?.and_then(|n| n.advice) {
            Some(a) => t.push_text(c + 9, Some(a.judgement.word().to_ascii_lowercase().as_bytes())),
            None => t.push_null_text(c + 9),
        }
        t.end_row();
        to.rows.spill_past(to.spill_at, SPILL_RECORDS)?;
    }
    Ok(())
}

/// The moves of a line from `start` in UCI, separated by spaces.
fn push_line(start: &Position, moves: &[Move], out: &mut Vec<u8>) {
    let mut pos = *start;
    for (i, &m) in moves.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        write_uci(m, pos.castling_mode(), out);
        pos.play_unchecked(m);
    }
}
