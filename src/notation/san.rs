//! Standard Algebraic Notation: [`San`] and [`SanPlus`], parsing (lenient), resolving to a legal
//! [`Move`] without generating every move, and writing canonical SAN with minimal disambiguation
//! and the `+`/`#` suffix.
//!
//! Lenient input, accepted and reported as [`Lenience`] flags (`0` = canonical):
//! - castling with zeros or lower-case letters: `0-0`, `0-0-0`, `o-o` ([`Lenience::CASTLING_FORM`]);
//! - an `e.p.` suffix, with or without a space before it, or written `ep`
//!   ([`Lenience::EN_PASSANT_SUFFIX`]);
//! - long algebraic: `e2e4`, `e2-e4`, `e4xd5`, `Ng1-f3`, `e7e8q`, and coordinates without the
//!   piece letter, as UCI and engine lines write moves: `g1f3`, `g1-f3`, `d1xd5`, castling as
//!   the king's move `e1g1` or onto its rook `e1h1` ([`Lenience::LONG_ALGEBRAIC`]);
//! - promotion without `=` (`e8Q`), as `e8(Q)` or `e8/Q`, or with a lower-case letter
//!   ([`Lenience::PROMOTION_FORM`]);
//! - lower-case piece letters `nf3`, `qxe7`; a lower-case `b` is a pawn file whenever that reads
//!   as a pawn move (`bxc3`, `b4`), and a bishop otherwise (`bxe5`) or when no pawn can make the
//!   move ([`Lenience::LOWER_CASE_PIECE`]);
//! - a `P` prefix for pawns: `Pe4`, `Pexd5` ([`Lenience::PAWN_PREFIX`]); a pawn drop written `@f3`
//!   ([`Lenience::PAWN_DROP_LETTER`]);
//! - check marks: `++` at parse time, missing or wrong `+`/`#` found by [`resolve`]
//!   ([`Lenience::CHECK_MARK`]);
//! - over-specified or non-minimal disambiguation, `Ngf3` when only one knight can go
//!   ([`Lenience::OVER_SPECIFIED`], set by [`resolve`]);
//! - `x` missing on a capture or present on a non-capture ([`Lenience::CAPTURE_MARK`], set by
//!   [`resolve`]);
//! - null moves `--`, `Z0`, `0000`, `@@@@` ([`Lenience::NULL_MOVE`]): parsed as [`San::Null`];
//!   they are not moves, so [`resolve`] and [`San::to_move`] answer [`SanError::Illegal`].
//!
//! Rejected: annotation glyphs (`!`, `?`; the PGN reader splits them off), pawn captures without
//! a file (`xd5`), anything longer than 16 bytes. A normal SAN never resolves to castling: a king
//! move onto its own rook (Chess960 `Kxh1`) or two squares (`Kg1` from e1) is illegal; castling
//! is written `O-O`/`O-O-O` in every mode (or in coordinates, `e1g1`, read as UCI reads it).

use std::fmt;
use std::hint::select_unpredictable;
use std::str::FromStr;

use crate::chess::attacks::{
    attacks, bishop_attacks, bishop_rays, king_attacks, knight_attacks, line, pawn_attacks, queen_attacks,
    rook_attacks, rook_rays,
};
use crate::chess::position::castling_targets;
use crate::chess::{
    Bitboard, Board, CastlingSide, File, Move, MoveKind, MoveList, Position, Rank, Role, Square,
};

/// A move in SAN, without its check suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum San {
    /// A piece or pawn move: `Nbd2`, `exd6`, `e8=Q`.
    Normal {
        /// The moving piece's role.
        role: Role,
        /// The origin file, when given.
        file: Option<File>,
        /// The origin rank, when given.
        rank: Option<Rank>,
        /// `x` was written.
        capture: bool,
        /// The destination.
        to: Square,
        /// The promotion role, for pawns reaching the last rank.
        promotion: Option<Role>,
    },
    /// `O-O` or `O-O-O`.
    Castle(CastlingSide),
    /// A crazyhouse drop: `N@f3`, `P@e4`.
    Put {
        /// The dropped role.
        role: Role,
        /// Where it is dropped.
        to: Square,
    },
    /// A null move (`--`): passing, not a legal move.
    Null,
}

/// The check suffix of a SAN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Suffix {
    /// `+`.
    Check,
    /// `#`.
    Checkmate,
}

/// A SAN with its check suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SanPlus {
    /// The move.
    pub san: San,
    /// `+`, `#` or nothing.
    pub suffix: Option<Suffix>,
}

/// What was non-canonical in a SAN as read: a set of flags, `0` when canonical. The flags found
/// by parsing alone come from [`San::from_ascii`]; [`resolve`] adds those that need the position.
// `u32`, not `u16`: beside the `u16` move, LLVM rebuilt the pair through a misaligned stack
// reload (a store-forwarding stall, 5-13% of the replayer in `perf annotate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct Lenience(pub u32);

impl Lenience {
    /// Canonical SAN.
    pub const CANONICAL: Lenience = Lenience(0);
    /// Castling written with zeros (`0-0`) or lower-case letters (`o-o`).
    pub const CASTLING_FORM: Lenience = Lenience(1 << 0);
    /// An `e.p.` or `ep` suffix.
    pub const EN_PASSANT_SUFFIX: Lenience = Lenience(1 << 1);
    /// Long algebraic notation: `e2e4`, `e2-e4`, `Ng1-f3`, and coordinates for pieces (`g1f3`, `e1g1`).
    pub const LONG_ALGEBRAIC: Lenience = Lenience(1 << 2);
    /// Promotion written `e8Q`, `e8(Q)`, `e8/Q` or with a lower-case letter.
    pub const PROMOTION_FORM: Lenience = Lenience(1 << 3);
    /// A lower-case piece letter: `nf3`.
    pub const LOWER_CASE_PIECE: Lenience = Lenience(1 << 4);
    /// A `P` prefix for a pawn move.
    pub const PAWN_PREFIX: Lenience = Lenience(1 << 5);
    /// Check mark missing, wrong (`+` for mate, `#` for check, `+` without check) or `++`.
    pub const CHECK_MARK: Lenience = Lenience(1 << 6);
    /// Disambiguation that is not the minimal one (`Ngf3` when only one knight can go there, or a
    /// rank where the file suffices).
    pub const OVER_SPECIFIED: Lenience = Lenience(1 << 7);
    /// `x` missing on a capture, or present on a non-capture.
    pub const CAPTURE_MARK: Lenience = Lenience(1 << 8);
    /// A null move (`--`, `Z0`, `0000`, `@@@@`).
    pub const NULL_MOVE: Lenience = Lenience(1 << 9);
    /// A pawn drop written `@f3` instead of `P@f3`.
    pub const PAWN_DROP_LETTER: Lenience = Lenience(1 << 10);

    const ALL: [(Lenience, &'static str); 11] = [
        (Lenience::CASTLING_FORM, "castling written with zeros or lower-case letters"),
        (Lenience::EN_PASSANT_SUFFIX, "en passant suffix `e.p.` or `ep`"),
        (Lenience::LONG_ALGEBRAIC, "long algebraic notation"),
        (Lenience::PROMOTION_FORM, "promotion not written as `=` and an upper-case piece letter"),
        (Lenience::LOWER_CASE_PIECE, "lower-case piece letter"),
        (Lenience::PAWN_PREFIX, "`P` prefix on a pawn move"),
        (Lenience::CHECK_MARK, "missing or wrong check mark"),
        (Lenience::OVER_SPECIFIED, "over-specified disambiguation"),
        (Lenience::CAPTURE_MARK, "capture mark `x` missing or wrong"),
        (Lenience::NULL_MOVE, "null move"),
        (Lenience::PAWN_DROP_LETTER, "pawn drop without `P`"),
    ];

    /// `true` when no flag is set.
    #[inline]
    pub const fn is_canonical(self) -> bool {
        self.0 == 0
    }

    /// `true` when every flag of `other` is set.
    #[inline]
    pub const fn contains(self, other: Lenience) -> bool {
        self.0 & other.0 == other.0
    }

    /// One short description per flag set, in a fixed order.
    pub fn describe(self) -> impl Iterator<Item = &'static str> {
        Lenience::ALL.into_iter().filter(move |&(f, _)| self.0 & f.0 != 0).map(|(_, d)| d)
    }
}

impl std::ops::BitOr for Lenience {
    type Output = Lenience;
    #[inline]
    fn bitor(self, o: Lenience) -> Lenience {
        Lenience(self.0 | o.0)
    }
}

impl std::ops::BitOrAssign for Lenience {
    #[inline]
    fn bitor_assign(&mut self, o: Lenience) {
        self.0 |= o.0;
    }
}

/// Text that is not SAN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseSanError {
    /// Not SAN in any accepted form.
    Syntax,
}

impl fmt::Display for ParseSanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid SAN")
    }
}

impl std::error::Error for ParseSanError {}

/// Why a SAN does not give a move in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SanError {
    /// Not SAN in any accepted form.
    Syntax,
    /// No legal move matches (null moves included).
    Illegal,
    /// More than one legal move matches (`Nd2` where `Nbd2` is needed).
    Ambiguous,
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SanError::Syntax => "invalid SAN",
            SanError::Illegal => "illegal SAN",
            SanError::Ambiguous => "ambiguous SAN",
        })
    }
}

impl std::error::Error for SanError {}

impl From<ParseSanError> for SanError {
    fn from(_: ParseSanError) -> SanError {
        SanError::Syntax
    }
}

// --- Parsing -------------------------------------------------------------------------------------

/// A parse: the SAN as read, its flags, and for a lower-case `b` read as a pawn file, the bishop
/// reading to try when no pawn can make the move.
#[cfg_attr(test, derive(Debug, PartialEq))]
struct Parsed {
    san: SanPlus,
    flags: Lenience,
    bishop: Option<(San, Lenience)>,
}

