//! A game being played against the built-in engine (by `pgnkit xboard` and `pgnkit play`): the
//! start position, the moves, every position reached (so `undo` is a pop), the end of the game
//! including the draws that need the history (threefold repetition, fifty moves), reading a
//! player's move in UCI or SAN, and the game as PGN.
//!
//! Invariant: `positions[0]` is the start and `positions[i + 1]` is `positions[i]` after
//! `moves[i]`; every move is legal where it was played.
//!
//! ```
//! use pgnkit::engine::game::{Ending, GameRecord};
//! use pgnkit::Position;
//! let mut game = GameRecord::new(Position::default());
//! for text in ["f3", "e7e5", "g4", "Qh4#"] {
//!     let m = game.parse_move(text).unwrap();
//!     game.play(m);
//! }
//! assert_eq!(game.ending(), Some(Ending::Checkmate { winner: pgnkit::Color::Black }));
//! assert_eq!(game.ending().unwrap().xboard(), "0-1 {Black mates}");
//! ```

use std::fmt::Write as _;

use crate::chess::outcome::{repetition_window, repetitions};
use crate::chess::{Color, Move, Position, Variant};
use crate::notation::fen::{EpMode, write_fen};
use crate::notation::san::{parse_san, write_san};
use crate::notation::uci::parse_uci;
use crate::pgn::{GameResult, Writer};

/// Why a game is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The side to move is checkmated.
    Checkmate {
        /// The side that gave mate.
        winner: Color,
    },
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can mate.
    InsufficientMaterial,
    /// The same position with the same side to move for the third time.
    Repetition,
    /// Fifty moves by each side without a capture or pawn move.
    FiftyMoves,
}

impl Ending {
    /// The PGN result token.
    pub const fn result(self) -> &'static str {
        match self {
            Ending::Checkmate { winner: Color::White } => "1-0",
            Ending::Checkmate { winner: Color::Black } => "0-1",
            _ => "1/2-1/2",
        }
    }

    /// The result as a [`GameResult`].
    pub const fn game_result(self) -> GameResult {
        match self {
            Ending::Checkmate { winner: Color::White } => GameResult::WhiteWins,
            Ending::Checkmate { winner: Color::Black } => GameResult::BlackWins,
            _ => GameResult::Draw,
        }
    }

    /// Why, in words (as in an xboard result comment).
    pub const fn reason(self) -> &'static str {
        match self {
            Ending::Checkmate { winner: Color::White } => "White mates",
            Ending::Checkmate { winner: Color::Black } => "Black mates",
            Ending::Stalemate => "Stalemate",
            Ending::InsufficientMaterial => "Insufficient material",
            Ending::Repetition => "Draw by repetition",
            Ending::FiftyMoves => "Draw by fifty-move rule",
        }
    }

    /// The xboard result line: `1-0 {White mates}`.
    pub fn xboard(self) -> String {
        format!("{} {{{}}}", self.result(), self.reason())
    }
}

/// Why a player's move text was not accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveInputError {
    /// Neither UCI nor SAN.
    Syntax,
    /// Well-formed but not legal here.
    Illegal,
    /// SAN that fits more than one legal move.
    Ambiguous,
}

impl std::fmt::Display for MoveInputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            MoveInputError::Syntax => "not a move (write it in SAN like Nf3 or UCI like g1f3)",
            MoveInputError::Illegal => "illegal move in this position",
            MoveInputError::Ambiguous => "ambiguous move: say which piece moves (Nbd2, R1e1)",
        })
    }
}

impl std::error::Error for MoveInputError {}

/// A game from a start position: see the module docs.
#[derive(Clone, Debug)]
pub struct GameRecord {
    positions: Vec<Position>,
    moves: Vec<Move>,
}

