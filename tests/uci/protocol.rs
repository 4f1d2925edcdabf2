//! The client's side of the conversation, checked line by line in the fake engine's log: the
//! handshake and options, a cleared hash per position (or per game), `position` commands from
//! pgnkit's own moves, Chess960 and Crazyhouse settings, game endings kept from the engine.

use pgnkit::analysis::{AnalysisWarning, Analyzer, AnalyzerError, Limit, Score};
use pgnkit::chess::{Move, Position, Square, Variant};
use pgnkit::engine::client::UciEngine;

use crate::fake;
use crate::support::{Log, after, alive, expected, fake, moves, pos};

fn start(config: pgnkit::engine::client::EngineConfig) -> UciEngine {
    UciEngine::start(config).unwrap_or_else(|e| panic!("{e}"))
}

pub fn handshake_options_and_one_position_per_search() {
    let log = Log::new();
    let mut config = fake(&[&log.mode()]);
    config.options = vec![("skill level".into(), "3".into()), ("Contempt".into(), "10".into())];
    config.hash_mb = Some(32);
    let mut engine = start(config);
    assert_eq!(engine.name(), fake::NAME);
    assert_eq!(engine.id().author.as_deref(), Some("the pgnkit tests"));
    let sent: Vec<(&str, &str)> =
        engine.options_sent().iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    assert_eq!(sent, [("Threads", "1"), ("Hash", "32"), ("Skill Level", "3")]);
    let available =
        ["Threads", "Hash", "Clear Hash", "Skill Level", "UCI_Chess960"].map(String::from).to_vec();
    assert_eq!(
        engine.take_warnings(),
        [AnalysisWarning::UnknownOption { name: "Contempt".into(), available }]
    );
    let initial = Position::default();
    let line = moves(&initial, &["e2e4", "e7e5", "g1f3"]);
    let a = engine.analyse_line(&initial, &line, &Limit::nodes(1000)).unwrap();
    assert_eq!(a, expected(&after(&initial, &line)));
    let line = moves(&initial, &["d2d4"]);
    let a = engine.analyse_line(&initial, &line, &Limit::depth(3)).unwrap();
    assert_eq!(a, expected(&after(&initial, &line)));
    assert_eq!(engine.take_warnings(), []);
    drop(engine);
    assert_eq!(
        log.lines()[1..],
        [
            "uci",
            "setoption name Threads value 1",
            "setoption name Hash value 32",
            "setoption name Skill Level value 3",
            "isready",
            "setoption name UCI_Chess960 value false",
            "ucinewgame",
            "isready",
            "position fen rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2 moves g1f3",
            "go nodes 1000",
            "ucinewgame",
            "isready",
            "position fen rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1",
            "go depth 3",
            "quit",
        ]
    );
}

pub fn analyse_sends_the_position_alone() {
    let log = Log::new();
    let mut engine = start(fake(&[&log.mode()]));
    let initial = Position::default();
    let line = moves(&initial, &["g1f3", "g8f6", "f3g1", "f6g8"]);
    let root = after(&initial, &line);
    let mut history = vec![initial.zobrist()];
    let mut p = initial;
    for &m in &line[..3] {
        p.play_unchecked(m);
        history.push(p.zobrist());
    }
    assert_eq!(engine.analyse(&root, &history, &Limit::nodes(1)).unwrap(), expected(&root));
    // The same position as a line: the moves since the last pawn move, so repetitions are seen.
    assert_eq!(engine.analyse_line(&initial, &line, &Limit::nodes(1)).unwrap(), expected(&root));
    let positions: Vec<String> = log.lines().into_iter().filter(|l| l.starts_with("position")).collect();
    assert_eq!(
        positions,
        [
            "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 4 3",
            "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves g1f3 g8f6 f3g1 f6g8",
        ]
    );
}

pub fn keep_hash_sends_one_ucinewgame_per_game() {
    let log = Log::new();
    let mut config = fake(&[&log.mode()]);
    config.keep_hash = true;
    let mut engine = start(config);
    let initial = Position::default();
    let game = moves(&initial, &["e2e4", "c7c5", "g1f3"]);
    for ply in 0..=game.len() {
        let a = engine.analyse_line(&initial, &game[..ply], &Limit::nodes(100)).unwrap();
        assert_eq!(a, expected(&after(&initial, &game[..ply])));
    }
    engine.new_game();
    engine.analyse_line(&initial, &game[..1], &Limit::nodes(100)).unwrap();
    drop(engine);
    assert_eq!((log.count("ucinewgame"), log.count("isready"), log.count("go nodes 100")), (2, 3, 5));
}

