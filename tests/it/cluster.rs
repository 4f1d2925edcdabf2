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

/// Every task of the ended job `tasks` (`scontrol -o show job` lines) completed with exit code 0.
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
        let cache = format!("cache/task-{id:03}.sqlite");
        let expected = [
            &format!("{id} 1 2 4"),
            "annotate",
            "--shard",
            "auto",
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
    // Only annotate keeps a cache per task.
    for id in [0, 1] {
        let args = lines_of(&dir, &format!("args-{check}-{id}.txt"));
        assert_eq!(args[1..], ["check", "--shard", "auto", "-o", "c.txt", "in.pgn"], "task {id}");
    }
    assert!(dir.join("cache").is_dir());
    // Each task's log, appended to when a task runs again, names the task and its run.
    let log =
        std::fs::read_to_string(dir.join(format!("logs/pgnkit-{annotate}_5.out"))).expect("task 5's log");
    assert!(log.contains(&format!("task 5 of job {annotate}, run 1 on")), "{log}");
}

#[test]
fn gnu_parallel_recipe_runs_each_shard_once_numbered_from_0() {
    if !Command::new("parallel")
        .arg("--version")
        .output()
        .is_ok_and(|o| stdout_has(&o.stdout, "GNU parallel"))
    {
        skip("GNU parallel not found (apt-get install -y parallel)");
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
