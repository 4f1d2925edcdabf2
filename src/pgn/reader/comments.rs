//! Comments in movetext: where a `{}` comment ends (a cached search for `}`, a comment cut
//! short at a line that starts a tag), `;` comments, and the comments after a game's result.

use super::super::class::{TOKEN_END, WS, class};
use super::super::scan;
use super::super::tag::is_tag_like;
use super::super::visitor::{GameResult, ProblemKind, Visitor};
use super::super::{CommentKind, RawComment};
use super::{Reader, line_end};

/// Result of a cached search for `}`: the first `}` in `from..to` is `hit` (or none).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct BraceCache {
    from: usize,
    to: usize,
    hit: Option<usize>,
}

impl<'a> Reader<'a> {
    /// Cached search for the first `}` in `from..limit`.
    fn find_close_brace(&mut self, from: usize, limit: usize) -> Option<usize> {
        let c = self.brace;
        if from >= c.from && from <= c.to {
            match c.hit {
                Some(h) if h >= from => return (h < limit).then_some(h),
                None if limit <= c.to => return None,
                None => {
                    let found = memchr::memchr(b'}', &self.bytes[c.to..limit]).map(|i| c.to + i);
                    self.brace.to = found.map_or(limit, |f| f + 1);
                    self.brace.hit = found;
                    self.searched = self.searched.max(self.brace.to);
                    return found;
                }
                Some(_) => {}
            }
        }
        let found = memchr::memchr(b'}', &self.bytes[from..limit]).map(|i| from + i);
        self.brace = BraceCache { from, to: found.map_or(limit, |f| f + 1), hit: found };
        self.searched = self.searched.max(self.brace.to);
        found
    }

    /// At `{` (position `open`): returns (end of text, position after the comment, problem).
    fn scan_brace_comment(&mut self, open: usize) -> (usize, usize, Option<ProblemKind>) {
        let b = self.bytes;
        let body = open + 1;
        let limit = b.len().min(body.saturating_add(self.limits.max_comment));
        // Short one-line comments (a clock, an eval) are the common case: a `}` before any line
        // break leaves no room for a tag line inside, so neither search below is needed.
        if let Some(i) = short_comment_end(&b[body..limit]) {
            return (body + i, body + i + 1, None);
        }
        let close = self.find_close_brace(body, limit);
        let region_end = close.unwrap_or(limit);
        let tag_line = find_tag_line(b, body, region_end);
        match (close, tag_line) {
            (Some(c), None) => (c, c + 1, None),
            (Some(c), Some(t)) => {
                if memchr::memchr(b'{', &b[t..c]).is_some() {
                    (t, t, Some(ProblemKind::UnterminatedComment))
                } else {
                    (c, c + 1, None)
                }
            }
            (None, Some(t)) => (t, t, Some(ProblemKind::UnterminatedComment)),
            (None, None) if limit == b.len() => (limit, limit, Some(ProblemKind::UnterminatedComment)),
            (None, None) => self.past_budget(limit),
        }
    }

    /// A comment with no `}` and no tag line within the budget (its text cut at `limit`): it
    /// ends where a comment under the budget would, at its first `}` unless a tag line and then
    /// a `{` come first, so that none of its text is read as movetext. One forward scan that
    /// stops there: linear, and no look-ahead past the `}` (or the `{`) that decides.
    #[cold]
    #[inline(never)]
    fn past_budget(&mut self, limit: usize) -> (usize, usize, Option<ProblemKind>) {
        let b = self.bytes;
        let tag_after = |p: usize| b.get(p + 1) == Some(&b'[') && is_tag_like(b, p + 1);
        // A line break just before `limit` starts a line the search within the budget did not see.
        let from = limit - 1;
        let stop = memchr::memchr3_iter(b'}', b'\n', b'\r', &b[from..])
            .map(|i| from + i)
            .find(|&p| b[p] == b'}' || tag_after(p));
        let (next, decided_by, problem) = match stop {
            Some(c) if b[c] == b'}' => (c + 1, c + 1, ProblemKind::CommentTooLong),
            Some(brk) => {
                let t = brk + 1;
                match memchr::memchr2(b'{', b'}', &b[t..]).map(|i| t + i) {
                    Some(c) if b[c] == b'}' => (c + 1, c + 1, ProblemKind::CommentTooLong),
                    Some(open) => (t, open + 1, ProblemKind::UnterminatedComment),
                    None => (t, b.len(), ProblemKind::UnterminatedComment),
                }
            }
            None => (b.len(), b.len(), ProblemKind::UnterminatedComment),
        };
        self.searched = self.searched.max(decided_by);
        (limit, next, Some(problem))
    }

