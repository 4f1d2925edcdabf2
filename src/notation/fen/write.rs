//! Writing FEN from a [`Position`] or a raw [`Setup`]: the placement (whole ranks at a time when
//! nothing is marked promoted), pockets, X-FEN castling, the en passant square per [`EpMode`]
//! ([`ep_square`]) and the clocks. Nothing is allocated beyond the output buffer.

use crate::chess::{
    Bitboard, Board, ByColor, CastlingMode, Color, MoveList, Pocket, Position, Rank, Role, Setup, Square,
    Variant,
};

use super::EpMode;
use super::placement::{CODE_LETTERS, code_planes, place_ranks, render_rank};
use super::read::xfen_rook;
use crate::notation::TextBuf;

#[inline]
pub(crate) fn push_square(out: &mut Vec<u8>, sq: Square) {
    out.extend_from_slice(&[b'a' + sq.file() as u8, b'1' + sq.rank() as u8]);
}

const PIECE_CHARS: [[u8; 6]; 2] = [*b"PNBRQK", *b"pnbrqk"];

/// A fixed-size stack buffer: FEN pieces are assembled here and copied to the output once, so
/// the hot path pays one capacity check instead of one per byte.
pub(super) struct StackBuf<const N: usize> {
    buf: [u8; N],
    pub(super) len: usize,
}

impl<const N: usize> StackBuf<N> {
    #[inline(always)]
    pub(super) fn new() -> Self {
        StackBuf { buf: [0; N], len: 0 }
    }

    #[inline(always)]
    pub(super) fn push(&mut self, c: u8) {
        self.buf[self.len] = c;
        self.len += 1;
    }

    #[inline(always)]
    pub(super) fn push_u32(&mut self, n: u32) {
        for &d in itoa::Buffer::new().format(n).as_bytes() {
            self.push(d);
        }
    }

    #[inline(always)]
    pub(super) fn push_square(&mut self, sq: Square) {
        self.push(b'a' + sq.file() as u8);
        self.push(b'1' + sq.rank() as u8);
    }

