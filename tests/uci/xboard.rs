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
