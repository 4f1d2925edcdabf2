//! Short byte searches for the reader: the first of a few bytes within a handful of bytes (a
//! clock comment's `}`, a tag value's closing quote), and the first byte of a [`ByteSet`] (the
//! end of a SAN token), and the same as bit masks of a 64-byte block for the reader's window.
//! `memchr` is built for long haystacks and is a call with setup; these searches end within the
//! first 32 or 64 bytes almost always, so one inline SIMD test answers them.

/// Whether a byte of `text` has its high bit set (`text` is not ASCII): an OR of 32-byte blocks,
/// which the vectorizer makes one load and one OR a block, the last block overlapping the one
/// before it instead of a byte loop over the rest.
#[inline]
pub(crate) fn has_high_byte(text: &[u8]) -> bool {
    const BLOCK: usize = 32;
    let or = |block: &[u8]| block.iter().fold(0u8, |acc, &b| acc | b);
    if text.len() < BLOCK {
        return or(text) >= 0x80;
    }
    let mut acc = [0u8; BLOCK];
    for block in text.chunks_exact(BLOCK) {
        acc.iter_mut().zip(block).for_each(|(a, &b)| *a |= b);
    }
    (or(&acc) | or(&text[text.len() - BLOCK..])) >= 0x80
}

/// Position of the first byte of `text` that is one of `needles`.
#[inline(always)]
pub(crate) fn find_any<const N: usize>(text: &[u8], needles: [u8; N]) -> Option<usize> {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    return first_hit::<32>(text, |block| u64::from(mask32(block, needles)), |b| needles.contains(&b));
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    text.iter().position(|b| needles.contains(b))
}

/// Bit `i` set where `block[i]` is one of `needles`, for a 64-byte block.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
pub(crate) fn mask64_of<const N: usize>(block: &[u8; 64], needles: [u8; N]) -> u64 {
    u64::from(mask32(&block[..32], needles)) | u64::from(mask32(&block[32..], needles)) << 32
}

/// The first byte of `text` that `is_hit`, searched in whole `W`-byte blocks by `mask` (bit `i`
/// set where `block[i]` is a hit), then a byte at a time in the rest.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
fn first_hit<const W: usize>(
    text: &[u8],
    mask: impl Fn(&[u8]) -> u64,
    is_hit: impl Fn(u8) -> bool,
) -> Option<usize> {
    let mut at = 0;
    while let Some(block) = text.get(at..at + W) {
        let hits = mask(block);
        if hits != 0 {
            return Some(at + hits.trailing_zeros() as usize);
        }
        at += W;
    }
    text[at..].iter().position(|&b| is_hit(b)).map(|i| at + i)
}

/// Bit `i` set where `block[i]` is one of `needles`; `block` is 32 bytes.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
fn mask32<const N: usize>(block: &[u8], needles: [u8; N]) -> u32 {
    use std::arch::x86_64::*;
    assert_eq!(block.len(), 32);
    // SAFETY: AVX2 is enabled for this build (the cfg above), and the load reads the 32 bytes
    // of `block` (checked above), with no alignment requirement.
    #[allow(unsafe_code)]
    unsafe {
        let v = _mm256_loadu_si256(block.as_ptr().cast());
        let mut hits = _mm256_setzero_si256();
        for c in needles {
            hits = _mm256_or_si256(hits, _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8)));
        }
        _mm256_movemask_epi8(hits) as u32
    }
}

/// A set of bytes, with the nibble tables that test 16 bytes for membership at once: a byte is
/// in the set when the bits its low nibble selects and those its high nibble selects meet. Each
/// distinct non-empty row (the 16 bytes that share a high nibble) gets one of 8 bits, so a set
/// with more than 8 distinct rows does not compile.
pub(crate) struct ByteSet {
    member: [bool; 256],
    #[cfg_attr(not(all(target_arch = "x86_64", target_feature = "avx2")), allow(dead_code))]
    low: [i8; 16],
    #[cfg_attr(not(all(target_arch = "x86_64", target_feature = "avx2")), allow(dead_code))]
    high: [i8; 16],
}

impl ByteSet {
    /// The set of the bytes `b` with `member[b]`.
    pub(crate) const fn new(member: [bool; 256]) -> ByteSet {
        let (mut low, mut high) = ([0i8; 16], [0i8; 16]);
        // rows[k]: the k-th distinct non-empty row, as a 16-bit mask over low nibbles.
        let mut rows = [0u16; 8];
        let mut used = 0;
        let mut hi = 0;
        while hi < 16 {
            let mut row = 0u16;
            let mut lo = 0;
            while lo < 16 {
                if member[hi * 16 + lo] {
                    row |= 1 << lo;
                }
                lo += 1;
            }
            if row != 0 {
                let mut k = 0;
                while k < used && rows[k] != row {
                    k += 1;
                }
                if k == used {
                    assert!(used < 8, "more than 8 distinct nibble rows");
                    rows[k] = row;
                    used += 1;
                }
                high[hi] |= (1u8 << k) as i8;
                let mut lo = 0;
                while lo < 16 {
                    if row & (1 << lo) != 0 {
                        low[lo] |= (1u8 << k) as i8;
                    }
                    lo += 1;
                }
            }
            hi += 1;
        }
        ByteSet { member, low, high }
    }

    /// Whether `b` is in the set.
    #[inline(always)]
    pub(crate) const fn contains(&self, b: u8) -> bool {
        self.member[b as usize]
    }

