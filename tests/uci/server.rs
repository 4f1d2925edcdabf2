//! `pgnkit uci`, the built-in engine's UCI side, driven over pipes: commands read while it
//! searches, and how its searches end.

use pgnkit::chess::{Position, Variant};
use pgnkit::notation::uci::parse_uci;

use crate::pipe::{BOUND, Engine};
use crate::support::{after, moves, pos};

/// `pgnkit uci` after its handshake.
fn uci() -> Engine {
    let mut engine = Engine::start(&["uci"]);
    engine.send("uci");
    engine.expect("uciok", BOUND, |l| l == "uciok");
    engine
}

/// Panics unless `m` is a legal move in `pos`.
fn assert_legal(pos: &Position, m: &str) {
    assert!(parse_uci(pos, m.as_bytes()).is_ok(), "{m} is not legal in {pos:?}");
}

/// Commands that need the searcher, read during a search that has no end in sight, wait for it;
/// `isready` and `stop` read after them are still answered, and the waiting commands are then
/// carried out in order.
pub fn isready_and_stop_are_answered_behind_waiting_commands() {
    let mut engine = uci();
    for go in ["go depth 60", "go infinite", "go"] {
        engine.send("position startpos");
        engine.send(go);
        engine.send("position startpos moves e2e4");
        engine.send("setoption name Hash value 8");
        engine.send("ucinewgame");
        engine.send("isready");
        engine.expect("readyok", BOUND, |l| l == "readyok");
        engine.send("stop");
        assert_legal(&Position::default(), &engine.bestmove());
        engine.send("go depth 1");
        let start = Position::default();
        assert_legal(&after(&start, &moves(&start, &["e2e4"])), &engine.bestmove());
    }
}

/// `go` with a clock for the side not to move alone: the side to move has no time left, so it
/// moves at once (as Stockfish does) instead of searching without end.
pub fn a_clock_for_the_other_side_alone_moves_at_once() {
    let mut engine = uci();
    let start = Position::default();
    let e4 = after(&start, &moves(&start, &["e2e4"]));
    for go in ["go wtime 60000", "go wtime 60000 winc 1000 movestogo 20"] {
        engine.send("position startpos moves e2e4");
        engine.send(go);
        assert_legal(&e4, &engine.bestmove());
    }
    engine.send("position startpos");
    engine.send("go btime 60000 binc 1000");
    assert_legal(&start, &engine.bestmove());
}

/// A position whose first iteration alone takes a minute (its quiescence search): `stop` and
/// `movetime` end it all the same.
pub fn stop_and_movetime_end_the_first_iteration() {
    let fen = "rnbqkbnr/qqqqqqqq/8/8/8/8/QQQQQQQQ/RNBQKBNR w KQkq - 0 1";
    let queens = pos(fen, Variant::Standard);
    let mut engine = uci();
    engine.send(&format!("position fen {fen}"));
    engine.send("go movetime 100");
    assert_legal(&queens, &engine.bestmove());
    engine.send("go infinite");
    engine.send("isready");
    engine.expect("readyok", BOUND, |l| l == "readyok");
    engine.send("stop");
    assert_legal(&queens, &engine.bestmove());
}

/// A `Hash` that cannot be allocated (here: 2 GB under a 1 GB address space) is refused with a
/// reason, the table in use is kept, and the engine goes on.
pub fn a_hash_that_cannot_be_allocated_keeps_the_table() {
    let mut engine = Engine::start_with_address_space(1 << 20, &["uci"]);
    engine.send("uci");
    let hash = engine.expect("the Hash option", BOUND, |l| l.starts_with("option name Hash "));
    let max: usize = hash.rsplit(' ').next().and_then(|m| m.parse().ok()).expect("a max");
    assert!(max >= 2048, "{hash}");
    engine.send("setoption name Hash value 2048");
    engine.send("isready");
    let said = engine.expect("readyok", BOUND, |l| l == "readyok" || l.starts_with("info string"));
    assert!(said.starts_with("info string Hash 2048 MB cannot be allocated ("), "{said}");
    assert!(said.ends_with("; keeping 16 MB"), "{said}");
    engine.expect("readyok", BOUND, |l| l == "readyok");
    engine.send("go depth 3");
    assert_legal(&Position::default(), &engine.bestmove());
}

