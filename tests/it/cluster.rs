//! pgnkit on a cluster: the job scripts of `deploy/` run as their engines run them. Job arrays on
//! a real single-node Slurm (`scripts/slurm-up.sh`, found through `PGNKIT_SLURM_CONF`), the GNU
//! parallel recipe on this machine, and the Kubernetes manifests validated offline
//! (`kubernetes-validate --strict`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::skip::skip;
use crate::slurm::{Cluster, field};
use crate::util::temp_dir;

/// A file under `deploy/`.
fn deploy(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy").join(rel)
}

/// A stand-in for pgnkit in `dir` that records, per task, the scheduler's index variables and
/// the arguments it was given (one a line): in `args-JOB-ID.txt` for Slurm's task ID of job JOB,
/// `args-parallel-SEQ.txt` for GNU parallel's job SEQ.
fn recorder(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("record-args");
    let script = "#!/bin/sh\n\
        id=${SLURM_ARRAY_TASK_ID:-$PARALLEL_SEQ}\n\
        { echo \"$SLURM_ARRAY_TASK_ID $SLURM_ARRAY_TASK_MIN $SLURM_ARRAY_TASK_STEP $SLURM_ARRAY_TASK_COUNT\"; \
        printf '%s\\n' \"$@\"; } > \"args-${SLURM_ARRAY_JOB_ID:-parallel}-$id.txt\"\n";
    std::fs::write(&path, script).expect("write the recorder");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// The lines of `dir/NAME`.
fn lines_of(dir: &Path, name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    text.lines().map(str::to_owned).collect()
}

/// Every task of the ended job `tasks` (`scontrol -o show job` lines) completed with exit code 0
/// (the script counts a shard's 1, games with errors, as done).
fn assert_completed(tasks: &[String], dir: &Path) {
    for t in tasks {
        let state = (field(t, "JobState"), field(t, "ExitCode"));
        assert_eq!(state, (Some("COMPLETED"), Some("0:0")), "{t}\nlogs in {}", dir.display());
    }
}

#[test]
fn slurm_array_runs_the_deploy_script_once_per_task_with_its_index() {
    let Some(cluster) = Cluster::find() else { return };
    let dir = temp_dir("cluster-array-script");
    // Slurm opens each task's log before the task runs: its directory has to be there.
    std::fs::create_dir(dir.join("logs")).expect("mkdir logs");
    let pgnkit = recorder(&dir);
    let export = format!("--export=ALL,PGNKIT={}", pgnkit.display());
    let script = deploy("slurm/pgnkit-array.sbatch");
    let script = script.to_str().expect("a UTF-8 path");
    // IDs 1, 3, 5, 7: `--shard auto` reads the index as (ID - MIN) / STEP of COUNT tasks.
    let annotate = cluster.submit(
        &dir,
        &[
            "--array=1-7:2",
            "--cpus-per-task=1",
            &export,
            script,
            "annotate",
            "--nodes",
            "1000",
            "-o",
            "a.pgn",
            "in.pgn",
        ],
    );
    let check = cluster.submit(
        &dir,
        &["--array=0-1", "--cpus-per-task=1", &export, script, "check", "-o", "c.txt", "in.pgn"],
    );
    let limit = Duration::from_secs(60);
    let tasks = cluster.wait(&annotate, limit);
    assert_eq!(tasks.len(), 4, "{tasks:?}");
    assert_completed(&tasks, &dir);
    assert_completed(&cluster.wait(&check, limit), &dir);

    for id in [1, 3, 5, 7] {
        let cache = format!("cache/shard-{:03}.sqlite", (id - 1) / 2);
        let expected = [
            &format!("{id} 1 2 4"),
            "annotate",
            "--shard",
            "auto",
            "-j",
            "1",
            "--cache",
            &cache,
            "--nodes",
            "1000",
            "-o",
            "a.pgn",
            "in.pgn",
        ];
        assert_eq!(lines_of(&dir, &format!("args-{annotate}-{id}.txt")), expected, "task {id}");
    }
    // Each task runs as many threads as it has CPUs; only annotate keeps a cache per task.
    for id in [0, 1] {
        let args = lines_of(&dir, &format!("args-{check}-{id}.txt"));
        assert_eq!(args[1..], ["check", "--shard", "auto", "-j", "1", "-o", "c.txt", "in.pgn"], "task {id}");
    }
    assert!(dir.join("cache").is_dir());
    // Each task's log, appended to when a task runs again, names the task and its run.
    let log =
        std::fs::read_to_string(dir.join(format!("logs/pgnkit-{annotate}_5.out"))).expect("task 5's log");
    assert!(log.contains(&format!("task 5 of job {annotate}, run 1 on")), "{log}");
}

/// The Slurm script names annotate's cache after the shard `--shard auto` runs, not the task ID:
/// in an array numbered from 1 or stepped, and when shards are run again by their numbers with
/// the run's count (PGNKIT_SHARDS or --shards), the shard's cache is the one it resumes from.
/// Run as Slurm runs it, with a task's variables, without Slurm.
#[test]
fn slurm_script_names_the_cache_after_the_shard_pgnkit_runs() {
    let dir = temp_dir("cluster-array-cache");
    std::fs::copy(crate::util::fixture("pgn/twic1599_10k.pgn"), dir.join("in.pgn")).expect("copy");
    let pgnkit = recorder(&dir);
    // ID, MIN, STEP, COUNT, PGNKIT_SHARDS, --shards: the shard --shard auto finds.
    type Case<'a> = (u64, u64, u64, u64, Option<&'a str>, Option<&'a str>, u64);
    let cases: [Case; 6] = [
        (2, 0, 1, 4, None, None, 2),
        (3, 1, 1, 4, None, None, 2),
        (3, 1, 1, 4, Some("4"), None, 2),
        (7, 1, 2, 4, None, None, 3),
        (6, 6, 1, 1, Some("10"), None, 6),
        (6, 6, 1, 1, None, Some("10"), 6),
    ];
    for (k, (id, min, step, count, env_count, flag_count, shard)) in cases.into_iter().enumerate() {
        let slurm = [
            ("SLURM_ARRAY_JOB_ID", k.to_string()),
            ("SLURM_ARRAY_TASK_ID", id.to_string()),
            ("SLURM_ARRAY_TASK_MIN", min.to_string()),
            ("SLURM_ARRAY_TASK_STEP", step.to_string()),
            ("SLURM_ARRAY_TASK_COUNT", count.to_string()),
        ];
        let with = |c: &mut Command| {
            c.current_dir(&dir).envs(slurm.iter().map(|(k, v)| (k, v))).env_remove("PGNKIT_SHARDS");
            if let Some(n) = env_count {
                c.env("PGNKIT_SHARDS", n);
            }
        };
        let mut args = vec!["annotate", "--nodes", "1000"];
        args.extend(flag_count.map(|n| ["--shards", n]).into_iter().flatten());
        args.extend(["-o", "a.pgn", "in.pgn"]);
        let mut script = Command::new("bash");
        script.arg(deploy("slurm/pgnkit-array.sbatch")).args(&args).env("PGNKIT", &pgnkit);
        with(&mut script);
        let o = script.stdin(Stdio::null()).output().expect("run the script");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let recorded = lines_of(&dir, &format!("args-{k}-{id}.txt"));
        let cache = recorded.iter().skip_while(|a| *a != "--cache").nth(1).expect("--cache").clone();
        assert_eq!(cache, format!("cache/shard-{shard:03}.sqlite"), "case {k}: {recorded:?}");
        // The shard pgnkit itself runs with those variables.
        let out = format!("c{k}.txt");
        let mut run = crate::util::pgnkit();
        run.args(["check", "-q", "--shard", "auto", "-o", &out, "in.pgn"]);
        run.args(flag_count.map(|n| ["--shards", n]).into_iter().flatten());
        with(&mut run);
        let o = run.output().expect("pgnkit");
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&o.stderr));
        let n: u64 = env_count.or(flag_count).map_or(count, |n| n.parse().expect("count"));
        let spec = pgnkit::shard::Spec::new(shard, n).expect("spec");
        let part = pgnkit::shard::part_path(Path::new(&out), None, spec);
        assert!(dir.join(&part).is_file(), "case {k}: pgnkit ran shard {spec}");
    }
}