#[inline(always)]
fn square_at(t: &[u8]) -> Option<Square> {
    match (File::from_char(t[0]), Rank::from_char(t[1])) {
        (Some(f), Some(r)) => Some(Square::from_coords(f, r)),
        _ => None,
    }
}

/// Strips `+`, `#`, `++` from the end.
#[inline(always)]
fn strip_check(t: &[u8], flags: &mut Lenience) -> (usize, Option<Suffix>) {
    let n = t.len();
    match t.last() {
        Some(b'#') => (n - 1, Some(Suffix::Checkmate)),
        Some(b'+') if n >= 2 && t[n - 2] == b'+' => {
            *flags |= Lenience::CHECK_MARK;
            (n - 2, Some(Suffix::Check))
        }
        Some(b'+') => (n - 1, Some(Suffix::Check)),
        _ => (n, None),
    }
}

/// Parses the part after the piece letter: `[file][rank][x|-]square[promotion]`.
#[inline(always)]
fn parse_body(role: Role, body: &[u8], flags: &mut Lenience) -> Option<San> {
    let mut b = body;
    let mut promotion = None;
    // Promotion, in any of its forms.
    if let [rest @ .., b'(', p, b')'] = b {
        promotion = Some(promotion_role(*p)?);
        *flags |= Lenience::PROMOTION_FORM;
        b = rest;
    } else if let [rest @ .., p] = b
        && p.is_ascii_alphabetic()
    {
        let r = promotion_role(*p)?;
        if p.is_ascii_lowercase() {
            *flags |= Lenience::PROMOTION_FORM;
        }
        b = match rest {
            [rest @ .., b'='] => rest,
            // `e8/Q`, `e8Q`.
            [rest @ .., b'/'] | rest => {
                *flags |= Lenience::PROMOTION_FORM;
                rest
            }
        };
        promotion = Some(r);
    }
    if promotion.is_some() && role != Role::Pawn {
        return None;
    }
    let n = b.len();
    if n < 2 {
        return None;
    }
    let to = square_at(&b[n - 2..])?;
    let mut p = &b[..n - 2];
    let mut capture = false;
    let mut dash = false;
    match p.last() {
        Some(b'x') => {
            capture = true;
            p = &p[..p.len() - 1];
        }
        Some(b'-') => {
            dash = true;
            p = &p[..p.len() - 1];
        }
        _ => {}
    }
    let mut file = None;
    let mut rank = None;
    if let Some(f) = p.first().and_then(|&c| File::from_char(c)) {
        file = Some(f);
        p = &p[1..];
    }
    if let Some(r) = p.first().and_then(|&c| Rank::from_char(c)) {
        rank = Some(r);
        p = &p[1..];
    }
    if !p.is_empty() {
        return None;
    }
    if dash {
        if file.is_none() || rank.is_none() {
            return None;
        }
        *flags |= Lenience::LONG_ALGEBRAIC;
    }
    if role == Role::Pawn {
        if capture && file.is_none() {
            return None;
        }
        if file.is_some() && rank.is_some() {
            *flags |= Lenience::LONG_ALGEBRAIC;
        }
    }
    Some(San::Normal { role, file, rank, capture, to, promotion })
}

#[inline(always)]
fn promotion_role(c: u8) -> Option<Role> {
    match c.to_ascii_uppercase() {
        b'N' => Some(Role::Knight),
        b'B' => Some(Role::Bishop),
        b'R' => Some(Role::Rook),
        b'Q' => Some(Role::Queen),
        _ => None,
    }
}

// The canonical forms (nearly every move of real files) take a table-driven path; the branchy
// general parser below sees the rest.

/// Byte classes of the fast path, 3 bits each; 0 stands for "no byte".
const C_PIECE: u8 = 1;
const C_FILE: u8 = 2;
const C_RANK: u8 = 3;
const C_TAKES: u8 = 4;
const C_OTHER: u8 = 5;

static CLASSES: [u8; 256] = {
    let mut t = [C_OTHER; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = match c as u8 {
            b'N' | b'B' | b'R' | b'Q' | b'K' => C_PIECE,
            b'a'..=b'h' => C_FILE,
            b'1'..=b'8' => C_RANK,
            b'x' => C_TAKES,
            _ => C_OTHER,
        };
        c += 1;
    }
    t
};

/// The role a SAN's first byte names: a piece letter's role, a file letter a pawn, `None` for
/// any other byte. [`San::from_ascii`] reads it where `Role::from_upper_char`'s `match`
/// compiled to a jump on the letter, a third of what parsing cost there; [`resolve_common`]
/// reads it to pick the role without a jump.
static FIRST_BYTE_ROLE: [Option<Role>; 256] = {
    let mut t = [None; 256];
    let mut c = b'a';
    while c <= b'h' {
        t[c as usize] = Some(Role::Pawn);
        c += 1;
    }
    t[b'N' as usize] = Some(Role::Knight);
    t[b'B' as usize] = Some(Role::Bishop);
    t[b'R' as usize] = Some(Role::Rook);
    t[b'Q' as usize] = Some(Role::Queen);
    t[b'K' as usize] = Some(Role::King);
    t
};

/// The check mark a SAN's last byte writes, if any.
#[inline(always)]
fn suffix_mark(last: u8) -> Option<Suffix> {
    match last {
        b'+' => Some(Suffix::Check),
        b'#' => Some(Suffix::Checkmate),
        _ => None,
    }
}

/// The prefix shapes (the bytes before the destination square) of canonical SAN, as classes:
/// `e4`, `exd5`, `Nf3`, `Nxf3`, `Nbd2`, `Nbxd2`, `N1d2`, `N1xd2`, `Qh4e1`, `Qh4xe1`.
const CANONICAL_PREFIXES: [&[u8]; 10] = [
    &[],
    &[C_FILE, C_TAKES],
    &[C_PIECE],
    &[C_PIECE, C_TAKES],
    &[C_PIECE, C_FILE],
    &[C_PIECE, C_FILE, C_TAKES],
    &[C_PIECE, C_RANK],
    &[C_PIECE, C_RANK, C_TAKES],
    &[C_PIECE, C_FILE, C_RANK],
    &[C_PIECE, C_FILE, C_RANK, C_TAKES],
];

/// Shape bits, indexed by the prefix's classes (3 bits per byte, first byte lowest).
const SHAPE_VALID: u8 = 1;
const SHAPE_PIECE: u8 = 2;
const SHAPE_FILE: u8 = 4;
const SHAPE_RANK: u8 = 8;
const SHAPE_TAKES: u8 = 16;

static SHAPES: [u8; 4096] = {
    let mut t = [0; 4096];
    let mut i = 0;
    while i < CANONICAL_PREFIXES.len() {
        let prefix = CANONICAL_PREFIXES[i];
        let (mut key, mut shape, mut j) = (0, SHAPE_VALID, 0);
        while j < prefix.len() {
            key |= (prefix[j] as usize) << (3 * j);
            shape |= match prefix[j] {
                C_PIECE => SHAPE_PIECE,
                C_FILE => SHAPE_FILE,
                C_RANK => SHAPE_RANK,
                _ => SHAPE_TAKES,
            };
            j += 1;
        }
        t[key] = shape;
        i += 1;
    }
    t
};

/// A canonical SAN of a normal move, as [`parse_canonical`] reads it, with the origin squares
/// its disambiguation allows.
// `origins` is derived from `file` and `rank` but kept: it takes the struct over 16 bytes, and
// smaller it is returned as a packed integer that the inlined parse packs and unpacks again
// (measured: 2.2 M more instructions in callgrind for `check -j1` on 2 MB without it).
#[derive(Clone, Copy)]
struct Canonical {
    role: Role,
    file: Option<File>,
    rank: Option<Rank>,
    capture: bool,
    to: Square,
    promotion: Option<Role>,
    suffix: Option<Suffix>,
    origins: Bitboard,
}

/// Canonical SAN of a normal move, or `None` for anything else (which [`parse_general`] reads:
/// it gives the same answer for every text this one reads).
#[inline(always)]
fn parse_canonical(text: &[u8]) -> Option<Canonical> {
    parse_canonical_with::<false>(text)
}

/// [`parse_canonical`], reading the piece letter from [`FIRST_BYTE_ROLE`] when `TABLE` (the
/// resolver keeps the `match`, whose jump the compiler threads into its own dispatch on the
/// role: measured, the table slowed it).
#[inline(always)]
fn parse_canonical_with<const TABLE: bool>(text: &[u8]) -> Option<Canonical> {
    let len = text.len();
    if !(2..=7).contains(&len) {
        return None;
    }
    let suffix = suffix_mark(text[len - 1]);
    let mut n = len - usize::from(suffix.is_some());
    let mut promotion = None;
    if n >= 4 && text[n - 2] == b'=' {
        promotion = Some(Role::from_upper_char(text[n - 1]).filter(|r| Role::PROMOTIONS.contains(r))?);
        n -= 2;
    }
    if !(2..=6).contains(&n) {
        return None;
    }
    let to = square_at(&text[n - 2..n])?;
    let prefix = &text[..n - 2];
    let mut key = 0;
    for (i, &c) in prefix.iter().enumerate() {
        key |= (CLASSES[c as usize] as usize) << (3 * i);
    }
    let shape = SHAPES[key];
    let piece = shape & SHAPE_PIECE != 0;
    let capture = shape & SHAPE_TAKES != 0;
    // A promoting piece is an error, and `bx..` may be a bishop: both for the general parser.
    if shape == 0 || (piece && promotion.is_some()) || (!piece && capture && text[0] == b'b') {
        return None;
    }
    // The shape says whether `text[0]` is a piece letter or a file (a pawn in the table).
    let role = if TABLE {
        FIRST_BYTE_ROLE[text[0] as usize].unwrap_or(Role::Pawn)
    } else if piece {
        Role::from_upper_char(text[0])?
    } else {
        Role::Pawn
    };
    let at = usize::from(piece);
    let file = (shape & SHAPE_FILE != 0).then(|| File::new(u32::from(prefix[at] - b'a')));
    let rank = (shape & SHAPE_RANK != 0)
        .then(|| Rank::new(u32::from(prefix[at + usize::from(file.is_some())] - b'1')));
    Some(Canonical { role, file, rank, capture, to, promotion, suffix, origins: allowed_origins(file, rank) })
}

