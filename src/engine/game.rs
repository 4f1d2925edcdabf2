//! A game played against the built-in engine (by `pgnkit xboard` and `pgnkit play`) is a
//! [`Game`]: its moves, every position reached (so `undo` is [`Game::pop`]) and the rules that
//! need the history. This module adds what the two commands say of it: its [`ending`] (the draws
//! a player may claim are claimed at once), a player's move read in UCI or SAN ([`parse_move`]),
//! and the game as PGN ([`pgn`]).
//!
//! ```
//! use pgnkit::chess::Game;
//! use pgnkit::engine::game::{Ending, ending, parse_move};
//! let mut game = Game::default();
//! for text in ["f3", "e7e5", "g4", "Qh4#"] {
//!     let m = parse_move(game.position(), text).unwrap();
//!     game.push(m).unwrap();
//! }
//! assert_eq!(ending(&game), Some(Ending::Checkmate { winner: pgnkit::Color::Black }));
//! assert_eq!(ending(&game).unwrap().xboard(), "0-1 {Black mates}");
//! ```

use crate::chess::{Color, Game, Move, Position, Termination};
use crate::notation::san::parse_san;
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
    pub fn result(self) -> &'static str {
        self.game_result().as_str()
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

/// Reads a move for the side to move in `pos`: UCI (`e2e4`, `e7e8q`, `N@f3`, castling as king
/// to its destination or king takes rook), `O-O`/`O-O-O` in any castling mode, or SAN (lenient).
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, MoveInputError> {
    let text = text.trim();
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

/// The end of `game`, if it is over: [`Game::outcome`] (checkmate, stalemate, insufficient
/// material, the 75-move rule, fivefold repetition), else the draws a player may claim on the
/// board, claimed at once: threefold repetition ([`Game::is_repetition`]) and the fifty-move rule.
pub fn ending(game: &Game) -> Option<Ending> {
    if let Some(outcome) = game.outcome() {
        return Some(match outcome.termination {
            Termination::Checkmate => Ending::Checkmate { winner: !game.position().turn() },
            Termination::Stalemate => Ending::Stalemate,
            Termination::InsufficientMaterial => Ending::InsufficientMaterial,
            Termination::SeventyFiveMoves => Ending::FiftyMoves,
            Termination::FivefoldRepetition => Ending::Repetition,
        });
    }
    if game.is_repetition(3) {
        return Some(Ending::Repetition);
    }
    // The clock at 100 (mate and stalemate ruled out above): the move that completes the fifty
    // ends the game; crazyhouse has no fifty-move rule (python-chess, lichess).
    let pos = game.position();
    (pos.halfmoves() >= 100 && !pos.crazyhouse()).then_some(Ending::FiftyMoves)
}

/// `game` as PGN in export format ([`Writer::game`]): the Seven Tag Roster (given values, else
/// the standard's unknown values; `Result` is the result), the other given tags (but those whose
/// names are not PGN tag names, which the writer leaves out), `Variant`, `SetUp` and `FEN` when
/// needed, the movetext, and a blank line. `result` overrides the result (the [`ending`] if the
/// game is over, else `*`).
pub fn pgn(game: &Game, tags: &[(&str, &str)], result: Option<GameResult>) -> String {
    let result = result.or_else(|| ending(game).map(Ending::game_result)).unwrap_or(GameResult::Unknown);
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
    let mut out = Vec::new();
    w.game(&mut out, game, result);
    String::from_utf8(out).expect("tags and SAN are UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Variant;
    use crate::notation::fen::parse_fen;

    fn play_all(game: &mut Game, moves: &str) {
        for t in moves.split_whitespace() {
            let m = parse_move(game.position(), t).unwrap_or_else(|e| panic!("{t}: {e}"));
            game.push(m).expect(t);
        }
    }

    #[test]
    fn endings() {
        let mut g = Game::new(Position::default());
        play_all(&mut g, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
        assert_eq!(ending(&g), None);
        play_all(&mut g, "Ng8");
        assert_eq!(ending(&g), Some(Ending::Repetition));
        assert_eq!(g.pop().map(|m| m.to()), Some(crate::Square::G8));
        assert_eq!(ending(&g), None);

        let g = Game::new(parse_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", Variant::Standard).unwrap());
        assert_eq!(ending(&g), Some(Ending::Stalemate));
        assert_eq!(ending(&g).unwrap().xboard(), "1/2-1/2 {Stalemate}");
        let g = Game::new(parse_fen("7k/8/6K1/8/8/8/8/R7 w - - 100 80", Variant::Standard).unwrap());
        assert_eq!(ending(&g), Some(Ending::FiftyMoves));
        // A claim that needs a move to complete the fifty waits for that move.
        let g = Game::new(parse_fen("7k/8/6K1/8/8/8/8/R7 w - - 99 80", Variant::Standard).unwrap());
        assert!(g.position().can_claim_fifty_moves());
        assert_eq!(ending(&g), None);
        // Crazyhouse has no fifty-move rule, nor 75 (python-chess).
        for clock in [100, 150] {
            let fen = format!("7k/8/6K1/8/8/8/8/R7[] w - - {clock} 80");
            let g = Game::new(parse_fen(&fen, Variant::Crazyhouse).unwrap());
            assert_eq!(ending(&g), None, "{fen}");
        }
    }

    #[test]
    fn move_input() {
        let pos = Position::default();
        assert!(
            parse_move(&pos, "e4").is_ok()
                && parse_move(&pos, "e2e4").is_ok()
                && parse_move(&pos, " Nf3 ").is_ok()
        );
        assert_eq!(parse_move(&pos, "e5"), Err(MoveInputError::Illegal));
        assert_eq!(parse_move(&pos, "e2e5"), Err(MoveInputError::Illegal));
        assert_eq!(parse_move(&pos, "hello"), Err(MoveInputError::Syntax));
        let pos = parse_fen("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", Variant::Standard).expect("valid");
        let castle = parse_move(&pos, "O-O").expect("castling");
        assert_eq!(parse_move(&pos, "e1g1"), Ok(castle));
        assert_eq!(parse_move(&pos, "e1h1"), Ok(castle));
    }

    #[test]
    fn pgn_export() {
        let mut g = Game::new(Position::default());
        play_all(&mut g, "e4 e5 Nf3");
        let pgn = super::pgn(&g, &[("White", "me"), ("Black", "pgnkit")], None);
        assert!(pgn.starts_with("[Event \"?\"]\n"), "{pgn}");
        assert!(
            pgn.contains("[White \"me\"]\n[Black \"pgnkit\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 *\n"),
            "{pgn}"
        );
        let mut g =
            Game::new(parse_fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 12", Variant::Standard).expect("valid"));
        play_all(&mut g, "Kd7 e4");
        let pgn = super::pgn(&g, &[], Some(GameResult::Draw));
        assert!(pgn.contains("[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 12\"]"), "{pgn}");
        assert!(pgn.ends_with("\n\n12... Kd7 13. e4 1/2-1/2\n\n"), "{pgn}");
    }

    #[test]
    fn pgn_export_wraps_movetext_under_80_columns() {
        let mut g = Game::new(Position::default());
        play_all(&mut g, &"Nf3 Nf6 Ng1 Ng8 ".repeat(10));
        let pgn = super::pgn(&g, &[], None);
        let movetext = pgn.split_once("\n\n").expect("tags, then movetext").1;
        let lines: Vec<&str> = movetext.trim_end().lines().collect();
        assert!(lines.len() > 2 && lines.iter().all(|l| l.len() < 80), "{pgn}");
        assert!(pgn.ends_with(" 1/2-1/2\n\n"), "a threefold repetition: {pgn}");
        assert_eq!(movetext.matches("Nf3").count() + movetext.matches("Ng8").count(), 20);
    }
}