#[test]
fn gnu_parallel_recipe_runs_each_shard_once_numbered_from_0() {
    if !gnu_parallel() {
        return;
    }
    let dir = temp_dir("cluster-parallel-script");
    let pgnkit = recorder(&dir);
    let o = Command::new(deploy("parallel/pgnkit-parallel.sh"))
        .args(["3", "annotate", "--nodes", "1000", "-o", "out/a.pgn", "in.pgn"])
        .current_dir(&dir)
        .env("PGNKIT", &pgnkit)
        .env("SSHLOGINS", "2/:")
        .stdin(Stdio::null())
        .output()
        .expect("run the recipe");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for seq in 1..=3 {
        let shard = seq - 1;
        let args = lines_of(&dir, &format!("args-parallel-{seq}.txt"));
        let cache = format!("cache/shard-{shard}.sqlite");
        let expected = [
            "annotate",
            "--shard",
            &format!("{shard}/3"),
            "--cache",
            &cache,
            "--nodes",
            "1000",
            "-o",
            "out/a.pgn",
            "in.pgn",
        ];
        assert_eq!(args[1..], expected, "parallel's job {seq}");
    }
    // The job log lists the three shards, each run once and each a success.
    let log = lines_of(&dir, "shards.log");
    assert_eq!(log.len(), 4, "{log:?}");
    assert!(log[1..].iter().all(|l| l.split('\t').nth(6) == Some("0")), "{log:?}");
}

