//! `Position`: a validated position (standard, Chess960 or Crazyhouse) that can only reach other
//! valid positions. Copy-make: `play` returns nothing and mutates in place; clone first to keep the
//! old one. Invariants: exactly one king per side, the side not to move is not in check, castling
//! rights are rooks on their back rank with the king between them on the same rank, the en passant
//! square (kept after every double step) is consistent, and `hash` equals the recomputed key.

use std::fmt;

use super::attacks::{self, between};
use super::bitboard::Bitboard;
use super::board::Board;
use super::moves::{Move, MoveKind};
use super::setup::{CastlingMode, Pocket, Setup};
use super::square::{File, Rank, Square};
use super::types::{ByColor, CastlingSide, Color, Role};
use super::variant::Variant;
use super::zobrist;
use std::hint::select_unpredictable;

mod ending;
mod error;

pub use error::{PositionError, PositionErrorKind};

/// A legal, playable position. Displayed as its FEN (`{:#}`: an ASCII diagram). With its
/// history (moves to take back, repetitions): [`Game`](super::Game).
#[derive(Clone, Copy, Debug)]
// Field by field, as the tests compare positions (a stale `hash` is no difference to a user).
#[cfg_attr(test, derive(PartialEq))]
pub struct Position {
    pub(super) board: Board,
    pub(super) promoted: Bitboard,
    pub(super) pockets: ByColor<Pocket>,
    pub(super) castling: Bitboard,
    /// The Zobrist key, kept up to date move by move while `hashing` (else stale).
    pub(super) hash: u64,
    pub(super) hashing: bool,
    pub(super) halfmoves: u32,
    pub(super) fullmoves: u32,
    pub(super) turn: Color,
    pub(super) ep_square: Option<Square>,
    pub(super) variant: Variant,
    pub(super) mode: CastlingMode,
}

impl Default for Position {
    fn default() -> Position {
        Position::new(Variant::Standard)
    }
}

/// Where the king and rook end up when castling to `side` for `color`.
#[inline]
pub(super) fn castling_targets(color: Color, side: CastlingSide) -> (Square, Square) {
    let (k, r) = match side {
        CastlingSide::KingSide => (Square::G1, Square::F1),
        CastlingSide::QueenSide => (Square::C1, Square::D1),
    };
    (k.relative(color), r.relative(color))
}

impl Position {
    /// The starting position of `variant` (the standard array for Chess960 too).
    pub fn new(variant: Variant) -> Position {
        // Built directly, not validated: every game without a FEN starts here (a test compares
        // it with the validated setup).
        let board = Board::standard();
        let pos = Position {
            board,
            promoted: Bitboard::EMPTY,
            pockets: ByColor::default(),
            castling: board.rooks(),
            hash: zobrist::START,
            hashing: true,
            halfmoves: 0,
            fullmoves: 1,
            turn: Color::White,
            ep_square: None,
            variant,
            mode: CastlingMode::from_chess960(variant == Variant::Chess960),
        };
        debug_assert_eq!(pos.hash, pos.compute_hash());
        pos
    }