impl GameRecord {
    /// A game with no moves yet.
    pub fn new(start: Position) -> GameRecord {
        GameRecord { positions: vec![start], moves: Vec::new() }
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// The current position.
    pub fn pos(&self) -> &Position {
        self.positions.last().expect("never empty")
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The rule set.
    pub fn variant(&self) -> Variant {
        self.start().variant()
    }

    /// Plays a legal move.
    pub fn play(&mut self, m: Move) {
        let mut next = *self.pos();
        next.play_unchecked(m);
        self.positions.push(next);
        self.moves.push(m);
    }

    /// Moves played.
    pub fn plies(&self) -> usize {
        self.moves.len()
    }

    /// Takes back the last move, if any.
    pub fn undo(&mut self) -> Option<Move> {
        let m = self.moves.pop()?;
        self.positions.pop();
        Some(m)
    }

    /// The last move played and the position before it.
    pub fn last_move(&self) -> Option<(&Position, Move)> {
        let m = *self.moves.last()?;
        Some((&self.positions[self.positions.len() - 2], m))
    }

    /// Zobrist keys of the positions before the current one, oldest first (the search's history).
    pub fn history(&self) -> Vec<u64> {
        self.positions[..self.positions.len() - 1].iter().map(Position::zobrist).collect()
    }

    /// Reads a move for the side to move: UCI (`e2e4`, `e7e8q`, `N@f3`, castling as king to its
    /// destination or king takes rook), `O-O`/`O-O-O` in any castling mode, or SAN (lenient).
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveInputError> {
        let text = text.trim();
        let pos = self.pos();
        if let Ok(m) = parse_uci(pos, text.as_bytes()) {
            return Ok(m);
        }
        match parse_san(pos, text.as_bytes()) {
            Ok((m, _)) => Ok(m),
            Err(crate::notation::SanError::Ambiguous) => Err(MoveInputError::Ambiguous),
            Err(crate::notation::SanError::Syntax) => {
                // Coordinates that are well-formed UCI are illegal rather than nonsense.
                let b = text.as_bytes();
                let coords = (b.len() == 4 || b.len() == 5)
                    && b[0].is_ascii_lowercase()
                    && b[1].is_ascii_digit()
                    && b[2].is_ascii_lowercase()
                    && b[3].is_ascii_digit();
                Err(if coords { MoveInputError::Illegal } else { MoveInputError::Syntax })
            }
            Err(_) => Err(MoveInputError::Illegal),
        }
    }

    /// The end of the game, if it is over: checkmate, stalemate, insufficient material, threefold
    /// repetition or the fifty-move rule (both draws are claimed at once).
    pub fn ending(&self) -> Option<Ending> {
        let pos = self.pos();
        if let Some(outcome) = pos.outcome() {
            use crate::chess::Termination;
            return Some(match outcome.termination {
                Termination::Checkmate => Ending::Checkmate { winner: !pos.turn() },
                Termination::Stalemate => Ending::Stalemate,
                Termination::InsufficientMaterial => Ending::InsufficientMaterial,
                Termination::SeventyFiveMoves => Ending::FiftyMoves,
                Termination::FivefoldRepetition => Ending::Repetition,
            });
        }
        let keys: Vec<u64> = self.positions.iter().map(Position::zobrist).collect();
        if repetitions(&keys, repetition_window(pos)) >= 3 {
            return Some(Ending::Repetition);
        }
        // Claimed once the clock is at 100 (`outcome` ruled out mate and stalemate), so the
        // game ends on the move that completes the fifty.
        if pos.halfmoves() >= 100 {
            return Some(Ending::FiftyMoves);
        }
        None
    }

    /// The moves in SAN with move numbers (`1. e4 e5 2. Nf3`), from the start position.
    pub fn movetext(&self) -> String {
        let mut s = String::new();
        for (i, (&m, pos)) in self.moves.iter().zip(&self.positions).enumerate() {
            if pos.turn().is_white() {
                let _ = write!(s, "{}. ", pos.fullmoves());
            } else if i == 0 {
                let _ = write!(s, "{}... ", pos.fullmoves());
            }
            write_san(pos, m, &mut s);
            s.push(' ');
        }
        s.pop();
        s
    }

    /// The game as PGN in export format ([`crate::pgn::Writer`]): the Seven Tag Roster (given
    /// values, else the standard's unknown values; `Result` is the result), the other given
    /// tags (but those whose names are not PGN tag names, which the writer leaves out),
    /// `Variant`, `SetUp` and `FEN` when needed, the movetext, and a blank line. `result`
    /// overrides the result (the ending if the game is over, else `*`).
    pub fn pgn(&self, tags: &[(&str, &str)], result: Option<GameResult>) -> String {
        let result = result.or_else(|| self.ending().map(Ending::game_result)).unwrap_or(GameResult::Unknown);
        let roster = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];
        let mut w = Writer::new().fill_roster(true);
        for name in &roster[..6] {
            if let Some((_, value)) = tags.iter().find(|(n, _)| n == name) {
                w.tag(name, value);
            }
        }
        w.tag("Result", result.as_str());
        for (name, value) in tags.iter().filter(|(n, _)| !roster.contains(n)) {
            w.tag(name, value);
        }
        if self.variant() != Variant::Standard {
            w.tag("Variant", self.variant().name());
        }
        let start = self.start();
        if !start.same_position(&Position::new(self.variant()))
            || start.halfmoves() != 0
            || start.fullmoves() != 1
        {
            w.tag("SetUp", "1");
            let mut fen = String::new();
            write_fen(start, EpMode::Legal, &mut fen);
            w.tag("FEN", &fen);
        }
        let (mut out, mut san) = (Vec::new(), Vec::new());
        for (&m, pos) in self.moves.iter().zip(&self.positions) {
            san.clear();
            write_san(pos, m, &mut san);
            w.san(&mut out, &san, pos.fullmoves(), !pos.turn().is_white());
        }
        w.end_game(&mut out, result);
        String::from_utf8(out).expect("tags and SAN are UTF-8")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;

    fn play_all(game: &mut GameRecord, moves: &str) {
        for t in moves.split_whitespace() {
            let m = game.parse_move(t).unwrap_or_else(|e| panic!("{t}: {e}"));
            game.play(m);
        }
    }

    #[test]
    fn endings() {
        let mut g = GameRecord::new(Position::default());
        play_all(&mut g, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
        assert_eq!(g.ending(), None);
        play_all(&mut g, "Ng8");
        assert_eq!(g.ending(), Some(Ending::Repetition));
        assert_eq!(g.undo().map(|m| m.to()), Some(crate::Square::G8));
        assert_eq!(g.ending(), None);

        let g = GameRecord::new(parse_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", Variant::Standard).unwrap());
        assert_eq!(g.ending(), Some(Ending::Stalemate));
        assert_eq!(g.ending().unwrap().xboard(), "1/2-1/2 {Stalemate}");
        let g = GameRecord::new(parse_fen("7k/8/6K1/8/8/8/8/R7 w - - 100 80", Variant::Standard).unwrap());
        assert_eq!(g.ending(), Some(Ending::FiftyMoves));
        // A claim that needs a move to complete the fifty waits for that move.
        let g = GameRecord::new(parse_fen("7k/8/6K1/8/8/8/8/R7 w - - 99 80", Variant::Standard).unwrap());
        assert!(g.pos().can_claim_fifty_moves());
        assert_eq!(g.ending(), None);
    }

    #[test]
    fn move_input() {
        let g = GameRecord::new(Position::default());
        assert!(g.parse_move("e4").is_ok() && g.parse_move("e2e4").is_ok() && g.parse_move(" Nf3 ").is_ok());
        assert_eq!(g.parse_move("e5"), Err(MoveInputError::Illegal));
        assert_eq!(g.parse_move("e2e5"), Err(MoveInputError::Illegal));
        assert_eq!(g.parse_move("hello"), Err(MoveInputError::Syntax));
        let g =
            GameRecord::new(parse_fen("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", Variant::Standard).expect("valid"));
        let castle = g.parse_move("O-O").expect("castling");
        assert_eq!(g.parse_move("e1g1"), Ok(castle));
        assert_eq!(g.parse_move("e1h1"), Ok(castle));
    }

    #[test]
    fn pgn_export() {
        let mut g = GameRecord::new(Position::default());
        play_all(&mut g, "e4 e5 Nf3");
        let pgn = g.pgn(&[("White", "me"), ("Black", "pgnkit")], None);
        assert!(pgn.starts_with("[Event \"?\"]\n"), "{pgn}");
        assert!(
            pgn.contains("[White \"me\"]\n[Black \"pgnkit\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 *\n"),
            "{pgn}"
        );
        let mut g =
            GameRecord::new(parse_fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 12", Variant::Standard).expect("valid"));
        play_all(&mut g, "Kd7 e4");
        let pgn = g.pgn(&[], Some(GameResult::Draw));
        assert!(pgn.contains("[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 12\"]"), "{pgn}");
        assert!(pgn.ends_with("\n\n12... Kd7 13. e4 1/2-1/2\n\n"), "{pgn}");
    }

    #[test]
    fn pgn_export_wraps_movetext_under_80_columns() {
        let mut g = GameRecord::new(Position::default());
        play_all(&mut g, &"Nf3 Nf6 Ng1 Ng8 ".repeat(10));
        let pgn = g.pgn(&[], None);
        let movetext = pgn.split_once("\n\n").expect("tags, then movetext").1;
        let lines: Vec<&str> = movetext.trim_end().lines().collect();
        assert!(lines.len() > 2 && lines.iter().all(|l| l.len() < 80), "{pgn}");
        assert!(pgn.ends_with(" 1/2-1/2\n\n"), "a threefold repetition: {pgn}");
        assert_eq!(movetext.matches("Nf3").count() + movetext.matches("Ng8").count(), 20);
    }
}
