//! FEN text -> an unvalidated [`Setup`], or through [`Position::from_setup`] a [`Position`]:
//! the lenient field readers the module docs list.

use crate::chess::{
    Bitboard, Board, ByColor, CastlingMode, Color, Piece, Pocket, Position, Rank, Role, Setup, Square,
    Variant,
};

use super::{FenError, ParseFenError};
use crate::chess::PositionError;

/// Splits on ASCII whitespace (any run of it), skipping empty pieces.
fn fields(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split(|c| c.is_ascii_whitespace()).filter(|f| !f.is_empty())
}

/// Reads a FEN into an unvalidated [`Setup`]. Missing fields after the board take python-chess's
/// defaults, `w - - 0 1`.
///
/// ```
/// use pgnkit::notation::{parse_setup, STARTING_FEN};
/// use pgnkit::chess::Setup;
/// assert_eq!(parse_setup(STARTING_FEN.as_bytes()), Ok(Setup::standard()));
/// let board_only = parse_setup(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR").unwrap();
/// assert_eq!(board_only.board, Setup::standard().board);
/// assert!(board_only.castling_rights.is_empty());
/// ```
pub fn parse_setup(text: &[u8]) -> Result<Setup, ParseFenError> {
    const DEFAULTS: [&[u8]; 3] = [b"w", b"-", b"-"];
    let given = fields(text).take(4).count();
    if given == 0 {
        return Err(ParseFenError::Board);
    }
    let mut it = fields(text).chain(DEFAULTS[(given - 1).min(3)..].iter().copied());
    let setup = read_fields(&mut it)?;
    if it.next().is_some() {
        return Err(ParseFenError::TrailingGarbage);
    }
    Ok(setup)
}

/// Reads the board, turn, castling and ep fields, then up to two clock fields when present.
pub(super) fn read_fields<'a>(it: &mut impl Iterator<Item = &'a [u8]>) -> Result<Setup, ParseFenError> {
    let mut setup = Setup::empty();
    let board = it.next().ok_or(ParseFenError::Board)?;
    read_board_and_pocket(board, &mut setup)?;
    setup.turn = match it.next().ok_or(ParseFenError::Turn)? {
        b"w" | b"W" => Color::White,
        b"b" | b"B" => Color::Black,
        _ => return Err(ParseFenError::Turn),
    };
    setup.castling_rights = read_castling(&setup.board, it.next().ok_or(ParseFenError::Castling)?)?;
    setup.ep_square = match it.next().ok_or(ParseFenError::EpSquare)? {
        b"-" => None,
        sq => Some(Square::from_ascii(sq).ok_or(ParseFenError::EpSquare)?),
    };
    if let Some(h) = it.next() {
        setup.halfmoves = read_u32(h).ok_or(ParseFenError::Halfmoves)?;
        if let Some(f) = it.next() {
            setup.fullmoves = read_u32(f).ok_or(ParseFenError::Fullmoves)?;
        }
    }
    Ok(setup)
}

pub(super) fn read_u32(s: &[u8]) -> Option<u32> {
    if s.is_empty() || s.len() > 10 {
        return None;
    }
    let mut n: u32 = 0;
    for &c in s {
        if !c.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add((c - b'0') as u32)?;
    }
    Some(n)
}

