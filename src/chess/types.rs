//! Colors, roles, pieces and the small per-color / per-role containers used across the rules core.

use std::ops::{Index, IndexMut, Not};

/// A side: White or Black.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    /// The side that moves first.
    White = 0,
    /// The other side.
    Black = 1,
}

impl Color {
    /// Both colors, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// `White` for `true`.
    #[inline]
    pub const fn from_white(white: bool) -> Color {
        if white { Color::White } else { Color::Black }
    }

    /// Index 0 for White, 1 for Black.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `true` for White.
    #[inline]
    pub const fn is_white(self) -> bool {
        matches!(self, Color::White)
    }

    /// `'w'` or `'b'`, as in FEN.
    pub const fn char(self) -> char {
        if self.is_white() { 'w' } else { 'b' }
    }

    /// `"white"` or `"black"`.
    pub const fn name(self) -> &'static str {
        if self.is_white() { "white" } else { "black" }
    }

    /// Parses `w`/`b`/`white`/`black` (any case).
    pub fn from_name(s: &str) -> Option<Color> {
        match s.to_ascii_lowercase().as_str() {
            "w" | "white" => Some(Color::White),
            "b" | "black" => Some(Color::Black),
            _ => None,
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

/// A kind of piece, without its color.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Role {
    /// Pawn.
    Pawn = 0,
    /// Knight.
    Knight = 1,
    /// Bishop.
    Bishop = 2,
    /// Rook.
    Rook = 3,
    /// Queen.
    Queen = 4,
    /// King.
    King = 5,
}

impl Role {
    /// All roles, pawn to king.
    pub const ALL: [Role; 6] = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King];
    /// Roles a pawn may promote to, in the order moves are generated.
    pub const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];
    /// Roles that can be held in a crazyhouse pocket.
    pub const POCKET: [Role; 5] = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen];

    /// Index 0 (pawn) to 5 (king).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Upper-case letter as in SAN: `P N B R Q K`.
    pub const fn upper_char(self) -> char {
        match self {
            Role::Pawn => 'P',
            Role::Knight => 'N',
            Role::Bishop => 'B',
            Role::Rook => 'R',
            Role::Queen => 'Q',
            Role::King => 'K',
        }
    }

    /// Lower-case letter: `p n b r q k`.
    pub const fn char(self) -> char {
        self.upper_char().to_ascii_lowercase()
    }

    /// Role from a letter of either case.
    pub const fn from_char(c: char) -> Option<Role> {
        Some(match c.to_ascii_lowercase() {
            'p' => Role::Pawn,
            'n' => Role::Knight,
            'b' => Role::Bishop,
            'r' => Role::Rook,
            'q' => Role::Queen,
            'k' => Role::King,
            _ => return None,
        })
    }

    /// Role from an upper-case letter only (SAN piece letters).
    pub const fn from_upper_char(c: u8) -> Option<Role> {
        Some(match c {
            b'P' => Role::Pawn,
            b'N' => Role::Knight,
            b'B' => Role::Bishop,
            b'R' => Role::Rook,
            b'Q' => Role::Queen,
            b'K' => Role::King,
            _ => return None,
        })
    }

    /// The piece of this role and the given color.
    #[inline]
    pub const fn of(self, color: Color) -> Piece {
        Piece { color, role: self }
    }
}

/// A colored piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Its color.
    pub color: Color,
    /// Its role.
    pub role: Role,
}

impl Piece {
    /// FEN letter: upper case for White.
    pub const fn char(self) -> char {
        if self.color.is_white() { self.role.upper_char() } else { self.role.char() }
    }

    /// Piece from a FEN letter.
    pub const fn from_char(c: char) -> Option<Piece> {
        match Role::from_char(c) {
            Some(role) => Some(Piece { color: Color::from_white(c.is_ascii_uppercase()), role }),
            None => None,
        }
    }

    /// Index 0..12: color * 6 + role.
    #[inline]
    pub const fn index(self) -> usize {
        self.color as usize * 6 + self.role as usize
    }

    /// Unicode chess symbol.
    pub const fn unicode(self) -> char {
        const W: [char; 6] = ['♙', '♘', '♗', '♖', '♕', '♔'];
        const B: [char; 6] = ['♟', '♞', '♝', '♜', '♛', '♚'];
        if self.color.is_white() { W[self.role as usize] } else { B[self.role as usize] }
    }
}

/// The side of the board a castling move goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastlingSide {
    /// Towards the h-file (`O-O`).
    KingSide,
    /// Towards the a-file (`O-O-O`).
    QueenSide,
}

impl CastlingSide {
    /// Both sides, king side first.
    pub const ALL: [CastlingSide; 2] = [CastlingSide::KingSide, CastlingSide::QueenSide];

    /// `true` for the king side.
    pub const fn is_king_side(self) -> bool {
        matches!(self, CastlingSide::KingSide)
    }
}

/// One value per color, indexable by [`Color`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByColor<T> {
    /// White's value.
    pub white: T,
    /// Black's value.
    pub black: T,
}

impl<T> ByColor<T> {
    /// Builds from a function of the color.
    pub fn new_with(mut f: impl FnMut(Color) -> T) -> ByColor<T> {
        ByColor { white: f(Color::White), black: f(Color::Black) }
    }
}

impl<T> Index<Color> for ByColor<T> {
    type Output = T;
    #[inline]
    fn index(&self, c: Color) -> &T {
        match c {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }
}

impl<T> IndexMut<Color> for ByColor<T> {
    #[inline]
    fn index_mut(&mut self, c: Color) -> &mut T {
        match c {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }
}

/// One value per role, indexable by [`Role`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByRole<T>(pub [T; 6]);

impl<T> Index<Role> for ByRole<T> {
    type Output = T;
    #[inline]
    fn index(&self, r: Role) -> &T {
        &self.0[r as usize]
    }
}

impl<T> IndexMut<Role> for ByRole<T> {
    #[inline]
    fn index_mut(&mut self, r: Role) -> &mut T {
        &mut self.0[r as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_chars_round_trip() {
        for c in Color::ALL {
            for r in Role::ALL {
                let p = r.of(c);
                assert_eq!(Piece::from_char(p.char()), Some(p));
            }
        }
        assert_eq!(Piece::from_char('x'), None);
        assert_eq!(!Color::White, Color::Black);
    }
}
