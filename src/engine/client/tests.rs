//! The client's text handling without a process: option lines, the option plan, `info` and
//! `bestmove` lines made into an analysis, `go` commands. The fake engine and Stockfish drive the
//! rest (`tests/uci`).

use std::time::Duration;

use super::handshake::{EngineId, UciOption, plan_options};
use super::output::{Collector, Info, Message};
use super::{EngineConfig, go_command};
use crate::analysis::{AnalysisWarning, AnalyzerError, Limit, Score};
use crate::chess::{Move, Position, Square};
use crate::notation::uci::parse_uci;

fn option(line: &str) -> UciOption {
    UciOption::parse(line).unwrap_or_else(|| panic!("option line {line:?}"))
}

#[test]
fn option_lines() {
    let o = option("option name Clear Hash type button");
    assert_eq!((o.name.as_str(), o.kind.as_str(), o.default.as_deref()), ("Clear Hash", "button", None));
    let o = option("option name Hash type spin default 16 min 1 max 33554432");
    assert_eq!((o.min, o.max, o.default.as_deref()), (Some(1), Some(33_554_432), Some("16")));
    let o = option("option name UCI_Variant type combo default chess var chess var 3check var crazyhouse");
    assert_eq!(o.vars, ["chess", "3check", "crazyhouse"]);
    assert!(o.has_var("Crazyhouse") && !o.has_var("atomic"));
    // Keywords inside a name belong to it; only `type` ends it.
    let o = option("option name Use default var  type check default true");
    assert_eq!((o.name.as_str(), o.default.as_deref()), ("Use default var", Some("true")));
    let o = option("option name Debug Log File type string default");
    assert_eq!(o.default.as_deref(), Some(""));
    assert_eq!(UciOption::parse("option type spin"), None);
    assert_eq!(UciOption::parse("id name x"), None);
}

fn engine_id(options: &[&str]) -> EngineId {
    EngineId {
        name: Some("Fake".into()),
        author: None,
        options: options
            .iter()
            .map(|name| option(&format!("option name {name} type spin default 1")))
            .collect(),
    }
}

fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
    p.iter().map(|&(a, b)| (a.to_string(), b.to_string())).collect()
}

#[test]
fn option_plan_orders_threads_hash_then_the_users() {
    let id = engine_id(&["Hash", "Threads", "Skill Level", "MultiPV"]);
    let (plan, warnings) = plan_options(&id, &pairs(&[("skill level", "3"), ("Frob", "1")]), Some(64));
    assert_eq!(plan, pairs(&[("Threads", "1"), ("Hash", "64"), ("Skill Level", "3")]));
    assert_eq!(
        warnings,
        [AnalysisWarning::UnknownOption {
            name: "Frob".into(),
            available: vec!["Hash".into(), "Threads".into(), "Skill Level".into(), "MultiPV".into()]
        }]
    );
    let (plan, warnings) =
        plan_options(&id, &pairs(&[("MultiPV", "2"), ("threads", "4"), ("hash", "8")]), Some(64));
    assert_eq!(plan, pairs(&[("Threads", "4"), ("Hash", "8"), ("MultiPV", "2")]));
    assert!(warnings.is_empty());
    // Threads 1 is pgnkit's default: not a warning when the engine has no such option; Hash is asked.
    let (plan, warnings) = plan_options(&engine_id(&[]), &[], Some(32));
    assert!(plan.is_empty());
    assert!(matches!(&warnings[..], [AnalysisWarning::UnknownOption { name, .. }] if name == "Hash"));
    assert_eq!(EngineConfig::parse_option("Skill Level = 3"), Ok(("Skill Level".into(), "3".into())));
    assert_eq!(EngineConfig::parse_option("Clear Hash="), Ok(("Clear Hash".into(), String::new())));
    assert!(EngineConfig::parse_option("Threads").is_err() && EngineConfig::parse_option("=3").is_err());
    // A line break would start a command of its own after the `setoption`.
    for broken in ["Hash=1\nquit", "Hash\r=1", "Hash=1\r\ngo infinite"] {
        assert!(EngineConfig::parse_option(broken).unwrap_or_default().0.is_empty(), "{broken:?}");
    }
}