    /// Validates `setup` as a position of `variant`, reading castling in `mode`.
    pub fn from_setup(setup: Setup, variant: Variant, mode: CastlingMode) -> Result<Position, PositionError> {
        let mut kinds = 0u16;
        let board = setup.board;
        if board.occupied().is_empty() {
            kinds |= PositionErrorKind::Empty.bit();
        }
        for color in Color::ALL {
            let kings = board.kings() & board.by_color(color);
            if kings.is_empty() {
                kinds |= PositionErrorKind::MissingKing.bit();
            } else if kings.more_than_one() {
                kinds |= PositionErrorKind::TooManyKings.bit();
            }
            let in_hand = setup.pockets.map_or(0, |p| p[color].total());
            if board.by_color(color).count() + in_hand > 16 && variant != Variant::Crazyhouse {
                kinds |= PositionErrorKind::TooManyPieces.bit();
            }
            if (board.pawns() & board.by_color(color)).count() > 8 && variant != Variant::Crazyhouse {
                kinds |= PositionErrorKind::TooManyPawns.bit();
            }
        }
        if (board.pawns() & Bitboard::BACKRANKS).any() {
            kinds |= PositionErrorKind::PawnsOnBackrank.bit();
        }
        let crazyhouse = variant == Variant::Crazyhouse;
        if crazyhouse && !cfg!(feature = "variants") {
            kinds |= PositionErrorKind::VariantNotBuilt.bit();
        }
        // Dropped silently, they would leave another position than the one given.
        if !crazyhouse && setup.pockets.is_some_and(|p| Color::ALL.iter().any(|&c| !p[c].is_empty())) {
            kinds |= PositionErrorKind::PiecesInHand.bit();
        }
        let mut pos = Position {
            board,
            promoted: if crazyhouse {
                setup.promoted & board.occupied() & !board.pawns() & !board.kings()
            } else {
                Bitboard::EMPTY
            },
            pockets: if crazyhouse { setup.pockets.unwrap_or_default() } else { ByColor::default() },
            castling: Bitboard::EMPTY,
            hash: 0,
            hashing: true,
            halfmoves: setup.halfmoves,
            fullmoves: setup.fullmoves.max(1),
            turn: setup.turn,
            ep_square: None,
            variant,
            mode,
        };
        // Hard problems leave no position to build. Too much material is soft: perft suites hold
        // such positions to stress the generator.
        if kinds & !(PositionErrorKind::TooManyPieces.bit() | PositionErrorKind::TooManyPawns.bit()) != 0 {
            return Err(PositionError { kinds, repaired: None });
        }
        // From here both kings exist, so check and castling tests are meaningful.
        let theirs_king = board.king_of(!setup.turn).expect("checked above");
        if board.attackers_to(theirs_king, setup.turn, board.occupied()).any() {
            kinds |= PositionErrorKind::OppositeCheck.bit();
            return Err(PositionError { kinds, repaired: None });
        }
        pos.castling = valid_castling_rights(&board, setup.castling_rights, mode);
        if pos.castling != setup.castling_rights {
            kinds |= PositionErrorKind::InvalidCastlingRights.bit();
        }
        if let Some(ep) = setup.ep_square {
            if pos.valid_ep_square(ep) {
                pos.ep_square = Some(ep);
            } else {
                kinds |= PositionErrorKind::InvalidEpSquare.bit();
            }
        }
        if pos.impossible_check() {
            kinds |= PositionErrorKind::ImpossibleCheck.bit();
        }
        pos.hash = pos.compute_hash();
        if kinds == 0 { Ok(pos) } else { Err(PositionError { kinds, repaired: Some(Box::new(pos)) }) }
    }

