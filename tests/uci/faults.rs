//! Engines that misbehave, each survived with the outcome the issue asks for: a crash restarts
//! the engine and retries the position (then gives up on that position alone), a hang is
//! stopped, then killed, and the engine restarted (at the floor once the engine has shown its
//! pace; at depth, only when it does not answer `isready`), bad output is repaired with a
//! warning, and an engine that cannot be started is an error with exit code 69.

use std::time::{Duration, Instant};

use pgnkit::analysis::{AnalysisWarning, Analyzer, AnalyzerError, Limit};
use pgnkit::chess::{Position, Variant};
use pgnkit::engine::client::{EngineConfig, MULTIPLE, StartError, Timeouts, UciEngine, WARM_UP};
use pgnkit::error::Error;

use crate::support::{Log, after, alive, expected, fake, fake_default, moves, pos};

fn start(config: EngineConfig) -> UciEngine {
    UciEngine::start(config).unwrap_or_else(|e| panic!("{e}"))
}

/// The start position and the one after 1. e4, with what the fake engine answers in them.
fn two_positions() -> [Position; 2] {
    let initial = Position::default();
    [initial, after(&initial, &moves(&initial, &["e2e4"]))]
}

fn restarted(warnings: &[AnalysisWarning]) -> Vec<&str> {
    warnings
        .iter()
        .map(|w| match w {
            AnalysisWarning::Restarted(why) => why.as_str(),
            other => panic!("not a restart: {other}"),
        })
        .collect()
}

pub fn crash_restarts_and_retries() {
    let log = Log::new();
    let mut engine = start(fake(&[&log.mode(), "crash-at=2"]));
    let [a, b] = two_positions();
    assert_eq!(engine.analyse(&a, &[], &Limit::nodes(5)).unwrap(), expected(&a));
    assert_eq!(engine.analyse(&b, &[], &Limit::nodes(5)).unwrap(), expected(&b));
    let warnings = engine.take_warnings();
    let why = restarted(&warnings);
    assert_eq!(why.len(), 1);
    assert!(why[0].starts_with("its output ended during the search"), "{}", why[0]);
    assert!(why[0].contains("exit status: 3") && why[0].contains("crashing at go 2"), "{}", why[0]);
    assert_eq!(engine.restarts(), 1);
    let pids = log.pids();
    assert_eq!(pids.len(), 2);
    assert!(!alive(pids[0]) && alive(pids[1]));
}

pub fn a_new_engine_gets_the_variant_options_again() {
    let log = Log::new();
    let mut engine = start(fake(&[&log.mode(), "crash-at=2"]));
    let a = pos("rk6/p7/P7/1P6/8/8/8/1R4KR w HBa - 0 1", Variant::Chess960);
    let b = after(&a, &moves(&a, &["g1h1"]));
    assert_eq!(engine.analyse(&a, &[], &Limit::nodes(5)).unwrap(), expected(&a));
    assert_eq!(engine.analyse(&b, &[], &Limit::nodes(5)).unwrap(), expected(&b));
    assert_eq!(engine.restarts(), 1);
    assert_eq!(log.count("setoption name UCI_Chess960 value true"), 2);
}

pub fn dead_pipe_restarts_and_retries() {
    // The engine exits after its first answer: the client's next write meets a closed pipe (or,
    // if the engine is not quite gone, its next read the end of the output).
    let mut engine = start(fake(&["exit-after-go=1"]));
    let [a, b] = two_positions();
    assert_eq!(engine.analyse(&a, &[], &Limit::nodes(5)).unwrap(), expected(&a));
    assert_eq!(engine.analyse(&b, &[], &Limit::nodes(5)).unwrap(), expected(&b));
    assert_eq!(restarted(&engine.take_warnings()).len(), 1);
    assert_eq!(engine.restarts(), 1);
}

