//! `--format parquet`: one row per mainline position of each annotated game, the JSON Lines
//! record's fields as typed columns: `file`, `game` (int64), `ply` (int32), `fen`, `san`, `uci`,
//! `turn`, `eval_cp` and `eval_mate` (int32, White's view), `depth` (int32), `nodes` (int64),
//! `best` (UCI), `pv` (UCI moves separated by spaces) and `judgement`; every column but `file`,
//! `game`, `ply`, `fen` and `turn` may be null.

use super::collect::Mainline;
use super::notes::Plan;
use crate::analysis::Score;
use crate::chess::{Color, Move, Position};
use crate::columnar::{Batch, Field, Kind, Schema};
use crate::notation::fen::{EpMode, write_fen};
use crate::notation::san::write_san;
use crate::notation::write_uci;

/// The table's columns.
pub fn schema() -> Schema {
    let mut fields = crate::jobs::positions::table::position_fields();
    fields.extend([
        Field::nullable("depth", Kind::Int32),
        Field::nullable("nodes", Kind::Int64),
        Field::nullable("best", Kind::Label),
        Field::nullable("pv", Kind::Text),
        Field::nullable("judgement", Kind::Label),
    ]);
    Schema { fields }
}

/// Appends the rows of `game`'s positions to `t`.
pub(super) fn write_game(file: &str, game: &Mainline, plan: &Plan, t: &mut Batch) {
    for (ply, (pos, e)) in game.positions.iter().zip(&plan.evals).enumerate() {
        t.push_text(0, Some(file.as_bytes()));
        t.push_i64(1, Some(game.number as i64));
        t.push_i32(2, Some(ply as i32));
        write_fen(pos, EpMode::Legal, t.text(3));
        t.end_text(3);
        match game.moves.get(ply).copied() {
            Some(m) => {
                write_san(pos, m, t.text(4));
                t.end_text(4);
                write_uci(m, pos.castling_mode(), t.text(5));
                t.end_text(5);
            }
            None => {
                t.push_null_text(4);
                t.push_null_text(5);
            }
        }
        t.push_text(6, Some(if pos.turn() == Color::White { b"white" } else { b"black" }));
        let (cp, mate) = match e.white {
            Some(Score::Cp(cp)) => (Some(cp), None),
            Some(Score::Mate(n)) => (None, Some(n)),
            None => (None, None),
        };
        t.push_i32(7, cp);
        t.push_i32(8, mate);
        match &e.analysis {
            Some(a) => {
                t.push_i32(9, Some(a.depth as i32));
                t.push_i64(10, Some(a.nodes as i64));
                match a.best_move {
                    Some(m) => {
                        write_uci(m, pos.castling_mode(), t.text(11));
                        t.end_text(11);
                    }
                    None => t.push_null_text(11),
                }
                push_line(pos, &a.pv, t.text(12));
                t.end_text(12);
            }
            None => {
                t.push_i32(9, e.game_depth.map(|d| d as i32));
                t.push_i64(10, None);
                t.push_null_text(11);
                t.push_null_text(12);
            }
        }
        match plan.notes.get(ply).and_then(|n| n.advice) {
            Some(a) => t.push_text(13, Some(a.judgement.word().to_ascii_lowercase().as_bytes())),
            None => t.push_null_text(13),
        }
        t.end_row();
    }
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
