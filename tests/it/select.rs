//! The filters every job shares, against an independent reading: `scripts/select_oracle.py`
//! decides each filter with python-chess's board and its own rules, and the games `check`
//! keeps (its `--games` records), `positions` writes and `clean` writes must be those games.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::util::{fixture, python_chess_missing, run, shared_data, stderr, stdout};

/// Filters, each with a start position reached by the games of the collections compared.
const FILTERS: &[&[&str]] = &[
    &["--where", "WhiteElo >= 2000"],
    &["--where", "Player ~ an"],
    &["--where", "Elo > 1500", "--where", "Event ~ blitz"],
    &["--where", "Result != 1-0"],
    &["--where", "Year >= 2025"],
    &["--where", "Plies > 80"],
    &["--where", "PlyCount <= 60", "--where", "Elo > 1500"],
    &["--result", "1/2-1/2"],
    &["--ending", "checkmate"],
    &["--ending", "stalemate"],
    &["--ending", "insufficient"],
    &["--ending", "repetition"],
    &["--ending", "fifty-moves"],
    &["--material", "KRkr"],
    &["--material", "KQRRBPPPPPkqrrbppppp"],
    &["--position", "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"],
    &["--min-ply", "60", "--max-ply", "100"],
    &["--eco=C00-C99"],
    &["--eco=A00-A99,D00-E99", "--where", "Elo >= 1800"],
    &["--eco=B20-B99", "--invert"],
    &["--ending", "checkmate", "--invert"],
];

/// Collections python-chess reads without an error: the fixtures, and a 1 MB lichess dump.
fn collections() -> Vec<PathBuf> {
    let mut files = vec![fixture("pgn/lichess_db_10k.pgn"), fixture("pgn/twic1599_10k.pgn")];
    if let Some(data) = shared_data() {
        files.push(data.join("games/lichess_db_1000k.pgn"));
    }
    files
}

/// The games python-chess's reading keeps, per filter of `FILTERS`, in one pass over `file`.
fn oracle(file: &Path) -> Vec<BTreeSet<u64>> {
    use std::io::Write;
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/select_oracle.py");
    let mut child = Command::new("python3")
        .arg(script)
        .args(["--stdin", "--"])
        .arg(file)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3");
    let mut stdin = child.stdin.take().expect("stdin");
    for f in FILTERS {
        writeln!(stdin, "{}", serde_json::to_string(f).expect("JSON")).expect("write");
    }
    drop(stdin);
    let o = child.wait_with_output().expect("python3");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut kept = vec![BTreeSet::new(); FILTERS.len()];
    for line in String::from_utf8_lossy(&o.stdout).lines() {
        let (i, game) = line.split_once('\t').expect("INDEX<TAB>GAME");
        kept[i.parse::<usize>().expect("index")].insert(game.parse().expect("a game number"));
    }
    kept
}

/// The games `check --games` reports under `filter`, and the filtered count of its summary.
fn kept_by_check(filter: &[&str], file: &Path) -> (BTreeSet<u64>, u64, u64) {
    let mut args = vec!["check", "-q", "-j", "2", "--json", "--games"];
    args.extend_from_slice(filter);
    let path = file.to_string_lossy();
    args.push(&path);
    let o = run(&args);
    assert!(o.status.code().is_some_and(|c| c <= 1), "{}", stderr(&o));
    let (mut kept, mut read, mut filtered) = (BTreeSet::new(), 0, 0);
    for line in stdout(&o).lines() {
        let v: Value = serde_json::from_str(line).expect("JSON");
        match v["type"].as_str() {
            Some("game") => {
                kept.insert(v["data"]["game"].as_u64().expect("game"));
            }
            Some("summary") => {
                read = v["data"]["games"].as_u64().expect("games");
                filtered = v["data"]["counts"]["filtered"].as_u64().unwrap_or(0);
            }
            _ => {}
        }
    }
    (kept, read, filtered)
}

#[test]
fn check_keeps_the_games_python_chess_selects() {
    if python_chess_missing() {
        return;
    }
    let (mut proper, mut compared) = (0, 0);
    for file in collections() {
        for (filter, theirs) in FILTERS.iter().zip(oracle(&file)) {
            let (ours, read, filtered) = kept_by_check(filter, &file);
            assert_eq!(ours, theirs, "{} {filter:?}", file.display());
            assert_eq!(read, ours.len() as u64 + filtered, "{} {filter:?}: the ledger", file.display());
            if !ours.is_empty() && filtered > 0 {
                proper += 1;
            }
            compared += 1;
        }
    }
    println!(
        "{compared} filter runs equal to python-chess's selection; {proper} kept some games and left out others"
    );
    assert!(proper * 2 >= compared, "too few filters select a proper subset: {proper} of {compared}");
}