pub fn a_position_that_always_crashes_is_given_up() {
    let log = Log::new();
    let mut engine = start(fake(&[&log.mode(), "crash-at=1"]));
    let [a, _] = two_positions();
    let r = engine.analyse(&a, &[], &Limit::nodes(5));
    assert!(matches!(r, Err(AnalyzerError::Terminated)), "{r:?}");
    // One try and two retries, each on a new engine.
    assert_eq!((log.count("go nodes 5"), engine.restarts()), (3, 2));
    assert_eq!(restarted(&engine.take_warnings()).len(), 2);
    // The next position starts a new engine again: a crash is not fatal for the run.
    let r = engine.analyse(&a, &[], &Limit::nodes(5));
    assert!(matches!(&r, Err(e) if !e.is_fatal()), "{r:?}");
    assert_eq!((log.count("go nodes 5"), engine.restarts()), (6, 5));
    let mut config = fake(&["crash-at=1"]);
    config.retries = 0;
    let mut engine = start(config);
    assert!(matches!(engine.analyse(&a, &[], &Limit::nodes(5)), Err(AnalyzerError::Terminated)));
    assert_eq!(engine.take_warnings(), []);
}

pub fn failed_restart_is_fatal() {
    let dir = std::env::temp_dir().join(format!("pgnkit-fake-uci-once-{}", std::process::id()));
    let _ = std::fs::remove_file(&dir);
    let mut config = fake(&[&format!("uciok-once={}", dir.display()), "crash-at=1"]);
    config.timeouts.handshake = Duration::from_millis(300);
    let mut engine = start(config);
    let r = engine.analyse(&Position::default(), &[], &Limit::nodes(5));
    let _ = std::fs::remove_file(&dir);
    let Err(e) = r else { panic!("{r:?}") };
    assert!(e.is_fatal(), "{e}");
    assert!(e.to_string().contains("failed its UCI handshake: no uciok within 0.3 s"), "{e}");
}

/// The message of a timeout.
fn timed_out(r: Result<pgnkit::analysis::Analysis, AnalyzerError>) -> String {
    match r {
        Err(AnalyzerError::Timeout(why)) => why,
        other => panic!("not a timeout: {other:?}"),
    }
}

pub fn hang_is_stopped_then_killed_and_restarted() {
    let log = Log::new();
    let mut engine = start(fake(&[&log.mode(), "hang-at=2"]));
    let [a, b] = two_positions();
    assert_eq!(engine.analyse(&a, &[], &Limit::nodes(1000)).unwrap(), expected(&a));
    let t = Instant::now();
    let why = timed_out(engine.analyse(&b, &[], &Limit::nodes(1000)));
    let took = t.elapsed();
    assert!(why.starts_with("no bestmove within 0.45 s (the default), nor"), "{why}");
    assert!(why.ends_with("nor within 0.2 s of stop: the engine was killed"), "{why}");
    // Asked isready at 300 ms, hung at 400 ms + 1000 nodes at MIN_NPS (50 ms), then 200 ms for
    // `stop`; a watchdog: the engine never answers, a deadline not kept is a hang.
    assert!(took >= Duration::from_millis(650) && took < Duration::from_secs(30), "{took:?}");
    let pids = log.pids();
    assert!(!alive(pids[0]), "the hung engine was not killed");
    assert_eq!(log.lines().last().map(String::as_str), Some("stop"));
    assert_eq!(engine.analyse(&b, &[], &Limit::nodes(1000)).unwrap(), expected(&b));
    assert_eq!((engine.restarts(), log.pids().len()), (1, 2));
    assert_eq!(engine.take_warnings(), []);
}