    /// The unvalidated view of this position, as FEN writes it.
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board,
            promoted: self.promoted,
            pockets: (self.variant == Variant::Crazyhouse).then_some(self.pockets),
            turn: self.turn,
            castling_rights: self.castling,
            ep_square: self.ep_square,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        }
    }

    fn valid_ep_square(&self, ep: Square) -> bool {
        let us = self.turn;
        // The square is on the mover's sixth rank, empty, with the pushed pawn in front and the
        // square it came from empty.
        if ep.rank() != Rank::Sixth.relative(us) || self.board.occupied().contains(ep) {
            return false;
        }
        let pushed = Square::new((ep as u32 as i32 + if us.is_white() { -8 } else { 8 }) as u32);
        let origin = Square::new((ep as u32 as i32 + if us.is_white() { 8 } else { -8 }) as u32);
        self.board.by_piece(Role::Pawn.of(!us)).contains(pushed) && !self.board.occupied().contains(origin)
    }

    /// A check no legal move produces (python-chess's rule, `Board.status`): more than two
    /// checkers, or two on one line through the king (the nearer would block the farther); after
    /// a double step (a valid en passant square), more than one checker, or one besides the
    /// pushed pawn that gives check with the pawn back on its origin (so the step did not
    /// discover it).
    fn impossible_check(&self) -> bool {
        let checkers = self.checkers();
        if let Some(ep) = self.ep_square
            && checkers.any()
        {
            let (pushed_to, pushed_from) = (Square::new(ep as u32 ^ 8), Square::new(ep as u32 ^ 24));
            let before = (self.board.occupied() - Bitboard::from_square(pushed_to)) | pushed_from;
            return checkers.count() > 1
                || (checkers.first() != Some(pushed_to)
                    && self.board.attackers_to(self.our_king(), !self.turn, before).any());
        }
        match (checkers.count(), checkers.first(), checkers.last()) {
            (0 | 1, _, _) => false,
            (2, Some(a), Some(b)) => attacks::aligned(a, b, self.our_king()),
            _ => true,
        }
    }

    pub(crate) fn compute_hash(&self) -> u64 {
        let mut h = zobrist::hash_board(&self.board) ^ zobrist::castling_rights_key(self.castling);
        if !self.turn.is_white() {
            h ^= zobrist::turn_key();
        }
        h ^= self.ep_hash();
        if self.crazyhouse() {
            h ^= zobrist::hash_crazyhouse(&self.pockets, self.promoted);
        }
        h
    }

    /// What the en passant square adds to the key: its file, when a capture there is legal
    /// (python-chess's rule), so that repetitions are found exactly.
    #[inline(always)]
    fn ep_hash(&self) -> u64 {
        match self.ep_square {
            Some(ep) if self.ep_legal(ep) => zobrist::ep_key(ep),
            _ => 0,
        }
    }

    /// `true` when some pawn of the side to move may legally capture en passant on `ep`.
    #[inline]
    fn ep_legal(&self, ep: Square) -> bool {
        let capturers = attacks::pawn_attacks(!self.turn, ep) & self.board.by_piece(Role::Pawn.of(self.turn));
        Iterator::any(&mut { capturers }, |from| self.ep_capture_legal(from, ep))
    }

    /// `true` when the pawn on `from` may capture en passant on `ep`. Played on bitboards, which
    /// covers a check by the pushed pawn, a block, and the horizontal pin of both pawns.
    #[inline(always)]
    pub(super) fn ep_capture_legal(&self, from: Square, ep: Square) -> bool {
        let cap = Square::new(ep as u32 ^ 8);
        let after = (self.board.occupied() - Bitboard::from_square(from) - Bitboard::from_square(cap)) | ep;
        (self.board.attackers_to(self.our_king(), !self.turn, after) - Bitboard::from_square(cap)).is_empty()
    }

    // --- Accessors -------------------------------------------------------------------------

    /// Piece placement.
    #[inline(always)]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Side to move.
    #[inline(always)]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The rule set.
    #[inline(always)]
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// How castling is written for this position.
    #[inline(always)]
    pub fn castling_mode(&self) -> CastlingMode {
        self.mode
    }

    /// Rooks (by square) that keep castling rights.
    #[inline(always)]
    pub fn castling_rights(&self) -> Bitboard {
        self.castling
    }

    /// The rook `color` would castle with to `side`, if it still has the right.
    pub fn castling_rook(&self, color: Color, side: CastlingSide) -> Option<Square> {
        let king = self.board.king_of(color)?;
        let rights = self.castling & Bitboard::relative_rank(color, Rank::First);
        match side {
            CastlingSide::KingSide => (rights & Bitboard(!0u64 << king as u32)).last(),
            CastlingSide::QueenSide => (rights & Bitboard((1u64 << king as u32) - 1)).first(),
        }
    }

    /// The en passant square after a double step, whether or not a capture is possible.
    #[inline(always)]
    pub fn ep_square_always(&self) -> Option<Square> {
        self.ep_square
    }

    /// The en passant square only when a legal en passant capture exists (python-chess's default).
    pub fn ep_square_legal(&self) -> Option<Square> {
        self.ep_square.filter(|&ep| self.ep_legal(ep))
    }

    /// Plies since the last capture or pawn move.
    #[inline(always)]
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// The move number (starts at 1, incremented after Black moves).
    #[inline(always)]
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// Crazyhouse pockets (empty in other variants).
    #[inline(always)]
    pub fn pockets(&self) -> &ByColor<Pocket> {
        &self.pockets
    }

    /// Squares of crazyhouse pieces that were promoted from pawns.
    #[inline(always)]
    pub fn promoted(&self) -> Bitboard {
        self.promoted
    }

    /// The Zobrist key (pieces, side, castling, capturable ep file, pockets, promoted marks):
    /// kept move by move, or computed here when [`set_hashing`](Self::set_hashing) turned that off.
    #[inline(always)]
    pub fn zobrist(&self) -> u64 {
        if self.hashing { self.hash } else { self.compute_hash() }
    }

    /// Whether moves keep the Zobrist key up to date (the default). A replay that never asks for
    /// keys turns this off: its moves then skip the key updates, a third of what a move costs,
    /// and [`zobrist`](Self::zobrist) computes the key from the board instead. Turning it back on
    /// recomputes the key.
    pub fn set_hashing(&mut self, on: bool) {
        if on && !self.hashing {
            self.hash = self.compute_hash();
        }
        self.hashing = on;
    }

    #[inline(always)]
    pub(crate) fn crazyhouse(&self) -> bool {
        cfg!(feature = "variants") && self.variant == Variant::Crazyhouse
    }

    #[inline(always)]
    pub(crate) fn our_king(&self) -> Square {
        self.board.king_of(self.turn).expect("validated position has a king")
    }

    /// Pieces giving check to the side to move.
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        // A king never gives check: the king term of `attackers_to` is left out.
        self.board.non_king_attackers_to(self.our_king(), !self.turn, self.board.occupied())
    }

    /// `true` when the side to move is in check.
    #[inline]
    pub fn is_check(&self) -> bool {
        self.checkers().any()
    }

    /// Same placement, side, castling rights, legal ep square, pockets and promoted marks:
    /// the equality that repetition rules use (clocks are ignored).
    /// The keys are compared first (they hash the en passant file only when the capture is legal,
    /// so equal positions have equal keys); the fields then rule out collisions.
    pub fn same_position(&self, other: &Position) -> bool {
        (!(self.hashing && other.hashing) || self.hash == other.hash)
            && self.board == other.board
            && self.turn == other.turn
            && self.castling == other.castling
            && self.pockets == other.pockets
            && self.promoted == other.promoted
            && self.ep_square_legal() == other.ep_square_legal()
    }

    // --- Playing moves ----------------------------------------------------------------------

    /// Plays `m`, which must be legal in this position (as produced by the move generator or a
    /// resolved SAN/UCI). Debug builds assert legality; an illegal move leaves an invalid position.
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) {
        debug_assert!(self.is_legal(m), "illegal move {m:?} in {self:?}");
        if self.hashing { self.play_move::<true>(m, None) } else { self.play_move::<false>(m, None) }
    }

    /// [`play_unchecked`](Self::play_unchecked) when the caller knows the role of the moving
    /// piece (a resolved SAN names it): the board is not searched for it. `role` is ignored for
    /// castling and drops; for any other move it must be the role on the origin square.
    /// The ordinary move is played inline; the rest is a call (as one function, the whole was
    /// left out of the replay loop: a call on every move).
    #[inline(always)]
    pub fn play_known(&mut self, m: Move, role: Role) {
        debug_assert!(self.is_legal(m), "illegal move {m:?} in {self:?}");
        debug_assert!(
            m.is_castle() || m.is_drop() || self.board.role_at(m.from_raw()) == Some(role),
            "{role:?} is not on the origin of {m:?}"
        );
        if !self.hashing && m.is_normal() && !self.crazyhouse() {
            self.play_ordinary(m.from_raw(), m.to(), role)
        } else {
            self.play_known_other(m, role)
        }
    }

    /// [`play_known`](Self::play_known) for moves with keys, castling, en passant, promotions
    /// and crazyhouse.
    #[inline(never)]
    fn play_known_other(&mut self, m: Move, role: Role) {
        if self.hashing {
            self.play_move::<true>(m, Some(role))
        } else {
            self.play_move::<false>(m, Some(role))
        }
    }

    /// A plain move or capture by `role` with no key to update and no pocket: what nearly every
    /// move of a replayed game is. What it takes, which piece moves and whether a pawn steps two
    /// squares change from move to move, so nothing here jumps on them (`select_unpredictable`
    /// and masks): with jumps, mispredictions were a third of `check -j1`'s time on real games.
    #[inline(always)]
    fn play_ordinary(&mut self, from: Square, to: Square, role: Role) {
        let us = self.turn;
        let taken = self.board.move_taking(us, role, from, to);
        let pawn = role == Role::Pawn;
        self.halfmoves = select_unpredictable(pawn | taken, 0, self.halfmoves.saturating_add(1));
        let king = u64::from(role == Role::King).wrapping_neg();
        let king_rank = Bitboard(Bitboard::relative_rank(us, Rank::First).0 & king);
        // A rook that moves or is taken loses its right; a pawn never stands on a rook's square.
        self.castling &= !(Bitboard::from_square(from) | Bitboard::from_square(to) | king_rank);
        let double = pawn & ((from as u32 ^ to as u32) == 16);
        self.ep_square = select_unpredictable(double, Some(Square::new((from as u32 + to as u32) / 2)), None);
        self.fullmoves = self.fullmoves.saturating_add(u32::from(!us.is_white()));
        self.turn = !us;
    }

    /// [`play_unchecked`](Self::play_unchecked), with the key updates compiled in or out.
    #[inline(always)]
    fn play_move<const HASH: bool>(&mut self, m: Move, known: Option<Role>) {
        let us = self.turn;
        let them = !us;
        let to = m.to();
        let mut hash = 0;
        // Folds a key change into `hash`; without hashing, nothing (no table load). Only pure
        // expressions go in: a pocket change is made outside and its key passed in.
        macro_rules! key {
            ($k:expr) => {
                if HASH {
                    hash ^= $k;
                }
            };
        }
        key!(self.hash ^ zobrist::turn_key() ^ self.ep_hash());
        self.ep_square = None;
        let old_rights = self.castling;
        self.halfmoves = self.halfmoves.saturating_add(1);

        match m.kind() {
            MoveKind::Normal | MoveKind::Promotion(_) => {
                let from = m.from_raw();
                let role = known.unwrap_or_else(|| self.board.role_at(from).unwrap_or(Role::Pawn));
                if let Some(captured) = self.captured_role(to) {
                    let piece = captured.of(them);
                    self.board.toggle(to, piece);
                    key!(zobrist::piece_key(piece, to));
                    self.castling.discard(to);
                    self.halfmoves = 0;
                    if self.crazyhouse() {
                        let k = self.capture_to_pocket(to, captured);
                        key!(k);
                    }
                }
                let moved = role.of(us);
                self.board.toggle(from, moved);
                key!(zobrist::piece_key(moved, from));
                let placed = m.promotion_role().map_or(moved, |r| r.of(us));
                self.board.toggle(to, placed);
                key!(zobrist::piece_key(placed, to));
                match role {
                    Role::Pawn => {
                        self.halfmoves = 0;
                        if (from as u32 ^ to as u32) == 16 {
                            let ep = Square::new((from as u32 + to as u32) / 2);
                            self.ep_square = Some(ep); // hashed below, from the new side's view
                        }
                    }
                    Role::King => self.castling &= !Bitboard::relative_rank(us, Rank::First),
                    _ => self.castling.discard(from),
                }
                if self.crazyhouse() {
                    if let Some(k) = self.carry_promoted_mark(from, to) {
                        key!(k);
                    } else if m.is_promotion() {
                        self.promoted.add(to);
                        key!(zobrist::promoted_key(to));
                    }
                }
            }
            MoveKind::EnPassant => {
                let from = m.from_raw();
                let cap = Square::new(to as u32 ^ 8);
                let pawn = Role::Pawn.of(us);
                let theirs = Role::Pawn.of(them);
                self.board.toggle(cap, theirs);
                self.board.toggle(from, pawn);
                self.board.toggle(to, pawn);
                key!(
                    zobrist::piece_key(theirs, cap)
                        ^ zobrist::piece_key(pawn, from)
                        ^ zobrist::piece_key(pawn, to)
                );
                self.halfmoves = 0;
                if self.crazyhouse() {
                    let k = self.pocket_add(us, Role::Pawn);
                    key!(k);
                }
            }
            MoveKind::Castle => {
                let king_from = m.from_raw();
                let side = if to > king_from { CastlingSide::KingSide } else { CastlingSide::QueenSide };
                let (king_to, rook_to) = castling_targets(us, side);
                let (king, rook) = (Role::King.of(us), Role::Rook.of(us));
                self.board.toggle(king_from, king);
                self.board.toggle(to, rook);
                self.board.toggle(king_to, king);
                self.board.toggle(rook_to, rook);
                key!(
                    zobrist::piece_key(king, king_from)
                        ^ zobrist::piece_key(rook, to)
                        ^ zobrist::piece_key(king, king_to)
                        ^ zobrist::piece_key(rook, rook_to)
                );
                self.castling &= !Bitboard::relative_rank(us, Rank::First);
                // A promoted rook (possible only from a set-up position) keeps its mark; the king
                // may land where the rook stood.
                if self.crazyhouse()
                    && let Some(k) = self.carry_promoted_mark(to, rook_to)
                {
                    key!(k);
                }
            }
            MoveKind::Drop(role) => {
                let piece = role.of(us);
                let before = self.pockets[us].count(role);
                self.pockets[us].take(role);
                key!(zobrist::pocket_key(us, role, before) ^ zobrist::pocket_key(us, role, before - 1));
                self.board.toggle(to, piece);
                key!(zobrist::piece_key(piece, to));
                if role == Role::Pawn {
                    self.halfmoves = 0;
                }
            }
        }

        if self.castling != old_rights {
            key!(zobrist::castling_rights_key(self.castling ^ old_rights));
        }
        if !us.is_white() {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = them;
        if HASH {
            if self.ep_square.is_some() {
                hash ^= self.ep_hash();
            }
            self.hash = hash;
        }
    }

    /// Plays `m` after checking that it is legal; an illegal move leaves the position unchanged.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        if self.is_legal(m) {
            self.play_unchecked(m);
            Ok(())
        } else {
            Err(IllegalMove)
        }
    }

    /// Passes the turn (a PGN null move `--`). Not legal chess; refused when in check.
    pub fn play_null(&mut self) -> Result<(), IllegalMove> {
        if self.is_check() {
            return Err(IllegalMove);
        }
        if self.hashing {
            self.hash ^= self.ep_hash() ^ zobrist::turn_key();
        }
        self.ep_square = None;
        self.halfmoves = self.halfmoves.saturating_add(1);
        if !self.turn.is_white() {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !self.turn;
        Ok(())
    }

    #[inline(always)]
    fn captured_role(&self, to: Square) -> Option<Role> {
        if self.board.by_color(!self.turn).contains(to) { self.board.role_at(to) } else { None }
    }

    /// Crazyhouse: moves the promoted mark of a piece going from `from` to `to`, if it has one,
    /// and returns the key change.
    fn carry_promoted_mark(&mut self, from: Square, to: Square) -> Option<u64> {
        if !self.promoted.contains(from) {
            return None;
        }
        self.promoted.discard(from);
        self.promoted.add(to);
        Some(zobrist::promoted_key(from) ^ zobrist::promoted_key(to))
    }

    /// Crazyhouse: the captured piece (a pawn if it was promoted) goes to the mover's pocket.
    fn capture_to_pocket(&mut self, sq: Square, role: Role) -> u64 {
        let mut h = 0;
        let role = if self.promoted.contains(sq) {
            self.promoted.discard(sq);
            h ^= zobrist::promoted_key(sq);
            Role::Pawn
        } else {
            role
        };
        h ^ self.pocket_add(self.turn, role)
    }

    fn pocket_add(&mut self, color: Color, role: Role) -> u64 {
        let before = self.pockets[color].count(role);
        self.pockets[color].add(role);
        zobrist::pocket_key(color, role, before)
            ^ zobrist::pocket_key(color, role, self.pockets[color].count(role))
    }
}