#[test]
fn info_lines() {
    let Message::Info(info) = Message::parse(
        "info depth 20 seldepth 28 multipv 1 score cp -35 upperbound nodes 123456 nps 1 hashfull 7 \
         tbhits 0 wdl 10 980 10 time 301 pv e2e4 e7e5 g1f3",
    ) else {
        panic!("info")
    };
    assert_eq!(
        info,
        Info {
            depth: Some(20),
            seldepth: Some(28),
            multipv: Some(1),
            score: Some((Score::Cp(-35), true)),
            nodes: Some(123_456),
            time: Some(Duration::from_millis(301)),
            pv: Some(vec!["e2e4", "e7e5", "g1f3"]),
            insane: None,
        }
    );
    // With `UCI_ShowWDL`, Stockfish writes the bound after the win/draw/loss triple.
    let Message::Info(info) =
        Message::parse("info depth 9 score cp -27 wdl 2 964 34 upperbound nodes 10000 pv c7c5 g1f3")
    else {
        panic!("info")
    };
    assert_eq!((info.score, info.nodes), (Some((Score::Cp(-27), true)), Some(10_000)));
    // A PV ends at the next keyword; unknown tokens are skipped; `info string` says nothing.
    let Message::Info(info) = Message::parse("info pv e2e4 d7d5 frob 3 score mate -2 depth x nodes 5") else {
        panic!()
    };
    assert_eq!(info.pv, Some(vec!["e2e4", "d7d5", "frob", "3"]));
    assert_eq!((info.score, info.depth, info.nodes), (Some((Score::Mate(-2), false)), None, Some(5)));
    assert_eq!(Message::parse("info string depth 3 score cp 1"), Message::Info(Info::default()));
    assert_eq!(
        Message::parse("bestmove e2e4 ponder e7e5"),
        Message::BestMove { best: Some("e2e4"), ponder: Some("e7e5") }
    );
    assert_eq!(Message::parse("bestmove"), Message::BestMove { best: None, ponder: None });
    assert_eq!(Message::parse("  "), Message::Ignored);
    assert_eq!(Message::parse("readyok"), Message::Ignored);
    assert_eq!(Message::parse("Stockfish 15.1 by the Stockfish developers"), Message::Garbage);
}

/// Feeds `lines` to a collector and finishes on the position `pos`.
fn collect(
    pos: &Position,
    lines: &[&str],
) -> (Result<crate::analysis::Analysis, AnalyzerError>, Vec<AnalysisWarning>) {
    let mut collector = Collector::default();
    let mut warnings = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if let Some((best, ponder)) = collector.line(line) {
            assert_eq!(i, lines.len() - 1, "bestmove ends the lines");
            let result = collector.finish(pos, best, ponder, Duration::from_millis(9), &mut warnings);
            return (result, warnings);
        }
    }
    panic!("no bestmove in {lines:?}")
}

fn uci(pos: &Position, text: &str) -> Move {
    parse_uci(pos, text.as_bytes()).expect("legal")
}

#[test]
fn final_score_ignores_bounds_and_other_pvs() {
    let pos = Position::default();
    let (a, w) = collect(
        &pos,
        &[
            "info depth 1 seldepth 1 score cp 20 nodes 20 time 1 pv d2d4",
            "info depth 2 seldepth 3 multipv 1 score cp 31 nodes 70 time 2 pv e2e4 e7e5",
            "info depth 2 seldepth 3 multipv 2 score cp 99 nodes 71 time 2 pv g1f3",
            "info depth 3 seldepth 4 score cp 60 lowerbound nodes 150 time 3 pv e2e4",
            "info string NNUE evaluation enabled",
            "info depth 3 currmove e2e4 currmovenumber 1",
            "info nodes 180 time 4",
            "bestmove e2e4 ponder e7e5",
        ],
    );
    let a = a.unwrap();
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(
        (a.score, a.depth, a.seldepth, a.nodes, a.time),
        (Score::Cp(31), 2, 3, 180, Duration::from_millis(4))
    );
    assert_eq!(a.best_move, Some(Move::normal(Square::E2, Square::E4)));
    let mut after = pos;
    after.play_unchecked(a.pv[0]);
    assert_eq!(a.pv, [uci(&pos, "e2e4"), uci(&after, "e7e5")]);
}

#[test]
fn a_bestmove_after_a_bound_takes_that_pv() {
    let pos = Position::default();
    let (a, w) = collect(
        &pos,
        &[
            "info depth 5 score cp 10 pv d2d4 d7d5",
            "info depth 6 score cp 40 lowerbound pv e2e4 e7e5 g1f3",
            "bestmove e2e4 ponder c7c5",
        ],
    );
    let a = a.unwrap();
    assert!(w.is_empty(), "{w:?}");
    assert_eq!((a.score, a.depth, a.pv.len()), (Score::Cp(10), 5, 3));
    assert_eq!(a.best_move, Some(uci(&pos, "e2e4")));
    // No PV starts with the choice: the choice and its ponder move; time as measured.
    let (a, _) = collect(&pos, &["info depth 5 score cp 10 pv d2d4 d7d5", "bestmove e2e4 ponder c7c5"]);
    let a = a.unwrap();
    assert_eq!(a.pv.len(), 2);
    assert_eq!(a.time, Duration::from_millis(9));
}