/// `positions` and `clean` keep the same games as `check` under a filter decided on the tags and
/// one decided on the moves.
#[test]
fn positions_and_clean_keep_the_games_check_keeps() {
    let file = fixture("pgn/twic1599_10k.pgn");
    let path = file.to_string_lossy().into_owned();
    for filter in [
        &["--where", "Elo >= 2700"][..],
        &["--eco=E00-E99"],
        &["--position", "rnbqkb1r/pppppppp/5n2/8/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - 0 2", "--invert"],
    ] {
        let (kept, read, filtered) = kept_by_check(filter, &file);
        assert!(!kept.is_empty() && filtered > 0, "{filter:?}: a proper subset");
        let mut args = vec!["positions", "-q", "--format", "jsonl"];
        args.extend_from_slice(filter);
        args.push(&path);
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let games: BTreeSet<u64> = stdout(&o)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("JSON")["game"].as_u64().expect("game"))
            .collect();
        assert_eq!(games, kept, "positions {filter:?}");
        let mut args = vec!["clean", "-q"];
        args.extend_from_slice(filter);
        args.push(&path);
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let written = stdout(&o).matches("[Event ").count() as u64;
        assert_eq!(written, kept.len() as u64, "clean {filter:?}");
        assert_eq!(read - filtered, written);
    }
}

#[test]
fn a_filter_that_cannot_be_read_is_a_usage_error() {
    let path = fixture("pgn/lichess_db_10k.pgn");
    let path = path.to_string_lossy();
    for bad in [
        &["--where", "WhiteElo >> 3"][..],
        // Help says numbers compare as numbers: a rating is not ordered against text.
        &["--where", "Elo >= abc"],
        &["--material", "KKk"],
        &["--eco=Z99"],
        &["--result", "2-0"],
        &["--position", "not a fen"],
        &["--variant", "atomic"],
    ] {
        let mut args = vec!["check"];
        args.extend_from_slice(bad);
        args.push(&path);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("error:"), "{bad:?}: {}", stderr(&o));
    }
    // `--eco` takes its ranges as its value, with a space too; tags are `clean --eco-tags`.
    let counts = |args: &[&str]| {
        let o = run(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        let summary: Value =
            serde_json::from_str(stdout(&o).lines().last().expect("a summary")).expect("JSON");
        summary["data"]["counts"].clone()
    };
    let with_space = counts(&["check", "--json", "--eco", "C00-C99", &path]);
    assert_eq!(with_space, counts(&["check", "--json", "--eco=C00-C99", &path]));
    assert!(with_space["filtered"].as_u64().is_some_and(|n| n > 0), "{with_space}");
    let o = run(&["positions", "--eco=missing", &path]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not an ECO code"), "{}", stderr(&o));
    let o = run(&["positions", "--eco", "B99-B20", &path]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("\"B99-B20\" is reversed"), "{}", stderr(&o));
    let o = run(&["positions", "--eco-tags", "all", &path]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// The positions `positions --position-material` writes under `extra` options, as (game, ply),
/// each checked to hold one of `sigs`' materials by the pieces its FEN lists.
fn written_with_material(sigs: &[&str], extra: &[&str], files: &[PathBuf]) -> Vec<(u64, u64)> {
    let joined = sigs.join(",");
    let mut args = vec!["positions", "-q", "--format", "jsonl", "--position-material", &joined];
    args.extend_from_slice(extra);
    let paths: Vec<String> = files.iter().map(|f| f.to_string_lossy().into_owned()).collect();
    args.extend(paths.iter().map(String::as_str));
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    // The pieces of a signature or a FEN's placement, sorted: the material, kings written.
    let material = |letters: &str| {
        let mut m: Vec<char> = letters.chars().filter(char::is_ascii_alphabetic).collect();
        m.extend(["K", "k"].iter().filter(|k| !letters.contains(**k)).flat_map(|k| k.chars()));
        m.sort_unstable();
        m
    };
    let wanted: Vec<Vec<char>> = sigs.iter().map(|s| material(s)).collect();
    stdout(&o)
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("JSON");
            let fen = v["fen"].as_str().expect("fen");
            let placement = fen.split(' ').next().expect("placement");
            assert!(wanted.contains(&material(placement)), "{fen}: not one of {sigs:?}");
            (v["game"].as_u64().expect("game"), v["ply"].as_u64().expect("ply"))
        })
        .collect()
}

/// The positions python-chess finds with one of `sigs`' materials, as (game, ply), in order.
fn positions_with_material(sigs: &[&str], files: &[PathBuf]) -> Vec<(u64, u64)> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/select_oracle.py");
    let o = Command::new("python3")
        .arg(script)
        .args(["--positions", &sigs.join(","), "--"])
        .args(files)
        .output()
        .expect("python3");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|line| {
            let (game, ply) = line.split_once('\t').expect("GAME<TAB>PLY");
            (game.parse().expect("game"), ply.parse().expect("ply"))
        })
        .collect()
}

