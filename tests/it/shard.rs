//! `--shard I/N` and `pgnkit merge`: for every job, the parts of N shards merged are the bytes
//! one run writes (the summary records compared without their timings), at any -j and chunk
//! size, over the fixtures and shared collections (malformed ones too, compressed ones too); and
//! every way a set of shards can be broken is an error that names it, with nothing written.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::shard_index::zstd_frames;
use crate::util::{fixture, run, shared_data, shared_not_pgn, stderr, temp_dir};

pub(crate) fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// The fixtures' PGN files, in name order: many small inputs, malformed ones among them.
pub(crate) fn fixture_inputs() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture("pgn"))
        .expect("fixtures")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    files
}

/// A summary record without what depends on the time taken.
fn timeless(line: &str) -> Value {
    let mut v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON: {e}: {line}"));
    if let Some(d) = v.get_mut("data").and_then(Value::as_object_mut) {
        for k in [
            "seconds",
            "mb_per_s",
            "games_per_s",
            "engine_busy",
            "cache",
            "engines",
            "engine_seconds_per_position",
            "positions_per_s",
            "seconds_per_position",
        ] {
            d.remove(k);
        }
        if let Some(c) = d.get_mut("counts").and_then(Value::as_object_mut) {
            c.remove("engine_microseconds");
        }
    }
    v
}

/// Asserts two outputs equal: byte for byte, except a last line that is a summary record,
/// compared without its timings.
pub(crate) fn assert_same(one: &[u8], merged: &[u8], what: &str) {
    let (a, b) = (String::from_utf8_lossy(one), String::from_utf8_lossy(merged));
    let last = |s: &str| s.trim_end_matches('\n').rsplit('\n').next().unwrap_or("").to_string();
    if last(&a).starts_with("{\"data\"") || last(&a).contains("\"type\":\"summary\"") {
        let (la, lb) = (last(&a), last(&b));
        assert_eq!(
            &a[..a.len() - la.len() - 1],
            &b[..b.len().saturating_sub(lb.len() + 1)],
            "{what}: records"
        );
        assert_eq!(timeless(&la), timeless(&lb), "{what}: summary");
    } else {
        assert!(one == merged, "{what}: {} and {} bytes differ", one.len(), merged.len());
    }
}

/// Decompressed bytes of an output file (by its name).
pub(crate) fn read(p: &Path) -> Vec<u8> {
    let bytes = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    match p.extension().and_then(|e| e.to_str()) {
        Some("zst") => zstd::decode_all(&bytes[..]).expect("zstd"),
        Some("gz") => {
            use std::io::Read;
            let mut out = Vec::new();
            flate2::read::MultiGzDecoder::new(&bytes[..]).read_to_end(&mut out).expect("gzip");
            out
        }
        _ => bytes,
    }
}

/// Runs `args` (a command and its options) over `inputs` once and as `counts` shards merged, at
/// each of `threads`, and compares every output (`outputs`: the flag and the file name, `-o`
/// first).
pub(crate) fn same_as_one_run(
    name: &str,
    args: &[&str],
    inputs: &[PathBuf],
    outputs: &[(&str, &str)],
    counts: &[u64],
    threads: &[&str],
) {
    let dir = temp_dir(&format!("shard-{name}"));
    let with_outputs = |at: &Path, extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        for (flag, file) in outputs {
            v.push(flag.to_string());
            v.push(path(&at.join(file)).to_string());
        }
        v.extend(inputs.iter().map(|p| path(p).to_string()));
        v
    };
    let one = dir.join("one");
    std::fs::create_dir_all(&one).expect("dir");
    let single = with_outputs(&one, &["-q", "-j1"]);
    let o = run(&single.iter().map(String::as_str).collect::<Vec<_>>());
    let code = o.status.code();
    assert!(matches!(code, Some(0 | 1)), "{name}: one run: {}", stderr(&o));
    for &n in counts {
        for &j in threads {
            let at = dir.join(format!("n{n}-j{j}"));
            std::fs::create_dir_all(&at).expect("dir");
            for i in 0..n {
                let shard = format!("{i}/{n}");
                let a = with_outputs(
                    &at,
                    &["-q", "-j", j, "--shard", &shard, "--chunk-kib", if j == "2" { "1" } else { "256" }],
                );
                let o = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
                assert!(matches!(o.status.code(), Some(0 | 1)), "{name} {shard} -j{j}: {}", stderr(&o));
            }
            let main = at.join(outputs[0].1);
            let manifests: Vec<String> = (0..n)
                .map(|i| {
                    let spec = pgnkit::shard::Spec::new(i, n).expect("spec");
                    let part = pgnkit::shard::part_path(&main, None, spec);
                    path(&pgnkit::shard::manifest_path(&part)).to_string()
                })
                .collect();
            let mut m = vec!["merge", "-q"];
            m.extend(manifests.iter().map(String::as_str));
            let o = run(&m);
            assert_eq!(o.status.code(), code, "{name} n{n} -j{j} merge: {}", stderr(&o));
            for (_, file) in outputs {
                assert_same(
                    &read(&one.join(file)),
                    &read(&at.join(file)),
                    &format!("{name} {file} n{n} -j{j}"),
                );
            }
        }
    }
}

