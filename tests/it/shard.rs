//! `--shard I/N` and `pgnkit merge`: for every job, the parts of N shards merged are the bytes
//! one run writes (the summary records compared without their timings), at any -j and chunk
//! size, over the fixtures and shared collections (malformed ones too, compressed ones too); and
//! every way a set of shards can be broken is an error that names it, with nothing written.

use std::path::{Path, PathBuf};

use serde_json::Value;

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
fn assert_same(one: &[u8], merged: &[u8], what: &str) {
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

/// Outputs in other directories than `-o`'s (`--rejects rej/r.pgn`): the manifest names each
/// part by the way from it, and merge writes each output beside its parts, as one run does.
#[test]
fn outputs_in_other_directories_merge_beside_their_parts() {
    let dir = temp_dir("shard-dirs");
    let input = fixture("pgn/bad_games.pgn");
    let args = |at: &Path, shard: Option<String>| {
        let mut a: Vec<String> = vec!["clean".into(), "-q".into()];
        if let Some(spec) = shard {
            a.extend(["--shard".into(), spec]);
        }
        for (flag, file) in [("-o", "out/c.pgn"), ("--rejects", "rej/r.pgn"), ("--report", "rej/x.jsonl")] {
            a.extend([flag.into(), path(&at.join(file)).into()]);
        }
        a.push(path(&input).into());
        a
    };
    let (one, sharded) = (dir.join("one"), dir.join("sharded"));
    for d in ["out", "rej"] {
        std::fs::create_dir_all(one.join(d)).expect("dir");
        std::fs::create_dir_all(sharded.join(d)).expect("dir");
    }
    let o = run(&args(&one, None).iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(o.status.code(), Some(1), "rejects: {}", stderr(&o));
    for i in 0..2 {
        let o = run(&args(&sharded, Some(format!("{i}/2"))).iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    }
    let o = run(&["merge", "-q", path(&sharded.join("out"))]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    for file in ["out/c.pgn", "rej/r.pgn", "rej/x.jsonl"] {
        assert_same(&read(&one.join(file)), &read(&sharded.join(file)), file);
    }
    assert!(!read(&one.join("rej/r.pgn")).is_empty(), "bad_games.pgn has rejects");
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

/// `merge --output-dir DIR` writes every merged file in DIR, made if missing, the main one under
/// `-o`'s file name (as a shard's `--output-dir` places its parts); the same bytes as beside the
/// parts.
#[test]
fn merge_writes_every_output_in_its_output_dir_made_if_missing() {
    let dir = temp_dir("shard-merge-dir");
    let input = fixture("pgn/twic1599_10k.pgn");
    let set = shards(&dir, &[input.as_path()], 2, &[]);
    let merge = |extra: &[&str]| {
        let o = run(&[&["merge", "-q"][..], extra, &[path(&set[0]), path(&set[1])]].concat());
        assert_eq!(o.status.code(), Some(0), "{extra:?}: {}", stderr(&o));
    };
    merge(&[]);
    let (beside, report) = (read(&dir.join("out.pgn")), read(&dir.join("r.jsonl")));
    let made = dir.join("made/deeper");
    merge(&["--output-dir", path(&made)]);
    assert_eq!(read(&made.join("out.pgn")), beside);
    assert_eq!(read(&made.join("r.jsonl")), report);
    let named = dir.join("named");
    let elsewhere = dir.join("elsewhere/all.pgn");
    merge(&["--output-dir", path(&named), "-o", path(&elsewhere)]);
    assert_eq!(read(&named.join("all.pgn")), beside, "-o's name, in DIR");
    assert_eq!(read(&named.join("r.jsonl")), report);
    assert!(!elsewhere.exists() && !elsewhere.parent().expect("parent").exists());
}

/// An `--output-dir` that cannot be made (under a file) is exit 73, naming it, as for a shard;
/// nothing is written.
#[test]
fn merge_and_shards_refuse_an_output_dir_they_cannot_make() {
    let dir = temp_dir("shard-merge-nodir");
    let input = fixture("pgn/twic1599_10k.pgn");
    let set = shards(&dir, &[input.as_path()], 2, &[]);
    let names = || {
        let mut names: Vec<_> =
            std::fs::read_dir(&dir).expect("dir").map(|e| e.expect("entry").file_name()).collect();
        names.sort();
        names
    };
    let before = names();
    let under_a_file = input.join("sub");
    let o = run(&["merge", "-q", "--output-dir", path(&under_a_file), path(&set[0]), path(&set[1])]);
    assert_eq!(o.status.code(), Some(73), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("--output-dir {}: cannot create", path(&under_a_file))),
        "{}",
        stderr(&o)
    );
    assert_eq!(names(), before, "nothing written");
    // Outputs are renamed into place: stdout is refused, not made a file named `-`.
    let o = run(&["merge", "-q", "-o", "-", path(&set[0]), path(&set[1])]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("merge writes files: -o - (stdout) is not one"), "{}", stderr(&o));
    assert!(stderr(&o).contains("or -o /dev/stdout to stream"), "the way that works: {}", stderr(&o));
    assert!(!Path::new("-").exists());
    assert_eq!(names(), before, "nothing written");
    let out = dir.join("again.pgn");
    let o = run(&[
        "clean",
        "-q",
        "--shard",
        "0/2",
        "--output-dir",
        path(&under_a_file),
        "-o",
        path(&out),
        path(&input),
    ]);
    assert_eq!(o.status.code(), Some(73), "{}", stderr(&o));
    assert!(stderr(&o).contains(path(&under_a_file)), "{}", stderr(&o));
    // A file where the directory would be is said so, not as a bare `File exists`.
    let said = format!(
        "--output-dir {}: cannot create the directory: it exists and is not a directory",
        path(&input)
    );
    let shard =
        ["clean", "-q", "--shard", "0/2", "--output-dir", path(&input), "-o", path(&out), path(&input)];
    let merge = ["merge", "-q", "--output-dir", path(&input), path(&set[0]), path(&set[1])];
    for args in [&shard[..], &merge] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(73), "{}", stderr(&o));
        assert!(stderr(&o).contains(&said), "{args:?}: {}", stderr(&o));
    }
    assert_eq!(names(), before, "nothing written");
}

/// An output named as an existing directory cannot be created: exit 73 before any part is
/// copied, nothing put in place, no temporary file left, the directory untouched (a rename onto
/// it after the work would fail).
#[test]
fn merge_refuses_a_directory_as_an_output_before_writing() {
    let dir = temp_dir("shard-merge-ontodir");
    let input = fixture("pgn/twic1599_10k.pgn");
    let set = shards(&dir, &[input.as_path()], 2, &[]);
    let names = |d: &Path| {
        let mut names: Vec<_> =
            std::fs::read_dir(d).expect("dir").map(|e| e.expect("entry").file_name()).collect();
        names.sort();
        names
    };
    // The main output onto a directory with a file in it.
    let onto = dir.join("all.pgn");
    std::fs::create_dir_all(&onto).expect("dir");
    std::fs::write(onto.join("kept"), "kept").expect("write");
    let before = names(&dir);
    let o = run(&["merge", "-q", "-o", path(&onto), path(&set[0]), path(&set[1])]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(73), "{err}");
    assert!(err.contains(&format!("{}: cannot create: is a directory", path(&onto))), "{err}");
    assert!(err.contains("nothing written"), "{err}");
    assert_eq!(names(&dir), before, "nothing written, no temporary file left");
    assert_eq!(names(&onto), ["kept"]);
    // The report onto an empty directory: the main output is not put in place without it.
    std::fs::create_dir_all(dir.join("r.jsonl")).expect("dir");
    let o = run(&["merge", "-q", "-o", path(&dir.join("main.pgn")), path(&set[0]), path(&set[1])]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(73), "{err}");
    assert!(err.contains(&format!("{}: cannot create: is a directory", path(&dir.join("r.jsonl")))), "{err}");
    assert!(!dir.join("main.pgn").exists(), "the main output is not put in place either");
}

/// A device, a pipe and the file the standard output is redirected to are written in place: a
/// temporary file renamed onto `/dev/stdout` replaced the link itself (as root) and the
/// redirection's file got nothing; renamed onto a FIFO (standing in for `/dev/null`), it replaced
/// the pipe and its reader got nothing.
#[cfg(unix)]
#[test]
fn merge_writes_devices_pipes_and_the_standard_output_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = temp_dir("shard-merge-in-place");
    let (set, want) = two_shards_merged(&dir);
    let (one, two) = (path(&set[0]), path(&set[1]));
    assert!(!want.is_empty());
    // The standard output, redirected to a file.
    let redirected = dir.join("stdout.pgn");
    let o = crate::util::pgnkit()
        .args(["merge", "-q", "-o", "/dev/stdout", one, two])
        .stdout(std::fs::File::create(&redirected).expect("create"))
        .output()
        .expect("pgnkit");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(read(&redirected) == want, "the redirection's file holds the merge");
    let link = std::fs::symlink_metadata("/dev/stdout").expect("/dev/stdout");
    assert!(
        link.file_type().is_symlink() || link.file_type().is_char_device(),
        "/dev/stdout is left as it was"
    );
    // A pipe.
    let fifo = dir.join("fifo.pgn");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).expect("read the pipe"))
    };
    let o = run(&["merge", "-q", "-o", path(&fifo), one, two]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Checked before joining: after a rename onto the path the reader would wait forever.
    assert!(std::fs::metadata(&fifo).expect("fifo").file_type().is_fifo(), "still a FIFO");
    assert!(reader.join().expect("reader") == want, "the pipe's reader got the merge");
}