/// A large `Hash` is set and cleared (`ucinewgame`, `Clear Hash`) without the table being
/// written: `isready` is answered and the process holds a fraction of the table, its pages zeroed
/// by the system as the search first touches them.
pub fn a_large_hash_is_set_and_cleared_without_writing_it() {
    let mut engine = Engine::start(&["uci"]);
    engine.send("uci");
    let hash = engine.expect("the Hash option", BOUND, |l| l.starts_with("option name Hash "));
    let max: u64 = hash.rsplit(' ').next().and_then(|m| m.parse().ok()).expect("a max");
    let mb = max.min(2048);
    engine.send(&format!("setoption name Hash value {mb}"));
    for clear in ["", "ucinewgame", "setoption name Clear Hash"] {
        engine.send(clear);
        engine.send("isready");
        engine.expect("readyok", BOUND, |l| l == "readyok");
        let kb = engine.resident_kb();
        assert!(
            kb < mb * 1024 / 4,
            "{clear:?}: {kb} kB resident with a {mb} MB table; seen {:#?}",
            engine.seen
        );
    }
    engine.send("go depth 4");
    assert_legal(&Position::default(), &engine.bestmove());
}

/// `go` numbers past their type are the largest limit, not "no limit": the depth is the
/// searcher's deepest (reached at once with bare kings); a negative depth searches one ply; a
/// word is said and leaves the search without that limit, which `stop` ends.
pub fn go_numbers_out_of_range_are_clamped() {
    let kings = pos("8/8/8/3k4/8/8/8/K7 w - - 0 1", Variant::Standard);
    let mut engine = uci();
    engine.send("position fen 8/8/8/3k4/8/8/8/K7 w - - 0 1");
    engine.send("go depth 99999999999");
    assert_legal(&kings, &engine.bestmove());
    let deepest = engine.seen.iter().rev().find(|l| l.starts_with("info depth ")).expect("an info line");
    assert!(deepest.starts_with("info depth 120 "), "{deepest}");
    engine.send("go depth -5");
    assert_legal(&kings, &engine.bestmove());
    let deepest = engine.seen.iter().rev().find(|l| l.starts_with("info depth ")).expect("an info line");
    assert!(deepest.starts_with("info depth 1 "), "{deepest}");
    engine.send("position startpos");
    engine.send("go movetime 99999999999999999999 nodes 99999999999999999999999");
    engine.send("isready");
    engine.expect("readyok", BOUND, |l| l == "readyok");
    engine.send("stop");
    assert_legal(&Position::default(), &engine.bestmove());
    engine.send("go depth ten");
    engine.expect("the word said", BOUND, |l| l == "info string go depth ten: not a whole number; ignored");
    engine.send("stop");
    assert_legal(&Position::default(), &engine.bestmove());
}

/// A line that is not UTF-8 is one unknown command, said in an `info string`, during a search
/// too: the commands after it are read, and `stop` ends the search.
pub fn a_line_that_is_not_utf8_is_an_unknown_command() {
    let mut engine = uci();
    engine.send("go infinite");
    engine.send_bytes(b"\xff\n");
    engine.send("isready");
    engine.expect("readyok", BOUND, |l| l == "readyok");
    engine.send("stop");
    assert_legal(&Position::default(), &engine.bestmove());
    engine.send_bytes(b"position fen 4k3/8/8/8/8/8/8/4K2R w - - 0 1 \xe9\n");
    engine.send("go depth 1");
    // The position line was not read: the search is of the start position.
    assert_legal(&Position::default(), &engine.bestmove());
    let said: Vec<&String> = engine.seen.iter().filter(|l| l.starts_with("info string")).collect();
    assert_eq!(
        said,
        [
            "info string unknown command (not UTF-8): \u{fffd}",
            "info string unknown command (not UTF-8): position fen 4k3/8/8/8/8/8/8/4K2R w - - 0 1 \u{fffd}"
        ]
    );
}

