//! `pgnkit xboard`, the built-in engine's xboard (CECP 2) side, driven over pipes: commands
//! read while it thinks.

use crate::pipe::{BOUND, Engine};

/// `pgnkit xboard` after `xboard` and `protover 2`.
fn xboard() -> Engine {
    let mut engine = Engine::start(&["xboard"]);
    engine.send("xboard");
    engine.send("protover 2");
    engine.expect("the features", BOUND, |l| l.starts_with("feature ") && l.ends_with("done=1"));
    engine
}

/// A line that is not UTF-8 is an unknown command: an error, then the next command.
pub fn a_line_that_is_not_utf8_is_an_unknown_command() {
    let mut engine = xboard();
    engine.send_bytes(b"\xff\n");
    engine.send("ping 1");
    let said = engine.expect("pong 1", BOUND, |l| l == "pong 1" || l.starts_with("Error"));
    assert_eq!(said, "Error (unknown command, not UTF-8): \u{fffd}");
    engine.expect("pong 1", BOUND, |l| l == "pong 1");
}

/// `ping` while the engine thinks is answered after its move, as CECP asks, but `?` and `quit`
/// read after the `ping` still act at once; `force` with nothing waiting abandons the search.
pub fn ping_while_thinking_lets_move_now_and_quit_through() {
    let mut engine = xboard();
    // Two minutes a move: only `?` makes it move within the bound.
    engine.send("new");
    engine.send("st 120");
    engine.send("usermove d2d4");
    engine.send("ping 9");
    engine.send("?");
    let said = engine.expect("a move", BOUND, |l| l.starts_with("move ") || l.starts_with("pong"));
    assert!(said.starts_with("move "), "{said}");
    engine.expect("pong 9", BOUND, |l| l == "pong 9");
    // `force` abandons the search: no move, then the pong.
    engine.send("usermove g1f3");
    engine.send("force");
    engine.send("ping 10");
    let said = engine.expect("pong 10", BOUND, |l| l.starts_with("move ") || l.starts_with("pong"));
    assert_eq!(said, "pong 10");
    engine.send("go");
    engine.send("ping 11");
    engine.send("quit");
    assert!(engine.exit_within(BOUND).success());
    assert!(!engine.seen.iter().any(|l| l == "pong 11"), "{:?}", engine.seen);
}

/// The end of input is `quit`: the engine thinking about a depth far off ends at once. With
/// `--finish-at-eof` it moves first.
pub fn the_end_of_input_is_quit() {
    let mut engine = xboard();
    engine.send("new");
    engine.send("sd 60");
    engine.send("usermove e2e4");
    engine.close_input();
    assert!(engine.exit_within(BOUND).success());
    let mut engine = Engine::start(&["xboard", "--finish-at-eof"]);
    engine.send("new");
    engine.send("sd 3");
    engine.send("usermove e2e4");
    engine.send("ping 1");
    engine.close_input();
    engine.expect("a move", BOUND, |l| l.starts_with("move "));
    engine.expect("pong 1", BOUND, |l| l == "pong 1");
    assert!(engine.exit_within(BOUND).success());
}

/// The first move of a thinking line (`depth score time nodes pv...`), if it is one.
fn thinking_move(line: &str) -> Option<&str> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let numbers = fields.len() > 4 && fields[..4].iter().all(|f| f.parse::<i64>().is_ok());
    numbers.then(|| fields[4])
}

/// Analyze mode, as WinBoard and python-chess use it: the engine thinks about each position
/// without end and posts its lines; moves and `undo` make it analyse the new position, `ping`
/// is answered while it thinks, `?` does not make it move, `exit` ends it. No move is ever sent.
pub fn analyze_mode_follows_the_position_and_never_moves() {
    let mut engine = xboard();
    engine.send("new");
    engine.send("force");
    engine.send("analyze");
    // White's lines from the start, then Black's after 1. e4, then White's again after `undo`.
    let white = |l: &str| thinking_move(l).is_some_and(|m| matches!(&m[1..2], "1" | "2"));
    let black = |l: &str| thinking_move(l).is_some_and(|m| matches!(&m[1..2], "7" | "8"));
    engine.expect("a line of White's", BOUND, white);
    engine.send("ping 1");
    engine.expect("pong 1 during the analysis", BOUND, |l| l == "pong 1");
    engine.send("usermove e2e4");
    engine.expect("a line of Black's", BOUND, black);
    engine.send("?");
    engine.send("undo");
    engine.expect("a line of White's again", BOUND, white);
    engine.send("exit");
    engine.send("ping 2");
    engine.expect("pong 2", BOUND, |l| l == "pong 2");
    // Out of analyze mode the engine plays again when told to.
    engine.send("sd 2");
    engine.send("go");
    engine.expect("a move", BOUND, |l| l.starts_with("move "));
    let moves = engine.seen.iter().filter(|l| l.starts_with("move ")).count();
    let errors: Vec<_> =
        engine.seen.iter().filter(|l| l.starts_with("Error") || l.starts_with("Illegal")).collect();
    assert_eq!((moves, errors.len()), (1, 0), "{:?}", engine.seen);
    engine.send("quit");
    assert!(engine.exit_within(BOUND).success());
}
