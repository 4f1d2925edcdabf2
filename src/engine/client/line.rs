//! The `position` command: `position fen <fen> [moves <uci>...]`, from pgnkit's own legal moves
//! only (an engine that meets an illegal move stops reading there, silently, and analyses the
//! wrong position), castling written king-takes-rook when the engine is in Chess960 mode.
//!
//! Why moves and not the FEN of the position alone: an engine sees repetitions only in the moves
//! it was given, and a position whose earlier occurrences it cannot see is searched as if they
//! never happened (Stockfish scores a line back into a position that already occurred twice as a
//! draw; without the moves it plays on). Why not every move of the game: no position before the
//! last capture or pawn move can occur again, so the command starts at the last position where
//! the halfmove clock was 0 (its FEN carries everything else), which also keeps the command short
//! in a long game, and at most [`MAX_PLIES`] plies back: past 100 plies without a capture or pawn
//! move the fifty-move rule already makes every line a draw. In crazyhouse a captured piece comes
//! back from the pocket, so the command holds the last [`MAX_PLIES`] plies whatever the clock. Stockfish counts an earlier position
//! only once it has occurred twice, so when the segment holds no repetition its result is the
//! one `position fen <fen of the position>` gives: a function of the position alone.

use crate::analysis::AnalyzerError;
use crate::chess::outcome::repetition_window;
use crate::chess::{CastlingMode, Move, Position};
use crate::notation::fen::{EpMode, write_fen};
use crate::notation::uci::write_uci;

/// The most plies a `position` command replays.
pub const MAX_PLIES: usize = 100;

/// A position to send: where the command starts, the moves after it, and where they lead.
#[derive(Clone, Debug)]
pub(crate) struct Line {
    /// The first position of the command.
    pub start: Position,
    /// The moves from `start` to `root`.
    pub moves: Vec<Move>,
    /// The position to analyse.
    pub root: Position,
}

impl Line {
    /// The position alone.
    pub(crate) fn position(pos: &Position) -> Line {
        Line { start: *pos, moves: Vec::new(), root: *pos }
    }

    /// The position reached by `moves` from `start`, each checked, the command's part cut as the
    /// module docs say.
    pub(crate) fn game(start: &Position, moves: &[Move]) -> Result<Line, AnalyzerError> {
        let mut pos = *start;
        // Index in `moves` of the first move of the command.
        let mut from = 0;
        for (index, &m) in moves.iter().enumerate() {
            pos.play(m).map_err(|_| AnalyzerError::IllegalLine { index })?;
            if repetition_window(&pos) == 0 {
                from = index + 1;
            }
        }
        let from = from.max(moves.len().saturating_sub(MAX_PLIES));
        let mut first = *start;
        for &m in &moves[..from] {
            first.play_unchecked(m);
        }
        Ok(Line { start: first, moves: moves[from..].to_vec(), root: pos })
    }

    /// The command text; castling in `mode`'s form (the engine's `UCI_Chess960`).
    pub(crate) fn command(&self, mode: CastlingMode) -> String {
        let mut text = String::with_capacity(100 + 6 * self.moves.len());
        text.push_str("position fen ");
        write_fen(&self.start, EpMode::Legal, &mut text);
        if !self.moves.is_empty() {
            text.push_str(" moves");
            for &m in &self.moves {
                text.push(' ');
                write_uci(m, mode, &mut text);
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Variant;
    use crate::notation::fen::parse_fen;
    use crate::notation::uci::parse_uci;

    fn play(start: &Position, moves: &[&str]) -> Vec<Move> {
        let mut pos = *start;
        moves
            .iter()
            .map(|t| {
                let m = parse_uci(&pos, t.as_bytes()).expect("legal test move");
                pos.play_unchecked(m);
                m
            })
            .collect()
    }

    #[test]
    fn starts_after_the_last_irreversible_move() {
        let start = Position::default();
        let moves = play(&start, &["e2e4", "e7e5", "g1f3", "b8c6", "f3g1", "c6b8", "g1f3"]);
        let line = Line::game(&start, &moves).unwrap();
        assert_eq!(
            line.command(CastlingMode::Standard),
            "position fen rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2 moves g1f3 b8c6 f3g1 c6b8 g1f3"
        );
        assert_eq!(line.root.halfmoves(), 5);
        assert_eq!(
            Line::position(&start).command(CastlingMode::Standard),
            "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        );
        // A last move that resets the clock leaves no moves to send.
        let moves = play(&start, &["g1f3", "e7e5"]);
        assert_eq!(
            Line::game(&start, &moves).unwrap().command(CastlingMode::Standard),
            "position fen rnbqkbnr/pppp1ppp/8/4p3/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 2"
        );
        let mut bad = moves.clone();
        bad.push(moves[0]);
        assert!(matches!(Line::game(&start, &bad), Err(AnalyzerError::IllegalLine { index: 2 })));
    }

    #[test]
    fn long_shuffles_are_cut() {
        let start = parse_fen("4k3/8/8/8/8/8/8/4K2R w - - 0 1", Variant::Standard).unwrap();
        let shuffle = ["h1h2", "e8d8", "h2h1", "d8e8"];
        let texts: Vec<&str> = shuffle.iter().copied().cycle().take(130).collect();
        let moves = play(&start, &texts);
        let line = Line::game(&start, &moves).unwrap();
        assert_eq!(line.moves.len(), MAX_PLIES);
        assert_eq!(line.start.halfmoves(), 30);
        assert_eq!(line.root.zobrist(), {
            let mut p = start;
            moves.iter().for_each(|&m| p.play_unchecked(m));
            p.zobrist()
        });
    }

    #[test]
    fn chess960_castling_is_king_takes_rook() {
        // King f1, rook h1: `f1g1` would be a king step.
        let start = parse_fen("4rkr1/4p1p1/8/8/8/8/8/5K1R w K - 0 1", Variant::Chess960).unwrap();
        let moves = play(&start, &["f1h1"]);
        assert_eq!(moves[0], Move::castle(crate::Square::F1, crate::Square::H1));
        let line = Line::game(&start, &moves).unwrap();
        assert!(line.command(CastlingMode::Chess960).ends_with(" moves f1h1"));
        // The standard form has no king step to mistake it for: king takes rook too.
        assert!(line.command(CastlingMode::Standard).ends_with(" moves f1h1"));
    }
}
