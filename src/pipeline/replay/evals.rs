//! A mainline move's `[%eval]` and `[%clk]`, read once for the jobs that ask for them
//! ([`Hooks::reads_evals`]): the first of each that reads among the comments after the move, as
//! python-chess reads a move's joined comments; an `[%eval]` that reads as no evaluation is a
//! `bad_eval` warning at its `[`.

use std::time::Duration;

use super::message::{Facts, text};
use super::{Hooks, Replayer};
use crate::error::{Kind, Severity};
use crate::pgn::comment::{parse_clock, parse_eval};
use crate::pgn::{Eval, RawComment};

/// What a mainline comment adds to its move: an evaluation or clock the move had none of yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EvalClock {
    /// The first `[%eval]` after the move that reads.
    pub eval: Option<Eval>,
    /// The first `[%clk]` after the move that reads: the mover's clock after it.
    pub clock: Option<Duration>,
}

/// Which of the current mainline move's figures were handed over: the game's number and the
/// mainline's ply name the move.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Given {
    game: u64,
    ply: u32,
    eval: bool,
    clock: bool,
}

impl<'a, H: Hooks<'a>> Replayer<'a, H> {
    /// Reads a mainline comment's evaluation and clock, reporting each `[%eval]` that does not
    /// read, and hands the hooks what the move had none of yet.
    pub(super) fn read_evals(&mut self, comment: &RawComment<'a>) {
        let ply = self.stack.first().map_or(0, |l| l.ply);
        if (self.given.game, self.given.ply) != (self.game.number, ply) {
            self.given = Given { game: self.game.number, ply, eval: false, clock: false };
        }
        let mut found = EvalClock::default();
        // Lichess's `{ [%eval E] [%clk C] }`, on nearly every move of its exports, in one pass.
        if let Some((score, clock)) = comment.lichess_eval_and_clock() {
            found = EvalClock { eval: Some(Eval { score, depth: None }), clock: Some(clock) };
        } else {
            for c in comment.commands() {
                match c.name {
                    b"eval" => match parse_eval(c.args) {
                        Some(e) => _ = found.eval.get_or_insert(e),
                        None => self.bad_eval(comment, c.name, c.args),
                    },
                    b"clk" if found.clock.is_none() => found.clock = parse_clock(c.args),
                    _ => {}
                }
            }
        }
        let mut new = EvalClock::default();
        if !self.given.eval {
            (new.eval, self.given.eval) = (found.eval, found.eval.is_some());
        }
        if !self.given.clock {
            (new.clock, self.given.clock) = (found.clock, found.clock.is_some());
        }
        if new != EvalClock::default() {
            self.hooks.eval_clock(&self.game, new);
        }
    }

    /// An `[%eval ARGS]` of `comment` (its name `name`) that reads as no evaluation.
    fn bad_eval(&mut self, comment: &RawComment<'a>, name: &[u8], args: &'a [u8]) {
        // The command's `[%` stands just before its name, inside the comment's bytes.
        let at = comment.offset + 1 + (name.as_ptr() as usize - comment.raw.as_ptr() as usize) - 2;
        self.report(Kind::BadEval, Severity::Warning, at as u64, None, || {
            Facts::message(format!(
                "[%eval {}] reads as no evaluation (pawns as 0.17, a mate as #-4); left out",
                text(args)
            ))
        });
    }
}