/// What does not shape the output (quiet, threads) may differ between shards: they still merge.
#[test]
fn shards_run_with_and_without_quiet_or_threads_merge() {
    let dir = temp_dir("shard-quiet");
    let input = fixture("pgn/twic1599_10k.pgn");
    let out = dir.join("out.pgn");
    for (i, extra) in [(0u64, vec!["-q", "-j1"]), (1, vec!["-j2"])] {
        let spec = format!("{i}/2");
        let mut args = vec!["clean", "--shard", &spec, "-o", path(&out)];
        args.extend(extra);
        args.push(path(&input));
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let merged = dir.join("merged.pgn");
    let o = run(&["merge", "-q", "-o", path(&merged), path(&dir)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let one = dir.join("one.pgn");
    let o = run(&["clean", "-q", "-o", path(&one), path(&input)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(read(&merged), read(&one));
}

/// An option given at its default value, or in another spelling of its value (an alias, `080`),
/// is the option not given, and a set of values is the same set in any order: shards run either
/// way record the same options and merge.
#[test]
fn options_at_their_defaults_compare_by_their_effective_values() {
    let dir = temp_dir("shard-defaults");
    let games = fixture("pgn/twic1599_10k.pgn");
    // Two short games: annotate at its default limit (100000 nodes) takes a moment.
    let short = dir.join("short.pgn");
    std::fs::write(&short, "[Event \"a\"]\n\n1. e4 e5 *\n\n[Event \"b\"]\n\n1. d4 d5 *\n").expect("write");
    // The command, its output, the options of shard 0 and of shard 1, the input.
    type Case<'a> = (&'a str, &'a str, &'a [&'a str], &'a [&'a str], &'a Path);
    let cases: [Case; 6] = [
        ("clean", "c.pgn", &["--line-width", "080", "--tags", "all"], &["-j1", "--chunk-kib", "64"], &games),
        // Sets of values in any order, repeated or not.
        (
            "clean",
            "s.pgn",
            &["--strip", "nags,comments", "--drop-tags", "A,B", "--where", "Elo > 1", "--where", "Year > 1"],
            &[
                "--strip",
                "comments,nags,nags",
                "--drop-tags",
                "B,A",
                "--where",
                "Elo > 1",
                "--where",
                "Year > 1",
            ],
            &games,
        ),
        ("positions", "p.fen", &["--format", "fen", "--every", "1", "--ep-square", "legal"], &[], &games),
        ("check", "v.txt", &["--variant", "960"], &["--variant", "chess960"], &games),
        // ECO ranges comma-separated or repeated, in the same order.
        ("check", "e.txt", &["--eco", "A00-B99,C42"], &["--eco", "A00-B99", "--eco", " C42"], &games),
        (
            "annotate",
            "a.pgn",
            // The built-in engine's hash at its size when none is given.
            &["--format", "pgn", "--variations", "mistakes", "--nodes", "100000", "--hash", "16"],
            &[],
            &short,
        ),
    ];
    for (job, out, first, second, input) in cases {
        let out = dir.join(out);
        let mut manifests = Vec::new();
        for (i, given) in [first, second].into_iter().enumerate() {
            let spec = format!("{i}/2");
            let mut args = vec![job, "-q", "--shard", &spec, "-o", path(&out)];
            args.extend(given);
            args.push(path(input));
            let o = run(&args);
            assert!(matches!(o.status.code(), Some(0 | 1)), "{job} {spec}: {}", stderr(&o));
            let spec = pgnkit::shard::Spec::new(i as u64, 2).expect("spec");
            manifests.push(pgnkit::shard::manifest_path(&pgnkit::shard::part_path(&out, None, spec)));
        }
        let options = |m: &PathBuf| pgnkit::shard::Manifest::read(m).expect("manifest").options;
        assert_eq!(options(&manifests[0]), options(&manifests[1]), "{job}");
        let mut args = vec!["merge", "-q"];
        args.extend(manifests.iter().map(|m| path(m)));
        let o = run(&args);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{job}: {}", stderr(&o));
    }
}

/// `--where` and `--eco` given in another order are other options: their text, in the order
/// given, is in the outputs (the summary's `where_absent`, clean's `filtered` records), so shards
/// given other orders would merge into no single run's output. The refusal shows the values
/// comma-separated, as given.
#[test]
fn where_and_eco_in_another_order_are_other_options() {
    let dir = temp_dir("shard-ordered-options");
    let games = fixture("pgn/twic1599_10k.pgn");
    type Case<'a> = (&'a [&'a str], &'a [&'a str], &'a str);
    let cases: [Case; 2] = [
        (
            &["--where", "White ~ a", "--where", "Foo ~ x"],
            &["--where", "Foo ~ x", "--where", "White ~ a"],
            "wheres=White ~ a,Foo ~ x",
        ),
        (&["--eco", "A00-B99", "--eco", "C42"], &["--eco", "C42", "--eco", "A00-B99"], "eco=A00-B99,C42"),
    ];
    for (first, second, shown) in cases {
        let out = dir.join("d.jsonl");
        let mut manifests = Vec::new();
        for (i, given) in [first, second].into_iter().enumerate() {
            let spec = format!("{i}/2");
            let mut args = vec!["check", "-q", "--json", "--shard", &spec, "-o", path(&out), path(&games)];
            args.extend(given);
            let o = run(&args);
            assert!(matches!(o.status.code(), Some(0 | 1)), "{args:?}: {}", stderr(&o));
            let spec = pgnkit::shard::Spec::new(i as u64, 2).expect("spec");
            manifests.push(pgnkit::shard::manifest_path(&pgnkit::shard::part_path(&out, None, spec)));
        }
        let merged = dir.join("merged.jsonl");
        let (exit, err) =
            code_and_err(&["merge", "-o", path(&merged), path(&manifests[0]), path(&manifests[1])]);
        assert_eq!(exit, Some(65), "{err}");
        assert!(err.contains("the options (") && err.contains(shown), "{shown}: {err}");
        assert!(!err.contains("\\u{1f}"), "{err}");
        assert!(!merged.exists(), "nothing written");
    }
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
