//! Where a shard starts: the index sidecar (stale or broken ones are input errors) and the frames
//! of a multi-frame zstd input, each shard reading its own frames; every count merges to one run.

use serde_json::Value;

use crate::shard::{code_and_err, path, same_as_one_run};
use crate::util::{fixture, run, shared_data, stderr, temp_dir};

/// With an index sidecar a shard starts near its share: the parts are the same bytes; a stale
/// sidecar is an error.
#[test]
fn an_index_gives_the_same_parts_and_a_stale_one_is_an_error() {
    let Some(data) = shared_data() else { return };
    let dir = temp_dir("shard-index");
    let input = dir.join("in.pgn");
    // Several MiB, so that the index has points past the start.
    let mut text = Vec::new();
    while text.len() < 9 << 20 {
        text.extend(std::fs::read(data.join("games/twic1599_1000k.pgn")).expect("read"));
        text.extend(std::fs::read(fixture("pgn/bad_games.pgn")).expect("read"));
    }
    std::fs::write(&input, &text).expect("write");
    let parts = |sub: &str| -> Vec<Vec<u8>> {
        let at = dir.join(sub);
        std::fs::create_dir_all(&at).expect("dir");
        let out = at.join("d.jsonl");
        (0..5)
            .map(|i| {
                let spec = format!("{i}/5");
                let o = run(&["check", "-q", "--json", "--shard", &spec, path(&input), "-o", path(&out)]);
                assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
                let s = pgnkit::shard::Spec::new(i, 5).expect("spec");
                std::fs::read(pgnkit::shard::part_path(&out, None, s)).expect("part")
            })
            .collect()
    };
    let without = parts("without");
    let o = run(&["index", path(&input)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("points"), "{}", stderr(&o));
    let with = parts("with");
    assert!(without == with, "the index changes no part");
    assert!(without.iter().all(|p| !p.is_empty()), "every shard has games");
    // An edit of the same length between the fingerprint's sampled blocks (two lines joined
    // into one, which moves every line number after it) is stale by its modification time.
    let mut joined = text.clone();
    let middle = (3 << 20) + 512 * 1024;
    let at = middle
        + joined[middle..]
            .windows(3)
            .position(|w| w[0] != b']' && w[1] == b'\n' && w[2] == b'1')
            .expect("a line break in movetext");
    joined[at + 1] = b' ';
    let mtime = std::fs::metadata(&input).expect("meta").modified().expect("mtime");
    let fingerprint = pgnkit::shard::fingerprint::fingerprint(&input).expect("fingerprint");
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&input, &joined).expect("write");
    assert_ne!(std::fs::metadata(&input).expect("meta").modified().expect("mtime"), mtime);
    let same = pgnkit::shard::fingerprint::fingerprint(&input).expect("fingerprint");
    assert_eq!(same, fingerprint, "the edit falls between the sampled blocks");
    let out = dir.join("x");
    let stale = ["check", "--shard", "1/5", path(&input), "-o", path(&out)];
    let (code, err) = code_and_err(&stale);
    assert_eq!(code, Some(65), "{err}");
    assert!(err.contains("stale: the input was modified"), "{err}");
    let mut longer = text.clone();
    longer.extend_from_slice(b"\n[Event \"late\"]\n\n1. e4 *\n");
    std::fs::write(&input, &longer).expect("write");
    let (code, err) = code_and_err(&stale);
    assert_eq!(code, Some(65), "{err}");
    assert!(err.contains("stale"), "{err}");
}

