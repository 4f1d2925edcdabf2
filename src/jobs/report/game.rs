//! One game as the report reads it ([`GameRecord`]: the tags it shows, the mainline with the
//! evaluation, clock, judgement and engine's best move the file gives for each move, the engine's
//! line after a judged move, the phases and the opening), and what its evaluations say
//! ([`Figures`]): each move's judgement and centipawn loss, and each side's ACPL and accuracy,
//! by the rules of `annotate --from-evals` and `--add-tags` ([`crate::analysis::judge`]).

use std::time::Duration;

use super::divider::Division;
use crate::analysis::Score;
use crate::analysis::judge::{Judge, Judgement, accuracy, cp_losses};
use crate::chess::{ByColor, Color, Move, Position, Variant};
use crate::pgn::{GameResult, Nag};
use crate::select::eco::Opening;

/// The tags a report shows of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TagName {
    /// `White`.
    White,
    /// `Black`.
    Black,
    /// `Event`.
    Event,
    /// `Date` (else `UTCDate`), as written.
    Date,
    /// `Round`.
    Round,
    /// `TimeControl`.
    TimeControl,
    /// The game's page: `Site`, `Link`, `GameURL` or `LichessURL`, the first that is a URL.
    Url,
    /// `Site` when it is no URL.
    Site,
    /// `Opening`, as written (shown when the table names no opening).
    Opening,
    /// `Annotator`.
    Annotator,
}

const TAG_NAMES: usize = 10;

/// The tags of a game a report shows, their values in one string (one allocation a game).
#[derive(Clone, Debug, Default)]
pub struct Tags {
    text: String,
    spans: [(u32, u32); TAG_NAMES],
    /// `WhiteElo`, `BlackElo`, when they are numbers.
    pub elo: ByColor<Option<u32>>,
}

impl Tags {
    /// The value of `name`, if the game has one (neither empty nor `?`).
    pub fn get(&self, name: TagName) -> Option<&str> {
        let (start, end) = self.spans[name as usize];
        (end > start).then(|| &self.text[start as usize..end as usize])
    }

    /// Sets `name`'s value (empty and `?` count as none).
    pub fn set(&mut self, name: TagName, value: &str) {
        if value.is_empty() || value == "?" {
            return;
        }
        let start = self.text.len() as u32;
        self.text.push_str(value);
        self.spans[name as usize] = (start, self.text.len() as u32);
    }

    /// No tags, the text's memory kept.
    pub fn clear(&mut self) {
        self.text.clear();
        self.spans = Default::default();
        self.elo = ByColor::default();
    }

    /// The player of `side`.
    pub fn player(&self, side: Color) -> Option<&str> {
        self.get(if side.is_white() { TagName::White } else { TagName::Black })
    }
}

/// One game of the input, as read.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// The input's name (set by the sink, which knows it).
    pub input: std::sync::Arc<crate::io::name::Name>,
    /// Game number in its input, 1-based.
    pub number: u64,
    /// The tags shown.
    pub tags: Tags,
    /// The result: the `Result` tag, else the movetext's.
    pub result: GameResult,
    /// The rule set.
    pub variant: Variant,
    /// The start position (`None`: a bad setup; such a game has no moves).
    pub start: Option<Position>,
    /// The mainline (its valid prefix).
    pub moves: Vec<Move>,
    /// The `[%eval]` after each move (White's view).
    pub evals: Vec<Option<Score>>,
    /// The `[%clk]` after each move.
    pub clocks: Vec<Option<Duration>>,
    /// The judgement NAG (`$6`, `$2`, `$4`, or `?!`, `?`, `??`) of each move.
    pub nags: Vec<Option<Judgement>>,
    /// The engine's best move in the position before each move: from the comment
    /// `... X was best.`, else the first move of the variation after the move.
    pub best: Vec<Option<Move>>,
    /// The first variation after a move (the engine's line, after a judged move), at most
    /// [`LINE_PLIES`] plies: (move index, moves).
    pub lines: Vec<(u32, Vec<Move>)>,
    /// The file judged the game: pgnkit's `Annotator` tag, or a judgement NAG on a move.
    pub judged_in_file: bool,
    /// The position before each move that a NAG or the evaluations judge (a superset of the
    /// judged moves, kept as the game is read so that no one replays it for them), by index.
    pub judged_positions: Vec<(u32, Position)>,
    /// The phases.
    pub division: Division,
    /// The opening the lichess table names (standard chess).
    pub opening: Option<&'static Opening>,
    /// An error ended the mainline's replay (the valid prefix is reported).
    pub broken: bool,
}

