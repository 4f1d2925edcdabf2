//! SAN -> the legal [`Move`] it stands for in a position: the hot path of every PGN job. The
//! common forms resolve in one pass without a jump on what changes from move to move; the rest
//! goes through the parsers and the rules of [`crate::chess::reach`]. Nothing here generates
//! every legal move or allocates.

use std::hint::select_unpredictable;

use crate::chess::attacks::{bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, rook_attacks};
use crate::chess::reach::{legal_origins, snipers};
use crate::chess::{Bitboard, CastlingSide, File, Move, MoveList, Position, Rank, Role, Square};

use super::parse::{
    FIRST_BYTE_ROLE, Parsed, allowed_origins, parse_canonical, parse_general, strip_check, suffix_mark,
};
use super::rules::{check_or_mate_after, is_capture, needed_disambiguation, suffix_of};
use super::{Lenience, San, SanError, Suffix};

impl San {
    /// The legal move this SAN stands for in `pos` (any disambiguation that picks one move is
    /// accepted; a null move is [`SanError::Illegal`]).
    pub fn to_move(&self, pos: &Position) -> Result<Move, SanError> {
        to_move_flags(pos, checkers_apart(pos), self).map(|(m, _)| m)
    }

    /// Resolves this SAN in `pos` and plays it there, returning the move (python-chess's
    /// `push_san`). Faster than [`to_move`](Self::to_move) then
    /// [`Position::play_unchecked`]: the SAN names the moving role, so the board is not searched
    /// for it. On an error `pos` is unchanged.
    ///
    /// ```
    /// use pgnkit::chess::{Move, Position, Square};
    /// use pgnkit::notation::san::SanPlus;
    /// let mut pos = Position::default();
    /// for text in ["e4", "e5", "Nf3"] {
    ///     SanPlus::from_ascii(text.as_bytes()).unwrap().0.san.play(&mut pos).unwrap();
    /// }
    /// let nc6 = SanPlus::from_ascii(b"Nc6").unwrap().0.san;
    /// assert_eq!(nc6.play(&mut pos), Ok(Move::normal(Square::B8, Square::C6)));
    /// let before = format!("{pos:?}");
    /// let bad = SanPlus::from_ascii(b"Ke3").unwrap().0.san;
    /// assert!(bad.play(&mut pos).is_err());
    /// assert_eq!(format!("{pos:?}"), before);
    /// ```
    pub fn play(&self, pos: &mut Position) -> Result<Move, SanError> {
        let m = self.to_move(pos)?;
        pos.play_known(m, moved_role(self));
        Ok(m)
    }
}

/// [`Position::checkers`] kept out of line: inlined into [`San::to_move`]'s large body it made
/// `to_move` + `play` 7% slower (`cargo bench --bench notation`, interleaved runs).
#[inline(never)]
fn checkers_apart(pos: &Position) -> Bitboard {
    pos.checkers()
}

/// Resolves `san`, returning the move and the flags only the position can tell (capture mark,
/// disambiguation).
#[inline(always)]
pub(super) fn to_move_flags(
    pos: &Position,
    checkers: Bitboard,
    san: &San,
) -> Result<(Move, Lenience), SanError> {
    match *san {
        San::Normal { role, file, rank, capture, to, promotion } => {
            let written = (file.is_some(), rank.is_some());
            normal_move(pos, checkers, role, allowed_origins(file, rank), written, capture, to, promotion)
        }
        San::Castle(side) => {
            let m = pos.castling_move(side, checkers).ok_or(SanError::Illegal)?;
            Ok((m, Lenience::CANONICAL))
        }
        San::Put { role, to } => {
            let m = Move::drop(role, to);
            let mut moves = MoveList::new();
            pos.legal_moves_to(role, to, &mut moves);
            if moves.contains(&m) { Ok((m, Lenience::CANONICAL)) } else { Err(SanError::Illegal) }
        }
        San::Null => Err(SanError::Illegal),
    }
}

