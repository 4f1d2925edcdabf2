//! Progress on stderr with indicatif: input bytes consumed of the total (compressed bytes for
//! compressed input), MB/s, games/s, ETA. Hidden when stderr is not a terminal or with `--quiet`.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use pgnkit::pipeline::Observer;

/// A progress bar for one input.
pub struct Progress {
    bar: ProgressBar,
    /// Bytes the I/O layer has consumed (streams); `None` for mapped files.
    consumed: Option<Arc<AtomicU64>>,
    /// Games released so far.
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
    /// A bar for an input of `total` bytes (`None` for pipes), named `name`.
    pub fn new(name: &str, total: Option<u64>, consumed: Option<Arc<AtomicU64>>, quiet: bool) -> Progress {
        let bar = match total {
            Some(t) => ProgressBar::new(t),
            None => ProgressBar::new_spinner(),
        };
        if quiet || !std::io::stderr().is_terminal() {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        let games = Arc::new(AtomicU64::new(0));
        let counted = Arc::clone(&games);
        if let Ok(style) = ProgressStyle::with_template(template(total.is_some())) {
            let style =
                style.with_key("games_per_sec", move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&games_per_sec(counted.load(Ordering::Relaxed), state.elapsed()));
                });
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(name.to_string());
        Progress { bar, consumed, games }
    }

    /// Games released so far.
    pub fn games(&self) -> u64 {
        self.games.load(Ordering::Relaxed)
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Observer for Progress {
    fn advance(&self, bytes: u64, games: u64) {
        self.games.fetch_add(games, Ordering::Relaxed);
        match &self.consumed {
            Some(c) => self.bar.set_position(c.load(Ordering::Relaxed)),
            None => self.bar.inc(bytes),
        }
    }
    fn interrupted(&self) -> bool {
        crate::cli::interrupt::requested()
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
    fn released_games_are_counted() {
        let p = Progress::new("x.pgn", Some(1000), None, true);
        p.advance(400, 3);
        p.advance(600, 4);
        assert_eq!(p.games.load(Ordering::Relaxed), 7);
        assert_eq!(p.bar.position(), 1000);
    }
}
