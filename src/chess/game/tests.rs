//! [`Game`] against python-chess: the fixture `fixtures/expected/game_history.tsv`
//! (`scripts/game_oracle.py`: seeded games that repeat positions, with what python-chess 1.11.2
//! says after each move).

use super::*;
use crate::chess::Variant;
use crate::notation::{parse_fen, parse_uci, write_uci};

/// A position of an oracle game: the move that reached it (`-` at the start) in python-chess's
/// UCI, its flags (is_repetition(2), is_repetition(3), can_claim_threefold_repetition,
/// is_fivefold_repetition, can_claim_draw), its outcome's name and its Shredder-FEN.
pub(crate) struct OraclePly {
    pub(crate) uci: String,
    pub(crate) flags: [bool; 5],
    pub(crate) outcome: String,
    pub(crate) shredder_fen: String,
}

/// A game of the fixture: its variant, start FEN (Shredder-FEN), its positions, and python-chess's
/// export of its movetext (line breaks as `|`; standard and Chess960 games).
pub(crate) struct OracleGame {
    pub(crate) variant: Variant,
    pub(crate) start: String,
    pub(crate) plies: Vec<OraclePly>,
    pub(crate) movetext: Option<String>,
}

/// The fixture's games (the crazyhouse ones only when the rules are built).
pub(crate) fn oracle_games() -> Vec<OracleGame> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/expected/game_history.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut games: Vec<OracleGame> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields[..] {
            ["game", variant, start] => games.push(OracleGame {
                variant: match variant {
                    "std" => Variant::Standard,
                    "960" => Variant::Chess960,
                    "zh" => Variant::Crazyhouse,
                    _ => panic!("{line}"),
                },
                start: start.to_owned(),
                plies: Vec::new(),
                movetext: None,
            }),
            ["pgn", movetext] => {
                games.last_mut().expect("a game").movetext = Some(movetext.replace('|', "\n"))
            }
            [uci, flags, outcome, fen] => games.last_mut().expect("a game").plies.push(OraclePly {
                uci: uci.to_owned(),
                flags: std::array::from_fn(|i| flags.as_bytes()[i] == b'1'),
                outcome: outcome.to_owned(),
                shredder_fen: fen.to_owned(),
            }),
            _ => panic!("{line}"),
        }
    }
    games.retain(|g| cfg!(feature = "variants") || g.variant != Variant::Crazyhouse);
    games
}

/// The game of `oracle`, played move by move from its start.
pub(crate) fn replay(oracle: &OracleGame) -> Game {
    let mut game = Game::new(parse_fen(&oracle.start, oracle.variant).expect(&oracle.start));
    for ply in &oracle.plies[1..] {
        let m = parse_uci(game.position(), ply.uci.as_bytes()).expect(&ply.uci);
        game.push(m).expect(&ply.uci);
    }
    game
}

fn flags(game: &Game) -> [bool; 5] {
    [
        game.is_repetition(2),
        game.is_repetition(3),
        game.can_claim_threefold_repetition(),
        game.is_fivefold_repetition(),
        game.can_claim_draw(),
    ]
}

/// python-chess's name of an outcome's termination.
fn outcome_name(outcome: Option<Outcome>) -> &'static str {
    match outcome.map(|o| o.termination) {
        None => "-",
        Some(Termination::Checkmate) => "CHECKMATE",
        Some(Termination::Stalemate) => "STALEMATE",
        Some(Termination::InsufficientMaterial) => "INSUFFICIENT_MATERIAL",
        Some(Termination::SeventyFiveMoves) => "SEVENTYFIVE_MOVES",
        Some(Termination::FivefoldRepetition) => "FIVEFOLD_REPETITION",
    }
}

/// Repetitions, the draw claims and the outcome after every move equal python-chess's, as the
/// moves are pushed and again as they are popped back to the start.
#[test]
fn the_history_rules_equal_python_chess() {
    let (mut claims_by_a_move, mut fivefolds, mut fifty) = (0, 0, 0);
    for oracle in oracle_games() {
        let mut game = Game::new(parse_fen(&oracle.start, oracle.variant).expect(&oracle.start));
        for (i, ply) in oracle.plies.iter().enumerate() {
            if i > 0 {
                let m = parse_uci(game.position(), ply.uci.as_bytes()).expect(&ply.uci);
                game.push(m).expect(&ply.uci);
            }
            let context = format!("{} after {i} plies ({})", oracle.start, ply.uci);
            assert_eq!(flags(&game), ply.flags, "{context}");
            assert_eq!(outcome_name(game.outcome()), ply.outcome, "{context}");
            claims_by_a_move += usize::from(ply.flags[2] && !ply.flags[1]);
            fivefolds += usize::from(ply.flags[3]);
            fifty += usize::from(game.can_claim_fifty_moves());
        }
        assert_eq!(
            (game.moves().len(), game.positions().len()),
            (oracle.plies.len() - 1, oracle.plies.len())
        );
        let before: Vec<u64> = game.positions()[..game.moves().len()].iter().map(Position::zobrist).collect();
        assert_eq!(game.earlier_keys(), before, "{}", oracle.start);
        for (i, ply) in oracle.plies.iter().enumerate().rev() {
            assert_eq!(flags(&game), ply.flags, "{} popped back to {i} plies", oracle.start);
            let popped = game.pop();
            if i > 0 {
                let m = popped.expect("a move to pop");
                let mut uci = String::new();
                write_uci(m, game.position().castling_mode(), &mut uci);
                assert_eq!(uci, ply.uci);
                if oracle.variant != Variant::Chess960 {
                    // python-chess's `str(move)` on a standard (or crazyhouse) board.
                    assert_eq!(m.to_string(), ply.uci);
                }
            } else {
                assert_eq!(popped, None);
            }
        }
        assert_eq!(game.positions().len(), 1);
    }
    assert!(claims_by_a_move > 20 && fivefolds > 0 && fifty > 10, "{claims_by_a_move} {fivefolds} {fifty}");
}

/// An illegal move changes nothing: no move, no position, no key added.
#[test]
fn an_illegal_push_changes_nothing() {
    use crate::chess::Square;
    let mut game = Game::default();
    game.push(Move::normal(Square::G1, Square::F3)).expect("legal");
    assert_eq!(game.push(Move::normal(Square::E2, Square::E5)), Err(IllegalMove));
    assert_eq!(game.push(Move::normal(Square::F3, Square::G1)), Err(IllegalMove), "Black's turn");
    assert_eq!(
        (game.moves(), game.positions().len(), game.keys.len()),
        (&[Move::normal(Square::G1, Square::F3)][..], 2, 2)
    );
    assert_eq!(game.position().turn(), crate::chess::Color::Black);
}
