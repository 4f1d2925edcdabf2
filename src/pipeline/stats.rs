//! Counters merged across chunks and inputs: games, plies, bytes, diagnostics by kind, the
//! counts a job adds of its own ([`Counter`]: positions written, games filtered out, duplicates,
//! cache hits...), and which tag expressions of the filters some game gave a value.

use super::counter::Counter;
use crate::error::{Diagnostic, Kind, Severity};

/// What a run (or a chunk of it) saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Games read.
    pub games: u64,
    /// Games with at least one error.
    pub games_with_errors: u64,
    /// Games with warnings but no error.
    pub games_with_warnings: u64,
    /// Games with a tag pair or a mainline move written as one (legal, or illegal or ambiguous
    /// where it stands): what PGN has and other text lacks. An input whose games have neither
    /// is not PGN ([`crate::jobs::run`]).
    pub pgn_games: u64,
    /// Lines read as EPD records or FENs (of legal positions or not), by jobs that read EPD
    /// lines: what EPD has and other text lacks.
    pub epd_lines: u64,
    /// Lines of text that are no EPD record or FEN (nor blank, nor a `#` comment), by jobs that
    /// read EPD lines. An input with some and no EPD line is not EPD ([`crate::jobs::run`]).
    pub not_epd_lines: u64,
    /// Mainline plies replayed, of the games the filters keep.
    pub plies: u64,
    /// Input bytes (decompressed).
    pub bytes: u64,
    /// Diagnostics by kind and severity: `(kind, severity, count)`, sorted.
    pub by_kind: Vec<(Kind, Severity, u64)>,
    /// The job's own counts, in the order they were first added (the order summaries list them).
    pub counts: Vec<(Counter, u64)>,
    /// Per tag expression of the run's filters (`--where`, in order): whether some game had the
    /// tags it compares (`select::Filter` sets it; empty when no game was read).
    pub wheres_seen: Vec<bool>,
    /// Per tag `positions --tags` copies (in order): whether some game had it (empty when no
    /// game was read).
    pub tags_seen: Vec<bool>,
}

impl Stats {
    /// Counts one diagnostic.
    pub fn count(&mut self, d: &Diagnostic) {
        self.count_kind(d.kind, d.severity);
    }

    /// Counts one diagnostic of `kind` that was not materialised.
    pub fn count_kind(&mut self, kind: Kind, severity: Severity) {
        self.add_kind(kind, severity, 1);
    }

    /// Counts `n` diagnostics of `kind`.
    pub fn add_kind(&mut self, kind: Kind, severity: Severity, n: u64) {
        match self.by_kind.binary_search_by_key(&(kind, severity), |&(k, s, _)| (k, s)) {
            Ok(i) => self.by_kind[i].2 = self.by_kind[i].2.saturating_add(n),
            Err(i) => self.by_kind.insert(i, (kind, severity, n)),
        }
    }

    /// Adds `n` to the job's count `counter` (created at 0).
    pub fn add(&mut self, counter: Counter, n: u64) {
        match self.counts.iter_mut().find(|(k, _)| *k == counter) {
            Some((_, v)) => *v = v.saturating_add(n),
            None => self.counts.push((counter, n)),
        }
    }

    /// The job's count `counter` (0 if never added).
    pub fn get(&self, counter: Counter) -> u64 {
        self.counts.iter().find(|(k, _)| *k == counter).map_or(0, |&(_, v)| v)
    }

    /// Adds `other` into `self`. The sums saturate: counts read from a shard's manifest can be
    /// anything, and a wrapped sum would pass for a small count.
    pub fn merge(&mut self, other: &Stats) {
        self.games = self.games.saturating_add(other.games);
        self.games_with_errors = self.games_with_errors.saturating_add(other.games_with_errors);
        self.games_with_warnings = self.games_with_warnings.saturating_add(other.games_with_warnings);
        self.pgn_games = self.pgn_games.saturating_add(other.pgn_games);
        self.epd_lines = self.epd_lines.saturating_add(other.epd_lines);
        self.not_epd_lines = self.not_epd_lines.saturating_add(other.not_epd_lines);
        self.plies = self.plies.saturating_add(other.plies);
        self.bytes = self.bytes.saturating_add(other.bytes);
        for &(k, s, n) in &other.by_kind {
            self.add_kind(k, s, n);
        }
        for &(counter, n) in &other.counts {
            self.add(counter, n);
        }
        self.see_wheres(&other.wheres_seen);
        self.see_tags(&other.tags_seen);
    }

    /// Marks the tag expressions `seen` marks (see [`Stats::wheres_seen`]).
    pub fn see_wheres(&mut self, seen: &[bool]) {
        or_into(&mut self.wheres_seen, seen);
    }

