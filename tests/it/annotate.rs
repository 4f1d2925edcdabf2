//! `pgnkit annotate` with the built-in engine on the fixtures at a small node budget: the same
//! output at one and two engines and from a warm cache; python-chess reads every `[%eval]`
//! (`node.eval()`, equal to the JSON Lines records) and every NAG; `check --strict-san` finds
//! nothing in the output.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::util::{fixture, pgnkit, python_chess_missing, run, sigint_default, stderr, stdout, temp_dir};

const INPUTS: [&str; 2] = ["pgn/lichess_db_10k.pgn", "pgn/twic1599_10k.pgn"];

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// Annotates `input` into `out` with `extra` arguments at 2000 nodes (with `--from-evals`, which
/// searches nothing, no limit); returns stderr.
fn annotate(input: &Path, out: &Path, extra: &[&str]) -> String {
    let mut args = vec!["annotate", "-q", "-o", path(out)];
    if !extra.contains(&"--from-evals") {
        args.extend(["--nodes", "2000"]);
    }
    args.extend_from_slice(extra);
    args.push(path(input));
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}: {}", input.display(), stderr(&o));
    stderr(&o)
}

#[test]
fn annotate_output_is_the_same_at_one_and_two_engines_and_from_the_cache() {
    let dir = temp_dir("annotate-engines");
    for name in INPUTS {
        let input = fixture(name);
        let read = |p: PathBuf| std::fs::read_to_string(p).expect("output");
        annotate(&input, &dir.join("one.pgn"), &["--no-cache", "--engines", "1"]);
        annotate(&input, &dir.join("two.pgn"), &["--no-cache", "--engines", "2"]);
        let one = read(dir.join("one.pgn"));
        assert!(one.contains("[%eval ") && one.contains("[Annotator \"pgnkit "), "{name}");
        assert!(one == read(dir.join("two.pgn")), "{name}: one and two engines differ");
        let cache = dir.join(format!("{}.sqlite", name.replace('/', "_")));
        annotate(&input, &dir.join("cold.pgn"), &["--cache", path(&cache)]);
        annotate(&input, &dir.join("warm.pgn"), &["--cache", path(&cache)]);
        assert!(one == read(dir.join("cold.pgn")), "{name}: a cold cache changes the output");
        assert!(one == read(dir.join("warm.pgn")), "{name}: a warm cache changes the output");
    }
}

