//! FEN and EPD: reading into a [`Setup`], writing from a [`Position`] or a raw [`Setup`].
//!
//! Owned here: the placement, pocket, turn, castling, en passant and clock fields; castling
//! rights as rook squares (X-FEN and Shredder-FEN in, X-FEN out); the en passant policy
//! ([`EpMode`]); EPD operations (PGN standard 16.2). Validation of the position itself belongs
//! to [`Position::from_setup`]; [`position_from_fen`] combines both.
//!
//! Lenient input accepted by [`read_fen`]:
//! - any amount of ASCII whitespace around and between fields;
//! - 4 to 6 fields (EPD's four; missing clocks default to `0 1`);
//! - a crazyhouse pocket as `[QRpp]` right after the board, or as a ninth rank `/QRpp` (may be
//!   empty, `[]`, `[-]` and a bare trailing `/` all mean an empty pocket); `~` after a piece
//!   marks it promoted;
//! - castling as `-`, `KQkq`, X-FEN file letters mixed with `KQkq` (`Kkq`, `Bkq`), Shredder-FEN
//!   (`HAha`), in any order, with repeats ignored. `K` means the outermost rook of that color on
//!   the h-side of its king on the back rank, `Q` the outermost on the a-side, a file letter the
//!   rook square on that file of the back rank (upper case for White). Rights without a rook are
//!   kept as squares; `Position::from_setup` reports them.
//!
//! Not accepted by [`read_fen`]: a trailing `;` or EPD operations (use [`read_epd`]).
//!
//! Writing never allocates beyond the output buffer ([`write_fen_into`] is on the positions
//! job's hot path).

use std::fmt;

use crate::chess::{
    Bitboard, Board, ByColor, CastlingMode, Color, MoveList, Piece, Pocket, Position, PositionError, Rank,
    Role, Setup, Square, Variant,
};

/// The FEN of the standard starting position.
pub const STARTING_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Which en passant square to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EpMode {
    /// Only when a legal en passant capture exists (python-chess's default; best for
    /// deduplicating positions).
    #[default]
    Legal,
    /// After every double step, as the PGN standard says.
    Always,
}

/// The FEN field that could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseFenError {
    /// Piece placement (ranks, files, letters, `~`).
    Board,
    /// Crazyhouse pocket.
    Pocket,
    /// Side to move.
    Turn,
    /// Castling rights.
    Castling,
    /// En passant square.
    EpSquare,
    /// Halfmove clock.
    Halfmoves,
    /// Fullmove number.
    Fullmoves,
    /// Something after the last field (or a malformed EPD operation).
    TrailingGarbage,
}

impl fmt::Display for ParseFenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParseFenError::Board => "invalid board part in FEN",
            ParseFenError::Pocket => "invalid pocket in FEN",
            ParseFenError::Turn => "invalid side to move in FEN",
            ParseFenError::Castling => "invalid castling part in FEN",
            ParseFenError::EpSquare => "invalid en passant square in FEN",
            ParseFenError::Halfmoves => "invalid halfmove clock in FEN",
            ParseFenError::Fullmoves => "invalid fullmove number in FEN",
            ParseFenError::TrailingGarbage => "unexpected text after FEN",
        })
    }
}

impl std::error::Error for ParseFenError {}

/// A FEN that could not be read, or that does not describe a valid position.
#[derive(Debug)]
pub enum FenError {
    /// The text is not FEN.
    Parse(ParseFenError),
    /// The FEN describes an invalid position (see [`PositionError`] for the repair options).
    Position(PositionError),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Parse(e) => e.fmt(f),
            FenError::Position(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for FenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FenError::Parse(e) => Some(e),
            FenError::Position(e) => Some(e),
        }
    }
}

impl From<ParseFenError> for FenError {
    fn from(e: ParseFenError) -> FenError {
        FenError::Parse(e)
    }
}

impl From<PositionError> for FenError {
    fn from(e: PositionError) -> FenError {
        FenError::Position(e)
    }
}

// --- Reading ---------------------------------------------------------------------------------

/// Splits on ASCII whitespace (any run of it), skipping empty pieces.
fn fields(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split(|c| c.is_ascii_whitespace()).filter(|f| !f.is_empty())
}

/// Reads a FEN (4 to 6 fields) into an unvalidated [`Setup`].
///
/// ```
/// use pgnkit::notation::{read_fen, STARTING_FEN};
/// use pgnkit::chess::Setup;
/// assert_eq!(read_fen(STARTING_FEN.as_bytes()), Ok(Setup::standard()));
/// ```
pub fn read_fen(text: &[u8]) -> Result<Setup, ParseFenError> {
    let mut it = fields(text);
    let setup = read_fields(&mut it)?;
    if it.next().is_some() {
        return Err(ParseFenError::TrailingGarbage);
    }
    Ok(setup)
}