/// The legal move a normal SAN stands for, with what was non-canonical: `allowed` holds the
/// origins its disambiguation permits, `written` says whether it gave a file and a rank.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn normal_move(
    pos: &Position,
    checkers: Bitboard,
    role: Role,
    allowed: Bitboard,
    written: (bool, bool),
    capture: bool,
    to: Square,
    promotion: Option<Role>,
) -> Result<(Move, Lenience), SanError> {
    // Promotion exactly when a pawn reaches the last rank, to a piece it may become.
    let last = Bitboard::relative_rank(pos.turn(), Rank::Eighth).contains(to);
    let promotes = role == Role::Pawn && last;
    if promotes != promotion.is_some() || promotion.is_some_and(|r| !Role::PROMOTIONS.contains(&r)) {
        return Err(SanError::Illegal);
    }
    let (origins, en_passant) = legal_origins(pos, checkers, role, to);
    let matching = origins & allowed;
    let from = matching.first().ok_or(SanError::Illegal)?;
    if matching.more_than_one() {
        return Err(SanError::Ambiguous);
    }
    let en_passant = en_passant && from.file() != to.file();
    let m = match promotion {
        Some(r) => Move::promotion(from, to, r),
        None if en_passant => Move::en_passant(from, to),
        None => Move::normal(from, to),
    };
    let actual_capture = en_passant || pos.board().by_color(!pos.turn()).contains(to);
    Ok((m, written_flags(role, from, origins, written, capture, actual_capture)))
}

/// What was non-canonical in how a resolved move was written: a wrong capture mark, or more
/// disambiguation than the other pieces of the role that reach the square (`origins`) need.
#[inline(always)]
fn written_flags(
    role: Role,
    from: Square,
    origins: Bitboard,
    written: (bool, bool),
    capture: bool,
    actual_capture: bool,
) -> Lenience {
    let mut flags = Lenience::CANONICAL;
    if capture != actual_capture {
        flags |= Lenience::CAPTURE_MARK;
    }
    let needed = match role {
        Role::Pawn => (actual_capture, false),
        Role::King => (false, false),
        _ => needed_disambiguation(from, origins.without(from)),
    };
    if needed != written {
        flags |= Lenience::OVER_SPECIFIED;
    }
    flags
}

/// The generator-based resolution `to_move_flags` replaced: the reference its fast path is tested
/// against.
#[cfg(test)]
pub(super) fn to_move_flags_reference(pos: &Position, san: &San) -> Result<(Move, Lenience), SanError> {
    match *san {
        San::Normal { role, file, rank, capture, to, promotion } => {
            let mut moves = MoveList::new();
            pos.legal_moves_to(role, to, &mut moves);
            let mut found: Option<Move> = None;
            let mut ambiguous = false;
            let mut origins = Bitboard::EMPTY;
            for &m in moves.iter() {
                if m.is_drop() || m.is_castle() {
                    continue;
                }
                let from = m.from_raw();
                origins.add(from);
                if file.is_some_and(|f| f != from.file())
                    || rank.is_some_and(|r| r != from.rank())
                    || m.promotion_role() != promotion
                {
                    continue;
                }
                if found.is_some() {
                    ambiguous = true;
                }
                found = Some(m);
            }
            let m = found.ok_or(SanError::Illegal)?;
            if ambiguous {
                return Err(SanError::Ambiguous);
            }
            Ok((
                m,
                written_flags(
                    role,
                    m.from_raw(),
                    origins,
                    (file.is_some(), rank.is_some()),
                    capture,
                    is_capture(pos, m),
                ),
            ))
        }
        _ => to_move_flags(pos, pos.checkers(), san),
    }
}

/// The suffix the move that led to `after` deserves, judged on `after` (whose checkers are
/// `checkers`): what [`Resolved::suffix`] is compared with.
#[inline]
pub fn suffix_after(after: &Position, checkers: Bitboard) -> Option<Suffix> {
    if checkers.is_empty() { None } else { Some(check_or_mate_after(after)) }
}

