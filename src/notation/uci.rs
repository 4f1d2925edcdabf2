//! UCI move text (`e2e4`, `e7e8q`, `N@f3`) and the conversion of castling between the standard
//! form (king to its destination, `e1g1`) and the Chess960 form (king takes its own rook, `e1h1`).
//! The standard form exists only for a king on the e-file and a rook in its corner, as in
//! standard chess; any other castle is written king takes rook in both forms, as python-chess's
//! `board.uci(move, chess960=False)` writes it (`g1g1` would read as no move at all).
//!
//! Lenient input accepted by [`parse_uci`]: castling in either form whatever the position's
//! castling mode; an upper-case promotion letter (`e7e8Q`); a lower-case drop letter (`n@f3`).
//! A king step that is a legal ordinary move stays an ordinary move (Chess960 `f1g1` with the
//! king on f1), so the standard form is only read as castling when it cannot be a plain move.
//! The null move `0000` is not a move: [`UciError::Illegal`].

use std::fmt;

use crate::chess::{
    CastlingMode, CastlingSide, File, Move, MoveKind, MoveList, Position, Rank, Role, Square,
};

use super::TextBuf;
use super::fen::push_square;

/// Why UCI text does not give a legal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UciError {
    /// Not UCI move text.
    Syntax,
    /// Well-formed, but not a legal move here (the null move `0000` included).
    Illegal,
}

impl fmt::Display for UciError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            UciError::Syntax => "invalid UCI move",
            UciError::Illegal => "illegal UCI move",
        })
    }
}

impl std::error::Error for UciError {}

#[inline]
fn square(t: &[u8]) -> Result<Square, UciError> {
    match (File::from_char(t[0]), Rank::from_char(t[1])) {
        (Some(f), Some(r)) => Ok(Square::from_coords(f, r)),
        _ => Err(UciError::Syntax),
    }
}

#[inline]
fn legal(pos: &Position, role: Role, m: Move) -> Result<Move, UciError> {
    let mut moves = MoveList::new();
    pos.legal_moves_to(role, m.to(), &mut moves);
    if moves.contains(&m) { Ok(m) } else { Err(UciError::Illegal) }
}

/// Reads a UCI move and checks that it is legal in `pos`; castling comes back as
/// `Move::castle(king, rook)` from either form.
///
/// ```
/// use pgnkit::notation::parse_uci;
/// use pgnkit::chess::{Move, Position, Square};
/// let pos = Position::default();
/// assert_eq!(parse_uci(&pos, b"g1f3"), Ok(Move::normal(Square::G1, Square::F3)));
/// ```
pub fn parse_uci(pos: &Position, text: &[u8]) -> Result<Move, UciError> {
    match text.len() {
        4 if text[1] == b'@' => {
            let role = match Role::from_char(text[0] as char) {
                Some(Role::King) | None => return Err(UciError::Syntax),
                Some(r) => r,
            };
            legal(pos, role, Move::drop(role, square(&text[2..])?))
        }
        4 | 5 => {
            if text == b"0000" {
                return Err(UciError::Illegal);
            }
            let from = square(&text[..2])?;
            let to = square(&text[2..4])?;
            let promotion = match text.get(4) {
                None => None,
                Some(&c) => match Role::from_char(c as char) {
                    Some(r @ (Role::Knight | Role::Bishop | Role::Rook | Role::Queen)) => Some(r),
                    _ => return Err(UciError::Syntax),
                },
            };
            move_between(pos, from, to, promotion)
        }
        _ => Err(UciError::Syntax),
    }
}

/// The legal move of our piece on `from` to `to` (with `promotion` for a pawn), read as UCI reads
/// it: castling from the king's move in either form (onto its own rook, or to its g/c-file
/// square when that is no plain king move), en passant from a pawn's diagonal step.
pub(crate) fn move_between(
    pos: &Position,
    from: Square,
    to: Square,
    promotion: Option<Role>,
) -> Result<Move, UciError> {
    let us = pos.turn();
    let board = pos.board();
    if board.color_at(from) != Some(us) {
        return Err(UciError::Illegal);
    }
    let role = board.role_at(from).ok_or(UciError::Illegal)?;
    match (role, promotion) {
        (Role::Pawn, Some(r)) => legal(pos, role, Move::promotion(from, to, r)),
        (Role::Pawn, None) if pos.ep_square_always() == Some(to) && from.file() != to.file() => {
            legal(pos, role, Move::en_passant(from, to))
        }
        (Role::King, None) => {
            // King takes its own rook: the Chess960 form.
            if pos.castling_rights().contains(to) && board.color_at(to) == Some(us) {
                return legal(pos, role, Move::castle(from, to));
            }
            if let Ok(m) = legal(pos, role, Move::normal(from, to)) {
                return Ok(m);
            }
            // King to its destination: the standard form.
            let side = match (to.rank() == Rank::First.relative(us), to.file()) {
                (true, File::G) => CastlingSide::KingSide,
                (true, File::C) => CastlingSide::QueenSide,
                _ => return Err(UciError::Illegal),
            };
            let rook = pos.castling_rook(us, side).ok_or(UciError::Illegal)?;
            legal(pos, role, Move::castle(from, rook))
        }
        (_, Some(_)) => Err(UciError::Illegal),
        (_, None) => legal(pos, role, Move::normal(from, to)),
    }
}