/// Reads the board, turn, castling and ep fields, then up to two clock fields when present.
fn read_fields<'a>(it: &mut impl Iterator<Item = &'a [u8]>) -> Result<Setup, ParseFenError> {
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

fn read_u32(s: &[u8]) -> Option<u32> {
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
                    // A ninth rank: the crazyhouse pocket.
                    setup.pockets = Some(read_pocket(&field[i..])?);
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
fn xfen_rook(board: &Board, color: Color, king_side: bool) -> Square {
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
/// use pgnkit::notation::position_from_fen;
/// use pgnkit::chess::{Variant, CastlingMode};
/// let pos = position_from_fen("4k3/8/8/8/8/8/8/1R2K1R1 w GB - 0 1", Variant::Standard).unwrap();
/// assert_eq!(pos.castling_mode(), CastlingMode::Chess960);
/// ```
pub fn position_from_fen(text: &str, variant: Variant) -> Result<Position, FenError> {
    let mut setup = read_fen(text.as_bytes())?;
    if variant == Variant::Crazyhouse && setup.pockets.is_none() {
        setup.pockets = Some(ByColor::default());
    }
    let mode = CastlingMode::from_chess960(variant == Variant::Chess960 || needs_chess960(&setup));
    Ok(Position::from_setup(setup, variant, mode)?)
}

// --- EPD ---------------------------------------------------------------------------------------

/// An EPD record: the position's four fields (clocks from `hmvc`/`fmvn` when present) and its
/// operations in order, each an opcode with its operands (quotes removed from strings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Epd {
    /// The position, unvalidated.
    pub setup: Setup,
    /// `(opcode, operands)` in the order given.
    pub ops: Vec<(String, Vec<String>)>,
}

impl Epd {
    /// The operands of the first operation named `opcode`.
    pub fn op(&self, opcode: &str) -> Option<&[String]> {
        self.ops.iter().find(|(o, _)| o == opcode).map(|(_, v)| v.as_slice())
    }
}

/// Reads an EPD line: four FEN fields, then operations `opcode operand ... ;` (PGN standard 16.2).
///
/// Operands are bare tokens or double-quoted strings (which may hold `;` and spaces). Lenient:
/// the final `;` may be missing, and two numeric clock fields right after the four fields (as in
/// perft suites) are read as the clocks. `hmvc` and `fmvn` set the clocks too.
///
/// ```
/// use pgnkit::notation::read_epd;
/// let epd = read_epd(r#"8/8/8/8/8/8/8/K1k5 w - - bm Kb2; id "mate; or not";"#).unwrap();
/// assert_eq!(epd.op("id").unwrap(), ["mate; or not"]);
/// ```
pub fn read_epd(line: &str) -> Result<Epd, ParseFenError> {
    let bytes = line.as_bytes();
    // The first four fields, then whatever follows.
    let mut pos = 0;
    let next_field = |pos: &mut usize| next_token(bytes, pos);
    let mut four = [&b""[..]; 4];
    for f in four.iter_mut() {
        *f = next_field(&mut pos).unwrap_or(b"");
    }
    let mut setup = read_fields(&mut four.into_iter().filter(|f| !f.is_empty()))?;
    // Optional numeric clocks (opcodes start with a letter, so a number cannot be one).
    for clock in 0..2 {
        let save = pos;
        match next_field(&mut pos) {
            Some(f) if f.iter().all(u8::is_ascii_digit) => {
                let n = read_u32(f).ok_or(if clock == 0 {
                    ParseFenError::Halfmoves
                } else {
                    ParseFenError::Fullmoves
                })?;
                if clock == 0 { setup.halfmoves = n } else { setup.fullmoves = n }
            }
            _ => {
                pos = save;
                break;
            }
        }
    }
    let ops = read_ops(&line[pos..])?;
    for (opcode, operands) in &ops {
        let n = || operands.first().and_then(|o| read_u32(o.as_bytes()));
        match opcode.as_str() {
            "hmvc" => setup.halfmoves = n().ok_or(ParseFenError::Halfmoves)?,
            "fmvn" => setup.fullmoves = n().ok_or(ParseFenError::Fullmoves)?,
            _ => {}
        }
    }
    Ok(Epd { setup, ops })
}

/// The next run of non-whitespace bytes from `*pos`, advancing past it.
fn next_token<'a>(bytes: &'a [u8], pos: &mut usize) -> Option<&'a [u8]> {
    while *pos < bytes.len() && bytes[*pos].is_ascii_whitespace() {
        *pos += 1;
    }
    let start = *pos;
    while *pos < bytes.len() && !bytes[*pos].is_ascii_whitespace() {
        *pos += 1;
    }
    (*pos > start).then(|| &bytes[start..*pos])
}

fn read_ops(text: &str) -> Result<Vec<(String, Vec<String>)>, ParseFenError> {
    let b = text.as_bytes();
    let mut ops = Vec::new();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    loop {
        skip_ws(&mut i);
        if i == b.len() {
            return Ok(ops);
        }
        let start = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        let opcode = &text[start..i];
        if opcode.is_empty() || opcode.len() > 15 || !b[start].is_ascii_alphabetic() {
            return Err(ParseFenError::TrailingGarbage);
        }
        let mut operands = Vec::new();
        loop {
            skip_ws(&mut i);
            match b.get(i) {
                None => break,
                Some(b';') => {
                    i += 1;
                    break;
                }
                Some(b'"') => {
                    let end =
                        b[i + 1..].iter().position(|&c| c == b'"').ok_or(ParseFenError::TrailingGarbage)?;
                    operands.push(text[i + 1..i + 1 + end].to_owned());
                    i += end + 2;
                }
                Some(_) => {
                    let start = i;
                    while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b';' {
                        i += 1;
                    }
                    operands.push(text[start..i].to_owned());
                }
            }
        }
        ops.push((opcode.to_owned(), operands));
    }
}

