//! `pgnkit annotate` with external engines: the fake engine's faults (no game lost, the right
//! diagnostics and exit code), a run killed with SIGKILL and resumed from the cache (byte-identical
//! output, `go` sent only for what the cache lacked), a hang found in seconds once the engine has
//! shown its pace, Stockfish at a fixed node budget (the same output at one and two engines), and
//! Stockfish at depth 18 on sharp positions, never taken for hung.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use pgnkit::engine::client::{MULTIPLE, Timeouts, WARM_UP};
use pgnkit::jobs::annotate::analyse::CRASH_STREAK;

use crate::fake;
use crate::scratch::{Scratch, scratch};
use crate::signal::sigint_default;
use crate::stockfish::STOCKFISH;
use crate::support::{Log, installed};

/// Two short games: 13 moves, 15 mainline positions.
const GAMES: &str = "[Event \"one\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n\n\
    [Event \"two\"]\n[Result \"*\"]\n\n1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 *\n";

fn pgnkit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pgnkit"))
}

/// A directory of its own for one test, removed when it passes.
fn dir(name: &str) -> Scratch {
    scratch(&format!("uci-annotate-{name}"))
}

/// `annotate` arguments that run the fake engine with `modes`.
fn fake_engine(modes: &[&str]) -> Vec<String> {
    let exe = std::env::current_exe().expect("the test binary").display().to_string();
    let mut args = vec!["--engine".to_string(), exe, format!("--engine-arg={}", fake::FLAG)];
    args.extend(modes.iter().map(|m| format!("--engine-arg={m}")));
    args
}

/// Runs `pgnkit annotate ARGS` on `input` and returns its output.
fn annotate(input: &Path, args: &[String]) -> Output {
    pgnkit()
        .arg("annotate")
        .arg("-q")
        .args(args)
        .arg(input)
        .stdin(Stdio::null())
        .output()
        .expect("run pgnkit")
}

fn games(d: &Path) -> PathBuf {
    let input = d.join("games.pgn");
    std::fs::write(&input, GAMES).expect("write input");
    input
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

/// Both games are in the output, in order.
fn both_games(out: &str) {
    let one = out.find("[Event \"one\"]").expect("game one written");
    let two = out.find("[Event \"two\"]").expect("game two written");
    assert!(one < two, "{out}");
}

fn args(list: &[&str], more: Vec<String>) -> Vec<String> {
    list.iter().map(|s| s.to_string()).chain(more).collect()
}

pub fn annotate_crash_restarts_and_loses_nothing() {
    let d = dir("crash");
    let o = annotate(&games(&d), &args(&["--no-cache", "--nodes", "100"], fake_engine(&["crash-at=3"])));
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{err}");
    both_games(&out);
    assert_eq!(out.matches("[%eval ").count(), 13, "every move evaluated: {out}");
    assert!(err.contains("engine_warning") && err.contains("restarted"), "{err}");
    assert!(err.contains("game 1") && err.contains("ply "), "located: {err}");
    // A restart is a warning of its game, counted with it: one engine crashes at every third
    // search, in both games.
    let more = args(
        &["--no-cache", "--nodes", "100", "--engines", "1", "--format", "jsonl"],
        fake_engine(&["crash-at=3"]),
    );
    let s = summary(&annotate(&games(&d), &more).stdout);
    assert_eq!(game_counts(&s), [2, 2, 0, 2], "{s}");
}

pub fn annotate_position_that_always_crashes_is_unevaluated() {
    let d = dir("always-crash");
    let o = annotate(&games(&d), &args(&["--no-cache", "--nodes", "100"], fake_engine(&["crash-at=1"])));
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{err}");
    both_games(&out);
    assert!(out.contains("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *"), "written without evals: {out}");
    assert_eq!(err.matches("[unevaluated,").count(), 15, "{err}");
    assert!(
        err.contains("game 2 (? - ?): ply 7: the position after ply 7 was left without an evaluation"),
        "{err}"
    );
    // The summary says why.
    let more = args(&["--no-cache", "--nodes", "100", "--format", "jsonl"], fake_engine(&["crash-at=1"]));
    let o = annotate(&games(&d), &more);
    let s = summary(&o.stdout);
    assert_eq!(
        (&s["unevaluated"], &s["crashed"], &s["timed_out"]),
        (&15.into(), &15.into(), &0.into()),
        "{s}"
    );
    // A game with a position left unevaluated is a game with errors, as the diagnostics say.
    assert_eq!(game_counts(&s), [2, 0, 2, 0], "{s}");
}

/// Scores no engine can mean are protocol errors of their positions: `cp -2147483648` (negated
/// for Black's view it would wrap to itself) and `mate 0` (mated, where moves exist); the game,
/// no position of it evaluated, is written as read with no Annotator tag.
pub fn annotate_nonsense_scores_are_unevaluated() {
    let d = dir("nonsense-scores");
    let input = d.join("one.pgn");
    let game = "[Event \"one\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 *\n";
    std::fs::write(&input, game).expect("write");
    for (score, why) in [
        ("cp -2147483648", "score cp -2147483648 is out of range"),
        ("mate -2147483648", "score mate -2147483648 is out of range"),
        ("mate 0", "score mate 0 (mated) in a position that has legal moves"),
    ] {
        let mode = format!("score={score}");
        let o = annotate(&input, &args(&["--no-cache", "--nodes", "100"], fake_engine(&[&mode])));
        let (out, err) = (text(&o.stdout), text(&o.stderr));
        assert_eq!(o.status.code(), Some(1), "{score}: {err}");
        assert_eq!(out, format!("{game}\n"), "{score}: as read");
        assert_eq!(err.matches("[unevaluated,").count(), 4, "{score}: {err}");
        assert!(err.contains(&format!("engine protocol error: {why}")), "{score}: {err}");
    }
}

/// An engine that answers five searches and then crashes on every one (as a build that loads
/// its network only to search does from the first) stops the run once it crashed at every try on
/// CRASH_STREAK positions in a row, exit 69, no output, and what it found kept in the cache for
/// the same command to resume from.
pub fn annotate_engine_that_crashes_on_every_search_stops_the_run() {
    let d = dir("crashes-everywhere");
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pgn/lichess_db_10k.pgn");
    let (cache, out, modes) = (d.join("cache.sqlite"), d.join("out.pgn"), d.join("modes"));
    // The fake engine behind a shell that reads its modes from a file: the arguments, which the
    // cache's engine key holds, stay the same when the modes change.
    let log = Log::new();
    let exe = std::env::current_exe().expect("the test binary");
    let shell =
        format!("exec '{}' {} {} $(cat '{}')", exe.display(), fake::FLAG, log.mode(), modes.display());
    let run = |cache: &Path| {
        let mut a = args(
            &["--nodes", "100", "--engines", "1", "--format", "jsonl", "--engine", "/bin/sh"],
            Vec::new(),
        );
        a.extend(["--engine-arg=-c".into(), format!("--engine-arg={shell}"), "--cache".into()]);
        a.extend([cache.display().to_string(), "-o".into(), out.display().to_string()]);
        annotate(&input, &a)
    };
    std::fs::write(&modes, "crash-from=6").expect("write");
    let started = Instant::now();
    let o = run(&cache);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(69), "{err}");
    let streak = CRASH_STREAK as usize;
    let stop = format!(
        "pgnkit: error: the engine crashed at every try or hung on each of the last {streak} positions: it \
         cannot be used\npgnkit: the evaluations so far are in {}: once the engine works, the same command resumes \
         from them\n",
        cache.display()
    );
    assert!(err.ends_with(&stop), "{err}");
    // Each position tried three times (two retries), and no more positions.
    assert_eq!(gos(&log), 5 + 3 * streak);
    assert!(!out.exists(), "no output");
    assert!(started.elapsed() < Duration::from_secs(60), "{:?}", started.elapsed());
    // The five evaluations are what the same command, the engine working, does not ask for.
    std::fs::write(&modes, "").expect("write");
    let analysed = |cache: &Path| {
        let o = run(cache);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        summary(&std::fs::read(&out).expect("output"))["analysed"].as_u64().expect("analysed")
    };
    assert_eq!(analysed(&cache) + 5, analysed(&d.join("cold.sqlite")));
    // --help states the rule.
    let o = pgnkit().args(["annotate", "--help"]).output().expect("run pgnkit");
    let help = text(&o.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains(&format!("every try or hung on {streak} positions in a row")), "{help}");
}

