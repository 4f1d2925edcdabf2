//! The verdicts of the games `--dedup` set aside past its memory bound ([`super::late`]) or under
//! `prefix` ([`super::walk`]), sorted by game and taken in its order ([`Repeats`]).

use std::io::{self, BufRead, Write};

use super::{Repeat, Rule};
use crate::io::sort::{Record, Sorted, read_or_end};

/// Verdicts sorted in memory at a time: 24 bytes each.
pub(super) const VERDICTS_HELD: usize = 1 << 21;

/// A waiting game set aside: its number, the number of the game kept, and whether it is a
/// shorter record of it (`prefix`; else a repeat).
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Verdict {
    /// The game's number over the run.
    pub at: u64,
    /// The number of the game it repeats or is a shorter record of.
    pub of: u64,
    /// A shorter record.
    pub shorter: bool,
}

impl Record for Verdict {
    fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(&self.at.to_le_bytes())?;
        out.write_all(&self.of.to_le_bytes())?;
        out.write_all(&[u8::from(self.shorter)])
    }

    fn read_from(input: &mut impl BufRead) -> io::Result<Option<Verdict>> {
        let (mut at, mut of, mut shorter) = ([0u8; 8], [0u8; 8], [0u8; 1]);
        if !read_or_end(input, &mut at)? {
            return Ok(None);
        }
        input.read_exact(&mut of)?;
        input.read_exact(&mut shorter)?;
        Ok(Some(Verdict { at: u64::from_le_bytes(at), of: u64::from_le_bytes(of), shorter: shorter[0] != 0 }))
    }
}

const OUT_OF_ORDER: &str = "a temporary file of --dedup: a verdict out of order";

/// The verdicts of the games set aside under a rule, in the order of their games.
pub struct Repeats {
    sorted: Sorted<Verdict>,
    next: Option<Verdict>,
    rule: Rule,
    in_part: u64,
}

impl Repeats {
    /// The verdicts of `sorted`, sorted by game, found under `rule`, `in_part` of the games
    /// compared with only some of those that may be the same game ([`super::seen::MAY_BE_SAME`]).
    pub(super) fn new(mut sorted: Sorted<Verdict>, rule: Rule, in_part: u64) -> io::Result<Repeats> {
        let next = sorted.next().transpose()?;
        Ok(Repeats { sorted, next, rule, in_part })
    }

    /// Games compared with only the latest of those that may be the same game.
    pub fn compared_in_part(&self) -> u64 {
        self.in_part
    }

    /// The rule the verdicts were found under.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The verdict of the game numbered `ordinal`, one of those pushed, asked in rising order,
    /// as the run reports it ([`Repeat::found`]): `Some` when it is set aside.
    pub fn of(&mut self, ordinal: u64) -> io::Result<Option<Repeat>> {
        match &self.next {
            Some(v) if v.at == ordinal => {
                let next = self.sorted.next().transpose()?;
                let v = std::mem::replace(&mut self.next, next);
                Ok(v.map(|v| Repeat::found(self.rule, v.of, v.shorter)))
            }
            Some(v) if v.at < ordinal => Err(io::Error::new(io::ErrorKind::InvalidData, OUT_OF_ORDER)),
            _ => Ok(None),
        }
    }

    /// Whether every verdict was asked for.
    pub fn done(&self) -> bool {
        self.next.is_none()
    }
}
