//! `pgnkit clean` on real files: over every fixture and (when present) every shared collection,
//! the output cleans to itself, is the same at 1 and 2 threads, passes `check --strict-san`, and
//! the ledger adds up; the rejects file holds exactly the rejected games as read; python-chess
//! reads the output with no error and the positions pgnkit's replay of the original gives; and
//! pgn-extract reads it without complaint.

use std::path::{Path, PathBuf};
use std::process::Command;

use pgnkit::chess::Position;
use pgnkit::io::{Input, InputOptions};
use pgnkit::pipeline::replay::{Game, Games, Hooks};
use serde_json::Value;

use crate::util::{
    fixture, python_chess_missing, run, run_with_stdin, shared_data, shared_not_pgn, stderr, stdout, temp_dir,
};

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// Every game's byte offset and bytes, as read.
fn games_as_read(bytes: &[u8]) -> Vec<(u64, Vec<u8>)> {
    #[derive(Default)]
    struct Bytes(Vec<(u64, Vec<u8>)>);
    impl<'a> Hooks<'a> for Bytes {
        fn end(&mut self, game: &Game<'a>, _: Option<&Position>) {
            self.0.push((game.offset, game.bytes.to_vec()));
        }
    }
    let mut games = Games::new(Bytes::default(), bytes);
    while games.next_game() {}
    games.into_hooks().0
}

/// The `--report` file at `path`, a record a line.
fn read_report(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("report");
    text.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect()
}

/// The report's records of `kind`.
fn records<'r>(report: &'r [Value], kind: &str) -> impl Iterator<Item = &'r Value> {
    report.iter().filter(move |r| r["type"] == kind).map(|r| &r["data"])
}

/// Cleans `input` into `dir` and checks everything but the oracles; returns the output path and
/// the report.
fn clean_and_check(input: &Path, dir: &Path) -> (PathBuf, Vec<Value>) {
    let (out, out2, rejects, report) =
        (dir.join("out.pgn"), dir.join("out2.pgn"), dir.join("rejects.pgn"), dir.join("report.jsonl"));
    let args = |j: &'static str, o: &Path| {
        vec![
            "clean",
            "-q",
            "-j",
            j,
            path(input),
            "-o",
            path(o),
            "--rejects",
            path(&rejects),
            "--report",
            path(&report),
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>()
    };
    let run_args = |a: Vec<String>| run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let name = input.display();
    let o = run_args(args("1", &out));
    assert!(matches!(o.status.code(), Some(0 | 1)), "{name}: {}", stderr(&o));
    let written = std::fs::read(&out).expect("output");
    let o = run_args(args("2", &out2));
    assert!(matches!(o.status.code(), Some(0 | 1)), "{name}: {}", stderr(&o));
    assert!(std::fs::read(&out2).expect("output") == written, "{name}: -j2 differs from -j1");

    let report = read_report(&report);
    let summary = report.last().expect("a summary").clone();
    assert_eq!(summary["type"], "summary", "{name}");
    let l = &summary["data"]["ledger"];
    let n = |k: &str| l[k].as_u64().expect("a count");
    assert_eq!(n("read"), n("written") + n("rejected") + n("filtered") + n("duplicates"), "{name}: {l}");
    assert_eq!(records(&report, "rejected").count() as u64, n("rejected"), "{name}");
    // Every repair the ledger counts has its record, or is in its game's `unreported` count.
    let mut logged = std::collections::BTreeMap::<String, u64>::new();
    for r in records(&report, "repair") {
        *logged.entry(r["kind"].as_str().expect("kind").to_string()).or_default() += 1;
    }
    for r in records(&report, "unreported") {
        *logged.entry(r["kind"].as_str().expect("kind").to_string()).or_default() +=
            r["count"].as_u64().expect("count");
    }
    let counted: std::collections::BTreeMap<String, u64> = l["repairs"]
        .as_object()
        .expect("repairs")
        .iter()
        .map(|(kind, n)| (kind.clone(), n.as_u64().expect("a count")))
        .collect();
    assert_eq!(logged, counted, "{name}: the repairs logged and counted");

    // The rejects are the rejected games, byte for byte as read, in order.
    let original = Input::open(input, InputOptions::default()).and_then(Input::read_all).expect("input");
    let by_offset: std::collections::HashMap<u64, Vec<u8>> = games_as_read(&original).into_iter().collect();
    let mut expected = Vec::new();
    for r in records(&report, "rejected") {
        let bytes = &by_offset[&r["offset"].as_u64().expect("offset")];
        // Its error stands inside it or at its end (a variation not closed), where `check`
        // locates it.
        if let Some(at) = r["error_offset"].as_u64() {
            let from = r["offset"].as_u64().expect("offset");
            assert!((from..=from + bytes.len() as u64).contains(&at), "{name}: {r}");
            let before = &bytes[..(at - from) as usize];
            // Line breaks as LF, CRLF or a lone CR (old Mac files).
            let lines = before
                .iter()
                .enumerate()
                .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && before.get(i + 1) != Some(&b'\n')))
                .count() as u64;
            assert_eq!(
                r["error_line"].as_u64(),
                Some(r["line"].as_u64().expect("line") + lines),
                "{name}: {r}"
            );
        }
        expected.extend_from_slice(bytes);
        // A blank line after each, in its own line ends.
        let blank: &[u8] = if bytes.windows(2).any(|w| w == b"\r\n") {
            b"\r\n\r\n"
        } else if bytes.contains(&b'\r') {
            b"\r\r"
        } else {
            b"\n\n"
        };
        expected.extend_from_slice(blank);
    }
    assert!(std::fs::read(&rejects).expect("rejects") == expected, "{name}: the rejects file");

    // The output cleans to itself, with no repair, and checks clean.
    let o = run(&["clean", "-q", path(&out), "-o", path(&out2), "--report", path(&dir.join("again.jsonl"))]);
    assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
    assert!(std::fs::read(&out2).expect("output") == written, "{name}: clean is not idempotent");
    let again = std::fs::read_to_string(dir.join("again.jsonl")).expect("report");
    assert_eq!(again.lines().filter(|l| l.contains("\"type\":\"repair\"")).count(), 0, "{name}: {again}");
    // Nothing but the null moves clean writes `--` (a fact of the game, reported as a warning).
    let o = run(&["check", "-q", "--strict-san", path(&out)]);
    assert_eq!(o.status.code(), Some(0), "{name}");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.lines().all(|l| l.ends_with("]") && l.contains("[null_move, byte ")), "{name}: {text}");
    (out, report)
}

fn fixture_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture("pgn"))
        .expect("fixtures/pgn")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    files
}

fn shared_files(data: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).expect("dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                walk(&p, out);
            } else if (p.to_string_lossy().ends_with(".pgn") || p.to_string_lossy().ends_with(".pgn.zst"))
                && !shared_not_pgn(&p)
            {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(data, &mut files);
    files.sort();
    files
}

#[test]
fn fixtures_clean_to_themselves_and_the_ledger_adds_up() {
    let dir = temp_dir("clean-fixtures");
    for f in fixture_files() {
        clean_and_check(&f, &dir);
    }
}

#[test]
fn shared_collections_clean_to_themselves_and_the_ledger_adds_up() {
    let Some(data) = shared_data() else {
        return;
    };
    let dir = temp_dir("clean-shared");
    let files = shared_files(&data);
    for f in &files {
        clean_and_check(f, &dir);
    }
    assert!(files.len() > 300, "{} files", files.len());
}

/// The FENs of every mainline position of the games `pgnkit positions` gives for `input`,
/// leaving out the games in `skip` (by number).
fn pgnkit_fens(input: &Path, skip: &std::collections::HashSet<u64>) -> Vec<String> {
    let o = run(&["positions", "-q", "--format", "jsonl", path(input)]);
    String::from_utf8(o.stdout)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
        .filter(|r| !skip.contains(&r["game"].as_u64().expect("game")))
        .map(|r| r["fen"].as_str().expect("fen").to_string())
        .collect()
}