pub fn chess960_sets_the_option_and_castles_king_takes_rook() {
    let log = Log::new();
    let mut engine = start(fake(&[&log.mode()]));
    // King g1 between rooks b1 and h1: castling with h1 is `g1h1` (`g1g1` in the standard form).
    let initial = pos("rk6/p7/P7/1P6/8/8/8/1R4KR w HBa - 0 1", Variant::Chess960);
    let line = moves(&initial, &["g1h1"]);
    let root = after(&initial, &line);
    assert_eq!(engine.analyse_line(&initial, &line, &Limit::depth(1)).unwrap(), expected(&root));
    // The fake engine's first move in text order is Black's castling `b8a8` (king to c8): read
    // back as castling, not as the king step `b8c8` the standard form would say.
    assert_eq!(expected(&root).best_move, Some(Move::castle(Square::B8, Square::A8)));
    let standard = Position::default();
    assert_eq!(engine.analyse(&standard, &[], &Limit::depth(1)).unwrap(), expected(&standard));
    assert_eq!(engine.take_warnings(), []);
    drop(engine);
    let lines = log.lines();
    let at = |l: &str| lines.iter().position(|x| x == l).unwrap_or_else(|| panic!("{l:?} not in {lines:#?}"));
    let command = "position fen rk6/p7/P7/1P6/8/8/8/1R4KR w KQq - 0 1 moves g1h1";
    assert!(at("setoption name UCI_Chess960 value true") < at(command));
    assert!(at(command) < at("setoption name UCI_Chess960 value false"));
}

pub fn crazyhouse_needs_uci_variant() {
    let initial = Position::new(Variant::Crazyhouse);
    let line = moves(&initial, &["e2e4", "d7d5", "e4d5", "d8d5", "P@e4", "d5a5"]);
    let root = after(&initial, &line);
    let log = Log::new();
    let mut engine = start(fake(&[&log.mode()]));
    let r = engine.analyse_line(&initial, &line, &Limit::nodes(10));
    assert!(matches!(r, Err(AnalyzerError::UnsupportedVariant)), "{r:?}");
    assert_eq!(log.lines().iter().filter(|l| l.starts_with("go")).count(), 0);
    let log = Log::new();
    let mut engine = start(fake(&[&log.mode(), "variants"]));
    assert_eq!(
        engine.analyse(&Position::default(), &[], &Limit::nodes(10)).unwrap(),
        expected(&Position::default())
    );
    assert_eq!(engine.analyse_line(&initial, &line, &Limit::nodes(10)).unwrap(), expected(&root));
    drop(engine);
    let lines = log.lines();
    let at = |l: &str| lines.iter().position(|x| x == l).unwrap_or_else(|| panic!("{l:?} not in {lines:#?}"));
    assert!(at("setoption name UCI_Variant value chess") < at("setoption name UCI_Variant value crazyhouse"));
    let command = lines.iter().rfind(|l| l.starts_with("position")).expect("a position");
    // In crazyhouse a captured piece comes back: the command holds the moves before the capture
    // and the drop that reset the halfmove clock, for the engine to see repetitions across them.
    assert_eq!(
        command,
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1 moves e2e4 d7d5 e4d5 d8d5 P@e4 d5a5"
    );
}

pub fn game_over_is_not_sent() {
    let log = Log::new();
    let mut engine = start(fake(&[&log.mode()]));
    let initial = Position::default();
    let mate = moves(&initial, &["f2f3", "e7e5", "g2g4", "d8h4"]);
    let a = engine.analyse_line(&initial, &mate, &Limit::nodes(10)).unwrap();
    assert_eq!((a.score, a.best_move, a.pv.len(), a.nodes), (Score::Mate(0), None, 0, 0));
    let stalemate = pos("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", Variant::Standard);
    let a = engine.analyse(&stalemate, &[], &Limit::nodes(10)).unwrap();
    assert_eq!((a.score, a.best_move), (Score::Cp(0), None));
    assert!(!log.lines().iter().any(|l| l.starts_with("position") || l.starts_with("go")));
}

pub fn drop_quits_the_engine() {
    let log = Log::new();
    let engine = start(fake(&[&log.mode()]));
    let pid = log.pids()[0];
    assert!(alive(pid));
    drop(engine);
    assert!(!alive(pid), "engine {pid} still running");
    assert_eq!(log.lines().last().map(String::as_str), Some("quit"));
}