fn read_board_and_pocket(field: &[u8], setup: &mut Setup) -> Result<(), ParseFenError> {
    let mut rank = 7u32;
    let mut file = 0u32;
    let mut i = 0;
    let mut last: Option<Square> = None; // the square of the piece just placed, for `~`
    while i < field.len() {
        let c = field[i];
        i += 1;
        match c {
            b'/' => {
                if file != 8 {
                    return Err(ParseFenError::Board);
                }
                if rank == 0 {
                    // A ninth rank: the crazyhouse pocket, unless it reads as a rank (a digit, a
                    // king, more ranks), which no pocket holds.
                    let rest = &field[i..];
                    if rest.iter().any(|c| c.is_ascii_digit() || matches!(c, b'/' | b'K' | b'k')) {
                        return Err(ParseFenError::Ranks);
                    }
                    setup.pockets = Some(read_pocket(rest)?);
                    return Ok(());
                }
                rank -= 1;
                file = 0;
                last = None;
            }
            b'1'..=b'8' => {
                file += (c - b'0') as u32;
                if file > 8 {
                    return Err(ParseFenError::Board);
                }
                last = None;
            }
            b'~' => {
                let sq = last.take().ok_or(ParseFenError::Board)?;
                setup.promoted.add(sq);
            }
            b'[' if rank == 0 && file == 8 => {
                if field.last() != Some(&b']') {
                    return Err(ParseFenError::Pocket);
                }
                setup.pockets = Some(read_pocket(&field[i..field.len() - 1])?);
                return Ok(());
            }
            _ => {
                let piece = Piece::from_char(c as char).ok_or(ParseFenError::Board)?;
                if file >= 8 {
                    return Err(ParseFenError::Board);
                }
                let sq = Square::new(rank * 8 + file);
                setup.board.set_piece_at(sq, piece);
                last = Some(sq);
                file += 1;
            }
        }
    }
    if rank != 0 || file != 8 {
        return Err(ParseFenError::Board);
    }
    Ok(())
}

fn read_pocket(text: &[u8]) -> Result<ByColor<Pocket>, ParseFenError> {
    let mut pockets = ByColor::<Pocket>::default();
    if text == b"-" {
        return Ok(pockets);
    }
    if text.len() > super::POCKETS_MAX {
        return Err(ParseFenError::PocketSize);
    }
    for &c in text {
        match Piece::from_char(c as char) {
            Some(p) if p.role != Role::King => pockets[p.color].add(p.role),
            _ => return Err(ParseFenError::Pocket),
        }
    }
    Ok(pockets)
}

/// The rook square `K` (king side) or `Q` stands for: the outermost rook of `color` on its back
/// rank on that side of its king (any back-rank rook when the king is elsewhere), else the corner.
pub(super) fn xfen_rook(board: &Board, color: Color, king_side: bool) -> Square {
    let back = Bitboard::relative_rank(color, Rank::First);
    let rooks = board.by_piece(Role::Rook.of(color)) & back;
    let king = (board.by_piece(Role::King.of(color)) & back).first();
    if king_side {
        let side = king.map_or(rooks, |k| rooks & Bitboard(!0u64 << k as u32));
        side.last().unwrap_or(Square::H1.relative(color))
    } else {
        let side = king.map_or(rooks, |k| rooks & Bitboard((1u64 << k as u32) - 1));
        side.first().unwrap_or(Square::A1.relative(color))
    }
}

fn read_castling(board: &Board, field: &[u8]) -> Result<Bitboard, ParseFenError> {
    let mut rights = Bitboard::EMPTY;
    if field == b"-" {
        return Ok(rights);
    }
    for &c in field {
        let color = Color::from_white(c.is_ascii_uppercase());
        let sq = match c.to_ascii_lowercase() {
            b'k' => xfen_rook(board, color, true),
            b'q' => xfen_rook(board, color, false),
            f @ b'a'..=b'h' => {
                Square::from_coords(crate::chess::File::new((f - b'a') as u32), Rank::First.relative(color))
            }
            _ => return Err(ParseFenError::Castling),
        };
        rights.add(sq);
    }
    Ok(rights)
}

/// `true` when the castling rights of `setup` cannot be written as standard chess rights: a
/// right on a square other than a corner, or with its king on the back rank off the e-file.
fn needs_chess960(setup: &Setup) -> bool {
    let rights = setup.castling_rights;
    if (rights - Bitboard::CORNERS).any() {
        return true;
    }
    Color::ALL.into_iter().any(|color| {
        let back = Bitboard::relative_rank(color, Rank::First);
        (rights & back).any()
            && (setup.board.by_piece(Role::King.of(color)) & back)
                .first()
                .is_some_and(|k| k != Square::E1.relative(color))
    })
}