/// An engine that hangs on every search (each restarted one too) stops the run once it hung on
/// CRASH_STREAK positions in a row, exit 69, instead of costing its deadline on every position.
pub fn annotate_engine_that_hangs_on_every_search_stops_the_run() {
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pgn/lichess_db_10k.pgn");
    let more = fake_engine(&["hang-at=1"]);
    let a = ["--no-cache", "--nodes", "100", "--engines", "1", "--engine-timeout", "1", "--format", "jsonl"];
    let o = annotate(&input, &args(&a, more));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(69), "{err}");
    let streak = CRASH_STREAK as usize;
    let stop = format!(
        "pgnkit: error: the engine crashed at every try or hung on each of the last {streak} positions: it \
         cannot be used\n"
    );
    assert!(err.contains(&stop), "{err}");
    assert!(o.stdout.is_empty(), "no output");
}

pub fn annotate_hang_is_killed_and_the_run_goes_on() {
    let d = dir("hang");
    let input = d.join("one.pgn");
    std::fs::write(&input, "[Event \"one\"]\n\n1. e4 e5 2. Nf3 *\n").expect("write");
    let more = fake_engine(&["hang-at=3"]);
    let o = annotate(&input, &args(&["--no-cache", "--nodes", "100", "--engine-timeout", "1"], more));
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(out.contains("[Event \"one\"]") && out.contains("2. Nf3"), "{out}");
    assert_eq!(err.matches("[unevaluated,").count(), 1, "the third position: {err}");
    assert!(err.contains("ply 2") && err.contains("timed out"), "{err}");
    assert_eq!(out.matches("[%eval ").count(), 2, "the other positions: {out}");
    // Positions as EPD: the same, and the summary says why.
    let input = d.join("three.epd");
    let fens = ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", "8/8/8/4k3/8/8/4K3/7Q w - -"];
    std::fs::write(&input, format!("{}\n{}\n{}\n", fens[0], fens[1], fens[0])).expect("write");
    let more = fake_engine(&["hang-at=2"]);
    let epd = ["--no-cache", "--nodes", "100", "--engine-timeout", "1", "--format", "epd", "--engines", "1"];
    let o = pgnkit().arg("annotate").args(args(&epd, more)).arg(&input).output().expect("run pgnkit");
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(out.lines().filter(|l| l.contains(" acd 1;")).count(), 2, "{out}");
    assert!(
        err.contains(":2:1: error: game 2 (? - ?): left without an evaluation: engine timed out: "),
        "{err}"
    );
    assert!(err.contains("pgnkit annotate: 3 lines, 2 valid, 1 with errors, 0 with warnings only;"), "{err}");
    let summary =
        "unevaluated positions: 1 the engine hung or timed out on, 0 it crashed on at every try, 0 other";
    assert!(err.contains("\n  3 positions\n") && err.contains(summary), "{err}");
}

