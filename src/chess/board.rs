//! `Board`: piece placement only (no side to move, rights or pockets). Invariant: the role sets
//! are disjoint, the color sets are disjoint, and their unions are both `occupied`.

use super::attacks;
use super::bitboard::Bitboard;
use super::square::Square;
use super::types::{Color, Piece, Role};

/// Where the pieces stand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    by_role: [Bitboard; 6],
    by_color: [Bitboard; 2],
    occupied: Bitboard,
}

impl Default for Board {
    fn default() -> Board {
        Board::standard()
    }
}

impl Board {
    /// No pieces.
    pub const fn empty() -> Board {
        Board { by_role: [Bitboard::EMPTY; 6], by_color: [Bitboard::EMPTY; 2], occupied: Bitboard::EMPTY }
    }

    /// The standard starting placement.
    pub const fn standard() -> Board {
        Board {
            by_role: [
                Bitboard(0x00ff_0000_0000_ff00),
                Bitboard(0x4200_0000_0000_0042),
                Bitboard(0x2400_0000_0000_0024),
                Bitboard(0x8100_0000_0000_0081),
                Bitboard(0x0800_0000_0000_0008),
                Bitboard(0x1000_0000_0000_0010),
            ],
            by_color: [Bitboard(0xffff), Bitboard(0xffff_0000_0000_0000)],
            occupied: Bitboard(0xffff_0000_0000_ffff),
        }
    }