/// python-chess's FENs of every mainline position of `input`, and what it said on stderr.
fn python_fens(input: &Path) -> Option<(Vec<String>, String)> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/oracle_fens.py");
    let o = Command::new("python3").arg(script).arg(input).output().ok()?;
    if !o.status.success() {
        return None;
    }
    let fens = String::from_utf8(o.stdout).expect("UTF-8").lines().map(str::to_string).collect();
    Some((fens, String::from_utf8_lossy(&o.stderr).into_owned()))
}

/// python-chess reads every game clean writes with no error, and replays the positions pgnkit's
/// replay of the original gives for those games.
fn oracles(input: &Path, dir: &Path) {
    let (out, report) = clean_and_check(input, dir);
    let skip: std::collections::HashSet<u64> = report
        .iter()
        .filter(|r| matches!(r["type"].as_str(), Some("rejected" | "filtered" | "duplicate")))
        .map(|r| r["data"]["game"].as_u64().expect("game"))
        .collect();
    let Some((fens, errors)) = python_fens(&out) else {
        panic!("{}: python-chess could not read the output", input.display())
    };
    assert!(errors.is_empty(), "{}: python-chess: {errors}", input.display());
    assert!(fens == pgnkit_fens(input, &skip), "{}: other positions", input.display());
}

#[test]
fn python_chess_reads_the_output_with_the_original_positions() {
    if python_chess_missing() {
        return;
    }
    let dir = temp_dir("clean-python");
    for f in fixture_files() {
        oracles(&f, &dir);
    }
    if let Some(data) = shared_data() {
        for rel in [
            "games/lichess_db_1000k.pgn",
            "games/twic1599_1000k.pgn",
            "games/chesscom_magnuscarlsen_live_2014.pgn.zst",
            "variants/chess960/freestyle_lasvegas_grandfinal_30+30_lichess_broadcast.pgn",
            "variants/crazyhouse/crazyara_zh-50_startpos.pgn",
            "malformed_and_tricky/python-chess/stockfish-vs-ai.pgn",
        ] {
            let p = data.join(rel);
            if p.exists() {
                oracles(&p, &dir);
            }
        }
    }
}

/// pgn-extract on `PATH`, else where Debian's package puts it (`/usr/games`, not on root's `PATH`).
const PGN_EXTRACT: [&str; 2] = ["pgn-extract", "/usr/games/pgn-extract"];

/// Whether pgn-extract (19.04, Debian 12's) reads `game`. It does not read three things clean
/// writes as it read them: crazyhouse, a null move (`--`; pgn-extract takes one only in a
/// variation) and a NAG before a variation's first move (kokopu's `($42 4.Bc4`).
fn pgn_extract_reads(game: &str) -> bool {
    !(game.contains("[Variant \"Crazyhouse\"]")
        || game.split_ascii_whitespace().any(|t| t == "--")
        || game.contains("($"))
}

/// Every fixture's output, but for the games [`pgn_extract_reads`] leaves out, is read by
/// pgn-extract without a word.
#[test]
fn pgn_extract_reads_the_output_without_complaint() {
    let Some((program, version)) =
        PGN_EXTRACT.iter().find_map(|p| Some((p, Command::new(p).arg("--version").output().ok()?)))
    else {
        crate::skip::skip("pgn-extract not found (apt-get install -y pgn-extract)");
        return;
    };
    assert!(version.status.success() || !version.stdout.is_empty() || !version.stderr.is_empty());
    let dir = temp_dir("clean-pgn-extract");
    let readable = dir.join("readable.pgn");
    let (mut given, mut left_out) = (0, 0);
    for f in fixture_files() {
        let (out, _) = clean_and_check(&f, &dir);
        let text = std::fs::read_to_string(&out).expect("output");
        // Each game clean writes starts with its Event tag and ends with a blank line.
        let games = text.split("\n\n[Event \"").filter(|g| !g.is_empty());
        let mut kept = String::new();
        for (i, game) in games.enumerate() {
            let game = if i == 0 { game.to_string() } else { format!("[Event \"{game}") };
            if pgn_extract_reads(&game) {
                kept += game.trim_end();
                kept += "\n\n";
                given += 1;
            } else {
                left_out += 1;
            }
        }
        std::fs::write(&readable, kept).expect("write");
        let o = Command::new(program)
            .args(["-s", "-o"])
            .arg(dir.join("extracted.pgn"))
            .arg(&readable)
            .output()
            .expect("pgn-extract runs");
        let said = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success() && said.trim().is_empty(), "{}: pgn-extract said: {said}", f.display());
    }
    eprintln!("pgn-extract read {given} games without a word; {left_out} left out");
    assert!(given > 0 && left_out * 10 < given, "{given} games given, {left_out} left out");
}

/// The duplicates of a `clean --dedup=RULE` run over `inputs` as the report names them, one line
/// each as `scripts/dedup_oracle.py` prints them: `RULE FILE GAME MATCHED FIRST-FILE FIRST-GAME`,
/// and the ledger's count. Runs at `threads`.
fn dedup_report(rule: &str, inputs: &[&str], dir: &Path, threads: &str) -> (Vec<String>, u64) {
    let report = dir.join(format!("report-{rule}.jsonl"));
    let flag = format!("--dedup={rule}");
    let mut args = vec!["clean", "-q", "-j", threads, &flag, "-o", "-", "--report", path(&report)];
    args.extend(inputs);
    let o = run(&args);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{rule}: {}", stderr(&o));
    let text = std::fs::read_to_string(&report).expect("report");
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let ours = records(&lines, "duplicate")
        .map(|d| {
            let of = &d["of"];
            let (file, game, matched) =
                (d["file"].as_str().unwrap(), &d["game"], d["rule"].as_str().unwrap());
            format!("{rule}\t{file}\t{game}\t{matched}\t{}\t{}", of["file"].as_str().unwrap(), of["game"])
        })
        .collect();
    let count = lines.last().expect("a summary")["data"]["ledger"]["duplicates"].as_u64().expect("count");
    (ours, count)
}

