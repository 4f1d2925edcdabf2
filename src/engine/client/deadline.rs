//! When a search has taken too long: the rule, its numbers, and [`Pace`], what it learns from the
//! searches an engine finishes.
//!
//! - `go movetime T`: hung at T plus [`Timeouts::grace`].
//! - `go nodes N`: until [`WARM_UP`] searches under the same limit have ended on their own, hung at
//!   the generous [`Timeouts::search`] plus N / [`MIN_NPS`] seconds; from then on, hung at
//!   [`MULTIPLE`] times the slowest of them, and never before [`FLOOR`]. Time under a node limit
//!   follows the nodes: Stockfish's slowest search is a few times its median at 100,000 nodes and
//!   more, and at 1,000 nodes, where a search takes a millisecond or two, the slowest is the
//!   machine's scheduling noise (90 ms on a loaded 2-core machine), which the floor covers 20
//!   times over.
//! - `go depth D`: the same times, but when one passes the engine is not declared hung: it is
//!   asked `isready`, which UCI requires it to answer at once even while searching. A `readyok`
//!   within [`Timeouts::alive`] says it is alive, and it is asked again when the search has run
//!   twice as long; silence is a hang. Time under a depth limit spreads far more than under a
//!   node limit (a sharp middlegame takes many times a quiet one), so no multiple of the slowest
//!   search seen is safe; an engine that answers is never stopped, whatever its search takes.
//! - `go infinite`: stopped at [`Timeouts::search`], by design.
//! - [`Timeouts::fixed`] (`annotate --engine-timeout`) replaces all of these: hung at that time
//!   (past T under a movetime), no question asked.
//!
//! Once hung, the engine is sent `stop`; an engine that answers that within [`Timeouts::stop`]
//! loses this position only, one that does not is killed and restarted.
//!
//! A [`Pace`] is shared by the clones of the [`EngineConfig`](super::EngineConfig) that holds it,
//! so the engines of a pool, started from one configuration, learn together: they run the same
//! program at the same limit, and pooling their searches ends the warm-up (where a hang costs the
//! generous default) after [`WARM_UP`] searches of the pool instead of [`WARM_UP`] per engine.

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
pub const MULTIPLE: u32 = 20;

/// The earliest a deadline that follows the engine's pace can be.
pub const FLOOR: Duration = Duration::from_secs(2);

/// Limits whose searches a [`Pace`] keeps, at most (the least recently used goes).
const LIMITS_KEPT: usize = 16;

/// What happens when a search's deadline passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overdue {
    /// The engine is hung: it is sent `stop`, and killed if it does not answer that either.
    Hung,
    /// The engine is asked `isready`: a `readyok` within [`Timeouts::alive`] lets the search run
    /// on to twice its time so far (and the question is asked again then); none is a hang.
    Ask,
}

/// Where a deadline comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// [`Timeouts::fixed`].
    Fixed,
    /// The `movetime` and [`Timeouts::grace`].
    Movetime,
    /// The generous default: the engine has not shown its pace under this limit yet.
    Default,
    /// [`MULTIPLE`] times the slowest search that ended on its own (this long), or [`FLOOR`].
    Pace(Duration),
}

impl std::fmt::Display for Basis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Basis::Fixed => f.write_str("the fixed deadline"),
            Basis::Movetime => f.write_str("the movetime and its grace"),
            Basis::Default => f.write_str("the default, before the engine's pace is known"),
            Basis::Pace(slowest) => write!(
                f,
                "{MULTIPLE} x its slowest search under this limit, {:.3} s, and at least {} s",
                slowest.as_secs_f64(),
                FLOOR.as_secs_f64()
            ),
        }
    }
}

/// How long a search may run, and what happens then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    /// From `go`.
    pub after: Duration,
    /// What passing it means.
    pub overdue: Overdue,
    /// Where it comes from.
    pub basis: Basis,
}

