//! [`Run`]: ranges that follow each other (a chunk's bytes, a batch's rows) joined into one, so
//! that what is written of them goes out in one call instead of one per game or row.

use std::ops::Range;

/// The ranges given so far that follow each other, up to the last given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Run(Range<usize>);

impl Run {
    /// An empty run at `at`: a range starting there follows it.
    pub fn at(at: usize) -> Run {
        Run(at..at)
    }

    /// Adds `next`. When it does not start where the run ends, the run so far is given back (if
    /// not empty) and a new one starts with `next`.
    #[inline]
    pub fn extend(&mut self, next: Range<usize>) -> Option<Range<usize>> {
        if next.start == self.0.end {
            self.0.end = next.end;
            return None;
        }
        let done = std::mem::replace(&mut self.0, next);
        (!done.is_empty()).then_some(done)
    }

    /// The run so far, if not empty; an empty run at its end follows.
    #[inline]
    pub fn take(&mut self) -> Option<Range<usize>> {
        let end = self.0.end;
        let done = std::mem::replace(&mut self.0, end..end);
        (!done.is_empty()).then_some(done)
    }

    /// Where the run starts.
    pub fn start(&self) -> usize {
        self.0.start
    }

    /// How much the run holds.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the run holds nothing.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_that_follow_each_other_make_one_run() {
        let mut run = Run::default();
        let mut given: Vec<_> =
            [0..3, 3..5, 7..8, 8..9, 9..9, 12..20].into_iter().filter_map(|r| run.extend(r)).collect();
        given.extend(run.take());
        assert_eq!(given, [0..5, 7..9, 12..20]);
        assert_eq!(run.take(), None, "taken");
        assert_eq!(run.extend(20..21), None, "an empty run at its end is followed");
        assert_eq!((run.start(), run.len()), (20, 1));
        // Nothing given for an empty run that is not followed.
        let mut run = Run::at(4);
        assert_eq!(run.extend(6..7), None);
        assert_eq!(run.extend(9..9), Some(6..7));
        assert!(run.is_empty() && run.take().is_none());
    }
}
