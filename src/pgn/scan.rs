//! Short byte searches for the reader: the first of a few bytes within a handful of bytes (a
//! clock comment's `}`, a tag value's closing quote). `memchr` is built for long haystacks and
//! is a call with setup; these searches end within the first 32 bytes almost always, so one
//! inline AVX2 compare answers them.

/// Position of the first byte of `text` that is one of `needles`.
#[inline(always)]
pub(crate) fn find_any<const N: usize>(text: &[u8], needles: [u8; N]) -> Option<usize> {
    // Whole 32-byte blocks with AVX2, then the rest a byte at a time.
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    let at = {
        let mut at = 0;
        while let Some(block) = text.get(at..at + 32) {
            let hits = mask32(block, needles);
            if hits != 0 {
                return Some(at + hits.trailing_zeros() as usize);
            }
            at += 32;
        }
        at
    };
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    let at = 0;
    find_any_portable(&text[at..], needles).map(|i| at + i)
}

/// [`find_any`] a byte at a time (the tail after the last full block, other machines, tests).
#[inline(always)]
fn find_any_portable<const N: usize>(text: &[u8], needles: [u8; N]) -> Option<usize> {
    text.iter().position(|b| needles.contains(b))
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

#[cfg(test)]
mod tests {
    use super::*;

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
