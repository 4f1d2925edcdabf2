//! [`Game`]: a position with its history (python-chess's board with its move stack): the start
//! position, the moves played and every position reached, so that [`Game::pop`] takes a move back
//! and the rules that need the history (repetitions, the draws a player may claim) can be asked.
//!
//! Every position is kept, not replayed from the start on a pop: a [`Position`] is Copy and
//! 120 bytes (`size_of::<Position>()`, x86-64), so a ply costs 130 bytes with its key and move
//! (39 KB for 300 plies) and a pop is constant time, where replaying would make taking a game
//! back move by move quadratic. [`Position::play`] and the other hot paths are not touched: a
//! game is for a caller that needs the history (its vectors grow by doubling).
//!
//! Invariant: `positions[0]` is the start and `positions[i + 1]` is `positions[i]` after
//! `moves[i]`, each legal where it was played; `keys[i]` is `positions[i].zobrist()`.

use super::outcome::{Outcome, Termination, earlier_occurrences, repetition_window, repetitions};
use super::{IllegalMove, Move, Position};

/// A game from a start position: its moves and the positions they reach.
///
/// ```
/// use pgnkit::chess::{Game, Termination};
/// use pgnkit::notation::parse_san;
///
/// let mut game = Game::default();
/// for san in ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"] {
///     let (m, _) = parse_san(game.position(), san.as_bytes())?;
///     game.push(m)?;
/// }
/// // python-chess: board.is_repetition(3) is False, board.can_claim_threefold_repetition()
/// // is True (Ng8 repeats the start a third time).
/// assert!(!game.is_repetition(3) && game.can_claim_threefold_repetition());
/// let last = game.pop();
/// assert_eq!(last.map(|m| m.to_string()), Some("f3g1".to_string()));
/// assert_eq!(game.moves().len(), 6);
/// assert_eq!(game.repetitions(), 2);
/// assert_eq!(game.outcome(), None);
///
/// let mut mate = Game::default();
/// for uci in ["f2f3", "e7e5", "g2g4", "d8h4"] {
///     mate.push(pgnkit::notation::parse_uci(mate.position(), uci.as_bytes())?)?;
/// }
/// assert_eq!(mate.outcome().map(|o| o.termination), Some(Termination::Checkmate));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    positions: Vec<Position>,
    keys: Vec<u64>,
    moves: Vec<Move>,
}

impl Default for Game {
    /// The standard starting position, no moves.
    fn default() -> Game {
        Game::new(Position::default())
    }
}

impl Game {
    /// A game from `start` (any position: from a FEN too), no moves yet.
    pub fn new(mut start: Position) -> Game {
        // The keys of the history are read from the positions: kept move by move.
        start.set_hashing(true);
        Game { keys: vec![start.zobrist()], positions: vec![start], moves: Vec::new() }
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// The position now, after the last move.
    pub fn position(&self) -> &Position {
        self.positions.last().expect("a game has its start position")
    }

    /// The moves played, first to last (python-chess's `board.move_stack`).
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The start and every position reached: one more than [`Game::moves`], `positions()[i]`
    /// being the position `moves()[i]` was played in (the position its SAN is written for).
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The Zobrist keys of the positions before the one now, oldest first: the history an engine's
    /// search is given to see repetitions.
    pub fn earlier_keys(&self) -> &[u64] {
        &self.keys[..self.keys.len() - 1]
    }

    /// Plays `m` if it is legal now; an illegal move changes nothing.
    pub fn push(&mut self, m: Move) -> Result<(), IllegalMove> {
        let mut next = *self.position();
        next.play(m)?;
        self.keys.push(next.zobrist());
        self.positions.push(next);
        self.moves.push(m);
        Ok(())
    }

    /// Takes back the last move and returns it; `None` at the start.
    pub fn pop(&mut self) -> Option<Move> {
        let m = self.moves.pop()?;
        self.positions.pop();
        self.keys.pop();
        Some(m)
    }

    /// How many times the position now has stood in the game with the same side to move, this
    /// time included (1 for a position new to the game).
    pub fn repetitions(&self) -> usize {
        repetitions(&self.keys, repetition_window(self.position()))
    }

    /// `true` when the position now has stood `count` times or more (python-chess's
    /// `board.is_repetition(count)`): `is_repetition(3)` is threefold repetition on the board,
    /// without the claim of a move to come ([`Game::can_claim_threefold_repetition`]).
    pub fn is_repetition(&self, count: usize) -> bool {
        self.repetitions() >= count
    }

    /// `true` when the position now stands for the fifth time: the game is drawn, no claim needed.
    pub fn is_fivefold_repetition(&self) -> bool {
        self.is_repetition(5)
    }

    /// `true` when the side to move can claim a draw by threefold repetition, as python-chess's
    /// `can_claim_threefold_repetition` says: the position now stands for the third time, or a
    /// legal move reaches a position for the third time (the claim is made with that move).
    pub fn can_claim_threefold_repetition(&self) -> bool {
        if self.is_repetition(3) {
            return true;
        }
        let pos = self.position();
        pos.legal_moves().iter().any(|&m| {
            let mut after = *pos;
            after.play_unchecked(m);
            earlier_occurrences(after.zobrist(), &self.keys, repetition_window(&after)) >= 2
        })
    }

    /// `true` when the side to move can claim a draw by the fifty-move rule
    /// ([`Position::can_claim_fifty_moves`]).
    pub fn can_claim_fifty_moves(&self) -> bool {
        self.position().can_claim_fifty_moves()
    }

    /// `true` when the side to move can claim a draw, by the fifty-move rule or by threefold
    /// repetition (python-chess's `can_claim_draw`).
    pub fn can_claim_draw(&self) -> bool {
        self.can_claim_fifty_moves() || self.can_claim_threefold_repetition()
    }

    /// `true` when the game is over without a claim ([`Game::outcome`] is some): python-chess's
    /// `board.is_game_over()`. With the draws a player may claim too: `|| game.can_claim_draw()`.
    pub fn is_game_over(&self) -> bool {
        self.outcome().is_some()
    }

    /// The game is over without a claim: [`Position::outcome`] (checkmate, insufficient
    /// material, stalemate, the 75-move rule) or fivefold repetition, in python-chess's order
    /// (`board.outcome()`). The draws a player must claim are [`Game::can_claim_draw`].
    pub fn outcome(&self) -> Option<Outcome> {
        self.position().outcome().or_else(|| {
            self.is_fivefold_repetition()
                .then_some(Outcome { winner: None, termination: Termination::FivefoldRepetition })
        })
    }
}

#[cfg(test)]
pub(crate) mod tests;
