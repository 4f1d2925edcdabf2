//! Replays the fuzz seed corpora on stable: every file under `fixtures/fuzz/<target>/` through the
//! same property functions the cargo-fuzz targets run (`tests/fuzz/src/checks.rs`, included by
//! path in `main.rs` so there is one copy), plus deterministic mutations of each seed (byte flips,
//! insertions, deletions, splices), so `cargo test` fuzzes a little without nightly.
//! The PGN targets also get every file of `fixtures/pgn/`.

use std::path::{Path, PathBuf};

use pgnkit::chess::{Position, Variant};

use crate::checks;

/// Mutations per seed.
const MUTATIONS: usize = if cfg!(debug_assertions) { 8 } else { 256 };

fn seeds(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/fuzz").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files.into_iter().map(|p| (p.clone(), std::fs::read(&p).unwrap())).collect()
}

/// xorshift64: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A few random edits of `seed`, with bytes from `other` for splices and "interesting" bytes.
fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    const INTERESTING: &[u8] = b" \n\r\t[]{}()\";%$!?+#=x-/0123456789abcdefghKQRBNPkqrbnp@O*.\0\xff";
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(5) {
            0 if at < v.len() => v[at] ^= 1 << rng.below(8),
            1 if at < v.len() => v[at] = INTERESTING[rng.below(INTERESTING.len())],
            2 => v.insert(at, INTERESTING[rng.below(INTERESTING.len())]),
            3 if at < v.len() => {
                let n = rng.below((v.len() - at).min(8)) + 1;
                v.drain(at..at + n);
            }
            _ if !other.is_empty() => {
                let from = rng.below(other.len());
                let n = rng.below((other.len() - from).min(32)) + 1;
                v.splice(at..at, other[from..from + n].iter().copied());
            }
            _ => {}
        }
    }
    v
}

/// Runs `target`'s property over every seed (and `extra`) and its mutations; returns the runs.
/// Seeds are shared out, two sharers a core: the PGN targets hand chunks of a few bytes between
/// pipeline threads, so one run at a time mostly waits for wakeups (`speculative` alone: 8 s
/// one seed at a time, 4 s shared; `docs/performance.md`, "Tooling and tests").
fn replay(target: &str, extra: &[(PathBuf, Vec<u8>)]) -> usize {
    let (_, check) = *checks::TARGETS.iter().find(|(t, _)| *t == target).expect("known target");
    let mut all = seeds(target);
    assert!(!all.is_empty(), "no seeds for {target}");
    all.extend(extra.iter().cloned());
    let all = &all;
    // Each seed's mutations come from its own generator, so they do not depend on the sharing.
    let one_seed = |i: usize| -> usize {
        let (path, bytes) = &all[i];
        let run = |input: &[u8], what: &str| {
            if let Err(e) = std::panic::catch_unwind(|| check(input)) {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                panic!(
                    "{target}: {what} of {} failed: {msg}\ninput: {:?}",
                    path.display(),
                    input.escape_ascii().to_string()
                );
            }
        };
        run(bytes, "seed");
        // Large files are replayed as they are only.
        if bytes.len() > 4096 {
            return 1;
        }
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ ((target.len() as u64) << 32) ^ (i as u64 + 1));
        let other = &all[(i + 1) % all.len()].1;
        for _ in 0..MUTATIONS {
            run(&mutate(&mut rng, bytes, other), "mutation");
        }
        1 + MUTATIONS
    };
    let sharers = (2 * std::thread::available_parallelism().map_or(1, |n| n.get())).min(all.len());
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..sharers)
            .map(|k| s.spawn(move || (k..all.len()).step_by(sharers).map(one_seed).sum::<usize>()))
            .collect();
        // A failed seed's panic (with its input) is printed by its thread and raised again here.
        handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).sum()
    })
}

fn pgn_fixtures() -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pgn");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    files.into_iter().map(|p| (p.clone(), std::fs::read(&p).unwrap())).collect()
}

