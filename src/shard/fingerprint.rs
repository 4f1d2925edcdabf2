//! An input's fingerprint: its size and an XXH3-128 digest of sampled blocks (the first and last
//! MiB and six MiB spread between), so every shard computes it in milliseconds whatever the
//! input's size. It detects a changed size, and any change inside the sampled blocks (a file
//! replaced by another, appended to, truncated, re-exported); it does not detect an edit of the
//! same length that falls wholly between the samples.

use std::fs::File;
use std::io;
use std::path::Path;

use xxhash_rust::xxh3::Xxh3;

/// Bytes in each sampled block.
const BLOCK: u64 = 1 << 20;
/// Blocks sampled between the first and the last.
const INNER: u64 = 6;

/// The fingerprint of the file at `path`: `SIZE:DIGEST` (the digest in hex).
pub fn fingerprint(path: &Path) -> io::Result<String> {
    let file = File::open(path)?;
    let size = file.metadata()?.len();
    Ok(format!("{size}:{:032x}", sampled_digest(&file, size)?))
}

/// The offsets of the sampled blocks of a file of `size` bytes (the whole file when small).
fn samples(size: u64) -> Vec<u64> {
    if size <= (INNER + 2) * BLOCK {
        return (0..size.div_ceil(BLOCK)).map(|i| i * BLOCK).collect();
    }
    let last = size - BLOCK;
    let mut at: Vec<u64> = (0..=INNER + 1).map(|i| last / (INNER + 1) * i).collect();
    at[INNER as usize + 1] = last;
    at
}

fn sampled_digest(file: &File, size: u64) -> io::Result<u128> {
    let mut hasher = Xxh3::new();
    hasher.update(&size.to_le_bytes());
    let mut buf = vec![0u8; BLOCK as usize];
    for at in samples(size) {
        let len = BLOCK.min(size - at) as usize;
        read_at(file, &mut buf[..len], at)?;
        hasher.update(&buf[..len]);
    }
    Ok(hasher.digest128())
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, at)
}

#[cfg(not(unix))]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = file;
    f.seek(SeekFrom::Start(at))?;
    f.read_exact(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_cover_small_files_and_spread_over_large_ones() {
        assert_eq!(samples(0), Vec::<u64>::new());
        assert_eq!(samples(10), vec![0]);
        assert_eq!(samples(3 * BLOCK + 1), vec![0, BLOCK, 2 * BLOCK, 3 * BLOCK]);
        let s = samples(100 * BLOCK + 7);
        assert_eq!(s.len(), 8);
        assert_eq!((s[0], s[7]), (0, 99 * BLOCK + 7));
        assert!(s.windows(2).all(|w| w[0] + BLOCK <= w[1]), "disjoint, in order: {s:?}");
    }

    #[test]
    fn a_change_of_content_or_size_changes_it() {
        let dir = std::env::temp_dir().join(format!("pgnkit-fp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("a.pgn");
        std::fs::write(&path, b"[Event \"a\"]\n1. e4 *\n").expect("write");
        let a = fingerprint(&path).expect("fingerprint");
        assert!(a.starts_with("20:"), "{a}");
        std::fs::write(&path, b"[Event \"b\"]\n1. e4 *\n").expect("write");
        let b = fingerprint(&path).expect("fingerprint");
        std::fs::write(&path, b"[Event \"b\"]\n1. e4 *\n\n").expect("write");
        let c = fingerprint(&path).expect("fingerprint");
        assert!(a != b && b != c && a != c);
        assert_eq!(c, fingerprint(&path).expect("fingerprint"));
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
