//! Progress on stderr with indicatif: input bytes consumed of the total (compressed bytes for
//! compressed input), MB/s, ETA. Hidden when stderr is not a terminal or with `--quiet`.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pgnkit::pipeline::Observer;

/// A progress bar for one input.
pub struct Progress {
    bar: ProgressBar,
    /// Bytes the I/O layer has consumed (streams); `None` for mapped files.
    consumed: Option<Arc<AtomicU64>>,
}

impl Progress {
    /// A bar for an input of `total` bytes (`None` for pipes), named `name`.
    pub fn new(name: &str, total: Option<u64>, consumed: Option<Arc<AtomicU64>>, quiet: bool) -> Progress {
        let bar = match total {
            Some(t) => ProgressBar::new(t),
            None => ProgressBar::new_spinner(),
        };
        if quiet || !std::io::stderr().is_terminal() {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        let template = if total.is_some() {
            "{prefix} [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}"
        } else {
            "{prefix} {spinner} {bytes} {binary_bytes_per_sec}"
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(name.to_string());
        Progress { bar, consumed }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Observer for Progress {
    fn advance(&self, bytes: u64) {
        match &self.consumed {
            Some(c) => self.bar.set_position(c.load(Ordering::Relaxed)),
            None => self.bar.inc(bytes),
        }
    }
}
