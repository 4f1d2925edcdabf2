//! Running the built binary, and finding fixtures and the shared data sets.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The binary under test.
pub fn pgnkit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pgnkit"))
}

/// Runs `pgnkit ARGS` with no stdin and returns its output.
pub fn run(args: &[&str]) -> Output {
    pgnkit().args(args).stdin(Stdio::null()).output().expect("run pgnkit")
}

/// Stdout as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A file under `fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(rel)
}