/// A sidecar made for another version of its input, or no index at all, is a problem of the
/// input's (65, as a corrupt stream is), not of the command line (2): the command was right.
#[test]
fn a_stale_or_broken_index_is_an_input_error() {
    let dir = temp_dir("shard-stale");
    let input = dir.join("in.pgn");
    std::fs::copy(fixture("pgn/twic1599_10k.pgn"), &input).expect("copy");
    let o = run(&["index", "-q", path(&input)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut text = std::fs::read(&input).expect("read");
    text.extend_from_slice(b"\n[Event \"late\"]\n\n1. e4 *\n");
    std::fs::write(&input, &text).expect("write");
    let out = dir.join("d.txt");
    let shard = ["check", "-q", "--shard", "1/2", path(&input), "-o", path(&out)];
    let (code, err) = code_and_err(&shard);
    assert_eq!(code, Some(65), "{err}");
    assert!(err.contains("stale: the input changed since it was indexed; remove it or run"), "{err}");
    std::fs::write(pgnkit::shard::index::index_path(&input), "{}").expect("write");
    let (code, err) = code_and_err(&shard);
    assert_eq!(code, Some(65), "{err}");
    assert!(err.contains("not a pgnkit index"), "{err}");
}

/// A pipe (or a device: `/dev/null`) is no file to index: refused, no sidecar written beside it.
#[test]
fn only_a_regular_file_is_indexed() {
    let dir = temp_dir("shard-index-fifo");
    let fifo = dir.join("games.pgn");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    let (code, err) = code_and_err(&["index", path(&fifo)]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not a regular file: only a file is indexed"), "{err}");
    assert!(!pgnkit::shard::index::index_path(&fifo).exists());
}

/// About `bytes` of PGN from the fixtures (games with errors among them), repeated.
pub(crate) fn pgn_text(bytes: usize) -> Vec<u8> {
    let files = ["pgn/lichess_db_10k.pgn", "pgn/bad_games.pgn", "pgn/twic1599_10k.pgn"];
    let one: Vec<u8> = files.iter().flat_map(|f| std::fs::read(fixture(f)).expect("fixture")).collect();
    one.iter().copied().cycle().take(bytes.div_ceil(one.len()) * one.len()).collect()
}

/// `text` as zstd frames of `every` bytes each (cut anywhere, games across frames), each after a
/// skippable frame holding its size as the lichess dumps write them when `hinted`, else
/// concatenated.
pub(crate) fn zstd_frames(text: &[u8], every: usize, hinted: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for piece in text.chunks(every) {
        let frame = zstd::encode_all(piece, 3).expect("zstd");
        if hinted {
            out.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0]);
            out.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        }
        out.extend(frame);
    }
    out
}

/// zstd inputs of several frames (lichess-style, concatenated, pzstd's): shards start at frames,
/// without and with the index, and every count merges to one run's bytes, numbers included.
#[test]
fn zstd_frame_shards_merge_to_one_run() {
    let dir = temp_dir("shard-zstd-inputs");
    let text = pgn_text(3 << 20);
    let lichess = dir.join("lichess.pgn.zst");
    std::fs::write(&lichess, zstd_frames(&text, 100_000, true)).expect("write");
    let concatenated = dir.join("cat.pgn.zst");
    std::fs::write(&concatenated, zstd_frames(&text, 150_000, false)).expect("write");
    let mut inputs = vec![lichess, concatenated];
    let plain = dir.join("big.pgn");
    std::fs::write(&plain, pgn_text(10 << 20)).expect("write");
    match std::process::Command::new("pzstd").args(["-q", "-1", "-f", path(&plain)]).status() {
        Ok(s) if s.success() => inputs.push(dir.join("big.pgn.zst")),
        _ => crate::skip::skip("pzstd not found (apt-get install zstd): its output is not sharded here"),
    }
    for indexed in [false, true] {
        if indexed {
            for input in &inputs {
                let o = run(&["index", path(input)]);
                assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
                assert!(stderr(&o).contains(" frames"), "{}", stderr(&o));
            }
        }
        for input in &inputs {
            let name =
                format!("zstd-{}-{indexed}", input.file_name().and_then(|n| n.to_str()).unwrap_or("x"));
            let args = ["check", "--json"];
            same_as_one_run(
                &name,
                &args,
                std::slice::from_ref(input),
                &[("-o", "d.jsonl")],
                &[1, 2, 3, 4, 5],
                &["2"],
            );
        }
        let args = ["positions", "--format", "jsonl"];
        same_as_one_run(
            &format!("zstd-positions-{indexed}"),
            &args,
            &inputs,
            &[("-o", "p.jsonl")],
            &[3],
            &["2"],
        );
    }
}

/// A shard of a zstd input of several frames reads its frames only: the compressed bytes its
/// run reads are its share and a frame at each end, and with the index its plan decodes nothing.
#[test]
fn a_zstd_shard_reads_only_its_frames() {
    use pgnkit::jobs::run::{RunOptions, Sink, run_shares};
    use pgnkit::pipeline::{InputInfo, Observer, Records, stats::Stats};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};

    #[derive(Default)]
    struct Consumed(Mutex<Vec<Arc<AtomicU64>>>);
    impl Observer for Consumed {
        fn begin_input(&self, input: &InputInfo<'_>) {
            self.0.lock().expect("lock").extend(input.consumed.clone());
        }
    }
    struct Games(u64);
    type Check = pgnkit::jobs::check::Check;
    impl Sink<Records<Check>> for Games {
        fn release(&mut self, _: Records<Check>, stats: &mut Stats) -> Result<(), pgnkit::error::Error> {
            self.0 = stats.games;
            Ok(())
        }
    }

    let dir = temp_dir("shard-zstd-reads");
    let text = pgn_text(16 << 20);
    let input = dir.join("in.pgn.zst");
    let every = 128 << 10;
    let bytes = zstd_frames(&text, every, true);
    std::fs::write(&input, &bytes).expect("write");
    let frame = zstd::encode_all(&text[..every], 3).expect("zstd").len() as u64 * 2;
    let size = bytes.len() as u64;
    let n = 6;
    let job = Check::default();
    let opts = RunOptions { threads: 1, ..RunOptions::default() };
    for indexed in [false, true] {
        if indexed {
            let o = run(&["index", path(&input)]);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        }
        let mut games = 0;
        for i in 0..n {
            let spec = pgnkit::shard::Spec::new(i, n).expect("spec");
            let plan = pgnkit::shard::plan(std::slice::from_ref(&input), spec, Default::default(), false)
                .expect("plan");
            if indexed {
                assert_eq!(plan.scanned, 0, "shard {i}: the index says where its frames start");
            }
            let observer = Consumed::default();
            let mut sink = Games(0);
            run_shares(&job, &plan.shares(), &opts, &observer, &mut sink).expect("run");
            games += sink.0;
            let read: u64 = observer.0.lock().expect("lock").iter().map(|c| c.load(Ordering::Relaxed)).sum();
            // Its share, a frame before it and one after its end, and the decoder's buffer.
            let bound = size / n + 2 * frame + (256 << 10);
            assert!(
                read <= bound,
                "shard {i} (index {indexed}) read {read} compressed bytes, more than {bound}"
            );
        }
        let o = run(&["check", path(&input), "-o", path(&dir.join("d.txt"))]);
        let err = stderr(&o);
        assert!(
            err.contains(&format!("pgnkit check: {games} games,")),
            "the shards' {games} games are one run's: {err}"
        );
    }
}