    #[inline(always)]
    pub(super) fn as_slice(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// Placement ranks 8 to 1, `~` after promoted pieces.
#[inline]
pub(super) fn write_board(board: &Board, promoted: Bitboard, out: &mut Vec<u8>) {
    if promoted.is_empty() {
        // No `~` marks: every rank fits 8 bytes, so each is rendered whole.
        let planes = code_planes(board);
        let start = out.len();
        out.resize(start + 72, 0);
        let len = place_ranks(&mut out[start..], |r| render_rank(planes.map(|p| (p >> (8 * r)) as u8)));
        out.truncate(start + len);
    } else {
        write_board_marked(board, promoted, out);
    }
}

/// [`write_board`] a square at a time, with a `~` after each piece on `promoted`.
///
/// Branch-light: the pieces are visited once in FEN order (the board flipped so a8 is bit 0),
/// each piece's letter comes from its code in the [`code_planes`], and digits and `~` are
/// written unconditionally with the length advanced only when they count. The buffer index is
/// masked to 255 so the compiler drops the bounds checks (at most 64 + 64 + 7 bytes are written).
pub(super) fn write_board_marked(board: &Board, promoted: Bitboard, out: &mut Vec<u8>) {
    let [occupied, plane0, plane1, plane2, plane3] = code_planes(board).map(u64::swap_bytes);
    let promoted = promoted.0.swap_bytes();
    let mut buf = [0u8; 256];
    let mut len = 0usize;
    let mut put = |c: u8, keep: bool| {
        buf[len & 255] = c;
        len += keep as usize;
    };
    let (mut rank, mut file) = (0u32, 0u32);
    let mut pieces = occupied;
    while pieces != 0 {
        let i = pieces.trailing_zeros();
        pieces &= pieces - 1;
        while i >> 3 > rank {
            put(b'0' + (8 - file) as u8, file < 8);
            put(b'/', true);
            rank += 1;
            file = 0;
        }
        let f = i & 7;
        put(b'0' + (f - file) as u8, f > file);
        let code = ((plane0 >> i) & 1)
            | ((plane1 >> i) & 1) << 1
            | ((plane2 >> i) & 1) << 2
            | ((plane3 >> i) & 1) << 3;
        put(CODE_LETTERS[code as usize], true);
        put(b'~', (promoted >> i) & 1 != 0);
        file = f + 1;
    }
    loop {
        put(b'0' + (8 - file) as u8, file < 8);
        if rank == 7 {
            break;
        }
        put(b'/', true);
        rank += 1;
        file = 0;
    }
    out.extend_from_slice(&buf[..len]);
}

fn write_pockets(pockets: &ByColor<Pocket>, out: &mut Vec<u8>) {
    out.push(b'[');
    for color in Color::ALL {
        for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn] {
            for _ in 0..pockets[color].count(role) {
                out.push(PIECE_CHARS[color.index()][role.index()]);
            }
        }
    }
    out.push(b']');
}

/// X-FEN castling: `K`/`Q` when reading them back gives the same rook, else the file letter
/// (upper case for White); h-side rights before a-side ones, White first; `-` when none. With
/// `shredder`, Shredder-FEN: the file letter always (`HAha`).
#[inline]
pub(super) fn write_castling<const N: usize>(
    board: &Board,
    rights: Bitboard,
    shredder: bool,
    out: &mut StackBuf<N>,
) {
    if rights.is_empty() {
        out.push(b'-');
        return;
    }
    let start = out.len;
    for color in Color::ALL {
        let back = Bitboard::relative_rank(color, Rank::First);
        let upper = color.is_white();
        for sq in (rights & back).rev() {
            let c = if shredder {
                b'a' + sq.file() as u8
            } else if sq == xfen_rook(board, color, true) {
                b'k'
            } else if sq == xfen_rook(board, color, false) {
                b'q'
            } else {
                b'a' + sq.file() as u8
            };
            out.push(if upper { c.to_ascii_uppercase() } else { c });
        }
    }
    if out.len == start {
        out.push(b'-');
    }
}

/// The en passant square `pos` shows under `mode`.
#[inline]
pub(crate) fn ep_square(pos: &Position, mode: EpMode) -> Option<Square> {
    let ep = pos.ep_square_always()?;
    match mode {
        EpMode::Always => Some(ep),
        EpMode::Legal => {
            // Same answer as `Position::ep_square_legal`, generating pawn moves to `ep` only.
            let capturers = crate::chess::attacks::pawn_attacks(!pos.turn(), ep)
                & pos.board().by_piece(Role::Pawn.of(pos.turn()));
            if capturers.is_empty() {
                return None;
            }
            let mut moves = MoveList::new();
            pos.legal_moves_to(Role::Pawn, ep, &mut moves);
            moves.iter().any(|m| m.is_en_passant()).then_some(ep)
        }
    }
}

/// The fields after the placement (and pocket): turn, castling, en passant, clocks when asked.
/// At most 3 + 16 + 1 + 2 + 1 + 10 + 1 + 10 bytes.
pub(super) type Tail = StackBuf<48>;

#[inline]
fn tail(
    turn: Color,
    board: &Board,
    (rights, shredder): (Bitboard, bool),
    ep: Option<Square>,
    clocks: Option<(u32, u32)>,
) -> Tail {
    let mut t = Tail::new();
    t.push(b' ');
    t.push(if turn.is_white() { b'w' } else { b'b' });
    t.push(b' ');
    write_castling(board, rights, shredder, &mut t);
    t.push(b' ');
    match ep {
        Some(sq) => t.push_square(sq),
        None => t.push(b'-'),
    }
    if let Some((halfmoves, fullmoves)) = clocks {
        t.push(b' ');
        t.push_u32(halfmoves);
        t.push(b' ');
        t.push_u32(fullmoves);
    }
    t
}

#[inline]
pub(super) fn write_position(pos: &Position, ep: EpMode, clocks: bool, shredder: bool, out: &mut Vec<u8>) {
    let crazyhouse = pos.variant() == Variant::Crazyhouse;
    write_board(pos.board(), if crazyhouse { pos.promoted() } else { Bitboard::EMPTY }, out);
    if crazyhouse {
        write_pockets(pos.pockets(), out);
    }
    let clocks = clocks.then(|| (pos.halfmoves(), pos.fullmoves()));
    let t = tail(pos.turn(), pos.board(), (pos.castling_rights(), shredder), ep_square(pos, ep), clocks);
    out.extend_from_slice(t.as_slice());
}

/// Appends the FEN of `pos` to `out`: X-FEN castling, crazyhouse pockets `[QRpp]` and `~` marks,
/// the en passant square per `ep`. Allocates nothing beyond `out`.
///
/// ```
/// use pgnkit::notation::{write_fen, EpMode, STARTING_FEN};
/// use pgnkit::chess::Position;
/// let (mut bytes, mut text) = (Vec::new(), String::new());
/// write_fen(&Position::default(), EpMode::Legal, &mut bytes);
/// write_fen(&Position::default(), EpMode::Legal, &mut text);
/// assert_eq!((bytes.as_slice(), text.as_str()), (STARTING_FEN.as_bytes(), STARTING_FEN));
/// ```
pub fn write_fen(pos: &Position, ep: EpMode, out: &mut impl TextBuf) {
    out.append_with(|out| write_position(pos, ep, true, false, out));
}

/// Appends the Shredder-FEN of `pos` to `out`: [`write_fen`] with each castling right written as
/// the file of its rook (`HAha`, upper case for White, h-side first), python-chess's
/// `board.fen(shredder=True)`. [`FenWriter::shredder`](super::FenWriter::shredder) writes it
/// for a sequence of positions (and EPD). Allocates nothing beyond `out`.
///
/// ```
/// use pgnkit::chess::{Position, Variant};
/// use pgnkit::notation::{EpMode, parse_fen, write_fen, write_shredder_fen};
/// let (mut shredder, mut xfen) = (String::new(), String::new());
/// write_shredder_fen(&Position::default(), EpMode::Legal, &mut shredder);
/// assert_eq!(shredder, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1");
/// // Chess960 (#0): X-FEN writes the outermost rooks as K and Q; Shredder-FEN names the files.
/// let pos = parse_fen("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1", Variant::Chess960)?;
/// write_fen(&pos, EpMode::Legal, &mut xfen);
/// assert_eq!(xfen, "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1");
/// shredder.clear();
/// write_shredder_fen(&pos, EpMode::Legal, &mut shredder);
/// assert_eq!(shredder, "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_shredder_fen(pos: &Position, ep: EpMode, out: &mut impl TextBuf) {
    out.append_with(|out| write_position(pos, ep, true, true, out));
}

