//! [`Writer::game`]: a whole [`Game`] in export format, its moves in SAN, for a program that
//! builds games with the rules rather than reading them (the chess core alone writes it).

use super::Writer;
use crate::chess::{Game, Outcome, Position, Variant};
use crate::notation::{EpMode, write_fen, write_san};
use crate::pgn::GameResult;

impl From<Outcome> for GameResult {
    /// The result of a game that is over: a win for its winner, else a draw.
    fn from(outcome: Outcome) -> GameResult {
        match outcome.winner {
            Some(color) if color.is_white() => GameResult::WhiteWins,
            Some(_) => GameResult::BlackWins,
            None => GameResult::Draw,
        }
    }
}

impl Writer {
    /// Writes `game` whole after the tags given ([`Writer::tag`]): a `Variant` tag when it is
    /// not standard chess, `SetUp` and `FEN` (X-FEN) when it does not start from its variant's
    /// starting position with clocks `0 1`, its moves in SAN with their numbers, and `result`
    /// (python-chess's `chess.pgn.Game.from_board(board)` exported; the layout is
    /// [`Writer`]'s). Give no `Variant`, `SetUp` or `FEN` tag of your own: they would be
    /// written twice.
    ///
    /// ```
    /// use pgnkit::chess::Game;
    /// use pgnkit::notation::parse_san;
    /// use pgnkit::pgn::{GameResult, Writer};
    ///
    /// let mut game = Game::default();
    /// for san in ["f3", "e5", "g4", "Qh4"] {
    ///     game.push(parse_san(game.position(), san.as_bytes())?.0)?;
    /// }
    /// let result = game.outcome().map_or(GameResult::Unknown, GameResult::from);
    /// let (mut out, mut w) = (Vec::new(), Writer::new().fill_roster(true));
    /// w.tag("White", "Fool");
    /// w.tag("Result", result.as_str());
    /// w.game(&mut out, &game, result);
    /// assert_eq!(
    ///     String::from_utf8(out)?,
    ///     "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"Fool\"]\n\
    ///      [Black \"?\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n"
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Panics
    /// After a movetext event of the same game, as [`Writer::tag`].
    pub fn game(&mut self, out: &mut Vec<u8>, game: &Game, result: GameResult) {
        let start = game.start();
        let variant = start.variant();
        if variant != Variant::Standard {
            self.tag("Variant", variant.name());
        }
        if !start.same_position(&Position::new(variant)) || start.halfmoves() != 0 || start.fullmoves() != 1 {
            let mut fen = String::new();
            write_fen(start, EpMode::Legal, &mut fen);
            self.tag("SetUp", "1");
            self.tag("FEN", &fen);
        }
        let mut san = Vec::new();
        for (&m, pos) in game.moves().iter().zip(game.positions()) {
            san.clear();
            write_san(pos, m, &mut san);
            self.san(out, &san, pos.fullmoves(), !pos.turn().is_white());
        }
        self.end_game(out, result);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::game::tests::{oracle_games, replay};
    use crate::notation::parse_fen;

    /// The movetext of every standard and Chess960 game of the oracle fixture
    /// (`scripts/game_oracle.py`) is python-chess's export of it, byte for byte.
    #[test]
    fn a_game_s_movetext_is_python_chess_s_export() {
        let mut compared = 0;
        for oracle in oracle_games() {
            let Some(expected) = &oracle.movetext else { continue };
            let game = replay(&oracle);
            let result = game.outcome().map_or(GameResult::Unknown, GameResult::from);
            let mut out = Vec::new();
            // The roster filled: a tag section before the movetext, always.
            Writer::new().fill_roster(true).game(&mut out, &game, result);
            let text = String::from_utf8(out).expect("UTF-8");
            let (tags, movetext) = text.split_once("\n\n").expect("a tag section");
            assert_eq!(movetext, format!("{expected}\n\n"), "{}", oracle.start);
            // The FEN tag reads back to the start.
            let fen = tags.lines().find_map(|l| l.strip_prefix("[FEN \"")).map(|v| v.trim_end_matches("\"]"));
            match fen {
                Some(fen) => assert!(parse_fen(fen, oracle.variant).expect(fen).same_position(game.start())),
                None => assert!(game.start().same_position(&Position::new(oracle.variant))),
            }
            assert_eq!(tags.contains("[Variant \"Chess960\"]"), oracle.variant == Variant::Chess960);
            compared += 1;
        }
        assert!(compared >= 9, "{compared} games");
    }

    /// A crazyhouse game from a set-up position: its tags, and a pawn drop written `P@e4`.
    #[test]
    #[cfg(feature = "variants")]
    fn a_crazyhouse_game_from_a_fen() {
        let fen = "rnbqkbnr/ppp1pppp/8/8/8/8/PPPPPPPP/RNBQKBNR[P] w KQkq - 0 3";
        let mut game = Game::new(parse_fen(fen, Variant::Crazyhouse).expect(fen));
        for uci in ["P@e4", "e7e5"] {
            let m = crate::notation::parse_uci(game.position(), uci.as_bytes()).expect(uci);
            game.push(m).expect(uci);
        }
        let mut out = Vec::new();
        Writer::new().game(&mut out, &game, GameResult::Unknown);
        assert_eq!(
            String::from_utf8(out).expect("UTF-8"),
            format!("[Variant \"Crazyhouse\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n3. P@e4 e5 *\n\n")
        );
    }
}
