//! `clean --dedup` and `--duplicates`: what each rule sets aside (made-up pairs, rounds, online
//! pages, broadcast snapshots), the same games python-chess's oracle finds, and the duplicates
//! file holding the repeats as read.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::clean::{path, records, shared_files};
use crate::util::{fixture, python_chess_missing, run, run_with_stdin, shared_data, stderr, temp_dir};

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