/// The plies a game's vectors hold before they grow.
const PLIES: usize = 128;

/// Plies of an engine line kept, at most (annotate writes at most 20).
pub const LINE_PLIES: usize = 20;

impl GameRecord {
    /// An empty record of game `number`.
    pub fn new(number: u64) -> GameRecord {
        GameRecord {
            input: Default::default(),
            number,
            tags: Tags::default(),
            result: GameResult::Unknown,
            variant: Variant::Standard,
            start: None,
            // Most games end before this many plies: their vectors grow no more.
            moves: Vec::with_capacity(PLIES),
            evals: Vec::with_capacity(PLIES),
            clocks: Vec::with_capacity(PLIES),
            nags: Vec::with_capacity(PLIES),
            best: Vec::with_capacity(PLIES),
            lines: Vec::new(),
            judged_in_file: false,
            judged_positions: Vec::new(),
            division: Division::default(),
            opening: None,
            broken: false,
        }
    }

    /// Empties the record for game `number`, keeping its vectors' memory.
    pub fn reset(&mut self, number: u64) {
        self.number = number;
        self.tags.clear();
        self.result = GameResult::Unknown;
        self.variant = Variant::Standard;
        self.start = None;
        self.moves.clear();
        self.evals.clear();
        self.clocks.clear();
        self.nags.clear();
        self.best.clear();
        self.lines.clear();
        self.judged_in_file = false;
        self.judged_positions.clear();
        self.division = Division::default();
        self.opening = None;
        self.broken = false;
    }

    /// The record without its moves: what the totals read of a game that gets no section of its
    /// own. Its tags are copied at their size, this record keeping the text's memory for the next
    /// game (grown anew for each game, the text measured 2% of `report`'s time in reallocation).
    pub fn take_head(&mut self) -> GameRecord {
        GameRecord {
            input: self.input.clone(),
            number: self.number,
            tags: self.tags.clone(),
            result: self.result,
            variant: self.variant,
            start: self.start,
            moves: Vec::new(),
            evals: Vec::new(),
            clocks: Vec::new(),
            nags: Vec::new(),
            best: Vec::new(),
            lines: Vec::new(),
            judged_in_file: self.judged_in_file,
            judged_positions: Vec::new(),
            division: self.division,
            opening: self.opening,
            broken: self.broken,
        }
    }

    /// A move played: its slots are empty until its comments and NAGs fill them.
    pub fn push_move(&mut self, m: Move) {
        self.moves.push(m);
        self.evals.push(None);
        self.clocks.push(None);
        self.nags.push(None);
        self.best.push(None);
    }

    /// The side that plays the first move.
    pub fn first_mover(&self) -> Color {
        self.start.map_or(Color::White, |p| p.turn())
    }

    /// The side that plays move `index` (0-based).
    pub fn mover(&self, index: usize) -> Color {
        if index.is_multiple_of(2) { self.first_mover() } else { !self.first_mover() }
    }

    /// Whether any move has an evaluation. A mated position's `#0` is none: the rules give it
    /// without an engine (`annotate`'s records carry it, its PGN does not), and lichess keeps none.
    pub fn has_evals(&self) -> bool {
        self.evals.iter().any(|e| e.is_some_and(|s| s != Score::Mate(0)))
    }

    /// The player's name of `side`, `?` when there is none.
    pub fn player(&self, side: Color) -> &str {
        self.tags.player(side).unwrap_or("?")
    }

