//! The time control of `pgnkit xboard`: what `level`, `st`, `sd` and `time` set, and the search
//! limit it gives the engine's next move.

use std::time::Duration;

use crate::analysis::Limit;

use super::protocol::budget;

/// Time per move when the GUI gave no time control at all.
const DEFAULT_MOVETIME: Duration = Duration::from_secs(5);

/// Time control as the GUI set it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Clock {
    /// Moves per time control period (0: the whole game).
    mps: u32,
    inc: Duration,
    /// Fixed time per move (`st`).
    pub(crate) st: Option<Duration>,
    /// Depth cap (`sd`).
    pub(crate) sd: Option<u32>,
    /// The engine's remaining time (`time`, or the `level` base until the first `time`).
    pub(crate) time: Option<Duration>,
    /// Nodes a second (`nps`): time counted in nodes searched, not on the wall clock.
    pub(crate) nps: Option<u64>,
    /// `nps` came after the last `level` or `st`: it holds for the next one.
    pub(crate) nps_next: bool,
}

impl Clock {
    /// `level MPS BASE INC` (BASE in minutes or `minutes:seconds`, INC in seconds): a new
    /// control, keeping the depth cap; `None` when `arg` does not read as one.
    pub(crate) fn level(&self, arg: &str) -> Option<Clock> {
        let [mps, base, inc] = arg.split_whitespace().collect::<Vec<_>>()[..] else { return None };
        let (mps, base, inc) = (mps.parse().ok()?, parse_duration(base, true)?, parse_duration(inc, false)?);
        Some(Clock { mps, inc, st: None, sd: self.sd, time: Some(base), ..*self })
    }

    /// The clock as a new `level` or `st` leaves it: the node rate holds when `nps` was sent
    /// just before (as CECP sends it), not for a time control set without it (python-chess
    /// sends `nps 1` and `st N` for a node limit, then `st` alone for a time limit).
    pub(crate) fn counted(self) -> Clock {
        Clock { nps: self.nps.filter(|_| self.nps_next), nps_next: false, ..self }
    }

    /// The limit of the engine's move `fullmoves` (the position's move number): `st` wins over a
    /// clock, `sd` caps the depth, and with no time information at all a move takes 5 seconds;
    /// with `nps` the time is that many nodes a second (python-chess's node limits: `nps 1`,
    /// `st N`).
    pub(crate) fn limit(&self, fullmoves: u32) -> Limit {
        let mut limit = Limit { nodes: None, depth: self.sd, movetime: None };
        if let Some(st) = self.st {
            limit.movetime = Some(st);
        } else if let Some(time) = self.time {
            let played = fullmoves.saturating_sub(1);
            let to_go = (self.mps > 0).then(|| self.mps - played % self.mps);
            limit.movetime = Some(budget(time, Some(self.inc), to_go));
        } else if self.sd.is_none() {
            limit.movetime = Some(DEFAULT_MOVETIME);
        }
        if let (Some(nps), Some(time)) = (self.nps, limit.movetime) {
            limit.nodes = Some(((time.as_secs_f64() * nps as f64) as u64).max(1));
            limit.movetime = None;
        }
        limit
    }
}

/// Seconds, possibly fractional, or `minutes:seconds` when `minutes` is set.
pub(crate) fn parse_duration(text: &str, minutes: bool) -> Option<Duration> {
    // Each part on its own: `1:-5` is no time, not 55 seconds.
    let part = |t: &str| t.parse::<f64>().ok().filter(|v| *v >= 0.0);
    let secs = match text.split_once(':') {
        Some((m, s)) => part(m)? * 60.0 + part(s)?,
        None if minutes => part(text)? * 60.0,
        None => part(text)?,
    };
    secs.is_finite().then(|| Duration::from_secs_f64(secs.min(1e9)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_levels_and_limits() {
        assert_eq!(parse_duration("0:30", true), Some(Duration::from_secs(30)));
        assert_eq!(parse_duration("5", true), Some(Duration::from_secs(300)));
        assert_eq!(parse_duration("0.5", false), Some(Duration::from_millis(500)));
        assert_eq!(parse_duration("x", false), None);
        for bad in ["1:-5", "-1:30", "-0.5", "nan", "inf", "1:nan"] {
            assert_eq!(parse_duration(bad, true), None, "{bad}");
        }
        let clock = Clock { sd: Some(7), ..Clock::default() };
        assert_eq!(clock.limit(1), Limit::depth(7));
        assert_eq!(Clock::default().limit(1), Limit::movetime(DEFAULT_MOVETIME));
        let level = clock.level("40 0:02 0").expect("a level");
        assert_eq!((level.mps, level.time, level.sd), (40, Some(Duration::from_secs(2)), Some(7)));
        assert!(clock.level("40 2").is_none() && clock.level("x y z").is_none());
        // `nps 1` then `st 5000`: 5000 nodes; then `st 0.3` alone: time again.
        let mut counted = Clock { nps: Some(1), nps_next: true, ..Clock::default() }.counted();
        counted.st = Some(Duration::from_secs(5000));
        assert_eq!(counted.limit(1), Limit::nodes(5000));
        let mut timed = counted.counted();
        timed.st = Some(Duration::from_millis(300));
        assert_eq!(timed.limit(1), Limit::movetime(Duration::from_millis(300)));
    }
}