impl Canonical {
    fn parsed(self) -> Parsed {
        let Canonical { role, file, rank, capture, to, promotion, suffix, .. } = self;
        let san = San::Normal { role, file, rank, capture, to, promotion };
        Parsed { san: SanPlus { san, suffix }, flags: Lenience::CANONICAL, bishop: None }
    }
}

fn parse_general(text: &[u8]) -> Option<Parsed> {
    if text.is_empty() || text.len() > 16 {
        return None;
    }
    let mut flags = Lenience::CANONICAL;
    let (mut n, mut suffix) = strip_check(text, &mut flags);
    // `e.p.`, with or without a space, possibly followed by the check mark; or `ep` (`exf6ep`).
    // No SAN ends in `p` otherwise (a pawn never promotes to a pawn).
    let ep = if text[..n].ends_with(b"e.p.") {
        4
    } else if text[..n].ends_with(b"ep") {
        2
    } else {
        0
    };
    if ep > 0 {
        flags |= Lenience::EN_PASSANT_SUFFIX;
        n -= ep;
        if n > 0 && text[n - 1] == b' ' {
            n -= 1;
        }
        if suffix.is_none() {
            (n, suffix) = strip_check(&text[..n], &mut flags);
        }
    }
    let t = &text[..n];
    let plain =
        |san: San, flags: Lenience| Some(Parsed { san: SanPlus { san, suffix }, flags, bishop: None });
    let first = *t.first()?;
    // Common case first: a pawn move `e4`, `exd5`, `e8=Q`.
    if first.is_ascii_lowercase() && first != b'b' && first != b'o' {
        return match first {
            b'a'..=b'h' => plain(parse_body(Role::Pawn, t, &mut flags)?, flags),
            b'n' | b'r' | b'q' | b'k' | b'p' => {
                let role = Role::from_char(first as char)?;
                if t.get(1) == Some(&b'@') {
                    flags |= Lenience::LOWER_CASE_PIECE;
                    return plain(parse_drop(role, &t[2..])?, flags);
                }
                flags |= if role == Role::Pawn { Lenience::PAWN_PREFIX } else { Lenience::LOWER_CASE_PIECE };
                plain(parse_body(role, &t[1..], &mut flags)?, flags)
            }
            _ => None,
        };
    }
    match first {
        b'N' | b'B' | b'R' | b'Q' | b'K' | b'P' => {
            let role = Role::from_upper_char(first)?;
            if t.get(1) == Some(&b'@') {
                return plain(parse_drop(role, &t[2..])?, flags);
            }
            if role == Role::Pawn {
                flags |= Lenience::PAWN_PREFIX;
            }
            plain(parse_body(role, &t[1..], &mut flags)?, flags)
        }
        b'O' | b'0' | b'o' => {
            let side = match t {
                b"O-O" | b"0-0" | b"o-o" => CastlingSide::KingSide,
                b"O-O-O" | b"0-0-0" | b"o-o-o" => CastlingSide::QueenSide,
                b"0000" => {
                    flags |= Lenience::NULL_MOVE;
                    return plain(San::Null, flags);
                }
                _ => return None,
            };
            if first != b'O' {
                flags |= Lenience::CASTLING_FORM;
            }
            plain(San::Castle(side), flags)
        }
        b'b' => {
            // A pawn on the b-file or a bishop written in lower case.
            let mut pawn_flags = flags;
            let pawn = parse_body(Role::Pawn, t, &mut pawn_flags);
            let mut bishop_flags = flags | Lenience::LOWER_CASE_PIECE;
            let bishop = parse_body(Role::Bishop, &t[1..], &mut bishop_flags);
            let pawn_shaped = |san: &San| match *san {
                San::Normal { file: None, .. } => true,
                San::Normal { file: Some(_), rank: Some(_), .. } => true,
                San::Normal { file: Some(f), rank: None, to, .. } => f != to.file() && to.file() <= File::C,
                _ => false,
            };
            match (pawn, bishop) {
                (Some(p), b) if pawn_shaped(&p) => Some(Parsed {
                    san: SanPlus { san: p, suffix },
                    flags: pawn_flags,
                    bishop: b.map(|b| (b, bishop_flags)),
                }),
                (_, Some(b)) => plain(b, bishop_flags),
                (Some(p), None) => plain(p, pawn_flags),
                (None, None) => None,
            }
        }
        b'@' => match t {
            b"@@@@" => {
                flags |= Lenience::NULL_MOVE;
                plain(San::Null, flags)
            }
            _ => {
                flags |= Lenience::PAWN_DROP_LETTER;
                plain(parse_drop(Role::Pawn, &t[1..])?, flags)
            }
        },
        b'-' if t == b"--" => {
            flags |= Lenience::NULL_MOVE;
            plain(San::Null, flags)
        }
        b'Z' if t == b"Z0" => {
            flags |= Lenience::NULL_MOVE;
            plain(San::Null, flags)
        }
        _ => None,
    }
}

#[inline]
fn parse_drop(role: Role, t: &[u8]) -> Option<San> {
    if role == Role::King || t.len() != 2 {
        return None;
    }
    Some(San::Put { role, to: square_at(t)? })
}

impl San {
    /// Parses SAN in any accepted form (see the module docs), with its suffix and what was
    /// non-canonical. Flags that need the position (check marks, disambiguation, capture mark)
    /// are only found by [`resolve`].
    ///
    /// ```
    /// use pgnkit::notation::{San, Lenience};
    /// let (san, lenience) = San::from_ascii(b"0-0+").unwrap();
    /// assert_eq!(san.to_string(), "O-O+");
    /// assert_eq!(lenience, Lenience::CASTLING_FORM);
    /// ```
    pub fn from_ascii(text: &[u8]) -> Result<(SanPlus, Lenience), ParseSanError> {
        // The canonical fields return straight from registers: merged with the general parse's
        // `Parsed` first, they were reloaded from the stack with loads wider than the stores
        // that wrote them (a failed store forwarding: a quarter of the parse's time).
        match parse_canonical_with::<true>(text) {
            Some(c) => {
                let p = c.parsed();
                Ok((p.san, p.flags))
            }
            None => San::from_ascii_general(text),
        }
    }

    /// [`San::from_ascii`] for what [`parse_canonical`] does not read.
    #[inline(never)]
    fn from_ascii_general(text: &[u8]) -> Result<(SanPlus, Lenience), ParseSanError> {
        parse_general(text).map(|p| (p.san, p.flags)).ok_or(ParseSanError::Syntax)
    }

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

    /// Writes the canonical text into `buf`, returning its length (at most 8 bytes).
    fn write(&self, buf: &mut [u8; 16]) -> usize {
        let mut n = 0;
        let mut push = |c: u8| {
            buf[n] = c;
            n += 1;
        };
        match *self {
            San::Normal { role, file, rank, capture, to, promotion } => {
                if role != Role::Pawn || pawn_needs_prefix(file, rank, to) {
                    push(role.upper_char() as u8);
                }
                if let Some(f) = file {
                    push(f.char() as u8);
                }
                if let Some(r) = rank {
                    push(r.char() as u8);
                }
                if capture {
                    push(b'x');
                }
                push(to.file().char() as u8);
                push(to.rank().char() as u8);
                if let Some(p) = promotion {
                    push(b'=');
                    push(p.upper_char() as u8);
                }
            }
            San::Castle(CastlingSide::KingSide) => b"O-O".iter().for_each(|&c| push(c)),
            San::Castle(CastlingSide::QueenSide) => b"O-O-O".iter().for_each(|&c| push(c)),
            San::Put { role, to } => {
                push(role.upper_char() as u8);
                push(b'@');
                push(to.file().char() as u8);
                push(to.rank().char() as u8);
            }
            San::Null => b"--".iter().for_each(|&c| push(c)),
        }
        n
    }
}

/// `true` for the pawn SANs that only read back as written with a `P` prefix (all from lenient
/// input such as `P2e4` or `Pbxe5`): a rank without a file (`2e4` is not SAN), and a `b` file
/// that the lower-case rule would read as a bishop (`bxe5`, `bb4`).
fn pawn_needs_prefix(file: Option<File>, rank: Option<Rank>, to: Square) -> bool {
    match (file, rank) {
        (None, Some(_)) => true,
        (Some(File::B), None) => !matches!(to.file(), File::A | File::C),
        _ => false,
    }
}

impl SanPlus {
    /// Parses SAN with its suffix (see [`San::from_ascii`]).
    pub fn from_ascii(text: &[u8]) -> Result<(SanPlus, Lenience), ParseSanError> {
        San::from_ascii(text)
    }

    fn write(&self, buf: &mut [u8; 16]) -> usize {
        let mut n = self.san.write(buf);
        match self.suffix {
            Some(Suffix::Check) => buf[n] = b'+',
            Some(Suffix::Checkmate) => buf[n] = b'#',
            None => return n,
        }
        n += 1;
        n
    }
}