    /// Chess960 starting placement number `n` (0..960, Scharnagl numbering; 518 is standard).
    pub fn chess960(n: u32) -> Option<Board> {
        if n >= 960 {
            return None;
        }
        let mut back: [Option<Role>; 8] = [None; 8];
        let mut n = n;
        back[(n % 4 * 2 + 1) as usize] = Some(Role::Bishop);
        n /= 4;
        back[(n % 4 * 2) as usize] = Some(Role::Bishop);
        n /= 4;
        let mut place_nth_free = |k: u32, role: Role| {
            let idx = (0..8).filter(|&i| back[i].is_none()).nth(k as usize).expect("free file");
            back[idx] = Some(role);
        };
        place_nth_free(n % 6, Role::Queen);
        n /= 6;
        const KN: [(u32, u32); 10] =
            [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)];
        let (a, b) = KN[n as usize];
        place_nth_free(b, Role::Knight); // place the later one first so the earlier index is unchanged
        place_nth_free(a, Role::Knight);
        for role in [Role::Rook, Role::King, Role::Rook] {
            place_nth_free(0, role);
        }
        let mut board = Board::empty();
        for (i, role) in back.iter().enumerate() {
            let role = role.expect("all files filled");
            board.set_piece_at(Square::new(i as u32), role.of(Color::White));
            board.set_piece_at(Square::new(56 + i as u32), role.of(Color::Black));
            board.set_piece_at(Square::new(8 + i as u32), Piece { color: Color::White, role: Role::Pawn });
            board.set_piece_at(Square::new(48 + i as u32), Piece { color: Color::Black, role: Role::Pawn });
        }
        Some(board)
    }

    /// All occupied squares.
    #[inline(always)]
    pub const fn occupied(&self) -> Bitboard {
        self.occupied
    }

    /// Squares holding pieces of `role`, both colors.
    #[inline(always)]
    pub const fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role as usize]
    }

    /// Squares holding pieces of `color`.
    #[inline(always)]
    pub const fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color as usize]
    }

    /// Squares holding `piece`.
    #[inline(always)]
    pub const fn by_piece(&self, piece: Piece) -> Bitboard {
        Bitboard(self.by_role[piece.role as usize].0 & self.by_color[piece.color as usize].0)
    }

    /// Pawns of both colors.
    #[inline(always)]
    pub const fn pawns(&self) -> Bitboard {
        self.by_role[0]
    }
    /// Knights of both colors.
    #[inline(always)]
    pub const fn knights(&self) -> Bitboard {
        self.by_role[1]
    }
    /// Bishops of both colors.
    #[inline(always)]
    pub const fn bishops(&self) -> Bitboard {
        self.by_role[2]
    }
    /// Rooks of both colors.
    #[inline(always)]
    pub const fn rooks(&self) -> Bitboard {
        self.by_role[3]
    }
    /// Queens of both colors.
    #[inline(always)]
    pub const fn queens(&self) -> Bitboard {
        self.by_role[4]
    }
    /// Kings of both colors.
    #[inline(always)]
    pub const fn kings(&self) -> Bitboard {
        self.by_role[5]
    }
    /// Rooks and queens.
    #[inline(always)]
    pub const fn rooks_and_queens(&self) -> Bitboard {
        Bitboard(self.by_role[3].0 | self.by_role[4].0)
    }
    /// Bishops and queens.
    #[inline(always)]
    pub const fn bishops_and_queens(&self) -> Bitboard {
        Bitboard(self.by_role[2].0 | self.by_role[4].0)
    }

    /// The king of `color` (the lowest one on a board with several).
    #[inline(always)]
    pub const fn king_of(&self, color: Color) -> Option<Square> {
        Bitboard(self.by_role[5].0 & self.by_color[color as usize].0).first()
    }

    /// The color on `sq`, if any.
    #[inline]
    pub const fn color_at(&self, sq: Square) -> Option<Color> {
        if self.by_color[0].contains(sq) {
            Some(Color::White)
        } else if self.by_color[1].contains(sq) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The role on `sq`, if any.
    // Always inlined: in `check`'s one large loop the compiler kept it a call on every capture.
    #[inline(always)]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        if !self.occupied.contains(sq) {
            return None;
        }
        Role::ALL.into_iter().find(|&r| self.by_role[r as usize].contains(sq))
    }

    /// The piece on `sq`, if any.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let role = self.role_at(sq)?;
        let color = self.color_at(sq)?;
        Some(Piece { color, role })
    }

    /// Removes whatever stands on `sq` and returns it.
    #[inline]
    pub fn remove_piece_at(&mut self, sq: Square) -> Option<Piece> {
        let piece = self.piece_at(sq)?;
        self.toggle(sq, piece);
        Some(piece)
    }

    /// Puts `piece` on `sq`, replacing what was there.
    #[inline]
    pub fn set_piece_at(&mut self, sq: Square, piece: Piece) {
        self.remove_piece_at(sq);
        self.toggle(sq, piece);
    }

    /// Flips `piece` on `sq` (adds it to an empty square, or removes exactly that piece).
    #[inline(always)]
    pub fn toggle(&mut self, sq: Square, piece: Piece) {
        self.by_role[piece.role as usize].toggle(sq);
        self.by_color[piece.color as usize].toggle(sq);
        self.occupied.toggle(sq);
    }

    /// Moves `us`'s `role` from `from` to `to`, taking whatever of theirs stands there, without a
    /// jump on what that is; returns whether something was taken.
    #[inline(always)]
    pub(crate) fn move_taking(&mut self, us: Color, role: Role, from: Square, to: Square) -> bool {
        let (from_bb, to_bb) = (1u64 << from as u32, 1u64 << to as u32);
        let taken = self.by_color[(!us) as usize].0 & to_bb;
        for r in &mut self.by_role {
            r.0 &= !taken;
        }
        self.by_color[(!us) as usize].0 ^= taken;
        self.by_role[role as usize].0 ^= from_bb | to_bb;
        self.by_color[us as usize].0 ^= from_bb | to_bb;
        self.occupied.0 = (self.occupied.0 ^ from_bb) | to_bb;
        taken != 0
    }

    /// Pieces of `attacker` that attack `sq`, given the occupancy `occ`.
    #[inline]
    pub fn attackers_to(&self, sq: Square, attacker: Color, occ: Bitboard) -> Bitboard {
        self.non_king_attackers_to(sq, attacker, occ)
            | (attacks::king_attacks(sq) & self.kings() & self.by_color(attacker))
    }

    /// [`attackers_to`](Self::attackers_to) less the king: all of them where no king of
    /// `attacker` can stand next to `sq`, as on the other king's square of a valid position.
    #[inline(always)]
    pub fn non_king_attackers_to(&self, sq: Square, attacker: Color, occ: Bitboard) -> Bitboard {
        self.by_color(attacker)
            & ((attacks::rook_attacks(sq, occ) & self.rooks_and_queens())
                | (attacks::bishop_attacks(sq, occ) & self.bishops_and_queens())
                | (attacks::knight_attacks(sq) & self.knights())
                | (attacks::pawn_attacks(!attacker, sq) & self.pawns()))
    }

    /// Iterates over `(square, piece)` from a1 to h8.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.occupied.map(move |sq| (sq, self.piece_at(sq).expect("occupied")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_and_960() {
        let b = Board::standard();
        assert_eq!(b.piece_at(Square::E1), Some(Role::King.of(Color::White)));
        assert_eq!(b.piece_at(Square::D8), Some(Role::Queen.of(Color::Black)));
        assert_eq!(b.occupied().count(), 32);
        assert_eq!(Board::chess960(518), Some(b));
        let mut seen = std::collections::HashSet::new();
        for n in 0..960 {
            let b = Board::chess960(n).expect("valid number");
            let k = b.king_of(Color::White).expect("king");
            let rooks: Vec<_> = (b.rooks() & b.by_color(Color::White)).collect();
            assert!(rooks[0] < k && k < rooks[1]);
            assert!(seen.insert(b));
        }
        assert_eq!(Board::chess960(960), None);
    }

    #[test]
    fn attackers() {
        let b = Board::standard();
        assert_eq!(b.attackers_to(Square::F3, Color::White, b.occupied()).count(), 3);
        assert_eq!(b.attackers_to(Square::E4, Color::White, b.occupied()).count(), 0);
        // D2 is guarded by the queen, bishop, knight and king; all but the king without it.
        let all = b.attackers_to(Square::D2, Color::White, b.occupied());
        assert_eq!(all.count(), 4);
        assert_eq!(b.non_king_attackers_to(Square::D2, Color::White, b.occupied()), all.without(Square::E1));
    }
}
