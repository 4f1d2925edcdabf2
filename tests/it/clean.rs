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

pub(crate) fn path(p: &Path) -> &str {
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
pub(crate) fn read_report(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("report");
    text.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect()
}

/// The report's records of `kind`.
pub(crate) fn records<'r>(report: &'r [Value], kind: &str) -> impl Iterator<Item = &'r Value> {
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

pub(crate) fn shared_files(data: &Path) -> Vec<PathBuf> {
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