// --- Writing -----------------------------------------------------------------------------------

#[inline]
pub(crate) fn push_square(out: &mut Vec<u8>, sq: Square) {
    out.extend_from_slice(&[b'a' + sq.file() as u8, b'1' + sq.rank() as u8]);
}

const PIECE_CHARS: [[u8; 6]; 2] = [*b"PNBRQK", *b"pnbrqk"];

/// A fixed-size stack buffer: FEN pieces are assembled here and copied to the output once, so
/// the hot path pays one capacity check instead of one per byte.
struct StackBuf<const N: usize> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> StackBuf<N> {
    #[inline(always)]
    fn new() -> Self {
        StackBuf { buf: [0; N], len: 0 }
    }

    #[inline(always)]
    fn push(&mut self, c: u8) {
        self.buf[self.len] = c;
        self.len += 1;
    }

    #[inline(always)]
    fn push_u32(&mut self, n: u32) {
        for &d in itoa::Buffer::new().format(n).as_bytes() {
            self.push(d);
        }
    }

    #[inline(always)]
    fn push_square(&mut self, sq: Square) {
        self.push(b'a' + sq.file() as u8);
        self.push(b'1' + sq.rank() as u8);
    }

    #[inline(always)]
    fn as_slice(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// Placement ranks 8 to 1, `~` after promoted pieces.
#[inline]
fn write_board(board: &Board, promoted: Bitboard, out: &mut Vec<u8>) {
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
fn write_board_marked(board: &Board, promoted: Bitboard, out: &mut Vec<u8>) {
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
/// (upper case for White); h-side rights before a-side ones, White first; `-` when none.
#[inline]
fn write_castling<const N: usize>(board: &Board, rights: Bitboard, out: &mut StackBuf<N>) {
    if rights.is_empty() {
        out.push(b'-');
        return;
    }
    let start = out.len;
    for color in Color::ALL {
        let back = Bitboard::relative_rank(color, Rank::First);
        let upper = color.is_white();
        for sq in (rights & back).rev() {
            let c = if sq == xfen_rook(board, color, true) {
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
type Tail = StackBuf<48>;

#[inline]
fn tail(
    turn: Color,
    board: &Board,
    rights: Bitboard,
    ep: Option<Square>,
    clocks: Option<(u32, u32)>,
) -> Tail {
    let mut t = Tail::new();
    t.push(b' ');
    t.push(if turn.is_white() { b'w' } else { b'b' });
    t.push(b' ');
    write_castling(board, rights, &mut t);
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
fn write_position(pos: &Position, ep: EpMode, clocks: bool, out: &mut Vec<u8>) {
    let crazyhouse = pos.variant() == Variant::Crazyhouse;
    write_board(pos.board(), if crazyhouse { pos.promoted() } else { Bitboard::EMPTY }, out);
    if crazyhouse {
        write_pockets(pos.pockets(), out);
    }
    let clocks = clocks.then(|| (pos.halfmoves(), pos.fullmoves()));
    let t = tail(pos.turn(), pos.board(), pos.castling_rights(), ep_square(pos, ep), clocks);
    out.extend_from_slice(t.as_slice());
}

/// Writes the four EPD fields of `pos` (no clocks, no operations).
pub fn write_epd_into(pos: &Position, ep: EpMode, out: &mut Vec<u8>) {
    write_position(pos, ep, false, out);
}

/// Appends the FEN of `pos` to `out`: X-FEN castling, crazyhouse pockets `[QRpp]` and `~` marks,
/// the en passant square per `ep`. Allocates nothing beyond `out`.
///
/// ```
/// use pgnkit::notation::{write_fen_into, EpMode, STARTING_FEN};
/// use pgnkit::chess::Position;
/// let mut out = Vec::new();
/// write_fen_into(&Position::default(), EpMode::Legal, &mut out);
/// assert_eq!(out, STARTING_FEN.as_bytes());
/// ```
pub fn write_fen_into(pos: &Position, ep: EpMode, out: &mut Vec<u8>) {
    write_position(pos, ep, true, out);
}

/// The FEN of `pos` (see [`write_fen_into`]).
pub fn write_fen(pos: &Position, ep: EpMode) -> String {
    let mut out = Vec::with_capacity(96);
    write_fen_into(pos, ep, &mut out);
    String::from_utf8(out).expect("FEN is ASCII")
}

/// Appends the FEN of an unvalidated `setup`: the en passant square as given, pockets when
/// present, promoted marks as given, X-FEN castling. `mode` is accepted for symmetry with
/// reading; X-FEN as written here reads back to the same rook squares in either mode, so it does
/// not change the output.
pub fn write_setup_into(setup: &Setup, mode: CastlingMode, out: &mut Vec<u8>) {
    let _ = mode;
    write_board(&setup.board, setup.promoted & setup.board.occupied(), out);
    if let Some(pockets) = &setup.pockets {
        write_pockets(pockets, out);
    }
    let clocks = Some((setup.halfmoves, setup.fullmoves));
    let t = tail(setup.turn, &setup.board, setup.castling_rights, setup.ep_square, clocks);
    out.extend_from_slice(t.as_slice());
}

/// Writes the FENs (or EPDs) of a sequence of positions, such as the positions of a game,
/// reusing the text of every rank whose pieces did not change since the previous call: the same
/// bytes as [`write_fen_into`] / [`write_epd_into`], several times faster when consecutive
/// positions differ by a move (one or two ranks). Crazyhouse positions take the plain path.
///
/// ```
/// use pgnkit::notation::{FenWriter, write_fen_into, EpMode};
/// use pgnkit::chess::Position;
/// let (mut a, mut b) = (Vec::new(), Vec::new());
/// FenWriter::new().write_fen_into(&Position::default(), EpMode::Legal, &mut a);
/// write_fen_into(&Position::default(), EpMode::Legal, &mut b);
/// assert_eq!(a, b);
/// ```
#[derive(Clone, Debug)]
pub struct FenWriter {
    /// The occupancy and the four piece-code planes the rank texts were rendered from (a rank
    /// is rendered again when one of its bytes changed), and whether none was rendered yet.
    planes: [u64; 5],
    fresh: bool,
    /// Per rank: its FEN text (up to 8 bytes, little-endian) and length.
    text: [u64; 8],
    len: [u8; 8],
    /// Castling field for (rights, rooks and kings of each color on the back ranks).
    castling_key: [u64; 5],
    castling: [u8; 16],
    castling_len: usize,
}

impl Default for FenWriter {
    fn default() -> FenWriter {
        FenWriter {
            planes: [0; 5],
            fresh: true,
            text: [0; 8],
            len: [0; 8],
            castling_key: [0; 5],
            castling: [b'-'; 16],
            castling_len: 1,
        }
    }
}

/// How the FEN text of a rank is laid out for one occupancy byte: the digits in place (zero
/// bytes where piece letters go), the file whose letter goes to each output byte as byte-shuffle
/// indices (0x80, a zero byte, where none goes), and the length.
#[derive(Clone, Copy)]
struct RankLayout {
    digits: u64,
    shuffle: u64,
    len: u8,
}

const RANK_LAYOUTS: [RankLayout; 256] = {
    let mut t = [RankLayout { digits: 0, shuffle: 0, len: 0 }; 256];
    let mut occ = 0;
    while occ < 256 {
        // Every output byte starts as "none"; a piece's byte gets its file.
        let (mut digits, mut shuffle, mut len, mut empty, mut f) =
            (0u64, 0x8080_8080_8080_8080u64, 0, 0u64, 0);
        while f < 8 {
            if occ >> f & 1 == 0 {
                empty += 1;
            } else {
                if empty > 0 {
                    digits |= (b'0' as u64 + empty) << (8 * len);
                    len += 1;
                    empty = 0;
                }
                shuffle = shuffle & !(0xff << (8 * len)) | (f as u64) << (8 * len);
                len += 1;
            }
            f += 1;
        }
        if empty > 0 {
            digits |= (b'0' as u64 + empty) << (8 * len);
            len += 1;
        }
        t[occ] = RankLayout { digits, shuffle, len: len as u8 };
        occ += 1;
    }
    t
};

/// Bit `i` of a byte moved to bit `8 * i`: one byte lane per file.
const SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            t[b] |= ((b as u64 >> i) & 1) << (8 * i);
            i += 1;
        }
        b += 1;
    }
    t
};

/// A piece's letter by its code: role index + 1 in bits 0-2 (pawn 1 .. king 6), bit 3 for Black.
const CODE_LETTERS: [u8; 16] = *b"?PNBRQK??pnbrqk?";

/// The occupancy and the four piece-code planes of `board`: a square's code (see
/// [`CODE_LETTERS`]) has bit `i` set where plane `i + 1` has it.
#[inline(always)]
fn code_planes(board: &Board) -> [u64; 5] {
    [
        board.occupied().0,
        (board.pawns() | board.bishops() | board.queens()).0,
        (board.knights() | board.bishops() | board.kings()).0,
        (board.rooks() | board.queens() | board.kings()).0,
        board.by_color(Color::Black).0,
    ]
}

/// Writes the texts of ranks 8 to 1, `rank(r)` for rank index `r`, with `/` between them at the
/// start of `buf` (at least 72 bytes); returns the length. Each rank is one 8-byte store: at
/// most 7 ranks of 8 bytes and their `/` precede one, so it starts at 63 at most.
#[inline(always)]
fn place_ranks(buf: &mut [u8], mut rank: impl FnMut(usize) -> (u64, u8)) -> usize {
    let mut at = 0;
    for r in (0..8).rev() {
        let (text, len) = rank(r);
        let p = at & 63;
        buf[p..p + 8].copy_from_slice(&text.to_le_bytes());
        buf[p + len as usize] = b'/';
        at = p + len as usize + 1;
    }
    at - 1
}

/// The FEN text of one rank (up to 8 bytes, little-endian) and its length, from the rank's
/// byte of each of the [`code_planes`].
#[inline(always)]
fn render_rank(planes: [u8; 5]) -> (u64, u8) {
    // Byte `f`: the piece code on file `f`.
    let codes = SPREAD[planes[1] as usize]
        | SPREAD[planes[2] as usize] << 1
        | SPREAD[planes[3] as usize] << 2
        | SPREAD[planes[4] as usize] << 3;
    let layout = &RANK_LAYOUTS[planes[0] as usize];
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        use std::arch::x86_64::*;
        // SAFETY: AVX2 (hence SSSE3) is enabled for this build (the cfg above); the only load
        // reads the 16 bytes of `CODE_LETTERS`, with no alignment requirement.
        #[allow(unsafe_code)]
        let text = unsafe {
            // Letters by code, then placed by the layout (0x80 indices give the digits' zeros).
            let letters = _mm_shuffle_epi8(
                _mm_loadu_si128(CODE_LETTERS.as_ptr().cast()),
                _mm_cvtsi64_si128(codes as i64),
            );
            _mm_cvtsi128_si64(_mm_shuffle_epi8(letters, _mm_cvtsi64_si128(layout.shuffle as i64))) as u64
        };
        (text | layout.digits, layout.len)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        // As the shuffles do it: byte `i` takes the letter of file `shuffle[i]`, or 0 for 0x80.
        let mut text = layout.digits;
        for (i, src) in layout.shuffle.to_le_bytes().into_iter().enumerate() {
            if src < 8 {
                text |= u64::from(CODE_LETTERS[(codes >> (8 * src) & 15) as usize]) << (8 * i);
            }
        }
        (text, layout.len)
    }
}

/// Writes `n` at `buf[at..]` (room for 10 digits); returns the new position.
#[inline(always)]
fn put_u32(buf: &mut [u8], at: usize, n: u32) -> usize {
    if n < 10 {
        buf[at] = b'0' + n as u8;
        at + 1
    } else if n < 100 {
        buf[at] = b'0' + (n / 10) as u8;
        buf[at + 1] = b'0' + (n % 10) as u8;
        at + 2
    } else {
        let mut t = StackBuf::<10>::new();
        t.push_u32(n);
        buf[at..at + t.len].copy_from_slice(t.as_slice());
        at + t.len
    }
}

impl FenWriter {
    /// A writer with nothing cached.
    pub fn new() -> FenWriter {
        FenWriter::default()
    }

    /// Appends the FEN of `pos` to `out`, exactly as [`write_fen_into`].
    #[inline]
    pub fn write_fen_into(&mut self, pos: &Position, ep: EpMode, out: &mut Vec<u8>) {
        self.write(pos, ep, true, out);
    }

    /// Appends the four EPD fields of `pos` to `out`, exactly as [`write_epd_into`].
    #[inline]
    pub fn write_epd_into(&mut self, pos: &Position, ep: EpMode, out: &mut Vec<u8>) {
        self.write(pos, ep, false, out);
    }

    /// Writes into a zeroed 128-byte window of `out` with fixed-size stores, then trims it: no
    /// variable-length copies, no per-byte capacity checks. A standard FEN is at most 107 bytes
    /// (71 + " w " + 4 castling + " " + 2 + " " + 10 + " " + 10).
    #[inline]
    fn write(&mut self, pos: &Position, ep: EpMode, clocks: bool, out: &mut Vec<u8>) {
        let board = pos.board();
        let rights = pos.castling_rights();
        if rights.any() {
            // Everything `write_castling` looks at: rooks and kings of each color on the back ranks.
            let (white, black) = (board.by_color(Color::White), board.by_color(Color::Black));
            let (rooks, kings) = (board.rooks() & Bitboard::BACKRANKS, board.kings() & Bitboard::BACKRANKS);
            let key = [rights.0, (rooks & white).0, (rooks & black).0, (kings & white).0, (kings & black).0];
            if key != self.castling_key {
                let mut t = StackBuf::<16>::new();
                write_castling(board, rights, &mut t);
                self.castling_key = key;
                self.castling[..t.len].copy_from_slice(t.as_slice());
                self.castling_len = t.len;
            }
        }
        if pos.variant() == Variant::Crazyhouse || (rights.any() && self.castling_len > 8) {
            return write_position(pos, ep, clocks, out);
        }
        let start = out.len();
        out.resize(start + 128, 0);
        let buf = &mut out[start..];
        let mut at = self.write_board(board, buf);
        buf[at..at + 3].copy_from_slice(if pos.turn().is_white() { b" w " } else { b" b " });
        at += 3;
        if rights.any() {
            buf[at..at + 8].copy_from_slice(&self.castling[..8]);
            at += self.castling_len;
        } else {
            buf[at] = b'-';
            at += 1;
        }
        buf[at] = b' ';
        at += 1;
        match ep_square(pos, ep) {
            Some(sq) => {
                buf[at] = b'a' + sq.file() as u8;
                buf[at + 1] = b'1' + sq.rank() as u8;
                at += 2;
            }
            None => {
                buf[at] = b'-';
                at += 1;
            }
        }
        if clocks {
            buf[at] = b' ';
            at = put_u32(buf, at + 1, pos.halfmoves());
            buf[at] = b' ';
            at = put_u32(buf, at + 1, pos.fullmoves());
        }
        out.truncate(start + at);
    }

    /// Writes the placement at the start of `buf` (at least 80 bytes); returns its length.
    #[inline]
    fn write_board(&mut self, board: &Board, buf: &mut [u8]) -> usize {
        let planes = code_planes(board);
        // One move changes one to three ranks: the others keep their text.
        let changed = if std::mem::take(&mut self.fresh) {
            u64::MAX
        } else {
            planes.iter().zip(&self.planes).fold(0, |d, (now, then)| d | (now ^ then))
        };
        self.planes = planes;
        place_ranks(buf, |r| {
            let shift = 8 * r;
            if (changed >> shift) & 0xff != 0 {
                (self.text[r], self.len[r]) = render_rank(planes.map(|p| (p >> shift) as u8));
            }
            (self.text[r], self.len[r])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whole ranks rendered at once give the placement written a square at a time.
    #[test]
    fn ranks_rendered_whole_match_the_square_loop() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut pos = Position::default();
        for i in 0..20_000 {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            write_board(pos.board(), Bitboard::EMPTY, &mut a);
            write_board_marked(pos.board(), Bitboard::EMPTY, &mut b);
            assert_eq!(String::from_utf8_lossy(&a), String::from_utf8_lossy(&b));
            let moves = pos.legal_moves();
            if moves.is_empty() || i % 150 == 0 {
                pos = Position::default();
                continue;
            }
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            pos.play_unchecked(moves[(rng % moves.len() as u64) as usize]);
        }
        // Every occupancy of one rank, with every piece code on it.
        for occ in 0..=255u64 {
            let mut board = Board::empty();
            for f in 0..8 {
                if occ >> f & 1 != 0 {
                    let role = Role::ALL[(f as usize + occ as usize) % 6];
                    let color = Color::from_white((occ >> 3) & 1 == f & 1);
                    board.set_piece_at(Square::new(56 + f as u32), Piece { color, role });
                }
            }
            let (mut a, mut b) = (Vec::new(), Vec::new());
            write_board(&board, Bitboard::EMPTY, &mut a);
            write_board_marked(&board, Bitboard::EMPTY, &mut b);
            assert_eq!(a, b, "occupancy {occ:#x}");
        }
    }

    /// The caching writer gives the bytes of the plain one over many games' positions.
    #[test]
    fn fen_writer_matches_write_fen_into() {
        let mut w = FenWriter::new();
        // Same rook squares, another color on h8: the castling letter changes (g, then k).
        for (fen, castling) in
            [("r3k1rr/8/8/8/8/8/8/4K3 b g - 0 1", " g "), ("r3k1rR/8/8/8/8/8/8/4K3 b g - 0 1", " k ")]
        {
            let pos = position_from_fen(fen, Variant::Chess960).expect("valid");
            let (mut a, mut b) = (Vec::new(), Vec::new());
            w.write_fen_into(&pos, EpMode::Legal, &mut a);
            write_fen_into(&pos, EpMode::Legal, &mut b);
            assert_eq!(String::from_utf8_lossy(&a), String::from_utf8_lossy(&b));
            assert!(String::from_utf8_lossy(&b).contains(castling), "{}", String::from_utf8_lossy(&b));
        }
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        for game in 0..300 {
            let mut pos = if game % 3 == 0 {
                let n = (game * 7) % 960;
                let setup = Setup::chess960(n as u32).expect("chess960 setup");
                Position::from_setup(setup, Variant::Chess960, CastlingMode::Chess960).expect("valid")
            } else {
                Position::default()
            };
            for _ in 0..200 {
                for (ep, epd) in [(EpMode::Legal, false), (EpMode::Always, true)] {
                    let (mut a, mut b) = (b"x".to_vec(), b"x".to_vec());
                    if epd {
                        w.write_epd_into(&pos, ep, &mut a);
                        write_epd_into(&pos, ep, &mut b);
                    } else {
                        w.write_fen_into(&pos, ep, &mut a);
                        write_fen_into(&pos, ep, &mut b);
                    }
                    assert_eq!(a, b);
                }
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                pos.play_unchecked(moves[(rng % moves.len() as u64) as usize]);
            }
        }
    }
    use crate::chess::PositionErrorKind;

    fn setup(fen: &str) -> Setup {
        read_fen(fen.as_bytes()).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    fn pos(fen: &str, variant: Variant) -> Position {
        position_from_fen(fen, variant).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    fn setup_fen(s: &Setup) -> String {
        let mut out = Vec::new();
        write_setup_into(s, CastlingMode::Standard, &mut out);
        String::from_utf8(out).unwrap()
    }

    /// write -> read -> write gives the same text, and the same position.
    fn round_trip(fen: &str, variant: Variant, expected: &str) {
        let p = pos(fen, variant);
        let written = write_fen(&p, EpMode::Always);
        assert_eq!(written, expected, "from {fen}");
        let again = pos(&written, variant);
        assert_eq!(write_fen(&again, EpMode::Always), written);
        assert!(again.same_position(&p));
        assert_eq!(again.zobrist(), p.zobrist());
        assert_eq!(again.castling_mode(), p.castling_mode(), "{fen}");
    }

    #[test]
    fn start_position() {
        assert_eq!(setup(STARTING_FEN), Setup::standard());
        assert_eq!(write_fen(&Position::default(), EpMode::Legal), STARTING_FEN);
        assert_eq!(setup_fen(&Setup::standard()), STARTING_FEN);
    }

    #[test]
    fn lenient_fields() {
        let epd4 = setup("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
        assert_eq!(epd4, Setup::standard());
        assert_eq!(
            setup("  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR \t w   KQkq  -  0 1 \n"),
            Setup::standard()
        );
        let five = setup("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 7");
        assert_eq!((five.turn, five.halfmoves, five.fullmoves), (Color::Black, 7, 1));
        // Castling letters in any order, repeats ignored.
        assert_eq!(setup("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w qkQKK - 0 1"), Setup::standard());
    }

    #[test]
    fn errors_name_the_field() {
        use ParseFenError::*;
        let cases: &[(&str, ParseFenError)] = &[
            ("", Board),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", Board),
            ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Board),
            ("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Board),
            ("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Board),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", Board),
            ("~rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Board),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Kq] w KQkq - 0 1", Pocket),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Q w KQkq - 0 1", Pocket),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/Qx w KQkq - 0 1", Pocket),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", Turn),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", Turn),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w", Castling),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQxq - 0 1", Castling),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w K-q - 0 1", Castling),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", EpSquare),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", EpSquare),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", Halfmoves),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", Halfmoves),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 99999999999 1", Halfmoves),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1.", Fullmoves),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 x", TrailingGarbage),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1;", Fullmoves),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4;", Halfmoves),
        ];
        for &(fen, err) in cases {
            assert_eq!(read_fen(fen.as_bytes()), Err(err), "{fen:?}");
        }
        assert!(Halfmoves.to_string().contains("halfmove"));
        let e = position_from_fen("8/8/8/8/8/8/8/8 w - - 0 1", Variant::Standard).unwrap_err();
        assert!(matches!(e, FenError::Position(ref p) if p.has(PositionErrorKind::Empty)), "{e}");
        let e = position_from_fen("nonsense", Variant::Standard).unwrap_err();
        assert!(matches!(e, FenError::Parse(Board)));
        assert!(std::error::Error::source(&e).is_some());
    }

    #[test]
    fn castling_rights_as_rooks() {
        // X-FEN: K is the outermost h-side rook, a file letter names an inner rook.
        let s = setup("rk2r3/8/8/8/8/8/8/1R2K1RR w GBkq - 0 1");
        assert_eq!(
            s.castling_rights,
            Bitboard::from_square(Square::G1) | Square::B1 | Square::E8 | Square::A8
        );
        // Shredder-FEN in, X-FEN out.
        let p = pos("rk2r3/8/8/8/8/8/8/R3K1RR w GAea - 0 1", Variant::Chess960);
        assert_eq!(write_fen(&p, EpMode::Legal), "rk2r3/8/8/8/8/8/8/R3K1RR w GQkq - 0 1");
        // Rights without a rook are kept (as the corner) and rejected by validation.
        let s = setup("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1");
        assert_eq!(s.castling_rights, Bitboard::CORNERS);
        let e = position_from_fen("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1", Variant::Standard).unwrap_err();
        let FenError::Position(e) = e else { panic!() };
        assert!(e.has(PositionErrorKind::InvalidCastlingRights));
        assert_eq!(
            write_fen(&e.ignore_invalid_castling_rights().unwrap(), EpMode::Legal),
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
        );
    }

    #[test]
    fn castling_mode_detection() {
        let p = pos(STARTING_FEN, Variant::Standard);
        assert_eq!(p.castling_mode(), CastlingMode::Standard);
        assert_eq!(pos(STARTING_FEN, Variant::Chess960).castling_mode(), CastlingMode::Chess960);
        // King on the c-file: only expressible as Chess960.
        let p = pos("r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1", Variant::Standard);
        assert_eq!(p.castling_mode(), CastlingMode::Chess960);
        assert_eq!(p.castling_rights().count(), 4);
        // An inner rook: Chess960 too.
        let p = pos("4k3/8/8/8/8/8/8/4K1R1 w K - 0 1", Variant::Standard);
        assert_eq!(p.castling_mode(), CastlingMode::Chess960);
        assert_eq!(p.castling_rights(), Bitboard::from_square(Square::G1));
    }

    #[test]
    fn round_trips_standard_960_crazyhouse() {
        round_trip(STARTING_FEN, Variant::Standard, STARTING_FEN);
        round_trip(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 3 17",
            Variant::Standard,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 3 17",
        );
        round_trip(
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            Variant::Standard,
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        );
        // Shredder-FEN in, X-FEN out.
        round_trip(
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            Variant::Chess960,
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
        );
        round_trip(
            "2r1kr2/8/8/8/8/8/8/1R2KR1R w HBf - 0 1",
            Variant::Chess960,
            "2r1kr2/8/8/8/8/8/8/1R2KR1R w KQk - 0 1",
        );
        // An inner rook needs its file letter.
        round_trip(
            "4k3/8/8/8/8/8/8/R2RK1R1 w DG - 0 1",
            Variant::Chess960,
            "4k3/8/8/8/8/8/8/R2RK1R1 w KD - 0 1",
        );
        // Crazyhouse: both pocket forms in, `[...]` out in Q R B N P order, `~` kept.
        round_trip(
            "r1bqk2r/pppp1ppp/2n1p3/4P3/1b1Pn3/2NB1N2/PPP2PPP/R1BQK2R[pRQp] b KQkq - 0 1",
            Variant::Crazyhouse,
            "r1bqk2r/pppp1ppp/2n1p3/4P3/1b1Pn3/2NB1N2/PPP2PPP/R1BQK2R[QRpp] b KQkq - 0 1",
        );
        round_trip(
            "r1bqk2r/pppp1ppp/2n1p3/4P3/1b1Pn3/2NB1N2/PPP2PPP/R1BQK2R/QRpp b KQkq - 0 1",
            Variant::Crazyhouse,
            "r1bqk2r/pppp1ppp/2n1p3/4P3/1b1Pn3/2NB1N2/PPP2PPP/R1BQK2R[QRpp] b KQkq - 0 1",
        );
        round_trip(
            "4k3/1Q~6/8/8/4b3/8/Kpp5/8/ b - - 0 1",
            Variant::Crazyhouse,
            "4k3/1Q~6/8/8/4b3/8/Kpp5/8[] b - - 0 1",
        );
        round_trip(
            "4k3/1Q~6/8/8/4b3/8/Kpp5/8[-] b - - 0 1",
            Variant::Crazyhouse,
            "4k3/1Q~6/8/8/4b3/8/Kpp5/8[] b - - 0 1",
        );
        // Crazyhouse without a pocket in the text gets an empty one.
        round_trip(
            STARTING_FEN,
            Variant::Crazyhouse,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
        );
    }

    #[test]
    fn raw_setup_round_trip() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[QRBNPqrbnp] w KQkq e3 5 9",
            "4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1",
            "rk2r3/8/8/8/8/8/8/1R2K1RR w GBkq - 0 1",
            "8/8/8/8/8/8/8/8 b - a6 0 0",
            "Q~7/8/8/8/8/8/8/8 w - - 0 1",
        ] {
            let s = setup(fen);
            let text = setup_fen(&s);
            assert_eq!(setup(&text), s, "{fen} -> {text}");
            let mut again = Vec::new();
            write_setup_into(&setup(&text), CastlingMode::Chess960, &mut again);
            assert_eq!(again, text.as_bytes());
        }
    }