    /// Marks the tags `seen` marks (see [`Stats::tags_seen`]).
    pub fn see_tags(&mut self, seen: &[bool]) {
        or_into(&mut self.tags_seen, seen);
    }

    /// Moves a game counted as `was` (its worst diagnostic when the replay counted it, `None`: it
    /// had none) to where its worst diagnostic `now` puts it, once a job's own diagnostics of it
    /// are known (an engine's: a position left unevaluated is an error of its game).
    pub fn recount_game(&mut self, was: Option<Severity>, now: Option<Severity>) {
        if now <= was {
            return;
        }
        if was == Some(Severity::Warning) {
            self.games_with_warnings = self.games_with_warnings.saturating_sub(1);
        }
        match now {
            Some(Severity::Error) => self.games_with_errors += 1,
            Some(Severity::Warning) => self.games_with_warnings += 1,
            None => {}
        }
    }

    /// Games read, replayed and without errors: a game the filters left out was not checked.
    pub fn valid_games(&self) -> u64 {
        self.games.saturating_sub(self.games_with_errors + self.get(Counter::Filtered))
    }
}

/// `mine[i] |= theirs[i]`, `mine` grown to `theirs`' length.
fn or_into(mine: &mut Vec<bool>, theirs: &[bool]) {
    if mine.len() < theirs.len() {
        mine.resize(theirs.len(), false);
    }
    for (m, &t) in mine.iter_mut().zip(theirs) {
        *m |= t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diag(kind: Kind) -> Diagnostic {
        Diagnostic { kind, severity: kind.severity(), game: 1, line: 1, column: 1, ..Diagnostic::default() }
    }

    #[test]
    fn counts_and_merges_by_kind() {
        let mut a = Stats { games: 2, games_with_errors: 1, ..Stats::default() };
        a.count(&diag(Kind::IllegalMove));
        a.count(&diag(Kind::IllegalMove));
        a.count(&diag(Kind::NullMove));
        let mut b = Stats { games: 3, ..Stats::default() };
        b.count(&diag(Kind::IllegalMove));
        b.count(&diag(Kind::Syntax));
        a.merge(&b);
        assert_eq!(a.games, 5);
        assert_eq!(a.valid_games(), 4);
        a.add(Counter::Filtered, 3);
        assert_eq!(a.valid_games(), 1, "filtered games are neither valid nor with errors");
        assert_eq!(
            a.by_kind,
            vec![
                (Kind::Syntax, Severity::Error, 1),
                (Kind::IllegalMove, Severity::Error, 3),
                (Kind::NullMove, Severity::Warning, 1)
            ]
        );
    }

    #[test]
    fn sums_past_the_largest_count_stay_there() {
        let mut a = Stats { games: u64::MAX, ..Stats::default() };
        a.count_kind(Kind::IllegalMove, Severity::Error);
        a.add(Counter::Filtered, u64::MAX);
        let mut b = Stats { games: 3, ..Stats::default() };
        b.add_kind(Kind::IllegalMove, Severity::Error, u64::MAX);
        b.add(Counter::Filtered, 2);
        a.merge(&b);
        assert_eq!((a.games, a.get(Counter::Filtered)), (u64::MAX, u64::MAX));
        assert_eq!(a.by_kind, [(Kind::IllegalMove, Severity::Error, u64::MAX)]);
    }

    #[test]
    fn named_counts_add_up_across_merges_in_first_seen_order() {
        let mut a = Stats::default();
        a.add(Counter::Written, 3);
        a.add(Counter::Filtered, 1);
        let mut b = Stats::default();
        b.add(Counter::Duplicates, 2);
        b.add(Counter::Written, 4);
        a.merge(&b);
        assert_eq!(a.counts, vec![(Counter::Written, 7), (Counter::Filtered, 1), (Counter::Duplicates, 2)]);
        assert_eq!((a.get(Counter::Written), a.get(Counter::CacheHits)), (7, 0));
    }

    #[test]
    fn a_where_or_tag_seen_in_any_part_is_seen_in_the_whole() {
        let mut a = Stats::default();
        a.merge(&Stats { wheres_seen: vec![false, true, false], ..Stats::default() });
        a.merge(&Stats::default());
        a.merge(&Stats { wheres_seen: vec![true, false, false], ..Stats::default() });
        assert_eq!(a.wheres_seen, [true, true, false]);
        a.merge(&Stats { tags_seen: vec![false, true], ..Stats::default() });
        a.merge(&Stats { tags_seen: vec![true], ..Stats::default() });
        assert_eq!((a.wheres_seen.len(), a.tags_seen), (3, vec![true, true]));
    }
}