pub fn a_hang_after_the_warm_up_is_found_at_the_floor() {
    // The default timeouts: before the warm-up a hang would cost a minute.
    let log = Log::new();
    let hang_at = format!("hang-at={}", WARM_UP + 2);
    let mut engine = start(fake_default(&[&log.mode(), &hang_at]));
    let [a, b] = two_positions();
    let limit = Limit::nodes(1000);
    for i in 0..=WARM_UP {
        let pos = if i % 2 == 0 { a } else { b };
        assert_eq!(engine.analyse(&pos, &[], &limit).unwrap(), expected(&pos));
    }
    let t = Instant::now();
    let why = timed_out(engine.analyse(&a, &[], &limit));
    let took = t.elapsed();
    assert!(why.contains(&format!("({MULTIPLE} x its slowest search under this limit")), "{why}");
    assert!(why.ends_with("nor within 1 s of stop: the engine was killed"), "{why}");
    // The floor and 1 s for `stop`; the default deadline would be past 60 s.
    let floor = Timeouts::default().floor;
    assert!(took >= floor + Duration::from_secs(1) && took < Duration::from_secs(30), "{took:?}");
    assert!(!alive(log.pids()[0]), "the hung engine was not killed");
    // The next position goes to a new engine, under the deadline already learnt.
    assert_eq!(engine.analyse(&b, &[], &limit).unwrap(), expected(&b));
    assert_eq!((engine.restarts(), log.pids().len()), (1, 2));
    assert_eq!(engine.config().pace.slowest(&limit).map(|s| s < floor), Some(true));
    assert_eq!(engine.config().pace.slowest(&Limit::nodes(999)), None, "per limit");
}

/// `isready` sent during searches: all of them less those before a search and after the options.
fn mid_search_isready(log: &Log) -> usize {
    log.count("isready") - log.count("ucinewgame") - log.pids().len()
}

pub fn depth_searches_go_on_while_the_engine_answers() {
    // Each search takes 1 s, past the 300 ms floor: the engine is asked isready, answers, and its
    // answer counts.
    let log = Log::new();
    let mut engine = start(fake(&[&log.mode(), "think=1000"]));
    let [a, b] = two_positions();
    assert_eq!(engine.analyse(&a, &[], &Limit::depth(5)).unwrap(), expected(&a));
    assert!(mid_search_isready(&log) >= 1, "{:?}", log.lines());
    assert_eq!(engine.analyse(&b, &[], &Limit::depth(5)).unwrap(), expected(&b));
    assert_eq!((engine.restarts(), log.count("stop")), (0, 0));
    // An engine that answers nothing is hung at depth too.
    let log = Log::new();
    let mut engine = start(fake(&[&log.mode(), "hang-at=2"]));
    assert_eq!(engine.analyse(&a, &[], &Limit::depth(5)).unwrap(), expected(&a));
    let why = timed_out(engine.analyse(&b, &[], &Limit::depth(5)));
    assert!(why.starts_with("no readyok within 1 s of isready, "), "{why}");
    assert!(why.ends_with("the engine was killed"), "{why}");
    assert_eq!(mid_search_isready(&log), 1);
    assert!(!alive(log.pids()[0]));
    assert_eq!(engine.analyse(&b, &[], &Limit::depth(5)).unwrap(), expected(&b));
}

pub fn a_deaf_engine_is_asked_once() {
    // It answers isready only after its search: the first search it is asked about is lost, and
    // it is not asked again.
    let log = Log::new();
    let mut config = fake(&[&log.mode(), "think=2500", "deaf"]);
    config.timeouts.search = Duration::from_secs(20);
    let mut engine = start(config);
    let [a, b] = two_positions();
    let why = timed_out(engine.analyse(&a, &[], &Limit::depth(5)));
    assert!(
        why.starts_with("no readyok within 1 s of isready, ") && why.ends_with("; it answered stop"),
        "{why}"
    );
    assert!(engine.config().pace.deaf());
    let t = Instant::now();
    assert_eq!(engine.analyse(&b, &[], &Limit::depth(5)).unwrap(), expected(&b));
    assert!(t.elapsed() >= Duration::from_millis(2500));
    assert_eq!((mid_search_isready(&log), log.count("stop"), engine.restarts()), (1, 1, 0));
}