/// `--position-material` writes exactly the positions with that material, none missed (python-
/// chess's count), with the ply options on top; `--material` writes whole games instead.
#[test]
fn position_material_writes_the_positions_python_chess_finds() {
    if python_chess_missing() {
        return;
    }
    // One file a run: a jsonl record's game number counts within its input.
    let mut runs: Vec<(Vec<PathBuf>, &[&str])> =
        vec![(vec![fixture("pgn/twic1599_10k.pgn")], &["RBr", "KRBkrp"])];
    if let Some(data) = shared_data() {
        let rook_endings = &["KRkr", "KRPkr", "KRkrp", "KRPkrp", "KRPPkrp"];
        runs.push((vec![data.join("games/twic1599_1000k.pgn")], rook_endings));
        runs.push((vec![data.join("games/lichess_db_1000k.pgn")], rook_endings));
    }
    for (files, sigs) in runs {
        let theirs = positions_with_material(sigs, &files);
        let ours = written_with_material(sigs, &[], &files);
        assert!(theirs.len() > 10, "{sigs:?}: too few positions to compare ({})", theirs.len());
        assert_eq!(ours, theirs, "{sigs:?}");
        // Composed with the ply options: the same positions, those plies only.
        // Plies between the first and third quartiles of those found, even ones.
        let mut found: Vec<u64> = theirs.iter().map(|&(_, p)| p).collect();
        found.sort_unstable();
        let (lo, hi) = (found[found.len() / 4], found[found.len() * 3 / 4]);
        let (min, max) = (lo.to_string(), hi.to_string());
        let plies = ["--min-ply", &min, "--max-ply", &max, "--every", "2"];
        let some: Vec<_> =
            theirs.iter().copied().filter(|&(_, p)| (lo..=hi).contains(&p) && p % 2 == 0).collect();
        assert!(!some.is_empty() && some.len() < theirs.len(), "{sigs:?}: the plies pick some");
        assert_eq!(written_with_material(sigs, &plies, &files), some, "{sigs:?} {plies:?}");
        println!("{sigs:?}: {} positions, {} of them at the plies picked", theirs.len(), some.len());
    }
    // The game filter writes every position of the games that reach the material.
    let file = fixture("pgn/twic1599_10k.pgn");
    let path = file.to_string_lossy();
    let count =
        |flag| stdout(&run(&["positions", "-q", "--format", "epd", flag, "KRBkr", &path])).lines().count();
    let (games, positions) = (count("--material"), count("--position-material"));
    assert!(games > positions && positions > 0, "--material {games}, --position-material {positions}");
}