/// Reads and validates a FEN as a position of `variant`.
///
/// Castling is read in Chess960 mode when `variant` is Chess960 or when the rights cannot be
/// expressed in standard chess (king off the e-file, rook off the corner); otherwise standard.
/// Validation is strict: use the [`PositionError`] inside [`FenError::Position`] to accept
/// repairable positions.
///
/// ```
/// use pgnkit::notation::parse_fen;
/// use pgnkit::chess::{Variant, CastlingMode};
/// let pos = parse_fen("4k3/8/8/8/8/8/8/1R2K1R1 w GB - 0 1", Variant::Standard).unwrap();
/// assert_eq!(pos.castling_mode(), CastlingMode::Chess960);
/// ```
pub fn parse_fen(text: &str, variant: Variant) -> Result<Position, FenError> {
    let mut setup = parse_setup(text.as_bytes())?;
    if variant == Variant::Crazyhouse && setup.pockets.is_none() {
        setup.pockets = Some(ByColor::default());
    }
    let mode = CastlingMode::from_chess960(variant == Variant::Chess960 || needs_chess960(&setup));
    Ok(Position::from_setup(setup, variant, mode)?)
}

/// A game's `FEN` tag, read as every reader of games reads it: [`parse_fen`], with what can be
/// dropped without a guess dropped ([`PositionError::ignore_droppable`]: castling rights without
/// their rook, an impossible en passant square). The position and the problems dropped, if any;
/// else the whole error.
///
/// ```
/// use pgnkit::chess::{PositionErrorKind, Variant};
/// use pgnkit::notation::fen::parse_fen_tag;
/// let (pos, dropped) = parse_fen_tag("4k3/8/8/8/8/8/8/4K3 w KQ - 0 1", Variant::Standard).unwrap();
/// assert_eq!(pos.to_string(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
/// assert!(dropped.is_some_and(|e| e.has(PositionErrorKind::InvalidCastlingRights)));
/// assert!(parse_fen_tag("8/8/8 w - - 0 1", Variant::Standard).is_err());
/// ```
pub fn parse_fen_tag(text: &str, variant: Variant) -> Result<(Position, Option<PositionError>), FenError> {
    match parse_fen(text, variant) {
        Ok(pos) => Ok((pos, None)),
        Err(FenError::Position(e)) => match e.clone().ignore_droppable() {
            Ok(pos) => Ok((pos, Some(e))),
            Err(_) => Err(FenError::Position(e)),
        },
        Err(e) => Err(e),
    }
}

/// A FEN of standard chess, as python-chess's `chess.Board(fen)`: [`parse_fen`] with
/// [`Variant::Standard`] (castling read as Chess960 where the rights need it).
///
/// ```
/// use pgnkit::chess::Position;
/// let pos: Position = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1".parse()?;
/// assert_eq!(pos.to_string(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
/// assert!("8/8/8 w - - 0 1".parse::<Position>().is_err());
/// # Ok::<(), pgnkit::notation::FenError>(())
/// ```
impl std::str::FromStr for Position {
    type Err = FenError;

    fn from_str(text: &str) -> Result<Position, FenError> {
        parse_fen(text, Variant::Standard)
    }
}

/// The variant a FEN names by itself, where no tag or option does: crazyhouse when it carries a
/// pocket (`[QRpp]` after the board, or `/QRpp` as a ninth rank), else standard chess (whose
/// reading takes Chess960 castling rights as such).
///
/// ```
/// use pgnkit::chess::Variant;
/// use pgnkit::notation::fen::implied_variant;
/// assert_eq!(implied_variant("8/8/8/8/8/8/8/K1k5[Qp] w - - 0 1"), Variant::Crazyhouse);
/// assert_eq!(implied_variant("8/8/8/8/8/8/8/K1k5/Qp w - - 0 1"), Variant::Crazyhouse);
/// assert_eq!(implied_variant("8/8/8/8/8/8/8/K1k5 w - - 0 1"), Variant::Standard);
/// ```
pub fn implied_variant(text: &str) -> Variant {
    let board = text.split_whitespace().next().unwrap_or("");
    if board.contains('[') || board.matches('/').count() == 8 {
        Variant::Crazyhouse
    } else {
        Variant::Standard
    }
}
