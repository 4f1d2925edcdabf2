//! The piece-placement field a whole rank at a time: each rank's text from its occupancy and
//! piece-code bytes (an SSSE3 byte shuffle where the build has AVX2, a portable loop elsewhere),
//! shared by the plain writers and [`FenWriter`](super::FenWriter).

use crate::chess::{Board, Color};

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
