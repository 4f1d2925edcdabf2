//! SAN on a [`Game`]: python-chess's `board.push_san(text)` and `board.san(move)`, for a
//! program that builds or shows a game move by move (the replay's hot path does not come here).

use super::{SanError, SanPlus, parse_san};
use crate::chess::{Game, Move};

impl Game {
    /// Plays the move `san` stands for now, returning it (python-chess's `push_san`); any
    /// accepted spelling of it ([`parse_san`]) will do. On an error nothing changes.
    ///
    /// ```
    /// use pgnkit::chess::Game;
    /// use pgnkit::notation::SanError;
    ///
    /// let mut game = Game::default();
    /// for san in ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"] {
    ///     game.push_san(san)?;
    /// }
    /// assert!(game.is_game_over());
    /// let last = game.pop().expect("a move");
    /// assert_eq!(game.san(last), "Qxf7#");
    /// assert_eq!(game.push_san("Ke3"), Err(SanError::Illegal));
    /// assert_eq!(game.moves().len(), 6);
    /// # Ok::<(), SanError>(())
    /// ```
    pub fn push_san(&mut self, san: &str) -> Result<Move, SanError> {
        let (m, _) = parse_san(self.position(), san.as_bytes())?;
        self.push(m).expect("parse_san gives a legal move");
        Ok(m)
    }

    /// The SAN of `m` in the position now, check mark included (python-chess's `board.san`);
    /// `m` must be legal there. For a [`Position`](crate::chess::Position) alone:
    /// `SanPlus::from_move(&pos, m).to_string()`.
    pub fn san(&self, m: Move) -> String {
        SanPlus::from_move(self.position(), m).to_string()
    }
}
