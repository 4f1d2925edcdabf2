//! A game's state kept a ply or a movetext event at a time (its movetext's events, its
//! evaluations, its notes), in order, whose blocks past a bound wait on disk
//! ([`SpillFile`]): a long game's analysis holds a few MiB of each whatever its length. The
//! writers read it back by index in order through a [`Cursor`], which holds one block. A block
//! holding what has no encoding here (an engine's analysis, a variation cut at an error, a text
//! outside the chunk's bytes) stays in memory.

use std::cell::RefCell;
use std::io::{self, Write};
use std::rc::Rc;

use super::analyse::Evaluated;
use super::movetext::{Event, San};
use super::notes::Note;
use crate::analysis::Score;
use crate::analysis::judge::{Advice, Judgement, Reason};
use crate::io::spill::SpillFile;
use crate::pgn::Nag;

/// Bytes of one kind of a game's state held in memory at most, a sixteenth of the bound of a
/// chunk's text (2 MiB at the default bound).
pub(super) fn held_bytes(spill_at: usize) -> usize {
    spill_at / 16
}

/// What a [`Spool`] holds: a value written as bytes, those it borrows from the chunk as their
/// place in it.
pub(super) trait Record<'a>: Sized {
    /// Appends `self` to `out`; `false`: it has no encoding here.
    fn put(&self, base: &'a [u8], out: &mut Vec<u8>) -> bool;
    /// The value `put` wrote at the start of `input`, which it moves past (`None`: not one).
    fn take(base: &'a [u8], input: &mut &'_ [u8]) -> Option<Self>;
}

/// A block of a [`Spool`] before its tail.
#[derive(Debug)]
enum Part<T> {
    Held(Vec<T>),
    /// `len` bytes at `at` in the spool's file.
    Disk {
        at: u64,
        len: usize,
    },
}

/// Values pushed in order; past `block` of them, the tail is moved to disk as a block.
#[derive(Debug)]
pub(super) struct Spool<'a, T> {
    /// The chunk's bytes, which the values borrow from.
    base: &'a [u8],
    block: usize,
    /// The blocks before the tail: their first index, their length, where they are.
    parts: Vec<(usize, usize, Part<T>)>,
    tail_start: usize,
    tail: Vec<T>,
    file: RefCell<Option<SpillFile>>,
    /// The first failure to write a block (which was kept in memory): said when read back.
    error: Option<io::Error>,
}

impl<T> Default for Spool<'_, T> {
    /// A spool that holds everything.
    fn default() -> Self {
        Spool::new(&[], usize::MAX)
    }
}

impl<'a, T> Spool<'a, T> {
    /// An empty spool of values borrowing from `base`, holding about `held_bytes` of them.
    pub fn new(base: &'a [u8], held_bytes: usize) -> Self {
        let block = (held_bytes / size_of::<T>().max(1)).max(1);
        Spool {
            base,
            block,
            parts: Vec::new(),
            tail_start: 0,
            tail: Vec::new(),
            file: RefCell::new(None),
            error: None,
        }
    }

    pub fn len(&self) -> usize {
        self.tail_start + self.tail.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values since the last block moved out: the last pushed is there.
    pub fn tail(&mut self) -> &mut Vec<T> {
        &mut self.tail
    }

    /// Values held in memory.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        let parts = self.parts.iter().map(|(_, n, p)| if matches!(p, Part::Held(_)) { *n } else { 0 });
        parts.sum::<usize>() + self.tail.len()
    }

    /// A reader by index.
    pub fn cursor(&self) -> Cursor<'_, 'a, T> {
        Cursor { spool: self, loaded: None, block: Rc::default(), bytes: Vec::new() }
    }
}

