//! Reading `annotate --format jsonl` records into games: the records of one game (`file`, `game`)
//! follow each other, one per mainline position from ply 0; each gives the position (`fen`), the
//! move played from it (`uci`), the evaluation of the position (`eval`, White's view), the
//! engine's best move and line (`best`, `pv`, UCI) and the judgement of the move played
//! (`judgement`); the first also the game's tag pairs (`tags`, an object). The games are judged
//! by their records. Their tags are read as a PGN game's, and the filters and `--player` apply to
//! them as to PGN; records without tags (older `annotate` output) make games with no players,
//! date or result (`*`). Their opening is named from their positions.
//!
//! An input is read as records when its name says so ([`is_jsonl_name`]) or its first line that
//! is not blank is a record ([`is_records`]), whatever its name or compression.
//!
//! Records of other kinds (`summary`) are skipped. A line that is not JSON, or JSON without a
//! `type`, or a position record that cannot be read, is reported with its file and line and
//! skipped; a game whose moves do not follow from its positions keeps the moves up to the first
//! that does not. Lines longer than [`MAX_LINE`] are reported and skipped, so memory stays
//! bounded whatever the input.

use std::io::{BufRead, Read};

use serde_json::Value;

use super::collect::read_tags;
use super::divider::Divider;
use super::game::{GameRecord, LINE_PLIES};
use super::name::same_name;
use crate::analysis::Score;
use crate::analysis::judge::Judgement;
use crate::chess::{Color, Position, Variant};
use crate::notation::fen::parse_fen;
use crate::notation::parse_uci;
use crate::pgn::{GameResult, RawTag};
use crate::pipeline::replay::{Game, Verdict};
use crate::pipeline::stats::Stats;
use crate::select::{Filter, Selection};

/// The longest record line read, in bytes: the one line budget of every line-cut input.
pub use crate::pipeline::chunk::MAX_LINE;

/// Whether `name` is read as JSON Lines records: `.jsonl` or `.ndjson`, compressed or not.
pub fn is_jsonl_name(name: &str) -> bool {
    let base = name.trim_end_matches(".zst").trim_end_matches(".gz");
    base.ends_with(".jsonl") || base.ends_with(".ndjson")
}

/// Whether `line`, an input's first line that is not blank, is one of `annotate --format
/// jsonl`'s records (a JSON object whose `type` is `position` or `summary`, with its `data`):
/// the input is then read as records whatever its name. PGN may start with `{`, a comment.
pub fn is_records(line: &[u8]) -> bool {
    let line = line.trim_ascii();
    if line.first() != Some(&b'{') {
        return false;
    }
    let Ok(record) = serde_json::from_slice::<Value>(line) else { return false };
    matches!(record["type"].as_str(), Some("position" | "summary")) && record["data"].is_object()
}

/// A problem in the records: the line and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line number.
    pub line: u64,
    /// What is wrong.
    pub message: String,
}

/// A FEN's position: of the game's `Variant` tag when it names one, else crazyhouse when it has
/// a pocket, else standard, else Chess960.
fn position(fen: &str, variant: Option<&str>) -> Option<Position> {
    if let Some(v) = variant.and_then(|v| Variant::from_tag(v).ok()) {
        return parse_fen(fen, v).ok();
    }
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

/// The filters and the point of view records are read with.
#[derive(Clone, Copy, Debug)]
pub struct Reading<'s> {
    /// The filters.
    pub select: &'s Selection,
    /// With `--player`: the name as players are told apart ([`super::name::key`]); games without the player are left out.
    pub player: Option<&'s str>,
}

/// What reading one input found beside its games.
#[derive(Debug, Default)]
pub struct Found {
    /// The lines that could not be read.
    pub problems: Vec<Problem>,
    /// Games left out by the filters or `--player`.
    pub filtered: u64,
    /// Games `--player` is in (every game without it), kept or not.
    pub played: u64,
    /// Games read, and the `--where` expressions some game had the tags of.
    pub stats: Stats,
}

/// A game's tag pairs: names and values as in a PGN tag (`\` and `"` escaped).
type RawTags = Vec<(String, String)>;

/// The tags of a record's `tags` object, escaped as PGN writes them.
fn raw_tags(tags: &Value) -> RawTags {
    let Some(object) = tags.as_object() else { return Vec::new() };
    let escape = |v: &str| v.replace('\\', "\\\\").replace('"', "\\\"");
    object.iter().filter_map(|(n, v)| Some((n.clone(), escape(v.as_str()?)))).collect()
}

/// The game the replay would see of `tags`: its tags alone.
fn game_of(number: u64, tags: &RawTags) -> Game<'_> {
    Game::from_tags(number, tags.iter().map(|(n, v)| (n.as_bytes(), RawTag { raw: v.as_bytes(), offset: 0 })))
}