/// The end of input is `quit`, as in Stockfish: a search whose limit is far off is stopped,
/// answers, and the engine exits. With `--finish-at-eof` a search with a limit runs to it and
/// one without is stopped.
pub fn the_end_of_input_stops_the_search_and_exits() {
    for go in ["go depth 60", "go movetime 600000", "go nodes 100000000000", "go wtime 3600000 btime 3600000"]
    {
        let mut engine = uci();
        engine.send("position startpos");
        engine.send(go);
        engine.close_input();
        assert_legal(&Position::default(), &engine.bestmove());
        assert!(engine.exit_within(BOUND).success(), "{go}");
    }
    let mut engine = Engine::start(&["uci", "--finish-at-eof"]);
    engine.send("go depth 3");
    engine.send("go");
    engine.close_input();
    engine.expect("depth 3", BOUND, |l| l.starts_with("info depth 3 "));
    assert_legal(&Position::default(), &engine.bestmove());
    assert_legal(&Position::default(), &engine.bestmove());
    assert!(engine.exit_within(BOUND).success());
}

/// `pgnkit uci` after its handshake, and the `option` line it offered `name` with (`uciok` if none).
fn offered(name: &str) -> (Engine, String) {
    let mut engine = Engine::start(&["uci"]);
    engine.send("uci");
    let option = format!("option name {name} type ");
    let line = engine.expect(name, BOUND, |l| l.starts_with(&option) || l == "uciok");
    (engine, line)
}

/// Panics if the engine said something of a setting (`info string`): a refusal.
fn assert_no_info_string(engine: &Engine) {
    assert!(!engine.seen.iter().any(|l| l.starts_with("info string")), "{:?}", engine.seen);
}

/// `Move Overhead` is offered as Stockfish offers it, and set without a word.
pub fn move_overhead_is_an_option() {
    let (mut engine, line) = offered("Move Overhead");
    assert_eq!(line, "option name Move Overhead type spin default 10 min 0 max 5000");
    engine.send("setoption name Move Overhead value 100");
    engine.send("position startpos");
    engine.send("go movetime 150");
    assert_legal(&Position::default(), &engine.bestmove());
    assert_no_info_string(&engine);
}

/// `Ponder` is offered, since `go ponder` and `ponderhit` work: GUIs ponder only with engines
/// that offer it.
pub fn ponder_is_offered_and_works() {
    let (mut engine, line) = offered("Ponder");
    assert_eq!(line, "option name Ponder type check default false");
    engine.send("setoption name Ponder value true");
    engine.send("position startpos moves e2e4");
    engine.send("go ponder wtime 1000 btime 1000");
    engine.send("isready");
    engine.expect("readyok", BOUND, |l| l == "readyok");
    engine.send("ponderhit");
    let start = Position::default();
    assert_legal(&after(&start, &moves(&start, &["e2e4"])), &engine.bestmove());
    assert_no_info_string(&engine);
}

/// `MultiPV` is offered as Stockfish offers it; set to 3, each depth's `info` lines say
/// `multipv 1` to `3` with three different first moves, and the best move is the first line's.
pub fn multipv_is_an_option_and_lines_are_ranked() {
    let (mut engine, line) = offered("MultiPV");
    assert_eq!(line, "option name MultiPV type spin default 1 min 1 max 256");
    engine.send("setoption name MultiPV value 3");
    engine.send("position startpos");
    engine.send("go depth 5");
    let best = engine.bestmove();
    assert_no_info_string(&engine);
    let words = |l: &String| l.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    let at = |w: &[String], key: &str| w.iter().position(|x| x == key).map(|i| w[i + 1].clone());
    let infos: Vec<Vec<String>> =
        engine.seen.iter().filter(|l| l.starts_with("info depth 5 ")).map(words).collect();
    let ranks: Vec<_> = infos.iter().map(|w| at(w, "multipv")).collect();
    assert_eq!(ranks, [Some("1".into()), Some("2".into()), Some("3".into())], "{infos:?}");
    let mut firsts: Vec<_> = infos.iter().map(|w| at(w, "pv").expect("a pv")).collect();
    assert_eq!(firsts[0], best);
    firsts.sort();
    firsts.dedup();
    assert_eq!(firsts.len(), 3, "{infos:?}");
    engine.seen.clear();
    engine.send("setoption name MultiPV value 1");
    engine.send("go depth 3");
    engine.bestmove();
    assert!(
        !engine.seen.iter().any(|l| l.starts_with("info depth 3 ") && l.contains(" multipv ")),
        "{:?}",
        engine.seen
    );
}
