//! `Move`: a legal move in 16 bits, and `MoveList`, a fixed-capacity list (no allocation).
//!
//! Layout: bits 0-5 origin, 6-11 destination, 12-15 kind. Castling is stored king-takes-rook
//! (destination = the castling rook's square) for standard chess and Chess960 alike; the notation
//! layer converts. Drops have no origin; their destination is the drop square.

use std::fmt;

use super::square::Square;
use super::types::Role;

/// What a move does beyond moving a piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// A plain move or capture (including double pawn pushes).
    Normal,
    /// A pawn capturing en passant.
    EnPassant,
    /// Castling; the destination is the rook's square.
    Castle,
    /// A pawn reaching the last rank and becoming this role.
    Promotion(Role),
    /// Crazyhouse: a piece of this role put from the pocket onto the board.
    Drop(Role),
}

const K_NORMAL: u16 = 0;
const K_EP: u16 = 1;
const K_CASTLE: u16 = 2;
const K_PROMO: u16 = 3; // + role index (knight 1 .. queen 4): 4..=7
const K_DROP: u16 = 8; // + role index (pawn 0 .. queen 4): 8..=12

/// A move, 16 bits. Build with the constructors; read with the accessors. Displayed as UCI text
/// in standard chess's form (`g1f3`, castling `e1g1`): see its `Display` impl for Chess960.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(u16);

impl Move {
    #[inline(always)]
    const fn pack(from: Square, to: Square, kind: u16) -> Move {
        Move(from as u16 | (to as u16) << 6 | kind << 12)
    }

    /// A plain move or capture.
    #[inline(always)]
    pub const fn normal(from: Square, to: Square) -> Move {
        Move::pack(from, to, K_NORMAL)
    }

    /// An en passant capture to `to` (the empty square behind the captured pawn).
    #[inline(always)]
    pub const fn en_passant(from: Square, to: Square) -> Move {
        Move::pack(from, to, K_EP)
    }

    /// Castling, king on `king` takes its own rook on `rook`.
    #[inline(always)]
    pub const fn castle(king: Square, rook: Square) -> Move {
        Move::pack(king, rook, K_CASTLE)
    }

    /// A promotion to `role` (knight, bishop, rook or queen; a king for variants is not made here).
    #[inline(always)]
    pub const fn promotion(from: Square, to: Square, role: Role) -> Move {
        Move::pack(from, to, K_PROMO + role as u16)
    }

    /// A crazyhouse drop of `role` on `to`.
    #[inline(always)]
    pub const fn drop(role: Role, to: Square) -> Move {
        Move::pack(Square::A1, to, K_DROP + role as u16)
    }

    /// The origin square; `None` for drops.
    #[inline(always)]
    pub const fn from(self) -> Option<Square> {
        if self.is_drop() { None } else { Some(self.from_raw()) }
    }

    /// The origin bits, meaningless for drops. For hot paths that already know the kind.
    #[inline(always)]
    pub const fn from_raw(self) -> Square {
        Square::new(self.0 as u32)
    }

    /// The destination (the rook's square for castling).
    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::new(self.0 as u32 >> 6)
    }

    #[inline(always)]
    const fn kind_bits(self) -> u16 {
        self.0 >> 12
    }

    /// The kind of move.
    #[inline]
    pub const fn kind(self) -> MoveKind {
        match self.kind_bits() {
            K_NORMAL => MoveKind::Normal,
            K_EP => MoveKind::EnPassant,
            K_CASTLE => MoveKind::Castle,
            k if k < K_DROP => MoveKind::Promotion(Role::ALL[(k - K_PROMO) as usize]),
            k => MoveKind::Drop(Role::ALL[((k - K_DROP) as usize) % 6]),
        }
    }

    /// The promotion role, if a promotion.
    #[inline]
    pub const fn promotion_role(self) -> Option<Role> {
        let k = self.kind_bits();
        if k > K_PROMO && k < K_DROP { Some(Role::ALL[(k - K_PROMO) as usize]) } else { None }
    }

    /// `true` for promotions.
    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        let k = self.kind_bits();
        k > K_PROMO && k < K_DROP
    }

    /// `true` for a plain move or capture (not castling, en passant, a promotion or a drop).
    #[inline(always)]
    pub const fn is_normal(self) -> bool {
        self.kind_bits() == K_NORMAL
    }

    /// `true` for castling.
    #[inline(always)]
    pub const fn is_castle(self) -> bool {
        self.kind_bits() == K_CASTLE
    }

    /// `true` for en passant captures.
    #[inline(always)]
    pub const fn is_en_passant(self) -> bool {
        self.kind_bits() == K_EP
    }

    /// `true` for drops.
    #[inline(always)]
    pub const fn is_drop(self) -> bool {
        self.kind_bits() >= K_DROP
    }

    /// The 16-bit encoding, stable within a build (for tables and hashing).
    #[inline]
    pub const fn to_u16(self) -> u16 {
        self.0
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            MoveKind::Drop(r) => write!(f, "{}@{}", r.upper_char(), self.to()),
            MoveKind::Promotion(r) => write!(f, "{}{}{}", self.from_raw(), self.to(), r.char()),
            MoveKind::Castle => write!(f, "{}x{}(castle)", self.from_raw(), self.to()),
            MoveKind::EnPassant => write!(f, "{}{}(ep)", self.from_raw(), self.to()),
            MoveKind::Normal => write!(f, "{}{}", self.from_raw(), self.to()),
        }
    }
}

/// Largest number of legal moves in any position we generate for; crazyhouse drops push it past
/// standard chess's 218.
pub const MAX_MOVES: usize = 512;

/// A list of moves with fixed capacity, on the stack.
pub type MoveList = arrayvec::ArrayVec<Move, MAX_MOVES>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_round_trips() {
        let m = Move::promotion(Square::B7, Square::A8, Role::Knight);
        assert_eq!(m.from(), Some(Square::B7));
        assert_eq!(m.to(), Square::A8);
        assert_eq!(m.kind(), MoveKind::Promotion(Role::Knight));
        assert!(m.is_promotion() && !m.is_drop());
        for r in Role::POCKET {
            let d = Move::drop(r, Square::E5);
            assert_eq!(d.kind(), MoveKind::Drop(r));
            assert_eq!(d.from(), None);
            assert!(!d.is_promotion());
        }
        for r in Role::PROMOTIONS {
            assert_eq!(Move::promotion(Square::A2, Square::A1, r).promotion_role(), Some(r));
        }
        assert_eq!(Move::castle(Square::E1, Square::H1).kind(), MoveKind::Castle);
        assert_eq!(Move::en_passant(Square::E5, Square::D6).kind(), MoveKind::EnPassant);
        assert_eq!(Move::normal(Square::E2, Square::E4).promotion_role(), None);
    }
}