/// Appends the UCI text of `m`: castling as king takes rook in `Chess960` mode, and in
/// `Standard` mode as king to its g/c-file destination when the king stands on the e-file and
/// the rook in its corner (king takes rook otherwise, as python-chess writes it); drops as
/// `N@f3` (`P@e4` for pawns); promotions `e7e8q`.
///
/// ```
/// use pgnkit::notation::write_uci;
/// use pgnkit::chess::{CastlingMode, Move, Square};
/// let castle = Move::castle(Square::E1, Square::H1);
/// let (mut standard, mut chess960) = (String::new(), String::new());
/// write_uci(castle, CastlingMode::Standard, &mut standard);
/// write_uci(castle, CastlingMode::Chess960, &mut chess960);
/// assert_eq!((standard.as_str(), chess960.as_str()), ("e1g1", "e1h1"));
/// // Chess960, king on g1 and rook on h1: the king does not move.
/// standard.clear();
/// write_uci(Move::castle(Square::G1, Square::H1), CastlingMode::Standard, &mut standard);
/// assert_eq!(standard, "g1h1");
/// ```
pub fn write_uci(m: Move, mode: CastlingMode, out: &mut impl TextBuf) {
    out.append_with(|out| match m.kind() {
        MoveKind::Drop(role) => {
            out.push(role.upper_char() as u8);
            out.push(b'@');
            push_square(out, m.to());
        }
        MoveKind::Castle
            if !mode.is_chess960()
                && m.from_raw().file() == File::E
                && matches!(m.to().file(), File::A | File::H) =>
        {
            let king = m.from_raw();
            let file = if m.to() > king { File::G } else { File::C };
            push_square(out, king);
            push_square(out, Square::from_coords(file, king.rank()));
        }
        kind => {
            push_square(out, m.from_raw());
            push_square(out, m.to());
            if let MoveKind::Promotion(r) = kind {
                out.push(r.char() as u8);
            }
        }
    });
}