/// Parses and resolves a SAN token in `pos`: the hot path of every PGN job. Generates only the
/// legal moves of the named role to the named square; allocates nothing.
///
/// Returns the move and every non-canonical feature of the text, including a missing or wrong
/// check mark, over-specified disambiguation and a wrong capture mark. A lower-case `b` that
/// reads as a pawn move is tried as a pawn first, then as a bishop.
///
/// ```
/// use pgnkit::notation::{parse_san, Lenience};
/// use pgnkit::chess::{Position, Move, Square};
/// let pos = Position::default();
/// assert_eq!(parse_san(&pos, b"Nf3"), Ok((Move::normal(Square::G1, Square::F3), Lenience::CANONICAL)));
/// assert_eq!(parse_san(&pos, b"Ngf3").unwrap().1, Lenience::OVER_SPECIFIED);
/// ```
pub fn parse_san(pos: &Position, text: &[u8]) -> Result<(Move, Lenience), SanError> {
    let r = parse_san_with(pos, pos.checkers(), text)?;
    let mut flags = r.lenience;
    if suffix_of(pos, r.mv) != r.suffix {
        flags |= Lenience::CHECK_MARK;
    }
    Ok((r.mv, flags))
}

/// A SAN token resolved by [`parse_san_with`], its check mark not yet verified.
// Fixed field order and 8-byte alignment: with the default layout `check` measured 3-5% slower
// (best-of-7 on the 100 MB corpus), the result rebuilt through stack reloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(8))]
pub struct Resolved {
    /// The legal move.
    pub mv: Move,
    /// The check mark as written.
    pub suffix: Option<Suffix>,
    /// The role of the moving piece, as the SAN named it (a pawn for promotions, the king for
    /// castling): what [`Position::play_known`] takes.
    pub role: Role,
    /// What was non-canonical, except a missing or wrong check mark (`++` is flagged).
    pub lenience: Lenience,
}

/// [`parse_san`] for callers that play the move anyway (the PGN replayer's hot path): `checkers`
/// must be `pos.checkers()`, and
/// the written check mark is returned instead of verified, to be compared with [`suffix_after`]
/// on the position after the move (which costs nothing when its checkers are wanted anyway).
///
/// ```
/// use pgnkit::notation::san::{parse_san_with, suffix_after, Lenience, Suffix};
/// use pgnkit::chess::Position;
/// let mut pos = Position::default();
/// for san in ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6"] {
///     let r = parse_san_with(&pos, pos.checkers(), san.as_bytes()).unwrap();
///     pos.play_unchecked(r.mv);
/// }
/// let r = parse_san_with(&pos, pos.checkers(), b"Qxf7+").unwrap();
/// assert_eq!((r.lenience, r.suffix), (Lenience::CANONICAL, Some(Suffix::Check)));
/// pos.play_unchecked(r.mv);
/// assert_eq!(suffix_after(&pos, pos.checkers()), Some(Suffix::Checkmate));
/// ```
#[inline(always)]
pub fn parse_san_with(pos: &Position, checkers: Bitboard, text: &[u8]) -> Result<Resolved, SanError> {
    match resolve_common(pos, checkers, text) {
        Some(r) => Ok(r),
        None => resolve_written(pos, checkers, text),
    }
}

/// [`parse_san_with`] for what [`resolve_common`] leaves: castling, disambiguation, promotion, en
/// passant, the forms it does not read, and every error. Out of line: about one move in ten
/// comes here, and kept out of the replay loop it made `check -j1` 0.7% faster (`scripts/ab.sh`).
#[inline(never)]
pub(super) fn resolve_written(pos: &Position, checkers: Bitboard, text: &[u8]) -> Result<Resolved, SanError> {
    if let Some((side, suffix)) = castling_text(text) {
        let mv = pos.castling_move(side, checkers).ok_or(SanError::Illegal)?;
        return Ok(Resolved { mv, suffix, role: Role::King, lenience: Lenience::CANONICAL });
    }
    // The canonical fields go straight to the resolver: merged with the general parse into one
    // `San` first, they were rebuilt through a stack reload (a store-forwarding stall).
    match parse_canonical(text) {
        Some(c) => {
            let written = (c.file.is_some(), c.rank.is_some());
            let (mv, flags) =
                normal_move(pos, checkers, c.role, c.origins, written, c.capture, c.to, c.promotion)?;
            Ok(resolved(mv, c.role, flags, c.suffix))
        }
        None => resolve_general(pos, checkers, text),
    }
}

