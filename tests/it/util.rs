//! Running the built binary, and finding fixtures and the shared data sets.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::scratch::{Scratch, scratch};
use crate::skip::skip;

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

/// The large shared data sets (`$PGNKIT_SHARED_DATA`, else their directory beside the clone),
/// or `None` after saying the test is skipped (a user's clone has none; under CI, where they are
/// beside the clone, the test fails instead).
pub fn shared_data() -> Option<PathBuf> {
    let dir = std::env::var_os("PGNKIT_SHARED_DATA")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data"), PathBuf::from);
    if dir.is_dir() {
        Some(dir)
    } else {
        skip(format_args!(
            "{} not found (the large shared data sets are not part of the repository)",
            dir.display()
        ));
        None
    }
}

/// The files of the shared data sets named `*.pgn` that hold no PGN, not one tag pair or move:
/// two of kokopu's syntax-error inputs (a line of prose, a line of `#`) and pgn-extract's EPD
/// output. pgnkit refuses each (exit 65, `not_pgn.rs`); the tests of jobs over the collections
/// leave them out.
pub const SHARED_NOT_PGN: [&str; 3] = [
    "malformed_and_tricky/kokopu/syntactic-error-2.pgn",
    "malformed_and_tricky/kokopu/syntactic-error-3.pgn",
    "malformed_and_tricky/pgn-extract/outfiles/test-WWepd-out.pgn",
];

/// Whether `path` is one of [`SHARED_NOT_PGN`].
pub fn shared_not_pgn(path: &Path) -> bool {
    SHARED_NOT_PGN.iter().any(|name| path.ends_with(name))
}

/// A fresh, empty directory for one test, `pgnkit-it-NAME-PID` under the system's temporary
/// directory, removed when the test passes ([`scratch`]).
pub fn temp_dir(name: &str) -> Scratch {
    scratch(&format!("it-{name}"))
}

/// Starts `pgnkit ARGS` with stdin, stdout and stderr piped.
pub fn spawn_piped(args: &[&str]) -> std::process::Child {
    pgnkit()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pgnkit")
}

/// Runs `pgnkit ARGS` with `input` on stdin (written from another thread, so a chatty child
/// cannot deadlock the test) and returns its output.
pub fn run_with_stdin(args: &[&str], input: impl AsRef<[u8]>) -> Output {
    use std::io::Write;
    let mut child = spawn_piped(args);
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.as_ref().to_vec();
    let writer = std::thread::spawn(move || {
        // The child may exit before reading everything (`quit`): ignore a broken pipe.
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait for pgnkit");
    writer.join().expect("stdin writer");
    out
}

pub use crate::signal::{sigint_default, wait_for_sigint_handler};

pub use crate::skip::python_chess_missing;