/// A move that is not legal in the position it was played in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalMove;

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("illegal move")
    }
}

impl std::error::Error for IllegalMove {}

/// Keeps only the castling rights that have a rook of the right color on its back rank with the
/// king on the same rank; in standard mode the king must also stand on the e-file and the rooks
/// in the corners, and each side keeps at most one rook per wing (the outermost).
fn valid_castling_rights(board: &Board, rights: Bitboard, mode: CastlingMode) -> Bitboard {
    let mut valid = Bitboard::EMPTY;
    for color in Color::ALL {
        let back = Bitboard::relative_rank(color, Rank::First);
        let Some(king) = (board.kings() & board.by_color(color) & back).first() else {
            continue;
        };
        if mode == CastlingMode::Standard && king.file() != File::E {
            continue;
        }
        let rooks = rights & back & board.rooks() & board.by_color(color);
        let allowed = match mode {
            CastlingMode::Standard => rooks & Bitboard::CORNERS,
            CastlingMode::Chess960 => rooks,
        };
        // Outermost rook on each wing.
        if let Some(r) = (allowed & Bitboard(!0u64 << king as u32)).last() {
            valid.add(r);
        }
        if let Some(r) = (allowed & Bitboard((1u64 << king as u32) - 1)).first() {
            valid.add(r);
        }
    }
    valid
}

/// Squares that must be empty (other than the king and rook themselves) to castle, and squares
/// the king crosses, including its destination.
#[inline]
pub(crate) fn castling_paths(color: Color, king: Square, rook: Square) -> (Bitboard, Bitboard) {
    let side = if rook > king { CastlingSide::KingSide } else { CastlingSide::QueenSide };
    let (king_to, rook_to) = castling_targets(color, side);
    let king_path = between(king, king_to) | king_to;
    let empty = (king_path | between(rook, rook_to) | rook_to) - (Bitboard::from_square(king) | rook);
    (empty, king_path)
}

#[cfg(test)]
impl Position {
    /// The positions of a seeded random game from `variant`'s start, up to `plies` of them, each
    /// with a legal move: test material for the rules and for SAN.
    pub(crate) fn random_line(variant: Variant, seed: u64, plies: usize) -> Vec<Position> {
        let mut pos = Position::new(variant);
        let mut rng = seed.wrapping_mul(0x2545_f491_4f6c_dd1d);
        let mut line = Vec::new();
        while line.len() < plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            line.push(pos);
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            pos.play_unchecked(moves[(rng % moves.len() as u64) as usize]);
        }
        line
    }
}

#[cfg(test)]
mod tests;
