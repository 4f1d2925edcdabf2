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
    let o = run(&["positions", "--eco-tags", "all", &path]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