/// A position as its FEN ([`write_fen`], en passant square [`EpMode::Legal`]: python-chess's
/// `board.fen()`); with `{:#}`, as an ASCII diagram with coordinates
/// ([`text_diagram`](crate::notation::diagram::text_diagram), python-chess's `str(board)` framed
/// and labelled).
///
/// ```
/// use pgnkit::chess::Position;
/// use pgnkit::notation::STARTING_FEN;
/// let pos = Position::default();
/// assert_eq!(pos.to_string(), STARTING_FEN);
/// assert!(format!("{pos:#}").contains("1 | R N B Q K B N R |"));
/// ```
impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if f.alternate() {
            return f.write_str(&crate::notation::diagram::text_diagram(
                self,
                crate::notation::diagram::TextStyle::Ascii,
                false,
            ));
        }
        let mut fen = String::new();
        write_fen(self, EpMode::Legal, &mut fen);
        f.pad(&fen)
    }
}

/// Appends the FEN of an unvalidated `setup`: the en passant square as given, pockets when
/// present, promoted marks as given, X-FEN castling. `mode` is accepted for symmetry with
/// reading; X-FEN as written here reads back to the same rook squares in either mode, so it does
/// not change the output.
pub fn write_setup(setup: &Setup, mode: CastlingMode, out: &mut impl TextBuf) {
    let _ = mode;
    out.append_with(|out| {
        write_board(&setup.board, setup.promoted & setup.board.occupied(), out);
        if let Some(pockets) = &setup.pockets {
            write_pockets(pockets, out);
        }
        let clocks = Some((setup.halfmoves, setup.fullmoves));
        let t = tail(setup.turn, &setup.board, (setup.castling_rights, false), setup.ep_square, clocks);
        out.extend_from_slice(t.as_slice());
    });
}