impl Timeouts {
    /// The deadline of a search under `limit`, when the slowest search that ended on its own
    /// under it took `slowest` (`None`: fewer than [`WARM_UP`] have); see the module docs.
    pub fn deadline(&self, limit: &Limit, slowest: Option<Duration>) -> Deadline {
        let hung = |after, basis| Deadline { after, overdue: Overdue::Hung, basis };
        if let Some(fixed) = self.fixed {
            return hung(limit.movetime.map_or(fixed, |t| t.saturating_add(fixed)), Basis::Fixed);
        }
        let (learned, basis) = match slowest {
            Some(s) => (Some(s.saturating_mul(MULTIPLE).max(FLOOR)), Basis::Pace(s)),
            None => (None, Basis::Default),
        };
        match (limit.movetime, limit.nodes, limit.depth) {
            (Some(t), _, _) => hung(t.saturating_add(self.grace), Basis::Movetime),
            (None, Some(n), _) => {
                let default = || {
                    self.search.saturating_add(Duration::from_micros(n.saturating_mul(1_000_000 / MIN_NPS)))
                };
                hung(learned.unwrap_or_else(default), basis)
            }
            (None, None, Some(_)) => {
                Deadline { after: learned.unwrap_or(self.search), overdue: Overdue::Ask, basis }
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

/// Per limit, how many searches ended on their own and how long the slowest took. Clones share
/// it (the engines of a pool learn together).
#[derive(Clone, Debug, Default)]
pub struct Pace {
    /// Most recently used last.
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Pace {
    /// Nothing seen yet.
    pub fn new() -> Pace {
        Pace::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Seen>> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The slowest search under `limit` once [`WARM_UP`] have ended on their own, else `None`.
    pub fn slowest(&self, limit: &Limit) -> Option<Duration> {
        let seen = self.lock();
        seen.iter().find(|s| s.limit == *limit).filter(|s| s.searches >= WARM_UP).map(|s| s.slowest)
    }

    /// A search under `limit` that ended on its own after `took`.
    pub fn record(&self, limit: &Limit, took: Duration) {
        let mut seen = self.lock();
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn deadlines_follow_the_limit_then_the_pace() {
        let t = Timeouts::default();
        let hung = |after, basis| Deadline { after: ms(after), overdue: Overdue::Hung, basis };
        let ask = |after, basis| Deadline { after: ms(after), overdue: Overdue::Ask, basis };
        let (default, movetime, fixed) = (Basis::Default, Basis::Movetime, Basis::Fixed);
        assert_eq!(t.deadline(&Limit::movetime(ms(100)), None), hung(5_100, movetime));
        assert_eq!(t.deadline(&Limit::movetime(ms(100)), Some(ms(100))), hung(5_100, movetime));
        assert_eq!(t.deadline(&Limit::nodes(1_000_000), None), hung(110_000, default));
        assert_eq!(t.deadline(&Limit::nodes(1_000), Some(ms(3))), hung(2_000, Basis::Pace(ms(3))));
        assert_eq!(t.deadline(&Limit::nodes(1_000_000), Some(ms(900))), hung(18_000, Basis::Pace(ms(900))));
        assert_eq!(t.deadline(&Limit::depth(30), None), ask(60_000, default));
        assert_eq!(t.deadline(&Limit::depth(18), Some(ms(2_500))), ask(50_000, Basis::Pace(ms(2_500))));
        // Nodes and depth: the nodes bound the time.
        let both = Limit { nodes: Some(1_000), depth: Some(18), movetime: None };
        assert_eq!(t.deadline(&both, Some(ms(3))), hung(2_000, Basis::Pace(ms(3))));
        assert_eq!(t.deadline(&Limit::infinite(), Some(ms(3))), hung(60_000, default));
        let both = Limit { nodes: Some(u64::MAX), depth: None, movetime: Some(Duration::from_secs(1)) };
        assert_eq!(t.deadline(&both, None), hung(6_000, movetime));
        // A fixed deadline replaces the rule.
        let t = Timeouts { fixed: Some(ms(1_500)), ..t };
        assert_eq!(t.deadline(&Limit::nodes(1_000_000), None), hung(1_500, fixed));
        assert_eq!(t.deadline(&Limit::depth(30), Some(ms(100))), hung(1_500, fixed));
        assert_eq!(t.deadline(&Limit::movetime(ms(100)), None), hung(1_600, fixed));
        assert_eq!(
            Basis::Pace(ms(31)).to_string(),
            format!("{MULTIPLE} x its slowest search under this limit, 0.031 s, and at least 2 s")
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
        // Limits beyond the kept number push out the least recently used.
        for n in 0..LIMITS_KEPT as u64 {
            pace.record(&Limit::nodes(n), ms(1));
        }
        assert_eq!(pace.lock().len(), LIMITS_KEPT);
        assert!(pace.lock().iter().all(|s| s.limit != nodes));
        assert_eq!(pace.slowest(&nodes), None);
    }
}