impl fmt::Display for San {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0; 16];
        let n = self.write(&mut buf);
        f.write_str(std::str::from_utf8(&buf[..n]).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Display for SanPlus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0; 16];
        let n = self.write(&mut buf);
        f.write_str(std::str::from_utf8(&buf[..n]).map_err(|_| fmt::Error)?)
    }
}

impl FromStr for San {
    type Err = ParseSanError;
    /// Parses SAN, dropping the suffix.
    fn from_str(s: &str) -> Result<San, ParseSanError> {
        San::from_ascii(s.as_bytes()).map(|(sp, _)| sp.san)
    }
}

impl FromStr for SanPlus {
    type Err = ParseSanError;
    fn from_str(s: &str) -> Result<SanPlus, ParseSanError> {
        San::from_ascii(s.as_bytes()).map(|(sp, _)| sp)
    }
}

// --- Resolving -------------------------------------------------------------------------------------

/// Which origin coordinates SAN must show for a piece on `from` given the other origins `others`
/// that reach the same square: (file, rank).
#[inline]
fn needed_disambiguation(from: Square, others: Bitboard) -> (bool, bool) {
    if others.is_empty() {
        (false, false)
    } else if (others & Bitboard::file(from.file())).is_empty() {
        (true, false)
    } else if (others & Bitboard::rank(from.rank())).is_empty() {
        (false, true)
    } else {
        (true, true)
    }
}

#[inline(always)]
fn is_capture(pos: &Position, m: Move) -> bool {
    m.is_en_passant() || (!m.is_castle() && pos.board().by_color(!pos.turn()).contains(m.to()))
}

/// Their rooks, bishops and queens on a line from `king` that they move along, whatever stands
/// between: out of check, a move by any piece but the king can only uncover one of these, on the
/// line from the king through the piece's origin.
#[inline(always)]
fn snipers(b: &Board, king: Square, theirs: Bitboard) -> Bitboard {
    (rook_rays(king) & b.rooks_and_queens() | bishop_rays(king) & b.bishops_and_queens()) & theirs
}