#[test]
fn repairs_are_warnings() {
    let pos = Position::default();
    // A PV cut at its first illegal move.
    let (a, w) = collect(&pos, &["info depth 1 score cp 5 pv e2e4 e2e4 e7e5", "bestmove e2e4"]);
    assert_eq!(a.unwrap().pv, [uci(&pos, "e2e4")]);
    assert_eq!(w, [AnalysisWarning::IllegalPv { index: 1, text: "e2e4".into() }]);
    // An illegal bestmove: the PV's first move.
    let (a, w) = collect(&pos, &["info depth 1 score mate 3 pv g1f3", "bestmove e1e8"]);
    let a = a.unwrap();
    assert_eq!((a.score, a.best_move), (Score::Mate(3), Some(uci(&pos, "g1f3"))));
    assert_eq!(w, [AnalysisWarning::IllegalBestMove("e1e8".into())]);
    // `(none)` where moves exist is as bad.
    let (_, w) = collect(&pos, &["info depth 1 score cp 0 pv g1f3", "bestmove (none)"]);
    assert_eq!(w, [AnalysisWarning::IllegalBestMove("(none)".into())]);
    // A score without a PV; garbage counted.
    let (a, w) = collect(&pos, &["hello", "info depth 1 score cp 7 nodes 3", "\u{1}\u{2}", "bestmove d2d4"]);
    assert_eq!(a.unwrap().pv, [uci(&pos, "d2d4")]);
    assert_eq!(
        w,
        [AnalysisWarning::Garbage { lines: 2, first: "hello".into() }, AnalysisWarning::ScoreWithoutPv]
    );
    assert_eq!(
        AnalysisWarning::garbage(&"é".repeat(150)),
        AnalysisWarning::Garbage { lines: 1, first: "é".repeat(100) }
    );
}

#[test]
fn unusable_answers_are_errors() {
    let pos = Position::default();
    let (a, _) = collect(&pos, &["info depth 1 score cp 5 lowerbound pv e2e4", "bestmove e2e4"]);
    assert!(matches!(a, Err(AnalyzerError::Protocol(_))), "{a:?}");
    // No legal move to fall back on: one error, not also a warning that a PV's move was used.
    let (a, w) = collect(&pos, &["info depth 1 score cp 5", "bestmove 0000"]);
    assert!(matches!(&a, Err(AnalyzerError::Protocol(m)) if m.contains("bestmove 0000")), "{a:?}");
    assert!(!w.iter().any(|w| matches!(w, AnalysisWarning::IllegalBestMove(_))), "{w:?}");
}

#[test]
fn scores_out_of_range_and_mate_0_are_errors() {
    let pos = Position::default();
    // Negated for Black's view, `i32::MIN` would wrap to itself.
    for score in ["cp -2147483648", "mate -2147483648", "cp 100001", "mate 1001", "cp 99999999999999999999"] {
        let line = format!("info depth 3 score {score} pv e2e4");
        let (a, _) = collect(&pos, &[&line, "bestmove e2e4"]);
        let want = format!("score {score} is out of range");
        assert!(matches!(&a, Err(AnalyzerError::Protocol(m)) if m.starts_with(&want)), "{score}: {a:?}");
        // An earlier sane line does not hide it.
        let (a, _) = collect(&pos, &["info depth 1 score cp 5 pv d2d4", &line, "bestmove e2e4"]);
        assert!(matches!(&a, Err(AnalyzerError::Protocol(_))), "{score}: {a:?}");
    }
    // The ends of the range are scores.
    for (text, score) in [("cp -100000", Score::Cp(-100_000)), ("mate -1000", Score::Mate(-1000))] {
        let line = format!("info depth 3 score {text} pv e2e4");
        let (a, _) = collect(&pos, &[&line, "bestmove e2e4"]);
        assert_eq!(a.map(|a| a.score).ok(), Some(score), "{text}");
    }
    // Mated, in a position with moves: no score to take (a bound saying so is no final score).
    let (a, _) = collect(&pos, &["info depth 3 score mate 0 pv e2e4", "bestmove e2e4"]);
    assert!(matches!(&a, Err(AnalyzerError::Protocol(m)) if m.contains("mate 0")), "{a:?}");
    let (a, _) = collect(
        &pos,
        &["info depth 3 score mate 0 upperbound pv e2e4", "info depth 3 score cp 9 pv e2e4", "bestmove e2e4"],
    );
    assert_eq!(a.map(|a| a.score).ok(), Some(Score::Cp(9)));
    // Text that is no number is ignored, as before.
    let (a, _) = collect(&pos, &["info depth 3 score cp 1e3 pv e2e4", "bestmove e2e4"]);
    assert!(matches!(&a, Err(AnalyzerError::Protocol(m)) if m.contains("without a score")), "{a:?}");
}

#[test]
fn go_commands() {
    assert_eq!(go_command(&Limit::nodes(1000)), "go nodes 1000");
    assert_eq!(go_command(&Limit::depth(12)), "go depth 12");
    assert_eq!(go_command(&Limit::movetime(Duration::from_micros(10))), "go movetime 1");
    assert_eq!(go_command(&Limit { nodes: Some(5), depth: Some(3), movetime: None }), "go nodes 5 depth 3");
    assert_eq!(go_command(&Limit::infinite()), "go infinite");
}
