//! Reading `annotate --format jsonl` records into games: the records of one game (`file`, `game`)
//! follow each other, one per mainline position from ply 0; each gives the position (`fen`), the
//! move played from it (`uci`), the evaluation of the position (`eval`, White's view), the
//! engine's best move and line (`best`, `pv`, UCI) and the judgement of the move played
//! (`judgement`). The games are judged by their records. The records carry no tags: such games
//! have no players, date or result (`*`), and their opening is named from their positions.
//!
//! A line that is no such record is reported with its file and line and skipped; a game whose
//! moves do not follow from its positions keeps the moves up to the first that does not. Lines
//! longer than [`MAX_LINE`] are reported and skipped, so memory stays bounded whatever the input.

use std::io::{BufRead, Read};

use serde_json::Value;

use super::divider::Divider;
use super::game::{GameRecord, LINE_PLIES};
use crate::analysis::Score;
use crate::analysis::judge::Judgement;
use crate::chess::{Position, Variant};
use crate::notation::fen::parse_fen;
use crate::notation::parse_uci;
use crate::select::eco::EcoTracker;

/// The longest record line read, in bytes.
pub const MAX_LINE: usize = 1 << 20;

/// Whether `name` is read as JSON Lines records: `.jsonl` or `.ndjson`, compressed or not.
pub fn is_jsonl_name(name: &str) -> bool {
    let base = name.trim_end_matches(".zst").trim_end_matches(".gz");
    base.ends_with(".jsonl") || base.ends_with(".ndjson")
}

/// A problem in the records: the line and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line number.
    pub line: u64,
    /// What is wrong.
    pub message: String,
}

/// A FEN's position: crazyhouse when it has a pocket, else standard, else Chess960.
fn position(fen: &str) -> Option<Position> {
    if fen.contains('[') {
        return parse_fen(fen, Variant::Crazyhouse).ok();
    }
    parse_fen(fen, Variant::Standard).or_else(|_| parse_fen(fen, Variant::Chess960)).ok()
}

fn score(v: &Value) -> Option<Score> {
    if let Some(cp) = v.get("cp").and_then(Value::as_i64) {
        return Some(Score::Cp(cp.clamp(-100_000, 100_000) as i32));
    }
    v.get("mate").and_then(Value::as_i64).map(|m| Score::Mate(m.clamp(-1000, 1000) as i32))
}

fn judgement(v: &Value) -> Option<Judgement> {
    match v.as_str()? {
        "inaccuracy" => Some(Judgement::Inaccuracy),
        "mistake" => Some(Judgement::Mistake),
        "blunder" => Some(Judgement::Blunder),
        _ => None,
    }
}

/// The game being read.
struct Building {
    key: (String, u64),
    game: GameRecord,
    pos: Position,
    divider: Divider,
    eco: EcoTracker,
}

impl Building {
    fn finish(mut self) -> GameRecord {
        self.game.division = self.divider.division();
        self.game.opening = self.eco.opening();
        self.game
    }
}

