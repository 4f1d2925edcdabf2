//! Progress on stderr with indicatif, one bar per input: input bytes consumed of the total
//! (compressed bytes for compressed input), MB/s, games/s, ETA. Hidden when stderr is not a
//! terminal or with `--quiet`. Inputs that fail are reported here too, as they happen.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use pgnkit::error::Error;
use pgnkit::pgn::text::without_controls;
use pgnkit::pipeline::{InputInfo, Observer};

/// The bar of the input being read.
struct Bar {
    bar: ProgressBar,
    /// Bytes the I/O layer has consumed (streams); `None` for mapped files.
    consumed: Option<Arc<AtomicU64>>,
}

/// Progress of a run, and its interrupts (Ctrl-C, see [`crate::cli::interrupt`]).
pub struct Progress {
    quiet: bool,
    bar: Mutex<Option<Bar>>,
    /// Games released so far in the current input.
    games: Arc<AtomicU64>,
}

/// The bar's layout: with a known total, a bar and an ETA; else a spinner.
fn template(total_known: bool) -> &'static str {
    if total_known {
        "{prefix} [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} {games_per_sec} ETA {eta}"
    } else {
        "{prefix} {spinner} {bytes} {binary_bytes_per_sec} {games_per_sec}"
    }
}

/// `12345 games/s` for `games` read in `elapsed`.
fn games_per_sec(games: u64, elapsed: std::time::Duration) -> String {
    format!("{:.0} games/s", games as f64 / elapsed.as_secs_f64().max(1e-3))
}

impl Progress {
    /// Progress for a run; nothing is drawn with `quiet`.
    pub fn new(quiet: bool) -> Progress {
        Progress { quiet, bar: Mutex::new(None), games: Arc::new(AtomicU64::new(0)) }
    }

    fn bar(&self) -> std::sync::MutexGuard<'_, Option<Bar>> {
        self.bar.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Observer for Progress {
    fn begin_input(&self, input: &InputInfo<'_>) {
        let bar = match input.total_bytes {
            Some(t) => ProgressBar::new(t),
            None => ProgressBar::new_spinner(),
        };
        if self.quiet || !std::io::stderr().is_terminal() {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        self.games.store(0, Ordering::Relaxed);
        let counted = Arc::clone(&self.games);
        if let Ok(style) = ProgressStyle::with_template(template(input.total_bytes.is_some())) {
            let style =
                style.with_key("games_per_sec", move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&games_per_sec(counted.load(Ordering::Relaxed), state.elapsed()));
                });
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(without_controls(input.name, &[]).into_owned());
        *self.bar() = Some(Bar { bar, consumed: input.consumed.clone() });
    }

    fn advance(&self, bytes: u64, games: u64) {
        self.games.fetch_add(games, Ordering::Relaxed);
        if let Some(b) = self.bar().as_ref() {
            match &b.consumed {
                Some(c) => b.bar.set_position(c.load(Ordering::Relaxed)),
                None => b.bar.inc(bytes),
            }
        }
    }

    fn interrupted(&self) -> bool {
        crate::cli::interrupt::requested()
    }

    fn end_input(&self) {
        if let Some(b) = self.bar().take() {
            b.bar.finish_and_clear();
        }
    }

    fn input_failed(&self, _: &str, error: &Error) {
        stderrln!("pgnkit: error: {}", without_controls(&error.to_string(), &[]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn templates_parse_and_name_every_figure() {
        for known in [true, false] {
            assert!(ProgressStyle::with_template(template(known)).is_ok(), "{}", template(known));
            for key in ["{bytes}", "{binary_bytes_per_sec}", "{games_per_sec}"] {
                assert!(template(known).contains(key), "{key}");
            }
        }
        assert!(template(true).contains("{eta}") && template(true).contains("{total_bytes}"));
    }

    #[test]
    fn games_per_second() {
        assert_eq!(games_per_sec(4500, Duration::from_millis(1500)), "3000 games/s");
        assert_eq!(games_per_sec(0, Duration::ZERO), "0 games/s");
    }

    #[test]
    fn released_bytes_and_games_are_counted_per_input() {
        let p = Progress::new(true);
        p.begin_input(&InputInfo { name: "x.pgn", total_bytes: Some(1000), consumed: None });
        p.advance(400, 3);
        p.advance(600, 4);
        assert_eq!(p.games.load(Ordering::Relaxed), 7);
        assert_eq!(p.bar().as_ref().map(|b| b.bar.position()), Some(1000));
        p.end_input();
        p.begin_input(&InputInfo { name: "y.pgn", total_bytes: None, consumed: None });
        assert_eq!(p.games.load(Ordering::Relaxed), 0, "a new input counts from 0");
    }
}
