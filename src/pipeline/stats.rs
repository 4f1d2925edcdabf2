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
    /// Mainline plies replayed.
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

    fn add_kind(&mut self, kind: Kind, severity: Severity, n: u64) {
        match self.by_kind.binary_search_by_key(&(kind, severity), |&(k, s, _)| (k, s)) {
            Ok(i) => self.by_kind[i].2 += n,
            Err(i) => self.by_kind.insert(i, (kind, severity, n)),
        }
    }

    /// Adds `n` to the job's count `counter` (created at 0).
    pub fn add(&mut self, counter: Counter, n: u64) {
        match self.counts.iter_mut().find(|(k, _)| *k == counter) {
            Some((_, v)) => *v += n,
            None => self.counts.push((counter, n)),
        }
    }

    /// The job's count `counter` (0 if never added).
    pub fn get(&self, counter: Counter) -> u64 {
        self.counts.iter().find(|(k, _)| *k == counter).map_or(0, |&(_, v)| v)
    }

    /// Adds `other` into `self`.
    pub fn merge(&mut self, other: &Stats) {
        self.games += other.games;
        self.games_with_errors += other.games_with_errors;
        self.games_with_warnings += other.games_with_warnings;
        self.pgn_games += other.pgn_games;
        self.epd_lines += other.epd_lines;
        self.not_epd_lines += other.not_epd_lines;
        self.plies += other.plies;
        self.bytes += other.bytes;
        for &(k, s, n) in &other.by_kind {
            self.add_kind(k, s, n);
        }
        for &(counter, n) in &other.counts {
            self.add(counter, n);
        }
        self.see_wheres(&other.wheres_seen);
    }

    /// Marks the tag expressions `seen` marks (see [`Stats::wheres_seen`]).
    pub fn see_wheres(&mut self, seen: &[bool]) {
        if self.wheres_seen.len() < seen.len() {
            self.wheres_seen.resize(seen.len(), false);
        }
        for (mine, &theirs) in self.wheres_seen.iter_mut().zip(seen) {
            *mine |= theirs;
        }
    }

    /// Games read, replayed and without errors: a game the filters left out was not checked.
    pub fn valid_games(&self) -> u64 {
        self.games.saturating_sub(self.games_with_errors + self.get(Counter::Filtered))
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
    fn a_where_seen_in_any_part_is_seen_in_the_whole() {
        let mut a = Stats::default();
        a.merge(&Stats { wheres_seen: vec![false, true, false], ..Stats::default() });
        a.merge(&Stats::default());
        a.merge(&Stats { wheres_seen: vec![true, false, false], ..Stats::default() });
        assert_eq!(a.wheres_seen, [true, true, false]);
    }
}