/// A line of engine output over the client's bound is skipped whole and said (its rest reads
/// `bestmove 0000`, never taken for one); one without end is read through within the bound until
/// the search's deadline, and the position's error says why: the run goes on.
pub fn annotate_engine_lines_over_the_bound_are_skipped_and_said() {
    let d = dir("long-line");
    let input = d.join("one.pgn");
    std::fs::write(&input, "[Event \"one\"]\n\n1. e4 e5 2. Nf3 *\n").expect("write");
    let o = annotate(&input, &args(&["--no-cache", "--nodes", "100"], fake_engine(&["long-line"])));
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(out.matches("[%eval ").count(), 3, "{out}");
    let said = "engine output has a line longer than 65536 bytes, skipped; it starts \"xxx";
    assert_eq!(err.matches(said).count(), 4, "one a position, the start's too: {err}");
    let more = fake_engine(&["endless-line=3"]);
    let o = annotate(&input, &args(&["--no-cache", "--nodes", "100", "--engine-timeout", "1"], more));
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.matches("[unevaluated,").count(), 1, "the third position: {err}");
    assert!(err.contains("ply 2") && err.contains("timed out") && err.contains(said), "{err}");
    assert_eq!(out.matches("[%eval ").count(), 2, "the other positions: {out}");
}

pub fn annotate_hang_after_the_warm_up_costs_seconds() {
    let d = dir("warm-hang");
    // The eighth search hangs (game two's start position); the seven before set the pace.
    let more = fake_engine(&["hang-at=8"]);
    let started = Instant::now();
    let o = pgnkit()
        .arg("annotate")
        .args(args(&["--no-cache", "--nodes", "100", "--engines", "1"], more))
        .arg(games(&d))
        .stdin(Stdio::null())
        .output()
        .expect("run pgnkit");
    let took = started.elapsed();
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{err}");
    both_games(&out);
    assert_eq!(out.matches("[%eval ").count(), 13, "the hung position is a start position: {out}");
    assert_eq!(err.matches("[unevaluated,").count(), 1, "{err}");
    let hang = "game 2 (? - ?): ply 0: the start position was left without an evaluation: engine \
                timed out: no bestmove within ";
    assert!(err.contains(hang) && err.contains("x its slowest search under this limit"), "{err}");
    // The deadline said is the pace's, not the minute of the default.
    let within: f64 = err
        .split(hang)
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|secs| secs.parse().ok())
        .unwrap_or_else(|| panic!("a deadline in seconds: {err}"));
    assert!(within < Timeouts::default().search.as_secs_f64(), "{within} s: {err}");
    assert!(err.contains("of stop: the engine was killed [unevaluated,"), "{err}");
    assert!(err.contains("\n  1 timed out\n"), "{err}");
    assert!(
        err.contains(
            "pgnkit annotate: unevaluated positions: 1 the engine hung or timed out on, 0 it crashed \
             on at every try, 0 other"
        ),
        "{err}"
    );
    // A watchdog against a hang only: the deadline used is checked above.
    assert!(took < Duration::from_secs(300), "{took:?}");
}

