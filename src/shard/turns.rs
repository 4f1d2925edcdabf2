//! The games of `clean --dedup` shards whose verdicts `merge` turns ([`Turn`]), kept in a log
//! ([`TurnLog`]): in memory up to [`TURNS_HELD`], then in a temporary file, read back one shard's
//! range at a time as its parts are copied ([`Turns`]).

use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::ops::Range;

use crate::jobs::clean::Rule;
use crate::jobs::clean::dedup::Repeat;

/// What becomes of a game of a shard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Turn {
    /// Written by the shard, in the run a repeat (or shorter record) of the game whose ordinal
    /// it names.
    ToDuplicate(Repeat),
    /// Set aside by the shard, first in the run.
    ToWritten,
    /// Set aside by the shard, in the run a repeat (or shorter record) of another game than
    /// the shard's, or under another rule.
    Of(Repeat),
}

/// What becomes of a game its shard wrote (`shard_of`: `None`) or set aside (`shard_of`, the
/// game's ordinal), when one run finds it a repeat or shorter record (`of`) or first (`None`).
pub(super) fn turn(of: Option<Repeat>, shard_of: Option<Repeat>) -> Option<Turn> {
    match (shard_of, of) {
        (None, None) => None,
        (None, Some(of)) => Some(Turn::ToDuplicate(of)),
        (Some(_), None) => Some(Turn::ToWritten),
        (Some(shard_of), Some(of)) => (shard_of != of).then_some(Turn::Of(of)),
    }
}

/// Turns held in memory before they are all written to a temporary file: 24 bytes each.
pub(super) const TURNS_HELD: usize = 1 << 20;
/// Bytes of a turn in the temporary file: the game's entry number, a tag (the turn, the rule),
/// a game's ordinal.
const TURN_BYTES: u64 = 17;

/// The rules as a turn's tag holds them, above the turn's kind.
const RULES: [Rule; 3] = [Rule::Game, Rule::Moves, Rule::Prefix];

/// The turns of every shard, shard after shard, in the order of their games: in memory up to
/// [`TURNS_HELD`], then all in a temporary file (the games whose verdicts turn can be as many as
/// the games).
#[derive(Default)]
pub(super) struct TurnLog {
    held: Vec<(u64, Turn)>,
    file: Option<io::BufWriter<File>>,
    len: u64,
}

fn put_turn(out: &mut impl Write, at: u64, turn: Turn) -> io::Result<()> {
    let rule = |r: Repeat| RULES.iter().position(|&x| x == r.rule).unwrap_or(0) as u8;
    let (tag, of) = match turn {
        Turn::ToDuplicate(r) => (rule(r) << 2, r.of),
        Turn::ToWritten => (1, 0),
        Turn::Of(r) => (2 | rule(r) << 2, r.of),
    };
    out.write_all(&at.to_le_bytes())?;
    out.write_all(&[tag])?;
    out.write_all(&of.to_le_bytes())
}

/// The turn a tag and an ordinal give ([`put_turn`]).
fn get_turn(tag: u8, of: u64) -> Option<Turn> {
    let repeat = Some(Repeat { rule: *RULES.get(usize::from(tag >> 2))?, of });
    match tag & 3 {
        0 => repeat.map(Turn::ToDuplicate),
        1 => Some(Turn::ToWritten),
        2 => repeat.map(Turn::Of),
        _ => None,
    }
}

impl TurnLog {
    /// Adds the turn of entry `at` of the shard being settled.
    pub(super) fn push(&mut self, at: u64, turn: Turn) -> io::Result<()> {
        if self.file.is_none() && self.held.len() == TURNS_HELD {
            let mut file = io::BufWriter::with_capacity(1 << 20, tempfile::tempfile()?);
            for &(at, turn) in &self.held {
                put_turn(&mut file, at, turn)?;
            }
            self.held = Vec::new();
            self.file = Some(file);
        }
        match &mut self.file {
            Some(file) => put_turn(file, at, turn)?,
            None => self.held.push((at, turn)),
        }
        self.len += 1;
        Ok(())
    }

    /// Turns pushed so far: the number the next one gets.
    pub(super) fn len(&self) -> u64 {
        self.len
    }

    pub(super) fn finish(self) -> io::Result<Turns> {
        match self.file {
            Some(file) => Ok(Turns::Spilled(crate::io::sort::rewound(file)?)),
            None => Ok(Turns::Held(self.held)),
        }
    }
}

/// Turns read back in order, each (the game's entry number, its turn) or the error reading it.
pub(super) type TurnsRead<'a> = Box<dyn Iterator<Item = io::Result<(u64, Turn)>> + 'a>;

/// The turns [`TurnLog`] kept, read a shard's range at a time.
pub(super) enum Turns {
    Held(Vec<(u64, Turn)>),
    Spilled(File),
}

impl Default for Turns {
    fn default() -> Turns {
        Turns::Held(Vec::new())
    }
}

impl Turns {
    /// The turns numbered `range`, in order.
    pub(super) fn read(&self, range: Range<u64>) -> io::Result<TurnsRead<'_>> {
        let file = match self {
            Turns::Held(held) => {
                let turns = held.get(range.start as usize..range.end as usize).unwrap_or_default();
                return Ok(Box::new(turns.iter().map(|&t| Ok(t))));
            }
            Turns::Spilled(file) => file,
        };
        // Copies read one shard's turns at a time: a handle of their own, sharing the offset.
        let mut file = file.try_clone()?;
        io::Seek::seek(&mut file, io::SeekFrom::Start(range.start * TURN_BYTES))?;
        let mut r = BufReader::with_capacity(1 << 16, file.take((range.end - range.start) * TURN_BYTES));
        Ok(Box::new(std::iter::from_fn(move || {
            let mut b = [0u8; TURN_BYTES as usize];
            match crate::io::sort::read_or_end(&mut r, &mut b) {
                Ok(false) => None,
                Ok(true) => {
                    let word = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or_default());
                    Some(match get_turn(b[8], word(9)) {
                        Some(turn) => Ok((word(0), turn)),
                        None => Err(io::Error::new(io::ErrorKind::InvalidData, "a turn unreadable")),
                    })
                }
                Err(e) => Some(Err(e)),
            }
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Turns past the ones held in memory go to a temporary file and come back a shard's range at
    /// a time, in order, whatever the range.
    #[test]
    fn turns_past_memory_come_back_by_range() {
        let mut log = TurnLog::default();
        let n = TURNS_HELD as u64 + 1000;
        let rule = |i: u64| RULES[(i / 3 % 3) as usize];
        let turn = |i: u64| match i % 3 {
            0 => Turn::ToDuplicate(Repeat { rule: rule(i), of: i * 7 }),
            1 => Turn::ToWritten,
            _ => Turn::Of(Repeat { rule: rule(i), of: i + 1 }),
        };
        for i in 0..n {
            log.push(i, turn(i)).unwrap();
        }
        let turns = log.finish().unwrap();
        assert!(matches!(turns, Turns::Spilled(_)));
        for range in [0..5, n - 1500..n - 900, n - 3..n, 10..10, 0..n] {
            let got: Vec<(u64, Turn)> = turns.read(range.clone()).unwrap().map(Result::unwrap).collect();
            assert!(got.iter().copied().eq(range.clone().map(|i| (i, turn(i)))), "{range:?}");
        }
    }
}