impl<'a, T: Record<'a>> Spool<'a, T> {
    /// Drops the last value `is` holds for and every value after it (`false`: none does, and
    /// nothing is dropped). The value may be in a block before the tail: that block's values
    /// before it become the tail. A block that cannot be read back is said at the next read.
    pub fn truncate_at_last(&mut self, is: impl Fn(&T) -> bool) -> bool
    where
        T: Clone,
    {
        if let Some(at) = self.tail.iter().rposition(&is) {
            self.tail.truncate(at);
            return true;
        }
        match self.kept_before_last(is) {
            Ok(Some((k, kept))) => {
                (self.tail_start, self.tail) = (self.parts[k].0, kept);
                self.parts.truncate(k);
                true
            }
            Ok(None) => false,
            Err(e) => {
                self.error.get_or_insert(e);
                false
            }
        }
    }

    /// The block before the tail holding the last value `is` holds for, and its values before it.
    fn kept_before_last(&self, is: impl Fn(&T) -> bool) -> io::Result<Option<(usize, Vec<T>)>>
    where
        T: Clone,
    {
        let mut cursor = self.cursor();
        let mut at = None;
        for i in (0..self.tail_start).rev() {
            if cursor.get(i)?.is_some_and(&is) {
                at = Some(i);
                break;
            }
        }
        let Some(at) = at else { return Ok(None) };
        let k = self.parts.partition_point(|(first, ..)| *first <= at) - 1;
        let kept = (self.parts[k].0..at).map(|i| Ok(cursor.value(i)?.expect("a value before the end")));
        Ok(Some((k, kept.collect::<io::Result<_>>()?)))
    }

    #[inline]
    pub fn push(&mut self, value: T) {
        if self.tail.len() >= self.block {
            self.move_out();
        }
        self.tail.push(value);
    }

    /// Moves the tail to disk, or keeps it as a part in memory when it cannot be.
    #[cold]
    #[inline(never)]
    fn move_out(&mut self) {
        let values = std::mem::replace(&mut self.tail, Vec::with_capacity(self.block));
        let n = values.len();
        let part = match self.write(&values) {
            Ok(Some(part)) => part,
            Ok(None) => Part::Held(values),
            Err(e) => {
                self.error.get_or_insert(e);
                Part::Held(values)
            }
        };
        self.parts.push((self.tail_start, n, part));
        self.tail_start += n;
    }

    fn write(&mut self, values: &[T]) -> io::Result<Option<Part<T>>> {
        let mut bytes = Vec::new();
        if self.error.is_some() || !values.iter().all(|v| v.put(self.base, &mut bytes)) {
            return Ok(None);
        }
        let file = match self.file.get_mut() {
            Some(f) => f,
            none => none.insert(SpillFile::new()?),
        };
        let at = file.len();
        file.write_all(&bytes)?;
        Ok(Some(Part::Disk { at, len: bytes.len() }))
    }
}

/// Reads a [`Spool`] by index, a block at a time; a copy shares the block read back.
pub(super) struct Cursor<'s, 'a, T> {
    spool: &'s Spool<'a, T>,
    /// The first index of the block read back.
    loaded: Option<usize>,
    block: Rc<Vec<T>>,
    bytes: Vec<u8>,
}

impl<T> Clone for Cursor<'_, '_, T> {
    fn clone(&self) -> Self {
        Cursor { spool: self.spool, loaded: self.loaded, block: Rc::clone(&self.block), bytes: Vec::new() }
    }
}

impl<'a, T: Record<'a>> Cursor<'_, 'a, T> {
    /// The `i`th value (`None`: past the end). `Err`: a block could not be written or read back.
    #[inline]
    pub fn get(&mut self, i: usize) -> io::Result<Option<&T>> {
        let s = self.spool;
        if i >= s.tail_start && s.error.is_none() {
            return Ok(s.tail.get(i - s.tail_start));
        }
        self.before_tail(i)
    }

    /// [`Cursor::get`] of a value before the tail, or any after a failure.
    #[cold]
    #[inline(never)]
    fn before_tail(&mut self, i: usize) -> io::Result<Option<&T>> {
        let s = self.spool;
        if let Some(e) = &s.error {
            return Err(io::Error::new(e.kind(), e.to_string()));
        }
        if i >= s.tail_start {
            return Ok(s.tail.get(i - s.tail_start));
        }
        let (first, n, part) = &s.parts[s.parts.partition_point(|(first, ..)| *first <= i) - 1];
        let (at, len) = match part {
            Part::Held(values) => return Ok(values.get(i - first)),
            Part::Disk { at, len } => (*at, *len),
        };
        if self.loaded != Some(*first) {
            self.loaded = None;
            self.bytes.resize(len, 0);
            let mut file = s.file.borrow_mut();
            file.as_mut().expect("a block on disk is in the file").read_at(at, &mut self.bytes)?;
            let mut input = &self.bytes[..];
            let block = (0..*n).map(|_| T::take(s.base, &mut input)).collect::<Option<Vec<T>>>();
            self.block = Rc::new(block.ok_or_else(|| {
                io::Error::new(io::ErrorKind::InvalidData, "a temporary file read back is not as written")
            })?);
            self.loaded = Some(*first);
        }
        Ok(self.block.get(i - first))
    }