/// A `--where` tag that no game has is warned of at the end, on stderr and in a JSON summary,
/// naming the tag; the exit code stays; a tag some game has, and `Plies`, give no warning.
#[test]
fn a_where_tag_no_game_has_is_warned_of() {
    let path = fixture("pgn/lichess_db_10k.pgn");
    let path = path.to_string_lossy();
    let o = run(&["check", "-q", "--where", "Annotator = x", "--where", "Opening ~ a", &path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    let warnings: Vec<&str> =
        err.lines().filter(|l| l.starts_with("pgnkit: warning")).map(str::trim).collect();
    assert_eq!(
        warnings,
        ["pgnkit: warning: --where 'Annotator = x': no game had the tag Annotator, so it held for none"]
    );
    let o = run(&["check", "-q", "--json", "--where", "Annotator != x", "--where", "Plies > 20", &path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no game had the tag Annotator, so it held for every game"),
        "{}",
        stderr(&o)
    );
    let summary: Value = serde_json::from_str(stdout(&o).lines().last().expect("summary")).expect("JSON");
    let absent = &summary["data"]["where_absent"];
    assert_eq!(absent.as_array().map(Vec::len), Some(1), "{summary}");
    assert_eq!(absent[0]["where"], "Annotator != x");
    assert_eq!(absent[0]["tags"], serde_json::json!(["Annotator"]));
    for job in
        [&["positions", "-q", "--format", "epd"][..], &["clean", "-q"], &["report", "-q", "--format", "json"]]
    {
        let mut args = job.to_vec();
        args.extend(["--where", "WhiteFideId > 0", &path]);
        let o = run(&args);
        assert!(
            stderr(&o).contains("--where 'WhiteFideId > 0': no game had the tag WhiteFideId"),
            "{job:?}: {}",
            stderr(&o)
        );
    }
}

/// `--variant chess960` keeps a game with no Variant tag whose FEN needs Chess960 castling (a
/// king off the e-file with its rights): the replay plays it as Chess960, as python-chess reads
/// it (`board.chess960`), and `clean` writes it so; `--variant standard` leaves it out, and the
/// `--games` record names the variant played.
#[test]
fn the_variant_filter_takes_a_game_as_its_fen_plays_it() {
    let dir = crate::util::temp_dir("select-variant-played");
    let pgn = dir.join("v.pgn");
    let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 0 9";
    let text = format!(
        "[Event \"untagged\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n[Result \"*\"]\n\n9. g3 *\n\n\
         [Event \"standard\"]\n[Result \"*\"]\n\n1. e4 *\n\n\
         [Event \"tagged\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n[Result \"*\"]\n\n9. g3 *\n"
    );
    std::fs::write(&pgn, text).expect("write");
    let kept = |variant: &str| -> Vec<(u64, String)> {
        let o =
            run(&["check", "-q", "--games", "--json", "--variant", variant, pgn.to_str().expect("UTF-8")]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        stdout(&o)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
            .filter(|r| r["type"] == "game")
            .map(|r| (r["data"]["game"].as_u64().expect("number"), r["data"]["variant"].to_string()))
            .collect()
    };
    let chess960 = "\"Chess960\"".to_string();
    assert_eq!(kept("chess960"), [(1, chess960.clone()), (3, chess960)]);
    assert_eq!(kept("standard"), [(2, "\"Standard\"".to_string())]);
    let o = run(&["clean", "-q", "--variant", "chess960", pgn.to_str().expect("UTF-8")]);
    assert_eq!(stdout(&o).matches("[Variant \"Chess960\"]").count(), 2, "{}", stdout(&o));
}

/// `--ending repetition` in crazyhouse looks past captures, as python-chess's
/// `board.is_repetition(3)` does: a captured piece comes back from the pocket, so the start
/// stands again after the pawns taken on d5 are dropped back (the halfmove clock is 10 then).
/// The same moves in standard chess are illegal (the drops), so only the crazyhouse game is read.
#[test]
fn a_crazyhouse_repetition_is_found_across_captures() {
    let dir = crate::util::temp_dir("select-zh-repetition");
    let pgn = dir.join("zh.pgn");
    let moves = "1. e4 d5 2. exd5 Qxd5 3. @e2 Qd6 4. Nf3 Qd8 5. Ng1 @d7 6. Nf3 Nf6 7. Ng1 Ng8";
    let text = format!(
        "[Event \"thrice\"]\n[Variant \"Crazyhouse\"]\n[Result \"*\"]\n\n{moves} *\n\n\
         [Event \"twice\"]\n[Variant \"Crazyhouse\"]\n[Result \"*\"]\n\n{moves} 8. Nf3 *\n"
    );
    std::fs::write(&pgn, text).expect("write");
    let (kept, read, _) = kept_by_check(&["--ending", "repetition"], &pgn);
    assert_eq!((kept, read), (BTreeSet::from([1]), 2));
}

/// The summary's plies are those of the games the filters keep, in every job: a game a ply or
/// board filter replays to judge and then leaves out adds none, as one a tag filter leaves out
/// unreplayed adds none.
#[test]
fn the_summary_counts_the_plies_of_the_games_kept() {
    let path = fixture("pgn/twic1599_10k.pgn");
    let path = path.to_string_lossy();
    let plies_said = |job: &str, err: &str| -> u64 {
        let line = err.lines().find(|l| l.starts_with(&format!("pgnkit {job}: "))).expect("a summary");
        let (_, rest) = line.split_once("only; ").expect("the plies");
        rest.split_once(' ').and_then(|(n, _)| n.parse().ok()).expect("a number of plies")
    };
    for filter in
        [&["--where", "Plies > 80"][..], &["--where", "Elo >= 2700"], &["--eco=E00-E99", "--invert"]]
    {
        let mut args = vec!["check", "-j", "2", "--json", "--games"];
        args.extend_from_slice(filter);
        args.push(&path);
        let o = run(&args);
        let (mut kept, mut filtered) = (0, 0);
        for line in stdout(&o).lines() {
            let v: Value = serde_json::from_str(line).expect("JSON");
            match v["type"].as_str() {
                Some("game") => kept += v["data"]["plies"].as_u64().expect("plies"),
                Some("summary") => filtered = v["data"]["counts"]["filtered"].as_u64().unwrap_or(0),
                _ => {}
            }
        }
        assert!(kept > 0 && filtered > 0, "{filter:?}: a proper subset");
        assert_eq!(plies_said("check", &stderr(&o)), kept, "check {filter:?}");
        for job in [&["positions", "--format", "epd"][..], &["clean"], &["annotate", "--from-evals"]] {
            let mut args = job.to_vec();
            args.extend_from_slice(&["-j", "2", "-o", "/dev/null"]);
            args.extend_from_slice(filter);
            args.push(&path);
            let o = run(&args);
            assert_eq!(plies_said(job[0], &stderr(&o)), kept, "{job:?} {filter:?}: {}", stderr(&o));
        }
    }
}

/// `--invert` with no filter to invert is a usage error in every job, as it would leave out
/// every game unreported; in `positions`, `--min-ply` chooses positions, not games.
#[test]
fn invert_without_a_filter_is_a_usage_error() {
    let path = fixture("pgn/bad_games.pgn");
    let path = path.to_string_lossy();
    for args in [
        &["check", "--invert"][..],
        &["clean", "--invert", "-o", "/dev/null"],
        &["positions", "--invert", "--min-ply", "3"],
        &["report", "--invert", "--format", "json"],
    ] {
        let mut args = args.to_vec();
        args.push(&path);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("--invert keeps the games the filters leave out, and no filter is given")
        );
        assert!(stdout(&o).is_empty(), "{args:?}: {}", stdout(&o));
    }
    let o = run(&["positions", "--invert", "--min-ply", "3", &path]);
    assert!(stderr(&o).contains("--material, --eco)"), "{}", stderr(&o));
    let o = run(&["check", "-q", "--invert", "--max-ply", "3", &path]);
    assert!(o.status.code().is_some_and(|c| c <= 1), "{}", stderr(&o));
}

/// `--result` reads a game's result from its Result tag where the tag spells one, else from the
/// result token, else as unknown (`*`): a tag that spells none (`?`, `draw`) keeps no game
/// whatever its result, and `check`, `positions` and `clean` keep the same games.
#[test]
fn the_result_filter_reads_an_unreadable_tag_as_no_result() {
    let dir = crate::util::temp_dir("select-result-unread");
    let pgn = dir.join("r.pgn");
    let text = "[Event \"a\"]\n[Result \"?\"]\n\n1. e4 0-1\n\n[Event \"b\"]\n[Result \"draw\"]\n\n1. d4 *\n\n\
                [Event \"c\"]\n\n1. c4\n";
    std::fs::write(&pgn, text).expect("write");
    let path = pgn.to_str().expect("UTF-8");
    for (result, want) in [("*", &[2, 3][..]), ("0-1", &[1]), ("1-0", &[]), ("1/2-1/2", &[])] {
        let o = run(&["check", "-q", "--games", "--json", "--result", result, path]);
        let kept: Vec<u64> = stdout(&o)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
            .filter(|r| r["type"] == "game")
            .map(|r| r["data"]["game"].as_u64().expect("number"))
            .collect();
        assert_eq!(kept, want, "check --result {result}");
        let o = run(&["positions", "-q", "--format", "jsonl", "--result", result, path]);
        let mut games: Vec<u64> = stdout(&o)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("JSON")["game"].as_u64().expect("game"))
            .collect();
        games.dedup();
        assert_eq!(games, want, "positions --result {result}");
        let o = run(&["clean", "-q", "--result", result, path]);
        assert_eq!(stdout(&o).matches("[Event ").count(), want.len(), "clean --result {result}");
    }
}
