//! Skip or fail: what a test does when a tool or data set it needs is missing. On a user's clone
//! it prints `TEST: skipped: REASON` and passes; under CI (`CI` set, other than `false` or `0`)
//! it fails with the same reason, so a broken install step cannot pass as a green run. Shared by
//! the library's unit tests and the test binaries `it` and `uci` (each includes it with `#[path]`).

use std::fmt::Display;

/// Whether this run is CI's: `CI` set and not empty, `false` or `0` (CI services set `CI=true`).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.to_ascii_lowercase().as_str(), "" | "false" | "0"))
}

/// The calling test cannot run for `reason`: prints that it is skipped, or under CI panics with
/// the reason. The test is named by its thread (libtest and the `uci` runner name each test's
/// thread after it).
#[track_caller]
pub fn skip(reason: impl Display) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    if in_ci() {
        panic!("{test}: {reason} (CI is set: a test that cannot run fails; elsewhere it is skipped)");
    }
    eprintln!("{test}: skipped: {reason}");
}

/// Whether python-chess is missing (then the caller's test is skipped, and says so; under CI it
/// fails).
#[allow(dead_code)] // the `uci` test binary has no python-chess oracle
pub fn python_chess_missing() -> bool {
    python_missing("chess.pgn", "python-chess", "pip install chess==1.11.2")
}

/// Whether `python3 -c "import MODULES"` fails: then the caller's test is skipped, naming `what`
/// is missing and the command that installs it (under CI it fails).
#[allow(dead_code)] // not every test binary has a Python oracle
pub fn python_missing(modules: &str, what: &str, install: &str) -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip(format_args!("{what} not found ({install})"));
    }
    !ok
}