/// Whether GNU parallel is installed (moreutils' `parallel` is not it); skips the test if not.
fn gnu_parallel() -> bool {
    let found = Command::new("parallel")
        .arg("--version")
        .output()
        .is_ok_and(|o| stdout_has(&o.stdout, "GNU parallel"));
    if !found {
        skip("GNU parallel not found (apt-get install -y parallel)");
    }
    found
}

fn stdout_has(out: &[u8], text: &str) -> bool {
    String::from_utf8_lossy(out).contains(text)
}

#[test]
fn kubernetes_manifests_pass_strict_validation() {
    let Ok(o) = Command::new("kubernetes-validate").arg("--version").output() else {
        skip("kubernetes-validate not found (pip install kubernetes-validate==1.37.0)");
        return;
    };
    assert!(o.status.success(), "kubernetes-validate --version: {}", String::from_utf8_lossy(&o.stderr));
    let validate = |path: &Path| {
        let o = Command::new("kubernetes-validate")
            .arg("--strict")
            .arg(path)
            .output()
            .expect("run kubernetes-validate");
        (
            o.status.success(),
            format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)),
        )
    };
    for name in ["indexed-job.yaml", "merge-job.yaml"] {
        let (ok, out) = validate(&deploy(&format!("kubernetes/{name}")));
        assert!(ok && out.contains("passed"), "{name}: {out}");
    }
    // --strict catches a misspelt field, which Kubernetes would drop without a word.
    let dir = temp_dir("cluster-kubernetes-strict");
    let text = std::fs::read_to_string(deploy("kubernetes/indexed-job.yaml")).expect("read the manifest");
    let misspelt = text.replacen("backoffLimitPerIndex:", "backofLimitPerIndex:", 1);
    assert_ne!(misspelt, text);
    std::fs::write(dir.join("job.yaml"), misspelt).expect("write");
    let (ok, out) = validate(&dir.join("job.yaml"));
    assert!(!ok && out.contains("backofLimitPerIndex"), "{out}");
}

/// The collections the arrays shard: two of about 1 MB and a malformed one (errors, rejects).
fn collections(data: &Path) -> Vec<String> {
    [
        "games/lichess_db_1000k.pgn",
        "games/twic1599_1000k.pgn",
        "malformed_and_tricky/chess-library/corrupted.pgn",
    ]
    .iter()
    .map(|rel| data.join(rel).to_str().expect("a UTF-8 path").to_owned())
    .collect()
}