    /// The `i`th value, copied.
    #[inline]
    pub fn value(&mut self, i: usize) -> io::Result<Option<T>>
    where
        T: Clone,
    {
        Ok(self.get(i)?.cloned())
    }
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn take_u32(input: &mut &[u8]) -> Option<u32> {
    let (head, rest) = input.split_first_chunk::<4>()?;
    *input = rest;
    Some(u32::from_le_bytes(*head))
}

fn take_u8(input: &mut &[u8]) -> Option<u8> {
    let (&head, rest) = input.split_first()?;
    *input = rest;
    Some(head)
}

/// Appends `s` as its offset and length in `base`; `false`: it is not in `base`.
fn put_slice(base: &[u8], s: &[u8], out: &mut Vec<u8>) -> bool {
    let at = (s.as_ptr() as usize).wrapping_sub(base.as_ptr() as usize);
    if at > base.len() || s.len() > base.len() - at {
        return false;
    }
    out.extend_from_slice(&(at as u64).to_le_bytes());
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    true
}

fn take_slice<'a>(base: &'a [u8], input: &mut &[u8]) -> Option<&'a [u8]> {
    let (at, rest) = input.split_first_chunk::<8>()?;
    let (len, rest) = rest.split_first_chunk::<8>()?;
    *input = rest;
    let at = usize::try_from(u64::from_le_bytes(*at)).ok()?;
    base.get(at..at.checked_add(usize::try_from(u64::from_le_bytes(*len)).ok()?)?)
}

impl<'a> Record<'a> for Event<'a> {
    fn put(&self, base: &'a [u8], out: &mut Vec<u8>) -> bool {
        let depth = match self {
            Event::Move { depth, san, number, black } => {
                match san {
                    San::Token(t) => {
                        out.push(0);
                        if !put_slice(base, t, out) {
                            // A null move's `--` is no token of the chunk.
                            out.pop();
                            if *t != b"--" {
                                return false;
                            }
                            out.push(2);
                        }
                    }
                    San::Written(r) => {
                        out.push(1);
                        put_u32(out, r.start);
                        put_u32(out, r.end);
                    }
                }
                put_u32(out, *number);
                out.push(u8::from(*black));
                depth
            }
            Event::Nag { depth, nag } => {
                out.extend_from_slice(&[3, nag.0]);
                depth
            }
            Event::Comment { depth, raw } => {
                out.push(4);
                if !put_slice(base, raw, out) {
                    return false;
                }
                depth
            }
            Event::Begin { depth } => {
                out.push(5);
                depth
            }
            Event::End { depth } => {
                out.push(6);
                depth
            }
            Event::Cut { .. } => return false,
        };
        put_u32(out, *depth);
        true
    }

    fn take(base: &'a [u8], input: &mut &[u8]) -> Option<Self> {
        let tag = take_u8(input)?;
        let san = match tag {
            0 => Some(San::Token(take_slice(base, input)?)),
            1 => Some(San::Written(take_u32(input)?..take_u32(input)?)),
            2 => Some(San::Token(b"--")),
            _ => None,
        };
        Some(match (tag, san) {
            (_, Some(san)) => {
                let (number, black) = (take_u32(input)?, take_u8(input)? != 0);
                Event::Move { depth: take_u32(input)?, san, number, black }
            }
            (3, None) => {
                let nag = Nag(take_u8(input)?);
                Event::Nag { depth: take_u32(input)?, nag }
            }
            (4, None) => {
                let raw = take_slice(base, input)?;
                Event::Comment { depth: take_u32(input)?, raw }
            }
            (5, None) => Event::Begin { depth: take_u32(input)? },
            (6, None) => Event::End { depth: take_u32(input)? },
            _ => return None,
        })
    }
}

