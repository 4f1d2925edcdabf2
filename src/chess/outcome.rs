//! How a game ended, and repetition detection over a game's list of Zobrist keys (a game that
//! keeps its own: [`super::Game`]).

use super::Position;
use super::types::Color;

/// Why a game is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can mate.
    InsufficientMaterial,
    /// 150 plies without capture or pawn move.
    SeventyFiveMoves,
    /// The same position for the fifth time.
    FivefoldRepetition,
}

/// The end of a game: the winner (`None` for a draw) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The winner, or `None` for a draw.
    pub winner: Option<Color>,
    /// What ended it.
    pub termination: Termination,
}

impl Outcome {
    /// The PGN result token: `1-0`, `0-1` or `1/2-1/2`.
    pub const fn result(self) -> &'static str {
        match self.winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

/// How many positions back a repetition of `pos` can lie, the `since_irreversible` of
/// [`repetitions`]: past a capture or a pawn move (the halfmove clock) nothing repeats in chess;
/// in crazyhouse a captured piece comes back from the pocket, so the whole game is searched, as
/// python-chess does.
pub fn repetition_window(pos: &Position) -> usize {
    if pos.crazyhouse() { usize::MAX } else { pos.halfmoves() as usize }
}

/// How many times the last key of `keys` occurs among the keys of positions with the same side to
/// move (every second entry, going back), stopping at `since_irreversible` entries back: the
/// halfmove clock bounds how far a repetition can reach. Keys must include pockets and the
/// capturable en passant file, as [`super::Position::zobrist`] does.
pub fn repetitions(keys: &[u64], since_irreversible: usize) -> usize {
    let Some((&last, rest)) = keys.split_last() else {
        return 0;
    };
    1 + earlier_occurrences(last, rest, since_irreversible)
}

/// How many times `key`, the key of a position that follows the positions of `earlier`, occurs
/// among them with the same side to move (every second entry, going back from the second
/// last), looking at most `since_irreversible` entries back.
pub(crate) fn earlier_occurrences(key: u64, earlier: &[u64], since_irreversible: usize) -> usize {
    let window = since_irreversible.min(earlier.len());
    earlier[earlier.len() - window..].iter().rev().skip(1).step_by(2).filter(|&&k| k == key).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_same_side_repetitions() {
        // a b a b a: "a" stands three times with the same side to move.
        assert_eq!(repetitions(&[1, 2, 1, 2, 1], 10), 3);
        assert_eq!(repetitions(&[1, 2, 1, 2, 1], 2), 2);
        // Same key at odd distance is the other side to move: not a repetition.
        assert_eq!(repetitions(&[1, 1], 10), 1);
        assert_eq!(repetitions(&[], 10), 0);
    }

    /// python-chess's order: checkmate, insufficient material, stalemate.
    #[test]
    fn a_stalemate_without_mating_material_is_insufficient_material() {
        use crate::chess::Variant;
        use crate::notation::fen::parse_fen;
        let outcome =
            |fen: &str| parse_fen(fen, Variant::Standard).expect("fen").outcome().map(|o| o.termination);
        let stalemate_bishop = "7k/5K2/6B1/8/8/8/8/8 b - - 0 1";
        assert_eq!(outcome(stalemate_bishop), Some(Termination::InsufficientMaterial));
        let pos = parse_fen(stalemate_bishop, Variant::Standard).expect("fen");
        assert!(pos.is_stalemate());
        assert_eq!(pos.mate_or_stalemate().map(|o| o.termination), Some(Termination::Stalemate));
        assert_eq!(outcome("7k/5K2/6Q1/8/8/8/8/8 b - - 0 1"), Some(Termination::Stalemate));
        assert_eq!(outcome("7k/7P/6K1/8/8/8/8/8 b - - 0 1"), Some(Termination::Stalemate));
        assert_eq!(outcome("7k/8/5K2/8/8/8/8/6B1 b - - 0 1"), Some(Termination::InsufficientMaterial));
        assert_eq!(outcome("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1"), Some(Termination::Checkmate));
    }
}