/// `pgnkit ARGS` run once in `dir` (the single run the merged shards must equal); its exit code.
fn one_run(dir: &Path, args: &[String]) -> i32 {
    let o =
        crate::util::pgnkit().args(args).current_dir(dir).stdin(Stdio::null()).output().expect("run pgnkit");
    let code = o.status.code().expect("an exit code");
    assert!(matches!(code, 0 | 1), "pgnkit {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    code
}

/// `pgnkit merge DIR` run in `dir`: writes the outputs under the names the shards were given.
fn merge(dir: &Path, parts: &str) -> (i32, String) {
    let o = crate::util::pgnkit()
        .args(["merge", parts])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("merge");
    (o.status.code().expect("an exit code"), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// Asserts that `dir/merged` and `dir/single` hold the same bytes.
fn assert_same_file(dir: &Path, merged: &str, single: &str) {
    let (a, b) = (std::fs::read(dir.join(merged)), std::fs::read(dir.join(single)));
    let (a, b) = (a.expect(merged), b.expect(single));
    assert!(!b.is_empty(), "{single} is empty");
    assert!(
        a == b,
        "{merged} ({} bytes) differs from {single} ({} bytes) in {}",
        a.len(),
        b.len(),
        dir.display()
    );
}

/// `sbatch --array=0-3` of deploy/slurm/pgnkit-array.sbatch running the built pgnkit with `args`.
fn submit_array(cluster: &Cluster, dir: &Path, args: &[String]) -> String {
    let export = format!("--export=ALL,PGNKIT={}", env!("CARGO_BIN_EXE_pgnkit"));
    let script = deploy("slurm/pgnkit-array.sbatch");
    let mut all = vec!["--array=0-3", "--cpus-per-task=1", &export, script.to_str().expect("a UTF-8 path")];
    all.extend(args.iter().map(String::as_str));
    cluster.submit(dir, &all)
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// A job of an array: its name (the directory of its parts), its options, and its outputs as
/// (the name the shards are given, the single run's name).
type Job<'a> = (&'a str, Vec<&'a str>, Vec<(&'a str, &'a str)>);

#[test]
fn slurm_arrays_of_check_clean_dedup_and_positions_unique_merge_to_one_run() {
    let Some(cluster) = Cluster::find() else { return };
    let Some(data) = crate::util::shared_data() else { return };
    let dir = temp_dir("cluster-slurm-jobs");
    std::fs::create_dir(dir.join("logs")).expect("mkdir logs");
    let mut inputs = collections(&data);
    // The first games of a TWIC issue again: repeats that lie in other shards than their first.
    inputs.push(data.join("games/twic1599_100k.pgn").to_str().expect("a UTF-8 path").to_owned());
    let jobs: [Job; 6] = [
        (
            "check",
            vec!["check", "-q", "-o", "check/report.txt"],
            vec![("check/report.txt", "one-report.txt")],
        ),
        (
            "clean",
            vec!["clean", "-q", "-o", "clean/clean.pgn", "--rejects", "clean/rejects.pgn"],
            vec![("clean/clean.pgn", "one-clean.pgn"), ("clean/rejects.pgn", "one-rejects.pgn")],
        ),
        (
            "positions",
            vec!["positions", "-q", "--format", "epd", "-o", "positions/positions.epd"],
            vec![("positions/positions.epd", "one-positions.epd")],
        ),
        (
            "dedup",
            vec![
                "clean",
                "-q",
                "--dedup",
                "-o",
                "dedup/clean.pgn",
                "--duplicates",
                "dedup/dups.pgn",
                "--report",
                "dedup/report.jsonl",
            ],
            vec![
                ("dedup/clean.pgn", "one-dedup.pgn"),
                ("dedup/dups.pgn", "one-dups.pgn"),
                ("dedup/report.jsonl", "one-report.jsonl"),
            ],
        ),
        (
            "prefix",
            vec![
                "clean",
                "-q",
                "--dedup=prefix",
                "-o",
                "prefix/clean.pgn",
                "--duplicates",
                "prefix/dups.pgn",
                "--report",
                "prefix/report.jsonl",
            ],
            vec![
                ("prefix/clean.pgn", "one-prefix.pgn"),
                ("prefix/dups.pgn", "one-prefix-dups.pgn"),
                ("prefix/report.jsonl", "one-prefix-report.jsonl"),
            ],
        ),
        (
            "unique",
            vec!["positions", "-q", "--unique", "--format", "epd", "-o", "unique/positions.epd"],
            vec![("unique/positions.epd", "one-unique.epd")],
        ),
    ];
    let mut submitted = Vec::new();
    for (name, args, _) in &jobs {
        std::fs::create_dir(dir.join(name)).expect("mkdir");
        let mut args = strings(args);
        args.extend(inputs.iter().cloned());
        submitted.push(submit_array(&cluster, &dir, &args));
    }
    // The single runs while the arrays run.
    let mut codes = Vec::new();
    for (_, args, outputs) in &jobs {
        let mut single = strings(args);
        for (shards, one) in outputs {
            let at = single.iter().position(|a| a == shards).expect("the output in the options");
            single[at] = one.to_string();
        }
        single.extend(inputs.iter().cloned());
        codes.push(one_run(&dir, &single));
    }
    for (((name, _, outputs), id), code) in jobs.iter().zip(&submitted).zip(codes) {
        let tasks = cluster.wait(id, Duration::from_secs(150));
        assert_eq!(tasks.len(), 4, "{name}: {tasks:?}");
        // A task's status is its shard's: 1 where its games have errors.
        for t in &tasks {
            assert!(
                matches!(field(t, "ExitCode"), Some("0:0" | "1:0")),
                "{name}: {t}\nlogs in {}",
                dir.display()
            );
        }
        let (merged, says) = merge(&dir, name);
        assert_eq!(merged, code, "{name}: merge exits as the single run did: {says}");
        assert!(says.contains("pgnkit merge: 4 shards"), "{name}: {says}");
        for (shards, one) in outputs {
            if shards.ends_with(".jsonl") {
                assert_same_records(&dir, shards, one);
            } else {
                assert_same_file(&dir, shards, one);
            }
        }
    }
}

/// Asserts that the reports `dir/merged` and `dir/single` hold the same records before their
/// summaries (whose seconds differ), and summaries that count the same.
fn assert_same_records(dir: &Path, merged: &str, single: &str) {
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let (a, b) = (read(merged), read(single));
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    assert!(a.len() > 1 && a.len() == b.len(), "{merged}: {} records, {single}: {}", a.len(), b.len());
    assert!(a[..a.len() - 1] == b[..b.len() - 1], "{merged} differs from {single} in {}", dir.display());
    let ledger =
        |line: &str| serde_json::from_str::<serde_json::Value>(line).expect("JSON")["data"]["ledger"].clone();
    assert_eq!(ledger(a[a.len() - 1]), ledger(b[b.len() - 1]), "{merged}: the ledger");
}

const STOCKFISH: &str = "/usr/games/stockfish";

/// The evaluations an annotate cache holds (0 while it is being created).
fn cached(cache: &Path) -> u64 {
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
    let Ok(db) = rusqlite::Connection::open_with_flags(cache, flags) else { return 0 };
    db.query_row("SELECT count(*) FROM evals", [], |r| r.get::<_, i64>(0)).map_or(0, |n| n as u64)
}

/// The process group of the pgnkit that task `task` of Slurm job `job` runs (the batch script
/// execs it), found by its environment.
fn task_process_group(job: &str, task: u32) -> Option<i32> {
    let (job, task) = (format!("SLURM_ARRAY_JOB_ID={job}"), format!("SLURM_ARRAY_TASK_ID={task}"));
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let proc = entry.path();
        let (Ok(cmdline), Ok(environ)) =
            (std::fs::read(proc.join("cmdline")), std::fs::read(proc.join("environ")))
        else {
            continue;
        };
        let exe = cmdline.split(|&b| b == 0).next().unwrap_or_default();
        let mut vars = environ.split(|&b| b == 0);
        if exe == env!("CARGO_BIN_EXE_pgnkit").as_bytes()
            && vars.clone().any(|v| v == job.as_bytes())
            && vars.any(|v| v == task.as_bytes())
        {
            return process_group(&proc);
        }
    }
    None
}

/// The process group of the process `/proc/PID` describes.
fn process_group(proc: &Path) -> Option<i32> {
    // `PID (COMM) STATE PPID PGRP ...`: the fields after the command's closing parenthesis.
    let stat = std::fs::read_to_string(proc.join("stat")).ok()?;
    stat.rsplit_once(") ")?.1.split(' ').nth(2)?.parse().ok()
}

#[test]
fn slurm_annotate_task_killed_and_requeued_resumes_from_its_cache() {
    let Some(cluster) = Cluster::find() else { return };
    let Some(data) = crate::util::shared_data() else { return };
    if !Path::new(STOCKFISH).is_file() {
        skip("Stockfish not found at /usr/games/stockfish (apt-get install -y stockfish)");
        return;
    }
    let dir = temp_dir("cluster-slurm-annotate");
    std::fs::create_dir_all(dir.join("logs")).expect("mkdir logs");
    std::fs::create_dir_all(dir.join("annotate")).expect("mkdir annotate");
    let input = data.join("games/lichess_db_100k.pgn").to_str().expect("a UTF-8 path").to_owned();
    let args = |output: &str| {
        let mut a =
            strings(&["annotate", "--engine", STOCKFISH, "--engines", "1", "--nodes", "5000", "-o", output]);
        a.push(input.clone());
        a
    };
    let id = submit_array(&cluster, &dir, &args("annotate/annotated.pgn"));

    // Task 1, killed (SIGKILL to its process group) once its cache holds evaluations.
    let cache = dir.join("cache/shard-001.sqlite");
    let start = std::time::Instant::now();
    while cached(&cache) == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "task 1 cached nothing in 120 s: {}",
            cluster.show_job(&id)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let group = task_process_group(&id, 1).expect("task 1's pgnkit");
    assert_ne!(
        Some(group),
        process_group(Path::new("/proc/self")),
        "task 1 runs in the test's process group"
    );
    let kill = Command::new("kill").args(["-KILL", "--", &format!("-{group}")]).status().expect("run kill");
    assert!(kill.success(), "kill -KILL -- -{group}");
    let task = format!("{id}_1");
    let killed = cluster.wait(&task, Duration::from_secs(60));
    let state = (field(&killed[0], "JobState"), field(&killed[0], "ExitCode"));
    assert_eq!(state, (Some("FAILED"), Some("0:9")), "task 1 was killed before it finished: {}", killed[0]);
    let before = cached(&cache);
    for name in ["annotated.pgn.part-1-of-4", "annotated.pgn.part-1-of-4.manifest.json"] {
        assert!(!dir.join("annotate").join(name).exists(), "a killed task leaves no {name}");
    }

    // Requeued, and released at once (a requeued task is held for about two minutes).
    cluster.scontrol(&["requeue", &task]);
    cluster.scontrol(&["update", &format!("jobid={task}"), "StartTime=now"]);
    let single = one_run(&dir, &args("one.pgn"));
    assert_eq!(single, 0);
    let tasks = cluster.wait(&id, Duration::from_secs(150));
    assert_completed(&tasks, &dir);
    let (merged, says) = merge(&dir, "annotate");
    assert_eq!(merged, 0, "{says}");
    assert_same_file(&dir, "annotate/annotated.pgn", "one.pgn");

    // Task 1's log holds both runs; the second took what the first had cached from its cache.
    let log = std::fs::read_to_string(dir.join(format!("logs/pgnkit-{id}_1.out"))).expect("task 1's log");
    let rerun = log.split_once(&format!("task 1 of job {id}, run 2")).expect("a second run in the log").1;
    let hits: u64 = rerun
        .split_once("pgnkit annotate: cache: ")
        .and_then(|(_, rest)| rest.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no cache line in the rerun's summary: {rerun}"));
    assert!(
        hits >= before && before > 0,
        "{hits} cache hits after the kill left {before} evaluations: {rerun}"
    );
}

#[test]
fn gnu_parallel_recipe_shards_merge_to_one_run() {
    if !gnu_parallel() {
        return;
    }
    let Some(data) = crate::util::shared_data() else { return };
    let dir = temp_dir("cluster-parallel-run");
    std::fs::create_dir(dir.join("parts")).expect("mkdir parts");
    let inputs = collections(&data);
    let o = Command::new(deploy("parallel/pgnkit-parallel.sh"))
        .args(["3", "clean", "-q", "-o", "parts/clean.pgn"])
        .args(&inputs)
        .current_dir(&dir)
        .env("PGNKIT", env!("CARGO_BIN_EXE_pgnkit"))
        .env("SSHLOGINS", "2/:")
        .stdin(Stdio::null())
        .output()
        .expect("run the recipe");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut single = strings(&["clean", "-q", "-o", "one.pgn"]);
    single.extend(inputs);
    let code = one_run(&dir, &single);
    let (merged, says) = merge(&dir, "parts");
    assert_eq!(merged, code, "{says}");
    assert!(says.contains("pgnkit merge: 3 shards"), "{says}");
    assert_same_file(&dir, "parts/clean.pgn", "one.pgn");
}

/// The container of the Kubernetes manifest `name` as JSON (PyYAML reads it: kubernetes-validate
/// needs it too), with the Job's `completions`.
fn kubernetes_container(name: &str) -> Option<(serde_json::Value, u64)> {
    const READ: &str = "import json, sys, yaml\n\
        job = yaml.safe_load(open(sys.argv[1]))\n\
        print(json.dumps([job['spec']['template']['spec']['containers'][0], job['spec']['completions']]))";
    let o = Command::new("python3").args(["-c", READ]).arg(deploy(&format!("kubernetes/{name}"))).output();
    match o {
        Ok(o) if o.status.success() => {
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
            Some((v[0].clone(), v[1].as_u64().expect("completions")))
        }
        _ => {
            skip("python3 with PyYAML not found (pip install kubernetes-validate==1.37.0 brings it)");
            None
        }
    }
}

#[test]
fn kubernetes_indexed_job_command_run_once_per_index_merges_to_one_run() {
    let Some((container, completions)) = kubernetes_container("indexed-job.yaml") else { return };
    let Some(data) = crate::util::shared_data() else { return };
    if !Path::new(STOCKFISH).is_file() {
        skip("Stockfish not found at /usr/games/stockfish (apt-get install -y stockfish)");
        return;
    }
    let env: Vec<(String, String)> = container["env"]
        .as_array()
        .expect("env")
        .iter()
        .map(|e| {
            (e["name"].as_str().expect("name").to_owned(), e["value"].as_str().expect("value").to_owned())
        })
        .collect();
    let var = |name: &str| env.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    // Kubernetes does not tell a pod the count: PGNKIT_SHARDS has to be the Job's completions.
    assert_eq!(var("PGNKIT_SHARDS"), Some(completions.to_string()));
    let command: Vec<String> = container["command"]
        .as_array()
        .expect("command")
        .iter()
        .map(|c| c.as_str().expect("a string").to_owned())
        .collect();
    let mount = container["volumeMounts"][0]["mountPath"].as_str().expect("the volume's mount path");

    // The volume is a directory here; the command line is the manifest's, with 4 indices at 500
    // nodes a position over lichess_db_10k.pgn instead of its 100 over a month: a test's cost.
    let dir = temp_dir("cluster-kubernetes-run");
    let volume = dir.join("data");
    std::fs::create_dir_all(volume.join("in")).expect("mkdir");
    let input = volume.join("in/games.pgn");
    std::fs::copy(data.join("games/lichess_db_10k.pgn"), &input).expect("copy the input");
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).expect("mkdir bin");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pgnkit"), bin.join("pgnkit")).expect("symlink");
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let volume_path = volume.to_str().expect("a UTF-8 path");
    let command: Vec<String> = command.iter().map(|c| c.replace(mount, volume_path)).collect();
    let shards = 4;
    for index in 0..shards {
        let o = Command::new(&command[0])
            .args(&command[1..])
            .envs(env.iter().map(|(n, v)| (n.as_str(), v.as_str())))
            .env("PGNKIT_SHARDS", shards.to_string())
            .env("PGNKIT_NODES", "500")
            .env("PGNKIT_INPUTS", &input)
            .env("JOB_COMPLETION_INDEX", index.to_string())
            .env("PATH", &path)
            .current_dir(&dir)
            .stdin(Stdio::null())
            .output()
            .expect("run the manifest's command");
        assert!(o.status.success(), "index {index}: {}", String::from_utf8_lossy(&o.stderr));
    }
    for index in 0..shards {
        assert!(
            cached(&volume.join(format!("cache/shard-{index}.sqlite"))) > 0,
            "index {index} keeps its own cache"
        );
    }
    let mut single =
        strings(&["annotate", "-q", "--engine", STOCKFISH, "--nodes", "500", "--no-cache", "-o", "one.pgn"]);
    single.push(input.to_str().expect("a UTF-8 path").to_owned());
    assert_eq!(one_run(&dir, &single), 0);
    let (merged, says) = merge(&dir, "data/out");
    assert_eq!(merged, 0, "{says}");
    assert_same_file(&dir, "data/out/annotated.pgn", "one.pgn");
}
