//! [`StartError`]: why an engine could not be used at all, the cause of
//! [`AnalyzerError::Unavailable`](super::AnalyzerError::Unavailable) (exit code 69).

use std::path::PathBuf;

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
    /// The built-in engine's hash table (`--hash`) could not be allocated.
    #[error("the built-in engine cannot allocate its {mb} MB hash table (--hash): {source}")]
    Memory {
        /// The size asked for.
        mb: usize,
        /// The allocator's refusal.
        source: std::collections::TryReserveError,
    },
    /// It ran but did not complete the UCI handshake (`uci` ... `uciok`, `isready` ... `readyok`).
    #[error("engine {} failed its UCI handshake: {reason}", path.display())]
    Handshake {
        /// The path asked for.
        path: PathBuf,
        /// What happened instead (with the engine's last stderr lines when it wrote some).
        reason: String,
    },
    /// The run was interrupted (Ctrl-C) while the engine started: no engine is unavailable, and
    /// the run stops as an interrupted one (130).
    #[error("interrupted while the engine started")]
    Interrupted,
}