/// A move as UCI text, written by [`write_uci`] in standard chess's form: `e2e4`, `e7e8q`,
/// `N@f3`, castling `e1g1` (python-chess's `str(move)` on a standard board). A move does not
/// know its game: a castle of a Chess960 game whose king stands on the e-file and rook in its
/// corner also prints `e1g1`, which [`parse_uci`] reads back in either mode, but a UCI engine
/// told `UCI_Chess960` expects `e1h1`: write such a game's moves with
/// `write_uci(m, pos.castling_mode(), out)`. Any other castle prints king takes rook.
///
/// ```
/// use pgnkit::chess::{Move, Role, Square};
/// assert_eq!(Move::normal(Square::G1, Square::F3).to_string(), "g1f3");
/// assert_eq!(Move::castle(Square::E1, Square::H1).to_string(), "e1g1");
/// assert_eq!(Move::castle(Square::B8, Square::A8).to_string(), "b8a8");
/// assert_eq!(Move::promotion(Square::E7, Square::E8, Role::Knight).to_string(), "e7e8n");
/// assert_eq!(format!("{:>6}", Move::drop(Role::Pawn, Square::E4)), "  P@e4");
/// ```
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = String::new();
        write_uci(*self, CastlingMode::Standard, &mut text);
        f.pad(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Variant;
    use crate::notation::fen::parse_fen;

    fn pos(fen: &str, v: Variant) -> Position {
        parse_fen(fen, v).unwrap()
    }

    fn uci(m: Move, mode: CastlingMode) -> String {
        let mut text = String::new();
        write_uci(m, mode, &mut text);
        text
    }

    #[test]
    fn normal_moves() {
        let p = Position::default();
        assert_eq!(parse_uci(&p, b"e2e4"), Ok(Move::normal(Square::E2, Square::E4)));
        assert_eq!(parse_uci(&p, b"e2e5"), Err(UciError::Illegal));
        assert_eq!(parse_uci(&p, b"e7e5"), Err(UciError::Illegal));
        assert_eq!(parse_uci(&p, b"e3e4"), Err(UciError::Illegal));
        assert_eq!(parse_uci(&p, b"e2e4q"), Err(UciError::Illegal));
        assert_eq!(parse_uci(&p, b"0000"), Err(UciError::Illegal));
        for bad in [
            &b""[..],
            b"e2",
            b"e2e",
            b"e2e4qq",
            b"e2e9",
            b"i2e4",
            b"e2e4k",
            b"e2e4x",
            b"K@e4",
            b"X@e4",
            b"N@e9",
        ] {
            assert_eq!(parse_uci(&p, bad), Err(UciError::Syntax), "{:?}", std::str::from_utf8(bad));
        }
        assert_eq!(uci(Move::normal(Square::G1, Square::F3), CastlingMode::Standard), "g1f3");
    }

    #[test]
    fn promotions_and_en_passant() {
        let p = pos("3qk3/4P3/8/8/8/8/8/4K3 w - - 0 1", Variant::Standard);
        let m = Move::promotion(Square::E7, Square::D8, Role::Knight);
        assert_eq!(parse_uci(&p, b"e7d8n"), Ok(m));
        assert_eq!(parse_uci(&p, b"e7d8N"), Ok(m));
        assert_eq!(parse_uci(&p, b"e7d8"), Err(UciError::Illegal));
        assert_eq!(uci(m, CastlingMode::Standard), "e7d8n");
        let p = pos("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", Variant::Standard);
        assert_eq!(parse_uci(&p, b"e5f6"), Ok(Move::en_passant(Square::E5, Square::F6)));
        assert_eq!(parse_uci(&p, b"e5d6"), Err(UciError::Illegal));
        assert_eq!(uci(Move::en_passant(Square::E5, Square::F6), CastlingMode::Standard), "e5f6");
    }

    #[test]
    fn castling_both_forms() {
        for v in [Variant::Standard, Variant::Chess960] {
            let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", v);
            assert_eq!(parse_uci(&p, b"e1g1"), Ok(Move::castle(Square::E1, Square::H1)));
            assert_eq!(parse_uci(&p, b"e1h1"), Ok(Move::castle(Square::E1, Square::H1)));
            assert_eq!(parse_uci(&p, b"e1c1"), Ok(Move::castle(Square::E1, Square::A1)));
            assert_eq!(parse_uci(&p, b"e1a1"), Ok(Move::castle(Square::E1, Square::A1)));
            assert_eq!(parse_uci(&p, b"e1f1"), Ok(Move::normal(Square::E1, Square::F1)));
            assert_eq!(parse_uci(&p, b"e1b1"), Err(UciError::Illegal));
        }
        let m = Move::castle(Square::E8, Square::A8);
        assert_eq!(uci(m, CastlingMode::Standard), "e8c8");
        assert_eq!(uci(m, CastlingMode::Chess960), "e8a8");
        // No right: not castling.
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1", Variant::Standard);
        assert_eq!(parse_uci(&p, b"e1g1"), Err(UciError::Illegal));
        assert_eq!(parse_uci(&p, b"e1h1"), Err(UciError::Illegal));
        // Chess960, king f1 and rook h1: `f1g1` is a king step, `f1h1` castles.
        let p = pos("5k2/8/8/8/8/8/8/5K1R w K - 0 1", Variant::Chess960);
        assert_eq!(parse_uci(&p, b"f1g1"), Ok(Move::normal(Square::F1, Square::G1)));
        assert_eq!(parse_uci(&p, b"f1h1"), Ok(Move::castle(Square::F1, Square::H1)));
        // King already on g1: `g1g1` (the king's destination) and `g1h1` both castle.
        let p = pos("6k1/8/8/8/8/8/8/6KR w K - 0 1", Variant::Chess960);
        let m = Move::castle(Square::G1, Square::H1);
        assert_eq!(parse_uci(&p, b"g1g1"), Ok(m));
        assert_eq!(parse_uci(&p, b"g1h1"), Ok(m));
        assert_eq!(uci(m, CastlingMode::Chess960), "g1h1");
    }

    /// The standard form of a castle standard chess does not have is king takes rook, as
    /// python-chess writes it: never a king that goes nowhere (`g1g1`).
    #[test]
    fn the_standard_form_of_a_chess960_castle() {
        let standard = |fen, m| {
            let p = pos(fen, Variant::Chess960);
            let text = uci(m, CastlingMode::Standard);
            assert_eq!(parse_uci(&p, text.as_bytes()), Ok(m), "{fen}: {text}");
            text
        };
        let (g1, h1, e1, f1, d1, a1) =
            (Square::G1, Square::H1, Square::E1, Square::F1, Square::D1, Square::A1);
        assert_eq!(standard("6k1/8/8/8/8/8/8/6KR w K - 0 1", Move::castle(g1, h1)), "g1h1");
        assert_eq!(standard("4k3/8/8/8/8/8/8/4KR2 w F - 0 1", Move::castle(e1, f1)), "e1f1");
        assert_eq!(standard("4k3/8/8/8/8/8/8/R2K4 w A - 0 1", Move::castle(d1, a1)), "d1a1");
        assert_eq!(standard("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", Move::castle(e1, h1)), "e1g1");
        assert_eq!(standard("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", Move::castle(e1, a1)), "e1c1");
        let m = Move::castle(Square::E8, Square::G8);
        assert_eq!(standard("4k1r1/8/8/8/8/8/8/4K3 b g - 0 1", m), "e8g8");
    }

    /// Both forms of every castle equal python-chess's `board.uci(move, chess960=...)`: each of
    /// the 960 start positions with the knights, bishops and queen taken off, either side to move.
    #[test]
    fn castling_is_written_as_python_chess_writes_it() {
        use crate::chess::{Board, Color, Setup};
        let mut cases = Vec::new();
        for n in 0..960 {
            let mut setup = Setup::chess960(n).expect("0..960");
            let mut board = Board::empty();
            for sq in setup.board.occupied() {
                let piece = setup.board.piece_at(sq).expect("occupied");
                if matches!(piece.role, Role::Pawn | Role::Rook | Role::King) {
                    board.set_piece_at(sq, piece);
                }
            }
            setup.board = board;
            for turn in [Color::White, Color::Black] {
                setup.turn = turn;
                let p = Position::from_setup(setup.clone(), Variant::Chess960, CastlingMode::Chess960)
                    .expect("legal");
                for m in p.legal_moves().iter().filter(|m| m.is_castle()) {
                    let mut fen = String::new();
                    crate::notation::fen::write_fen(&p, crate::notation::EpMode::Legal, &mut fen);
                    cases.push((fen, *m));
                }
            }
        }
        let script = "import sys, chess\n\
            for line in sys.stdin.read().splitlines():\n\
            \x20   fen, move = line.split('\\t')\n\
            \x20   board = chess.Board(fen, chess960=True)\n\
            \x20   m = board.parse_uci(move)\n\
            \x20   print(board.uci(m, chess960=False), board.uci(m, chess960=True))\n";
        let input: Vec<String> =
            cases.iter().map(|(fen, m)| format!("{fen}\t{}", uci(*m, CastlingMode::Chess960))).collect();
        let Some(theirs) = crate::python_chess(script, &input.join("\n")) else { return };
        let theirs: Vec<&str> = theirs.lines().collect();
        assert_eq!(theirs.len(), cases.len());
        let mut converted = 0;
        for ((fen, m), theirs) in cases.iter().zip(theirs) {
            let ours = format!("{} {}", uci(*m, CastlingMode::Standard), uci(*m, CastlingMode::Chess960));
            assert_eq!(ours, theirs, "{fen} {m:?}");
            converted += usize::from(ours.split(' ').next() != ours.split(' ').nth(1));
        }
        assert!(
            cases.len() > 3000 && converted > 100,
            "{} castles, {converted} in the king's form",
            cases.len()
        );
    }

    #[test]
    #[cfg(feature = "variants")]
    fn drops() {
        let p = pos("2k5/8/8/8/8/8/8/4K3[Qn] w - - 0 1", Variant::Crazyhouse);
        assert_eq!(parse_uci(&p, b"Q@d4"), Ok(Move::drop(Role::Queen, Square::D4)));
        assert_eq!(parse_uci(&p, b"q@d4"), Ok(Move::drop(Role::Queen, Square::D4)));
        assert_eq!(parse_uci(&p, b"N@d4"), Err(UciError::Illegal));
        assert_eq!(parse_uci(&p, b"Q@e1"), Err(UciError::Illegal));
        assert_eq!(uci(Move::drop(Role::Pawn, Square::E4), CastlingMode::Standard), "P@e4");
        assert_eq!(uci(Move::drop(Role::Knight, Square::F3), CastlingMode::Chess960), "N@f3");
        assert!(UciError::Syntax.to_string().contains("invalid"));
    }
}