pub fn annotate_engine_timeout_is_checked() {
    let d = dir("engine-timeout");
    let input = games(&d);
    for (extra, message) in [
        (vec!["--engine-timeout", "5"], "--engine-timeout need --engine PATH"),
        (vec!["--engine", "/no/such/engine", "--engine-timeout", "0"], "is not a positive number of seconds"),
        (vec!["--engine", "/no/such/engine", "--engine-timeout", "x"], "is not a positive number of seconds"),
    ] {
        let o = annotate(&input, &args(&extra, Vec::new()));
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", text(&o.stderr));
        assert!(text(&o.stderr).contains(message), "{extra:?}: {}", text(&o.stderr));
    }
    // The rule --help states is the client's.
    let o = pgnkit().args(["annotate", "--help"]).output().expect("run pgnkit");
    let help = text(&o.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    let floor = Timeouts::default().floor.as_secs();
    let rule = format!("{MULTIPLE} times the slowest search so far and at least {floor} s");
    assert!(help.contains(&rule), "{help}");
    assert!(help.contains(&format!("for their first {WARM_UP} searches under the limit")), "{help}");
}

pub fn annotate_garbage_and_illegal_pv_are_warnings() {
    let d = dir("garbage");
    let more = fake_engine(&["garbage", "illegal-pv"]);
    let o = annotate(&games(&d), &args(&["--no-cache", "--nodes", "100"], more));
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{err}");
    both_games(&out);
    assert_eq!(out.matches("[%eval ").count(), 13);
    assert!(err.contains("not UCI") && err.contains("PV cut"), "{err}");
    assert_eq!(err.matches("[engine_warning,").count(), 2 * 15, "two warnings a position: {err}");
}

/// An engine that misbehaves on every position of a long game: its first 100 diagnostics are
/// shown, then one `unreported`; every one is counted.
pub fn annotate_engine_diagnostics_past_a_games_first_100_are_counted() {
    let d = dir("unreported");
    let input = d.join("long.pgn");
    let moves: String = (1..=40).map(|n| format!("{}. Nf3 Nf6 {}. Ng1 Ng8 ", 2 * n - 1, 2 * n)).collect();
    std::fs::write(&input, format!("[Event \"long\"]\n\n{moves}*\n")).expect("write input");
    let more = fake_engine(&["garbage"]);
    let o = annotate(&input, &args(&["--no-cache", "--nodes", "100", "--format", "jsonl"], more));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(err.matches("[engine_warning,").count(), 100, "{err}");
    assert_eq!(err.matches("[unreported,").count(), 1, "{err}");
    assert_eq!(summary(&o.stdout)["warnings"]["engine_warning"], 161, "one a position");
}

/// An option the engine does not have: one warning at the engine's start, shown once however
/// many engines start, and counted in the summary as the warnings of its searches are.
pub fn annotate_engine_startup_warnings_are_shown_once_and_counted() {
    let d = dir("startup-warning");
    let frob = ["--no-cache", "--nodes", "100", "--engines", "2", "--engine-option", "Frob=1"];
    let o = annotate(
        &games(&d),
        &args(&frob, fake_engine(&[]))
            .into_iter()
            .chain(["--format".into(), "jsonl".into()])
            .collect::<Vec<_>>(),
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(err.matches("[engine_warning,").count(), 1, "{err}");
    assert!(err.contains("engine: engine has no option \"Frob\""), "{err}");
    assert_eq!(summary(&o.stdout)["warnings"]["engine_warning"], 1, "{err}");
    // EPD lines: the text summary (not quiet) counts it.
    let epd = d.join("positions.epd");
    std::fs::write(&epd, "8/8/8/8/8/8/8/K1k5 w - - id \"a\";\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"b\";\n")
        .expect("write input");
    let o = pgnkit()
        .args(["annotate", "--format", "epd", "-o"])
        .arg(d.join("out.epd"))
        .args(args(&frob, fake_engine(&[])))
        .arg(&epd)
        .stdin(Stdio::null())
        .output()
        .expect("run pgnkit");
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(err.matches("[engine_warning,").count(), 1, "{err}");
    assert!(err.contains("\n  warnings: engine_warning 1\n"), "{err}");
}

pub fn annotate_engine_that_cannot_start_is_exit_69() {
    let d = dir("start");
    let input = games(&d);
    let o = annotate(&input, &args(&["--engine", "/no/such/engine", "--no-cache"], Vec::new()));
    assert_eq!(o.status.code(), Some(69), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("engine not found"));
    let o = annotate(&input, &args(&["--no-cache", "-o"], vec![d.join("out.pgn").display().to_string()]));
    assert_eq!(o.status.code(), Some(0), "the built-in engine: {}", text(&o.stderr));
    let out = d.join("bad.pgn");
    let more = args(&["--no-cache", "-o", &out.display().to_string()], fake_engine(&["exit-at-uci"]));
    let o = annotate(&input, &more);
    assert_eq!(o.status.code(), Some(69), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("handshake") && !out.exists(), "{}", text(&o.stderr));
}

/// A game the engine cannot play (the fake engine lists no `UCI_Variant`: crazyhouse is refused
/// before anything is sent) is written as read, its Annotator tag its own, and counted so: no
/// position analysed, every one unevaluated; the standard game after it is annotated.
pub fn annotate_variant_the_engine_cannot_play_is_written_as_read() {
    let d = dir("variant");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let crazyhouse =
        std::fs::read_to_string(root.join("fixtures/pgn/python-chess__saturs-jannlee-zh-lichess.pgn"))
            .expect("fixture");
    let input = d.join("games.pgn");
    let standard = "[Event \"standard\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n";
    std::fs::write(&input, format!("{crazyhouse}\n{standard}")).expect("write input");
    let log = Log::new();
    let engine = fake_engine(&[&log.mode()]);
    let o = pgnkit()
        .arg("annotate")
        .args(args(&["--no-cache", "--nodes", "100", "--engines", "1"], engine.clone()))
        .arg(&input)
        .stdin(Stdio::null())
        .output()
        .expect("run pgnkit");
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{err}");
    let (zh, std) = out.split_at(out.find("[Event \"standard\"]").expect("the standard game"));
    assert_eq!(zh, format!("{}\n\n", crazyhouse.trim_end()), "as read");
    assert!(std.contains("[Annotator \"pgnkit ") && std.contains("[%eval "), "{std}");
    assert_eq!(err.matches("[unevaluated,").count(), 1, "{err}");
    assert!(err.contains("engine does not support this variant"), "{err}");
    assert!(err.contains("\n  1 annotated\n") && err.contains("\n  1 written as read\n"), "{err}");
    assert!(err.contains("\n  7 analysed\n") && err.contains("\n  123 unevaluated\n"), "{err}");
    assert_eq!(gos(&log), 7, "the standard game's positions only");
    // The JSON Lines summary says the same, and no record is of the crazyhouse game.
    let more = args(&["--no-cache", "--nodes", "100", "--engines", "1", "--format", "jsonl"], engine);
    let o = annotate(&input, &more);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let s = summary(&o.stdout);
    assert_eq!(
        (&s["positions"], &s["analysed"], &s["unevaluated"]),
        (&130.into(), &7.into(), &123.into()),
        "{s}"
    );
    assert_eq!((&s["counts"]["annotated"], &s["counts"]["written_as_read"]), (&1.into(), &1.into()), "{s}");
    let records = text(&o.stdout).lines().filter(|l| l.contains("\"type\":\"position\"")).count();
    assert_eq!(records, 7, "{}", text(&o.stdout));
}

/// In crazyhouse a captured piece comes back from the pocket: the engine is sent the moves before
/// the last capture too, to see the repetitions that reach across it.
pub fn annotate_crazyhouse_sends_the_moves_before_a_capture() {
    let d = dir("zh-line");
    let input = d.join("zh.pgn");
    std::fs::write(&input, "[Variant \"Crazyhouse\"]\n\n1. e4 d5 2. exd5 Qxd5 3. Nc3 *\n")
        .expect("write input");
    let log = Log::new();
    let o =
        annotate(&input, &args(&["--no-cache", "--nodes", "10"], fake_engine(&[&log.mode(), "variants"])));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let start = "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1";
    let last = format!("{start} moves e2e4 d7d5 e4d5 d8d5 b1c3");
    assert!(log.lines().contains(&last), "{:#?}", log.lines());
}

/// `go` commands in a fake engine's log.
fn gos(log: &Log) -> usize {
    log.lines().iter().filter(|l| l.starts_with("go ")).count()
}

/// The `summary` record of a JSON Lines output.
fn summary(out: &[u8]) -> serde_json::Value {
    let last = text(out).lines().last().expect("a summary").to_string();
    let v: serde_json::Value = serde_json::from_str(&last).expect("JSON");
    assert_eq!(v["type"], "summary");
    v["data"].clone()
}

/// A summary's games, valid games, games with errors and games with warnings only.
fn game_counts(s: &serde_json::Value) -> [u64; 4] {
    ["games", "valid", "with_errors", "with_warnings"].map(|k| s[k].as_u64().expect("a count"))
}

pub fn annotate_killed_and_resumed_is_byte_identical() {
    let d = dir("resume");
    // 262 positions, the fake engine taking 10 ms a `go`: about 1.3 s on two engines.
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pgn/lichess_db_10k.pgn");
    let run = |cache: &Path, out: &Path, log: &Log| {
        let mut a =
            vec!["--format".into(), "jsonl".into(), "--nodes".into(), "100".into(), "--engines".into()];
        a.extend(["2".into(), "--cache".into(), cache.display().to_string(), "-o".into()]);
        a.push(out.display().to_string());
        a.extend(fake_engine(&["slow-go=10", &log.mode()]));
        a
    };
    // Uninterrupted.
    let log = Log::new();
    let full = d.join("full.jsonl");
    let o = annotate(&input, &run(&d.join("full.sqlite"), &full, &log));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let expected = std::fs::read(&full).expect("output");
    let cold = summary(&expected);
    assert_eq!(gos(&log) as u64, cold["analysed"].as_u64().expect("analysed"));
    // Each `go` took the fake engine 10 ms: the time waited on the engines holds them all, and
    // the two engines were busy a share of the wall time no greater than all of it.
    let waited = cold["counts"]["engine_microseconds"].as_u64().expect("engine time");
    assert!(waited >= 10_000 * gos(&log) as u64, "{cold}");
    assert_eq!(cold["engines"], 2);
    let busy = cold["engine_busy"].as_f64().expect("busy share");
    assert!(busy > 0.0 && busy <= 1.0, "{cold}");
    // Killed at several points, each run resuming the last.
    let cache = d.join("killed.sqlite");
    let out = d.join("killed.jsonl");
    for ms in [300, 600, 450] {
        let log = Log::new();
        let mut child = pgnkit()
            .arg("annotate")
            .arg("-q")
            .args(run(&cache, &out, &log))
            .arg(&input)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(Duration::from_millis(ms));
        child.kill().expect("SIGKILL");
        child.wait().expect("wait");
        assert!(!out.exists(), "no output under its final name after a kill");
    }
    let log = Log::new();
    let o = annotate(&input, &run(&cache, &out, &log));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let resumed = std::fs::read(&out).expect("output");
    // The records are the same; the summaries differ only in time and cache figures.
    let records =
        |b: &[u8]| text(b).lines().filter(|l| !l.contains("\"summary\"")).collect::<Vec<_>>().join("\n");
    assert_eq!(records(&resumed), records(&expected));
    let warm = summary(&resumed);
    let (analysed, hits) =
        (warm["analysed"].as_u64().expect("analysed"), warm["cache"]["hits"].as_u64().expect("hits"));
    assert_eq!(gos(&log) as u64, analysed, "go only for what the cache lacked");
    assert!(hits > 0, "the killed runs' work was kept: {warm}");
    let rules = warm["counts"]["from_rules"].as_u64().unwrap_or(0);
    assert_eq!(analysed + hits + rules, warm["positions"].as_u64().expect("positions"));
    // The same run as PGN, cold and warm, byte for byte.
    let pgn = |cache: &Path, name: &str| {
        let out = d.join(name);
        // Held until the engines are done: they write the log, which its drop removes.
        let log = Log::new();
        let mut a = run(cache, &out, &log);
        a.drain(0..2);
        let o = annotate(&input, &a);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        std::fs::read(out).expect("output")
    };
    assert_eq!(text(&pgn(&cache, "warm.pgn")), text(&pgn(&d.join("cold.sqlite"), "cold.pgn")));
}

pub fn annotate_stockfish_same_at_one_and_two_engines() {
    let Some(sf) = installed(STOCKFISH, "stockfish") else {
        return;
    };
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pgn/lichess_db_10k.pgn");
    let run = |engines: &str| {
        let a = args(&["--no-cache", "--engine", sf, "--nodes", "5000", "--engines", engines], Vec::new());
        let o = annotate(&input, &a);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    let one = run("1");
    assert_eq!(one.matches("[Event ").count(), 5);
    assert!(one.contains("[Annotator \"pgnkit ") && one.contains("Stockfish"), "{one}");
    assert_eq!(one, run("2"));
}

/// Five mates found at once (WAC), then sharp middlegames (ECM, WAC) and endgames with 16 and
/// 17 pieces (from a collection of endgame positions): at depth 18 on one thread of a 2-core
/// machine, Stockfish 15.1 took 1 ms on each of the first five and 1.5-2.9 s on each of the rest.
const DEPTH_18: &str = "\
2r1b3/1pp1qrk1/p1n1P1p1/7R/2B1p3/4Q1P1/PP3PP1/3R2K1 w - - id \"WAC.173\";
2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - id \"WAC.001\";
3RNbk1/pp3p2/4rQpp/8/1qr5/7P/P4P2/3R2K1 w - - id \"WAC.188\";
5b2/pp2r1pk/2pp1pRp/4rP1N/2P1P3/1P4QP/P3q1P1/5R1K w - - id \"WAC.143\";
5rk1/n1p1R1bp/p2p4/1qpP1QB1/7P/2P3P1/PP3P2/6K1 w - - id \"WAC.158\";
1q6/2rk1p2/p1n1b1rN/3p2p1/8/3Q4/PP1B1PPP/2R1R1K1 w - - id \"ECM.176\";
1nbq1r1k/3rbp1p/p1p1pp1Q/1p6/P1pPN3/5NP1/1P2PPBP/R4RK1 w - - id \"WAC.293\";
3r4/pp2k3/5p2/2P4P/P3p3/1P4b1/2K2RP1/5B2 w - - id \"endgame 16 pieces\";
2rq3r/5p2/p3pkbQ/3p4/3N4/2P4R/P4PP1/4R1K1 w - - id \"ECM.352\";
4r3/2p1n3/6p1/p1k1P2p/1p3P2/1P1B4/3K2PP/4R3 b - - id \"endgame 17 pieces\";
6k1/5ppp/1q6/2b5/8/2R1pPP1/1P2Q2P/7K w - - id \"WAC.068\";
2r1q1r1/6bk/p2pN1pp/1p1N4/4P3/3R3Q/PnP4P/1K4R1 w - - id \"ECM.154\";
6k1/5p1p/2bP2pb/4p3/2P5/1p1pNPPP/1P1Q1BK1/1q6 b - - id \"WAC.121\";
";

pub fn annotate_stockfish_depth_18_is_never_hung() {
    let Some(sf) = installed(STOCKFISH, "stockfish") else {
        return;
    };
    let d = dir("depth-18");
    let input = d.join("positions.epd");
    std::fs::write(&input, DEPTH_18).expect("write input");
    // Stockfish behind `tee`, which keeps the commands it was sent.
    let log = d.join("commands.log");
    let shell = format!("tee -a '{}' | exec {sf}", log.display());
    let more =
        vec!["--engine".into(), "/bin/sh".into(), "--engine-arg=-c".into(), format!("--engine-arg={shell}")];
    let o = pgnkit()
        .arg("annotate")
        .args(args(&["--no-cache", "--format", "epd", "--depth", "18", "--engines", "2"], more))
        .arg(&input)
        .stdin(Stdio::null())
        .output()
        .expect("run pgnkit");
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("pgnkit annotate: 13 lines, 13 valid, 0 with errors,")
            && !err.contains("engine timed out"),
        "{err}"
    );
    assert_eq!(out.lines().filter(|l| l.contains(" acd 18;")).count(), 13, "{out}");
    // How many searches ran past their deadline and were asked isready (each start and each
    // position sends one more): on a machine where a sharp position takes more than 2 s, some.
    let sent = std::fs::read_to_string(&log).expect("command log");
    let count = |c: &str| sent.lines().filter(|l| *l == c).count();
    let asked = count("isready") - count("ucinewgame") - 2;
    println!("annotate_stockfish_depth_18_is_never_hung: {asked} searches asked isready");
}

pub fn annotate_ctrl_c_stops_the_search_in_progress() {
    let d = dir("ctrl-c");
    let err = ctrl_c_at_the_second_search(&d, &games(&d), &[], "out.pgn");
    // The second search is the first game's: no game was finished.
    assert!(err.contains("pgnkit: interrupted: stopped before the first game of "), "{err}");
    let resume = format!(
        "pgnkit: the evaluations so far are in {}: run the same command again to resume",
        d.join("cache.sqlite").display()
    );
    assert!(err.contains(&resume), "{err}");
}

/// An interrupted run's summary counts the games it went through, the cache's lookups too (not
/// those of the game the interrupt left unfinished), and says the games annotated passed.
pub fn annotate_ctrl_c_summary_counts_the_games_gone_through() {
    let d = dir("ctrl-c-summary");
    let (cache, log) = (d.join("cache.sqlite"), Log::new());
    // One engine's fifth search is held until `stop`: the first run makes four.
    let mut a = args(&["--nodes", "100", "--engines", "1", "-j", "1", "--engine-timeout", "60"], Vec::new());
    a.extend(["--cache".into(), cache.display().to_string()]);
    a.extend(fake_engine(&["hang-stop-at=5", &log.mode()]));
    let run = |games: &[&str], out: &str| {
        let input = d.join(format!("{out}.in"));
        std::fs::write(&input, games.join("\n")).expect("write");
        let out = ["-o".to_string(), d.join(out).display().to_string()];
        let mut command = pgnkit();
        let command = sigint_default(&mut command).arg("annotate").args(&a).args(out).arg(input);
        command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("spawn")
    };
    let game = |event: &str, moves: &str| format!("[Event \"{event}\"]\n[Result \"*\"]\n\n{moves} *\n");
    let (one, two, three) =
        (game("one", "1. e4 e5"), game("two", "1. d4 d5 2. c4 e6"), game("three", "1. Nf3 Nf6 2. g3 g6"));
    // Game one and the start of game two cached: four searches.
    let o = run(&[&one, &game("two", "1. d4")], "first.pgn").wait_with_output().expect("wait");
    assert_eq!((o.status.code(), gos(&log)), (Some(0), 4), "{}", text(&o.stderr));
    // Game one from the cache, game two's two hits and three searches, game three's start from
    // the cache, its first search, and its second held: Ctrl-C then.
    let child = run(&[&one, &two, &three], "out.pgn");
    let waiting = Instant::now();
    while gos(&log) < 4 + 5 {
        assert!(waiting.elapsed() < Duration::from_secs(20), "no fifth go: {:?}", log.lines());
        std::thread::sleep(Duration::from_millis(10));
    }
    let kill = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill");
    assert!(kill.success());
    let o = child.wait_with_output().expect("wait");
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("pgnkit: interrupted: stopped after game 2 of "), "{err}");
    let said = [
        "8 positions in ",
        "\n  5 cache hits\n",
        "\n  2 passed (",
        "cache: 5 hits of 8 positions looked up (62.5%)",
    ];
    for s in said {
        assert!(err.contains(s), "{s:?}: {err}");
    }
    assert!(!err.contains("annotated") && !err.contains("lookups"), "{err}");
}

/// Results under --movetime or --keep-hash are not cached: an interrupted run says a rerun
/// starts over, not that it resumes.
pub fn annotate_ctrl_c_of_results_not_cached_says_a_rerun_starts_over() {
    for (more, option) in [(&["--keep-hash"][..], "--keep-hash"), (&["--movetime", "100"][..], "--movetime")]
    {
        let d = dir(&format!("ctrl-c-{}", option.trim_start_matches('-')));
        let err = ctrl_c_at_the_second_search(&d, &games(&d), more, "out.pgn");
        let starts_over = format!(
            "pgnkit: {option} results are not cached: the evaluations so far are lost, and the same command \
             again starts over"
        );
        assert!(err.contains(&starts_over) && !err.contains("resume"), "{err}");
    }
}

/// The same through EPD input: the run driver's one Ctrl-C path, the lines before the held
/// search done and counted, none written.
pub fn annotate_epd_ctrl_c_stops_the_search_in_progress() {
    let d = dir("ctrl-c-epd");
    let input = d.join("three.epd");
    let fens = ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", "8/8/8/4k3/8/8/4K3/7Q w - -"];
    std::fs::write(&input, format!("{}\n{}\n{}\n", fens[0], fens[1], fens[0])).expect("write");
    let err = ctrl_c_at_the_second_search(&d, &input, &["--format", "epd"], "out.epd");
    assert!(err.contains("pgnkit: interrupted: stopped after line 1 of "), "{err}");
    assert!(err.contains("pgnkit annotate: 1 line, 1 valid,"), "{err}");
    assert!(err.contains("run the same command again to resume"), "{err}");
}

/// Runs annotate over `input` with a cache in `d`, its second search held until `stop`,
/// signals Ctrl-C during it and checks the run stops at once, writes nothing under `out`'s
/// name and keeps the cache: its stderr.
fn ctrl_c_at_the_second_search(d: &Path, input: &Path, more: &[&str], out: &str) -> String {
    let (out, cache, log) = (d.join(out), d.join("cache.sqlite"), Log::new());
    // The second `go` is answered only at `stop`; the deadline (60 s) is far away.
    let opts = [&["--nodes", "100", "--engines", "1", "--engine-timeout", "60"][..], more].concat();
    let mut a = args(&opts, Vec::new());
    a.extend(["--cache".into(), cache.display().to_string(), "-o".into(), out.display().to_string()]);
    a.extend(fake_engine(&["hang-stop-at=2", &log.mode()]));
    let child = sigint_default(&mut pgnkit())
        .arg("annotate")
        .args(&a)
        .arg(input)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let waiting = std::time::Instant::now();
    while gos(&log) < 2 {
        assert!(waiting.elapsed() < Duration::from_secs(20), "no second go: {:?}", log.lines());
        std::thread::sleep(Duration::from_millis(10));
    }
    let kill = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill");
    assert!(kill.success());
    let o = child.wait_with_output().expect("wait");
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    // Waited for, the search would end at its deadline, a timeout the engine answers `stop` to.
    assert!(!err.contains("no bestmove within"), "the search was stopped, not waited for: {err}");
    let lines = log.lines();
    let second = lines.iter().rposition(|l| l.starts_with("go ")).expect("go");
    assert!(lines[second..].iter().any(|l| l == "stop"), "stop after the held go: {lines:?}");
    assert!(!out.exists(), "no output under its final name");
    assert!(cache.exists(), "the cache is kept: {err}");
    assert!(!err.contains("[unevaluated,"), "the stopped search is not a failure: {err}");
    err
}

/// Starts `annotate` (with `more` arguments) over `input` with the fake engine in `modes` (its
/// log `log`), waits until the engine was sent `line`, signals Ctrl-C, and returns the exit code
/// and stderr of a run that ended within 20 s (killed, the test fails, past that: a hang).
fn ctrl_c_once_sent(
    d: &Path,
    input: &Path,
    more: &[&str],
    modes: &[&str],
    log: &Log,
    line: &str,
) -> (Option<i32>, String) {
    let opts = ["--no-cache", "--nodes", "100", "--engines", "1", "-j", "1", "--engine-timeout", "60"];
    let mut a = args(&[&opts[..], more].concat(), vec![]);
    a.extend(["-o".into(), d.join("out").display().to_string()]);
    a.extend(fake_engine(&[modes, &[&log.mode()]].concat()));
    let mut child = sigint_default(&mut pgnkit())
        .arg("annotate")
        .args(&a)
        .arg(input)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let waiting = Instant::now();
    while !log.lines().iter().any(|l| l.starts_with(line)) {
        assert!(waiting.elapsed() < Duration::from_secs(20), "no {line}: {:?}", log.lines());
        std::thread::sleep(Duration::from_millis(10));
    }
    let kill = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill");
    assert!(kill.success());
    let signalled = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if signalled.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("{modes:?}: still running 20 s after Ctrl-C: {:?}", log.lines());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let o = child.wait_with_output().expect("wait");
    (o.status.code(), text(&o.stderr))
}

/// Ctrl-C while the engine is slow to answer `uci` (10 s allowed) or the `isready` after its
/// options (30 s): the wait ends, and the run stops as interrupted (130), not as an engine that
/// cannot start (69).
pub fn annotate_ctrl_c_while_the_engine_starts_stops_the_run() {
    for (mode, sent) in [("slow-uci=60000", "uci"), ("slow-ready=60000", "isready")] {
        let d = dir(&format!("ctrl-c-{}", mode.split('=').next().unwrap_or(mode)));
        let log = Log::new();
        let (code, err) = ctrl_c_once_sent(&d, &games(&d), &[], &[mode], &log, sent);
        assert_eq!(code, Some(130), "{mode}: {err}");
        assert!(err.contains("pgnkit: interrupted: stopped before the first game of "), "{mode}: {err}");
        assert!(!err.contains("handshake"), "{mode}: {err}");
        assert!(!d.join("out").exists(), "{mode}");
    }
}

/// Ctrl-C during a search of an engine that answers nothing, not even `stop`: it is killed
/// after the stop timeout and the position is interrupted, not timed out; no engine is started
/// again for the next position, which is interrupted too.
pub fn annotate_ctrl_c_of_an_engine_that_ignores_stop_is_no_timeout() {
    use pgnkit::analysis::{Analyzer, AnalyzerError, Limit};
    use std::sync::atomic::{AtomicBool, Ordering};
    static STOP: AtomicBool = AtomicBool::new(false);
    // Every engine started hangs at its first search, whose deadline is far away.
    let mut config = crate::support::fake(&["hang-at=1"]);
    config.timeouts.fixed = Some(Duration::from_secs(60));
    config.interrupted = Some(|| STOP.load(Ordering::Relaxed));
    let mut engine = pgnkit::engine::client::UciEngine::start(config).expect("the fake engine starts");
    let ctrl_c = std::thread::spawn(|| {
        std::thread::sleep(Duration::from_millis(100));
        STOP.store(true, Ordering::Relaxed);
    });
    let pos = pgnkit::Position::default();
    let first = engine.analyse(&pos, &[], &Limit::nodes(100));
    ctrl_c.join().expect("the Ctrl-C thread");
    assert!(matches!(first, Err(AnalyzerError::Interrupted)), "{first:?}");
    let next = engine.analyse(&pos, &[], &Limit::nodes(100));
    assert!(matches!(next, Err(AnalyzerError::Interrupted)), "{next:?}");
    assert_eq!(engine.restarts(), 0, "no engine started again");
}
