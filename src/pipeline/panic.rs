//! A worker's panic caught by the pipeline: its message, for [`crate::error::Panic`].

/// The message a panic carried, or `panic` when it carried none that reads.
pub(crate) fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string())
}