const COUNTS: [u64; 4] = [1, 2, 3, 7];

#[test]
fn check_shards_merge_to_one_run() {
    let inputs = fixture_inputs();
    same_as_one_run("check", &["check"], &inputs, &[("-o", "diag.txt")], &COUNTS, &["1", "2"]);
    same_as_one_run(
        "check-json",
        &["check", "--json", "--games"],
        &inputs,
        &[("-o", "diag.jsonl")],
        &COUNTS,
        &["1", "2"],
    );
}

#[test]
fn clean_shards_merge_to_one_run() {
    let inputs = fixture_inputs();
    let outputs = [("-o", "out.pgn"), ("--rejects", "rej.pgn"), ("--report", "report.jsonl")];
    same_as_one_run("clean", &["clean"], &inputs, &outputs, &COUNTS, &["1", "2"]);
    let outputs = [("-o", "out.pgn.zst"), ("--report", "report.jsonl.gz")];
    same_as_one_run(
        "clean-zst",
        &["clean", "--keep-broken", "--strip", "comments"],
        &inputs,
        &outputs,
        &[3],
        &["2"],
    );
}

#[test]
fn positions_shards_merge_to_one_run() {
    let inputs = fixture_inputs();
    for format in ["fen", "epd", "jsonl"] {
        let name = format!("positions-{format}");
        same_as_one_run(
            &name,
            &["positions", "--format", format],
            &inputs,
            &[("-o", "pos")],
            &COUNTS,
            &["1", "2"],
        );
    }
    let args = ["positions", "--format", "csv", "--tags", "White,Black"];
    same_as_one_run("positions-csv", &args, &inputs, &[("-o", "pos.csv")], &COUNTS, &["1", "2"]);
}

#[test]
fn annotate_shards_merge_to_one_run() {
    let inputs = vec![
        fixture("pgn/lichess_db_10k.pgn"),
        fixture("pgn/bad_games.pgn"),
        fixture("pgn/kokopu__misc.pgn"),
    ];
    let args = ["annotate", "--no-cache", "--depth", "2", "--engines", "1"];
    same_as_one_run("annotate-pgn", &args, &inputs, &[("-o", "a.pgn")], &[2, 3], &["1"]);
    let args = ["annotate", "--no-cache", "--depth", "2", "--format", "jsonl", "--engines", "1"];
    same_as_one_run("annotate-jsonl", &args, &inputs, &[("-o", "a.jsonl")], &[3], &["1"]);
}

/// An EPD input of `positions` lines (every position of a fixture, repeated), with a bad line,
/// blank and `#` lines and a last line without its line break, written to `dir` plain and as zstd
/// frames (lines across frames).
fn epd_inputs(dir: &Path, positions: usize) -> Vec<PathBuf> {
    let o = run(&["positions", "-q", "--format", "epd", path(&fixture("pgn/lichess_db_10k.pgn"))]);
    let epd = String::from_utf8(o.stdout).expect("UTF-8");
    let mut lines: Vec<&str> = epd.lines().cycle().take(positions).collect();
    lines.insert(positions / 3, "not a position");
    lines.insert(positions / 2, "");
    lines.insert(positions / 2, "# a comment");
    let text = lines.join("\n");
    let plain = dir.join("positions.epd");
    std::fs::write(&plain, &text).expect("write");
    let zst = dir.join("more.epd.zst");
    std::fs::write(&zst, zstd_frames(text.as_bytes(), 2000, true)).expect("write");
    vec![plain, zst]
}

/// `annotate --format epd` shards end at line starts: every count merges to one run.
#[test]
fn annotate_epd_shards_merge_to_one_run() {
    let dir = temp_dir("shard-epd-inputs");
    let inputs = epd_inputs(&dir, 300);
    let args = ["annotate", "--no-cache", "--format", "epd", "--depth", "1"];
    same_as_one_run("annotate-epd", &args, &inputs, &[("-o", "a.epd")], &[1, 2, 3, 4, 5], &["1", "2"]);
}

