//! When a search has taken too long: the rule, its numbers, and [`Pace`], what it learns from the
//! searches the engines finish.
//!
//! - `go movetime T`: hung at T plus [`Timeouts::grace`].
//! - `go nodes N` or `go depth D`, for the first [`WARM_UP`] searches under the limit (until that
//!   many have ended on their own): the engine is asked `isready` once the search has run
//!   [`Timeouts::floor`], and again each time its time doubles. UCI requires a `readyok` at once,
//!   even during a search: none within [`Timeouts::alive`] is a hang. Under a node limit the
//!   search is hung anyway at the generous default, [`Timeouts::search`] plus N / [`MIN_NPS`]
//!   seconds.
//! - `go nodes N` after the warm-up: hung at [`MULTIPLE`] times the slowest search that ended on
//!   its own under the limit, and never before [`Timeouts::floor`]. Time under a node limit
//!   follows the nodes: Stockfish's searches after the first five took at most 2.0 times the
//!   slowest before them at 100,000 nodes and 1.5 times at 1,000,000 (on six and four
//!   collections), so the multiple leaves room for a machine that gets busier; at 1,000 nodes a
//!   search takes a millisecond or two and the slowest is the machine's scheduling noise (90-209
//!   ms on a loaded 2-core machine), which the floor covers.
//! - `go depth D` after the warm-up: asked `isready` at [`MULTIPLE`] times the slowest search,
//!   never before the floor, and again each time its time doubles; an engine that answers is
//!   waited for however long its search takes. Time under a depth limit spreads far more than
//!   under a node limit, with the position and with D (at depth 18, five mates found in 1 ms
//!   each, then sharp middlegames of 1.5-2.9 s), so no multiple of the searches seen is safe;
//!   the engine's own answer is.
//! - An engine that leaves that `isready` unanswered but answers `stop` does not read commands
//!   while it searches (that search is lost): from then on it is not asked, and a search the
//!   rule above would ask about is hung at the generous default ([`Timeouts::search`], plus N /
//!   [`MIN_NPS`] seconds under a node limit).
//! - `go infinite`: stopped at [`Timeouts::search`], by design.
//! - [`Timeouts::fixed`] (`annotate --engine-timeout`) replaces all of these: hung at that time
//!   (past T under a movetime), no question asked.
//!
//! Once hung, the engine is sent `stop`; an engine that answers that within [`Timeouts::stop`]
//! loses this position only, one that does not is killed and restarted for the next. The figures
//! above, with their commands (`scripts/search-spread.py`), are in `docs/performance.md`.
//!
//! A [`Pace`] is shared by the clones of the [`EngineConfig`](super::EngineConfig) that holds it,
//! so the engines of a pool, started from one configuration, learn together: they run the same
//! program at the same limit, and pooling their searches ends the warm-up after [`WARM_UP`]
//! searches of the pool instead of [`WARM_UP`] per engine.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::fault::Timeouts;
use crate::analysis::Limit;

/// The slowest node rate a `go nodes` deadline allows for before the engine has shown its pace,
/// in nodes per second, on top of [`Timeouts::search`]: well below any engine on any machine
/// pgnkit runs on.
pub const MIN_NPS: u64 = 20_000;

/// Searches under a limit that must end on their own before the deadline follows them.
pub const WARM_UP: u64 = 5;

/// A search under a limit is overdue at this many times the slowest that ended on its own.
pub const MULTIPLE: u32 = 10;

/// Limits whose searches a [`Pace`] keeps, at most (the least recently used goes).
const LIMITS_KEPT: usize = 16;

/// A duration as seconds for messages: at most two decimals, no trailing zeros (`2`, `0.05`).
pub(crate) struct Secs(pub Duration);

impl std::fmt::Display for Secs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = format!("{:.2}", self.0.as_secs_f64());
        f.write_str(text.trim_end_matches('0').trim_end_matches('.'))
    }
}

/// Where a deadline comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// [`Timeouts::fixed`].
    Fixed,
    /// The `movetime` and [`Timeouts::grace`].
    Movetime,
    /// The generous default: the engine's pace under this limit is not known yet, or the engine
    /// cannot be asked while it searches.
    Default,
    /// [`MULTIPLE`] times the slowest search that ended on its own (this long), or the floor.
    Pace(Duration),
}

impl std::fmt::Display for Basis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Basis::Fixed => f.write_str("the fixed deadline"),
            Basis::Movetime => f.write_str("the movetime and its grace"),
            Basis::Default => f.write_str("the default"),
            Basis::Pace(slowest) => {
                write!(f, "{MULTIPLE} x its slowest search under this limit, {:.3} s", slowest.as_secs_f64())
            }
        }
    }
}

