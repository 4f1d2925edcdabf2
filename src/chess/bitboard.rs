//! `Bitboard`: a set of squares as a `u64`, bit `i` for square `i` (a1 = bit 0, h8 = bit 63).

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Sub};

use super::square::{File, Rank, Square};

/// A set of squares.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// No squares.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 64 squares.
    pub const FULL: Bitboard = Bitboard(!0);
    /// The light squares.
    pub const LIGHT: Bitboard = Bitboard(0x55aa_55aa_55aa_55aa);
    /// The dark squares.
    pub const DARK: Bitboard = Bitboard(0xaa55_aa55_aa55_aa55);
    /// Ranks 1 and 8.
    pub const BACKRANKS: Bitboard = Bitboard(0xff00_0000_0000_00ff);
    /// The four corners.
    pub const CORNERS: Bitboard = Bitboard(0x8100_0000_0000_0081);

    /// The set holding only `sq`.
    #[inline(always)]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq as u32)
    }

    /// All squares of a file.
    #[inline]
    pub const fn file(f: File) -> Bitboard {
        Bitboard(0x0101_0101_0101_0101 << f as u32)
    }

    /// All squares of a rank.
    #[inline]
    pub const fn rank(r: Rank) -> Bitboard {
        Bitboard(0xff << (8 * r as u32))
    }

    /// A rank as seen by `color`.
    #[inline]
    pub const fn relative_rank(color: super::Color, r: Rank) -> Bitboard {
        Bitboard::rank(r.relative(color))
    }

    /// `true` when empty.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// `true` when not empty.
    #[inline(always)]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// Number of squares.
    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// `true` when more than one square is set.
    #[inline(always)]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// `true` when `sq` is in the set.
    #[inline(always)]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1 << sq as u32) != 0
    }

    /// The lowest square.
    #[inline(always)]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 { None } else { Some(Square::new(self.0.trailing_zeros())) }
    }

    /// The highest square.
    #[inline]
    pub const fn last(self) -> Option<Square> {
        if self.0 == 0 { None } else { Some(Square::new(63 - self.0.leading_zeros())) }
    }

    /// The only square, if exactly one is set.
    #[inline]
    pub const fn single_square(self) -> Option<Square> {
        if self.0 != 0 && !self.more_than_one() { self.first() } else { None }
    }

    /// Adds a square.
    #[inline(always)]
    pub fn add(&mut self, sq: Square) {
        self.0 |= 1 << sq as u32;
    }

    /// Removes a square.
    #[inline(always)]
    pub fn discard(&mut self, sq: Square) {
        self.0 &= !(1 << sq as u32);
    }

    /// Toggles a square.
    #[inline(always)]
    pub fn toggle(&mut self, sq: Square) {
        self.0 ^= 1 << sq as u32;
    }

    /// The set with `sq` added.
    #[inline(always)]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1 << sq as u32)
    }

    /// The set with `sq` removed.
    #[inline(always)]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq as u32))
    }

    /// Every square shifted one rank towards `color`'s opponent (pawn push direction).
    #[inline(always)]
    pub const fn shift_forward(self, color: super::Color) -> Bitboard {
        if color.is_white() { Bitboard(self.0 << 8) } else { Bitboard(self.0 >> 8) }
    }

    /// Mirrored top to bottom.
    #[inline]
    pub const fn flip_vertical(self) -> Bitboard {
        Bitboard(self.0.swap_bytes())
    }
}

impl Iterator for Bitboard {
    type Item = Square;

    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let sq = Square::new(self.0.trailing_zeros());
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

impl DoubleEndedIterator for Bitboard {
    #[inline]
    fn next_back(&mut self) -> Option<Square> {
        // `Bitboard::last`, not `Iterator::last` on `&mut Self` (which would drain the set).
        let sq = Bitboard::last(*self)?;
        self.discard(sq);
        Some(sq)
    }
}

impl From<Square> for Bitboard {
    #[inline(always)]
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        for sq in iter {
            bb.add(sq);
        }
        bb
    }
}

macro_rules! binop {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $f(self, o: Bitboard) -> Bitboard { Bitboard(self.0 $op o.0) }
        }
        impl $tr<Square> for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $f(self, o: Square) -> Bitboard { Bitboard(self.0 $op Bitboard::from_square(o).0) }
        }
        impl $tra for Bitboard {
            #[inline(always)]
            fn $fa(&mut self, o: Bitboard) { self.0 = self.0 $op o.0; }
        }
        impl $tra<Square> for Bitboard {
            #[inline(always)]
            fn $fa(&mut self, o: Square) { self.0 = self.0 $op Bitboard::from_square(o).0; }
        }
    };
}

binop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
binop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
binop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Sub for Bitboard {
    type Output = Bitboard;
    /// Set difference.
    #[inline(always)]
    fn sub(self, o: Bitboard) -> Bitboard {
        Bitboard(self.0 & !o.0)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Bitboard({:#018x})", self.0)?;
        for rank in (0..8).rev() {
            for file in 0..8 {
                let sq = Square::new(rank * 8 + file);
                f.write_str(if self.contains(sq) { "1" } else { "." })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_ops_and_iteration() {
        let bb = Bitboard::from_square(Square::A1) | Square::H8 | Square::E4;
        assert_eq!(bb.count(), 3);
        assert!(bb.more_than_one());
        assert_eq!(bb.collect::<Vec<_>>(), vec![Square::A1, Square::E4, Square::H8]);
        assert_eq!({ bb }.next_back(), Some(Square::H8));
        assert_eq!(bb.rev().collect::<Vec<_>>(), vec![Square::H8, Square::E4, Square::A1]);
        assert_eq!(Bitboard::from_square(Square::C3).single_square(), Some(Square::C3));
        assert_eq!(bb.single_square(), None);
        assert_eq!(Bitboard::file(File::A).count(), 8);
        assert!(Bitboard::rank(Rank::Eighth).contains(Square::D8));
        assert_eq!(Bitboard::LIGHT.count(), 32);
        assert!(Bitboard::LIGHT.contains(Square::H1));
    }
}