/// `merge` of annotate shards closes with one run's summary: lines of EPD, the positions, the
/// engines' time and the cache (the figures of time aside).
#[test]
fn annotate_merge_prints_one_runs_summary() {
    let dir = temp_dir("shard-annotate-summary");
    let inputs = epd_inputs(&dir, 120);
    let input = path(&inputs[0]);
    let timeless = |err: &str| {
        let time = regex::Regex::new(r"[0-9.]+ (µs|ms|s)\b|[0-9]+\.[0-9]+%?").expect("regex");
        let lines: Vec<String> = err
            .lines()
            .filter(|l| !l.starts_with("pgnkit: ") && !l.starts_with("pgnkit merge:"))
            .map(|l| time.replace_all(l, "T").into_owned())
            .collect();
        lines.join("\n")
    };
    let args = ["annotate", "--no-cache", "--format", "epd", "--depth", "1", "--engines", "1"];
    let one = dir.join("one.epd");
    let o = run(&[&args[..], &["-o", path(&one), input]].concat());
    let single = timeless(&stderr(&o));
    assert!(single.contains(" lines, ") && single.contains("a position searched"), "{single}");
    let out = dir.join("s.epd");
    for i in 0..2 {
        let spec = format!("{i}/2");
        let o = run(&[&args[..], &["-q", "--shard", &spec, "-o", path(&out), input]].concat());
        assert!(matches!(o.status.code(), Some(0 | 1)), "a bad line is an error: {}", stderr(&o));
    }
    let manifests: Vec<PathBuf> = (0..2)
        .map(|i| {
            pgnkit::shard::manifest_path(&pgnkit::shard::part_path(
                &out,
                None,
                pgnkit::shard::Spec::new(i, 2).expect("spec"),
            ))
        })
        .collect();
    let o = run(&["merge", path(&manifests[0]), path(&manifests[1])]);
    assert_eq!(timeless(&stderr(&o)), single);
}

/// A test suite through `annotate --format epd` (answers, stale analysis, FENs' clocks): the
/// shards merge to one run's lines.
#[test]
fn annotate_epd_suite_shards_merge_to_one_run() {
    let dir = temp_dir("shard-epd-suite");
    let input = dir.join("suite.epd");
    std::fs::write(&input, crate::annotate::epd_suite(60)).expect("write");
    let args = ["annotate", "--no-cache", "--format", "epd", "--depth", "1"];
    same_as_one_run("annotate-epd-suite", &args, &[input], &[("-o", "a.epd")], &[2, 3], &["1", "2"]);
}

/// An EPD shard's diagnostics name the lines a single run names, and a rerun of the shard finds
/// every position in its cache.
#[test]
fn annotate_epd_shard_numbers_lines_as_one_run_and_resumes_from_its_cache() {
    let dir = temp_dir("shard-epd");
    let inputs = epd_inputs(&dir, 300);
    let input = path(&inputs[0]);
    let args = ["annotate", "--format", "epd", "--depth", "1", "--engines", "1"];
    let one = run(&[&args[..], &["--no-cache", "-o", path(&dir.join("one.epd")), input]].concat());
    assert_eq!(one.status.code(), Some(1), "the bad line is a failure: {}", stderr(&one));
    let bad = "positions.epd:101:1: error: game 101 (? - ?): not an EPD or FEN line";
    assert!(stderr(&one).contains(bad), "{}", stderr(&one));
    let out = dir.join("a.epd");
    let cache = dir.join("c.sqlite");
    let shard = |i: u64| {
        let spec = format!("{i}/3");
        let extra = ["--shard", &spec, "--cache", path(&cache), "-o", path(&out), input];
        run(&[&args[..], &extra].concat())
    };
    let errs: Vec<String> = (0..3)
        .map(|i| {
            let o = shard(i);
            assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
            stderr(&o)
        })
        .collect();
    let with_bad: Vec<u64> = (0..3).filter(|&i| errs[i as usize].contains(bad)).collect();
    assert_eq!(with_bad.len(), 1, "one shard names the bad line as one run does: {errs:?}");
    let manifest = |i: u64| -> Value {
        let spec = pgnkit::shard::Spec::new(i, 3).expect("spec");
        let m = pgnkit::shard::manifest_path(&pgnkit::shard::part_path(&out, None, spec));
        serde_json::from_slice(&std::fs::read(m).expect("manifest")).expect("JSON")
    };
    let first = manifest(2);
    let analysed = first["extra"]["cache"]["misses"].as_u64().unwrap_or(0);
    assert!(analysed > 50, "{first}");
    let again = shard(2);
    assert!(matches!(again.status.code(), Some(0 | 1)), "{}", stderr(&again));
    let cache_stats = &manifest(2)["extra"]["cache"];
    assert_eq!(cache_stats["misses"], 0, "the rerun analyses nothing again: {cache_stats}");
    assert!(cache_stats["hits"].as_u64().unwrap_or(0) >= analysed, "{cache_stats}");
}

