//! `--format parquet`: DuckDB and Polars read every file with the declared types, and its rows
//! and the answers of three queries equal the JSON Lines output of the same command
//! (scripts/parquet_check.py), over the fixtures (malformed ones too) and every shared collection,
//! the position as `fen` or as `epd`, `hmvc` and `fmvn` (`--epd-columns`);
//! the file's bytes are the same at any -j and chunk size, through a pipe, and after `merge` of
//! shards; a failed run leaves no file.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::shard::fixture_inputs;
use crate::skip::python_missing;
use crate::util::{fixture, pgnkit, run, shared_data, shared_not_pgn, stderr, temp_dir};

const TAGS: &str = "White,Black,WhiteElo,BlackElo,Date,Result,ECO";

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// Whether DuckDB and Polars are missing (then the caller is skipped; under CI it fails).
fn readers_missing() -> bool {
    python_missing("duckdb, polars", "the Python packages duckdb and polars", "pip install duckdb polars")
}

/// The option of Parquet's position as EPD columns: [`pair`] gives it to the Parquet run only.
const EPD: &str = "--epd-columns";

/// Runs `pgnkit JOB ARGS INPUT` for parquet and jsonl into `dir`; the line of the pair for
/// parquet_check.py.
fn pair(dir: &Path, job: &str, input: &Path, args: &[&str], tags: &str, k: usize) -> String {
    let parquet = dir.join(format!("{k}.parquet"));
    let jsonl = dir.join(format!("{k}.jsonl"));
    let epd = args.contains(&EPD);
    for (format, out) in [("parquet", &parquet), ("jsonl", &jsonl)] {
        let mut all = vec![job, "-q", "--format", format, "-o", path(out)];
        if !tags.is_empty() {
            all.extend(["--tags", tags]);
        }
        all.extend(args.iter().filter(|&&a| format == "parquet" || a != EPD));
        all.push(path(input));
        let o = run(&all);
        assert!(
            o.status.code().is_some_and(|c| c <= 1),
            "{job} {format} {}: {}",
            input.display(),
            stderr(&o)
        );
    }
    format!("{}\t{}\t{tags}{}\n", path(&parquet), path(&jsonl), if epd { "\tepd" } else { "" })
}

/// Runs parquet_check.py over the pairs.
fn check(dir: &Path, job: &str, pairs: &str) {
    let list = dir.join("pairs.tsv");
    std::fs::write(&list, pairs).expect("list");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/parquet_check.py");
    let o = Command::new("python3").args([path(&script), job, path(&list)]).output().expect("python3");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}{}", String::from_utf8_lossy(&o.stderr));
    assert!(text.contains(" 0 problems"), "{text}");
    eprintln!("{}", text.trim_end());
}

#[test]
fn fixtures_read_by_duckdb_and_polars_as_the_json_lines_say() {
    if readers_missing() {
        return;
    }
    let dir = temp_dir("parquet-fixtures");
    let mut pairs = String::new();
    for (k, input) in fixture_inputs().iter().enumerate() {
        pairs += &pair(&dir, "positions", input, &[], TAGS, 3 * k);
        // Games with errors dropped whole: the same rows as the other formats drop.
        pairs += &pair(&dir, "positions", input, &["--skip-errors", "--every", "3"], "", 3 * k + 1);
        // The position as EPD columns: the FEN's first four fields and its clocks.
        pairs += &pair(&dir, "positions", input, &[EPD, "--ep-square", "always"], TAGS, 3 * k + 2);
    }
    check(&dir, "positions", &pairs);
}

#[test]
fn shared_collections_read_by_duckdb_and_polars_as_the_json_lines_say() {
    let Some(data) = shared_data() else { return };
    if readers_missing() {
        return;
    }
    let dir = temp_dir("parquet-shared");
    let mut inputs = Vec::new();
    for sub in ["games", "variants", "malformed_and_tricky", "openings"] {
        collect_pgn(&data.join(sub), &mut inputs);
    }
    inputs.sort();
    assert!(inputs.len() > 50, "the shared collections' PGN files: {}", inputs.len());
    let mut pairs = String::new();
    for (k, input) in inputs.iter().enumerate() {
        // Files past 2 MB on disk: every tenth ply, to keep the run short.
        let big = std::fs::metadata(input).is_ok_and(|m| m.len() > 2 << 20);
        let args: &[&str] = if big { &["--every", "10"] } else { &[] };
        pairs += &pair(&dir, "positions", input, args, TAGS, k);
    }
    check(&dir, "positions", &pairs);
}

fn collect_pgn(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if p.is_dir() {
            collect_pgn(&p, out);
        } else if (name.ends_with(".pgn") || name.ends_with(".pgn.zst")) && !shared_not_pgn(&p) {
            out.push(p);
        }
    }
}

#[test]
fn annotate_rows_read_as_the_json_lines_say() {
    if readers_missing() {
        return;
    }
    let dir = temp_dir("parquet-annotate");
    let input = fixture("pgn/lichess_db_10k.pgn");
    let mut pairs = pair(&dir, "annotate", &input, &["--nodes", "2000", "-j", "2"], "", 0);
    pairs += &pair(&dir, "annotate", &fixture("pgn/bad_games.pgn"), &["--from-evals"], "", 1);
    pairs += &pair(&dir, "annotate", &fixture("pgn/bad_games.pgn"), &["--from-evals", EPD], "", 2);
    check(&dir, "annotate", &pairs);
}