pub fn movetime_deadline() {
    let mut engine = start(fake(&["hang-at=1"]));
    let t = Instant::now();
    let why =
        timed_out(engine.analyse(&Position::default(), &[], &Limit::movetime(Duration::from_millis(100))));
    let took = t.elapsed();
    assert!(why.contains("(the movetime and its grace)"), "{why}");
    // 100 ms + 200 ms grace, then 200 ms for `stop`; a watchdog: the engine never answers.
    assert!(took >= Duration::from_millis(500) && took < Duration::from_secs(30), "{took:?}");
}

pub fn fixed_deadline() {
    let mut config = fake(&["hang-at=1"]);
    config.timeouts.fixed = Some(Duration::from_millis(300));
    let mut engine = start(config);
    let t = Instant::now();
    let why = timed_out(engine.analyse(&Position::default(), &[], &Limit::depth(30)));
    let took = t.elapsed();
    assert!(why.starts_with("no bestmove within 0.3 s (the fixed deadline)"), "{why}");
    // A watchdog: the engine never answers.
    assert!(took >= Duration::from_millis(500) && took < Duration::from_secs(30), "{took:?}");
}

pub fn late_answer_to_stop_is_a_timeout_without_restart() {
    let log = Log::new();
    let mut engine = start(fake(&[&log.mode(), "hang-stop-at=1", "hang-stop-at=2"]));
    let [a, b] = two_positions();
    let why = timed_out(engine.analyse(&a, &[], &Limit::nodes(5)));
    assert!(why.ends_with("; it answered stop"), "{why}");
    assert_eq!(engine.restarts(), 0);
    // An unlimited search is ended by `stop` by design: its answer counts.
    let t = Instant::now();
    assert_eq!(engine.analyse(&b, &[], &Limit::infinite()).unwrap(), expected(&b));
    assert!(t.elapsed() >= Duration::from_millis(400));
    assert_eq!(engine.analyse(&a, &[], &Limit::depth(5)).unwrap(), expected(&a));
    assert_eq!((engine.restarts(), log.pids().len()), (0, 1));
    assert_eq!(log.count("go infinite"), 1);
}

pub fn garbage_is_counted() {
    let mut engine = start(fake(&["garbage"]));
    let [a, _] = two_positions();
    assert_eq!(engine.analyse(&a, &[], &Limit::nodes(5)).unwrap(), expected(&a));
    assert_eq!(
        engine.take_warnings(),
        [AnalysisWarning::Garbage { lines: 2, first: "fake engine says hello".into() }]
    );
}

pub fn illegal_bestmove_is_replaced() {
    let mut engine = start(fake(&["illegal-bestmove"]));
    for pos in two_positions() {
        assert_eq!(engine.analyse(&pos, &[], &Limit::nodes(5)).unwrap(), expected(&pos));
        let warnings = engine.take_warnings();
        assert!(matches!(&warnings[..], [AnalysisWarning::IllegalBestMove(_)]), "{warnings:?}");
    }
}

pub fn illegal_pv_is_cut() {
    let mut engine = start(fake(&["illegal-pv"]));
    let [a, _] = two_positions();
    let got = engine.analyse(&a, &[], &Limit::nodes(5)).unwrap();
    let mut want = expected(&a);
    want.pv.truncate(1);
    assert_eq!(got, want);
    let warnings = engine.take_warnings();
    assert!(matches!(&warnings[..], [AnalysisWarning::IllegalPv { index: 1, .. }]), "{warnings:?}");
}

pub fn score_without_pv() {
    let mut engine = start(fake(&["no-pv"]));
    let [a, _] = two_positions();
    let got = engine.analyse(&a, &[], &Limit::nodes(5)).unwrap();
    // The PV of the later bound line, which starts with the best move.
    let mut want = expected(&a);
    want.pv.truncate(1);
    assert_eq!(got, want);
    assert_eq!(engine.take_warnings(), [AnalysisWarning::ScoreWithoutPv]);
}