    /// Position of the first byte of `text` in the set, or `text.len()`: 64 bytes at a time by
    /// [`mask64`](Self::mask64), then a byte at a time.
    #[inline(always)]
    pub(crate) fn find_in(&self, text: &[u8]) -> usize {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        let found = first_hit::<64>(
            text,
            |block| self.mask64(block.try_into().expect("64 bytes")),
            |b| self.contains(b),
        );
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
        let found = text.iter().position(|&b| self.contains(b));
        found.unwrap_or(text.len())
    }

    /// Bit `i` set where `block[i]` is in the set, for a 64-byte block.
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    #[inline(always)]
    pub(crate) fn mask64(&self, block: &[u8; 64]) -> u64 {
        use std::arch::x86_64::*;
        // SAFETY: AVX2 is enabled for this build (the cfg above); the loads read the 64 bytes of
        // `block` and the 16 of each table, with no alignment requirement.
        #[allow(unsafe_code)]
        unsafe {
            let nibble = _mm256_set1_epi8(0x0f);
            let low_table = _mm256_broadcastsi128_si256(_mm_loadu_si128(self.low.as_ptr().cast()));
            let high_table = _mm256_broadcastsi128_si256(_mm_loadu_si128(self.high.as_ptr().cast()));
            let half = |at: usize| {
                let v = _mm256_loadu_si256(block.as_ptr().add(at).cast());
                let low = _mm256_shuffle_epi8(low_table, _mm256_and_si256(v, nibble));
                let high =
                    _mm256_shuffle_epi8(high_table, _mm256_and_si256(_mm256_srli_epi16::<4>(v), nibble));
                let outside = _mm256_cmpeq_epi8(_mm256_and_si256(low, high), _mm256_setzero_si256());
                !(_mm256_movemask_epi8(outside) as u32) as u64
            };
            half(0) | half(32) << 32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn high_bytes_are_found_at_any_place_and_length() {
        for len in [0, 1, 31, 32, 33, 63, 64, 65, 100, 1000] {
            let mut text = vec![b'a'; len];
            assert!(!has_high_byte(&text), "{len}");
            for at in 0..len {
                text[at] = 0x80;
                assert!(has_high_byte(&text), "{len} {at}");
                text[at] = 0x7f;
            }
        }
    }

    /// A set with many distinct nibble rows (every byte whose bit count is odd, and a few more).
    const ODD: ByteSet = {
        let mut t = [false; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = (i as u8).count_ones() % 2 == 1 && (i >> 4) % 3 != 0;
            i += 1;
        }
        ByteSet::new(t)
    };
    const SPACE: ByteSet = {
        let mut t = [false; 256];
        t[b' ' as usize] = true;
        t[b'"' as usize] = true;
        ByteSet::new(t)
    };

    #[test]
    fn byte_set_finds_what_a_byte_scan_finds() {
        // Every byte value, at every place in and past a 64-byte block, after bytes outside.
        for set in [&ODD, &SPACE] {
            let filler = (0..=255u8).find(|&b| !set.contains(b)).expect("a byte outside");
            for b in 0..=255u8 {
                for at in [0, 1, 7, 15, 16, 17, 31, 33, 63, 64, 65, 100] {
                    for len in [at + 1, 20, 40, 64, 70, 130] {
                        let mut t = vec![filler; len.max(at + 1)];
                        t[at] = b;
                        let want = t.iter().position(|&c| set.contains(c)).unwrap_or(t.len());
                        assert_eq!(set.find_in(&t), want, "byte {b:#x} at {at} in {len}");
                    }
                }
            }
            assert_eq!(set.find_in(b""), 0);
        }
        assert_eq!(SPACE.find_in(b"Event \"x\""), 5);
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    #[test]
    fn mask64_marks_what_contains_does() {
        for set in [&ODD, &SPACE] {
            let filler = (0..=255u8).find(|&b| !set.contains(b)).expect("a byte outside");
            for b in 0..=255u8 {
                for at in [0, 1, 15, 16, 31, 32, 33, 47, 48, 62, 63] {
                    let mut block = [filler; 64];
                    block[at] = b;
                    block[(at + 17) % 64] = b;
                    let want = (0..64).filter(|&i| set.contains(block[i])).fold(0u64, |m, i| m | 1 << i);
                    assert_eq!(set.mask64(&block), want, "byte {b:#x} at {at}");
                }
            }
        }
    }

    #[test]
    fn find_any_agrees_with_a_byte_scan() {
        let needles = [b'}', b'\n', b'\r'];
        for len in [0, 1, 31, 32, 33, 63, 64, 65, 100, 200] {
            for hit in [None, Some(0), Some(5), Some(31), Some(32), Some(63), Some(64), Some(150)] {
                for second in [None, Some(3), Some(40), Some(99)] {
                    for &c in &needles {
                        let mut t = vec![b'x'; len];
                        for at in [hit, second].into_iter().flatten().filter(|&i| i < len) {
                            t[at] = c;
                        }
                        let want = t.iter().position(|b| needles.contains(b));
                        assert_eq!(find_any(&t, needles), want, "{t:?}");
                    }
                }
            }
        }
        // Bytes that differ from a needle only in the high bit or by case are not hits.
        let t = [0xfd, b'}' ^ 0x20, b'"'];
        assert_eq!(find_any(&t, [b'}', b'"']), Some(2));
        assert_eq!(find_any(&[b' '; 64], [b'}']), None);
    }
}