/// Shared collections: malformed ones (many small files), large plain ones, a compressed one.
#[test]
fn shards_of_shared_collections_merge_to_one_run() {
    let Some(data) = shared_data() else { return };
    let mut malformed = Vec::new();
    let mut dirs = vec![data.join("malformed_and_tricky")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "pgn") && !shared_not_pgn(&p) {
                malformed.push(p);
            }
        }
    }
    malformed.sort();
    let games = data.join("games");
    let large = vec![
        games.join("twic1599_1000k.pgn"),
        games.join("lichess_db_1000k.pgn"),
        games.join("pgnmentor_Carlsen.pgn.zst"),
    ];
    for (name, inputs) in [("malformed", malformed), ("large", large)] {
        let outputs = [("-o", "out.pgn"), ("--rejects", "rej.pgn"), ("--report", "report.jsonl")];
        same_as_one_run(&format!("shared-clean-{name}"), &["clean"], &inputs, &outputs, &[3, 7], &["2"]);
        same_as_one_run(
            &format!("shared-check-{name}"),
            &["check", "--json"],
            &inputs,
            &[("-o", "d.jsonl")],
            &[2, 7],
            &["1", "2"],
        );
        let args = ["positions", "--format", "epd"];
        same_as_one_run(
            &format!("shared-positions-{name}"),
            &args,
            &inputs,
            &[("-o", "p.epd")],
            &[3],
            &["2"],
        );
    }
}

/// Runs `args` and returns (exit code, stderr).
pub(crate) fn code_and_err(args: &[&str]) -> (Option<i32>, String) {
    let o = run(args);
    (o.status.code(), stderr(&o))
}

/// A `PGNKIT_SHARDS` left exported into a whole Slurm array, or one a Batch array's count
/// overrides, is warned of; the shard runs as `--shard auto` reads it.
#[test]
fn a_count_the_array_contradicts_is_warned_of() {
    let input = fixture("pgn/lichess_db_10k.pgn");
    let dir = temp_dir("shard-leftover-count");
    let out = dir.join("d.txt");
    let whole: [(&str, &str); 5] = [
        ("SLURM_ARRAY_TASK_ID", "0"),
        ("SLURM_ARRAY_TASK_MIN", "0"),
        ("SLURM_ARRAY_TASK_MAX", "2"),
        ("SLURM_ARRAY_TASK_COUNT", "3"),
        ("PGNKIT_SHARDS", "100"),
    ];
    let google: [(&str, &str); 3] =
        [("BATCH_TASK_INDEX", "0"), ("BATCH_TASK_COUNT", "2"), ("PGNKIT_SHARDS", "5")];
    for (vars, says) in [
        (&whole[..], "pgnkit: warning: shard 0/100: --shard auto: PGNKIT_SHARDS 100 is not the 3 tasks"),
        (&google[..], "pgnkit: warning: shard 0/2: --shard auto: PGNKIT_SHARDS 5 is not used"),
        (&whole[..4], ""),
    ] {
        let o = crate::util::pgnkit()
            .args(["check", "-q", "--shard", "auto", path(&input), "-o", path(&out)])
            .env_remove("PGNKIT_SHARDS")
            .envs(vars.iter().copied())
            .output()
            .expect("pgnkit");
        let err = stderr(&o);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{vars:?}: {err}");
        match says {
            "" => assert!(!err.contains("warning"), "{vars:?}: {err}"),
            says => assert!(err.contains(says), "{vars:?}: {err}"),
        }
    }
}

