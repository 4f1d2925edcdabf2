//! The first reading of a chunk: each game's mainline as the analysis needs it (start position,
//! moves, the position before each move and after the last), the `[%eval]` of each mainline
//! move's comments (for `--from-evals`), the filters' verdict, and the errors that keep a game
//! from being annotated.

use crate::analysis::Score;
use crate::analysis::judge::eval_score;
use crate::chess::{Move, Position};
use crate::error::{Diagnostic, Kind, Severity};
use crate::pgn::RawComment;
use crate::pipeline::replay::{Game, Hooks, Lines, Played, Verdict};
use crate::select::{Filter, Selection};

/// What becomes of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fate {
    /// Analysed and written with annotations.
    Annotate,
    /// Written as read: an error ended its replay, or its mainline holds a null move.
    AsRead,
    /// Left out by the filters.
    Filtered,
}

/// One game's mainline.
#[derive(Debug)]
pub(crate) struct Mainline {
    /// Game number in its input.
    pub number: u64,
    /// Byte offset and line of its start (the line relative to the chunk).
    pub offset: u64,
    pub line: u64,
    /// The players, for diagnostics.
    pub white: Option<String>,
    pub black: Option<String>,
    /// The tag pairs as text, the first of each name in order (kept for `--format jsonl`).
    pub tags: Vec<(String, String)>,
    /// The start position (`None` for a bad setup).
    pub start: Option<Position>,
    /// The mainline's moves.
    pub moves: Vec<Move>,
    /// `positions[i]`: the position before move `i`; the last one is after the last move.
    pub positions: Vec<Position>,
    /// The `[%eval]` after each move, as the game gives it (White's view), and its depth.
    pub game_evals: Vec<(Option<Score>, Option<u32>)>,
    pub fate: Fate,
}

/// The tag pairs of `game` as text (UTF-8, else Windows-1252, escapes resolved), the first of
/// each name, in order.
fn tag_texts(game: &Game<'_>) -> Vec<(String, String)> {
    let mut tags: Vec<(String, String)> = Vec::with_capacity(game.tags.len());
    for (name, value) in &game.tags {
        let name = crate::pgn::text::decode(name).0;
        if tags.iter().all(|(n, _)| *n != name) {
            tags.push((name.into_owned(), value.decode().0.into_owned()));
        }
    }
    tags
}

/// The hooks of the first reading.
pub(super) struct Collect<'s> {
    pub(super) filter: Filter<'s>,
    /// Every game of the chunk.
    pub games: Vec<Mainline>,
    /// Errors of the games (the reasons they are written as read).
    pub diagnostics: Vec<Diagnostic>,
    null_move: bool,
    /// Keep each game's tags ([`Mainline::tags`]).
    keep_tags: bool,
}

impl<'s> Collect<'s> {
    pub(super) fn new(select: &'s Selection, keep_tags: bool) -> Collect<'s> {
        Collect {
            filter: Filter::new(select, false),
            games: Vec::new(),
            diagnostics: Vec::new(),
            null_move: false,
            keep_tags,
        }
    }

    fn current(&mut self) -> &mut Mainline {
        self.games.last_mut().expect("tags come before every other event of a game")
    }
}

impl<'a> Hooks<'a> for Collect<'_> {
    fn zobrist_keys(&self) -> bool {
        false
    }

    fn wants(&self, _: Kind, severity: Severity) -> bool {
        severity == Severity::Error
    }

    fn moves(&self) -> Lines {
        Lines::Mainline
    }

    fn tags(&mut self, game: &Game<'a>) -> Verdict {
        self.null_move = false;
        self.games.push(Mainline {
            number: game.number,
            offset: game.offset,
            line: game.line,
            white: game.tag_text(b"White"),
            black: game.tag_text(b"Black"),
            tags: if self.keep_tags { tag_texts(game) } else { Vec::new() },
            start: None,
            moves: Vec::new(),
            positions: Vec::new(),
            game_evals: Vec::new(),
            fate: Fate::Annotate,
        });
        self.filter.tags(game)
    }

    fn start(&mut self, _: &Game<'a>, pos: &Position) {
        let m = self.current();
        m.start = Some(*pos);
        m.positions.push(*pos);
    }

    fn played(&mut self, _: &Game<'a>, p: &Played<'a, '_>) {
        if p.depth != 0 {
            return;
        }
        self.filter.observe(p.before);
        let Some(mv) = p.mv else {
            self.null_move = true;
            return;
        };
        if self.null_move {
            return;
        }
        let m = self.current();
        m.moves.push(mv);
        let mut after = *p.before;
        after.play_unchecked(mv);
        m.positions.push(after);
        m.game_evals.push((None, None));
    }

    fn comment(&mut self, _: &Game<'a>, depth: u32, comment: RawComment<'a>) {
        if depth != 0 {
            return;
        }
        let m = self.current();
        // A comment before the first move, or after a null move, evaluates no move of ours.
        if m.game_evals.len() == m.moves.len()
            && let (Some(last), Some(eval)) = (m.game_evals.last_mut(), comment.eval())
        {
            *last = (Some(eval_score(eval.score)), eval.depth);
        }
    }

    fn diagnostic(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }

    fn end(&mut self, game: &Game<'a>, last: Option<&Position>) {
        let kept = self.filter.finish(game, last).is_ok();
        let broken = game.errors > 0 || game.start.is_none() || self.null_move;
        if !kept {
            self.diagnostics.retain(|d| d.game != game.number);
        }
        let m = self.current();
        m.fate = match (kept, broken) {
            (false, _) => Fate::Filtered,
            (true, true) => Fate::AsRead,
            (true, false) => Fate::Annotate,
        };
    }

    fn counted(&self) -> bool {
        self.games.last().is_none_or(|g| g.fate != Fate::Filtered)
    }
}