/// `positions --format parquet ARGS -o OUT INPUTS`'s bytes.
fn parquet_of(out: &Path, args: &[&str], inputs: &[&Path]) -> Vec<u8> {
    let mut all = vec!["positions", "-q", "--format", "parquet", "--tags", TAGS, "-o", path(out)];
    all.extend(args);
    all.extend(inputs.iter().map(|p| path(p)));
    let o = run(&all);
    assert!(o.status.code().is_some_and(|c| c <= 1), "{}", stderr(&o));
    std::fs::read(out).expect("the file")
}

#[test]
fn the_file_is_the_same_at_any_thread_count_and_chunk_size() {
    let dir = temp_dir("parquet-threads");
    let fixtures = fixture_inputs();
    let inputs: Vec<&Path> = fixtures.iter().map(PathBuf::as_path).collect();
    let one = parquet_of(&dir.join("1.parquet"), &["-j", "1"], &inputs);
    let two = parquet_of(&dir.join("2.parquet"), &["-j", "2", "--chunk-kib", "1"], &inputs);
    assert!(one == two, "-j1 and -j2 --chunk-kib 1 wrote different files");
    if let Some(data) = shared_data() {
        // Past one row group (131072 rows).
        let big = [data.join("games/lichess_db_1000k.pgn"), data.join("games/twic1599_1000k.pgn")];
        let inputs: Vec<&Path> = big.iter().map(PathBuf::as_path).collect();
        let one = parquet_of(&dir.join("b1.parquet"), &["-j", "1"], &inputs);
        let two = parquet_of(&dir.join("b2.parquet"), &["-j", "2", "--chunk-kib", "64"], &inputs);
        assert!(one == two, "-j1 and -j2 wrote different files");
        assert!(one.len() > 1 << 20, "{} bytes", one.len());
    }
}

#[test]
fn a_pipe_gets_the_files_bytes() {
    let dir = temp_dir("parquet-pipe");
    let input = fixture("pgn/lichess_db_10k.pgn");
    let file = parquet_of(&dir.join("a.parquet"), &[], &[&input]);
    let o = pgnkit()
        .args(["positions", "-q", "--format", "parquet", "--tags", TAGS, path(&input)])
        .stdin(Stdio::null())
        .output()
        .expect("pgnkit");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout == file, "stdout differs from -o FILE");
    assert!(file.starts_with(b"PAR1") && file.ends_with(b"PAR1"));
}