    /// Keeps `pos` as the position before move `index` (once). Positions are kept in move order,
    /// so one already kept for `index` is the last.
    pub fn keep_position(&mut self, index: usize, pos: &Position) {
        if self.judged_positions.last().is_none_or(|&(i, _)| i as usize != index) {
            self.judged_positions.push((index as u32, *pos));
        }
    }

    /// Each move's judgement: the file's when it judged the game, else from the evaluations by
    /// `annotate --from-evals`'s rules.
    pub fn judgements(&self) -> impl Iterator<Item = Option<Judgement>> + '_ {
        let mut judge = Judge::new(self.first_mover());
        let from_file = self.judged_in_file;
        self.nags.iter().zip(&self.evals).map(move |(&nag, &after)| {
            if from_file { nag } else { judge.next(after, false).map(|a| a.judgement) }
        })
    }

    /// The engine's line after move `index`.
    pub fn line(&self, index: usize) -> Option<&[Move]> {
        self.lines.iter().find(|(i, _)| *i as usize == index).map(|(_, l)| l.as_slice())
    }
}

/// The judgement a judgement NAG stands for.
pub fn nag_judgement(nag: Nag) -> Option<Judgement> {
    match nag.0 {
        6 => Some(Judgement::Inaccuracy),
        2 => Some(Judgement::Mistake),
        4 => Some(Judgement::Blunder),
        _ => None,
    }
}

/// The points of `side` for `result`, in half points (`None` for `*`).
pub fn half_points(result: GameResult, side: Color) -> Option<u32> {
    match (result, side) {
        (GameResult::WhiteWins, Color::White) | (GameResult::BlackWins, Color::Black) => Some(2),
        (GameResult::Draw, _) => Some(1),
        (GameResult::Unknown, _) => None,
        _ => Some(0),
    }
}

/// What a game's evaluations say, move by move: what a game's own section shows (the totals
/// read each game's [`Tally`](super::tally::Tally), computed without these lists).
#[derive(Clone, Debug, Default)]
pub struct Figures {
    /// The judgement of each move ([`GameRecord::judgements`]).
    pub judgements: Vec<Option<Judgement>>,
    /// Each move's centipawn loss (`None`: no evaluation before or after it).
    pub losses: Vec<Option<u32>>,
    /// Each side's accuracy (unrounded).
    pub accuracy: Option<ByColor<f64>>,
}

impl Figures {
    /// The figures of `game`.
    pub fn of(game: &GameRecord) -> Figures {
        Figures::with_accuracy(game, accuracy(&game.evals, game.first_mover()))
    }

    /// The figures of `game`, whose accuracy is already computed.
    pub fn with_accuracy(game: &GameRecord, accuracy: Option<ByColor<f64>>) -> Figures {
        let losses = cp_losses(&game.evals, game.first_mover());
        Figures { judgements: game.judgements().collect(), losses, accuracy }
    }
}

/// A game of `moves` (SAN) from the start, each with its evaluation in centipawns if any: the
/// report's tests build their games so.
#[cfg(test)]
pub(crate) fn game_from_san(moves: &[(&str, Option<i32>)]) -> GameRecord {
    let mut g = GameRecord::new(1);
    let mut pos = Position::default();
    g.start = Some(pos);
    for &(san, eval) in moves {
        let (m, _) = crate::notation::san::parse_san(&pos, san.as_bytes()).expect("legal");
        g.push_move(m);
        *g.evals.last_mut().expect("a move") = eval.map(Score::Cp);
        pos.play_unchecked(m);
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_judge_from_evals_unless_the_file_judged() {
        let mut g = game_from_san(&[("e4", Some(20)), ("f6", Some(250))]);
        let f = Figures::of(&g);
        assert_eq!(f.judgements, [None, Some(Judgement::Blunder)]);
        assert_eq!(f.losses, [Some(0), Some(230)]);
        g.judged_in_file = true;
        g.nags[1] = Some(Judgement::Mistake);
        assert_eq!(Figures::of(&g).judgements, [None, Some(Judgement::Mistake)]);
        assert_eq!(half_points(GameResult::Draw, Color::Black), Some(1));
        assert_eq!(nag_judgement(Nag(6)), Some(Judgement::Inaccuracy));
    }
}