/// The SAN of nearly every move in real games, resolved in one pass: a pawn push (`e4`), a
/// pawn capture (`exd5`; not en passant, no promotion), or a piece move without
/// disambiguation (`Nf3`, `Qxe7+`) whose piece is the only one of its kind that reaches the
/// square. `None` for anything else, and for any text that is illegal, ambiguous or written
/// non-canonically (bar the check mark, which the caller verifies): [`resolve_written`] then
/// answers. Where this answers, it answers as that does (`one_pass_agrees_with_the_general_path`).
///
/// It jumps only on the written form, which nearly always passes. Which piece moves, whether
/// it takes and whether a pawn steps one square or two change from move to move: those are
/// computed for every move alike and picked by `select_unpredictable` or by masks. A version
/// that jumped on them ran 18% fewer instructions than this and was no faster; this one made
/// `check -j1` 14-16% faster (with the same treatment of `play`).
#[inline(always)]
pub(super) fn resolve_common(pos: &Position, checkers: Bitboard, text: &[u8]) -> Option<Resolved> {
    let len = text.len();
    if !(2..=6).contains(&len) {
        return None;
    }
    let suffix = suffix_mark(text[len - 1]);
    let n = len - usize::from(suffix.is_some());
    if !(2..=4).contains(&n) {
        return None;
    }
    let file = u32::from(text[n - 2].wrapping_sub(b'a'));
    let rank = u32::from(text[n - 1].wrapping_sub(b'1'));
    let kind = FIRST_BYTE_ROLE[usize::from(text[0])];
    let pawn = kind == Some(Role::Pawn);
    let written_capture = n == 4;
    // One jump for the form: `|` does not short-circuit.
    if (file > 7)
        | (rank > 7)
        | kind.is_none()
        | (written_capture & (text[1] != b'x'))
        | (n == 2 + usize::from(pawn))
    {
        return None;
    }
    let role = kind.unwrap_or(Role::Pawn);
    let to = Square::new(rank * 8 + file);
    let us = pos.turn();
    let them = !us;
    let b = pos.board();
    let ours = b.by_color(us);
    let theirs = b.by_color(them);
    let occ = b.occupied();
    let to_bb = Bitboard::from_square(to);
    let forward = if us.is_white() { rank } else { 7 - rank };
    if (written_capture != theirs.contains(to)) | ours.contains(to) | (pawn & (forward == 7)) {
        return None;
    }
    // One rank back towards our side, as a rotation: an `if` on the side compiled to a jump that
    // alternates every ply. No pawn stands on a first or last rank, so the wrap finds none.
    let back_by = select_unpredictable(us.is_white(), 56, 8);
    let back = |bb: Bitboard| Bitboard(bb.0.rotate_left(back_by));
    let one = back(to_bb);
    let two_steps = (forward == 3) & (occ & one).is_empty();
    let two = Bitboard(back(one).0 & u64::from(two_steps).wrapping_neg());
    let from_file = Bitboard::file(File::new(u32::from(text[0].wrapping_sub(b'a')) & 7));
    let pawn_origins = select_unpredictable(written_capture, pawn_attacks(them, to) & from_file, one | two);
    let bishop = bishop_attacks(to, occ);
    let rook = rook_attacks(to, occ);
    let reach = [pawn_origins, knight_attacks(to), bishop, rook, bishop | rook, king_attacks(to)];
    let origins = reach[role as usize] & b.by_role(role) & ours;
    // Computed for any `origins`, judged once: no origin or two are as rare as an illegal move.
    let from = Square::new(origins.0.trailing_zeros());
    if origins.is_empty() | origins.more_than_one() {
        return None;
    }
    // The slider lookup from the king only where the move can expose it ([`snipers`]).
    let our_king = pos.our_king();
    if (role == Role::King) | checkers.any() | (line(our_king, from) & snipers(b, our_king, theirs)).any() {
        let king = select_unpredictable(role == Role::King, to, our_king);
        if (b.attackers_to(king, them, occ.without(from).with(to)) - to_bb).any() {
            return None;
        }
    }
    Some(Resolved { mv: Move::normal(from, to), suffix, role, lenience: Lenience::CANONICAL })
}

