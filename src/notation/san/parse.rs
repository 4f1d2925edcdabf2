//! Text -> [`San`]: a table-driven parser for the canonical forms (nearly every move of real
//! files) and a general parser for every lenient form the module docs list. Both give the same
//! answer for every text the first one reads (a test enumerates short texts).

use std::str::FromStr;

use crate::chess::{Bitboard, CastlingSide, File, Rank, Role, Square};

use super::{Lenience, ParseSanError, San, SanPlus, Suffix};

/// A parse: the SAN as read, its flags, and for a lower-case `b` read as a pawn file, the bishop
/// reading to try when no pawn can make the move.
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(super) struct Parsed {
    pub(super) san: SanPlus,
    pub(super) flags: Lenience,
    pub(super) bishop: Option<(San, Lenience)>,
}

#[inline(always)]
pub(super) fn square_at(t: &[u8]) -> Option<Square> {
    match (File::from_char(t[0]), Rank::from_char(t[1])) {
        (Some(f), Some(r)) => Some(Square::from_coords(f, r)),
        _ => None,
    }
}

/// Strips `+`, `#`, `++` from the end.
#[inline(always)]
pub(super) fn strip_check(t: &[u8], flags: &mut Lenience) -> (usize, Option<Suffix>) {
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
pub(super) static FIRST_BYTE_ROLE: [Option<Role>; 256] = {
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
pub(super) fn suffix_mark(last: u8) -> Option<Suffix> {
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
pub(super) struct Canonical {
    pub(super) role: Role,
    pub(super) file: Option<File>,
    pub(super) rank: Option<Rank>,
    pub(super) capture: bool,
    pub(super) to: Square,
    pub(super) promotion: Option<Role>,
    pub(super) suffix: Option<Suffix>,
    pub(super) origins: Bitboard,
}

/// Canonical SAN of a normal move, or `None` for anything else (which [`parse_general`] reads:
/// it gives the same answer for every text this one reads).
#[inline(always)]
pub(super) fn parse_canonical(text: &[u8]) -> Option<Canonical> {
    parse_canonical_with::<false>(text)
}

/// [`parse_canonical`], reading the piece letter from [`FIRST_BYTE_ROLE`] when `TABLE` (the
/// resolver keeps the `match`, whose jump the compiler threads into its own dispatch on the
/// role: measured, the table slowed it).
#[inline(always)]
pub(super) fn parse_canonical_with<const TABLE: bool>(text: &[u8]) -> Option<Canonical> {
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
    pub(super) fn parsed(self) -> Parsed {
        let Canonical { role, file, rank, capture, to, promotion, suffix, .. } = self;
        let san = San::Normal { role, file, rank, capture, to, promotion };
        Parsed { san: SanPlus { san, suffix }, flags: Lenience::CANONICAL, bishop: None }
    }
}

pub(super) fn parse_general(text: &[u8]) -> Option<Parsed> {
    parse_english(text).or_else(|| other_piece_letters(text))
}

/// The longest text [`parse_english`] reads.
const ENGLISH_MAX: usize = 16;

/// [`parse_general`] of SAN with English piece letters.
fn parse_english(text: &[u8]) -> Option<Parsed> {
    if text.is_empty() || text.len() > ENGLISH_MAX {
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

/// [`parse_general`] of `text` written with German piece letters or figurines, read as English
/// ones. Only text no other reading takes comes here, so an English move never pays for it.
#[cold]
#[inline(never)]
fn other_piece_letters(text: &[u8]) -> Option<Parsed> {
    let english = english_pieces(text)?;
    let mut parsed = parse_english(&english)?;
    parsed.flags |= Lenience::OTHER_PIECE_LETTERS;
    if let Some((_, flags)) = &mut parsed.bishop {
        *flags |= Lenience::OTHER_PIECE_LETTERS;
    }
    Some(parsed)
}

/// `text` with German piece letters (`S`, `L`, `T`, `D`) and figurines (U+2654..U+265F, either
/// colour) as English letters; `None` when it holds neither, or is longer than any move can be
/// (not copied: a word of the whole game is no move). No English SAN holds these upper-case
/// letters, and files are lower-case, so each is a piece wherever it stands.
pub(crate) fn english_pieces(text: &[u8]) -> Option<Vec<u8>> {
    // A figurine is 3 bytes and becomes one letter.
    if text.len() > 3 * ENGLISH_MAX {
        return None;
    }
    const FIGURINES: [u8; 6] = *b"KQRBNP";
    let mut out = Vec::with_capacity(text.len());
    let mut changed = false;
    let mut i = 0;
    while i < text.len() {
        let letter = match text[i..] {
            [0xe2, 0x99, b @ 0x94..=0x9f, ..] => {
                i += 2;
                Some(FIGURINES[usize::from(b - 0x94) % 6])
            }
            [b'S', ..] => Some(b'N'),
            [b'L', ..] => Some(b'B'),
            [b'T', ..] => Some(b'R'),
            [b'D', ..] => Some(b'Q'),
            _ => None,
        };
        changed |= letter.is_some();
        out.push(letter.unwrap_or(text[i]));
        i += 1;
    }
    changed.then_some(out)
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
    /// are only found by [`parse_san`](super::parse_san).
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
}

impl SanPlus {
    /// Parses SAN with its suffix (see [`San::from_ascii`]).
    pub fn from_ascii(text: &[u8]) -> Result<(SanPlus, Lenience), ParseSanError> {
        San::from_ascii(text)
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

/// The origin squares a SAN's disambiguation allows (every square when it gives none).
#[inline(always)]
pub(super) fn allowed_origins(file: Option<File>, rank: Option<Rank>) -> Bitboard {
    file.map_or(Bitboard::FULL, Bitboard::file) & rank.map_or(Bitboard::FULL, Bitboard::rank)
}