/// When a search is asked about, and when it is hung.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    /// From `go`, when the engine is first asked `isready` (`None`: never); while it answers,
    /// again each time the search's time doubles.
    pub ask: Option<Duration>,
    /// From `go`, when the search is hung whatever the engine answers (`None`: never, while it
    /// answers `isready`).
    pub hung: Option<Duration>,
    /// Where `hung`, else `ask`, comes from.
    pub basis: Basis,
}

impl Timeouts {
    /// The deadline of a search under `limit`, when the slowest search that ended on its own
    /// under it took `slowest` (`None`: fewer than [`WARM_UP`] have), for an engine that is
    /// `deaf` while it searches (it left an `isready` unanswered and answered `stop`); see the
    /// module docs.
    pub fn deadline(&self, limit: &Limit, slowest: Option<Duration>, deaf: bool) -> Deadline {
        let hung = |after, basis| Deadline { ask: None, hung: Some(after), basis };
        if let Some(fixed) = self.fixed {
            return hung(limit.movetime.map_or(fixed, |t| t.saturating_add(fixed)), Basis::Fixed);
        }
        let learned = slowest.map(|s| (s.saturating_mul(MULTIPLE).max(self.floor), Basis::Pace(s)));
        match (limit.movetime, limit.nodes, limit.depth) {
            (Some(t), _, _) => hung(t.saturating_add(self.grace), Basis::Movetime),
            (None, Some(n), _) => {
                let nodes = Duration::from_micros(n.saturating_mul(1_000_000 / MIN_NPS));
                let default = self.search.saturating_add(nodes);
                match learned {
                    Some((after, basis)) => hung(after, basis),
                    None if deaf => hung(default, Basis::Default),
                    None => Deadline { ask: Some(self.floor), hung: Some(default), basis: Basis::Default },
                }
            }
            (None, None, Some(_)) if deaf => hung(self.search, Basis::Default),
            (None, None, Some(_)) => {
                let (after, basis) = learned.unwrap_or((self.floor, Basis::Default));
                Deadline { ask: Some(after), hung: None, basis }
            }
            (None, None, None) => hung(self.search, Basis::Default),
        }
    }
}

/// What one limit's searches have shown.
#[derive(Clone, Copy, Debug)]
struct Seen {
    limit: Limit,
    /// Searches that ended on their own.
    searches: u64,
    /// The slowest of them, from `go` to `bestmove`.
    slowest: Duration,
}

/// What a pool of engines has shown: per limit, how many searches ended on their own and how
/// long the slowest took; whether the engine is deaf while it searches. Clones share it.
#[derive(Clone, Debug, Default)]
pub struct Pace {
    shown: Arc<Mutex<Shown>>,
}

#[derive(Debug, Default)]
struct Shown {
    /// Most recently used last.
    seen: Vec<Seen>,
    /// An `isready` during a search went unanswered and `stop` was answered.
    deaf: bool,
}