/// What each rule makes of the made-up pairs of `fixtures/pgn/dedup_pairs.pgn` (each game's
/// comment says what it is): `(game, rule that matched, game kept)` for every game set aside.
#[test]
fn each_rule_sets_aside_what_it_says_of_the_made_up_pairs() {
    let dir = temp_dir("clean-dedup-pairs");
    let input = fixture("pgn/dedup_pairs.pgn");
    let name = path(&input);
    let moves = [
        (2, 1),
        (3, 1),
        (5, 4),
        (6, 1),
        (7, 1),
        (9, 8),
        (11, 10),
        (12, 10),
        (13, 10),
        (15, 14),
        (16, 14),
        (17, 14),
        (19, 18),
        (20, 18),
        (24, 8),
        (27, 8),
    ];
    let same = [(3, 1), (5, 4), (7, 6), (9, 8), (11, 10), (16, 14), (20, 18)];
    let line = |rule: &str, matched: &str, (game, first): (u32, u32)| {
        format!("{rule}\t{name}\t{game}\t{matched}\t{name}\t{first}")
    };
    let mut prefix: Vec<String> = same.iter().map(|&p| line("prefix", "game", p)).collect();
    prefix.extend([(22, 24), (25, 24), (27, 24)].map(|p| line("prefix", "prefix", p)));
    for (rule, want) in [
        ("moves", moves.iter().map(|&p| line("moves", "moves", p)).collect::<Vec<_>>()),
        ("game", same.iter().map(|&p| line("game", "game", p)).collect()),
        ("prefix", prefix),
    ] {
        for threads in ["1", "2"] {
            let (ours, count) = dedup_report(rule, &[name], &dir, threads);
            assert_eq!(ours, want, "--dedup={rule} -j{threads}");
            assert_eq!(count, want.len() as u64);
        }
    }
    // `--dedup` alone is the game rule; the moves rule writes what the game rule writes, less.
    let o = run(&["clean", "-q", "--dedup", name, "-o", path(&dir.join("game.pgn"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&["clean", "-q", "--dedup=game", name, "-o", path(&dir.join("game2.pgn"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let game = std::fs::read_to_string(dir.join("game.pgn")).expect("output");
    assert_eq!(game, std::fs::read_to_string(dir.join("game2.pgn")).expect("output"));
    assert_eq!(game.matches("[Event ").count(), 28 - same.len());
}

/// Two games of one day between the same players with the same moves are two games when their
/// rounds or their online pages differ; a board number or an unknown round does not tell them
/// apart.
#[test]
fn games_of_other_rounds_or_pages_are_not_duplicates() {
    let dir = temp_dir("clean-dedup-rounds");
    let game = |round: &str, site: &str| {
        format!(
            "[Event \"Blitz\"]\n[Site \"{site}\"]\n[Date \"2024.01.05\"]\n[Round \"{round}\"]\n[White \"alice\"]\n\
             [Black \"bob\"]\n[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 1/2-1/2\n\n"
        )
    };
    let input = dir.join("rounds.pgn");
    let pgn = [
        game("1", "https://lichess.org/aaaaaaaa"),
        game("2", "https://lichess.org/bbbbbbbb"),
        game("1", "https://lichess.org/cccccccc"),
        game("11", "Berlin"),
        game("12", "Berlin GER"),
        game("11.3", "Berlin"),
        game("?", "Berlin"),
    ]
    .concat();
    std::fs::write(&input, pgn).expect("write");
    let (ours, count) = dedup_report("game", &[path(&input)], &dir, "1");
    let name = path(&input);
    let want: Vec<String> =
        [(6, 4), (7, 1)].iter().map(|(g, f)| format!("game\t{name}\t{g}\tgame\t{name}\t{f}")).collect();
    assert_eq!(
        ours, want,
        "11.3 is round 11's game, ? agrees with any (the first); other rounds and pages are games"
    );
    assert_eq!(count, 2);
}

/// `--dedup=prefix` keeps the longest record where it stands and writes every shorter one,
/// as read, to the duplicates file, in input order, even one read before the game it is a
/// shorter record of; from a file or from stdin alike.
#[test]
fn prefix_sets_aside_a_shorter_record_read_before_the_longer() {
    let dir = temp_dir("clean-dedup-prefix");
    let input = dir.join("feed.pgn");
    let head = "[Event \"Norway Chess\"]\n[Site \"Stavanger\"]\n[Date \"2023.06.01\"]\n[Round \"4.1\"]\n\
        [White \"Carlsen, Magnus\"]\n[Black \"So, Wesley\"]\n";
    let early = format!("{head}[Result \"*\"]\n\n1. e4 c5 2. Nf3 *\n\n");
    let other = "[White \"Caruana\"]\n[Black \"So\"]\n\n1. e4 c5 2. Nf3 *\n\n";
    let full = format!("{head}[Result \"1-0\"]\n\n1. e4 c5 2. Nf3 d6 3. d4 1-0\n\n");
    std::fs::write(&input, format!("{early}{other}{full}")).expect("write");
    let (out, dups) = (dir.join("out.pgn"), dir.join("dups.pgn"));
    let o =
        run(&["clean", "-q", "--dedup=prefix", path(&input), "-o", path(&out), "--duplicates", path(&dups)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&dups).expect("read"), early);
    let written = std::fs::read_to_string(&out).expect("read");
    assert_eq!(written.matches("[Event ").count(), 2, "{written}");
    assert!(written.contains("3. d4 1-0"), "{written}");
    // Read once, so from stdin too: the same files.
    let (piped, piped_dups) = (dir.join("piped.pgn"), dir.join("piped-dups.pgn"));
    let args = ["clean", "-q", "--dedup=prefix", "-", "-o", path(&piped), "--duplicates", path(&piped_dups)];
    let o = crate::util::run_with_stdin(&args, format!("{early}{other}{full}"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&piped).expect("read"), written);
    assert_eq!(std::fs::read_to_string(&piped_dups).expect("read"), early);
    // A rule after a space is read as an input.
    let o = run(&["clean", "-q", "--dedup", "prefix", path(&input), "-o", path(&out)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("a rule of --dedup is written --dedup=prefix"), "{}", stderr(&o));
}

/// A repeat spelt otherwise (initials, a date less known) is set aside however many games of
/// other players share its moves before it (a short draw, a trap: hundreds of games in a large
/// collection); a game of the same players on another day is kept.
#[test]
fn dedup_finds_a_repeat_however_many_games_share_its_moves() {
    let dir = temp_dir("clean-dedup-crowded");
    let game = |white: &str, black: &str, date: &str| {
        format!(
            "[Event \"Ch\"]\n[Site \"?\"]\n[Date \"{date}\"]\n[Round \"?\"]\n[White \"{white}\"]\n\
             [Black \"{black}\"]\n[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 4. O-O Nxe4 5. Re1 Nd6 \
             6. Nxe5 Be7 7. Bf1 Nxe5 8. Rxe5 O-O 9. d4 Bf6 10. Re1 Re8 1/2-1/2\n\n"
        )
    };
    for between in [63, 64, 65, 500] {
        let mut pgn = game("Carlsen, Magnus", "Nakamura, Hikaru", "2022.01.20");
        for j in 0..between {
            let date = format!("2021.03.{:02}", j % 28 + 1);
            pgn += &game(&format!("Player{j}, A"), &format!("Opponent{j}, B"), &date);
        }
        pgn += &game("Carlsen, M.", "Nakamura, H.", "2022.??.??");
        pgn += &game("Magnus Carlsen", "Hikaru Nakamura", "2022.01.21");
        let input = dir.join(format!("crowded-{between}.pgn"));
        std::fs::write(&input, pgn).expect("write");
        let name = path(&input);
        for threads in ["1", "2"] {
            let (ours, count) = dedup_report("game", &[name], &dir, threads);
            let want = format!("game\t{name}\t{}\tgame\t{name}\t1", between + 2);
            assert_eq!(ours, [want], "{between} games between, -j{threads}");
            assert_eq!(count, 1);
        }
    }
}

/// `--dedup=prefix` over a broadcast round of more boards than a few dozen: each board's
/// snapshot after the first move, read before every final game, is a shorter record of its own
/// board's game and of no other's.
#[test]
fn dedup_prefix_keeps_the_final_record_of_every_board_of_a_large_round() {
    let dir = temp_dir("clean-dedup-round");
    let game = |board: usize, moves: &str, result: &str| {
        format!(
            "[Event \"Open\"]\n[Site \"City\"]\n[Date \"2024.05.01\"]\n[Round \"1.{}\"]\n\
             [White \"Player W{board}\"]\n[Black \"Player B{board}\"]\n[Result \"{result}\"]\n\n{moves} {result}\n\n",
            board + 1
        )
    };
    let finals = [
        ("1. d4 d5 2. c4 e6 3. Nc3 Nf6", "1/2-1/2"),
        ("1. d4 Nf6 2. c4 g6 3. Nc3 Bg7", "1-0"),
        ("1. d4 d5 2. Nf3 Nf6", "0-1"),
        ("1. d4 d5", "1/2-1/2"),
    ];
    for boards in [64, 65, 300] {
        let snapshots: String = (0..boards).map(|b| game(b, "1. d4", "*")).collect();
        let ends: String = (0..boards).map(|b| game(b, finals[b % 4].0, finals[b % 4].1)).collect();
        let input = dir.join(format!("round-{boards}.pgn"));
        std::fs::write(&input, format!("{snapshots}{ends}")).expect("write");
        let name = path(&input);
        let want: Vec<String> =
            (1..=boards).map(|b| format!("prefix\t{name}\t{b}\tprefix\t{name}\t{}", boards + b)).collect();
        for threads in ["1", "2"] {
            let (ours, count) = dedup_report("prefix", &[name], &dir, threads);
            assert_eq!(ours, want, "{boards} boards, -j{threads}");
            assert_eq!(count, boards as u64);
        }
        let (out, dups) = (dir.join("round.pgn"), dir.join("round-dups.pgn"));
        let o = run(&["clean", "-q", "--dedup=prefix", name, "-o", path(&out), "--duplicates", path(&dups)]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(std::fs::read_to_string(&dups).expect("read"), snapshots, "{boards} boards");
        assert_eq!(std::fs::read_to_string(&out).expect("read").matches("[Event ").count(), boards);
    }
}

/// Every rule sets aside exactly the games `scripts/dedup_oracle.py` (python-chess, the rules
/// written apart) sets aside, each naming the same rule and game kept: over the made-up pairs,
/// a file given again under another name, and the shared collections where python-chess reads
/// the games pgnkit reads (`chessgames_master_35k` cleaned first: python-chess and pgnkit read
/// stray text between its games as games in other places, so their numbers drift apart).
#[test]
fn dedup_finds_the_duplicates_python_chess_finds() {
    if python_chess_missing() {
        return;
    }
    let dir = temp_dir("clean-dedup");
    let again = dir.join("again.pgn");
    std::fs::copy(fixture("pgn/twic1599_10k.pgn"), &again).expect("copy");
    let mut inputs = vec![
        fixture("pgn/twic1599_10k.pgn"),
        fixture("pgn/lichess_db_10k.pgn"),
        again,
        fixture("pgn/dedup_pairs.pgn"),
    ];
    if let Some(data) = shared_data() {
        let master = dir.join("chessgames_master_35k.pgn");
        let o = run(&[
            "clean",
            "-q",
            path(&data.join("games/chessgames_master_35k.pgn.zst")),
            "-o",
            path(&master),
        ]);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
        inputs.push(master);
        for f in shared_files(&data.join("games")) {
            let name = f.to_string_lossy();
            let left_out = ["chessgames_master_35k", "chesscom_", "tcec_"];
            if !left_out.iter().any(|l| name.contains(l)) {
                inputs.push(f);
            }
        }
    }
    let names: Vec<&str> = inputs.iter().map(|p| path(p)).collect();
    let o = Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/dedup_oracle.py"))
        .args(&names)
        .output()
        .expect("python3");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let theirs: Vec<String> = String::from_utf8_lossy(&o.stdout).lines().map(String::from).collect();
    for rule in ["game", "moves", "prefix"] {
        let want: Vec<String> =
            theirs.iter().filter(|l| l.starts_with(&format!("{rule}\t"))).cloned().collect();
        let (ours, count) = dedup_report(rule, &names, &dir, "2");
        assert_eq!(ours, want, "--dedup={rule}");
        assert_eq!(count, want.len() as u64);
        println!(
            "--dedup={rule}: {} games set aside among {} inputs, as python-chess finds them",
            want.len(),
            inputs.len()
        );
        assert!(want.len() >= 9, "the copy's games at least");
    }
}

/// The exit codes of outputs that cannot be written: 73 for an output that is an input (nothing
/// read, nothing written), 74 for a full disk (`/dev/full`, written in place as devices are).
#[test]
fn outputs_that_cannot_be_written_have_their_exit_codes() {
    let dir = temp_dir("clean-outputs");
    let input = dir.join("in.pgn");
    std::fs::copy(fixture("pgn/twic1599_10k.pgn"), &input).expect("copy");
    let before = std::fs::read(&input).expect("read");
    for flag in ["-o", "--rejects", "--duplicates", "--report"] {
        // --dedup: --duplicates holds what it leaves out.
        let o = run(&["clean", "-q", "--dedup", path(&input), flag, path(&input)]);
        assert_eq!(o.status.code(), Some(73), "{flag}: {}", stderr(&o));
        assert_eq!(std::fs::read(&input).expect("read"), before, "{flag}: the input is untouched");
    }
    if Path::new("/dev/full").exists() {
        let o = run(&["clean", "-q", path(&input), "-o", "/dev/full"]);
        assert_eq!(o.status.code(), Some(74), "{}", stderr(&o));
        // The output and its report agree: a report that cannot be written leaves no output.
        let (out, mixed) = (dir.join("out.pgn"), dir.join("mixed.pgn"));
        // A duplicate and a game rejected, so that each of the three has something to write.
        std::fs::write(&mixed, [&before[..], &before[..], b"\n[Event \"x\"]\n\n1. e4 e4 *\n"].concat())
            .expect("write");
        for flag in ["--report", "--rejects", "--duplicates"] {
            let o = run(&["clean", "-q", "--dedup", path(&mixed), "-o", path(&out), flag, "/dev/full"]);
            assert_eq!(o.status.code(), Some(74), "{flag}: {}", stderr(&o));
            assert!(!out.exists(), "{flag} on a full disk: no output under its name");
        }
        assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 2, "no temporary file left");
    }
    let o = run(&["clean", "-q", path(&input), "-o", "/nonexistent-dir/out.pgn"]);
    assert_eq!(o.status.code(), Some(73), "{}", stderr(&o));
}

/// `--duplicates FILE` holds the duplicates byte for byte as read (their own tags and line
/// ends), each followed by a blank line; without it they are counted all the same.
#[test]
fn duplicates_file_holds_the_repeats_as_read() {
    let dir = temp_dir("clean-duplicates");
    let input = dir.join("in.pgn");
    let first = "[Event \"a\"]\n\n1. e4 e5 2. Nf3 1-0\n\n";
    let other = "[Event \"b\"]\n\n1. d4 d5 *\n\n";
    let repeat_lf = "[Event \"c\"]\n[White \"X\"]\n\n1.e4 e5 2.Nf3 {note} 1-0";
    let repeat_crlf = "[Event \"d\"]\r\n\r\n1. e4 e5 2. Ng1-f3 *";
    std::fs::write(&input, format!("{first}{other}{repeat_lf}\n\n{repeat_crlf}\r\n")).expect("write");
    let (out, dups) = (dir.join("out.pgn"), dir.join("dups.pgn"));
    let o =
        run(&["clean", "-q", "--dedup=moves", path(&input), "-o", path(&out), "--duplicates", path(&dups)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&dups).expect("read"),
        format!("{repeat_lf}\n\n{repeat_crlf}\r\n\r\n")
    );
    let written = std::fs::read_to_string(&out).expect("read");
    assert_eq!(written.matches("[Event ").count(), 2, "{written}");
    let o = run(&["clean", "--dedup=moves", path(&input), "-o", path(&out)]);
    assert!(stderr(&o).contains("2 written + 0 rejected + 0 filtered + 2 duplicates"), "{}", stderr(&o));
}

/// The tag options as `clean --help` spells them: `--add-tags PlyCount` (the tag's own name, or
/// `ply-count`) adds the mainline's plies, `--tags roster` keeps the roster only.
#[test]
fn add_tags_takes_the_tag_name_as_help_shows_it() {
    let dir = temp_dir("clean-add-tags");
    let input = dir.join("in.pgn");
    std::fs::write(&input, "[Event \"e\"]\n[WhiteElo \"2000\"]\n\n1. e4 e5 2. Nf3 1-0\n\n").expect("write");
    for name in ["PlyCount", "ply-count"] {
        let out = dir.join(format!("{name}.pgn"));
        let o = run(&["clean", "-q", "--tags", "roster", "--add-tags", name, path(&input), "-o", path(&out)]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let text = std::fs::read_to_string(&out).expect("read");
        assert!(text.contains("[PlyCount \"3\"]\n"), "{name}: {text}");
        assert!(!text.contains("WhiteElo"), "{name}: {text}");
    }
}

/// --duplicates holds what --dedup leaves out: without it, it would stay empty.
#[test]
fn duplicates_without_dedup_is_a_usage_error() {
    let dir = temp_dir("clean-duplicates");
    let input = fixture("pgn/bad_games.pgn");
    let (out, dups) = (dir.join("out.pgn"), dir.join("dups.pgn"));
    let o = run(&["clean", "-q", path(&input), "-o", path(&out), "--duplicates", path(&dups)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--dedup"), "{}", stderr(&o));
    assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 0, "nothing written");
    let o = run(&["clean", "-q", "--dedup", path(&input), "-o", path(&out), "--duplicates", path(&dups)]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
}

#[test]
fn two_outputs_on_one_file_are_refused_before_any_work() {
    let dir = temp_dir("clean-twice");
    let input = fixture("pgn/bad_games.pgn");
    for (flag, spelling) in [("--rejects", "out.pgn"), ("--report", "./out.pgn")] {
        let out = dir.join("out.pgn");
        let o = run(&["clean", "-q", path(&input), "-o", path(&out), flag, path(&dir.join(spelling))]);
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", stderr(&o));
        assert!(stderr(&o).contains("named as two outputs of one run"), "{}", stderr(&o));
        assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 0, "{flag}: nothing written");
    }
}

/// Two outputs on stdout would interleave there: refused as two on one file are, `-o -` being
/// the default.
#[test]
fn two_outputs_on_stdout_are_refused_before_any_work() {
    let dir = temp_dir("clean-twice-stdout");
    let games = std::fs::read(fixture("pgn/bad_games.pgn")).expect("fixture");
    let out = dir.join("out.pgn");
    let runs: [&[&str]; 5] = [
        &["-o", "-", "--rejects", "-"],
        &["--report", "-"],
        &["--dedup", "--duplicates", "-"],
        &["-o", path(&out), "--rejects", "-", "--report", "-"],
        &["-o", path(&out), "--dedup", "--duplicates", "-", "--rejects", "-"],
    ];
    for args in runs {
        let o = run_with_stdin(&[&["clean", "-q", "-"], args].concat(), &games);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("stdout: named as two outputs of one run"), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{args:?}: nothing on stdout");
        assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 0, "{args:?}: nothing written");
    }
    // One of them on stdout is the stream it was.
    let o = run_with_stdin(&["clean", "-q", "-", "-o", path(&out), "--rejects", "-"], &games);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!o.stdout.is_empty(), "the rejects on stdout");
}

#[test]
fn a_game_rejected_for_its_null_move_is_reported_where_the_move_stands() {
    let dir = temp_dir("clean-null");
    let input = dir.join("null.pgn");
    std::fs::write(&input, "[Event \"n\"]\n[Result \"*\"]\n\n1. e4 -- 2. d4 *\n").expect("write");
    let o = run(&["clean", "-q", "--reject-null-moves", path(&input), "-o", "/dev/null"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let located = format!("{}:4:7: error: game 1 (? - ?): ply 2: null move", path(&input));
    assert!(stderr(&o).contains(&located), "{}", stderr(&o));
    assert!(stderr(&o).contains("(--reject-null-moves)"), "{}", stderr(&o));
    // The summary counts the game as the diagnostic calls it: one with an error.
    let o = run(&["clean", "--reject-null-moves", path(&input), "-o", "/dev/null"]);
    let summary = stderr(&o);
    assert!(summary.contains("1 game, 0 valid, 1 with errors, 0 with warnings only"), "{summary}");
    assert!(summary.contains("errors: null_move 1") && !summary.contains("warnings: null_move"), "{summary}");
}

/// The record of a game rejected or kept broken names the game's start and its error's line and
/// byte, where `check` locates the error.
#[test]
fn records_of_games_not_written_whole_locate_their_error() {
    let dir = temp_dir("clean-error-at");
    let input = dir.join("bad.pgn");
    let text =
        "[Event \"a\"]\n[Result \"*\"]\n\n1. e4 *\n\n[Event \"b\"]\n[Result \"*\"]\n\n1. e4 e5\n2. Ke3 *\n";
    std::fs::write(&input, text).expect("write");
    let at = text.find("Ke3").expect("the move") as u64;
    let located = format!("{}:10:4: error: game 2", path(&input));
    for (option, kind) in [("--rejects=/dev/null", "rejected"), ("--keep-broken", "kept_broken")] {
        let report = dir.join(format!("{kind}.jsonl"));
        let o = run(&["clean", "-q", option, path(&input), "-o", "/dev/null", "--report", path(&report)]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(stderr(&o).contains(&located), "{}", stderr(&o));
        let report = read_report(&report);
        let r = records(&report, kind).next().expect("a record");
        let place = ["game", "line", "offset", "error_line", "error_offset"].map(|k| r[k].as_u64());
        let start = text.find("[Event \"b").expect("game 2") as u64;
        assert_eq!(place, [Some(2), Some(6), Some(start), Some(10), Some(at)], "{kind}: {r}");
    }
}

/// A game with no result followed by a malformed tag line (`[Event Casual Game"]`, in the
/// chessgames.com collection): the line starts the next game, so the first game is written with
/// its result settled, and the next is written without the line (as pgn-extract and
/// python-chess read it), a `tag` repair showing it as read, exactly as when the first has its
/// result.
#[test]
fn a_malformed_tag_line_after_a_game_without_result_starts_the_next_game() {
    let dir = temp_dir("clean-bad-tag-line");
    let next = "[Event Casual Game\"]\n[White \"C\"]\n[Result \"1-0\"]\n\n1. d4 d5 1-0\n";
    let mut runs = Vec::new();
    for (name, moves) in [("result", "1. e4 e5 2. Bc4 Nc6 1-0"), ("truncated", "1. e4 e5 2. Bc4 Nc6")] {
        let input = dir.join(format!("{name}.pgn"));
        let first = format!("[Event \"first\"]\n[White \"A\"]\n[Result \"1-0\"]\n\n{moves}\n\n");
        std::fs::write(&input, format!("{first}{next}")).expect("write");
        let (out, report) = (dir.join(format!("{name}-out.pgn")), dir.join(format!("{name}-report.jsonl")));
        let o = run(&["clean", path(&input), "-o", path(&out), "--report", path(&report)]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("2 read = 2 written + 0 rejected"), "{err}");
        assert!(!err.contains("unexpected token"), "{err}");
        let report = std::fs::read_to_string(&report).expect("report");
        let tag = report.lines().find(|l| l.contains("\"kind\":\"tag\"")).expect("a tag repair");
        assert!(
            tag.contains("\"before\":\"[Event Casual Game\\\"]\"") && tag.contains("\"game\":2"),
            "{tag}"
        );
        assert!(tag.contains("\"line\":7"), "{tag}");
        runs.push(std::fs::read_to_string(&out).expect("read"));
    }
    assert_eq!(runs[0], runs[1]);
    assert!(
        runs[1].contains("[Event \"first\"]") && runs[1].contains("1. e4 e5 2. Bc4 Nc6 1-0"),
        "{}",
        runs[1]
    );
    assert!(
        runs[1].contains("[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"C\"]"),
        "{}",
        runs[1]
    );
    assert!(runs[1].ends_with("1. d4 d5 1-0\n\n"), "{}", runs[1]);
}

/// A tag missing only its `]` ends at its quote, before the next tag on its line as at the
/// line's end (as pgn-extract reads it): both tags are written, each repair shown as read and as
/// written.
#[test]
fn a_tag_without_its_bracket_ends_at_its_quote() {
    let dir = temp_dir("clean-unclosed-tag");
    let input = dir.join("in.pgn");
    let text = "[Event \"e\" [Site \"t\"]\n[White \"a \\\" b\" c\"]\n[Black \"x\"\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n";
    std::fs::write(&input, text).expect("write");
    let (out, report) = (dir.join("out.pgn"), dir.join("report.jsonl"));
    let o = run(&["clean", path(&input), "-o", path(&out), "--report", path(&report)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let written = std::fs::read_to_string(&out).expect("out");
    let tags = "[Event \"e\"]\n[Site \"t\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"a \\\" b\\\" c\"]\n[Black \"x\"]\n";
    assert!(written.starts_with(tags), "{written}");
    let report = read_report(&report);
    let shown: Vec<(&str, &str)> = records(&report, "repair")
        .filter(|r| r["kind"] == "tag")
        .map(|r| (r["before"].as_str().expect("before"), r["after"].as_str().expect("after")))
        .collect();
    assert_eq!(
        shown,
        [
            ("[Event \"e\"", "[Event \"e\"]"),
            ("[White \"a \\\" b\" c\"]", "[White \"a \\\" b\\\" c\"]"),
            ("[Black \"x\"", "[Black \"x\"]"),
        ]
    );
    let o = run(&["check", path(&input)]);
    assert_eq!(stdout(&o).matches("tag pair without its closing ']'").count(), 2, "{}", stdout(&o));
}

/// Stray text after a game that holds nothing of a game is not written as an empty game: it is
/// rejected, kept verbatim with the rejects, and `check` reports it as an error.
#[test]
fn skipped_text_after_the_last_game_is_kept_with_the_rejects() {
    let dir = temp_dir("clean-no-game");
    let input = dir.join("in.pgn");
    std::fs::write(&input, "[Event \"e\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n$256 , !\n").expect("write");
    let (out, rejects) = (dir.join("out.pgn"), dir.join("rejects.pgn"));
    let o = run(&["clean", path(&input), "-o", path(&out), "--rejects", path(&rejects)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("2 read = 1 written + 1 rejected"), "{}", stderr(&o));
    let written = std::fs::read_to_string(&out).expect("out");
    assert_eq!(written.matches("[Event ").count(), 1, "{written}");
    assert_eq!(std::fs::read_to_string(&rejects).expect("rejects").trim_end(), "$256 , !");
    let o = run(&["check", path(&input)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("in.pgn:6:1: error: game 2 (? - ?): not a game"), "{}", stdout(&o));
}

/// A repair that a token of the movetext stands for is located at that token in the report (its
/// line and byte offset, in CRLF text too), a repeated tag at its line; what the game as a
/// whole says at the game's start.
#[test]
fn repairs_of_moves_are_located_at_the_move() {
    let dir = temp_dir("clean-repair-lines");
    for (name, eol) in [("lf", "\n"), ("crlf", "\r\n")] {
        let text = [
            "[Event \"r\"]",
            "[Date \"2024-01-15\"]",
            "[Event \"again\"]",
            "[Result \"*\"]",
            "",
            "1. e4 e5",
            "2. Ng1-f3 \\$14 Nc6",
            "(2... d6 3. Kd9) *",
            "",
        ]
        .join(eol);
        let (input, report) = (dir.join(format!("{name}.pgn")), dir.join(format!("{name}.jsonl")));
        std::fs::write(&input, &text).expect("write");
        let o = run(&["clean", "-q", path(&input), "-o", "/dev/null", "--report", path(&report)]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let report = read_report(&report);
        let got: Vec<(&str, u64, u64)> = records(&report, "repair")
            .map(|r| {
                (r["kind"].as_str().unwrap(), r["line"].as_u64().unwrap(), r["offset"].as_u64().unwrap())
            })
            .collect();
        let at = |s: &str| text.find(s).expect("in the text") as u64;
        let want = [
            ("tag", 3, at("[Event \"again")),
            ("san", 7, at("Ng1-f3")),
            ("syntax", 7, at("\\$14")),
            ("variation", 8, at("Kd9")),
            ("roster", 1, 0),
            ("date", 2, at("[Date")),
        ];
        let mut got_sorted = got.clone();
        got_sorted.sort();
        let mut want_sorted = want.to_vec();
        want_sorted.sort();
        assert_eq!(got_sorted, want_sorted, "{name}: {got:?}");
    }
}

#[test]
fn fix_results_writes_the_result_that_says_more() {
    let dir = temp_dir("clean-fix-results");
    let input = dir.join("results.pgn");
    // Tag and token disagree (two finished results; `*` against a finished one, each way), and a
    // mate on the board that both contradict.
    std::fs::write(
        &input,
        "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 0-1\n\n\
         [Event \"b\"]\n[Result \"*\"]\n\n1. e4 e5 1-0\n\n\
         [Event \"c\"]\n[Result \"1-0\"]\n\n1. e4 e5 *\n\n\
         [Event \"d\"]\n[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n\n",
    )
    .expect("write");
    let results = |fix: bool| {
        let (out, report) = (dir.join("out.pgn"), dir.join("report.jsonl"));
        let mut args = vec!["clean", "-q", path(&input), "-o", path(&out), "--report", path(&report)];
        args.extend(fix.then_some("--fix-results"));
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let text = std::fs::read_to_string(&out).expect("read");
        let games: Vec<(String, String)> = text
            .split("\n\n[")
            .map(|g| {
                let tag =
                    g.split("[Result \"").nth(1).and_then(|r| r.split('"').next()).expect("a Result tag");
                let token = g.split_ascii_whitespace().last().expect("a token");
                (tag.to_string(), token.to_string())
            })
            .collect();
        let report = read_report(&report);
        let repairs: Vec<(u64, String)> = records(&report, "repair")
            .filter(|r| r["kind"] == "result")
            .map(|r| (r["game"].as_u64().expect("game"), r["before"].as_str().expect("before").to_string()))
            .collect();
        (games, repairs)
    };
    let same = |r: &str| (r.to_string(), r.to_string());
    let (kept, repairs) = results(false);
    // A `*` tag takes the finished token's value, as python-chess reads it.
    assert_eq!(kept, [same("1-0"), same("1-0"), same("1-0"), same("0-1")]);
    let (fixed, fixed_repairs) = results(true);
    assert_eq!(fixed, [same("0-1"), same("1-0"), same("1-0"), same("0-1")]);
    // Each game's repair names both values as read, with or without the option.
    let expected = [
        (1, "tag 1-0, token 0-1"),
        (2, "tag *, token 1-0"),
        (3, "tag 1-0, token *"),
        (4, "tag 1-0, token 1-0"),
    ]
    .map(|(g, b)| (g, b.to_string()));
    assert_eq!(repairs, expected);
    assert_eq!(fixed_repairs, expected);
}

/// A result written oddly, in the tag or as the token, is read as the result it spells; a tag
/// that spells none is shown as read; a game kept broken logs what its tag and token said.
#[test]
fn results_written_oddly_are_read_and_none_is_lost() {
    let dir = temp_dir("clean-odd-results");
    let input = dir.join("results.pgn");
    std::fs::write(
        &input,
        "[Event \"a\"]\n[Result \"1:0\"]\n\n1. e4 e5 1-0\n\n\
         [Event \"b\"]\n[Result \"1/2-1/2 \"]\n\n1. e4 e5 1/2\n\n\
         [Event \"c\"]\n[Result \"draw\"]\n\n1. e4 e5 0:1\n\n\
         [Event \"d\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nf9 1-0\n\n",
    )
    .expect("write");
    let (out, report) = (dir.join("out.pgn"), dir.join("report.jsonl"));
    let o = run(&["clean", "-q", "--keep-broken", path(&input), "-o", path(&out), "--report", path(&report)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).expect("read");
    let results: Vec<&str> =
        text.split("[Result \"").skip(1).map(|r| r.split('"').next().expect("value")).collect();
    assert_eq!(results, ["1-0", "1/2-1/2", "0-1", "*"], "{text}");
    let report = read_report(&report);
    let repairs: Vec<(u64, &str, &str)> = records(&report, "repair")
        .filter(|r| r["kind"] == "result" || r["kind"] == "result_spelling")
        .map(|r| {
            (
                r["game"].as_u64().expect("game"),
                r["kind"].as_str().expect("kind"),
                r["before"].as_str().expect("before"),
            )
        })
        .collect();
    assert_eq!(
        repairs,
        [
            (1, "result_spelling", "1:0"),
            // The token's as it is read, the tag's when the game ends.
            (2, "result_spelling", "1/2"),
            (2, "result_spelling", "1/2-1/2 "),
            (3, "result_spelling", "0:1"),
            (3, "result", "tag draw, token 0-1"),
            (4, "result", "tag 1-0, token 1-0"),
        ]
    );
    // `--result` reads the tag as the game is written (game d, 1-0 too, is rejected: exit 1).
    let o = run(&["clean", "-q", "--result", "1-0", path(&input), "-o", path(&out)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).expect("read");
    assert!(text.contains("[Event \"a\"]") && !text.contains("[Event \"b\"]"), "{text}");
}

/// A job's outputs named `/dev/stdout` and `/dev/stderr` go where those are redirected, as `-o -`
/// does; the links stay.
#[cfg(unix)]
#[test]
fn outputs_named_dev_stdout_and_stderr_go_to_the_redirections() {
    let dir = temp_dir("outputs-dev-stdout");
    // Games whose missing roster tags make a repair record each.
    let input = dir.join("in.pgn");
    std::fs::write(&input, "[Event \"a\"]\n[Result \"*\"]\n\n1. e4 e5 *\n\n[Event \"b\"]\n\n1. d4 d5 1-0\n")
        .expect("write");
    let (want_out, want_report) = (dir.join("out.pgn"), dir.join("r.jsonl"));
    let o = run(&["clean", "-q", "-o", path(&want_out), "--report", path(&want_report), path(&input)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (out, err) = (dir.join("stdout"), dir.join("stderr"));
    let o = crate::util::pgnkit()
        .args(["clean", "-q", "-o", "/dev/stdout", "--report", "/dev/stderr", path(&input)])
        .stdout(std::fs::File::create(&out).expect("create"))
        .stderr(std::fs::File::create(&err).expect("create"))
        .status()
        .expect("pgnkit");
    assert_eq!(o.code(), Some(0));
    let read = |p: &Path| std::fs::read(p).expect("read");
    assert!(read(&out) == read(&want_out), "the games on the standard output");
    // The report's records, but the summary's timings.
    let records = |p: &Path| {
        let text = String::from_utf8(read(p)).expect("UTF-8");
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let (summary, rest) = lines.split_last().expect("a summary");
        assert!(summary.contains("\"type\":\"summary\""), "{summary}");
        rest.to_vec()
    };
    let report = records(&err);
    assert!(!report.is_empty());
    assert_eq!(report, records(&want_report), "the report on the standard error");
    for link in ["/dev/stdout", "/dev/stderr"] {
        let meta = std::fs::symlink_metadata(link).expect(link);
        assert!(!meta.file_type().is_file(), "{link} is left as it was");
    }
}

/// Exit 1 when a game is not written whole: rejected, or its prefix kept (`--keep-broken`);
/// a variation cut at a bad move is a repair, and leaves it 0.
#[test]
fn a_game_not_written_whole_exits_1_and_a_repair_0() {
    let dir = temp_dir("clean-exit");
    let (broken, cut) = (dir.join("broken.pgn"), dir.join("cut.pgn"));
    std::fs::write(&broken, "[Event \"b\"]\n\n1. e4 e5 2. Ke3 *\n").expect("write");
    std::fs::write(&cut, "[Event \"c\"]\n\n1. e4 e5 (1... c5 2. Ke3) 2. Nf3 *\n").expect("write");
    for (args, code) in [
        (vec!["clean", "-q", path(&broken)], 1),
        (vec!["clean", "-q", "--keep-broken", path(&broken)], 1),
        (vec!["clean", "-q", path(&cut)], 0),
        (vec!["clean", "-q", "--keep-broken", path(&cut)], 0),
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
    }
    // Kept broken and then left out by a filter (its prefix has 2 plies): counted as filtered,
    // its error neither reported nor counted, as `check` does with the filters.
    let o = run(&["clean", "--keep-broken", "--min-ply", "3", path(&broken), "-o", "/dev/null"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("error:") && stderr(&o).contains("0 with errors"), "{}", stderr(&o));
}

/// `--drop-tags` cannot leave out a tag every exported game has or one that says how its moves
/// are read: a usage error naming it, before any work.
#[test]
fn drop_tags_refuses_the_roster_and_the_setup() {
    let input = fixture("pgn/bad_games.pgn");
    for tag in ["Event", "Result", "FEN", "SetUp", "Variant"] {
        let list = format!("Annotator,{tag}");
        let o = run(&["clean", "--drop-tags", &list, path(&input), "-o", "/dev/null"]);
        assert_eq!(o.status.code(), Some(2), "{tag}: {}", stderr(&o));
        assert!(stderr(&o).contains(&format!("--drop-tags {tag}:")), "{}", stderr(&o));
    }
    let o = run(&["clean", "-q", "--drop-tags", "Annotator,PlyCount", path(&input), "-o", "/dev/null"]);
    assert_eq!(o.status.code(), Some(1), "bad_games has games rejected: {}", stderr(&o));
}

/// `clean --eco-tags MODE INPUT` into `dir`: the output, and the `tag` repairs as (before, after).
fn clean_eco_tags(dir: &Path, input: &Path, mode: &str) -> (String, Vec<(String, String)>) {
    let (out, report) = (dir.join("out.pgn"), dir.join("report.jsonl"));
    let o = run(&["clean", "--eco-tags", mode, path(input), "-o", path(&out), "--report", path(&report)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report = read_report(&report);
    let shown: Vec<(String, String)> = records(&report, "repair")
        .filter(|r| r["kind"] == "tag")
        .map(|r| (r["before"].as_str().expect("before").into(), r["after"].as_str().expect("after").into()))
        .collect();
    (std::fs::read_to_string(&out).expect("out"), shown)
}

/// `--eco-tags all` logs each ECO or Opening value it replaces (none it fills in for `?` or adds,
/// none it writes unchanged), and leaves the tags of a game the table names no opening for (a
/// Chess960 game); `--eco-tags missing` adds an Opening only beside the table's own code.
#[test]
fn eco_tags_log_the_values_they_replace() {
    let dir = temp_dir("clean-eco-replaced");
    let input = dir.join("eco.pgn");
    let game = |tags: &str, moves: &str| format!("[Event \"e\"]\n{tags}\n{moves} *\n\n");
    let sicilian = "1. e4 c5 2. Nf3 d6";
    let chess960 = "[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
                    [FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1\"]\n[ECO \"A00\"]\n";
    let text = [
        game("[Opening \"My Opening\"]\n", sicilian),
        game("[ECO \"C00\"]\n", sicilian),
        game("[ECO \"B50\"]\n[Opening \"?\"]\n", sicilian),
        game(chess960, "1. e4 e5"),
    ]
    .concat();
    std::fs::write(&input, text).expect("write");
    let games =
        |written: &str| -> Vec<String> { written.split("[Event ").skip(1).map(String::from).collect() };
    let (eco, opening) = ("[ECO \"B50\"]\n", "[Opening \"Sicilian Defense: Modern Variations\"]\n");

    let (written, shown) = clean_eco_tags(&dir, &input, "all");
    let written = games(&written);
    for g in &written[..3] {
        assert!(g.contains(eco) && g.contains(opening), "{g}");
    }
    assert!(written[3].contains("[ECO \"A00\"]\n") && !written[3].contains("[Opening "), "{}", written[3]);
    let replaced = |before: &str, after: &str| (before.to_string(), after.to_string());
    assert_eq!(
        shown,
        [replaced("[Opening \"My Opening\"]", opening.trim_end()), replaced("[ECO \"C00\"]", eco.trim_end())]
    );

    let (written, shown) = clean_eco_tags(&dir, &input, "missing");
    let written = games(&written);
    assert!(written[0].contains(eco) && written[0].contains("[Opening \"My Opening\"]\n"), "{}", written[0]);
    // Beside the French's code the table's Sicilian would name another opening.
    assert!(written[1].contains("[ECO \"C00\"]\n") && !written[1].contains("[Opening "), "{}", written[1]);
    assert!(written[2].contains(eco) && written[2].contains(opening), "{}", written[2]);
    assert!(written[3].contains("[ECO \"A00\"]\n") && !written[3].contains("[Opening "), "{}", written[3]);
    assert!(shown.is_empty(), "{shown:?}");
}

/// `--eco-tags all` names the opening as the lichess table does, its Opening holding the
/// variation: the game's Variation and SubVariation are left out, each a `tag` repair showing it
/// as read; `--eco-tags missing` keeps them.
#[test]
fn eco_tags_all_leaves_out_the_old_variation_tags() {
    let dir = temp_dir("clean-eco-variation");
    let input = dir.join("in.pgn");
    let tags = "[Event \"e\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n[ECO \"E80\"]\n\
                [Opening \"King's Indian\"]\n[Variation \"Saemisch, 5...O-O\"]\n[SubVariation \"main\"]\n";
    std::fs::write(&input, format!("{tags}\n1. d4 Nf6 2. c4 g6 3. Nc3 Bg7 4. e4 d6 5. f3 O-O *\n"))
        .expect("write");
    let clean = |mode: &str| clean_eco_tags(&dir, &input, mode);
    let (written, shown) = clean("all");
    assert!(written.contains("[Opening \"King's Indian Defense: Sämisch Variation"), "{written}");
    assert!(!written.contains("Variation \"") && !written.contains("main"), "{written}");
    let left_out = |tag: &str| (tag.to_string(), String::new());
    let replaced = |before: &str, after: &str| (before.to_string(), after.to_string());
    assert_eq!(
        shown,
        [
            replaced("[ECO \"E80\"]", "[ECO \"E81\"]"),
            replaced(
                "[Opening \"King's Indian\"]",
                "[Opening \"King's Indian Defense: Sämisch Variation, Normal Defense\"]"
            ),
            left_out("[Variation \"Saemisch, 5...O-O\"]"),
            left_out("[SubVariation \"main\"]")
        ]
    );
    let (written, shown) = clean("missing");
    assert!(
        written.contains(
            "[Opening \"King's Indian\"]\n[Variation \"Saemisch, 5...O-O\"]\n[SubVariation \"main\"]\n"
        ),
        "{written}"
    );
    assert!(shown.is_empty(), "{shown:?}");
}

/// `--result` keeps the games written with that result: the board's (a mate), the token's
/// (`--fix-results`, or a tag that spells no result), the unfinished `*` of a broken game's
/// prefix (`--keep-broken`), not the tag as read.
#[test]
fn result_keeps_the_games_written_with_it() {
    let text = "[Event \"F\"]\n[Result \"1-0\"]\n\n1. e4 e5 0-1\n\n\
                [Event \"G\"]\n[Result \"?\"]\n\n1. e4 e5 1/2-1/2\n\n\
                [Event \"M\"]\n[Result \"*\"]\n[FEN \"7k/5Q2/6K1/8/8/8/8/8 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. Qg7# *\n\n\
                [Event \"K\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 Ke6 4. Bxc6 1-0\n";
    let kept = |args: &[&str]| {
        let o = run_with_stdin(&[&["clean", "-q", "--keep-broken", "-"][..], args].concat(), text);
        let out = stdout(&o);
        let events: Vec<String> =
            out.lines().filter(|l| l.starts_with("[Event ")).map(str::to_string).collect();
        let results: Vec<&str> = out.lines().filter(|l| l.starts_with("[Result ")).collect();
        let wanted = format!("[Result \"{}\"]", args[1]);
        assert!(results.iter().all(|r| *r == wanted), "{args:?}: {out}");
        events.iter().map(|e| e[8..9].to_string()).collect::<String>()
    };
    assert_eq!(kept(&["--result", "1-0"]), "FM");
    assert_eq!(kept(&["--result", "0-1"]), "");
    assert_eq!(kept(&["--result", "1/2-1/2"]), "G");
    assert_eq!(kept(&["--result", "*"]), "K");
    assert_eq!(kept(&["--result", "0-1", "--fix-results"]), "F");
    assert_eq!(kept(&["--result", "1-0", "--fix-results"]), "M");
}

/// Two chess.com games of one day between the same players with the same moves are two games:
/// their addresses (chess.com writes them in `Link`, its `Site` is `Chess.com`) differ.
#[test]
fn dedup_tells_online_games_apart_by_their_link() {
    let game = |id: u32| {
        format!(
            "[Event \"Live Chess\"]\n[Site \"Chess.com\"]\n[Date \"2024.01.02\"]\n[White \"a\"]\n[Black \"b\"]\n\
             [Result \"1-0\"]\n[Link \"https://www.chess.com/game/live/{id}\"]\n\n\
             1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n"
        )
    };
    let o = run_with_stdin(&["clean", "--dedup", "-"], format!("{}{}{}", game(111), game(222), game(111)));
    let err = stderr(&o);
    assert!(err.contains("3 read = 2 written + 0 rejected + 0 filtered + 1 duplicates"), "{err}");
}

/// An input that is not PGN leaves every output unwritten, and the message names them all, not
/// only `-o`.
#[test]
fn a_failed_input_names_every_output_left_unwritten() {
    let dir = temp_dir("clean-unwritten");
    let (good, junk) = (dir.join("good.pgn"), dir.join("junk.txt"));
    std::fs::write(&good, "[Event \"a\"]\n\n1. e4 e5 *\n").expect("write");
    std::fs::write(&junk, "no chess here at all\n".repeat(10)).expect("write");
    let (out, rejects, report) = (dir.join("out.pgn"), dir.join("rejects.pgn"), dir.join("report.jsonl"));
    let o = run(&[
        "clean",
        path(&good),
        path(&junk),
        "-o",
        path(&out),
        "--rejects",
        path(&rejects),
        "--report",
        path(&report),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(65), "{err}");
    assert!(err.contains(&format!("so {} was not written", path(&out))), "{err}");
    assert!(err.contains(&format!("pgnkit: nor were {}, {}", path(&rejects), path(&report))), "{err}");
    assert!(!out.exists() && !rejects.exists() && !report.exists());
}

/// A game whose first error comes after 150 harmless problems (stray braces): `check` shows the
/// error where it stands, and `clean` rejects the game, or with `--keep-broken` writes its valid
/// prefix and logs what it leaves out; never a valid game cut short.
#[test]
fn an_error_past_a_games_first_hundred_problems_is_shown_and_the_game_rejected() {
    let dir = temp_dir("clean-late-error");
    let input = dir.join("late.pgn");
    let text = format!("[Event \"x\"]\n[Result \"*\"]\n\n1. e4 {}e5 2. Qxf7 Nc6 *\n", "} ".repeat(150));
    std::fs::write(&input, &text).expect("write");
    let o = run(&["check", path(&input)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let at = format!("late.pgn:4:{}: error: game 1", "1. e4 ".len() + 300 + "e5 2. ".len() + 1);
    assert!(stdout(&o).contains(&at) && stdout(&o).contains("Qxf7"), "{}", stdout(&o));
    let (out, rejects, report) = (dir.join("out.pgn"), dir.join("rej.pgn"), dir.join("r.jsonl"));
    let o = run(&["clean", "-q", path(&input), "-o", path(&out), "--rejects", path(&rejects)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).expect("read"), "");
    assert!(std::fs::read_to_string(&rejects).expect("read").starts_with(text.trim_end()));
    let o = run(&["clean", "-q", "--keep-broken", path(&input), "-o", path(&out), "--report", path(&report)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let written = std::fs::read_to_string(&out).expect("read");
    assert!(written.contains("1. e4 e5 { pgnkit: illegal_move: illegal SAN \"Qxf7\""), "{written}");
    let report = std::fs::read_to_string(&report).expect("read");
    assert!(report.contains("\"left_out\":\"Qxf7 Nc6 *\""), "{report}");
}
