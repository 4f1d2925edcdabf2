//! What can go wrong with an engine, and how long it is given: the [`Timeouts`] (handshake,
//! `readyok`, a search: the rule is in `deadline.rs`), [`StartError`] for an engine that never becomes usable
//! (exit code 69), and the [`Fault`]s of one attempt at a position that decide between a restart
//! and retry (crash), a kill and restart (hang) and an error for the position alone.

use std::path::PathBuf;
use std::time::Duration;

use crate::analysis::AnalyzerError;

/// How long an engine is given for each step. Generous by default: a slow engine costs time,
/// a deadline that fires early costs an evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// From `uci` to `uciok`.
    pub handshake: Duration,
    /// From `isready` to `readyok` (allocating the hash, loading a network).
    pub ready: Duration,
    /// Added to a `movetime` limit to make the search's deadline.
    pub grace: Duration,
    /// The generous deadline of a search under a node limit (plus one second per
    /// [`MIN_NPS`](super::MIN_NPS) nodes) until the engines have shown their pace, or of one that
    /// cannot be asked `isready` ([`Timeouts::deadline`]); also how long an unlimited search
    /// runs before it is stopped.
    pub search: Duration,
    /// The earliest a deadline that follows the engines' pace can be, and when a search whose
    /// pace is not known yet is first asked `isready`.
    pub floor: Duration,
    /// A fixed deadline for every search (past its time under a `movetime` limit), in place of
    /// the rule of [`Timeouts::deadline`]: `annotate --engine-timeout`.
    pub fixed: Option<Duration>,
    /// After `isready` during a search, how long to wait for `readyok` before the engine counts
    /// as hung: a search is lost when an engine that is alive misses it. Stockfish answered in
    /// 0.16 ms (median), 12 ms at the slowest, of 30 searches on a loaded 2-core machine.
    pub alive: Duration,
    /// After `stop`, how long to wait for `bestmove` before killing the engine: one that misses
    /// it costs a restart (its answer to a search past its deadline is not used). Stockfish
    /// answered in 0.07 ms (median), 0.14 ms at the slowest, as above.
    pub stop: Duration,
    /// After `quit`, how long to wait for the engine to exit before killing it.
    pub quit: Duration,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            handshake: Duration::from_secs(10),
            ready: Duration::from_secs(30),
            grace: Duration::from_secs(5),
            search: Duration::from_secs(60),
            floor: Duration::from_secs(2),
            fixed: None,
            alive: Duration::from_secs(2),
            stop: Duration::from_secs(1),
            quit: Duration::from_secs(1),
        }
    }
}

/// An engine that cannot be used at all: the run stops with exit code 69.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// No file at the path, or not on `PATH`.
    #[error("engine not found: {}", path.display())]
    NotFound {
        /// The path asked for.
        path: PathBuf,
    },
    /// The file could not be run (permissions, not an executable...).
    #[error("cannot run engine {}: {source}", path.display())]
    Spawn {
        /// The path asked for.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It ran but did not complete the UCI handshake (`uci` ... `uciok`, `isready` ... `readyok`).
    #[error("engine {} failed its UCI handshake: {reason}", path.display())]
    Handshake {
        /// The path asked for.
        path: PathBuf,
        /// What happened instead (with the engine's last stderr lines when it wrote some).
        reason: String,
    },
}

/// Why one attempt at a position failed, which decides what comes next.
#[derive(Debug)]
pub(crate) enum Fault {
    /// The engine exited or its pipe broke: restart it and try the position again.
    Crashed(String),
    /// It did not answer in time, not even `stop`: kill it (restarted for the next position).
    /// What it did not answer, and when.
    Hung(String),
    /// It missed its deadline but answered `stop`: alive, but this position has no result that
    /// the limit alone decided. Why it was stopped.
    Stopped(String),
    /// The run is being interrupted: the search was stopped and its answer set aside.
    Interrupted,
    /// Its answer cannot be used (no score, no legal move): an error for this position.
    Failed(AnalyzerError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_engine_is_exit_69() {
        let e: crate::error::Error = StartError::NotFound { path: "/no/such".into() }.into();
        let code = crate::exit::Code::Unavailable;
        assert_eq!((e.exit_code(), e.to_string().as_str()), (code, "engine not found: /no/such"));
        // A restart that fails: the start error is kept as the source.
        let e: crate::error::Error =
            AnalyzerError::from(StartError::Handshake { path: "/x".into(), reason: "no uciok".into() })
                .into();
        assert_eq!(e.exit_code(), code);
        assert_eq!(e.to_string(), "engine unavailable: engine /x failed its UCI handshake: no uciok");
        let source = std::error::Error::source(&e).and_then(|s| s.downcast_ref::<StartError>());
        assert!(matches!(source, Some(StartError::Handshake { .. })), "{e:?}");
    }
}