#[test]
fn every_target_has_seeds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/fuzz");
    let mut dirs: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".md"))
        .collect();
    dirs.sort();
    let mut targets: Vec<String> = checks::TARGETS.iter().map(|(t, _)| t.to_string()).collect();
    targets.sort();
    assert_eq!(dirs, targets, "fixtures/fuzz/ and the fuzz targets disagree");
    // Each target has its fuzz_target! wrapper in the cargo-fuzz package.
    for t in &targets {
        let wrapper = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fuzz/fuzz_targets/{t}.rs"));
        let text = std::fs::read_to_string(&wrapper).unwrap_or_else(|e| panic!("{}: {e}", wrapper.display()));
        assert!(text.contains(&format!("checks::{t}(")), "{}", wrapper.display());
    }
}

#[test]
fn pgn_reader_seeds() {
    assert!(replay("pgn_reader", &pgn_fixtures()) > 100);
}

#[test]
fn split_seeds() {
    // The target takes its chunk size from the first two bytes: prefix the fixture files.
    let extra: Vec<_> = pgn_fixtures().into_iter().map(|(p, b)| (p, [&[200, 0][..], &b].concat())).collect();
    assert!(replay("split", &extra) > 100);
}

#[test]
fn speculative_seeds() {
    // Chunk target (2 bytes) and stream read size (1 byte) first: prefix the fixture files.
    let extra: Vec<_> =
        pgn_fixtures().into_iter().map(|(p, b)| (p, [&[150, 0, 5][..], &b].concat())).collect();
    assert!(replay("speculative", &extra) > 100);
}

#[test]
fn clean_seeds() {
    // Options (1 byte) and chunk target (2 bytes) first: prefix the fixture files.
    let extra: Vec<_> =
        pgn_fixtures().into_iter().map(|(p, b)| (p, [&[0, 150, 0][..], &b].concat())).collect();
    assert!(replay("clean", &extra) > 100);
}

#[test]
fn fen_roundtrip_seeds() {
    assert!(replay("fen_roundtrip", &[]) > 100);
    // The seeds reach the position round trip, not only the parser.
    let valid = seeds("fen_roundtrip")
        .iter()
        .filter(|(_, b)| std::str::from_utf8(b).is_ok_and(|t| checks::load(t, Variant::Standard).is_some()))
        .count();
    assert!(valid > 30, "only {valid} FEN seeds are positions");
}

/// How many (seed, fixed position) pairs give a move, by `resolve` or by `parse_uci`.
fn resolving(target: &str, f: impl Fn(&Position, &[u8]) -> bool) -> usize {
    let positions = checks::positions();
    seeds(target).iter().map(|(_, b)| positions.iter().filter(|p| f(p, b)).count()).sum()
}

#[test]
fn san_roundtrip_seeds() {
    assert!(replay("san_roundtrip", &[]) > 100);
    let n = resolving("san_roundtrip", |p, b| pgnkit::notation::parse_san(p, b).is_ok());
    assert!(n > 50, "only {n} SAN seeds resolve");
}

#[test]
fn uci_roundtrip_seeds() {
    assert!(replay("uci_roundtrip", &[]) > 100);
    let n = resolving("uci_roundtrip", |p, b| pgnkit::notation::parse_uci(p, b).is_ok());
    assert!(n > 15, "only {n} UCI seeds parse");
}

#[test]
fn movegen_legal_seeds() {
    assert!(replay("movegen_legal", &[]) > 50);
    // Every walk seed starts somewhere.
    for (path, b) in seeds("movegen_legal").iter().chain(&seeds("zobrist_incremental")) {
        assert!(checks::walk_start(b).is_some(), "{}: no start position", path.display());
    }
}

#[test]
fn zobrist_incremental_seeds() {
    assert!(replay("zobrist_incremental", &[]) > 50);
}
