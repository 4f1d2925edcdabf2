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
