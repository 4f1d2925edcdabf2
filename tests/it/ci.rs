//! What a green CI run relies on: a test whose tool or data set is missing fails under `CI`
//! (elsewhere it is skipped, and says so), and the Ctrl-C tests run from a process that ignores
//! SIGINT, as a CI runner's background job does. Each runs a test of this binary alone in a
//! child process with its environment changed.

use std::process::Command;

use crate::util::temp_dir;

/// This binary running its test `name` alone, printing what it prints.
fn alone(name: &str) -> Command {
    let mut c = Command::new(std::env::current_exe().expect("the test binary"));
    c.args([name, "--exact", "--nocapture", "--test-threads=1"]);
    c
}

/// Whether `c` passed, and its stdout and stderr.
fn outcome(mut c: Command) -> (bool, String) {
    let o = c.output().expect("run the test binary");
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    (o.status.success(), text)
}

/// `c` with `CI` set to `value`, or taken out for `None`.
fn with_ci(mut c: Command, value: Option<&str>) -> Command {
    match value {
        Some(v) => c.env("CI", v),
        None => c.env_remove("CI"),
    };
    c
}

/// Values of `CI` that are not a CI run, and values that are.
const NOT_CI: [Option<&str>; 4] = [None, Some(""), Some("false"), Some("0")];
const CI: [&str; 3] = ["true", "1", "woodpecker"];

#[test]
fn missing_shared_data_is_skipped_here_and_fails_under_ci() {
    const TEST: &str = "positions::fen_matches_python_chess_on_shared_collections";
    let missing = std::env::temp_dir().join(format!("pgnkit-it-no-shared-data-{}", std::process::id()));
    let reason = format!("{TEST}: {} not found", missing.display());
    let run = |ci| {
        let mut c = alone(TEST);
        c.env("PGNKIT_SHARED_DATA", &missing);
        outcome(with_ci(c, ci))
    };
    for ci in NOT_CI {
        let (passed, out) = run(ci);
        assert!(passed, "CI={ci:?}: {out}");
        assert!(out.contains(&reason.replacen(": ", ": skipped: ", 1)), "CI={ci:?}: {out}");
    }
    for ci in CI {
        let (passed, out) = run(Some(ci));
        assert!(!passed, "CI={ci}: {out}");
        assert!(out.contains(&reason) && !out.contains("skipped:"), "CI={ci}: {out}");
    }
}

#[test]
fn missing_python_chess_is_skipped_here_and_fails_under_ci() {
    const TEST: &str = "pgn_export::fixtures_export_as_python_chess_does";
    // No python3 on an empty PATH.
    let empty = temp_dir("ci-path");
    let reason = format!("{TEST}: python-chess not found (pip install chess==1.11.2)");
    let run = |ci| {
        let mut c = alone(TEST);
        c.env("PATH", &empty);
        outcome(with_ci(c, ci))
    };
    let (passed, out) = run(None);
    assert!(passed && out.contains(&reason.replacen(": ", ": skipped: ", 1)), "{out}");
    let (passed, out) = run(Some("true"));
    assert!(!passed && out.contains(&reason) && !out.contains("skipped:"), "{out}");
    std::fs::remove_dir_all(empty).expect("clean up");
}

#[test]
fn missing_slurm_cluster_is_skipped_here_and_fails_under_ci() {
    const TEST: &str = "cluster::slurm_array_runs_the_deploy_script_once_per_task_with_its_index";
    let reason = format!("{TEST}: PGNKIT_SLURM_CONF is not set: no Slurm cluster");
    let run = |ci| {
        let mut c = alone(TEST);
        c.env_remove("PGNKIT_SLURM_CONF");
        outcome(with_ci(c, ci))
    };
    let (passed, out) = run(None);
    assert!(passed && out.contains(&reason.replacen(": ", ": skipped: ", 1)), "{out}");
    let (passed, out) = run(Some("true"));
    assert!(!passed && out.contains(&reason) && !out.contains("skipped:"), "{out}");
}

/// A shell that ignores SIGINT becomes this binary and runs a Ctrl-C test: its children start
/// with SIGINT ignored, as a CI runner's background job's do, and the test still interrupts
/// pgnkit.
#[cfg(unix)]
#[test]
fn ctrl_c_tests_run_where_sigint_is_ignored() {
    const IGNORING: &str = "trap '' INT; exec \"$0\" \"$@\"";
    if cfg!(target_os = "linux") {
        // The shell does ignore it: SIGINT (2) is bit 1 of the mask its successor starts with.
        let o = Command::new("sh").args(["-c", IGNORING, "grep", "SigIgn", "/proc/self/status"]).output();
        let line = String::from_utf8(o.expect("sh").stdout).expect("UTF-8");
        let mask = u64::from_str_radix(line.trim_start_matches("SigIgn:").trim(), 16).expect("a mask");
        assert!(mask & (1 << 1) != 0, "{line}");
    }
    const TEST: &str = "interrupt::check_stops_on_ctrl_c_with_every_game_before_reported";
    let mut c = Command::new("sh");
    c.args(["-c", IGNORING]).arg(std::env::current_exe().expect("the test binary"));
    c.args([TEST, "--exact", "--nocapture", "--test-threads=1"]);
    let (passed, out) = outcome(c);
    assert!(passed && out.contains("1 passed"), "{out}");
}
