//! A corrupt compressed input met while a shard finds its share (a gzip or single zstd frame is
//! read whole to measure its text; a zstd file of several frames is decoded up to the shard's
//! frames): the shard fails the input as a run does (65, where reading stopped named) and writes
//! its manifest recording it, so `merge` says that no rerun completes the shard. Shards whose
//! share holds only the good inputs beside it finish, as beside an input that is not PGN.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::shard::path;
use crate::shard_index::{pgn_text, zstd_frames};
use crate::util::{run, stderr, temp_dir};

/// `bytes` gzipped.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut e, bytes).expect("gzip");
    e.finish().expect("gzip")
}

/// The corrupt inputs: a truncated gzip, a truncated single zstd frame, and frames with a block
/// changed a quarter of the way in (early, so that the frames before most shares hold it).
fn corrupt_inputs(dir: &Path) -> Vec<PathBuf> {
    let text = pgn_text(600 << 10);
    let cut = |b: Vec<u8>| b[..b.len() * 3 / 5].to_vec();
    let mut framed = zstd_frames(&text, 64 << 10, false);
    let at = framed.len() / 4;
    for b in &mut framed[at..at + 64] {
        *b ^= 0x5a;
    }
    let files = [
        ("trunc.pgn.gz", cut(gzip(&text))),
        ("trunc.pgn.zst", cut(zstd::encode_all(&text[..], 3).expect("zstd"))),
        ("frames.pgn.zst", framed),
    ];
    files
        .into_iter()
        .map(|(name, bytes)| {
            let p = dir.join(name);
            std::fs::write(&p, bytes).expect("write");
            p
        })
        .collect()
}

/// The manifest's failures, as (input index, message).
fn failures(manifest: &Path) -> Vec<(u64, String)> {
    let text = std::fs::read_to_string(manifest).unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
    let v: Value = serde_json::from_str(&text).expect("json");
    v["failures"]
        .as_array()
        .expect("failures")
        .iter()
        .map(|f| (f["input"].as_u64().expect("input"), f["message"].as_str().expect("message").into()))
        .collect()
}

#[test]
fn a_corrupt_stream_met_while_planning_is_recorded_and_merge_names_it() {
    let dir = temp_dir("shard-corrupt-plan");
    for bad in corrupt_inputs(&dir) {
        let name = bad.file_name().and_then(|n| n.to_str()).expect("name").to_string();
        // Good inputs twice the bad one's size on each side: of 4 shards, the first and the last
        // read only a good one, the two between the bad one.
        let size = std::fs::metadata(&bad).expect("size").len() as usize;
        let (a, b) = (dir.join("a.pgn"), dir.join("b.pgn"));
        std::fs::write(&a, pgn_text(2 * size)).expect("write");
        std::fs::write(&b, pgn_text(2 * size)).expect("write");
        let inputs = [path(&a), path(&bad), path(&b)];
        let out = dir.join(format!("{name}.d.txt"));
        let mut whole = vec!["check", "-q", "-o", path(&out)];
        whole.extend(inputs);
        let o = run(&whole);
        assert_eq!(o.status.code(), Some(65), "{name}: one run: {}", stderr(&o));
        let said = stderr(&o);
        let error =
            said.lines().find(|l| l.contains("corrupt zstd stream") || l.contains("corrupt gzip stream"));
        let error = error.unwrap_or_else(|| panic!("{name}: {said}")).to_string();
        assert!(error.contains("(reading stopped at byte "), "{name}: {error}");
        let mut manifests = Vec::new();
        for i in 0..4u64 {
            let spec = format!("{i}/4");
            let mut args = vec!["check", "-q", "--shard", &spec, "-o", path(&out)];
            args.extend(inputs);
            let o = run(&args);
            let err = stderr(&o);
            let s = pgnkit::shard::Spec::new(i, 4).expect("spec");
            let manifest = pgnkit::shard::manifest_path(&pgnkit::shard::part_path(&out, None, s));
            assert!(manifest.is_file(), "{name} shard {spec} wrote its manifest: {err}");
            let failed = failures(&manifest);
            if i == 0 || i == 3 {
                assert!(matches!(o.status.code(), Some(0 | 1)), "{name} shard {spec}: {err}");
                assert!(failed.is_empty(), "{name} shard {spec}: {failed:?}");
            } else {
                assert_eq!(o.status.code(), Some(65), "{name} shard {spec}: {err}");
                assert_eq!(failed.len(), 1, "{name} shard {spec}: {failed:?}");
                assert_eq!(failed[0].0, 1, "{name} shard {spec}: the bad input");
                assert!(err.contains("(reading stopped at byte "), "{name} shard {spec}: {err}");
                // A stream read from its start stops where the run's reading stops (the run
                // also names the game the stop cut, which the plan does not read as games).
                if name.starts_with("trunc") {
                    let stopped = error.split("; the game it cut").next().expect("a line");
                    assert!(err.contains(stopped), "{name} shard {spec}: {err}");
                }
            }
            manifests.push(manifest);
        }
        let merged = dir.join("merged.txt");
        let mut args = vec!["merge", "-o", path(&merged)];
        args.extend(manifests.iter().map(|m| path(m)));
        let o = run(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(65), "{name}: {err}");
        for spec in ["1/4", "2/4"] {
            let says = format!("shard {spec} cannot complete: {}: corrupt ", bad.display());
            assert!(err.contains(&says), "{name}: {err}");
        }
        assert!(err.contains("no rerun changes that"), "{name}: {err}");
        assert!(!err.contains("missing shards"), "{name}: {err}");
        assert!(!merged.exists(), "{name}: nothing written");
    }
}