    #[test]
    fn ep_modes() {
        // After 1. e4: the square exists, but no capture.
        let p = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", Variant::Standard);
        assert_eq!(
            write_fen(&p, EpMode::Legal),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        );
        assert_eq!(
            write_fen(&p, EpMode::Always),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
        );
        // Pseudo-legal but pinned: not written in legal mode.
        let p = pos("8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 1", Variant::Standard);
        assert_eq!(p.ep_square_legal(), None);
        assert_eq!(ep_square(&p, EpMode::Legal), None);
        assert_eq!(ep_square(&p, EpMode::Always), Some(Square::D6));
        let p = pos("8/8/8/3pP3/8/8/8/k3K3 w - d6 0 1", Variant::Standard);
        assert_eq!(ep_square(&p, EpMode::Legal), Some(Square::D6));
    }

    #[test]
    fn epd_ops() {
        let epd = read_epd(
            r#"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - bm Bb5 Bc4; id "WAC.001; quoted"; c0 "a b"; ce +32; acd 20;acn 12345 ;acs 3; dm 4; pv Bb5 a6 Ba4; hmvc 2; fmvn 3"#,
        )
        .unwrap();
        assert_eq!(epd.setup.halfmoves, 2);
        assert_eq!(epd.setup.fullmoves, 3);
        assert_eq!(epd.op("bm").unwrap(), ["Bb5", "Bc4"]);
        assert_eq!(epd.op("id").unwrap(), ["WAC.001; quoted"]);
        assert_eq!(epd.op("c0").unwrap(), ["a b"]);
        assert_eq!(epd.op("ce").unwrap(), ["+32"]);
        assert_eq!(epd.op("acd").unwrap(), ["20"]);
        assert_eq!(epd.op("acn").unwrap(), ["12345"]);
        assert_eq!(epd.op("pv").unwrap(), ["Bb5", "a6", "Ba4"]);
        assert_eq!(epd.op("fmvn").unwrap(), ["3"]);
        assert_eq!(epd.ops.len(), 11);
        assert_eq!(epd.op("am"), None);
        // Numeric clocks after the four fields (perft suites), no ops.
        let epd = read_epd("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9").unwrap();
        assert_eq!((epd.setup.halfmoves, epd.setup.fullmoves), (2, 9));
        assert!(epd.ops.is_empty());
        // Plain four fields, and errors.
        assert_eq!(
            read_epd("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -").unwrap().setup,
            Setup::standard()
        );
        assert_eq!(
            read_epd("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq"),
            Err(ParseFenError::EpSquare)
        );
        assert_eq!(
            read_epd(r#"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id "open"#),
            Err(ParseFenError::TrailingGarbage)
        );
        assert_eq!(
            read_epd("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ;"),
            Err(ParseFenError::TrailingGarbage)
        );
        assert_eq!(
            read_epd("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - hmvc x;"),
            Err(ParseFenError::Halfmoves)
        );
        assert_eq!(
            read_epd("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - fmvn;"),
            Err(ParseFenError::Fullmoves)
        );
    }

    #[test]
    fn epd_writer() {
        let mut out = Vec::new();
        write_epd_into(&Position::default(), EpMode::Legal, &mut out);
        assert_eq!(out, b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
        for v in [0, 7, 10, 4_294_967_295] {
            let mut n = Tail::new();
            n.push_u32(v);
            assert_eq!(n.as_slice(), v.to_string().as_bytes());
        }
    }
}