fn put_score(score: Option<Score>, out: &mut Vec<u8>) {
    let (tag, v) = match score {
        None => (0, 0),
        Some(Score::Cp(cp)) => (1, cp),
        Some(Score::Mate(n)) => (2, n),
    };
    out.push(tag);
    out.extend_from_slice(&v.to_le_bytes());
}

fn take_score(input: &mut &[u8]) -> Option<Option<Score>> {
    let tag = take_u8(input)?;
    let v = take_u32(input)? as i32;
    match tag {
        0 => Some(None),
        1 => Some(Some(Score::Cp(v))),
        2 => Some(Some(Score::Mate(v))),
        _ => None,
    }
}

impl<'a> Record<'a> for Evaluated {
    /// An evaluation with the engine's analysis has no encoding here.
    fn put(&self, _: &'a [u8], out: &mut Vec<u8>) -> bool {
        if self.analysis.is_some() {
            return false;
        }
        put_score(self.white, out);
        out.push(u8::from(self.game_depth.is_some()));
        put_u32(out, self.game_depth.unwrap_or(0));
        true
    }

    fn take(_: &'a [u8], input: &mut &[u8]) -> Option<Self> {
        let white = take_score(input)?;
        let has_depth = take_u8(input)? != 0;
        let depth = take_u32(input)?;
        Some(Evaluated { white, analysis: None, game_depth: has_depth.then_some(depth) })
    }
}

/// The rules a judgement follows, in their encoding's order.
const REASONS: [Reason; 3] = [Reason::WinningChances, Reason::MateCreated, Reason::MateLost];

impl<'a> Record<'a> for Note {
    /// A note naming the engine's best move has no encoding here.
    fn put(&self, _: &'a [u8], out: &mut Vec<u8>) -> bool {
        if self.best.is_some() {
            return false;
        }
        let advice = self.advice.map_or(0, |a| {
            let j = Judgement::ALL.iter().position(|&j| j == a.judgement).unwrap_or(0);
            let r = REASONS.iter().position(|&r| r == a.reason).unwrap_or(0);
            1 + j * REASONS.len() + r
        });
        out.extend_from_slice(&[advice as u8, u8::from(self.line)]);
        true
    }

    fn take(_: &'a [u8], input: &mut &[u8]) -> Option<Self> {
        let advice = match usize::from(take_u8(input)?) {
            0 => None,
            n => {
                let (j, r) = ((n - 1) / REASONS.len(), (n - 1) % REASONS.len());
                Some(Advice { judgement: *Judgement::ALL.get(j)?, reason: REASONS[r] })
            }
        };
        Some(Note { advice, best: None, line: take_u8(input)? != 0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nag(n: u8) -> Event<'static> {
        Event::Nag { depth: 0, nag: Nag(n) }
    }

    fn values(s: &Spool<'static, Event<'static>>) -> Vec<u8> {
        let mut cursor = s.cursor();
        (0..s.len())
            .map(|i| match cursor.value(i).expect("read back") {
                Some(Event::Nag { nag, .. }) => nag.0,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    /// A value found in a block on disk is dropped with all after it; that block's values before
    /// it become the tail, and pushes go on from there.
    #[test]
    fn truncating_at_a_value_on_disk_keeps_the_values_before_it() {
        let mut s = Spool::new(&[], 4 * size_of::<Event>());
        (0..10).for_each(|n| s.push(nag(n)));
        assert!(s.held() < 10, "blocks moved out");
        assert!(s.truncate_at_last(|e| matches!(e, Event::Nag { nag: Nag(5), .. })));
        assert_eq!(values(&s), [0, 1, 2, 3, 4]);
        (20..23).for_each(|n| s.push(nag(n)));
        assert_eq!(values(&s), [0, 1, 2, 3, 4, 20, 21, 22]);
        assert!(!s.truncate_at_last(|e| matches!(e, Event::Nag { nag: Nag(9), .. })), "none left");
        assert_eq!(s.len(), 8);
    }
}
