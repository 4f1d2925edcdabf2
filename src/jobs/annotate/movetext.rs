//! A game's movetext as the one replay of a chunk reads it, kept until the game's evaluations
//! are known: every move of every line in SAN with its number, every NAG and comment, every
//! variation's start and end, and the rest of each variation an error ended, in input order.
//! [`super::pgn`] writes the game from it, so a game is replayed once whatever the format.

use std::ops::Range;

use super::spool::Spool;
use crate::chess::Color;
use crate::error::Kind;
use crate::notation::san::write_san;
use crate::pgn::Nag;
use crate::pipeline::replay::Played;

/// A move's SAN: the token as written when it is canonical (nearly always), else written again.
#[derive(Clone, Debug)]
pub(super) enum San<'a> {
    /// The input's token (or `--` for a null move).
    Token(&'a [u8]),
    /// A range of [`Movetext::written`].
    Written(Range<u32>),
}

/// One event of a game's movetext.
#[derive(Clone, Debug)]
pub(super) enum Event<'a> {
    /// A move, `depth` variations deep (0: the mainline), at move `number`, by Black when `black`.
    Move { depth: u32, san: San<'a>, number: u32, black: bool },
    /// A NAG.
    Nag { depth: u32, nag: Nag },
    /// A comment's bytes between its delimiters, written back in braces whichever it had: its
    /// offset and kind are not kept (with them an event was 40 bytes, not 32).
    Comment { depth: u32, raw: &'a [u8] },
    /// A variation of depth `depth` starts.
    Begin { depth: u32 },
    /// The variation of depth `depth` ends.
    End { depth: u32 },
    /// The rest of a variation an error of `kind` ended, as read, to be kept as a comment
    /// `depth` variations deep.
    Cut { depth: u32, kind: Kind, text: &'a [u8] },
}

/// The events of one game.
#[derive(Debug, Default)]
pub(super) struct Movetext<'a> {
    /// In order, past a bound on disk.
    pub events: Spool<'a, Event<'a>>,
    /// The SANs that were not the token as written.
    written: Vec<u8>,
}

impl<'a> Movetext<'a> {
    /// No events yet, their text borrowed from `base`, about `held_bytes` of them in memory.
    pub fn new(base: &'a [u8], held_bytes: usize) -> Movetext<'a> {
        Movetext { events: Spool::new(base, held_bytes), written: Vec::new() }
    }

    /// Records a move of the replay (called with [`crate::pipeline::replay::Hooks::written_san`]).
    pub fn played(&mut self, p: &Played<'a, '_>) {
        let san = match (p.mv, p.canonical_san()) {
            (None, _) => San::Token(b"--"),
            (Some(_), Some(token)) => San::Token(token),
            (Some(m), None) => {
                let start = self.written.len() as u32;
                write_san(p.before, m, &mut self.written);
                San::Written(start..self.written.len() as u32)
            }
        };
        let (number, black) = (p.before.fullmoves(), p.before.turn() == Color::Black);
        self.events.push(Event::Move { depth: p.depth, san, number, black });
    }

    /// The bytes of a move's SAN.
    pub fn san<'s>(&'s self, san: &'s San<'a>) -> &'s [u8] {
        match san {
            San::Token(t) => t,
            San::Written(r) => &self.written[r.start as usize..r.end as usize],
        }
    }
}