    /// Reads a `{}` comment at `self.pos` (which is `{`) and delivers it if `loud`.
    pub(super) fn brace_comment<V: Visitor<'a>>(&mut self, v: &mut V, loud: bool) {
        let open = self.pos;
        let (text_end, next, problem) = self.scan_brace_comment(open);
        if let Some(kind) = problem {
            self.problem(v, kind, open);
            // Cut short where a tag line starts, or at the budget (a tag line looked for up to
            // it): the end was decided by the line there.
            self.at_result = false;
        }
        if loud {
            v.comment(RawComment {
                raw: &self.bytes[open + 1..text_end],
                offset: self.off(open),
                kind: CommentKind::Brace,
            });
        }
        self.pos = next;
    }

    /// Reads a `;` comment at `self.pos` and delivers it if `loud`, its text cut at the budget
    /// as a `{` comment's is.
    pub(super) fn line_comment<V: Visitor<'a>>(&mut self, v: &mut V, loud: bool) {
        let open = self.pos;
        let end = line_end(self.bytes, open);
        let text_end = end.min(open + 1 + self.limits.max_comment);
        if text_end < end {
            self.problem(v, ProblemKind::CommentTooLong, open);
        }
        if loud {
            v.comment(RawComment {
                raw: &self.bytes[open + 1..text_end],
                offset: self.off(open),
                kind: CommentKind::Line,
            });
        }
        self.pos = end;
    }

    /// After the result: comments that follow before another token still belong to the game
    /// (TCEC archives put `; { Game Nr. ... }` lines there, sometimes after a blank line).
    pub(super) fn trailing_comments<V: Visitor<'a>>(
        &mut self,
        v: &mut V,
        mut pos: usize,
        loud: bool,
    ) -> usize {
        let b = self.bytes;
        loop {
            let mut p = pos;
            while p < b.len() && class(b[p]) == WS {
                p += 1;
            }
            match b.get(p) {
                Some(b'{') => {
                    self.pos = p;
                    self.brace_comment(v, loud);
                    pos = self.pos;
                }
                Some(b';') => {
                    self.pos = p;
                    self.line_comment(v, loud);
                    pos = self.pos;
                }
                // A result written again (`1-0 1-0`) is no game of its own: a warning of this one.
                // The token is read to its end, which decides whether it is one.
                Some(b'0' | b'1' | b'*') => {
                    let end = if b[p] == b'*' { p + 1 } else { p + 1 + TOKEN_END.find_in(&b[p + 1..]) };
                    self.searched = self.searched.max(end);
                    if GameResult::from_ascii(&b[p..end]).is_none() {
                        return pos;
                    }
                    self.problem(v, ProblemKind::RepeatedResult, p);
                    pos = end;
                }
                _ => return pos,
            }
        }
    }

    /// At a game's start: comments (`{}`, `;`) that a tag line follows, as a collection's
    /// preamble before its first game, are skipped to the tag line (`true`); the game reads
    /// them at the start of its movetext ([`Reader::lead_comments`]). Otherwise nothing moves.
    pub(super) fn skip_leading_comments(&mut self) -> bool {
        let (b, start) = (self.bytes, self.pos);
        while matches!(b.get(self.pos), Some(b'{' | b';')) {
            if b[self.pos] == b'{' {
                match self.scan_brace_comment(self.pos) {
                    (_, next, None) => self.pos = next,
                    _ => break,
                }
            } else {
                self.pos = line_end(b, self.pos);
            }
            self.skip_between_games();
            if b.get(self.pos) == Some(&b'[') && is_tag_like(b, self.pos) && self.line_starts_at(self.pos) {
                return true;
            }
        }
        self.pos = start;
        false
    }

    /// The comments [`Reader::skip_leading_comments`] skipped, in `from..to`, delivered if
    /// `loud`; the reader's position is kept.
    pub(super) fn lead_comments<V: Visitor<'a>>(&mut self, v: &mut V, from: usize, to: usize, loud: bool) {
        let after = self.pos;
        self.pos = from;
        while self.pos < to {
            match self.bytes[self.pos] {
                b'{' => self.brace_comment(v, loud),
                b';' => self.line_comment(v, loud),
                _ => {
                    let at = self.pos;
                    self.skip_between_games();
                    if self.pos == at {
                        break;
                    }
                }
            }
        }
        self.pos = after;
    }
}

/// The `}` ending `text` when it comes within 64 bytes and before any line break: clocks and
/// evals are such comments on every lichess ply.
#[inline(always)]
pub(super) fn short_comment_end(text: &[u8]) -> Option<usize> {
    let i = scan::find_any(&text[..text.len().min(64)], [b'}', b'\n', b'\r'])?;
    (text[i] == b'}').then_some(i)
}

/// The first line in `from..to` (starting after a line break inside the range) that starts with
/// a tag.
pub(super) fn find_tag_line(b: &[u8], from: usize, to: usize) -> Option<usize> {
    memchr::memchr2_iter(b'\n', b'\r', &b[from..to])
        .map(|i| from + i + 1)
        .find(|&p| p < to && b[p] == b'[' && is_tag_like(b, p))
}
