//! A game's diagnostics: each counted with its severity, the first [`Limits::MAX_PROBLEMS`]
//! (and the game's first error, wherever it stands) built and handed to the hooks with the
//! players they name, then one `unreported` warning; the tags' problems held until the tags
//! name the players.

use super::message::{Facts, problem_kind, text};
use super::{Hooks, Replayer};
use crate::error::{Diagnostic, Kind, Severity};
use crate::pgn::{Limits, Problem, Visitor};

impl<'a, H: Hooks<'a>> Replayer<'a, H> {
    /// Reports a problem at `offset` (absolute), building its facts only if it is wanted.
    pub(super) fn report(
        &mut self,
        kind: Kind,
        severity: Severity,
        offset: u64,
        ply: Option<u32>,
        facts: impl FnOnce() -> Facts,
    ) {
        self.count_kind(kind, severity, 1);
        // Past the reader's budget a game's diagnostics are counted, not built: output and memory
        // stay bounded whatever one game holds (1.6 M null moves made 1.6 M warnings).
        let n = self.game.errors.saturating_add(self.game.warnings) - u32::from(self.late_error);
        // A game's first error is shown wherever it stands: it is where the game goes wrong.
        if n > Limits::MAX_PROBLEMS && severity == Severity::Error && self.game.errors == 1 {
            self.late_error = true;
        } else if n > Limits::MAX_PROBLEMS {
            if n == Limits::MAX_PROBLEMS + 1 && self.hooks.wants(Kind::Unreported, Severity::Warning) {
                let message = crate::error::unreported_message("");
                self.deliver(
                    Kind::Unreported,
                    Severity::Warning,
                    offset,
                    ply,
                    Facts { message, san: None, fen: None },
                );
            }
            self.hooks.unshown(&self.game, kind, severity, 1);
            return;
        }
        if !self.hooks.wants(kind, severity) {
            return;
        }
        self.deliver(kind, severity, offset, ply, facts());
    }

    /// Counts `n` diagnostics of `kind` in the current game.
    fn count_kind(&mut self, kind: Kind, severity: Severity, n: u32) {
        match severity {
            Severity::Error => {
                self.game.errors = self.game.errors.saturating_add(n);
                if self.game.cutting.is_some() {
                    self.game.cut_errors = self.game.cut_errors.saturating_add(n);
                }
            }
            Severity::Warning => self.game.warnings = self.game.warnings.saturating_add(n),
        }
        add_run(&mut self.game_kinds, kind, severity, n);
    }

    /// Hands the diagnostic of `facts` at `offset` (absolute) to the hooks.
    fn deliver(&mut self, kind: Kind, severity: Severity, offset: u64, ply: Option<u32>, facts: Facts) {
        let at = self.lines.locate((offset - self.chunk_offset) as usize);
        let Facts { message, san, fen } = facts;
        let (white, black) = self.players();
        let d = Diagnostic {
            kind,
            severity,
            game: self.game.number,
            offset,
            line: at.line as u64,
            column: at.col as u64,
            ply,
            san,
            fen,
            white,
            black,
            message,
        };
        self.hooks.diagnostic(&self.game, d);
    }

    /// The tags are read: their problems are reported.
    pub(super) fn tags_read(&mut self) {
        self.in_tags = false;
        if !self.tag_problems.is_empty() {
            for p in std::mem::take(&mut self.tag_problems) {
                self.problem(p);
            }
            for (kind, severity, n) in std::mem::take(&mut self.tag_problems_past) {
                self.count_kind(kind, severity, n);
                self.hooks.unshown(&self.game, kind, severity, n);
            }
        }
    }

    /// The current game's White and Black tags (see `named`).
    fn players(&mut self) -> (Option<String>, Option<String>) {
        let key = (self.game.number, self.game.tags.len());
        match self.named.as_deref() {
            Some((n, l, w, b)) if (*n, *l) == key => (w.clone(), b.clone()),
            _ => {
                let name = |tag: &[u8]| self.game.tag(tag).map(|t| text(&t.unescape()));
                let (w, b) = (name(b"White"), name(b"Black"));
                self.named = Some(Box::new((key.0, key.1, w.clone(), b.clone())));
                (w, b)
            }
        }
    }

    /// Holds a problem among the tags until they are all read ([`Replayer::tags_read`]); past
    /// the first shown and the one that says the rest are not, it is only counted.
    pub(super) fn hold_tag_problem(&mut self, p: Problem) {
        if self.tag_problems.len() <= Limits::MAX_PROBLEMS as usize {
            self.tag_problems.push(p);
        } else {
            let at = (p.offset as u64 - self.chunk_offset) as usize;
            let (kind, severity) = problem_kind(p.kind, self.chunk, at);
            add_run(&mut self.tag_problems_past, kind, severity, 1);
        }
    }

    /// Counts the diagnostics reported since the last count (or forgets them).
    pub(super) fn count_diagnostics(&mut self, counted: bool) {
        if counted {
            for &(kind, severity, n) in &self.game_kinds {
                self.stats.add_kind(kind, severity, u64::from(n));
            }
        }
        self.game_kinds.clear();
    }
}

/// Adds `n` diagnostics of `kind` to `runs`: to its last run when that is of the same kind.
fn add_run(runs: &mut Vec<(Kind, Severity, u32)>, kind: Kind, severity: Severity, n: u32) {
    match runs.last_mut() {
        Some((k, s, count)) if (*k, *s) == (kind, severity) => *count = count.saturating_add(n),
        _ => runs.push((kind, severity, n)),
    }
}