#[test]
fn bad_shard_arguments_are_usage_errors() {
    let input = fixture("pgn/lichess_db_10k.pgn");
    let dir = temp_dir("shard-usage");
    let out = dir.join("out.pgn");
    let (i, o) = (path(&input), path(&out));
    for (spec, says) in [("0/0", "not 0"), ("3/3", "numbered 0 to 2"), ("1", "I/N"), ("x/2", "whole number")]
    {
        let (code, err) = code_and_err(&["clean", "--shard", spec, i, "-o", o]);
        assert_eq!(code, Some(2), "{spec}: {err}");
        assert!(err.contains(says), "{spec}: {err}");
    }
    let (code, err) = code_and_err(&["check", "--shard", "0/2", i]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("as a part file: give it a file name, not the standard output"), "{err}");
    // A device is no part's name either (its parts would be made beside it, in /dev).
    for args in [["-o", "/dev/stdout", "--report", o], ["-o", o, "--report", "/dev/null"]] {
        let mut all = vec!["clean", "--shard", "0/2", i];
        all.extend(args);
        let device = if args[1] == o { args[3] } else { args[1] };
        let (code, err) = code_and_err(&all);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains(&format!("give it a file name, not {device}")), "{err}");
    }
    assert!(!Path::new("/dev/stdout.part-0-of-2").exists() && !Path::new("/dev/null.part-0-of-2").exists());
    let (code, err) = code_and_err(&["check", "--shard", "0/2", "-", "-o", o]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("stdin cannot be sharded"), "{err}");
    let mut cmd = crate::util::pgnkit();
    for v in ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX", "BATCH_TASK_INDEX"]
    {
        cmd.env_remove(v);
    }
    let o2 = cmd.args(["check", "--shard", "auto", i, "-o", o]).output().expect("run");
    assert_eq!(o2.status.code(), Some(2));
    assert!(stderr(&o2).contains("SLURM_ARRAY_TASK_ID"), "{}", stderr(&o2));
    // Kubernetes: the index from JOB_COMPLETION_INDEX, the count from --shards.
    let o3 = crate::util::pgnkit()
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env("JOB_COMPLETION_INDEX", "1")
        .args(["check", "--shard", "auto", "--shards", "2", i, "-o", o])
        .output()
        .expect("run");
    assert_eq!(o3.status.code(), Some(0), "{}", stderr(&o3));
    assert!(dir.join("out.pgn.part-1-of-2.manifest.json").is_file());
    assert!(!out.exists(), "a shard writes parts only");
}

