//! [`FenWriter`]: the FENs (or EPDs) of a sequence of positions, each rank's text kept until its
//! pieces change, and the whole-rank rendering the plain writers share (an SSSE3 byte shuffle
//! where the build has AVX2, a portable loop elsewhere).

use crate::chess::{Bitboard, Board, Color, Position, Variant};

use super::EpMode;
use super::write::{StackBuf, ep_square, write_castling, write_position};
use crate::notation::TextBuf;

/// Writes the FENs (or EPDs) of a sequence of positions, such as the positions of a game,
/// reusing the text of every rank whose pieces did not change since the previous call: the same
/// bytes as [`write_fen`](super::write_fen) / [`write_epd`](super::write_epd), several times
/// faster when consecutive positions differ by a move (one or two ranks). Crazyhouse positions
/// take the plain path.
///
/// ```
/// use pgnkit::notation::{FenWriter, write_fen, EpMode};
/// use pgnkit::chess::Position;
/// let (mut a, mut b) = (Vec::new(), Vec::new());
/// FenWriter::new().write_fen(&Position::default(), EpMode::Legal, &mut a);
/// write_fen(&Position::default(), EpMode::Legal, &mut b);
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
pub(super) const CODE_LETTERS: [u8; 16] = *b"?PNBRQK??pnbrqk?";

/// The occupancy and the four piece-code planes of `board`: a square's code (see
/// [`CODE_LETTERS`]) has bit `i` set where plane `i + 1` has it.
#[inline(always)]
pub(super) fn code_planes(board: &Board) -> [u64; 5] {
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
pub(super) fn place_ranks(buf: &mut [u8], mut rank: impl FnMut(usize) -> (u64, u8)) -> usize {
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
pub(super) fn render_rank(planes: [u8; 5]) -> (u64, u8) {
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

    /// Appends the FEN of `pos` to `out`, exactly as [`write_fen`](super::write_fen).
    #[inline]
    pub fn write_fen(&mut self, pos: &Position, ep: EpMode, out: &mut impl TextBuf) {
        out.append_with(|out| self.write(pos, ep, true, out));
    }

    /// Appends the four EPD fields of `pos` to `out`, exactly as [`write_epd`](super::write_epd).
    #[inline]
    pub fn write_epd(&mut self, pos: &Position, ep: EpMode, out: &mut impl TextBuf) {
        out.append_with(|out| self.write(pos, ep, false, out));
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