/// A small single-stream compressed input (one zstd frame, gzip) is shared by every shard, not
/// left to the last: its shares are found at their fraction of its text. Merged, one run's bytes.
#[test]
fn small_compressed_inputs_are_shared_by_every_shard() {
    let dir = temp_dir("shard-small-compressed");
    let text = pgn_text(600 << 10); // under one scan chunk of text
    let zst = dir.join("one.pgn.zst");
    std::fs::write(&zst, zstd::encode_all(&text[..], 3).expect("zstd")).expect("write");
    let gz = dir.join("one.pgn.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut e, &text).expect("gzip");
    std::fs::write(&gz, e.finish().expect("gzip")).expect("write");
    for input in [&zst, &gz] {
        let out = dir.join("d.jsonl");
        for i in 0..4 {
            let spec = format!("{i}/4");
            let o = run(&["check", "-q", "--json", "--shard", &spec, "-o", path(&out), path(input)]);
            assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
            let s = pgnkit::shard::Spec::new(i, 4).expect("spec");
            let manifest = pgnkit::shard::manifest_path(&pgnkit::shard::part_path(&out, None, s));
            let m: Value =
                serde_json::from_str(&std::fs::read_to_string(&manifest).expect("manifest")).expect("json");
            let games: u64 = m["ranges"]
                .as_array()
                .expect("ranges")
                .iter()
                .map(|r| r["games"].as_u64().unwrap_or(0))
                .sum();
            assert!(games > 0, "{}: shard {spec} got no game", input.display());
        }
        for f in std::fs::read_dir(&dir).expect("dir").filter_map(|e| e.ok()) {
            if f.file_name().to_string_lossy().starts_with("d.jsonl") {
                std::fs::remove_file(f.path()).expect("rm");
            }
        }
        let name = format!("small-{}", input.file_name().and_then(|n| n.to_str()).unwrap_or("x"));
        same_as_one_run(
            &name,
            &["check", "--json"],
            std::slice::from_ref(input),
            &[("-o", "d.jsonl")],
            &[2, 3, 7],
            &["1"],
        );
    }
}

/// A `--where` or `--tags` name only one game has, in one shard: no shard warns of it (a shard
/// cannot know the others' games), and `merge` warns as one run does, of the names no shard's
/// games had and of those alone, once.
#[test]
fn shards_leave_absent_tags_to_merge() {
    let dir = temp_dir("shard-absent");
    let input = dir.join("in.pgn");
    let game = |i: usize, elo: &str| {
        format!("[Event \"E\"]\n[White \"W{i}\"]\n[Black \"B\"]\n{elo}[Result \"*\"]\n\n1. e4 e5 *\n\n")
    };
    let mut pgn: String = (0..299).map(|i| game(i, "")).collect();
    pgn += &game(299, "[WhiteElo \"2100\"]\n");
    std::fs::write(&input, pgn).expect("write");
    let wheres = ["--where", "WhiteElo > 2000", "--where", "BlackElo > 2000"];
    let tags = ["--tags", "WhiteElo,BlackElo"];
    let jobs: [(&str, &[&str], &str); 3] = [
        ("check", &["check", "--json"], "out.jsonl"),
        ("clean", &["clean", "--report", "REPORT"], "out.pgn"),
        ("positions", &["positions", "--format", "csv"], "out.csv"),
    ];
    for (job, args, out) in jobs {
        let at = dir.join(job);
        std::fs::create_dir_all(&at).expect("dir");
        let (out, report) = (at.join(out), at.join("report.jsonl"));
        let mut given: Vec<&str> =
            args.iter().map(|a| if *a == "REPORT" { path(&report) } else { a }).collect();
        given.extend(wheres);
        if job == "positions" {
            given.extend(tags);
        }
        let mut one = given.clone();
        one.extend(["-q", "-o", path(&out), path(&input)]);
        let warnings = |o: &std::process::Output| -> Vec<String> {
            stderr(o).lines().filter(|l| l.starts_with("pgnkit: warning")).map(String::from).collect()
        };
        let single = warnings(&run(&one));
        let mut manifests = Vec::new();
        for i in 0..3u64 {
            let spec = format!("{i}/3");
            let mut shard = given.clone();
            shard.extend(["-q", "--shard", &spec, "-o", path(&out), path(&input)]);
            let o = run(&shard);
            assert!(matches!(o.status.code(), Some(0 | 1)), "{job} {spec}: {}", stderr(&o));
            assert!(!stderr(&o).contains("no game had"), "{job} {spec}: {}", stderr(&o));
            let spec = pgnkit::shard::Spec::new(i, 3).expect("spec");
            manifests.push(pgnkit::shard::manifest_path(&pgnkit::shard::part_path(&out, None, spec)));
        }
        let mut merge = vec!["merge", "-q"];
        merge.extend(manifests.iter().map(|m| path(m)));
        let o = run(&merge);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{job} merge: {}", stderr(&o));
        let merged = warnings(&o);
        assert_eq!(merged, single, "{job}: merge warns as one run does");
        let absent: Vec<&String> = merged.iter().filter(|l| l.contains("no game had")).collect();
        let want = if job == "positions" { 2 } else { 1 };
        assert_eq!(absent.len(), want, "{job}: {merged:?}");
        assert!(
            absent.iter().all(|l| l.contains("BlackElo") && !l.contains("WhiteElo")),
            "{job}: {merged:?}"
        );
    }
}
