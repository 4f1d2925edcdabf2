//! The rare games whose bytes are read a second time, off the path of every other game: what
//! the first reading did not note because noting it for every game would cost more.

use std::ops::ControlFlow;

use super::is_null_move;
use crate::chess::{Position, Variant};
use crate::notation::san::{SanError, parse_san_with};
use crate::pgn::{RawComment, Reader, SanToken, Visitor};

/// Whether the first mainline move of `game`, a game without tags that was skipped on them (so
/// not replayed), is written as a move, as `Replayer::unresolved` tells for a replayed one:
/// such a game has only its moves to be PGN by. Its bytes are read again for it, off the path of
/// every other game.
#[cold]
#[inline(never)]
pub(super) fn first_move_written(game: &[u8]) -> bool {
    struct FirstMove<'a>(Option<&'a [u8]>);
    impl<'a> Visitor<'a> for FirstMove<'a> {
        type Output = ();
        fn san(&mut self, san: SanToken<'a>) -> ControlFlow<()> {
            self.0 = Some(san.raw);
            ControlFlow::Break(())
        }
        fn begin_variation(&mut self, _: usize) -> ControlFlow<()> {
            ControlFlow::Break(())
        }
        fn end_game(&mut self) {}
    }
    let mut first = FirstMove(None);
    Reader::new(game).read_game(&mut first);
    let start = Position::new(Variant::Standard);
    first.0.is_some_and(|raw| {
        is_null_move(raw) || !matches!(parse_san_with(&start, start.checkers(), raw), Err(SanError::Syntax))
    })
}

/// Whether `game` holds a comment: text of its own, so a game though it has nothing else. Read
/// again for the rare game with no tag, move or result, instead of noting every comment as read.
#[cold]
#[inline(never)]
pub(super) fn has_comment(game: &[u8]) -> bool {
    struct Commented(bool);
    impl<'a> Visitor<'a> for Commented {
        type Output = ();
        fn comment(&mut self, _: RawComment<'a>) {
            self.0 = true;
        }
        fn end_game(&mut self) {}
    }
    let mut seen = Commented(false);
    Reader::new(game).read_game(&mut seen);
    seen.0
}
