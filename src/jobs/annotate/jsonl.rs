//! `--format jsonl`: one record per mainline position of each annotated game,
//! `{"type": "position", "data": {...}}`, with `file`, `game`, `ply` (plies played before the
//! position: 0 is the start), `fen`, `san` and `uci` (the game's move from this position, null
//! after the last), `eval` (`{"cp": N}` or `{"mate": N}` from White's view, null when there is
//! none), `depth`, `nodes`, `best` and `pv` (UCI), and `judgement` (of the game's move from this
//! position: `inaccuracy`, `mistake`, `blunder` or null). The game's first record (ply 0) also
//! holds its tag pairs as read, `tags` (`{"White": "...", "Result": "1-0", ...}`, the first of
//! each name), so that the records can be filtered and reported per player without the PGN. The
//! summary record comes last, from the sink.

use serde_json::{Value, json};

use super::collect::Mainline;
use super::notes::Plan;
use super::{Halt, stop_at};
use crate::analysis::Score;
use crate::chess::{Move, Position};
use crate::io::name::Name;
use crate::io::spill::SpilledText;
use crate::notation::fen::{EpMode, write_fen};
use crate::notation::san::write_san;
use crate::notation::write_uci;
use crate::pipeline::Cancel;

fn uci(pos: &Position, m: Move) -> String {
    let mut s = String::new();
    write_uci(m, pos.castling_mode(), &mut s);
    s
}

/// A White's-view score as JSON.
pub fn score_json(score: Score) -> Value {
    match score {
        Score::Cp(cp) => json!({"cp": cp}),
        Score::Mate(n) => json!({"mate": n}),
    }
}

/// Appends the records of `game`'s positions to `out`, its text past `spill_at` bytes on disk;
/// stops when the run is cancelled.
pub(super) fn write_game(
    file: &Name,
    game: &Mainline,
    plan: &Plan,
    out: &mut SpilledText,
    spill_at: usize,
    cancel: &Cancel<'_>,
) -> Result<(), Halt> {
    let (mut evals, mut notes) = (plan.evals.cursor(), plan.notes.cursor());
    for (ply, pos) in game.positions().enumerate() {
        let Some(e) = evals.get(ply)? else { break };
        let pos = &pos;
        stop_at(ply, cancel)?;
        let mut fen = String::new();
        write_fen(pos, EpMode::Legal, &mut fen);
        let played = game.moves.get(ply).copied();
        let san = played.map(|m| {
            let mut s = String::new();
            write_san(pos, m, &mut s);
            s
        });
        let (depth, nodes, best, pv) = match &e.analysis {
            Some(a) => (Some(a.depth), Some(a.nodes), a.best_move.map(|m| uci(pos, m)), line_uci(pos, &a.pv)),
            None => (e.game_depth, None, None, Vec::new()),
        };
        let judgement =
            notes.value(ply)?.and_then(|n| n.advice).map(|a| a.judgement.word().to_ascii_lowercase());
        let record = json!({"type": "position", "data": {
            "file": file.json(), "game": game.number, "ply": ply, "fen": fen, "san": san,
            "uci": played.map(|m| uci(pos, m)), "eval": e.white.map(score_json), "depth": depth,
            "nodes": nodes, "best": best, "pv": pv, "judgement": judgement,
        }});
        let mut record = record;
        if ply == 0 {
            record["data"]["tags"] = Value::Object(tag_texts(game));
        }
        out.held.extend_from_slice(record.to_string().as_bytes());
        out.held.push(b'\n');
        out.spill_past(spill_at)?;
    }
    Ok(())
}

/// The moves of a line from `start` in UCI.
fn line_uci(start: &Position, moves: &[Move]) -> Vec<String> {
    let mut pos = *start;
    moves
        .iter()
        .map(|&m| {
            let s = uci(&pos, m);
            pos.play_unchecked(m);
            s
        })
        .collect()
}

/// The tag pairs of `game` as text (UTF-8, else Windows-1252, escapes resolved), the first of
/// each name.
fn tag_texts(game: &Mainline<'_>) -> serde_json::Map<String, Value> {
    let mut tags = serde_json::Map::with_capacity(game.tags.len());
    for (name, value) in &game.tags {
        let name = crate::pgn::text::decode(name).0;
        if !tags.contains_key(name.as_ref()) {
            tags.insert(name.into_owned(), Value::from(value.decode().0.into_owned()));
        }
    }
    tags
}
