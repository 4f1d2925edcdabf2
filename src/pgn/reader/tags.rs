//! A game's tag section: its tag pairs read and delivered within the game's budget (a tag pair
//! longer than [`Limits::max_token`] is skipped alone; past [`Limits::max_tags`] pairs or
//! [`Limits::max_tag_bytes`] bytes the rest are), and where a header-only game ends.

use std::collections::HashSet;
use std::ops::Range;

use super::super::RawTag;
use super::super::tag::parse_tag;
use super::super::visitor::{ProblemKind, Visitor};
use super::Reader;

/// The tags of the game being read, as far as the reader needs them.
#[derive(Debug, Clone, Default)]
pub(super) struct TagSection<'a> {
    /// Tag pairs read (kept or skipped).
    pub(super) count: u32,
    /// Names of the tag pairs kept (delivered), looked up when a blank line comes before a tag.
    names: Vec<Range<usize>>,
    /// Bytes of the tag pairs kept.
    bytes: usize,
    /// The budget is spent: every later tag pair is skipped.
    over: bool,
    /// Built only when a game with many tags has a blank line among them, so that each lookup
    /// is one (time linear in the tags).
    set: Option<Box<NameSet<'a>>>,
}

/// How many of the first kept names are in the set, and the set of them.
type NameSet<'a> = (usize, HashSet<&'a [u8]>);

/// Kept names compared one by one; past this many, looked up in a set.
const SCANNED: usize = 32;

impl TagSection<'_> {
    /// Forgets the tags, for the next game (the names' allocation is kept).
    fn clear(&mut self) {
        self.count = 0;
        self.names.clear();
        self.bytes = 0;
        self.over = false;
        self.set = None;
    }
}

impl<'a> Reader<'a> {
    /// Reads the tag section; `true` when the game is tags alone (header-only).
    pub(super) fn read_tag_section<V: Visitor<'a>>(&mut self, v: &mut V, emit: bool) -> bool {
        self.tags.clear();
        let mut first = true;
        loop {
            let breaks = if first { 0 } else { self.skip_between_games() };
            first = false;
            let b = self.bytes;
            if self.pos >= b.len() {
                return true;
            }
            if b[self.pos] != b'[' {
                return false;
            }
            let at = self.pos;
            let t = parse_tag(b, at);
            let name = &b[t.name.clone()];
            if breaks >= 2 && self.tags.count > 0 && (name == b"Event" || self.has_tag_named(name)) {
                return true;
            }
            self.pos = t.end;
            if let Some(kind) = t.problem {
                self.problem(v, kind, at);
            }
            // `[Event "A"]]`: read as movetext, the stray `]` would end the tags and split the game.
            if b.get(self.pos) == Some(&b']') {
                self.problem(v, ProblemKind::StrayAfterTag, self.pos);
                while b.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                }
            }
            if let Some(value) = t.value {
                self.tags.count = self.tags.count.saturating_add(1);
                if self.keep_tag(v, at, t.end) {
                    if emit {
                        v.tag(name, RawTag { raw: &b[value], offset: self.off(at) });
                    }
                    self.tags.names.push(t.name);
                }
            }
        }
    }

    /// Whether the tag pair in `at..end` is within the budget (and counted in it); a first one
    /// past it is reported.
    #[inline(always)]
    fn keep_tag<V: Visitor<'a>>(&mut self, v: &mut V, at: usize, end: usize) -> bool {
        let (len, l) = (end - at, &self.limits);
        let kept = &mut self.tags;
        if kept.names.len() < l.max_tags as usize && len <= l.max_token && len <= l.max_tag_bytes - kept.bytes
        {
            kept.bytes += len;
            return true;
        }
        self.skip_tag(v, at, len);
        false
    }

    /// A tag pair of `len` bytes at `at` past the budget: one longer than a token may be is
    /// skipped alone, else it and every later one are (one problem for them all).
    #[cold]
    #[inline(never)]
    fn skip_tag<V: Visitor<'a>>(&mut self, v: &mut V, at: usize, len: usize) {
        if self.tags.over {
            return;
        }
        if len > self.limits.max_token {
            self.problem(v, ProblemKind::TokenTooLong, at);
            return;
        }
        self.tags.over = true;
        self.problem(v, ProblemKind::TooManyTags, at);
    }

    /// Whether a tag kept has the name `name`.
    fn has_tag_named(&mut self, name: &[u8]) -> bool {
        let (b, kept) = (self.bytes, &mut self.tags);
        if kept.names.len() <= SCANNED {
            return kept.names.iter().any(|n| b[n.clone()] == *name);
        }
        // The names since the last lookup join the set: each name is added once.
        let (indexed, set) = &mut **kept.set.get_or_insert_default();
        set.extend(kept.names[*indexed..].iter().map(|n| &b[n.clone()]));
        *indexed = kept.names.len();
        set.contains(name)
    }
}