/// Runs clean as `n` shards of `inputs` into `dir` (`extra` options), returning the manifests.
/// Two shards of the twic sample in `dir` (their manifests) and what merging them into a file
/// writes.
pub(crate) fn two_shards_merged(dir: &Path) -> (Vec<PathBuf>, Vec<u8>) {
    let input = fixture("pgn/twic1599_10k.pgn");
    let set = shards(dir, &[input.as_path()], 2, &[]);
    let reference = dir.join("all.pgn");
    let o = run(&["merge", "-q", "-o", path(&reference), path(&set[0]), path(&set[1])]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    (set, read(&reference))
}

pub(crate) fn shards(dir: &Path, inputs: &[&Path], n: u64, extra: &[&str]) -> Vec<PathBuf> {
    (0..n).map(|i| shard(dir, inputs, i, n, extra)).collect()
}

pub(crate) fn shard(dir: &Path, inputs: &[&Path], i: u64, n: u64, extra: &[&str]) -> PathBuf {
    let out = dir.join("out.pgn");
    let spec = format!("{i}/{n}");
    let mut args = vec!["clean", "-q", "--shard", &spec, "-o", path(&out), "--report"];
    let report = dir.join("r.jsonl");
    args.push(path(&report));
    args.extend(extra);
    args.extend(inputs.iter().map(|p| path(p)));
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let spec = pgnkit::shard::Spec::new(i, n).expect("spec");
    pgnkit::shard::manifest_path(&pgnkit::shard::part_path(&out, None, spec))
}

/// Merges `manifests`; asserts it fails as shards that do not make one run (65), names `says`,
/// and writes nothing.
pub(crate) fn merge_fails(dir: &Path, manifests: &[PathBuf], says: &str) {
    merge_stops(dir, manifests, says, 65);
}

/// Merges `manifests`; asserts it exits with `code`, names `says`, and writes nothing.
fn merge_stops(dir: &Path, manifests: &[PathBuf], says: &str, code: i32) {
    let merged = dir.join("merged.pgn");
    let mut args = vec!["merge", "-o", path(&merged)];
    args.extend(manifests.iter().map(|p| path(p)));
    let (exit, err) = code_and_err(&args);
    assert_eq!(exit, Some(code), "{says}: {err}");
    assert!(err.contains(says), "wanted {says:?} in: {err}");
    assert!(err.contains("nothing written"), "{err}");
    assert!(!merged.exists(), "{says}: nothing written");
    assert!(!dir.join("r.jsonl").exists(), "{says}: nothing written");
    let leftovers: Vec<_> = std::fs::read_dir(dir)
        .expect("dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("pgnkit-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{says}: temporary files left: {leftovers:?}");
}

#[test]
fn broken_sets_of_shards_are_named_and_nothing_is_written() {
    let dir = temp_dir("shard-broken");
    let input = dir.join("in.pgn");
    std::fs::copy(fixture("pgn/twic1599_10k.pgn"), &input).expect("copy");
    let other = fixture("pgn/lichess_db_10k.pgn");
    let inputs = [input.as_path(), other.as_path()];
    let set = shards(&dir, &inputs, 3, &[]);
    // Whole, it merges (a directory of manifests too).
    let merged = dir.join("merged.pgn");
    let o = run(&["merge", "-q", "-o", path(&merged), path(&set[0]), path(&set[1]), path(&set[2])]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::remove_file(&merged).expect("rm");
    std::fs::remove_file(dir.join("r.jsonl")).expect("rm");
    // Not onto what the merge reads: an input, a part, a manifest (73, as a single run's `-o`
    // onto an input).
    let input_bytes = std::fs::read(&input).expect("read");
    for onto in [input.clone(), dir.join("out.pgn.part-1-of-3"), set[2].clone()] {
        let o = run(&["merge", "-q", "-o", path(&onto), path(&dir)]);
        assert_eq!(o.status.code(), Some(73), "{}", stderr(&o));
        assert!(stderr(&o).contains("refusing to overwrite a file the merge reads"), "{}", stderr(&o));
    }
    assert_eq!(std::fs::read(&input).expect("read"), input_bytes);
    // A missing shard.
    merge_fails(&dir, &set[..2], "missing shards");
    merge_fails(&dir, &[set[0].clone(), set[2].clone()], "1 of 3");
    // A shard twice: a copy of its manifest. The same manifest named twice is read once.
    let again = dir.join("again.manifest.json");
    std::fs::copy(&set[1], &again).expect("copy");
    merge_fails(&dir, &[set[0].clone(), set[1].clone(), set[2].clone(), again.clone()], "is there 2 times");
    std::fs::remove_file(&again).expect("rm");
    let twice = dir.join(".").join(set[1].file_name().expect("name"));
    let o =
        run(&["merge", "-q", "-o", path(&merged), path(&set[0]), path(&set[1]), path(&twice), path(&set[2])]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::remove_file(&merged).expect("rm");
    std::fs::remove_file(dir.join("r.jsonl")).expect("rm");
    // A manifest whose range names an input it does not list: refused, not a panic.
    let text = std::fs::read_to_string(&set[1]).expect("read");
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
    v["ranges"][0]["input"] = 7.into();
    std::fs::write(&set[1], v.to_string()).expect("write");
    merge_fails(&dir, &set, "a range of input 7 where the manifest lists 2");
    // A time no run takes (summed into a duration, it panicked).
    v["ranges"][0]["input"] = 0.into();
    v["seconds"] = 1e20.into();
    std::fs::write(&set[1], v.to_string()).expect("write");
    merge_fails(&dir, &set, "seconds 100000000000000000000 is no run's time");
    // A part's file that is no part's name (a copy of the part, its size and digest right, by
    // `../`) or is absolute: refused naming the manifest and the part, nothing read from there.
    v["seconds"] = 0.into();
    let part = dir.join("out.pgn.part-1-of-3");
    let elsewhere = dir.join("x");
    std::fs::copy(&part, &elsewhere).expect("copy");
    let up = format!("../{}/x", dir.file_name().and_then(|n| n.to_str()).expect("name"));
    for file in [up.as_str(), path(&part)] {
        v["parts"][0]["file"] = file.into();
        std::fs::write(&set[1], v.to_string()).expect("write");
        let says = format!(
            "{}: its output part's file {file:?} is not shard 1/3's part of {:?}",
            set[1].display(),
            path(&dir.join("out.pgn"))
        );
        merge_fails(&dir, &set, &says);
    }
    std::fs::remove_file(&elsewhere).expect("rm");
    std::fs::write(&set[1], &text).expect("write");
    // Another run's manifest: other options.
    let other_dir = dir.join("other");
    std::fs::create_dir_all(&other_dir).expect("dir");
    let strip = shards(&other_dir, &inputs, 3, &["--strip", "comments"]);
    merge_fails(&dir, &[set[0].clone(), strip[1].clone(), set[2].clone()], "the options");
    // Its shard is there, of another run: named to rerun with the run's options, not missing,
    // whichever run sorts first.
    for (stray, order) in
        [(&strip[1], [&set[0], &strip[1], &set[2]]), (&strip[0], [&strip[0], &set[1], &set[2]])]
    {
        let mut args = vec!["merge", "-o", path(&merged)];
        args.extend(order.iter().map(|p| path(p)));
        let (exit, err) = code_and_err(&args);
        assert_eq!(exit, Some(65), "{err}");
        let spec = if stray == &strip[0] { "0/3" } else { "1/3" };
        let says = format!("{}: of another run than ", stray.display());
        assert!(err.contains(&says) && err.contains("the options ("), "{err}");
        // The run without options is said to have run with the defaults.
        assert!(err.contains("and the defaults)") || err.contains("(the defaults and"), "{err}");
        assert!(
            err.contains(&format!("rerun shard {spec} with the same command, options and inputs")),
            "{err}"
        );
        assert!(!err.contains("missing shards") && !err.contains("no manifest"), "{err}");
    }
    // Another run's shard where the run has its own: left out, not to rerun.
    let (exit, err) = code_and_err(&[
        "merge",
        "-o",
        path(&merged),
        path(&set[0]),
        path(&set[1]),
        path(&strip[1]),
        path(&set[2]),
    ]);
    assert_eq!(exit, Some(65), "{err}");
    assert!(err.contains(&format!("{}: of another run than ", strip[1].display())), "{err}");
    assert!(err.contains("leave it out of the merge") && !err.contains("rerun shard"), "{err}");
    // Another count.
    let four = dir.join("four");
    std::fs::create_dir_all(&four).expect("dir");
    let four = shards(&four, &inputs, 4, &[]);
    merge_fails(&dir, &[set[0].clone(), set[1].clone(), four[3].clone()], "the shard count");
    // Whichever sorts first, the stray manifest is the one named, and the run's gap too.
    let (exit, err) =
        code_and_err(&["merge", "-o", path(&merged), path(&four[3]), path(&set[0]), path(&set[2])]);
    assert_eq!(exit, Some(65), "{err}");
    assert!(err.contains(&format!("{}: of another run than", four[3].display())), "{err}");
    assert!(err.contains("the shard counts (4 and 3) differ; leave it out of the merge"), "{err}");
    assert!(!err.contains(&format!("{}: of another run than", set[0].display())), "{err}");
    assert!(err.contains("missing shards") && err.contains(": 1 of 3"), "{err}");
    // Another version.
    let text = std::fs::read_to_string(&set[1]).expect("read");
    let version = format!("\"pgnkit_version\": \"{}\"", env!("CARGO_PKG_VERSION"));
    std::fs::write(&set[1], text.replace(&version, "\"pgnkit_version\": \"0.0.1\"")).expect("write");
    merge_fails(&dir, &set, "made by pgnkit 0.0.1");
    std::fs::write(&set[1], &text).expect("write");
    // A part changed after its manifest was written.
    let part = dir.join("out.pgn.part-2-of-3");
    let bytes = std::fs::read(&part).expect("read");
    let mut changed = bytes.clone();
    changed[10] ^= 1;
    std::fs::write(&part, &changed).expect("write");
    merge_fails(&dir, &set, "shard 2/3's part changed");
    std::fs::remove_file(&part).expect("rm");
    merge_fails(&dir, &set, "shard 2/3's part is missing");
    // A part the system cannot read (a directory opens, and reading it fails): an I/O error.
    std::fs::create_dir(&part).expect("mkdir");
    merge_stops(&dir, &set, &format!("{}: read error: ", part.display()), 74);
    std::fs::remove_dir(&part).expect("rmdir");
    std::fs::write(&part, &bytes).expect("write");
    // Not a manifest.
    std::fs::write(dir.join("junk.json"), "{}").expect("write");
    merge_fails(
        &dir,
        &[set[0].clone(), set[1].clone(), set[2].clone(), dir.join("junk.json")],
        "not a pgnkit shard manifest",
    );
    // An input changed between the shards: shard 1 ran on another version of it.
    let before = std::fs::read(&input).expect("read");
    let mut after = before.clone();
    after.extend_from_slice(b"\n[Event \"late\"]\n\n1. e4 *\n");
    std::fs::write(&input, &after).expect("write");
    let late = shard(&dir, &inputs, 1, 3, &[]);
    let mixed = [set[0].clone(), late, set[2].clone()];
    merge_fails(&dir, &mixed, "changed between the shards");
    // Shard 1 rerun as the others ran would read the edited input again: all are to run again.
    merge_fails(&dir, &mixed, "run all 3 shards again on the inputs as they are now");
}

/// A shard of a run of an enormous count: the refusal names the first missing shards and counts
/// the rest (listing every one ran out of memory).
#[test]
fn a_huge_shard_count_is_refused_with_a_short_list() {
    let dir = temp_dir("shard-huge");
    let input = fixture("pgn/bad_games.pgn");
    let n = u64::MAX;
    let last = shard(&dir, &[input.as_path()], n - 1, n, &[]);
    let first = shard(&dir, &[input.as_path()], 0, n, &[]);
    let (exit, err) =
        code_and_err(&["merge", "-o", path(&dir.join("merged.pgn")), path(&first), path(&last)]);
    assert_eq!(exit, Some(65), "{err}");
    assert!(
        err.contains(&format!(
            "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, and {} more of {n}",
            n - 22
        )),
        "{err}"
    );
}

/// Each annotate shard keeps its own cache; `cache merge` adds them into one, and a run over the
/// whole input with it analyses nothing again.
#[test]
fn cache_merge_joins_the_shards_caches() {
    let dir = temp_dir("shard-cache");
    let input = fixture("pgn/lichess_db_10k.pgn");
    let out = dir.join("a.jsonl");
    let mut caches = Vec::new();
    for i in 0..2 {
        let cache = dir.join(format!("c{i}.sqlite"));
        let spec = format!("{i}/2");
        let args =
            ["annotate", "-q", "--shard", &spec, "--depth", "2", "--engines", "1", "--format", "jsonl"];
        let mut args: Vec<&str> = args.to_vec();
        args.extend(["--cache", path(&cache), "-o", path(&out), path(&input)]);
        let o = run(&args);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
        caches.push(cache);
    }
    let all = dir.join("all.sqlite");
    let o = run(&["cache", "merge", path(&caches[0]), path(&caches[1]), "-o", path(&all)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("analyses added"), "{}", stderr(&o));
    let whole = dir.join("whole.jsonl");
    let args =
        ["annotate", "-q", "--depth", "2", "--engines", "1", "--format", "jsonl", "--cache", path(&all)];
    let mut args: Vec<&str> = args.to_vec();
    args.extend(["-o", path(&whole), path(&input)]);
    let o = run(&args);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let text = std::fs::read_to_string(&whole).expect("output");
    let summary: Value = serde_json::from_str(text.lines().last().expect("a summary")).expect("JSON");
    let cache = &summary["data"]["cache"];
    assert!(cache["lookups"].as_u64().unwrap_or(0) > 0, "{summary}");
    assert_eq!(cache["hits"], cache["lookups"], "every position from the merged cache: {summary}");
    // Not a cache: a data error naming it (65, as a corrupt input), the output cache untouched;
    // the same for an output that is no SQLite database.
    let junk = dir.join("junk.sqlite");
    std::fs::write(&junk, b"not sqlite").expect("write");
    let o = run(&["cache", "merge", path(&junk), "-o", path(&all)]);
    assert_eq!(o.status.code(), Some(65), "{}", stderr(&o));
    assert!(stderr(&o).contains("junk.sqlite: file is not a database"), "{}", stderr(&o));
    let o = run(&["cache", "merge", path(&all), "-o", path(&junk)]);
    assert_eq!(o.status.code(), Some(65), "{}", stderr(&o));
    assert!(stderr(&o).contains("junk.sqlite: file is not a database"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&junk).expect("junk"), b"not sqlite");
    // A cache whose pages past its header are damaged: the error names it, not the output.
    let mut bytes = std::fs::read(&caches[1]).expect("cache");
    assert!(bytes.len() > 12 << 10, "{} bytes", bytes.len());
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for b in &mut bytes[5000..9000] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    std::fs::write(dir.join("damaged.sqlite"), &bytes).expect("write");
    let dest = dir.join("dest.sqlite");
    let o = run(&["cache", "merge", path(&caches[0]), path(&dir.join("damaged.sqlite")), "-o", path(&dest)]);
    assert_eq!(o.status.code(), Some(65), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cannot add the evaluation cache ") && stderr(&o).contains("damaged.sqlite to "),
        "{}",
        stderr(&o)
    );
}
