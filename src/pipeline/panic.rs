//! [`Panic`]: a worker's panic, caught and kept as an error with where it happened.

/// A worker's panic, caught: a bug in pgnkit, reported instead of killing the process.
#[derive(Debug, thiserror::Error)]
#[error("internal error while processing bytes {offset}..: {message}")]
pub struct Panic {
    /// Offset of the chunk that was being processed.
    pub offset: u64,
    /// The panic message.
    pub message: String,
}

pub(crate) fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string())
}