/// The game being read.
struct Building {
    key: (String, u64),
    game: GameRecord,
    tags: RawTags,
    pos: Position,
    divider: Divider,
    /// Left out by the filters' verdict on its tags, or by `--player`: its records are skipped.
    skipped: bool,
    /// An `eval` that read as none was said: the game's others are left out unsaid.
    bad_eval: bool,
}

/// Ends the game being read: handed to `game` when the filters keep it, else counted.
fn finish(b: Building, filter: &mut Filter<'_>, found: &mut Found, game: &mut impl FnMut(GameRecord)) {
    let mut view = game_of(b.game.number, &b.tags);
    view.plies = b.game.moves.len() as u32;
    let kept = filter.finish(&view, Some(&b.pos)).is_ok();
    if b.skipped || !kept {
        found.filtered += 1;
        return;
    }
    let mut g = b.game;
    g.division = b.divider.division();
    g.opening = filter.opening();
    game(g);
}

/// Reads the records of `input` as `reading` says, handing each game kept to `game` in order;
/// the problems found are returned (reading goes on after each) with the games left out.
pub fn read(
    input: impl Read,
    reading: Reading<'_>,
    mut game: impl FnMut(GameRecord),
) -> std::io::Result<Found> {
    let mut reader = std::io::BufReader::new(input);
    let mut found = Found::default();
    let mut filter = Filter::new(reading.select, true);
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
            found
                .problems
                .push(Problem { line, message: format!("a line longer than {MAX_LINE} bytes: skipped") });
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
                found.problems.push(Problem { line, message: format!("not a JSON record: {e}") });
                continue;
            }
        };
        // Other kinds of record (`summary`, `check --json`'s) are skipped; JSON that is no record
        // at all is reported, not dropped unseen.
        match record["type"].as_str() {
            Some("position") => {}
            Some(_) => continue,
            None => {
                found.problems.push(Problem { line, message: "not a record: no \"type\"".into() });
                continue;
            }
        }
        let d = &record["data"];
        let (Some(file), Some(number_in_file), Some(ply)) =
            (d["file"].as_str(), d["game"].as_u64(), d["ply"].as_u64())
        else {
            found
                .problems
                .push(Problem { line, message: "a position record without file, game or ply".into() });
            continue;
        };
        let key = (file.to_string(), number_in_file);
        if current.as_ref().is_none_or(|b| b.key != key) {
            if let Some(b) = current.take() {
                finish(b, &mut filter, &mut found, &mut game);
            }
            let tags = raw_tags(&d["tags"]);
            let variant = d["tags"]["Variant"].as_str();
            let Some(start) = d["fen"].as_str().and_then(|f| position(f, variant)) else {
                found.problems.push(Problem {
                    line,
                    message: format!("game {number_in_file} of {file}: no valid FEN"),
                });
                continue;
            };
            if ply != 0 {
                found.problems.push(Problem {
                    line,
                    message: format!("game {number_in_file} of {file}: its records start at ply {ply}"),
                });
            }
            number += 1;
            found.stats.games += 1;
            let mut g = GameRecord::new(number);
            let view = game_of(number, &tags);
            read_tags(&view, &mut g);
            g.result = view
                .tag(b"Result")
                .and_then(|t| GameResult::from_tag(&t.unescape()))
                .unwrap_or(GameResult::Unknown);
            g.variant = start.variant();
            g.start = Some(start);
            g.judged_in_file = true;
            let plays = reading.player.is_none_or(|p| {
                [Color::White, Color::Black]
                    .iter()
                    .any(|&c| g.tags.player(c).is_some_and(|n| same_name(n, p)))
            });
            found.played += u64::from(plays);
            let skipped = filter.tags(&view) == Verdict::Skip || !plays;
            drop(view);
            let mut divider = Divider::new();
            divider.observe(&start);
            current = Some(Building { key, game: g, tags, pos: start, divider, skipped, bad_eval: false });
        }
        let Some(b) = current.as_mut() else { continue };
        let g = &mut b.game;
        if g.broken || b.skipped {
            continue;
        }
        // This record's position is the one after the moves read so far.
        if ply != g.moves.len() as u64 {
            g.broken = true;
            found
                .problems
                .push(Problem { line, message: format!("game {}: ply {ply} out of order", b.key.1) });
            continue;
        }
        if let Some(i) = g.moves.len().checked_sub(1) {
            g.evals[i] = score(&d["eval"]);
            // An evaluation that reads as none (`{"cp": 1e308}`) is said, once a game.
            if g.evals[i].is_none() && !d["eval"].is_null() && !std::mem::replace(&mut b.bad_eval, true) {
                let full = d["eval"].to_string();
                let mut shown: String = full.chars().take(64).collect();
                if shown.len() < full.len() {
                    shown.push('…');
                }
                let message =
                    format!("game {}: ply {ply}: eval {shown} reads as no evaluation; left out", b.key.1);
                found.problems.push(Problem { line, message });
            }
        }
        let Some(uci) = d["uci"].as_str() else { continue };
        let Ok(m) = parse_uci(&b.pos, uci.as_bytes()) else {
            g.broken = true;
            found.problems.push(Problem { line, message: format!("game {}: illegal move {uci:?}", b.key.1) });
            continue;
        };
        let before = b.pos;
        filter.observe(&before);
        g.push_move(m);
        let i = g.moves.len() - 1;
        g.nags[i] = judgement(&d["judgement"]);
        if g.nags[i].is_some() {
            // For the recurring mistakes, as a PGN game's judged moves.
            g.keep_position(i, &before);
        }
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
    }
    if let Some(b) = current.take() {
        finish(b, &mut filter, &mut found, &mut game);
    }
    filter.count(&mut found.stats);
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An evaluation that reads as none is said at its line, once a game; `null` is none.
    #[test]
    fn an_evaluation_that_does_not_read_is_located() {
        let record = |ply: u32, fen: &str, uci: &str, eval: &str| {
            format!(
                "{{\"type\":\"position\",\"data\":{{\"file\":\"a\",\"game\":1,\"ply\":{ply},\"fen\":\"{fen}\",\"uci\":{uci},\"eval\":{eval}}}}}\n"
            )
        };
        let text = [
            record(0, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "\"e2e4\"", "null"),
            record(
                1,
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
                "\"e7e5\"",
                "{\"cp\":1e308}",
            ),
            record(
                2,
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
                "null",
                "{\"mate\":\"x\"}",
            ),
        ]
        .concat();
        let (mut games, select) = (Vec::new(), Selection::default());
        let reading = Reading { select: &select, player: None };
        let problems = read(text.as_bytes(), reading, |g| games.push(g)).expect("read").problems;
        let said: Vec<_> = problems.iter().map(|p| (p.line, p.message.as_str())).collect();
        assert_eq!(said, [(2, "game 1: ply 1: eval {\"cp\":1e+308} reads as no evaluation; left out")]);
        assert_eq!(games[0].evals, [None, None]);
    }

    #[test]
    fn records_make_games_and_bad_lines_are_located() {
        let text = r#"{"type":"position","data":{"file":"a.pgn","game":1,"ply":0,"fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","uci":"e2e4","eval":{"cp":20},"best":"d2d4","pv":["d2d4"],"judgement":null}}
{"type":"position","data":{"file":"a.pgn","game":1,"ply":1,"fen":"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1","uci":"f7f6","eval":{"cp":25},"best":"e7e5","pv":["e7e5","g1f3"],"judgement":"blunder"}}
{"type":"position","data":{"file":"a.pgn","game":1,"ply":2,"fen":"rnbqkbnr/ppppp1pp/5p2/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2","uci":null,"eval":{"cp":250},"best":null,"pv":[],"judgement":null}}
not json
{"type":"summary","data":{}}
{"x":1}
[1,2]
"#;
        let mut games = Vec::new();
        let select = Selection::default();
        let reading = Reading { select: &select, player: None };
        let problems = read(text.as_bytes(), reading, |g| games.push(g)).expect("read").problems;
        let lines: Vec<u64> = problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [4, 6, 7]);
        assert!(problems[0].message.starts_with("not a JSON record"));
        assert!(problems[1..].iter().all(|p| p.message == "not a record: no \"type\""), "{problems:?}");
        let [g] = games.as_slice() else { panic!("one game: {games:?}") };
        assert_eq!(g.moves.len(), 2);
        assert_eq!(g.evals, [Some(Score::Cp(25)), Some(Score::Cp(250))]);
        assert_eq!(g.nags, [None, Some(Judgement::Blunder)]);
        assert_eq!(g.line(1).map(<[_]>::len), Some(2));
        assert!(g.best[1].is_some() && !g.broken && g.judged_in_file);
        assert!(is_jsonl_name("evals.jsonl.zst") && !is_jsonl_name("games.pgn"));
        assert!(is_records(text.lines().next().expect("a line").as_bytes()));
        assert!(is_records(b"\n {\"data\":{},\"type\":\"summary\"}\r\n"));
        assert!(!is_records(b"{ a comment before the first game }"));
        assert!(!is_records(b"{\"x\":1}") && !is_records(b"[Event \"x\"]"));
    }
}