/// Reads the records of `input`, handing each game to `game` in order; the problems found are
/// returned (reading goes on after each).
pub fn read(input: impl Read, mut game: impl FnMut(GameRecord)) -> std::io::Result<Vec<Problem>> {
    let mut reader = std::io::BufReader::new(input);
    let mut problems = Vec::new();
    let mut current: Option<Building> = None;
    let mut buf = Vec::new();
    let mut line = 0u64;
    let mut number = 0u64;
    loop {
        buf.clear();
        let n = (&mut reader).take(MAX_LINE as u64).read_until(b'\n', &mut buf)?;
        if n == 0 {
            break;
        }
        line += 1;
        if n == MAX_LINE && buf.last() != Some(&b'\n') {
            problems.push(Problem { line, message: format!("a line longer than {MAX_LINE} bytes: skipped") });
            // The rest of the line.
            loop {
                buf.clear();
                let n = (&mut reader).take(MAX_LINE as u64).read_until(b'\n', &mut buf)?;
                if n == 0 || buf.last() == Some(&b'\n') {
                    break;
                }
            }
            continue;
        }
        let text = String::from_utf8_lossy(&buf);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let record: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => {
                problems.push(Problem { line, message: format!("not a JSON record: {e}") });
                continue;
            }
        };
        if record["type"] != "position" {
            continue;
        }
        let d = &record["data"];
        let (Some(file), Some(number_in_file), Some(ply)) =
            (d["file"].as_str(), d["game"].as_u64(), d["ply"].as_u64())
        else {
            problems.push(Problem { line, message: "a position record without file, game or ply".into() });
            continue;
        };
        let key = (file.to_string(), number_in_file);
        if current.as_ref().is_none_or(|b| b.key != key) {
            if let Some(b) = current.take() {
                game(b.finish());
            }
            let Some(start) = d["fen"].as_str().and_then(position) else {
                problems.push(Problem {
                    line,
                    message: format!("game {number_in_file} of {file}: no valid FEN"),
                });
                continue;
            };
            if ply != 0 {
                problems.push(Problem {
                    line,
                    message: format!("game {number_in_file} of {file}: its records start at ply {ply}"),
                });
            }
            number += 1;
            let mut g = GameRecord::new(number);
            g.variant = start.variant();
            g.start = Some(start);
            g.judged_in_file = true;
            let (mut divider, mut eco) = (Divider::new(), EcoTracker::new());
            divider.observe(&start);
            eco.observe(&start);
            current = Some(Building { key, game: g, pos: start, divider, eco });
        }
        let Some(b) = current.as_mut() else { continue };
        let g = &mut b.game;
        if g.broken {
            continue;
        }
        // This record's position is the one after the moves read so far.
        if ply != g.moves.len() as u64 {
            g.broken = true;
            problems.push(Problem { line, message: format!("game {}: ply {ply} out of order", b.key.1) });
            continue;
        }
        if let Some(i) = g.moves.len().checked_sub(1) {
            g.evals[i] = score(&d["eval"]);
        }
        let Some(uci) = d["uci"].as_str() else { continue };
        let Ok(m) = parse_uci(&b.pos, uci.as_bytes()) else {
            g.broken = true;
            problems.push(Problem { line, message: format!("game {}: illegal move {uci:?}", b.key.1) });
            continue;
        };
        let before = b.pos;
        g.push_move(m);
        let i = g.moves.len() - 1;
        g.nags[i] = judgement(&d["judgement"]);
        g.best[i] = d["best"].as_str().and_then(|u| parse_uci(&before, u.as_bytes()).ok());
        if g.nags[i].is_some()
            && let Some(pv) = d["pv"].as_array()
        {
            let mut p = before;
            let mut line_moves = Vec::new();
            for u in pv.iter().filter_map(Value::as_str).take(LINE_PLIES) {
                let Ok(m) = parse_uci(&p, u.as_bytes()) else { break };
                p.play_unchecked(m);
                line_moves.push(m);
            }
            if !line_moves.is_empty() {
                g.lines.push((i as u32, line_moves));
            }
        }
        b.pos.play_unchecked(m);
        b.divider.observe(&b.pos);
        b.eco.observe(&b.pos);
    }
    if let Some(b) = current.take() {
        game(b.finish());
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_make_games_and_bad_lines_are_located() {
        let text = r#"{"type":"position","data":{"file":"a.pgn","game":1,"ply":0,"fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","uci":"e2e4","eval":{"cp":20},"best":"d2d4","pv":["d2d4"],"judgement":null}}
{"type":"position","data":{"file":"a.pgn","game":1,"ply":1,"fen":"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1","uci":"f7f6","eval":{"cp":25},"best":"e7e5","pv":["e7e5","g1f3"],"judgement":"blunder"}}
{"type":"position","data":{"file":"a.pgn","game":1,"ply":2,"fen":"rnbqkbnr/ppppp1pp/5p2/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2","uci":null,"eval":{"cp":250},"best":null,"pv":[],"judgement":null}}
not json
{"type":"summary","data":{}}
"#;
        let mut games = Vec::new();
        let problems = read(text.as_bytes(), |g| games.push(g)).expect("read");
        assert_eq!(problems, [Problem { line: 4, message: problems[0].message.clone() }]);
        assert!(problems[0].message.starts_with("not a JSON record"));
        let [g] = games.as_slice() else { panic!("one game: {games:?}") };
        assert_eq!(g.moves.len(), 2);
        assert_eq!(g.evals, [Some(Score::Cp(25)), Some(Score::Cp(250))]);
        assert_eq!(g.nags, [None, Some(Judgement::Blunder)]);
        assert_eq!(g.line(1).map(<[_]>::len), Some(2));
        assert!(g.best[1].is_some() && !g.broken && g.judged_in_file);
        assert!(is_jsonl_name("evals.jsonl.zst") && !is_jsonl_name("games.pgn"));
    }
}