#[test]
fn annotate_output_passes_check_strict_san() {
    let dir = temp_dir("annotate-check");
    for name in INPUTS {
        let out = dir.join("out.pgn");
        annotate(&fixture(name), &out, &["--no-cache", "--variations", "all", "--add-tags"]);
        let o = run(&["check", "--strict-san", path(&out)]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        assert_eq!(String::from_utf8_lossy(&o.stdout), "", "{name}: no diagnostic");
        assert!(stderr(&o).contains(" 0 with errors, 0 with warnings only"), "{name}: {}", stderr(&o));
    }
}

/// For each game, its mainline evaluations as python-chess reads them (`cp N`, `mate N` from
/// White's view, `-` for none), and the NAGs of every node; python-chess's errors.
const READER: &str = r#"
import sys, chess.pgn
with open(sys.argv[1]) as f:
    while True:
        game = chess.pgn.read_game(f)
        if game is None:
            break
        for e in game.errors:
            print("error", e)
        evals = []
        for node in game.mainline():
            e = node.eval()
            if e is None:
                evals.append("-")
            elif e.white().is_mate():
                evals.append("mate %d" % e.white().mate())
            else:
                evals.append("cp %d" % e.white().score())
        nags = sum(len(n.nags) for n in game.mainline()) + sum(
            len(v.nags) for n in game.mainline() for v in n.variations[1:])
        print("game", " ".join(evals) if evals else "", "|", nags)
"#;

#[test]
fn python_chess_reads_every_eval_and_nag() {
    if python_chess_missing() {
        return;
    }
    let dir = temp_dir("annotate-python");
    for name in INPUTS {
        let (pgn, jsonl) = (dir.join("out.pgn"), dir.join("out.jsonl"));
        let cache = dir.join("cache.sqlite");
        annotate(&fixture(name), &pgn, &["--cache", path(&cache)]);
        annotate(&fixture(name), &jsonl, &["--cache", path(&cache), "--format", "jsonl"]);
        let o = Command::new("python3").args(["-c", READER, path(&pgn)]).output().expect("python3");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let seen = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(!seen.contains("error"), "{name}: {seen}");
        // What the records say each move's [%eval] is (none after a mate).
        let mut expected: Vec<Vec<String>> = Vec::new();
        for line in std::fs::read_to_string(&jsonl).expect("jsonl").lines() {
            let v: Value = serde_json::from_str(line).expect("JSON");
            if v["type"] != "position" {
                continue;
            }
            let d = &v["data"];
            if d["ply"] == 0 {
                // A game's first record carries its tags as read.
                assert!(d["tags"]["White"].is_string() && d["tags"]["Result"].is_string(), "{name}: {d}");
                expected.push(Vec::new());
                continue;
            }
            assert!(d.get("tags").is_none(), "{name}: tags on the first record only: {d}");
            let e = &d["eval"];
            let text = match (e["cp"].as_i64(), e["mate"].as_i64()) {
                (Some(cp), _) => format!("cp {cp}"),
                (None, Some(0)) | (None, None) => "-".to_string(),
                (None, Some(m)) => format!("mate {m}"),
            };
            expected.last_mut().expect("a game").push(text);
        }
        let text = std::fs::read_to_string(&pgn).expect("pgn");
        let games: Vec<&str> = seen.lines().collect();
        assert_eq!(games.len(), expected.len(), "{name}");
        let mut nags = 0;
        for (line, want) in games.iter().zip(&expected) {
            let (evals, n) = line.strip_prefix("game ").expect("a game line").rsplit_once(" | ").expect("|");
            assert_eq!(evals.trim(), want.join(" "), "{name}");
            nags += n.parse::<usize>().expect("count");
        }
        let written = text.split('$').skip(1).filter(|t| t.starts_with(|c: char| c.is_ascii_digit())).count();
        assert_eq!(nags, written, "{name}: every NAG written is read");
        assert!(written > 0 && text.contains("was best."), "{name}: some move is judged");
    }
}

/// Ctrl-C: exit 130, no output under its final name, the evaluations committed (the same
/// command again finds them in the cache) and the way to resume said.
#[test]
fn ctrl_c_commits_the_cache_and_leaves_no_output() {
    let dir = temp_dir("annotate-ctrl-c");
    let (cache, out) = (dir.join("cache.sqlite"), dir.join("out.pgn"));
    let input = fixture("pgn/twic1599_10k.pgn");
    let args = ["annotate", "--engines", "1", "--nodes", "200000", "--cache", path(&cache), "-o", path(&out)];
    let mut child = sigint_default(&mut pgnkit())
        .args(args)
        .arg(&input)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    // The stop comes once the run has analysed something, however slow the machine.
    let rows = || {
        // Read-only, so that no empty database is made before pgnkit makes its own.
        let count = "import sqlite3, sys; print(sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True).execute('SELECT count(*) FROM evals').fetchone()[0])";
        let o = Command::new("python3").args(["-c", count, path(&cache)]).output().expect("python3");
        String::from_utf8_lossy(&o.stdout).trim().parse::<u64>().unwrap_or(0)
    };
    let watchdog = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while rows() == 0 {
        assert!(child.try_wait().expect("wait").is_none(), "the run ended before the stop");
        assert!(std::time::Instant::now() < watchdog, "nothing analysed in 120 s");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let kill = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill");
    assert!(kill.success());
    let o = child.wait_with_output().expect("wait");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(!out.exists(), "{err}");
    assert!(err.contains("run the same command again to resume"), "{err}");
    // What was analysed is committed: the file holds rows.
    assert!(rows() > 0, "{err}");
}

#[test]
fn annotate_epd_streams_any_number_of_lines_in_order() {
    let dir = temp_dir("annotate-epd");
    // Every position of a fixture twice (524 lines: more than one batch), a bad line at 400.
    let o = run(&["positions", "-q", "--format", "epd", path(&fixture("pgn/lichess_db_10k.pgn"))]);
    let epd = String::from_utf8(o.stdout).expect("UTF-8");
    let mut lines: Vec<&str> = epd.lines().chain(epd.lines()).collect();
    assert_eq!(lines.len(), 524);
    lines.insert(399, "not a position");
    let input = dir.join("positions.epd");
    std::fs::write(&input, lines.join("\n") + "\n").expect("write");
    let annotate = |engines: &str, out: &str| {
        let out = dir.join(out);
        let args = ["annotate", "--no-cache", "--format", "epd", "--depth", "1", "--engines", engines];
        let o = run(&[&args[..], &["-o", path(&out), path(&input)]].concat());
        assert_eq!(o.status.code(), Some(1), "the bad line is a failure: {}", stderr(&o));
        (std::fs::read_to_string(out).expect("output"), stderr(&o))
    };
    let (one, err) = annotate("1", "one.epd");
    assert_eq!(one, annotate("2", "two.epd").0, "one and two engines differ");
    let written: Vec<&str> = one.lines().collect();
    assert_eq!(written.len(), 525);
    assert_eq!(written[399], "not a position");
    for (i, (line, read)) in written.iter().zip(&lines).enumerate() {
        if i != 399 {
            assert!(line.starts_with(read.split(" hmvc").next().expect("EPD")), "line {}: {line}", i + 1);
            assert!(line.contains(" acd ") && line.contains(" ce "), "line {}: {line}", i + 1);
        }
    }
    assert!(err.contains("positions.epd:400:1: error: game 400 (? - ?): not an EPD or FEN line: "), "{err}");
    assert!(
        err.contains("pgnkit annotate: 525 lines, 524 valid, 1 with errors, 0 with warnings only;"),
        "{err}"
    );
    assert!(err.contains("\n  errors: bad_fen 1\n") && err.contains("\n  524 positions\n"), "{err}");
}

/// The summaries give the pace by position: positions a second and the wall time a position,
/// and the engines' time a position searched; not megabytes a second.
#[test]
fn annotate_summary_speaks_positions() {
    let input = fixture("pgn/twic1599_10k.pgn");
    let o = run(&[
        "annotate",
        "--nodes",
        "50",
        "--no-cache",
        "--engines",
        "1",
        "--format",
        "jsonl",
        path(&input),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    let head = err.lines().find(|l| l.starts_with("pgnkit annotate:")).expect("a summary");
    assert!(head.contains("positions/s, ") && head.ends_with(" a position)"), "{head}");
    assert!(!err.contains("MB/s") && !err.contains("engine_microseconds"), "{err}");
    assert!(err.contains(" a position searched ("), "{err}");
    let last = String::from_utf8_lossy(&o.stdout).lines().last().expect("a summary").to_string();
    let data = serde_json::from_str::<Value>(&last).expect("JSON")["data"].clone();
    let number = |key: &str| data[key].as_f64().unwrap_or_else(|| panic!("{key}: {data}"));
    let (positions, seconds) = (number("positions"), number("seconds"));
    assert!(positions > 100.0, "{data}");
    assert!((number("positions_per_s") * seconds / positions - 1.0).abs() < 1e-6, "{data}");
    assert!((number("seconds_per_position") * positions / seconds - 1.0).abs() < 1e-6, "{data}");
    let engine = number("engine_seconds_per_position") * number("analysed");
    let micros = data["counts"]["engine_microseconds"].as_f64().expect("the engines' time");
    assert!((engine * 1e6 / micros - 1.0).abs() < 1e-6, "{data}");
    assert_eq!(data["engines"], 1, "{data}");
    // --from-evals runs no engine, on any number of threads.
    let input = fixture("pgn/lichess_db_10k.pgn");
    let o = run(&["annotate", "--from-evals", "-j", "2", "--format", "jsonl", path(&input)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let last = String::from_utf8_lossy(&o.stdout).lines().last().expect("a summary").to_string();
    let data = serde_json::from_str::<Value>(&last).expect("JSON")["data"].clone();
    assert_eq!(
        (&data["engines"], &data["analysed"], &data["engine_busy"]),
        (&0.into(), &0.into(), &0.0.into()),
        "{data}"
    );
    assert!(!stderr(&o).contains("engines busy"), "{}", stderr(&o));
}

/// Annotates the one game `text` at 100 nodes without a cache; the input's path, stderr and the
/// output.
fn annotate_one(name: &str, text: &str) -> (String, String, String) {
    let dir = temp_dir(&format!("annotate-{name}"));
    let (input, out) = (dir.join("in.pgn"), dir.join("out.pgn"));
    std::fs::write(&input, text).expect("write");
    let o = run(&["annotate", "-q", "--nodes", "100", "--no-cache", path(&input), "-o", path(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let written = std::fs::read_to_string(&out).expect("out");
    (path(&input).to_string(), stderr(&o), written)
}

/// A game with a null move in its mainline is written as read, its positions unevaluated: an
/// error said at the null move (as `check` places it), counted as one (the game among those
/// with errors), and exit 1 as for any position left without an evaluation. A null move in a
/// variation is a warning, as in `check`.
#[test]
fn a_game_with_a_null_move_is_written_as_read_and_says_why() {
    let dir = temp_dir("annotate-null");
    let (input, out) = (dir.join("in.pgn"), dir.join("out.pgn"));
    let text = "[Event \"n\"]\n[Result \"*\"]\n\n1. e4 -- 2. d4 d5 (2... -- 3. c4) *\n";
    std::fs::write(&input, text).expect("write");
    let o = run(&["annotate", "--nodes", "100", "--no-cache", path(&input), "-o", path(&out)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let located = format!("{}:4:7: error: game 1 (? - ?): ply 2: null move \"--\": no engine", path(&input));
    assert!(err.contains(&located) && err.contains("[null_move, byte 32]"), "{err}");
    assert!(err.contains("  2 unevaluated\n") && err.contains("  1 written as read\n"), "{err}");
    assert!(err.contains("1 with errors") && err.contains("errors: null_move 1\n"), "{err}");
    assert!(err.contains("warnings: null_move 1\n"), "the variation's: {err}");
    assert_eq!(std::fs::read_to_string(&out).expect("out").trim(), text.trim());
}

/// A tag named twice is written once, its first value, as `clean` writes it and the replay and
/// the JSON Lines records read it.
#[test]
fn a_tag_named_twice_is_annotated_once() {
    let text = "[Event \"d\"]\n[White \"A\"]\n[White \"Z\"]\n[Result \"*\"]\n\n1. e4 e5 *\n";
    let (_, _, written) = annotate_one("duplicate-tag", text);
    assert_eq!(written.matches("[White ").count(), 1, "{written}");
    assert!(written.contains("[White \"A\"]\n"), "{written}");
}

/// Games whose only errors are in variations are analysed like any other: annotated the same
/// with no cache, from a cache a part of the run filled (as a killed run leaves it), and from a
/// warm one, which then holds every position not decided by the rules; the output reads with no
/// error.
#[test]
fn a_game_cut_in_a_variation_is_annotated_the_same_after_a_resume() {
    let dir = temp_dir("annotate-cut");
    let cut = "[Event \"v\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 \
        (2. Bc4 Nf6 3. Nf9 {why} (3. d3) Nc6) (2. f4 $1) 2... Nc6 3. Bb5 a6 1-0\n\n";
    let whole = "[Event \"w\"]\n[Result \"*\"]\n\n{ x } (1. d4) 1. e4 e5 (1... Qxh7 2. d4) 2. Nf3 *\n";
    let games = std::fs::read_to_string(fixture("pgn/lichess_db_10k.pgn")).expect("fixture");
    let (part, all) = (dir.join("part.pgn"), dir.join("all.pgn"));
    std::fs::write(&part, cut).expect("write");
    std::fs::write(&all, format!("{cut}{games}\n{whole}")).expect("write");
    let cache = dir.join("cache.sqlite");
    let annotate = |input: &Path, out: &str, cache: &[&str]| {
        let out = dir.join(out);
        let args =
            [&["annotate", "--nodes", "500", "--engines", "2", "-o", path(&out)][..], cache, &[path(input)]];
        let o = run(&args.concat());
        assert_eq!(o.status.code(), Some(1), "the games' errors: {}", stderr(&o));
        (std::fs::read_to_string(out).expect("output"), stderr(&o))
    };
    let (fresh, err) = annotate(&all, "fresh.pgn", &["--no-cache"]);
    assert!(err.contains(" 7 games, 5 valid, 2 with errors, ") && err.contains("\n  7 annotated\n"), "{err}");
    assert!(fresh.contains("{ pgnkit: invalid_move; not replayed: Nf9 {why (3. d3) Nc6 }"), "{fresh}");
    let count = |err: &str, what: &str| {
        let suffix = format!(" {what}");
        err.lines().find_map(|l| l.strip_suffix(&suffix)?.trim().parse::<u64>().ok()).unwrap_or(0)
    };
    let (_, err) = annotate(&part, "part-out.pgn", &["--cache", path(&cache)]);
    assert_eq!(count(&err, "positions"), 7, "{err}");
    let (resumed, err) = annotate(&all, "resumed.pgn", &["--cache", path(&cache)]);
    assert!(count(&err, "cache hits") >= 7, "the part's positions come from the cache: {err}");
    assert!(fresh == resumed, "a resumed run differs");
    let (warm, err) = annotate(&all, "warm.pgn", &["--cache", path(&cache)]);
    let looked_up = count(&err, "positions") - count(&err, "from rules");
    assert!(looked_up > 7 && looked_up == count(&err, "cache hits"), "{err}");
    assert!(fresh == warm, "a warm cache changes the output");
    let o = run(&["check", "--strict-san", path(&dir.join("fresh.pgn"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains(" 0 with errors, 0 with warnings only"), "{}", stderr(&o));
}

/// A test suite of `n` lines from a fixture's positions, each a legal position, in turns: a
/// FEN (six fields); an EPD record with the suite's answer (`bm`, the game's next move), stale
/// analysis (`ce`, `acd`, `pv`) and its own clocks, id and comment; one with an `am` alone; one
/// with no answer.
pub(crate) fn epd_suite(n: usize) -> String {
    let fixture = path(&fixture("pgn/lichess_db_10k.pgn")).to_string();
    let epd = run(&["positions", "-q", "--format", "epd", &fixture]);
    let fen = run(&["positions", "-q", "--format", "fen", &fixture]);
    let (epd, fen) =
        (String::from_utf8(epd.stdout).expect("UTF-8"), String::from_utf8(fen.stdout).expect("UTF-8"));
    let mut suite = String::new();
    // Lines with a next move only (`c0`), so that each has a legal answer.
    let lines = epd
        .lines()
        .zip(fen.lines())
        .filter_map(|(e, f)| Some((e, f, e.split("c0 \"").nth(1)?.strip_suffix("\";")?)));
    for (i, (epd, fen, next)) in lines.take(n).enumerate() {
        let four = epd.split(" hmvc").next().expect("four fields");
        let line = match i % 4 {
            0 => fen.to_string(),
            1 => format!("{epd} bm {next}; ce 7; acd 1; pv {next}; c9 \"a; b\";"),
            2 => format!("{four} am {next}; id \"am.{i}\";"),
            _ => format!("{four} id \"plain.{i}\";"),
        };
        suite.push_str(&line);
        suite.push('\n');
    }
    suite
}

/// For each pair of lines read and written, what python-chess's `Board.set_epd` makes of them
/// (a FEN read as a board): the same position and clocks, every operation but the analysis
/// kept, `bm` the suite's or, on a line without an answer, the first move of `pv`.
const EPD_CHECK: &str = r#"
import sys, chess
ANALYSIS = {"ce", "acd", "acn", "acs", "pv", "dm"}
read = open(sys.argv[1]).read().splitlines()
written = open(sys.argv[2]).read().splitlines()
assert len(read) == len(written), (len(read), len(written))
for a, b in zip(read, written):
    ia = chess.Board()
    if ";" in a:
        oa = ia.set_epd(a)
    else:
        ia, oa = chess.Board(a), {}
    ib = chess.Board()
    ob = ib.set_epd(b)
    fail = lambda why: print("differs:", why, "|", a, "|", b)
    if ib.fen() != ia.fen():
        fail("position or clocks")
    for op, value in oa.items():
        if op not in ANALYSIS and ob.get(op) != value:
            fail(op)
    if ";" not in a and (ob.get("hmvc"), ob.get("fmvn")) != (ia.halfmove_clock, ia.fullmove_number):
        fail("hmvc/fmvn")
    if not all(op in ob for op in ("acd", "acn", "acs", "ce", "pv")) or ob.get("acd") == 1:
        fail("analysis")
    answered = "bm" in oa or "am" in oa
    if (ob.get("bm") != oa.get("bm")) if answered else (ob.get("bm") != ob["pv"][:1]):
        fail("bm")
print("lines", len(read))
"#;

/// `--format epd` on a test suite: python-chess reads back every operation of the suite, its
/// answers unchanged, the FENs' clocks, and this run's analysis.
#[test]
fn annotate_epd_keeps_a_suite_as_python_chess_reads_it() {
    if python_chess_missing() {
        return;
    }
    let dir = temp_dir("annotate-epd-suite");
    let (input, out) = (dir.join("suite.epd"), dir.join("out.epd"));
    std::fs::write(&input, epd_suite(40)).expect("write");
    let args =
        ["annotate", "-q", "--no-cache", "--format", "epd", "--depth", "2", "-o", path(&out), path(&input)];
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o =
        Command::new("python3").args(["-c", EPD_CHECK, path(&input), path(&out)]).output().expect("python3");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "lines 40\n");
}

/// An input with no EPD or FEN line (a PGN file) is one error quoting its first line, exit 65,
/// no output, and the other inputs of the run are read; an EPD file whose first lines are bad
/// keeps one error a line, in order, and its output; one of comments only is no error.
#[test]
fn annotate_epd_of_an_input_that_is_not_epd_is_one_error() {
    let dir = temp_dir("annotate-not-epd");
    let pgn = fixture("pgn/lichess_db_10k.pgn");
    let first =
        std::fs::read_to_string(&pgn).expect("read").lines().next().expect("a line").replace('"', "\\\"");
    let out = dir.join("out.epd");
    let args = ["annotate", "--no-cache", "--format", "epd", "--depth", "1", "-o", path(&out)];
    let o = run(&[&args[..], &[path(&pgn)]].concat());
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(65), "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("pgnkit: error: ")).collect();
    let refusal = |input: &str| {
        format!("pgnkit: error: {input}: not EPD: no EPD record and no FEN in it; line 1 reads \"{first}\"")
    };
    assert_eq!(errors, [refusal(path(&pgn))], "{err}");
    assert!(!out.exists(), "{err}");
    assert!(err.contains(&format!("an input failed (above), so {} was not written", path(&out))), "{err}");
    let suite = dir.join("suite.epd");
    std::fs::write(&suite, epd_suite(2)).expect("write");
    let stdout_args = ["annotate", "-q", "--no-cache", "--format", "epd", "--depth", "1"];
    let o = run(&[&stdout_args[..], &[path(&pgn), path(&suite)]].concat());
    assert_eq!(o.status.code(), Some(65), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().collect::<Vec<_>>(), [refusal(path(&pgn))]);
    assert_eq!(stdout(&o).lines().count(), 2, "the other input's lines: {}", stdout(&o));
    let comments = dir.join("comments.epd");
    std::fs::write(&comments, "# a suite to come\n\n#\n").expect("write");
    let o = run(&[&stdout_args[..], &[path(&comments)]].concat());
    assert_eq!(
        (o.status.code(), stdout(&o)),
        (Some(0), "# a suite to come\n\n#\n".to_string()),
        "{}",
        stderr(&o)
    );
    let input = dir.join("bad-first.epd");
    std::fs::write(&input, format!("[Event \"x\"]\n\n1. e4 *\n{}", epd_suite(3))).expect("write");
    let o = run(&[&args[..], &[path(&input)]].concat());
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let bad: Vec<&str> = err.lines().filter(|l| l.starts_with("pgnkit: ")).collect();
    assert_eq!(bad.len(), 2, "{err}");
    assert!(
        bad[0].contains("bad-first.epd:1:1: error: game 1 ")
            && bad[1].contains("bad-first.epd:3:1: error: game 3 "),
        "{err}"
    );
    let written = std::fs::read_to_string(&out).expect("output");
    assert!(written.starts_with("[Event \"x\"]\n\n1. e4 *\n") && written.lines().count() == 6, "{written}");
}

/// An engine's arguments are part of its identity in the cache (lc0's `--weights` changes its
/// evaluations, not its `id name`): the same program with other arguments reads none of the
/// first one's rows; with the same arguments it reads all of them.
#[test]
fn an_engines_arguments_separate_its_cache_entries() {
    let dir = temp_dir("annotate-engine-args");
    let cache = dir.join("cache.sqlite");
    let exe = env!("CARGO_BIN_EXE_pgnkit");
    let annotate = |script: &str| {
        let out = dir.join("out.pgn");
        let o = run(&[
            "annotate",
            "--engines",
            "1",
            "--nodes",
            "200",
            "--cache",
            path(&cache),
            "--engine",
            "/bin/sh",
            "--engine-arg",
            "-c",
            "--engine-arg",
            script,
            "-o",
            path(&out),
            path(&fixture("pgn/lichess_db_10k.pgn")),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let err = stderr(&o);
        let count = |what: &str| {
            let suffix = format!(" {what}");
            err.lines().find_map(|l| l.strip_suffix(&suffix)?.trim().parse::<u64>().ok()).unwrap_or(0)
        };
        (count("positions") - count("from rules"), count("cache hits"))
    };
    // The first run's hits are positions the collection repeats (one engine: the same each run).
    let (looked_up, hits) = annotate(&format!("exec {exe} uci"));
    assert!(looked_up > 10 * hits.max(1), "{looked_up} {hits}");
    assert_eq!(annotate(&format!("exec {exe} uci # another net")), (looked_up, hits));
    assert_eq!(annotate(&format!("exec {exe} uci")), (looked_up, looked_up));
}

/// Options the run would ignore are refused (exit 2), each named, before any input is read:
/// an engine's and its search's under --from-evals, which runs none, and the PGN output's under
/// the other formats.
#[test]
fn options_the_run_would_ignore_are_usage_errors() {
    let input = fixture("pgn/bad_games.pgn");
    let refused: &[(&[&str], &[&str])] = &[
        (&["--from-evals", "--engine", "/nonexistent", "--movetime", "5"], &["--engine, --movetime"]),
        (
            &["--from-evals", "--engine", "/usr/games/stockfish", "--nodes", "5", "--depth", "3"],
            &["--engine, --nodes, --depth"],
        ),
        (&["--from-evals", "--engine-option", "Threads=2"], &["--engine-option"]),
        (
            &["--from-evals", "--engine-arg", "x", "--engine-timeout", "1"],
            &["--engine-arg, --engine-timeout"],
        ),
        (
            &["--from-evals", "--hash", "16", "--keep-hash", "--engines", "2"],
            &["--engines, --hash, --keep-hash", "-j sets its threads"],
        ),
        (&["--from-evals", "--cache", "c.sqlite", "--variations", "mistakes"], &["--cache, --variations"]),
        (
            &["--format", "jsonl", "--variations", "all"],
            &["--format jsonl writes no PGN: --variations, which shapes PGN output,"],
        ),
        (&["--format", "jsonl", "--add-tags"], &["--format jsonl writes no PGN: --add-tags,"]),
        (
            &["--format", "epd", "--add-tags", "--variations", "none"],
            &["--variations and --add-tags, which shape PGN output,"],
        ),
        (&["--format", "parquet", "--add-tags"], &["--format parquet writes no PGN"]),
    ];
    for (options, said) in refused {
        let mut args = vec!["annotate", "-q", "-o", "/nonexistent/out"];
        args.extend_from_slice(options);
        args.push(path(&input));
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{options:?}: {}", stderr(&o));
        for s in *said {
            assert!(stderr(&o).contains(s), "{options:?}: {}", stderr(&o));
        }
    }
    // What --from-evals uses, and the PGN output's options with --format pgn, stay accepted.
    let dir = temp_dir("annotate-ignored");
    let out = dir.join("out.pgn");
    for options in [
        &["--from-evals", "--engine", "builtin", "--add-tags", "-j", "1"][..],
        &["--format", "pgn", "--variations", "all", "--add-tags", "--nodes", "10"],
    ] {
        let mut args = vec!["annotate", "-q", "--no-cache", "-o", path(&out)];
        args.extend_from_slice(options);
        args.push(path(&input));
        let o = run(&args);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{options:?}: {}", stderr(&o));
    }
}

/// `--format epd` reads lines of positions, not games: a game filter would hold for no line
/// (`--where` even warned that it held for none while every line was analysed), so each is
/// refused by name (exit 2) before the input is read.
#[test]
fn game_filters_are_refused_for_lines_of_positions() {
    let dir = temp_dir("annotate-epd-filters");
    let input = dir.join("three.epd");
    std::fs::write(&input, epd_suite(3)).expect("write");
    let refused: &[(&[&str], &str)] = &[
        (&["--where", "Elo > 1"], "the game filters --where cannot"),
        (&["--eco", "A00", "--invert"], "the game filters --eco, --invert cannot"),
        (&["--min-ply", "5", "--result", "1-0"], "the game filters --result, --min-ply cannot"),
        (&["--variant", "chess960", "--material", "KQ"], "the game filters --variant, --material cannot"),
    ];
    for (options, said) in refused {
        let mut args = vec!["annotate", "-q", "--no-cache", "--nodes", "50", "--format", "epd"];
        args.extend_from_slice(options);
        args.push(path(&input));
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{options:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(said), "{options:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{options:?}");
    }
    let o = run(&["annotate", "-q", "--no-cache", "--nodes", "50", "--format", "epd", path(&input)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// A --cache file that is no SQLite database is data in the wrong form (65), named with what
/// SQLite says; a cache that cannot be opened for I/O reasons (a directory) stays an I/O error.
#[test]
fn a_cache_that_is_no_database_is_a_data_error() {
    let dir = temp_dir("annotate-cache-garbage");
    let input = fixture("pgn/lichess_db_10k.pgn");
    let (garbage, out) = (dir.join("nd.sqlite"), dir.join("o.pgn"));
    std::fs::write(&garbage, "garbage\n").expect("write");
    let o =
        run(&["annotate", "-q", "--nodes", "300", "--cache", path(&garbage), "-o", path(&out), path(&input)]);
    assert_eq!(o.status.code(), Some(65), "{}", stderr(&o));
    let said = format!("cannot open the evaluation cache {}: file is not a database", garbage.display());
    assert!(stderr(&o).contains(&said), "{}", stderr(&o));
    assert!(!out.exists());
    let o = run(&["annotate", "-q", "--nodes", "300", "--cache", path(&dir), "-o", path(&out), path(&input)]);
    assert_eq!(o.status.code(), Some(74), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot open the evaluation cache"), "{}", stderr(&o));
}

/// A cache of a few analyses, for `cache merge` to add.
fn small_cache(dir: &Path) -> PathBuf {
    let (cache, out) = (dir.join("src.sqlite"), dir.join("o.pgn"));
    let input = fixture("pgn/lichess_db_10k.pgn");
    let o = run(&[
        "annotate",
        "-q",
        "--nodes",
        "50",
        "--max-ply",
        "40",
        "--cache",
        path(&cache),
        "-o",
        path(&out),
        path(&input),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    cache
}

/// `cache merge -o -`: `-` is stdout, which cannot hold an SQLite database, so it is a usage
/// error (exit 2), and no file named `-` appears.
#[test]
fn cache_merge_to_stdout_is_refused() {
    let dir = temp_dir("cache-merge-stdout");
    let cache = small_cache(&dir);
    let o =
        pgnkit().current_dir(&dir).args(["cache", "merge", path(&cache), "-o", "-"]).output().expect("run");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("stdout (-o -) cannot hold"), "{}", stderr(&o));
    assert!(!dir.join("-").exists(), "a file named - was written");
}

/// A directory given as a cache to add is said to be one (exit 66), not a missing file.
#[test]
fn cache_merge_names_a_directory_given_as_a_cache() {
    let dir = temp_dir("cache-merge-a-dir");
    let o = run(&["cache", "merge", path(&dir), "-o", path(&dir.join("all.sqlite"))]);
    assert_eq!(o.status.code(), Some(66), "{}", stderr(&o));
    assert!(stderr(&o).contains(": is a directory, not a cache file"), "{}", stderr(&o));
    assert!(!dir.join("all.sqlite").exists());
}

/// The analyses the cache file holds.
fn cache_rows(cache: &Path) -> i64 {
    let conn = rusqlite::Connection::open(cache).expect("open");
    conn.query_row("SELECT count(*) FROM evals", [], |r| r.get(0)).expect("count")
}

/// `cache merge -o` creates the file's missing directories, as `annotate --cache` does; an output
/// that cannot be created (a file where its directory should be) is exit 73, as for every job.
#[test]
fn cache_merge_creates_the_directory_of_its_output() {
    let dir = temp_dir("cache-merge-dir");
    let cache = small_cache(&dir);
    let merged = dir.join("new/deeper/all.sqlite");
    let o = run(&["cache", "merge", "-q", path(&cache), "-o", path(&merged)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(cache_rows(&cache) > 0);
    assert_eq!(cache_rows(&merged), cache_rows(&cache));
    std::fs::write(dir.join("plain"), "a file\n").expect("write");
    for under in ["plain/all.sqlite", "plain/sub/all.sqlite"] {
        let o = run(&["cache", "merge", "-q", path(&cache), "-o", path(&dir.join(under))]);
        assert_eq!(o.status.code(), Some(73), "{under}: {}", stderr(&o));
    }
}

/// The judgement sentences pgnkit and lichess write.
const JUDGEMENTS: [&str; 5] = [
    "Inaccuracy.",
    "Mistake.",
    "Blunder.",
    "Checkmate is now unavoidable.",
    "Lost forced checkmate sequence.",
];

#[test]
fn from_evals_replaces_lichess_judgements_and_keeps_their_lines() {
    let dir = temp_dir("annotate-lichess-judged");
    let input = fixture("pgn/notnil-chess__0005.pgn");
    let read = |p: &Path| std::fs::read_to_string(p).expect("output");
    let (once, twice) = (dir.join("once.pgn"), dir.join("twice.pgn"));
    annotate(&input, &once, &["--from-evals"]);
    let text = read(&once);
    // lichess judged 15 moves, as pgnkit does (`(-0.25 → 0.39) Inaccuracy. cxd4 was best.`).
    let judgements: usize = JUDGEMENTS.iter().map(|j| text.matches(j).count()).sum();
    assert_eq!(judgements, 15, "{text}");
    assert!(!text.contains('→'), "{text}");
    // No engine: lichess's best move and line stay.
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("4... Bg7 $6 { [%eval 0.39] [%clk 0:05:05] } { Inaccuracy. cxd4 was best. } (4... cxd4 5. Nxd4 Bg7"), "{flat}");
    // A variation opens with its move number (`(4... cxd4`), lichess's comment with evals.
    let variations = |t: &str| {
        let starts = t.split('(').skip(1).map(|v| v.trim_start_matches(|c: char| c.is_ascii_digit()));
        starts.filter(|v| v.starts_with(". ") || v.starts_with("... ")).count()
    };
    assert_eq!(variations(&text), variations(&read(&input)));
    // pgnkit's own judgements are replaced the same way.
    annotate(&once, &twice, &["--from-evals"]);
    assert_eq!(read(&twice), text);
}

/// For each mainline move of the game in argv[1] (the input) and argv[2] (annotate's output):
/// `ok` when the output's variations are the input's, lichess's line (the first variation after a
/// judgement comment, starting with the move it named best) replaced by at most one, else what
/// differs; then how many lines were replaced and how many other variations kept.
const LINES: &str = r#"
import re, sys, chess.pgn
def game(path):
    with open(path) as f:
        return chess.pgn.read_game(f)
def lines(node):
    return [" ".join(m.uci() for m in v.mainline_moves()) for v in node.variations[1:]]
source, out = game(sys.argv[1]), game(sys.argv[2])
replaced = kept = 0
for a, b in zip(source.mainline(), out.mainline()):
    assert a.move == b.move
    theirs, ours = lines(a.parent), lines(b.parent)
    best = re.search(r"(\S+) was best\.", a.comment)
    first = a.parent.variations[1:2]
    lichess = None
    if best and first and first[0].san() == best.group(1):
        lichess, theirs = theirs[0], theirs[1:]
    kept += len(theirs)
    if ours[len(ours) - len(theirs):] != theirs or len(ours) > len(theirs) + 1:
        print(a.san(), theirs, ours)
    elif lichess and len(ours) > len(theirs) and ours[0] != lichess:
        replaced += 1
    if sum(b.comment.count(j) for j in ["Inaccuracy.", "Mistake.", "Blunder."]) > 1:
        print("two judgements", b.san(), b.comment)
print("replaced", replaced, "kept", kept)
"#;

#[test]
fn the_engines_line_replaces_lichess_line_and_keeps_others() {
    if python_chess_missing() {
        return;
    }
    let dir = temp_dir("annotate-lichess-lines");
    let text = std::fs::read_to_string(fixture("pgn/notnil-chess__0005.pgn")).expect("fixture");
    // A variation of someone else's after lichess's line, and one first after a judgement that
    // names another best move.
    let lichess = "(4... cxd4 5. Nxd4 Bg7 6. Be3 Nf6 7. Nc3 a6 8. Be2 d5 9. exd5)";
    assert!(text.contains(lichess) && text.contains("(13... Ne7)"));
    let text = text
        .replace(lichess, &format!("{lichess} (4... Qb6 5. Nc3)"))
        .replace("(13... Ne7)", "(13... Nf6 14. Rxc6)");
    let (input, out) = (dir.join("in.pgn"), dir.join("out.pgn"));
    std::fs::write(&input, &text).expect("input");
    annotate(&input, &out, &["--no-cache", "--variations", "all"]);
    let o = Command::new("python3").args(["-c", LINES, path(&input), path(&out)]).output().expect("python3");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let seen = String::from_utf8_lossy(&o.stdout).into_owned();
    let last = seen.lines().last().unwrap_or_default().to_string();
    assert!(seen.lines().count() == 1 && last.starts_with("replaced "), "{seen}");
    let counts: Vec<usize> = last.split(' ').filter_map(|w| w.parse().ok()).collect();
    assert!(counts[0] > 5 && counts[1] == 2, "{seen}");
    let written = std::fs::read_to_string(&out).expect("output");
    assert!(!written.contains('→'), "{written}");
}

/// A `--hash` the machine cannot give the built-in engine is an error that names it (the engine
/// did not start: 69), where the allocation aborted the process.
#[test]
fn a_hash_table_too_large_to_allocate_is_an_engine_error() {
    let input = fixture("pgn/lichess_db_10k.pgn");
    let o = run(&["annotate", "-q", "--depth", "1", "--hash", "100000000", path(&input), "-o", "/dev/null"]);
    assert_eq!(o.status.code(), Some(69), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("error: the built-in engine cannot allocate its 100000000 MB hash table (--hash)"),
        "{err}"
    );
    assert!(!err.contains("memory allocation of"), "{err}");
}

/// Annotating an annotated file gives what annotating its clean games gives, at another budget
/// too: a judgement this run does not make again goes with the engine's line written after it,
/// and the games' own variations stay.
#[test]
fn annotating_an_annotated_file_again_gives_the_clean_games_annotation() {
    let dir = temp_dir("annotate-again");
    let input = dir.join("in.pgn");
    let own = "[Event \"own\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 (2. Bc4 Nf6) 2... Nc6 (2... d6 3. d4) 3. Bb5 a6 *\n";
    let games = std::fs::read_to_string(fixture("pgn/lichess_db_10k.pgn")).expect("fixture");
    std::fs::write(&input, format!("{games}\n{own}")).expect("write");
    let annotate = |input: &Path, out: &str, nodes: &str, format: &str| {
        let out = dir.join(out);
        let o = run(&[
            "annotate",
            "-q",
            "--no-cache",
            "--nodes",
            nodes,
            "--format",
            format,
            "-o",
            path(&out),
            path(input),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        std::fs::read_to_string(out).expect("output")
    };
    let first = annotate(&input, "first.pgn", "2000", "pgn");
    let again = annotate(&dir.join("first.pgn"), "again.pgn", "500", "pgn");
    let fresh = annotate(&input, "fresh.pgn", "500", "pgn");
    assert!(first.contains(" was best. } ("), "the first run wrote lines: {first}");
    assert!(again == fresh, "annotated again:\n{again}\nannotated from the clean games:\n{fresh}");
    let flat = fresh.replace('\n', " ");
    assert!(flat.contains(" (2. Bc4 Nf6) ") && flat.contains(" (2... d6 3. d4) "), "{fresh}");
    // The moves the first run judged and the second does not, whose lines had to go.
    let judged = |jsonl: &str| -> Vec<(u64, u64)> {
        let records = jsonl.lines().map(|l| serde_json::from_str::<Value>(l).expect("JSON"));
        let judged = records.filter(|r| !r["data"]["judgement"].is_null());
        judged
            .map(|r| (r["data"]["game"].as_u64().expect("game"), r["data"]["ply"].as_u64().expect("ply")))
            .collect()
    };
    let (before, after) = (
        judged(&annotate(&input, "first.jsonl", "2000", "jsonl")),
        judged(&annotate(&input, "fresh.jsonl", "500", "jsonl")),
    );
    let dropped = before.iter().filter(|j| !after.contains(j)).count();
    assert!(dropped > 0, "no judgement of the first run was dropped: {before:?} {after:?}");
}
