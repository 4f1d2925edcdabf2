//! The client with real Stockfish (Debian package `stockfish`, at `/usr/games/stockfish`): the
//! handshake, a mate in one, reproducibility under a node limit with a cleared hash, Chess960
//! castling both ways, and a variant it does not play. Without Stockfish each test says it is
//! skipped and how to install it.

use pgnkit::analysis::{Analysis, AnalysisWarning, Analyzer, AnalyzerError, Limit, Score};
use pgnkit::chess::{Move, Position, Square, Variant};
use pgnkit::engine::client::{EngineConfig, UciEngine};

use crate::support::{after, installed, moves, pos};

pub const STOCKFISH: &str = "/usr/games/stockfish";

/// Stockfish with `options`, or `None` after saying the test is skipped.
fn stockfish(options: &[(&str, &str)]) -> Option<UciEngine> {
    let mut config = EngineConfig::new(installed(STOCKFISH, "stockfish")?);
    config.options = options.iter().map(|&(n, v)| (n.to_string(), v.to_string())).collect();
    config.hash_mb = Some(16);
    Some(UciEngine::start(config).unwrap_or_else(|e| panic!("{e}")))
}

pub fn handshake() {
    let Some(mut engine) = stockfish(&[("Frobnication", "on"), ("skill level", "20")]) else {
        return;
    };
    assert!(engine.name().starts_with("Stockfish"), "{}", engine.name());
    assert!(engine.id().option("UCI_Chess960").is_some_and(|o| o.kind == "check"));
    let sent: Vec<(&str, &str)> =
        engine.options_sent().iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    assert_eq!(sent, [("Threads", "1"), ("Hash", "16"), ("Skill Level", "20")]);
    let warnings = engine.take_warnings();
    let [AnalysisWarning::UnknownOption { name, available }] = &warnings[..] else { panic!("{warnings:?}") };
    assert_eq!(name, "Frobnication");
    assert!(
        available.iter().any(|o| o == "Hash") && available.iter().any(|o| o == "MultiPV"),
        "{available:?}"
    );
    assert!(
        warnings[0].to_string().contains("its options: Debug Log File, Threads, Hash"),
        "{}",
        warnings[0]
    );
}

pub fn mate_in_one() {
    let Some(mut engine) = stockfish(&[]) else { return };
    let p = pos("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", Variant::Standard);
    let a = engine.analyse(&p, &[], &Limit::depth(5)).unwrap();
    let mate = Move::normal(Square::D1, Square::D8);
    assert_eq!((a.score, a.best_move, a.pv.as_slice()), (Score::Mate(1), Some(mate), &[mate][..]), "{a:?}");
    assert_eq!(a.depth, 5);
    assert!(a.nodes > 0);
    // Black to move (Kb8 only) and mated next move (Rh8#): mate -1, from Black's side.
    let p = pos("k7/8/1K6/8/8/8/8/7R b - - 0 1", Variant::Standard);
    let a = engine.analyse(&p, &[], &Limit::depth(8)).unwrap();
    assert_eq!(a.score, Score::Mate(-1), "{a:?}");
    assert_eq!(engine.take_warnings(), []);
}

/// Everything but the time, which is the clock's.
fn untimed(a: &Analysis) -> Analysis {
    Analysis { time: Default::default(), ..a.clone() }
}

pub fn nodes_limit_is_reproducible() {
    let Some(mut engine) = stockfish(&[]) else { return };
    let initial = Position::default();
    let game = moves(&initial, &["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6"]);
    let limit = Limit::nodes(1000);
    let first = engine.analyse_line(&initial, &game, &limit).unwrap();
    // Other positions in between fill the hash; the cleared hash makes them not matter.
    engine.analyse_line(&initial, &game[..3], &limit).unwrap();
    let second = engine.analyse_line(&initial, &game, &limit).unwrap();
    assert_eq!(untimed(&first), untimed(&second));
    let Some(mut fresh) = stockfish(&[]) else { return };
    assert_eq!(untimed(&fresh.analyse_line(&initial, &game, &limit).unwrap()), untimed(&first));
    assert!(first.nodes >= 1000 && first.nodes < 2000 && !first.pv.is_empty(), "{first:?}");
    assert_eq!(engine.take_warnings(), []);
}

pub fn chess960_castling() {
    let Some(mut engine) = stockfish(&[]) else { return };
    // King f1, rook h1: castling (`f1h1`, rook to f1) mates; `f1g1` would be a plain king step.
    let p = pos("4rkr1/4p1p1/8/8/8/8/8/5K1R w K - 0 1", Variant::Chess960);
    let a = engine.analyse(&p, &[], &Limit::depth(4)).unwrap();
    let castle = Move::castle(Square::F1, Square::H1);
    assert_eq!((a.score, a.best_move, a.pv.first()), (Score::Mate(1), Some(castle), Some(&castle)), "{a:?}");
    // Castling sent in a line: had Stockfish read it as anything else, it would answer for the
    // wrong side and its moves would be illegal here (a warning).
    let initial = pos("1r4kr/pppppppp/8/8/8/8/PPPPPPPP/1R4KR w HBhb - 0 1", Variant::Chess960);
    let line = moves(&initial, &["g1h1", "g8h8"]);
    let a = engine.analyse_line(&initial, &line, &Limit::nodes(2000)).unwrap();
    let root = after(&initial, &line);
    assert!(a.best_move.is_some_and(|m| root.is_legal(m)) && a.pv.len() > 1, "{a:?}");
    // Back to standard chess on the same engine.
    let a = engine.analyse(&Position::default(), &[], &Limit::nodes(1000)).unwrap();
    assert!(a.best_move.is_some());
    assert_eq!(engine.take_warnings(), []);
}

pub fn crazyhouse_is_unsupported() {
    let Some(mut engine) = stockfish(&[]) else { return };
    let r = engine.analyse(&Position::new(Variant::Crazyhouse), &[], &Limit::nodes(100));
    assert!(matches!(r, Err(AnalyzerError::UnsupportedVariant)), "{r:?}");
    assert!(engine.analyse(&Position::default(), &[], &Limit::nodes(100)).is_ok());
}
