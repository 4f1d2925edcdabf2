//! What the evaluations of a game say about each of its mainline moves, as lichess says it: the
//! `[%eval]` to write after it, its judgement (only when it differs from the engine's best move),
//! the engine's best move in SAN, and the engine's line from the position before it (at most 20
//! plies) where a variation goes; and the game's ACPL and accuracy tags.

use std::cell::RefCell;
use std::io;

use super::analyse::Evaluated;
use super::collect::Mainline;
use super::spool::{Cursor, Spool};
use super::{AnnotateOptions, Variations};
use crate::analysis::Score;
use crate::analysis::judge::{AccuracyBuffers, Advice, Judge, accuracy_of, acpl_of};
use crate::chess::{Color, Move};

/// Plies of the engine's line written as a variation, at most (lichess's figure).
pub const LINE_PLIES: usize = 20;

/// What is written about one mainline move (its `[%eval]`: [`Plan::eval`]).
#[derive(Clone, Debug, Default)]
pub(super) struct Note {
    /// The judgement.
    pub advice: Option<Advice>,
    /// The engine's best move in the position before.
    pub best: Option<Move>,
    /// The engine's line from the position before ([`Evaluated::analysis`]) is written as a
    /// variation, its first [`LINE_PLIES`] plies.
    pub line: bool,
}

/// A game's notes: the evaluations of its positions, a note per move, the tags to add.
#[derive(Debug, Default)]
pub(super) struct Plan {
    /// One per mainline position (empty when the start position is unknown).
    pub evals: Spool<'static, Evaluated>,
    /// One per mainline move.
    pub notes: Spool<'static, Note>,
    /// Tags added (`--add-tags`).
    pub tags: Vec<(&'static str, String)>,
    /// `[%eval]`s are written (not under `--from-evals`, which keeps the game's own).
    pub write_evals: bool,
}

impl Plan {
    /// The `[%eval]` after mainline move `index` (White's view); `None`: none is written (no
    /// evaluation, a mated position, or `--from-evals`).
    pub fn eval(&self, evals: &mut Cursor<'_, '_, Evaluated>, index: usize) -> io::Result<Option<Score>> {
        let after = evals.get(index + 1)?.and_then(|e| e.white);
        Ok(after.filter(|s| *s != Score::Mate(0) && self.write_evals))
    }
}

/// The `[%eval]` text of a White's-view score, as lichess writes it: pawns with the digits they
/// need (`0.17`, `-0.05`, `1.0`), or `#N` / `#-N` for a mate in N moves.
pub(super) fn eval_text(score: Score) -> String {
    match score {
        Score::Cp(cp) => {
            let mut s = format!("{}", f64::from(cp) / 100.0);
            if !s.contains('.') {
                s.push_str(".0");
            }
            s
        }
        Score::Mate(n) => format!("#{n}"),
    }
}

/// The notes of `game` from the evaluations of its positions, past `held_bytes` on disk.
pub(super) fn plan(
    game: &Mainline,
    evals: Spool<'static, Evaluated>,
    opts: &AnnotateOptions,
    held_bytes: usize,
) -> io::Result<Plan> {
    let Some(start) = game.start else { return Ok(Plan::default()) };
    let mut judge = Judge::new(start.turn());
    let mut notes = Spool::new(&[], held_bytes);
    let mut c = evals.cursor();
    for (i, &mv) in game.moves.iter().enumerate() {
        let engine = c.get(i)?.and_then(|e| e.analysis.as_ref());
        let (best, has_line) = engine.map_or((None, false), |a| (a.best_move, !a.pv.is_empty()));
        let after = c.get(i + 1)?.and_then(|e| e.white);
        let is_best = best == Some(mv);
        let advice = judge.next(after, is_best);
        let wanted = match opts.variations {
            Variations::None => false,
            Variations::Mistakes => advice.is_some(),
            Variations::All => best.is_some() && !is_best,
        };
        notes.push(Note { advice, best, line: wanted && has_line });
    }
    let mut tags = Vec::new();
    if opts.add_tags {
        // Read from the evaluations themselves, no list made: a long game's tags cost no memory a
        // ply. A block that cannot be read back ends them, the error said after.
        let failed = RefCell::new(None);
        let failed_at = &failed;
        let mut c = evals.cursor();
        let after = (1..evals.len()).map(move |i| match c.get(i) {
            Ok(e) => e.and_then(|e| e.white),
            Err(e) => {
                failed_at.borrow_mut().get_or_insert(e);
                None
            }
        });
        let a = acpl_of(after.clone(), start.turn());
        let side = |c: Color| if c == Color::White { a.white } else { a.black };
        for (c, name) in [(Color::White, "WhiteACPL"), (Color::Black, "BlackACPL")] {
            if let Some(v) = side(c) {
                tags.push((name, v.to_string()));
            }
        }
        if let Some(acc) = accuracy_of(after, start.turn(), &mut AccuracyBuffers::default()) {
            tags.push(("WhiteAccuracy", format!("{}", acc.white.round())));
            tags.push(("BlackAccuracy", format!("{}", acc.black.round())));
        }
        if let Some(e) = failed.into_inner() {
            return Err(e);
        }
    }
    Ok(Plan { evals, notes, tags, write_evals: !opts.from_evals })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evals_are_written_as_lichess_writes_them() {
        let cases = [
            (17, "0.17"),
            (10, "0.1"),
            (-5, "-0.05"),
            (100, "1.0"),
            (0, "0.0"),
            (-250, "-2.5"),
            (1234, "12.34"),
        ];
        for (cp, text) in cases {
            assert_eq!(eval_text(Score::Cp(cp)), text, "{cp}");
        }
        assert_eq!(eval_text(Score::Mate(-3)), "#-3");
        assert_eq!(eval_text(Score::Mate(2)), "#2");
    }
}