/// `O-O` and `O-O-O` with their check mark, as export format writes them (the other spellings
/// are for the general parser, which flags them).
#[inline(always)]
fn castling_text(text: &[u8]) -> Option<(CastlingSide, Option<Suffix>)> {
    let mut flags = Lenience::CANONICAL;
    let (n, suffix) = strip_check(text, &mut flags);
    let side = match &text[..n] {
        b"O-O" => CastlingSide::KingSide,
        b"O-O-O" => CastlingSide::QueenSide,
        _ => return None,
    };
    flags.is_canonical().then_some((side, suffix))
}

/// [`parse_san_with`] for what [`parse_canonical`] does not read.
#[inline(never)]
fn resolve_general(pos: &Position, checkers: Bitboard, text: &[u8]) -> Result<Resolved, SanError> {
    let parsed = parse_general(text).ok_or(SanError::Syntax)?;
    match to_move_flags(pos, checkers, &parsed.san.san) {
        Ok((mv, f)) => Ok(resolved(mv, moved_role(&parsed.san.san), f | parsed.flags, parsed.san.suffix)),
        Err(SanError::Illegal) => match coordinate_move(pos, &parsed) {
            Some(r) => Ok(r),
            None if parsed.bishop.is_some() => as_bishop(pos, checkers, &parsed),
            None => Err(SanError::Illegal),
        },
        Err(e) => Err(e),
    }
}

/// The second reading of a pawn move written from a full square (`g1f3`, `g1-f3`, `d1xd5`): in
/// coordinate notation, as engines write their lines and python-chess reads them, the move of
/// whatever piece stands there, castling being the king's move (`e1g1`, or onto its rook
/// `e1h1`), as UCI reads it. Flagged as long algebraic already; a wrong or missing `x` is flagged.
#[cold]
#[inline(never)]
fn coordinate_move(pos: &Position, parsed: &Parsed) -> Option<Resolved> {
    let San::Normal { role: Role::Pawn, file: Some(file), rank: Some(rank), capture, to, promotion: None } =
        parsed.san.san
    else {
        return None;
    };
    if parsed.flags.contains(Lenience::PAWN_PREFIX) {
        return None; // `Pg1f3` says a pawn
    }
    let from = Square::from_coords(file, rank);
    let role = pos.board().role_at(from).filter(|&r| r != Role::Pawn)?;
    let mv = crate::notation::uci::move_between(pos, from, to, None).ok()?;
    let mut flags = parsed.flags;
    if is_capture(pos, mv) != capture {
        flags |= Lenience::CAPTURE_MARK;
    }
    Some(resolved(mv, role, flags, parsed.san.suffix))
}

/// The role a SAN moves (the king for castling; a null move names none and never resolves).
fn moved_role(san: &San) -> Role {
    match *san {
        San::Normal { role, .. } | San::Put { role, .. } => role,
        San::Castle(_) | San::Null => Role::King,
    }
}

#[inline(always)]
fn resolved(mv: Move, role: Role, mut lenience: Lenience, suffix: Option<Suffix>) -> Resolved {
    if lenience.contains(Lenience::LONG_ALGEBRAIC) {
        // Long algebraic explains the full origin square.
        lenience.0 &= !Lenience::OVER_SPECIFIED.0;
    }
    Resolved { mv, suffix, role, lenience }
}

/// The second reading of a lower-case `b` (as a bishop): rare, kept out of the hot path.
#[cold]
#[inline(never)]
fn as_bishop(pos: &Position, checkers: Bitboard, parsed: &Parsed) -> Result<Resolved, SanError> {
    let (san, flags) = parsed.bishop.expect("checked by the caller");
    let (mv, f) = to_move_flags(pos, checkers, &san)?;
    Ok(resolved(mv, Role::Bishop, f | flags, parsed.san.suffix))
}