pub fn stderr_is_drained() {
    // 1 MiB of stderr per search: an undrained pipe (64 KiB) would block the engine for good.
    let mut engine = start(fake(&["stderr-flood"]));
    for pos in two_positions().into_iter().chain(two_positions()) {
        assert_eq!(engine.analyse(&pos, &[], &Limit::nodes(5)).unwrap(), expected(&pos));
    }
}

pub fn slow_handshake_within_the_timeout() {
    let t = Instant::now();
    let mut engine = start(fake(&["slow-uci=300"]));
    assert!(t.elapsed() >= Duration::from_millis(300));
    assert_eq!(
        engine.analyse(&Position::default(), &[], &Limit::nodes(5)).unwrap(),
        expected(&Position::default())
    );
}

fn start_error(modes: &[&str], handshake_ms: u64) -> (StartError, Duration) {
    let mut config = fake(modes);
    config.timeouts.handshake = Duration::from_millis(handshake_ms);
    let t = Instant::now();
    match UciEngine::start(config) {
        Ok(_) => panic!("{modes:?} started"),
        Err(e) => (e, t.elapsed()),
    }
}

pub fn handshake_failures_are_start_errors() {
    let log = Log::new();
    let (e, took) = start_error(&[&log.mode(), "no-uciok"], 300);
    let text = e.to_string();
    assert!(matches!(e, StartError::Handshake { .. }), "{e:?}");
    assert!(text.contains("no uciok within 0.3 s; its stderr: fake engine: no uciok today"), "{text}");
    // A watchdog: the engine never sends uciok.
    assert!(took < Duration::from_secs(30), "{took:?}");
    assert!(!alive(log.pids()[0]));
    assert_eq!(Error::from(e).exit_code().number(), 69);
    // A watchdog far past the deadline and far short of the engine's uciok.
    let (e, took) = start_error(&["slow-uci=120000"], 200);
    assert!(e.to_string().contains("no uciok within 0.2 s"), "{e}");
    assert!(took < Duration::from_secs(30), "{took:?}");
    let (e, _) = start_error(&["exit-at-uci"], 5000);
    assert!(e.to_string().contains("it exited before uciok"), "{e}");
}

/// An engine that dies before `uciok` is named by how it ended: a signal (a build for another
/// CPU dies of SIGILL) or its exit status, whichever of its pipes the client found closed first.
pub fn an_engine_dead_before_uciok_says_how_it_ended() {
    for (script, ended) in [
        ("kill -ILL $$", "it exited before uciok (killed by signal 4 (SIGILL)"),
        ("sleep 0.3; kill -ILL $$", "it exited before uciok (killed by signal 4 (SIGILL)"),
        (
            "echo cannot load nn.nnue >&2; exit 1",
            "it exited before uciok (exit status: 1); its stderr: cannot load nn.nnue",
        ),
    ] {
        let mut config = EngineConfig::new("/bin/sh");
        config.args = vec!["-c".into(), script.into()];
        let e = UciEngine::start(config).expect_err(script);
        assert!(matches!(e, StartError::Handshake { .. }), "{e:?}");
        assert!(e.to_string().contains(ended), "{script}: {e}");
    }
}

pub fn missing_binary_is_exit_69() {
    let e = UciEngine::start(EngineConfig::new("/nonexistent/pgnkit-engine")).expect_err("no such file");
    assert!(matches!(e, StartError::NotFound { .. }), "{e:?}");
    assert_eq!(e.to_string(), "engine not found: /nonexistent/pgnkit-engine");
    assert_eq!(Error::from(e).exit_code().number(), 69);
    let not_executable = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let e = UciEngine::start(EngineConfig::new(not_executable)).expect_err("not a program");
    assert!(matches!(e, StartError::Spawn { .. }), "{e:?}");
    assert_eq!(Error::from(e).exit_code().number(), 69);
}
