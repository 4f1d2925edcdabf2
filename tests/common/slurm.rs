//! The single-node Slurm cluster the cluster tests submit to: the one `scripts/slurm-up.sh`
//! started, found through `PGNKIT_SLURM_CONF` (the path it printed; `.ci/run` exports it). Without
//! one a test is skipped (under CI it fails), as for every missing tool.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::skip::skip;

/// A running cluster: its configuration, which every Slurm command is pointed at.
pub struct Cluster {
    conf: PathBuf,
}

impl Cluster {
    /// The cluster of `PGNKIT_SLURM_CONF` when its controller answers, or `None` after saying
    /// why the test is skipped.
    pub fn find() -> Option<Cluster> {
        const START: &str = "start one with `export PGNKIT_SLURM_CONF=$(scripts/slurm-up.sh)`";
        let Some(conf) = std::env::var_os("PGNKIT_SLURM_CONF").map(PathBuf::from) else {
            skip(format_args!("PGNKIT_SLURM_CONF is not set: no Slurm cluster ({START})"));
            return None;
        };
        if !conf.is_file() {
            skip(format_args!("PGNKIT_SLURM_CONF={}: no such file ({START})", conf.display()));
            return None;
        }
        let cluster = Cluster { conf };
        match cluster.command("scontrol").arg("ping").stdin(Stdio::null()).output() {
            Ok(o) if o.status.success() && String::from_utf8_lossy(&o.stdout).contains("is UP") => {
                Some(cluster)
            }
            Ok(o) => {
                skip(format_args!(
                    "the Slurm controller of {} does not answer ({START}): {}{}",
                    cluster.conf.display(),
                    String::from_utf8_lossy(&o.stdout).trim(),
                    String::from_utf8_lossy(&o.stderr).trim()
                ));
                None
            }
            Err(e) => {
                skip(format_args!("scontrol: {e} (apt-get install slurm-client)"));
                None
            }
        }
    }

    /// The Slurm command `program` (sbatch, scontrol, squeue) pointed at this cluster.
    pub fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", &self.conf);
        c
    }

    /// `sbatch --parsable --chdir DIR ARGS...`: submits and returns the job id, without waiting.
    pub fn submit(&self, dir: &Path, args: &[&str]) -> String {
        let o = self
            .command("sbatch")
            .args(["--parsable", "--chdir"])
            .arg(dir)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("run sbatch");
        assert!(o.status.success(), "sbatch {args:?}: {}", String::from_utf8_lossy(&o.stderr));
        // `--parsable` prints `JOBID` or `JOBID;CLUSTER`.
        let text = String::from_utf8_lossy(&o.stdout);
        text.trim().split(';').next().expect("a job id").to_owned()
    }

    /// Waits until every task of job `id` has ended (polling, which notices the end within a
    /// fraction of a second where `sbatch --wait` polls every few seconds), at most `limit`;
    /// returns `scontrol -o show job` of its tasks, one line each.
    pub fn wait(&self, id: &str, limit: Duration) -> Vec<String> {
        let start = Instant::now();
        loop {
            let text = self.show_job(id);
            let lines: Vec<String> = text.lines().map(str::to_owned).collect();
            let ended = !lines.is_empty()
                && lines.iter().all(|l| field(l, "JobState").is_some_and(|s| ENDED.contains(&s)));
            if ended {
                return lines;
            }
            assert!(start.elapsed() < limit, "job {id} still runs after {limit:?}:\n{text}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// `scontrol -o show job ID` as one line per job or array task (empty once Slurm forgot it).
    pub fn show_job(&self, id: &str) -> String {
        let o = self.command("scontrol").args(["-o", "show", "job", id]).output().expect("run scontrol");
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// `scontrol ARGS...`, which must succeed.
    pub fn scontrol(&self, args: &[&str]) {
        let o = self.command("scontrol").args(args).output().expect("run scontrol");
        assert!(o.status.success(), "scontrol {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

/// The states of a job that has ended and will not run again by itself.
const ENDED: [&str; 9] = [
    "COMPLETED",
    "FAILED",
    "CANCELLED",
    "TIMEOUT",
    "NODE_FAIL",
    "OUT_OF_MEMORY",
    "BOOT_FAIL",
    "DEADLINE",
    "PREEMPTED",
];

/// The value of `KEY=` in one line of `scontrol -o show` output.
pub fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split_whitespace().find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
}
