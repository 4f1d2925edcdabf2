//! Ctrl-C (and SIGTERM, SIGHUP) for the commands that read PGN, as in ../shared/CONVENTIONS.md:
//! the first asks the run to stop at the next chunk it would release, so everything released
//! before is written and flushed, the summary says where the run stopped, and the exit code is
//! 130; the second ends the process at once (130).

use std::sync::atomic::{AtomicBool, Ordering};

use crate::cli::Code;

/// Set by the first signal; read by the pipeline before it releases each chunk.
static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Installs the handler. If it cannot be installed, the signals keep their default action.
pub fn install() {
    // ctrlc runs the closure on a thread of its own, not in signal context.
    let _ = ctrlc::set_handler(|| {
        if REQUESTED.swap(true, Ordering::SeqCst) {
            std::process::exit(Code::Interrupted as i32);
        }
    });
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// The line that tells where an interrupted run stopped: everything before it was written.
pub fn stopped_line(file: &str, games: u64) -> String {
    format!("pgnkit: interrupted: stopped after game {games} of {file}; the output holds every game before\n")
}