/// The legal origins of `role` moves to `to` (ordinary moves: no castling, no drops), found
/// backwards from `to` instead of generating moves: the pieces of `role` that reach `to`, each
/// tested by lifting it onto `to` and looking for attackers of the king. Also says whether a pawn
/// capture onto `to` would be en passant. Same answer as `legal_moves_to` filtered to ordinary
/// moves (a test compares them over perft trees). `checkers` are the position's checkers.
#[inline(always)]
fn legal_origins(pos: &Position, checkers: Bitboard, role: Role, to: Square) -> (Bitboard, bool) {
    let us = pos.turn();
    let them = !us;
    let b = pos.board();
    let occ = b.occupied();
    if b.by_color(us).contains(to) {
        return (Bitboard::EMPTY, false);
    }
    let pieces = b.by_piece(role.of(us));
    let theirs = b.by_color(them);
    let mut en_passant = false;
    let candidates = match role {
        Role::Pawn => {
            let mut c = Bitboard::EMPTY;
            if theirs.contains(to) {
                c = pawn_attacks(them, to) & pieces;
            } else {
                if pos.ep_square == Some(to) {
                    c = pawn_attacks(them, to) & pieces;
                    en_passant = c.any();
                }
                // Pushes: one step, or two from the second rank over an empty square.
                let back = if us.is_white() { -8 } else { 8 };
                if let Some(one) = to.offset(back) {
                    if pieces.contains(one) {
                        c.add(one);
                    } else if !occ.contains(one)
                        && to.rank() == Rank::Fourth.relative(us)
                        && let Some(two) = one.offset(back)
                        && pieces.contains(two)
                    {
                        c.add(two);
                    }
                }
            }
            c
        }
        Role::Knight => knight_attacks(to) & pieces,
        Role::Bishop => bishop_attacks(to, occ) & pieces,
        Role::Rook => rook_attacks(to, occ) & pieces,
        Role::Queen => queen_attacks(to, occ) & pieces,
        Role::King => {
            let c = king_attacks(to) & pieces;
            return match c.first() {
                Some(k) if b.attackers_to(to, them, occ.without(k)).is_empty() => (c, false),
                _ => (Bitboard::EMPTY, false),
            };
        }
    };
    if candidates.is_empty() {
        return (candidates, false);
    }
    let king = pos.our_king();
    let snipers = snipers(b, king, theirs);
    let mut legal = Bitboard::EMPTY;
    for from in candidates {
        let ok = if en_passant && from.file() != to.file() {
            pos.ep_capture_legal(from, to)
        } else if checkers.is_empty() && (line(king, from) & snipers).is_empty() {
            true
        } else {
            // Lifted onto `to`: no attacker left but the piece captured there.
            (b.attackers_to(king, them, occ.without(from).with(to)) - Bitboard::from_square(to)).is_empty()
        };
        if ok {
            legal.add(from);
        }
    }
    (legal, en_passant)
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
fn to_move_flags(pos: &Position, checkers: Bitboard, san: &San) -> Result<(Move, Lenience), SanError> {
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

/// The origin squares a SAN's disambiguation allows (every square when it gives none).
#[inline(always)]
fn allowed_origins(file: Option<File>, rank: Option<Rank>) -> Bitboard {
    file.map_or(Bitboard::FULL, Bitboard::file) & rank.map_or(Bitboard::FULL, Bitboard::rank)
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
fn to_move_flags_reference(pos: &Position, san: &San) -> Result<(Move, Lenience), SanError> {
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

/// `true` when the legal move `m` gives check, from attack sets alone (no move played).
#[inline]
pub(crate) fn gives_check(pos: &Position, m: Move) -> bool {
    let us = pos.turn();
    let b = pos.board();
    let Some(king) = b.king_of(!us) else {
        return false;
    };
    let ours = b.by_color(us);
    let mut occ = b.occupied();
    let mut rq = b.rooks_and_queens() & ours;
    let mut bq = b.bishops_and_queens() & ours;
    let to = m.to();
    match m.kind() {
        MoveKind::Drop(role) => return attacks(role, us, to, occ.with(to)).contains(king),
        MoveKind::Castle => {
            let from = m.from_raw();
            let side = if to > from { CastlingSide::KingSide } else { CastlingSide::QueenSide };
            let (king_to, rook_to) = castling_targets(us, side);
            occ = (occ - Bitboard::from_square(from) - Bitboard::from_square(to)) | king_to | rook_to;
            rq = (rq - Bitboard::from_square(to)) | rook_to;
        }
        kind => {
            let from = m.from_raw();
            let placed = match kind {
                MoveKind::Promotion(r) => r,
                MoveKind::EnPassant => Role::Pawn,
                _ => b.role_at(from).unwrap_or(Role::Pawn),
            };
            occ = occ.without(from).with(to);
            if kind == MoveKind::EnPassant {
                occ = occ.without(Square::new(to as u32 ^ 8));
            }
            if attacks(placed, us, to, occ).contains(king) {
                return true;
            }
            rq = rq.without(from);
            bq = bq.without(from);
        }
    }
    (rook_attacks(king, occ) & rq).any() || (bishop_attacks(king, occ) & bq).any()
}

/// The suffix the legal move `m` deserves.
#[inline(always)]
fn suffix_of(pos: &Position, m: Move) -> Option<Suffix> {
    if !gives_check(pos, m) {
        return None;
    }
    Some(check_or_mate(pos, m))
}

/// Check or mate, for a move known to give check (out of line: most moves do not).
#[inline(never)]
fn check_or_mate(pos: &Position, m: Move) -> Suffix {
    let mut after = *pos;
    after.play_unchecked(m);
    check_or_mate_after(&after)
}

/// Check or mate, for a position whose side to move is in check.
fn check_or_mate_after(after: &Position) -> Suffix {
    // Most checks leave the king a flight square: `has_legal_moves` then generates nothing.
    if after.has_legal_moves() { Suffix::Check } else { Suffix::Checkmate }
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
/// use pgnkit::notation::{resolve, Lenience};
/// use pgnkit::chess::{Position, Move, Square};
/// let pos = Position::default();
/// assert_eq!(resolve(&pos, b"Nf3"), Ok((Move::normal(Square::G1, Square::F3), Lenience::CANONICAL)));
/// assert_eq!(resolve(&pos, b"Ngf3").unwrap().1, Lenience::OVER_SPECIFIED);
/// ```
pub fn resolve(pos: &Position, text: &[u8]) -> Result<(Move, Lenience), SanError> {
    let r = resolve_in(pos, pos.checkers(), text)?;
    let mut flags = r.lenience;
    if suffix_of(pos, r.mv) != r.suffix {
        flags |= Lenience::CHECK_MARK;
    }
    Ok((r.mv, flags))
}

/// A SAN token resolved by [`resolve_in`], its check mark not yet verified.
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

/// [`resolve`] for callers that play the move anyway: `checkers` must be `pos.checkers()`, and
/// the written check mark is returned instead of verified, to be compared with [`suffix_after`]
/// on the position after the move (which costs nothing when its checkers are wanted anyway).
///
/// ```
/// use pgnkit::notation::san::{resolve_in, suffix_after, Lenience, Suffix};
/// use pgnkit::chess::Position;
/// let mut pos = Position::default();
/// for san in ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6"] {
///     let r = resolve_in(&pos, pos.checkers(), san.as_bytes()).unwrap();
///     pos.play_unchecked(r.mv);
/// }
/// let r = resolve_in(&pos, pos.checkers(), b"Qxf7+").unwrap();
/// assert_eq!((r.lenience, r.suffix), (Lenience::CANONICAL, Some(Suffix::Check)));
/// pos.play_unchecked(r.mv);
/// assert_eq!(suffix_after(&pos, pos.checkers()), Some(Suffix::Checkmate));
/// ```
#[inline(always)]
pub fn resolve_in(pos: &Position, checkers: Bitboard, text: &[u8]) -> Result<Resolved, SanError> {
    match resolve_common(pos, checkers, text) {
        Some(r) => Ok(r),
        None => resolve_written(pos, checkers, text),
    }
}

/// [`resolve_in`] for what [`resolve_common`] leaves: castling, disambiguation, promotion, en
/// passant, the forms it does not read, and every error. Out of line: about one move in ten
/// comes here, and kept out of the replay loop it made `check -j1` 0.7% faster (`scripts/ab.sh`).
#[inline(never)]
fn resolve_written(pos: &Position, checkers: Bitboard, text: &[u8]) -> Result<Resolved, SanError> {
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
fn resolve_common(pos: &Position, checkers: Bitboard, text: &[u8]) -> Option<Resolved> {
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

/// [`resolve_in`] for what [`parse_canonical`] does not read.
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

/// The canonical SAN of the legal move `m`: minimal disambiguation (file, else rank, else both),
/// `x` on captures, `=Q` on promotions, castling as `O-O`/`O-O-O` in every mode, drops as `N@f3`,
/// and the `+`/`#` suffix.
pub fn san_of(pos: &Position, m: Move) -> SanPlus {
    let san = match m.kind() {
        MoveKind::Castle => {
            San::Castle(if m.to() > m.from_raw() { CastlingSide::KingSide } else { CastlingSide::QueenSide })
        }
        MoveKind::Drop(role) => San::Put { role, to: m.to() },
        _ => {
            let from = m.from_raw();
            let to = m.to();
            let role = pos.board().role_at(from).unwrap_or(Role::Pawn);
            let capture = is_capture(pos, m);
            let (file, rank) = match role {
                Role::Pawn => (capture, false),
                Role::King => (false, false),
                _ => {
                    let mut moves = MoveList::new();
                    pos.legal_moves_to(role, to, &mut moves);
                    let others = moves
                        .iter()
                        .filter(|o| !o.is_drop() && !o.is_castle() && o.from_raw() != from)
                        .map(|o| o.from_raw())
                        .collect();
                    needed_disambiguation(from, others)
                }
            };
            San::Normal {
                role,
                file: file.then(|| from.file()),
                rank: rank.then(|| from.rank()),
                capture,
                to,
                promotion: m.promotion_role(),
            }
        }
    };
    SanPlus { san, suffix: suffix_of(pos, m) }
}

/// Appends the SAN of the legal move `m`, with its suffix.
pub fn write_san_into(pos: &Position, m: Move, out: &mut Vec<u8>) {
    let mut buf = [0; 16];
    let n = san_of(pos, m).write(&mut buf);
    out.extend_from_slice(&buf[..n]);
}

/// The SAN of the legal move `m`, with its suffix.
///
/// ```
/// use pgnkit::notation::to_san;
/// use pgnkit::chess::{Position, Move, Square};
/// assert_eq!(to_san(&Position::default(), Move::normal(Square::E2, Square::E4)), "e4");
/// ```
pub fn to_san(pos: &Position, m: Move) -> String {
    san_of(pos, m).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Variant;
    use crate::notation::fen::position_from_fen;

    fn pos(fen: &str) -> Position {
        position_from_fen(fen, Variant::Standard).unwrap()
    }

    fn pos_v(fen: &str, v: Variant) -> Position {
        position_from_fen(fen, v).unwrap()
    }

    fn ok(p: &Position, text: &str) -> (Move, Lenience) {
        resolve(p, text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    fn parsed(text: &str) -> (String, Lenience) {
        let (sp, l) = San::from_ascii(text.as_bytes()).unwrap_or_else(|_| panic!("{text}"));
        (sp.to_string(), l)
    }

    #[test]
    fn parse_canonical_forms() {
        for s in [
            "e4", "exd5", "e8=Q", "exd8=N+", "Nf3", "Nbd2", "R1e2", "Qh4xe1#", "O-O", "O-O-O+", "N@f3",
            "P@e4", "Kxe1",
        ] {
            assert_eq!(parsed(s), (s.to_string(), Lenience::CANONICAL), "{s}");
            assert_eq!(s.parse::<SanPlus>().unwrap().to_string(), s);
        }
        assert_eq!("e4+".parse::<San>().unwrap().to_string(), "e4");
        // Found by the san_roundtrip fuzz target: a rank-only pawn must write back readably.
        // So must a b-pawn that the lower-case rule would read as a bishop.
        assert_eq!(parsed("P2e4"), ("P2e4".to_string(), Lenience::PAWN_PREFIX));
        assert_eq!(parsed("Pbxe5"), ("Pbxe5".to_string(), Lenience::PAWN_PREFIX));
        assert_eq!(parsed("Pbb4"), ("Pbb4".to_string(), Lenience::PAWN_PREFIX));
        assert_eq!(parsed("Pbxc3"), ("bxc3".to_string(), Lenience::PAWN_PREFIX));
        assert_eq!(San::Null.to_string(), "--");
    }

    #[test]
    fn parse_lenient_forms() {
        use Lenience as L;
        let cases: &[(&str, &str, Lenience)] = &[
            ("0-0", "O-O", L::CASTLING_FORM),
            ("0-0-0+", "O-O-O+", L::CASTLING_FORM),
            ("o-o", "O-O", L::CASTLING_FORM),
            ("exd6e.p.", "exd6", L::EN_PASSANT_SUFFIX),
            ("exd6 e.p.+", "exd6+", L::EN_PASSANT_SUFFIX),
            ("exd6e.p.#", "exd6#", L::EN_PASSANT_SUFFIX),
            ("exd6ep", "exd6", L::EN_PASSANT_SUFFIX),
            ("exd6ep+", "exd6+", L::EN_PASSANT_SUFFIX),
            ("e2e4", "e2e4", L::LONG_ALGEBRAIC),
            ("e2-e4", "e2e4", L::LONG_ALGEBRAIC),
            ("e4xd5", "e4xd5", L::LONG_ALGEBRAIC),
            ("Ng1-f3", "Ng1f3", L::LONG_ALGEBRAIC),
            ("e8Q", "e8=Q", L::PROMOTION_FORM),
            ("e8(Q)", "e8=Q", L::PROMOTION_FORM),
            ("e8/Q", "e8=Q", L::PROMOTION_FORM),
            ("e8=q", "e8=Q", L::PROMOTION_FORM),
            ("e7e8q", "e7e8=Q", L(L::PROMOTION_FORM.0 | L::LONG_ALGEBRAIC.0)),
            ("nf3", "Nf3", L::LOWER_CASE_PIECE),
            ("qxe7+", "Qxe7+", L::LOWER_CASE_PIECE),
            ("bxe5", "Bxe5", L::LOWER_CASE_PIECE),
            ("bxc3", "bxc3", L::CANONICAL),
            ("b4", "b4", L::CANONICAL),
            ("Pe4", "e4", L::PAWN_PREFIX),
            ("Pexd5", "exd5", L::PAWN_PREFIX),
            ("e4++", "e4+", L::CHECK_MARK),
            ("@f3", "P@f3", L::PAWN_DROP_LETTER),
            ("n@f3", "N@f3", L::LOWER_CASE_PIECE),
            ("--", "--", L::NULL_MOVE),
            ("Z0", "--", L::NULL_MOVE),
            ("0000", "--", L::NULL_MOVE),
            ("@@@@", "--", L::NULL_MOVE),
        ];
        for &(text, canon, flags) in cases {
            assert_eq!(parsed(text), (canon.to_string(), flags), "{text}");
        }
    }

    /// The fast path reads a text only as the general parser does, with the piece letter read
    /// by `match` or by table alike: every string of up to five bytes over the alphabet that
    /// matters, and a seeded sample of longer ones.
    #[test]
    fn canonical_path_agrees_with_general_parser() {
        const ALPHABET: &[u8] = b"NBRQKPabcdeh12781x=+#-Oq";
        let check = |t: &[u8]| {
            let text = String::from_utf8_lossy(t);
            let fast = parse_canonical(t).map(Canonical::parsed);
            assert_eq!(fast, parse_canonical_with::<true>(t).map(Canonical::parsed), "{text:?}");
            if fast.is_some() {
                assert_eq!(fast, parse_general(t), "{text:?}");
            }
        };
        let k = ALPHABET.len();
        let mut t = Vec::new();
        for len in 0..=5u32 {
            for mut i in 0..k.pow(len) {
                t.clear();
                for _ in 0..len {
                    t.push(ALPHABET[i % k]);
                    i /= k;
                }
                check(&t);
            }
        }
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..300_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = 6 + (state % 3) as usize;
            t.clear();
            t.extend((0..len).map(|j| ALPHABET[(state >> (8 + 5 * j)) as usize % k]));
            check(&t);
        }
    }

    /// Every canonical SAN of a normal move takes the fast path.
    #[test]
    fn canonical_path_reads_written_san() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "4k3/8/8/8/8/8/8/R2QK2R w KQ - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "1k6/8/8/3N1N2/8/3N1N2/8/1K6 w - - 0 1",
        ];
        let mut seen = 0;
        for fen in fens {
            let p = pos(fen);
            for &m in p.legal_moves().iter().filter(|m| !m.is_castle()) {
                let san = to_san(&p, m);
                let c = parse_canonical(san.as_bytes()).unwrap_or_else(|| panic!("{san} in {fen}"));
                assert_eq!(Some(c.parsed()), parse_general(san.as_bytes()), "{san}");
                seen += 1;
            }
        }
        assert!(seen > 100, "{seen}");
    }

    /// Where the one-pass resolver answers, the general path gives the same move, role, check
    /// mark and flags; and it answers for every normal move whose SAN has no disambiguation.
    #[test]
    fn one_pass_agrees_with_the_general_path() {
        let mut texts: Vec<String> = Vec::new();
        for sq in Square::ALL {
            let (f, r) = (sq.file() as u8, sq.rank() as u8);
            let name = format!("{}{}", (b'a' + f) as char, (b'1' + r) as char);
            for piece in ["N", "B", "R", "Q", "K"] {
                texts.push(format!("{piece}{name}"));
                texts.push(format!("{piece}x{name}"));
            }
            texts.push(name.clone());
            for from in [f.wrapping_sub(1), f, f + 1].into_iter().filter(|&x| x < 8) {
                texts.push(format!("{}x{name}", (b'a' + from) as char));
            }
        }
        let (mut answered, mut covered) = (0, 0);
        for variant in [Variant::Standard, Variant::Chess960, Variant::Crazyhouse] {
            for seed in 1..=4u64 {
                for p in Position::random_line(variant, seed, 100) {
                    let moves = p.legal_moves();
                    let mut written: Vec<String> = Vec::new();
                    for &m in moves.iter() {
                        let san = to_san(&p, m);
                        let body = san.trim_end_matches(['+', '#']);
                        written.extend([
                            san.clone(),
                            body.to_string(),
                            format!("{body}+"),
                            format!("{body}#"),
                        ]);
                        written.push(body.replacen('x', "", 1));
                        // `Nbd7`, `Nbxd7`, `N1d2`, `Qh4e1`: longer than the undisambiguated forms.
                        let capture = body.contains('x');
                        let piece = body.as_bytes()[0].is_ascii_uppercase();
                        let plain_len =
                            if piece { 3 + usize::from(capture) } else { 2 + 2 * usize::from(capture) };
                        let disambiguated = body.len() > plain_len;
                        if m.kind() == MoveKind::Normal && !disambiguated {
                            let r = resolve_common(&p, p.checkers(), san.as_bytes())
                                .unwrap_or_else(|| panic!("{san} in {p:?}"));
                            assert_eq!(r.mv, m, "{san}");
                            covered += 1;
                        }
                    }
                    for t in texts.iter().chain(&written) {
                        if let Some(r) = resolve_common(&p, p.checkers(), t.as_bytes()) {
                            assert_eq!(
                                Ok(r),
                                resolve_written(&p, p.checkers(), t.as_bytes()),
                                "{t} in {p:?}"
                            );
                            answered += 1;
                        }
                    }
                }
            }
        }
        assert!(answered > 50_000 && covered > 10_000, "{answered} answered, {covered} covered");
    }

    #[test]
    fn parse_errors() {
        for s in [
            "",
            "e",
            "e9",
            "i4",
            "xd5",
            "Nf3!",
            "e4?",
            "Ke8=Q",
            "Nf3=Q",
            "e8=K",
            "K@e4",
            "O-O-O-O",
            "0-O",
            "N-f3",
            "e2--e4",
            "Nxxf3",
            "Xe4",
            "e4 e5",
            "aaaaaaaaaaaaaaaaaaaaaa",
            "--+-",
            "@e",
            "N@",
            "e8=",
            "e8()",
        ] {
            assert_eq!(San::from_ascii(s.as_bytes()), Err(ParseSanError::Syntax), "{s:?}");
            assert!(s.parse::<San>().is_err());
        }
        assert_eq!(resolve(&Position::default(), b"Nf3!"), Err(SanError::Syntax));
    }

    #[test]
    fn describe_flags() {
        assert_eq!(Lenience::CANONICAL.describe().count(), 0);
        let l = Lenience::CASTLING_FORM | Lenience::CHECK_MARK;
        assert_eq!(
            l.describe().collect::<Vec<_>>(),
            ["castling written with zeros or lower-case letters", "missing or wrong check mark"]
        );
        assert!(l.contains(Lenience::CHECK_MARK) && !l.is_canonical());
        assert_eq!(
            Lenience::ALL.iter().fold(0, |a, (f, _)| a | f.0).count_ones(),
            Lenience::ALL.len() as u32
        );
    }

    #[test]
    fn resolve_common_moves() {
        let p = Position::default();
        assert_eq!(ok(&p, "e4"), (Move::normal(Square::E2, Square::E4), Lenience::CANONICAL));
        assert_eq!(ok(&p, "Nc3"), (Move::normal(Square::B1, Square::C3), Lenience::CANONICAL));
        assert_eq!(ok(&p, "e2e4").1, Lenience::LONG_ALGEBRAIC);
        assert_eq!(ok(&p, "Pe4").1, Lenience::PAWN_PREFIX);
        assert_eq!(ok(&p, "e4+").1, Lenience::CHECK_MARK);
        assert_eq!(ok(&p, "Ng1f3").1, Lenience::OVER_SPECIFIED);
        assert_eq!(ok(&p, "N1f3").1, Lenience::OVER_SPECIFIED);
        assert_eq!(ok(&p, "Ng1-f3").1, Lenience::LONG_ALGEBRAIC);
        assert_eq!(ok(&p, "Nxf3").1, Lenience::CAPTURE_MARK);
        assert_eq!(resolve(&p, b"e5"), Err(SanError::Illegal));
        assert_eq!(resolve(&p, b"Ke2"), Err(SanError::Illegal));
        assert_eq!(resolve(&p, b"O-O"), Err(SanError::Illegal));
        assert_eq!(resolve(&p, b"N@f3"), Err(SanError::Illegal));
        assert_eq!(resolve(&p, b"--"), Err(SanError::Illegal));
        assert_eq!(resolve(&p, b"e4e5"), Err(SanError::Illegal));

        let p = pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
        assert_eq!(ok(&p, "exd5"), (Move::normal(Square::E4, Square::D5), Lenience::CANONICAL));
        assert_eq!(ok(&p, "ed5").1, Lenience::CAPTURE_MARK);
        assert_eq!(ok(&p, "e4d5").1, Lenience::LONG_ALGEBRAIC | Lenience::CAPTURE_MARK);
        assert_eq!(ok(&p, "exe5").1, Lenience::CAPTURE_MARK | Lenience::OVER_SPECIFIED);
        assert_eq!(resolve(&p, b"dxe5"), Err(SanError::Illegal));
    }

    #[test]
    fn coordinate_notation_moves_pieces_and_castles() {
        let p = Position::default();
        let knight = Move::normal(Square::G1, Square::F3);
        assert_eq!(ok(&p, "g1f3"), (knight, Lenience::LONG_ALGEBRAIC));
        assert_eq!(ok(&p, "g1-f3"), (knight, Lenience::LONG_ALGEBRAIC));
        assert_eq!(ok(&p, "g1xf3"), (knight, Lenience::LONG_ALGEBRAIC | Lenience::CAPTURE_MARK));
        assert_eq!(ok(&p, "g1f3+"), (knight, Lenience::LONG_ALGEBRAIC | Lenience::CHECK_MARK));
        // A lower-case `b` origin square is read as the square, before any bishop reading.
        assert_eq!(ok(&p, "b1c3"), (Move::normal(Square::B1, Square::C3), Lenience::LONG_ALGEBRAIC));
        assert_eq!(resolve(&p, b"g1e2"), Err(SanError::Illegal), "own pawn on e2");
        assert_eq!(resolve(&p, b"d1h5"), Err(SanError::Illegal), "blocked");
        assert_eq!(resolve(&p, b"g8f6"), Err(SanError::Illegal), "their knight");
        assert_eq!(resolve(&p, b"e3e4"), Err(SanError::Illegal), "nothing there");
        assert_eq!(resolve(&p, b"Pg1f3"), Err(SanError::Illegal), "a pawn, written so");

        // Captures by a piece, with and without `x`; a check mark verified as for SAN.
        let p = pos("4k3/8/8/3p4/8/8/8/3QK3 w - - 0 1");
        let take = Move::normal(Square::D1, Square::D5);
        assert_eq!(ok(&p, "d1xd5"), (take, Lenience::LONG_ALGEBRAIC));
        assert_eq!(ok(&p, "d1d5"), (take, Lenience::LONG_ALGEBRAIC | Lenience::CAPTURE_MARK));
        assert_eq!(ok(&p, "d1-d5"), (take, Lenience::LONG_ALGEBRAIC | Lenience::CAPTURE_MARK));
        let p = pos("4k3/8/8/8/8/8/8/3QK3 w - - 0 1");
        assert_eq!(ok(&p, "d1d8+").1, Lenience::LONG_ALGEBRAIC);
        assert_eq!(ok(&p, "d1d8").1, Lenience::LONG_ALGEBRAIC | Lenience::CHECK_MARK);

        // Castling as the king's move, to its square or onto its rook, as UCI writes it.
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        for (text, rook) in [("e1g1", Square::H1), ("e1h1", Square::H1), ("e1c1", Square::A1)] {
            assert_eq!(ok(&p, text), (Move::castle(Square::E1, rook), Lenience::LONG_ALGEBRAIC), "{text}");
        }
        assert_eq!(ok(&p, "e1f1"), (Move::normal(Square::E1, Square::F1), Lenience::LONG_ALGEBRAIC));
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1");
        assert_eq!(resolve(&p, b"e1g1"), Err(SanError::Illegal), "no right to castle");
        // Chess960: the king onto its own rook.
        let p = pos_v("r5kr/8/8/8/8/8/8/RK5R w KQk - 0 1", Variant::Chess960);
        assert_eq!(ok(&p, "b1h1"), (Move::castle(Square::B1, Square::H1), Lenience::LONG_ALGEBRAIC));
    }

    #[test]
    fn ambiguity_and_disambiguation() {
        // Knights on b1 and f3 both reach d2.
        let p = pos("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1");
        assert_eq!(resolve(&p, b"Nd2"), Err(SanError::Ambiguous));
        assert_eq!(ok(&p, "Nbd2"), (Move::normal(Square::B1, Square::D2), Lenience::CANONICAL));
        assert_eq!(ok(&p, "Nfd2"), (Move::normal(Square::F3, Square::D2), Lenience::CANONICAL));
        assert_eq!(ok(&p, "N1d2").1, Lenience::OVER_SPECIFIED);
        assert_eq!(ok(&p, "Nb1d2").1, Lenience::OVER_SPECIFIED);
        assert_eq!(resolve(&p, b"Ncd2"), Err(SanError::Illegal));
        assert_eq!(to_san(&p, Move::normal(Square::B1, Square::D2)), "Nbd2");
        // Rooks on one file: the rank disambiguates.
        let p = pos("4k3/8/8/8/R7/8/8/R3K3 w - - 0 1");
        assert_eq!(to_san(&p, Move::normal(Square::A1, Square::A2)), "R1a2");
        assert_eq!(ok(&p, "R1a2").1, Lenience::CANONICAL);
        assert_eq!(ok(&p, "Ra1a2").1, Lenience::OVER_SPECIFIED);
        assert_eq!(resolve(&p, b"Ra2"), Err(SanError::Ambiguous));
        // Three queens: file and rank.
        let p = pos("6k1/8/8/8/Q2Q4/8/8/Q3K3 w - - 0 1");
        assert_eq!(to_san(&p, Move::normal(Square::A4, Square::D1)), "Qa4d1");
        assert_eq!(to_san(&p, Move::normal(Square::A1, Square::D1)), "Q1d1");
        assert_eq!(to_san(&p, Move::normal(Square::D4, Square::D1)), "Qdd1");
        assert_eq!(resolve(&p, b"Qad1"), Err(SanError::Ambiguous));
        assert_eq!(resolve(&p, b"Q4d1"), Err(SanError::Ambiguous));
        assert_eq!(ok(&p, "Qa4d1").1, Lenience::CANONICAL);
        // A pinned knight does not count for disambiguation.
        let p = pos("4k3/4r3/8/8/8/2N5/4N3/4K3 w - - 0 1");
        assert_eq!(to_san(&p, Move::normal(Square::C3, Square::D5)), "Nd5");
        assert_eq!(ok(&p, "Ncd5").1, Lenience::OVER_SPECIFIED);
    }

    #[test]
    fn pawns_en_passant_promotions() {
        let p = pos("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
        let ep = Move::en_passant(Square::E5, Square::F6);
        assert_eq!(ok(&p, "exf6"), (ep, Lenience::CANONICAL));
        assert_eq!(ok(&p, "exf6e.p."), (ep, Lenience::EN_PASSANT_SUFFIX));
        assert_eq!(ok(&p, "ef6").1, Lenience::CAPTURE_MARK);
        assert_eq!(to_san(&p, ep), "exf6");
        assert_eq!(resolve(&p, b"exd6"), Err(SanError::Illegal));

        let p = pos("3qk3/4P3/8/8/8/8/8/4K3 w - - 0 1");
        assert_eq!(ok(&p, "exd8=N").0, Move::promotion(Square::E7, Square::D8, Role::Knight));
        assert_eq!(ok(&p, "exd8=Q+").0, Move::promotion(Square::E7, Square::D8, Role::Queen));
        assert_eq!(ok(&p, "exd8=Q").1, Lenience::CHECK_MARK);
        assert_eq!(ok(&p, "exd8Q+").1, Lenience::PROMOTION_FORM);
        assert_eq!(ok(&p, "exd8(R)+").1, Lenience::PROMOTION_FORM);
        assert_eq!(to_san(&p, Move::promotion(Square::E7, Square::D8, Role::Knight)), "exd8=N");
        assert_eq!(to_san(&p, Move::promotion(Square::E7, Square::D8, Role::Rook)), "exd8=R+");
        assert_eq!(resolve(&p, b"exd8"), Err(SanError::Illegal));
        assert_eq!(resolve(&p, b"e8=Q"), Err(SanError::Illegal));
        let p = pos("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
        assert_eq!(resolve(&p, b"e4=Q"), Err(SanError::Illegal));
    }

    #[test]
    fn lower_case_b() {
        // A b-pawn can take on c3: `bxc3` is the pawn, with no flag.
        let p = pos("4k3/8/8/8/8/2n5/1P1B4/4K3 w - - 0 1");
        assert_eq!(ok(&p, "bxc3"), (Move::normal(Square::B2, Square::C3), Lenience::CANONICAL));
        assert_eq!(ok(&p, "Bxc3"), (Move::normal(Square::D2, Square::C3), Lenience::CANONICAL));
        // No b-pawn: the bishop, flagged.
        let p = pos("4k3/8/8/8/8/2n5/3B4/4K3 w - - 0 1");
        assert_eq!(ok(&p, "bxc3"), (Move::normal(Square::D2, Square::C3), Lenience::LOWER_CASE_PIECE));
        assert_eq!(
            ok(&p, "bc3"),
            (Move::normal(Square::D2, Square::C3), Lenience::LOWER_CASE_PIECE | Lenience::CAPTURE_MARK)
        );
        assert_eq!(ok(&p, "be3").1, Lenience::LOWER_CASE_PIECE);
        assert_eq!(resolve(&p, b"bxa3"), Err(SanError::Illegal));
    }

    #[test]
    fn castling_standard_and_960() {
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        assert_eq!(ok(&p, "O-O"), (Move::castle(Square::E1, Square::H1), Lenience::CANONICAL));
        assert_eq!(ok(&p, "O-O-O"), (Move::castle(Square::E1, Square::A1), Lenience::CANONICAL));
        assert_eq!(ok(&p, "0-0-0").1, Lenience::CASTLING_FORM);
        assert_eq!(to_san(&p, Move::castle(Square::E1, Square::H1)), "O-O");
        assert_eq!(to_san(&p, Move::castle(Square::E1, Square::A1)), "O-O-O");
        // A king move is never castling.
        assert_eq!(resolve(&p, b"Kg1"), Err(SanError::Illegal));
        assert_eq!(resolve(&p, b"Kxh1"), Err(SanError::Illegal));
        assert_eq!(ok(&p, "Kf1").0, Move::normal(Square::E1, Square::F1));
        // Castling giving check and mate.
        let p = pos("5k2/8/8/8/8/8/8/4K2R w K - 0 1");
        assert_eq!(to_san(&p, Move::castle(Square::E1, Square::H1)), "O-O+");
        // Chess960: king b1, rook a1 and h1; `Kxe1`-style text never castles.
        let p = pos_v("r5kr/8/8/8/8/8/8/RK5R w KQk - 0 1", Variant::Chess960);
        assert_eq!(ok(&p, "O-O-O").0, Move::castle(Square::B1, Square::A1));
        assert_eq!(ok(&p, "O-O").0, Move::castle(Square::B1, Square::H1));
        assert_eq!(resolve(&p, b"Kxa1"), Err(SanError::Illegal));
        assert_eq!(ok(&p, "Kc1").0, Move::normal(Square::B1, Square::C1));
        assert_eq!(to_san(&p, Move::castle(Square::B1, Square::A1)), "O-O-O");
        // King already on its destination (g1), rook h1: O-O only moves the rook.
        let p = pos_v("6k1/8/8/8/8/8/8/6KR w K - 0 1", Variant::Chess960);
        assert_eq!(ok(&p, "O-O"), (Move::castle(Square::G1, Square::H1), Lenience::CANONICAL));
        assert_eq!(to_san(&p, Move::castle(Square::G1, Square::H1)), "O-O");
        // Kxe1 a real capture next to an unrelated castling right.
        let p = pos("4k3/8/8/8/8/8/8/3rK2R w K - 0 1");
        assert_eq!(ok(&p, "Kxd1").0, Move::normal(Square::E1, Square::D1));
        assert_eq!(resolve(&p, b"O-O"), Err(SanError::Illegal));
        // Castling through check is illegal.
        let p = pos("4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1");
        assert_eq!(resolve(&p, b"O-O"), Err(SanError::Illegal));
    }

    #[test]
    fn check_and_mate_suffixes() {
        // Scholar's mate.
        let p = pos("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4");
        let m = Move::normal(Square::F3, Square::F7);
        assert_eq!(to_san(&p, m), "Qxf7#");
        assert_eq!(ok(&p, "Qxf7#"), (m, Lenience::CANONICAL));
        assert_eq!(ok(&p, "Qxf7+").1, Lenience::CHECK_MARK);
        assert_eq!(ok(&p, "Qxf7").1, Lenience::CHECK_MARK);
        assert_eq!(ok(&p, "Qxf7++").1, Lenience::CHECK_MARK);
        // A check that is not mate.
        let p = pos("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
        assert_eq!(to_san(&p, Move::normal(Square::A1, Square::A8)), "Ra8+");
        assert_eq!(ok(&p, "Ra8#").1, Lenience::CHECK_MARK);
        assert_eq!(ok(&p, "Ra8+").1, Lenience::CANONICAL);
    }

    #[test]
    fn discovered_and_special_checks() {
        // Discovered check by a bishop when the knight moves.
        let p = pos("7k/8/8/8/8/2N5/1B6/4K3 w - - 0 1");
        assert_eq!(to_san(&p, Move::normal(Square::C3, Square::E4)), "Ne4+");
        // En passant uncovering a rook check along the rank.
        let p = pos("8/8/8/K2pP2k/8/8/8/8 w - d6 0 1");
        assert_eq!(to_san(&p, Move::en_passant(Square::E5, Square::D6)), "exd6");
        let p = pos("8/8/8/R2pP2k/8/8/8/K7 w - d6 0 1");
        assert_eq!(to_san(&p, Move::en_passant(Square::E5, Square::D6)), "exd6+");
        // Promotion to a knight giving check.
        let p = pos("8/4P1k1/8/8/8/8/8/K7 w - - 0 1");
        assert_eq!(to_san(&p, Move::promotion(Square::E7, Square::E8, Role::Knight)), "e8=N+");
        assert_eq!(to_san(&p, Move::promotion(Square::E7, Square::E8, Role::Queen)), "e8=Q");
    }

    #[test]
    fn drops() {
        let p = pos_v("2k5/8/8/8/8/8/8/4K3[QNPqn] w - - 0 1", Variant::Crazyhouse);
        assert_eq!(ok(&p, "N@f3"), (Move::drop(Role::Knight, Square::F3), Lenience::CANONICAL));
        assert_eq!(ok(&p, "P@e4"), (Move::drop(Role::Pawn, Square::E4), Lenience::CANONICAL));
        assert_eq!(ok(&p, "@e4"), (Move::drop(Role::Pawn, Square::E4), Lenience::PAWN_DROP_LETTER));
        assert_eq!(ok(&p, "Q@c6+").0, Move::drop(Role::Queen, Square::C6));
        assert_eq!(ok(&p, "Q@c6").1, Lenience::CHECK_MARK);
        assert_eq!(to_san(&p, Move::drop(Role::Queen, Square::C6)), "Q@c6+");
        assert_eq!(to_san(&p, Move::drop(Role::Pawn, Square::E4)), "P@e4");
        assert_eq!(resolve(&p, b"R@e4"), Err(SanError::Illegal));
        assert_eq!(resolve(&p, b"P@e8"), Err(SanError::Illegal));
        assert_eq!(resolve(&p, b"N@e1"), Err(SanError::Illegal));
        // The knight in hand is not a knight on the board.
        assert_eq!(resolve(&p, b"Nf3"), Err(SanError::Illegal));
    }

    /// Positions from the fixture perft suites (standard, crazyhouse, Chess960, odd checks), each
    /// with every position one legal move away.
    fn suite_positions() -> Vec<Position> {
        let suites = [
            (include_str!("../../fixtures/perft/tricky.perft"), Variant::Standard),
            (include_str!("../../fixtures/perft/crazyhouse.perft"), Variant::Crazyhouse),
            (include_str!("../../fixtures/perft/chess960-first100.perft"), Variant::Chess960),
            (include_str!("../../fixtures/perft/impossible-checker.perft"), Variant::Standard),
        ];
        let mut positions = Vec::new();
        for (text, variant) in suites {
            for epd in text.lines().filter_map(|l| l.strip_prefix("epd ")).take(30) {
                let p = match position_from_fen(epd, variant) {
                    Ok(p) => p,
                    Err(crate::notation::FenError::Position(e)) => {
                        match e.ignore_impossible_check().or_else(|e| e.ignore_too_much_material()) {
                            Ok(p) => p,
                            Err(_) => continue,
                        }
                    }
                    Err(e) => panic!("{epd}: {e}"),
                };
                for &m in p.legal_moves().iter() {
                    let mut c = p;
                    c.play_unchecked(m);
                    positions.push(c);
                }
                positions.push(p);
            }
        }
        assert!(positions.len() > 1000);
        positions
    }

    /// The mate test (with its shortcut: a safe king step means check) agrees with the full
    /// generator in every position in check among the suite positions and the positions one move
    /// on.
    #[test]
    fn check_or_mate_agrees_with_the_generator() {
        let mut seen = [0; 2];
        for p in suite_positions() {
            let mut in_check = vec![p];
            in_check.extend(p.legal_moves().iter().map(|&m| {
                let mut c = p;
                c.play_unchecked(m);
                c
            }));
            for q in in_check.into_iter().filter(Position::is_check) {
                let want = if q.count_legal() > 0 { Suffix::Check } else { Suffix::Checkmate };
                assert_eq!(check_or_mate_after(&q), want, "{q:?}");
                seen[usize::from(want == Suffix::Checkmate)] += 1;
            }
        }
        assert!(seen[0] > 1000 && seen[1] > 20, "checks {} mates {}", seen[0], seen[1]);
    }

    #[test]
    fn play_is_to_move_then_play_unchecked() {
        let positions = suite_positions();
        let step = if cfg!(debug_assertions) { 20 } else { 2 };
        let mut played = 0;
        for p in positions.iter().step_by(step) {
            for &m in p.legal_moves().iter() {
                let san = san_of(p, m).san;
                let (mut by_san, mut by_move) = (*p, *p);
                assert_eq!(san.play(&mut by_san), Ok(m), "{san}");
                by_move.play_unchecked(m);
                assert_eq!(format!("{by_san:?}"), format!("{by_move:?}"), "{san}");
                played += 1;
            }
        }
        assert!(played > 10_000, "{played}");
        let mut p = Position::default();
        let before = format!("{p:?}");
        assert_eq!("Nf6".parse::<San>().unwrap().play(&mut p), Err(SanError::Illegal));
        assert_eq!(format!("{p:?}"), before, "an error leaves the position as it was");
    }

    /// The fast `to_move_flags` answers exactly as the generator-based reference, for every role,
    /// destination, disambiguation, capture mark and promotion, in the perft suite positions and
    /// their children.
    #[test]
    fn fast_resolution_matches_generator() {
        let positions = suite_positions();
        // About 400 positions (50 in debug builds), spread over the suites.
        let step = positions.len() / if cfg!(debug_assertions) { 50 } else { 400 };
        let mut checked = 0u64;
        for p in positions.iter().step_by(step.max(1)) {
            for role in [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King] {
                let ours = p.board().by_piece(role.of(p.turn()));
                let files: Vec<Option<File>> =
                    std::iter::once(None).chain(ours.into_iter().map(|s| Some(s.file()))).collect();
                let ranks: Vec<Option<Rank>> =
                    std::iter::once(None).chain(ours.into_iter().map(|s| Some(s.rank()))).collect();
                for to in (0..64).map(Square::new) {
                    for &file in &files {
                        for &rank in &ranks {
                            for promotion in [None, Some(Role::Queen), Some(Role::Knight), Some(Role::King)] {
                                for capture in [false, true] {
                                    let san = San::Normal { role, file, rank, capture, to, promotion };
                                    assert_eq!(
                                        to_move_flags(p, p.checkers(), &san),
                                        to_move_flags_reference(p, &san),
                                        "{san} in {}",
                                        crate::notation::write_fen(p, crate::notation::EpMode::Always)
                                    );
                                    checked += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 1_000_000, "{checked}");
    }

    /// A token that resolves with nothing non-canonical, its check mark verified as the replayer
    /// verifies it, is the canonical SAN byte for byte (jobs copy such tokens instead of writing
    /// the SAN): checked over lenient rewritings of every legal move's SAN in suite positions.
    #[test]
    fn a_token_resolved_as_canonical_is_the_canonical_san() {
        let positions = suite_positions();
        let step = if cfg!(debug_assertions) { 40 } else { 4 };
        let (mut canonical_seen, mut lenient_seen) = (0, 0);
        for p in positions.iter().step_by(step) {
            for &m in p.legal_moves().iter() {
                let canonical = san_of(p, m).to_string();
                let bare = canonical.trim_end_matches(['+', '#']);
                let mut texts =
                    vec![canonical.clone(), bare.to_string(), format!("{bare}+"), format!("{bare}#")];
                texts.push(format!("{canonical}+"));
                texts.push(bare.replace('x', ""));
                texts.push(bare.replace('=', ""));
                texts.push(bare.replace('O', "0"));
                texts.push(format!("P{bare}"));
                texts.push(format!("{bare} e.p."));
                texts.push(format!("{bare}e.p."));
                texts.push(format!("{bare}ep"));
                if let Some(from) = m.from() {
                    let (f, r) = (from.file().char(), from.rank().char());
                    let (head, tail) = bare.split_at(usize::from(bare.starts_with(char::is_uppercase)));
                    let tail = tail.trim_start_matches(|c: char| c.is_ascii_lowercase() && tail.len() > 2);
                    for extra in [format!("{f}"), format!("{r}"), format!("{f}{r}")] {
                        texts.push(format!("{head}{extra}{tail}"));
                        texts.push(format!("{head}{extra}x{}", tail.trim_start_matches('x')));
                    }
                    texts.push(bare.to_ascii_lowercase());
                }
                for text in texts {
                    let Ok(r) = resolve_in(p, p.checkers(), text.as_bytes()) else { continue };
                    let mut after = *p;
                    after.play_unchecked(r.mv);
                    let verified = suffix_after(&after, after.checkers()) == r.suffix;
                    if r.mv == m && r.lenience.is_canonical() && verified {
                        assert_eq!(
                            text,
                            canonical,
                            "in {}",
                            crate::notation::write_fen(p, crate::notation::EpMode::Always)
                        );
                        canonical_seen += 1;
                    } else {
                        lenient_seen += 1;
                    }
                }
            }
        }
        assert!(canonical_seen > 10_000 && lenient_seen > 50_000, "{canonical_seen} {lenient_seen}");
    }

    #[test]
    fn to_move_and_write() {
        let p = Position::default();
        let san: San = "Nf3".parse().unwrap();
        assert_eq!(san.to_move(&p), Ok(Move::normal(Square::G1, Square::F3)));
        assert_eq!(San::Null.to_move(&p), Err(SanError::Illegal));
        let mut out = b"1. ".to_vec();
        write_san_into(&p, Move::normal(Square::G1, Square::F3), &mut out);
        assert_eq!(out, b"1. Nf3");
        assert_eq!(sq("e4"), Square::E4);
        assert_eq!(SanError::from(ParseSanError::Syntax), SanError::Syntax);
    }
}