impl Pace {
    /// Nothing seen yet.
    pub fn new() -> Pace {
        Pace::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shown> {
        self.shown.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The slowest search under `limit` once [`WARM_UP`] have ended on their own, else `None`.
    pub fn slowest(&self, limit: &Limit) -> Option<Duration> {
        let shown = self.lock();
        shown.seen.iter().find(|s| s.limit == *limit).filter(|s| s.searches >= WARM_UP).map(|s| s.slowest)
    }

    /// A search under `limit` that ended on its own after `took`.
    pub fn record(&self, limit: &Limit, took: Duration) {
        let seen = &mut self.lock().seen;
        let mut entry = match seen.iter().position(|s| s.limit == *limit) {
            Some(i) => seen.remove(i),
            None => Seen { limit: *limit, searches: 0, slowest: Duration::ZERO },
        };
        entry.searches += 1;
        entry.slowest = entry.slowest.max(took);
        if seen.len() == LIMITS_KEPT {
            seen.remove(0);
        }
        seen.push(entry);
    }

    /// Whether the engine left an `isready` during a search unanswered and answered `stop`.
    pub fn deaf(&self) -> bool {
        self.lock().deaf
    }

    /// The engine left an `isready` during a search unanswered and answered `stop`.
    pub fn set_deaf(&self) {
        self.lock().deaf = true;
    }

    /// The deadline of the next search under `limit` ([`Timeouts::deadline`]).
    pub fn deadline(&self, timeouts: &Timeouts, limit: &Limit) -> Deadline {
        timeouts.deadline(limit, self.slowest(limit), self.deaf())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn deadline(ask: Option<u64>, hung: Option<u64>, basis: Basis) -> Deadline {
        Deadline { ask: ask.map(ms), hung: hung.map(ms), basis }
    }

    #[test]
    fn deadlines_follow_the_limit_then_the_pace() {
        let t = Timeouts::default();
        let (default, movetime, fixed) = (Basis::Default, Basis::Movetime, Basis::Fixed);
        let pace = |n| Basis::Pace(ms(n));
        let nodes = Limit::nodes(1_000_000);
        assert_eq!(t.deadline(&Limit::movetime(ms(100)), None, false), deadline(None, Some(5_100), movetime));
        assert_eq!(
            t.deadline(&Limit::movetime(ms(100)), Some(ms(100)), true),
            deadline(None, Some(5_100), movetime)
        );
        // Nodes: asked from the floor, hung at the default; then hung at the pace's deadline.
        assert_eq!(t.deadline(&nodes, None, false), deadline(Some(2_000), Some(110_000), default));
        assert_eq!(t.deadline(&nodes, None, true), deadline(None, Some(110_000), default));
        assert_eq!(t.deadline(&nodes, Some(ms(900)), false), deadline(None, Some(9_000), pace(900)));
        assert_eq!(t.deadline(&nodes, Some(ms(900)), true), deadline(None, Some(9_000), pace(900)));
        assert_eq!(
            t.deadline(&Limit::nodes(1_000), Some(ms(3)), false),
            deadline(None, Some(2_000), pace(3))
        );
        // Depth: asked, never hung while the engine answers, unless it cannot be asked.
        assert_eq!(t.deadline(&Limit::depth(30), None, false), deadline(Some(2_000), None, default));
        assert_eq!(
            t.deadline(&Limit::depth(18), Some(ms(2_500)), false),
            deadline(Some(25_000), None, pace(2_500))
        );
        assert_eq!(t.deadline(&Limit::depth(18), Some(ms(1)), false), deadline(Some(2_000), None, pace(1)));
        assert_eq!(
            t.deadline(&Limit::depth(18), Some(ms(2_500)), true),
            deadline(None, Some(60_000), default)
        );
        // Nodes and depth: the nodes bound the time.
        let both = Limit { nodes: Some(1_000), depth: Some(18), movetime: None };
        assert_eq!(t.deadline(&both, Some(ms(3)), false), deadline(None, Some(2_000), pace(3)));
        assert_eq!(t.deadline(&Limit::infinite(), Some(ms(3)), false), deadline(None, Some(60_000), default));
        let both = Limit { nodes: Some(u64::MAX), depth: None, movetime: Some(Duration::from_secs(1)) };
        assert_eq!(t.deadline(&both, None, false), deadline(None, Some(6_000), movetime));
        // A fixed deadline replaces the rule.
        let t = Timeouts { fixed: Some(ms(1_500)), ..t };
        assert_eq!(t.deadline(&nodes, None, false), deadline(None, Some(1_500), fixed));
        assert_eq!(t.deadline(&Limit::depth(30), Some(ms(100)), false), deadline(None, Some(1_500), fixed));
        assert_eq!(t.deadline(&Limit::movetime(ms(100)), None, false), deadline(None, Some(1_600), fixed));
        assert_eq!(
            pace(31).to_string(),
            format!("{MULTIPLE} x its slowest search under this limit, 0.031 s")
        );
    }

    #[test]
    fn the_pace_is_learnt_per_limit_and_shared_by_clones() {
        let pace = Pace::new();
        let shared = pace.clone();
        let (nodes, depth) = (Limit::nodes(1000), Limit::depth(12));
        for i in 1..WARM_UP {
            pace.record(&nodes, ms(i));
            assert_eq!(shared.slowest(&nodes), None, "{i} searches");
        }
        shared.record(&nodes, ms(2));
        assert_eq!(pace.slowest(&nodes), Some(ms(WARM_UP - 1)));
        pace.record(&nodes, ms(40));
        assert_eq!(shared.slowest(&nodes), Some(ms(40)));
        assert_eq!(pace.slowest(&depth), None);
        let t = Timeouts::default();
        assert_eq!(shared.deadline(&t, &nodes), deadline(None, Some(2_000), Basis::Pace(ms(40))));
        assert_eq!(shared.deadline(&t, &depth), deadline(Some(2_000), None, Basis::Default));
        pace.set_deaf();
        assert!(shared.deaf());
        assert_eq!(shared.deadline(&t, &depth), deadline(None, Some(60_000), Basis::Default));
        // Limits beyond the kept number push out the least recently used.
        for n in 0..LIMITS_KEPT as u64 {
            pace.record(&Limit::nodes(n), ms(1));
        }
        assert_eq!(pace.lock().seen.len(), LIMITS_KEPT);
        assert!(pace.lock().seen.iter().all(|s| s.limit != nodes));
        assert_eq!(pace.slowest(&nodes), None);
    }
}
