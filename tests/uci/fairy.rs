//! Crazyhouse with a real engine that plays it: Fairy-Stockfish (Debian package `fairy-stockfish`,
//! at `/usr/games/fairy-stockfish`), which lists `UCI_Variant` with `crazyhouse`. The client sends
//! pockets in the FEN and drops as `P@e4`, and reads drops back; `annotate` evaluates every move
//! of a lichess crazyhouse game and, in the same run, a standard game (the variant set back to
//! `chess`). Without Fairy-Stockfish each test says it is skipped and how to install it.

use std::path::Path;
use std::process::{Command, Stdio};

use pgnkit::analysis::{Analyzer, Limit, Score};
use pgnkit::chess::Variant;
use pgnkit::engine::client::{EngineConfig, UciEngine};

use crate::support::{after, installed, moves, pos};

const FAIRY: &str = "/usr/games/fairy-stockfish";

/// Fairy-Stockfish's path, or `None` after saying the test is skipped.
fn fairy() -> Option<&'static str> {
    installed(FAIRY, "fairy-stockfish")
}

pub fn crazyhouse_drops_both_ways() {
    let Some(path) = fairy() else { return };
    let mut engine = UciEngine::start(EngineConfig::new(path)).unwrap_or_else(|e| panic!("{e}"));
    assert!(engine.name().starts_with("Fairy-Stockfish"), "{}", engine.name());
    // A rook in White's pocket and a back rank with no way out: a drop on it mates.
    let p = pos("6k1/5ppp/8/8/8/8/5PPP/6K1[R] w - - 0 1", Variant::Crazyhouse);
    let a = engine.analyse(&p, &[], &Limit::depth(6)).unwrap();
    let best = a.best_move.expect("a best move");
    assert!(best.is_drop(), "{a:?}");
    assert_eq!(a.score, Score::Mate(1), "{a:?}");
    assert!(after(&p, &[best]).is_checkmate(), "{a:?}");
    // A line with a capture (a pawn to White's pocket) and a drop sent as moves: had the engine
    // read `P@e6` as anything else, its answer would be for another position and its moves
    // illegal here (a warning).
    let initial = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1", Variant::Crazyhouse);
    let line = moves(&initial, &["e2e4", "d7d5", "e4d5", "g8f6", "P@e6"]);
    let a = engine.analyse_line(&initial, &line, &Limit::nodes(5000)).unwrap();
    let root = after(&initial, &line);
    assert!(a.best_move.is_some_and(|m| root.is_legal(m)) && a.pv.len() > 1, "{a:?}");
    // Standard chess on the same engine: the variant set back.
    let a = engine.analyse(&pgnkit::Position::default(), &[], &Limit::nodes(2000)).unwrap();
    assert!(a.best_move.is_some_and(|m| !m.is_drop()), "{a:?}");
    assert_eq!(engine.take_warnings(), []);
}

pub fn annotate_crazyhouse_game_with_fairy_stockfish() {
    let Some(path) = fairy() else { return };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let crazyhouse =
        std::fs::read_to_string(root.join("fixtures/pgn/python-chess__saturs-jannlee-zh-lichess.pgn"))
            .expect("fixture");
    let standard = "[Event \"standard\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n";
    let d = crate::scratch::scratch("uci-fairy");
    let input = d.join("games.pgn");
    std::fs::write(&input, format!("{crazyhouse}\n{standard}")).expect("write input");
    let o = Command::new(env!("CARGO_BIN_EXE_pgnkit"))
        .args(["annotate", "-q", "--no-cache", "--engine", path, "--nodes", "3000", "--engines", "1"])
        .arg(&input)
        .stdin(Stdio::null())
        .output()
        .expect("run pgnkit");
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "no diagnostics expected: {err}");
    let games: Vec<&str> = out.split("[Event ").skip(1).collect();
    assert_eq!(games.len(), 2, "{out}");
    assert!(games[0].contains("[Variant \"Crazyhouse\"]") && games[0].contains("Fairy-Stockfish"), "{out}");
    // 122 plies, none ending the game by the rules: an evaluation after every move (its
    // variations, judged moves' engine lines, carry none).
    assert_eq!(games[0].matches("[%eval ").count(), 122, "{}", games[0]);
    assert!(games[0].contains("B@b6+"), "{}", games[0]);
    assert_eq!(games[1].matches("[%eval ").count(), 6, "{}", games[1]);
}
