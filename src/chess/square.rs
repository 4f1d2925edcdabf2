//! Files, ranks and squares (`A1 = 0` .. `H8 = 63`, little-endian rank-file mapping).

use std::fmt;

/// A file, `a` to `h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum File {
    A = 0,
    B,
    C,
    D,
    E,
    F,
    G,
    H,
}

/// A rank, `1` to `8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum Rank {
    First = 0,
    Second,
    Third,
    Fourth,
    Fifth,
    Sixth,
    Seventh,
    Eighth,
}

impl File {
    /// All files, a to h.
    pub const ALL: [File; 8] = [File::A, File::B, File::C, File::D, File::E, File::F, File::G, File::H];

    /// The file with index `i & 7`.
    #[inline]
    pub const fn new(i: u32) -> File {
        File::ALL[(i & 7) as usize]
    }

    /// Parses `a`..`h`.
    #[inline]
    pub const fn from_char(c: u8) -> Option<File> {
        if c >= b'a' && c <= b'h' { Some(File::new((c - b'a') as u32)) } else { None }
    }

    /// `'a'`..`'h'`.
    #[inline]
    pub const fn char(self) -> char {
        (b'a' + self as u8) as char
    }

    /// 0..8.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl Rank {
    /// All ranks, 1 to 8.
    pub const ALL: [Rank; 8] = [
        Rank::First,
        Rank::Second,
        Rank::Third,
        Rank::Fourth,
        Rank::Fifth,
        Rank::Sixth,
        Rank::Seventh,
        Rank::Eighth,
    ];

    /// The rank with index `i & 7`.
    #[inline]
    pub const fn new(i: u32) -> Rank {
        Rank::ALL[(i & 7) as usize]
    }

    /// Parses `1`..`8`.
    #[inline]
    pub const fn from_char(c: u8) -> Option<Rank> {
        if c >= b'1' && c <= b'8' { Some(Rank::new((c - b'1') as u32)) } else { None }
    }

    /// `'1'`..`'8'`.
    #[inline]
    pub const fn char(self) -> char {
        (b'1' + self as u8) as char
    }

    /// 0..8.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The rank as seen by `color` (White's first rank is Black's eighth).
    #[inline]
    pub const fn relative(self, color: crate::chess::Color) -> Rank {
        if color.is_white() { self } else { Rank::new(7 - self as u32) }
    }
}

macro_rules! squares {
    ($($sq:ident),* $(,)?) => {
        /// A square of the board.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        #[allow(missing_docs)]
        pub enum Square { $($sq),* }

        impl Square {
            /// All 64 squares, a1, b1, .., h8.
            pub const ALL: [Square; 64] = [$(Square::$sq),*];

            /// The square with index `i & 63`. An exhaustive match, not a table load: the compiler
            /// sees the identity mapping and emits no memory access.
            #[inline(always)]
            pub const fn new(i: u32) -> Square {
                #[allow(non_upper_case_globals)]
                mod idx { $(pub const $sq: u32 = super::Square::$sq as u32;)* }
                match i & 63 {
                    $(idx::$sq => Square::$sq,)*
                    _ => Square::A1, // unreachable: i & 63 < 64
                }
            }
        }
    };
}

squares! {
    A1, B1, C1, D1, E1, F1, G1, H1,
    A2, B2, C2, D2, E2, F2, G2, H2,
    A3, B3, C3, D3, E3, F3, G3, H3,
    A4, B4, C4, D4, E4, F4, G4, H4,
    A5, B5, C5, D5, E5, F5, G5, H5,
    A6, B6, C6, D6, E6, F6, G6, H6,
    A7, B7, C7, D7, E7, F7, G7, H7,
    A8, B8, C8, D8, E8, F8, G8, H8,
}

impl Square {
    /// The square on `file` and `rank`.
    #[inline]
    pub const fn from_coords(file: File, rank: Rank) -> Square {
        Square::new(file as u32 | (rank as u32) << 3)
    }

    /// 0..64.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Its file.
    #[inline]
    pub const fn file(self) -> File {
        File::new(self as u32)
    }

    /// Its rank.
    #[inline]
    pub const fn rank(self) -> Rank {
        Rank::new(self as u32 >> 3)
    }

    /// Mirrored top to bottom (a1 <-> a8).
    #[inline]
    pub const fn flip_vertical(self) -> Square {
        Square::new(self as u32 ^ 56)
    }

    /// The square as seen by `color`: itself for White, mirrored for Black.
    #[inline]
    pub const fn relative(self, color: crate::chess::Color) -> Square {
        if color.is_white() { self } else { self.flip_vertical() }
    }

    /// The square `delta` steps away, if still on the board (no wrap check on files).
    #[inline]
    pub const fn offset(self, delta: i32) -> Option<Square> {
        let i = self as i32 + delta;
        if i >= 0 && i < 64 { Some(Square::new(i as u32)) } else { None }
    }

    /// Chebyshev distance (king steps).
    pub const fn distance(self, other: Square) -> u32 {
        let df = (self.file() as i32 - other.file() as i32).unsigned_abs();
        let dr = (self.rank() as i32 - other.rank() as i32).unsigned_abs();
        if df > dr { df } else { dr }
    }

    /// Parses `e4` from the first two bytes.
    pub const fn from_ascii(s: &[u8]) -> Option<Square> {
        if s.len() != 2 {
            return None;
        }
        match (File::from_char(s[0]), Rank::from_char(s[1])) {
            (Some(f), Some(r)) => Some(Square::from_coords(f, r)),
            _ => None,
        }
    }

    /// `true` for the light squares (h1 is light).
    pub const fn is_light(self) -> bool {
        (self.file() as u32 + self.rank() as u32) % 2 == 1
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().char(), self.rank().char())
    }
}

impl std::str::FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        Square::from_ascii(s.as_bytes()).ok_or(ParseSquareError)
    }
}

/// A square name that is not `a1`..`h8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseSquareError;

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid square name")
    }
}

impl std::error::Error for ParseSquareError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_coords() {
        assert_eq!(Square::E4.to_string(), "e4");
        assert_eq!("h8".parse::<Square>(), Ok(Square::H8));
        assert!("i1".parse::<Square>().is_err());
        assert_eq!(Square::from_coords(File::C, Rank::Sixth), Square::C6);
        assert_eq!(Square::A1.flip_vertical(), Square::A8);
        assert_eq!(Square::A1.distance(Square::H8), 7);
        assert!(Square::H1.is_light() && !Square::A1.is_light());
    }
}