#[test]
fn shards_merge_to_the_single_runs_file() {
    let dir = temp_dir("parquet-shards");
    let fixtures = fixture_inputs();
    let inputs: Vec<&Path> = fixtures.iter().map(PathBuf::as_path).collect();
    let single = parquet_of(&dir.join("single.parquet"), &[], &inputs);
    let parts = dir.join("parts");
    for i in 0..3 {
        let spec = format!("{i}/3");
        let mut args = vec!["positions", "-q", "--format", "parquet", "--tags", TAGS, "-o", "all.parquet"];
        args.extend(["--shard", &spec, "--output-dir", path(&parts)]);
        args.extend(inputs.iter().map(|p| path(p)));
        let o = run(&args);
        assert!(o.status.code().is_some_and(|c| c <= 1), "{}", stderr(&o));
    }
    for i in 0..3 {
        assert!(parts.join(format!("all.part-{i}-of-3.parquet")).is_file(), "part {i} ends in .parquet");
    }
    // A manifest written before parts were marked tables: a table is known by its name then.
    let older = parts.join("all.part-1-of-3.parquet.manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&older).expect("read")).expect("JSON");
    for part in manifest["parts"].as_array_mut().expect("parts") {
        assert!(part.as_object_mut().expect("a part").remove("table").is_some());
    }
    std::fs::write(&older, manifest.to_string()).expect("write");
    let merged = dir.join("merged.parquet");
    let o = run(&["merge", "-q", path(&parts), "-o", path(&merged)]);
    assert!(o.status.code().is_some_and(|c| c <= 1), "{}", stderr(&o));
    assert!(std::fs::read(&merged).expect("merged") == single, "merge differs from a single run");
    if !readers_missing() {
        let glob = format!("{}/*.part-*.parquet", path(&parts));
        let sql = format!(
            "import duckdb; print(duckdb.sql(\"SELECT count(*) FROM read_parquet('{glob}')\").fetchall()[0][0], duckdb.sql(\"SELECT count(*) FROM '{}'\").fetchall()[0][0])",
            path(&merged)
        );
        let o = Command::new("python3").args(["-c", &sql]).output().expect("python3");
        let text = String::from_utf8_lossy(&o.stdout);
        let counts: Vec<&str> = text.split_whitespace().collect();
        assert!(counts.len() == 2 && counts[0] == counts[1], "{text}{}", String::from_utf8_lossy(&o.stderr));
    }
}

/// What `merge` does with a part follows the job's format, not the output's name: a Parquet
/// table named `.pq` is rewritten as one table, FEN text named `.parquet` is joined as text.
#[test]
fn merge_knows_a_table_by_its_format_not_its_name() {
    let dir = temp_dir("parquet-names");
    let input = fixture("pgn/lichess_db_10k.pgn");
    for (format, name) in [("parquet", "all.pq"), ("fen", "all.parquet")] {
        let single = dir.join(format!("single-{name}"));
        let o = run(&["positions", "-q", "--format", format, "-o", path(&single), path(&input)]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = dir.join(name);
        let mut manifests = Vec::new();
        for i in 0..2 {
            let spec = format!("{i}/2");
            let o = run(&[
                "positions",
                "-q",
                "--format",
                format,
                "--shard",
                &spec,
                "-o",
                path(&out),
                path(&input),
            ]);
            assert!(o.status.success(), "{}", stderr(&o));
            let manifest = std::fs::read_dir(&dir)
                .expect("dir")
                .map(|e| e.expect("entry").path())
                .find(|p| path(p).ends_with(".manifest.json") && path(p).contains(&format!("part-{i}-of-2")))
                .expect("a manifest");
            manifests.push(manifest);
        }
        let mut args = vec!["merge", "-q"];
        args.extend(manifests.iter().map(|p| path(p)));
        let o = run(&args);
        assert!(o.status.success(), "{format} as {name}: {}", stderr(&o));
        let merged = std::fs::read(&out).expect("merged");
        assert!(
            merged == std::fs::read(&single).expect("single"),
            "{format} as {name}: merge differs from one run"
        );
        for m in &manifests {
            std::fs::remove_file(m).expect("manifest");
        }
    }
}

#[test]
fn a_failed_run_leaves_no_file_and_bad_options_say_why() {
    let dir = temp_dir("parquet-failed");
    let out = dir.join("out.parquet");
    let missing = dir.join("missing.pgn");
    let o = run(&["positions", "-q", "--format", "parquet", "-o", path(&out), path(&missing)]);
    assert!(!o.status.success());
    assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 0, "no file, no temporary file");
    let input = fixture("pgn/lichess_db_10k.pgn");
    let o = run(&[
        "positions",
        "--format",
        "parquet",
        "--tags",
        "Date,Date_text",
        "-o",
        path(&out),
        path(&input),
    ]);
    assert_eq!(o.status.code(), Some(2), "a usage error: {}", stderr(&o));
    assert!(stderr(&o).contains("Date_text"), "{}", stderr(&o));
    let o = run(&["positions", "--format", "parquet", EPD, "--tags", "hmvc", "-o", path(&out), path(&input)]);
    assert_eq!(o.status.code(), Some(2), "a usage error: {}", stderr(&o));
    assert!(stderr(&o).contains("\"hmvc\" would be two columns"), "{}", stderr(&o));
    for job in ["positions", "annotate"] {
        let o = run(&[job, "--format", "jsonl", EPD, "-o", path(&out), path(&input)]);
        assert_eq!(o.status.code(), Some(2), "{job}: a usage error: {}", stderr(&o));
        assert!(stderr(&o).contains("--epd-columns needs --format parquet"), "{}", stderr(&o));
    }
    // A compressed stream around the file would be a file no Parquet reader opens.
    for (job, name) in [("positions", "out.parquet.zst"), ("annotate", "out.parquet.gz")] {
        let out = dir.join(name);
        let o = run(&[job, "--format", "parquet", "-o", path(&out), path(&input)]);
        assert_eq!(o.status.code(), Some(2), "{job}: a usage error: {}", stderr(&o));
        assert!(stderr(&o).contains("compresses its own pages"), "{}", stderr(&o));
    }
    assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 0, "no file, no temporary file");
}

#[test]
fn unique_keeps_the_positions_fen_keeps() {
    if readers_missing() {
        return;
    }
    let dir = temp_dir("parquet-unique");
    let fixtures = fixture_inputs();
    let inputs: Vec<&str> = fixtures.iter().map(|p| path(p)).collect();
    let (parquet, fen) = (dir.join("u.parquet"), dir.join("u.fen"));
    for (format, out) in [("parquet", &parquet), ("fen", &fen)] {
        let mut args = vec!["positions", "-q", "--unique", "-j", "2", "--format", format, "-o", path(out)];
        args.extend(&inputs);
        let o = run(&args);
        assert!(o.status.code().is_some_and(|c| c <= 1), "{}", stderr(&o));
    }
    let read = format!(
        "import duckdb; print('\\n'.join(r[0] for r in duckdb.sql(\"SELECT fen FROM '{}'\").fetchall()))",
        path(&parquet)
    );
    let o = Command::new("python3").args(["-c", &read]).output().expect("python3");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let fens = std::fs::read_to_string(&fen).expect("fen");
    assert!(fens.lines().count() > 100, "{} positions", fens.lines().count());
    assert!(String::from_utf8_lossy(&o.stdout) == fens, "the Parquet file's FENs differ from --format fen's");
}
