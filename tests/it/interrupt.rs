//! Ctrl-C (SIGINT) on the commands that read PGN: the run stops at a chunk boundary, writes and
//! flushes what it released (whole games, from the first), says where it stopped, exits 130. A
//! signal ignored at start (`nohup`) stays ignored.

use crate::util::{fixture, pgnkit, sigint_default, temp_dir, wait_for_sigint_handler};
use pgnkit::pipeline::Options;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `dir/in.pgn`: `copies` copies of the 10 kB lichess fixture, one after the other.
fn lichess_copies(dir: &Path, copies: usize) -> PathBuf {
    let input = dir.join("in.pgn");
    let games = std::fs::read(fixture("pgn/lichess_db_10k.pgn")).expect("fixture");
    std::fs::write(&input, games.repeat(copies)).expect("write");
    input
}

/// Bytes fed before the signal: twice what the child can hold read and not released at `-j2`.
/// It has then read all but the pipe's 64 KB, with its handler installed (before any input is
/// opened), so it has released games whatever the scheduling. At a fixed 4 MB, under the 6 MB it
/// can hold, it had not always (CI: "stopped after game 0").
fn signal_after() -> usize {
    2 * Options { threads: 2, ..Options::default() }.max_unreleased_bytes()
}

/// Starts `pgnkit ARGS` (SIGINT at its default, [`sigint_default`]) with `stdin` and `stdout`
/// and its stderr piped, once its signal handler is installed.
fn started(args: &[&str], stdin: Stdio, stdout: Stdio) -> std::process::Child {
    let child = sigint_default(&mut pgnkit())
        .args(args)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pgnkit");
    assert!(wait_for_sigint_handler(child.id()), "{args:?}: the handler is installed");
    child
}

/// The names of the files in `dir` but those `kept`.
fn files_in(dir: &std::path::Path, kept: &[&str]) -> Vec<String> {
    let names = std::fs::read_dir(dir).expect("dir").map(|e| e.expect("entry").file_name());
    names.map(|n| n.to_string_lossy().into_owned()).filter(|n| !kept.contains(&n.as_str())).collect()
}

/// Sends `signal` (`-INT`, `-TERM`...) to `child`.
fn send(signal: &str, child: &std::process::Child) {
    let kill = Command::new("kill").args([signal, &child.id().to_string()]).status().expect("kill");
    assert!(kill.success(), "kill {signal}");
}

/// Starts `pgnkit ARGS` reading stdin (SIGINT at its default, [`sigint_default`]), sends it
/// SIGINT once it has read [`signal_after`] bytes, and returns its exit code, stdout and stderr
/// ([`fed_and_signalled`]).
fn interrupted(args: &[&str]) -> (Option<i32>, String, String) {
    fed_and_signalled(started(args, Stdio::piped(), Stdio::piped()), "-INT", 400 << 20)
}

/// Feeds `child` (piped) copies of a fixture collection until it has taken [`signal_after`]
/// bytes, sends it `signal`, and keeps feeding until the child is gone or `cap` bytes are fed
/// (then closes its stdin). Returns the child's exit code, stdout and stderr.
fn fed_and_signalled(
    mut child: std::process::Child,
    signal: &str,
    cap: usize,
) -> (Option<i32>, String, String) {
    let mut stdin = child.stdin.take().expect("stdin");
    let (mut out, mut err) = (child.stdout.take().expect("stdout"), child.stderr.take().expect("stderr"));
    let readers = [
        std::thread::spawn(move || {
            let mut s = String::new();
            out.read_to_string(&mut s).map(|_| s)
        }),
        std::thread::spawn(move || {
            let mut s = String::new();
            err.read_to_string(&mut s).map(|_| s)
        }),
    ];
    let games = std::fs::read(fixture("pgn/twic1599_10k.pgn")).expect("fixture");
    let mut fed = 0usize;
    let (mut signalled, signal_at) = (false, signal_after());
    while fed < cap {
        if stdin.write_all(&games).and_then(|()| stdin.write_all(b"\n\n")).is_err() {
            break; // the child stopped reading: it is exiting
        }
        fed += games.len() + 2;
        if !signalled && fed >= signal_at {
            send(signal, &child);
            signalled = true;
        }
    }
    drop(stdin);
    let status = child.wait().expect("wait");
    let [out, err] = readers.map(|r| r.join().expect("reader").expect("utf-8"));
    (status.code(), out, err)
}

#[cfg(unix)]
#[test]
fn a_signal_ignored_at_start_stays_ignored() {
    // nohup starts pgnkit with SIGHUP ignored: the hang-up must not stop it.
    let mut nohup = Command::new("nohup");
    nohup.arg(env!("CARGO_BIN_EXE_pgnkit")).args(["check", "-j2", "-"]);
    let child =
        nohup.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("nohup");
    let (code, _, err) = fed_and_signalled(child, "-HUP", 2 * signal_after());
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("interrupted") && err.contains("pgnkit check: "), "{err}");
}

/// The game number in `stopped after game N of -`.
fn stopped_after(stderr: &str) -> u64 {
    let rest = stderr.split("interrupted: stopped after game ").nth(1).unwrap_or_else(|| panic!("{stderr}"));
    rest.split(' ').next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{stderr}"))
}

#[cfg(unix)]
#[test]
fn check_stops_on_ctrl_c_with_every_game_before_reported() {
    for threads in ["1", "2"] {
        let (code, out, err) = interrupted(&["check", "-q", "-j", threads, "--json", "--games", "-"]);
        assert_eq!(code, Some(130), "-j{threads}: {err}");
        let n = stopped_after(&err);
        // 400 MB of 9.8 KB copies of 9 games: some 366,000 games had it not stopped.
        assert!(n < 100_000, "stopped long before the end of its input: {n} games");
        let records: Vec<serde_json::Value> =
            out.lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect();
        let (summary, games) = records.split_last().expect("records");
        // Games 1..=n, each once and in order, then the summary of those games, marked.
        let numbers: Vec<u64> = games.iter().map(|g| g["data"]["game"].as_u64().expect("game")).collect();
        assert!(
            n > 0 && numbers == (1..=n).collect::<Vec<_>>(),
            "-j{threads}: {} records, n {n}",
            numbers.len()
        );
        assert_eq!(summary["type"], "summary");
        assert_eq!(summary["data"]["games"], n);
        assert_eq!(summary["data"]["interrupted"], true);
    }
}

#[cfg(unix)]
#[test]
fn positions_stops_on_ctrl_c_with_its_output_flushed_and_in_place() {
    let dir = temp_dir("interrupt");
    let path = dir.join("out.epd");
    for threads in ["1", "2"] {
        let p = path.to_str().expect("utf-8 path");
        let (code, _, err) = interrupted(&["positions", "-j", threads, "--format", "epd", "-", "-o", p]);
        assert_eq!(code, Some(130), "-j{threads}: {err}");
        let n = stopped_after(&err);
        let text = std::fs::read_to_string(&path).expect("output in place");
        let written: usize = err
            .split(" positions written")
            .next()
            .and_then(|s| s.split_whitespace().last())
            .and_then(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("{err}"));
        assert_eq!(text.lines().count(), written, "-j{threads}: every record written is in the file");
        // It ends with the last position of game n (the next record would start game n + 1).
        let last = text.lines().last().expect("records");
        assert!(last.contains(&format!("id \"-:{n}:")) && last.ends_with(';'), "{last}");
        let leftovers = files_in(&dir, &["out.epd"]);
        assert!(leftovers.is_empty(), "no temporary file left: {leftovers:?}");
    }
}

/// A shard interrupted names the game it stopped after by its number in the input (as its part's
/// records number it), and says where its share starts, not its count of the share's games.
#[cfg(unix)]
#[test]
fn an_interrupted_shard_numbers_the_game_as_its_input_does() {
    let dir = temp_dir("interrupt-shard");
    let input = lichess_copies(&dir, 100);
    let (input, out) = (input.to_str().expect("utf-8"), dir.join("a.pgn"));
    // The share's first game, from the manifest of the same shard run whole.
    let checked = dir.join("c.txt");
    let o = pgnkit()
        .args(["check", "-q", "--shard", "1/2", input, "-o", checked.to_str().expect("utf-8")])
        .output()
        .expect("check");
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let manifest = std::fs::read(dir.join("c.txt.part-1-of-2.manifest.json")).expect("manifest");
    let manifest: serde_json::Value = serde_json::from_slice(&manifest).expect("JSON");
    let range = &manifest["ranges"][0];
    let (first, last) =
        (range["first_game"].as_u64().expect("first"), range["last_game"].as_u64().expect("last"));
    assert!(first > 100, "the share starts far into the input: {first}");
    // Slow enough (an engine's search a position) that the signal comes long before its end.
    let args = ["annotate", "-q", "-j1", "--no-cache", "--nodes", "200", "--shard", "1/2", input, "-o"];
    let child = started(&[&args[..], &[out.to_str().expect("utf-8")]].concat(), Stdio::null(), Stdio::null());
    std::thread::sleep(std::time::Duration::from_millis(500));
    send("-TERM", &child);
    let o = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    // Stopped before the share's first game was released, it names that game.
    if err.contains("stopped before ") {
        let said = format!("stopped before the first game of this shard's share, game {first} of {input}; ");
        assert!(err.contains(&said), "{err}");
        return;
    }
    let n = stopped_after(&err);
    assert!(first <= n && n < last, "game {n} is in the share {first}..={last}: {err}");
    assert!(err.contains(&format!(" of {input} (this shard's share starts at game {first}); ")), "{err}");
}

/// Two signals at once (as `timeout` sends them: to the process, then to its group) are one
/// request, and the run stops as at one, leaving no temporary file behind.
#[cfg(unix)]
#[test]
fn a_signal_sent_twice_at_once_is_one_stop() {
    let dir = temp_dir("interrupt-twice");
    let input = lichess_copies(&dir, 50);
    let (input, out) = (input.to_str().expect("utf-8"), dir.join("out.pgn"));
    let args =
        ["annotate", "-q", "-j1", "--no-cache", "--nodes", "200", input, "-o", out.to_str().expect("utf-8")];
    let child = started(&args, Stdio::null(), Stdio::null());
    std::thread::sleep(std::time::Duration::from_millis(500));
    send("-INT", &child);
    send("-INT", &child);
    let o = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("pgnkit: interrupted: stopped "), "{err}");
    assert!(!err.contains("interrupted again"), "{err}");
    let left = files_in(&dir, &["in.pgn"]);
    assert!(left.is_empty(), "nothing left behind: {left:?}");
}

/// A signal more than a second after the first, while the first stop still waits (here for a
/// slow reader to take the games released before it), ends the process at once, saying so and
/// removing the outputs' temporary files.
#[cfg(unix)]
#[test]
fn a_later_signal_aborts_at_once_leaving_nothing() {
    let dir = temp_dir("interrupt-abort");
    let input = lichess_copies(&dir, 50);
    let rejects = dir.join("rejects.pgn");
    let args =
        ["clean", "-q", "-j1", input.to_str().expect("utf-8"), "--rejects", rejects.to_str().expect("utf-8")];
    let mut child = started(&args, Stdio::null(), Stdio::piped());
    let mut stdout = child.stdout.take().expect("stdout");
    // A game released: the writer is on its first chunk (256 KiB), which fills the pipe.
    let mut page = [0u8; 4096];
    stdout.read_exact(&mut page[..1]).expect("the first byte");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        files_in(&dir, &["in.pgn"]).iter().any(|f| f.contains("pgnkit-tmp")),
        "a temporary file to remove"
    );
    send("-INT", &child);
    // A page every 100 ms: the first stop goes on writing what was released, slowly.
    for _ in 0..13 {
        stdout.read_exact(&mut page).expect("a page");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    send("-INT", &child);
    drop(stdout);
    let o = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("pgnkit: interrupted again: stopped at once; no output was put in place"), "{err}");
    assert!(!err.contains("stopped after"), "ended at once, not at a chunk: {err}");
    let left = files_in(&dir, &["in.pgn"]);
    assert!(left.is_empty(), "nothing left behind: {left:?}");
}

/// Interrupted before any game was read: it stopped before the first, not "after game 0".
#[cfg(unix)]
#[test]
fn an_interrupt_before_the_first_game_says_so() {
    let mut child = started(&["check", "-"], Stdio::piped(), Stdio::null());
    send("-INT", &child);
    // The end of the input, as a shell's Ctrl-C ends the writer of the pipe too.
    drop(child.stdin.take());
    let o = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("pgnkit: interrupted: stopped before the first game of stdin; "), "{err}");
    assert!(!err.contains("game 0"), "{err}");
}

/// `clean` interrupted: exit 130 and no output under its final name (a cleaned file that ends
/// early would pass for a whole one), no temporary file left behind.
#[cfg(unix)]
#[test]
fn clean_stops_on_ctrl_c_leaving_no_output_in_place() {
    let dir = temp_dir("interrupt-clean");
    for threads in ["1", "2"] {
        let (out, report) = (dir.join("out.pgn"), dir.join("report.jsonl"));
        let args =
            ["clean", "-j", threads, "-", "-o", out.to_str().unwrap(), "--report", report.to_str().unwrap()];
        let (code, _, err) = interrupted(&args);
        assert_eq!(code, Some(130), "-j{threads}: {err}");
        assert!(err.contains("; no output was written") && !err.contains("holds every game"), "{err}");
        // The summary claims no game written: the ledger's games passed.
        let claims = |l: &str| (l.starts_with("  ") && l.ends_with(" written")) || l.contains(" written + ");
        assert!(!err.lines().any(claims), "{err}");
        assert!(err.contains(" passed + 0 rejected"), "{err}");
        let left = files_in(&dir, &[]);
        assert!(left.is_empty(), "-j{threads}: nothing left behind: {left:?}");
    }
    // A file already under the name is left as it was, and said to be an earlier run's.
    let out = dir.join("out.pgn");
    std::fs::write(&out, "earlier").expect("write");
    let (code, _, err) = interrupted(&["clean", "-j", "1", "-", "-o", out.to_str().unwrap()]);
    assert_eq!(code, Some(130), "{err}");
    let said = format!("; no output was written: {} is as it was before this run", out.display());
    assert!(err.contains(&said), "{err}");
    assert_eq!(std::fs::read(&out).expect("read"), b"earlier");
    // To stdout, what was written cannot be taken back: the line says so.
    let (code, _, err) = interrupted(&["clean", "-j", "1", "-"]);
    assert_eq!(code, Some(130), "{err}");
    assert!(err.contains("; stdout got the games written before, with nothing after them"), "{err}");
}

/// `clean --dedup=prefix` interrupted, in its first pass (which writes nothing) or its second:
/// exit 130 and nothing left behind. The input is a file, large enough that the signal, sent
/// 50 ms after its handler is installed, comes while it is read.
#[cfg(unix)]
#[test]
fn clean_dedup_prefix_stops_on_ctrl_c_leaving_nothing() {
    let dir = temp_dir("interrupt-prefix");
    let (input, outputs) = (dir.join("in.pgn"), dir.join("out"));
    std::fs::create_dir_all(&outputs).expect("dir");
    let mut games = std::fs::read(fixture("pgn/twic1599_10k.pgn")).expect("fixture");
    games.extend_from_slice(b"\n\n");
    std::fs::write(&input, games.repeat((64 << 20) / games.len())).expect("write");
    let (out, dups) = (outputs.join("out.pgn"), outputs.join("dups.pgn"));
    let (input, out, dups) = (input.to_str().unwrap(), out.to_str().unwrap(), dups.to_str().unwrap());
    let args = ["clean", "-q", "-j1", "--dedup=prefix", input, "-o", out, "--duplicates", dups];
    let child = started(&args, Stdio::inherit(), Stdio::inherit());
    std::thread::sleep(std::time::Duration::from_millis(50));
    send("-INT", &child);
    let o = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    let left = files_in(&outputs, &[]);
    assert!(left.is_empty(), "nothing left behind: {left:?}");
    println!("{}", err.trim());
}

/// `merge` stopped by SIGTERM while it copies: exit 130, nothing put in place, no temporary
/// file left. Its duplicates go to a FIFO that the test stops reading, so the signal lands while
/// the merge waits to write them, after its main output is written under a temporary name.
#[cfg(unix)]
#[test]
fn merge_stops_on_sigterm_leaving_nothing() {
    let dir = temp_dir("interrupt-merge");
    let input = dir.join("in.pgn");
    let mut games = std::fs::read(fixture("pgn/twic1599_10k.pgn")).expect("fixture");
    games.extend_from_slice(b"\n\n");
    // Some 600 KB of repeats: the duplicates are many times a pipe's 64 KB.
    std::fs::write(&input, games.repeat(60)).expect("write");
    let (out, dups) = (dir.join("out.pgn"), dir.join("dups.pgn"));
    let mut manifests = Vec::new();
    for i in 0..2 {
        let spec = format!("{i}/2");
        let o = pgnkit()
            .args(["clean", "-q", "--dedup", "--shard", &spec, input.to_str().unwrap()])
            .args(["-o", out.to_str().unwrap(), "--duplicates", dups.to_str().unwrap()])
            .output()
            .expect("shard");
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        manifests.push(dir.join(format!("out.pgn.part-{i}-of-2.manifest.json")));
    }
    let made = Command::new("mkfifo").arg(&dups).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let child = pgnkit().arg("merge").args(&manifests).stderr(Stdio::piped()).spawn().expect("spawn");
    // The first byte of the duplicates: the main output is written, the handler installed.
    let mut fifo = std::fs::File::open(&dups).expect("open the FIFO");
    let mut first = [0u8; 1];
    fifo.read_exact(&mut first).expect("a first byte");
    send("-TERM", &child);
    let mut rest = Vec::new();
    fifo.read_to_end(&mut rest).expect("read the FIFO");
    let o = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("pgnkit: merge: interrupted") && err.contains("nothing put in place"), "{err}");
    // The FIFO took bytes before the signal, and the message says so.
    assert!(err.contains("dups.pgn got part of the merge before it stopped"), "{err}");
    assert!(!out.exists(), "the main output is not put in place");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("pgnkit-tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

/// `perft` has nothing to put in place: SIGTERM, SIGHUP or Ctrl-C ends it at once with 130 and
/// a line saying so, as the exit-code table says of every command.
#[cfg(target_os = "linux")]
#[test]
fn perft_stops_on_a_signal_with_130() {
    for signal in ["-TERM", "-HUP", "-INT"] {
        let child = started(&["perft", "9", "-j1"], Stdio::inherit(), Stdio::null());
        send(signal, &child);
        let out = child.wait_with_output().expect("wait");
        assert_eq!(out.status.code(), Some(130), "{signal}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "pgnkit: interrupted\n", "{signal}");
    }
}

/// How `child` exits, failing with `what` if it has not within 20 s.
fn exit_within_20_s(child: &mut std::process::Child, what: &str) -> std::process::ExitStatus {
    exit_within(child, 20, what)
}

/// How `child` exits, failing with `what` (and killing it) if it has not within `secs` seconds.
fn exit_within(child: &mut std::process::Child, secs: u64, what: &str) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        if std::time::Instant::now() >= deadline {
            let _ = child.kill();
            panic!("{what}");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// An input that is a pipe but not stdin (`<(curl ...)`, a FIFO) that sends nothing: the run
/// stops on the signal as on a stalled stdin.
#[cfg(unix)]
#[test]
fn a_run_waiting_on_a_stalled_fifo_stops_on_a_signal() {
    let dir = temp_dir("interrupt-fifo");
    let fifo = dir.join("in.pgn");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    let mut child = started(&["check", "-q", fifo.to_str().expect("utf-8")], Stdio::null(), Stdio::null());
    // Opened for writing once pgnkit opens it for reading; nothing is written.
    let writer = std::fs::OpenOptions::new().write(true).open(&fifo).expect("open the FIFO");
    send("-TERM", &child);
    let status = exit_within_20_s(&mut child, "still waiting on the FIFO");
    drop(writer);
    assert_eq!(status.code(), Some(130));
}

/// A run waiting on a stdin that sends nothing (a stalled `curl | zstdcat`, a Slurm job's SIGTERM)
/// stops on the signal, exit 130, for every job and for each stop signal, before any game and
/// after some.
#[test]
fn a_run_waiting_on_a_stalled_stdin_stops_on_a_signal() {
    let some = std::fs::read(fixture("pgn/lichess_db_10k.pgn")).expect("fixture");
    for job in ["check", "clean", "positions", "annotate", "report"] {
        for (signal, fed) in [("-TERM", &b""[..]), ("-INT", &some[..3000])] {
            let mut child = started(&[job, "-j2", "-q", "-"], Stdio::piped(), Stdio::null());
            let mut stdin = child.stdin.take().expect("stdin");
            stdin.write_all(fed).expect("feed");
            send(signal, &child);
            let status = exit_within_20_s(&mut child, &format!("{job} {signal}: still waiting on stdin"));
            drop(stdin);
            let mut err = String::new();
            child.stderr.take().expect("stderr").read_to_string(&mut err).expect("stderr");
            assert_eq!(status.code(), Some(130), "{job} {signal}: {err}");
            assert!(err.contains("interrupted"), "{job} {signal}: {err}");
        }
    }
}

/// `child`'s stderr, once it has exited.
fn stderr_of(child: &mut std::process::Child) -> String {
    let mut err = String::new();
    child.stderr.take().expect("stderr").read_to_string(&mut err).expect("stderr");
    err
}

/// A FIFO no process opens for writing: pgnkit waits for one, and one signal stops it (the
/// kernel's `open` would wait on, started again after the signal), exit 130.
#[cfg(target_os = "linux")]
#[test]
fn a_fifo_no_process_writes_to_stops_on_one_signal() {
    let dir = temp_dir("interrupt-fifo-unopened");
    let fifo = dir.join("in.pgn");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    let mut child = started(&["check", fifo.to_str().expect("utf-8")], Stdio::null(), Stdio::null());
    std::thread::sleep(std::time::Duration::from_millis(300));
    send("-INT", &child);
    let status = exit_within_20_s(&mut child, "one SIGINT did not end the wait for a writer");
    let err = stderr_of(&mut child);
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(err.contains("pgnkit: interrupted: stopped before the first game of "), "{err}");
}

/// An output that is a FIFO no process opens for reading: one signal stops the wait for a
/// reader, exit 130, and the outputs opened before it leave no temporary file.
#[cfg(unix)]
#[test]
fn an_output_fifo_no_process_reads_stops_on_one_signal_leaving_nothing() {
    let dir = temp_dir("interrupt-fifo-output");
    std::fs::copy(fixture("pgn/lichess_db_10k.pgn"), dir.join("in.pgn")).expect("copy");
    let fifo = dir.join("rejects.pgn");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    let (input, out) = (dir.join("in.pgn"), dir.join("out.pgn"));
    let path = |p: &std::path::Path| p.to_str().expect("utf-8").to_owned();
    for args in [
        vec!["positions".into(), path(&input), "-o".into(), path(&fifo)],
        vec!["clean".into(), path(&input), "-o".into(), path(&out), "--rejects".into(), path(&fifo)],
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut child = started(&args, Stdio::null(), Stdio::null());
        std::thread::sleep(std::time::Duration::from_millis(300));
        send("-INT", &child);
        let status =
            exit_within_20_s(&mut child, &format!("{args:?}: one SIGINT did not end the wait for a reader"));
        let err = stderr_of(&mut child);
        assert_eq!(status.code(), Some(130), "{args:?}: {err}");
        assert!(
            err.contains(&format!(
                "pgnkit: interrupted: stopped waiting for a reader to open {}; ",
                path(&fifo)
            )),
            "{args:?}: {err}"
        );
        assert_eq!(files_in(&dir, &["in.pgn", "rejects.pgn"]), Vec::<String>::new(), "{args:?}");
    }
}

/// Stdout a pipe whose reader takes nothing, full: one SIGTERM stops the write waiting for room
/// (the kernel's would wait on, started again after the signal), exit 130, saying so.
#[cfg(target_os = "linux")]
#[test]
fn a_full_stdout_pipe_no_one_reads_stops_on_one_signal() {
    let dir = temp_dir("interrupt-full-stdout");
    // About 2 MB of games, whose positions are far more than a pipe's 64 KiB.
    let input = lichess_copies(&dir, 200);
    let mut child =
        started(&["positions", "-j2", input.to_str().expect("utf-8")], Stdio::null(), Stdio::piped());
    // Held open and never read.
    let _stdout = child.stdout.take().expect("stdout");
    std::thread::sleep(std::time::Duration::from_millis(500));
    send("-TERM", &child);
    let status = exit_within_20_s(&mut child, "one SIGTERM did not end the wait for room in stdout");
    let err = stderr_of(&mut child);
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(
        err.contains("pgnkit: interrupted: stopped waiting for the reader of stdout to take more; "),
        "{err}"
    );
}

/// The bytes of the unlinked files process `pid` holds open: its spill files.
#[cfg(target_os = "linux")]
fn spilled(pid: u32) -> u64 {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { return 0 };
    let unlinked = |fd: &std::path::Path| {
        std::fs::read_link(fd).is_ok_and(|to| to.to_string_lossy().ends_with(" (deleted)"))
    };
    let fds = fds.flatten().map(|fd| fd.path()).filter(|fd| unlinked(fd));
    fds.filter_map(|fd| std::fs::metadata(fd).ok()).map(|m| m.len()).sum()
}

/// `command`, whose child may write no file past `bytes` (`RLIMIT_FSIZE`): SIGXFSZ kills it there.
#[cfg(unix)]
fn file_size_limited(command: &mut Command, bytes: u64) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: the hook runs in the child between fork and exec: setrlimit(2) is async-signal-safe
    // and nothing is allocated.
    #[allow(unsafe_code)]
    unsafe {
        command.pre_exec(move || {
            let limit = nix::libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
            match nix::libc::setrlimit(nix::libc::RLIMIT_FSIZE, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        })
    }
}

/// An interrupt while one long game's output is written (`annotate --from-evals`, 8M plies of
/// JSON Lines records, some 2.3 GB that wait on disk): the run stops inside the game, not at its
/// end, and writes nothing. The signal comes once 64 MiB are spilled (records: the game's text
/// is 32 MB); the run may write no file past 1 GiB, which a run going on to the game's end
/// passes, killed (SIGXFSZ). No clock is asserted on: a loaded machine only spills less.
#[cfg(target_os = "linux")]
#[test]
fn annotate_stops_inside_a_long_game() {
    let dir = temp_dir("interrupt-long-game");
    let input = dir.join("long.pgn");
    let moves = ["Nf3", "Nf6", "Ng1", "Ng8"];
    let mut pgn = String::from("[Event \"long\"]\n[Result \"*\"]\n\n");
    for i in 0..7_980_000usize {
        pgn.push_str(moves[i % 4]);
        pgn.push(if i % 20 == 19 { '\n' } else { ' ' });
    }
    pgn.push_str("*\n");
    std::fs::write(&input, pgn).expect("write the game");
    let out = dir.join("out.jsonl");
    let args = ["annotate", "-q", "-j1", "--from-evals", "--format", "jsonl", input.to_str().unwrap(), "-o"];
    let mut child = file_size_limited(sigint_default(&mut pgnkit()), 1 << 30)
        .args(args)
        .arg(&out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pgnkit");
    assert!(wait_for_sigint_handler(child.id()), "the handler is installed");
    // Inside the writing of the records; a watchdog against a hang (they spill 150 MB a second).
    let waiting = std::time::Instant::now();
    while spilled(child.id()) < 64 << 20 {
        assert!(child.try_wait().expect("wait").is_none(), "exited before its records were spilled");
        assert!(waiting.elapsed() < std::time::Duration::from_secs(120), "no records spilled");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    send("-INT", &child);
    let status = exit_within(&mut child, 120, "still running 120 s after the signal");
    let err = stderr_of(&mut child);
    assert_eq!(status.code(), Some(130), "{status}: {err}");
    assert!(err.contains("stopped before the first game") && err.contains("no output was written"), "{err}");
    assert!(!out.exists());
}

/// An interrupt during a search of the built-in engine ends the search, as it does an external
/// engine's: the run stops at once instead of after the search's node budget (here minutes).
#[cfg(unix)]
#[test]
fn annotate_with_the_built_in_engine_stops_inside_a_search() {
    let dir = temp_dir("interrupt-builtin");
    let input = dir.join("in.pgn");
    std::fs::copy(fixture("pgn/lichess_db_10k.pgn"), &input).expect("copy");
    let out = dir.join("out.pgn");
    let args =
        ["annotate", "-q", "-j1", "--no-cache", "--nodes", "4000000000", input.to_str().unwrap(), "-o"];
    let mut child = started(&[&args[..], &[out.to_str().unwrap()]].concat(), Stdio::null(), Stdio::null());
    std::thread::sleep(std::time::Duration::from_millis(500));
    send("-INT", &child);
    let sent = std::time::Instant::now();
    // A watchdog far past a prompt stop and far short of the search's end.
    while child.try_wait().expect("wait").is_none() && sent.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let running = child.try_wait().expect("wait").is_none();
    if running {
        child.kill().expect("kill");
    }
    let o = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!running, "still searching 20 s after the signal");
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("stopped before the first game") && err.contains("no output was written"), "{err}");
    let lost =
        "pgnkit: without a cache the evaluations so far are lost, and the same command again starts over";
    assert!(err.contains(lost), "{err}");
    assert!(!out.exists());
}

/// Two `clean --shard` parts of some 600 KB of games in `dir`, many times a pipe's 64 KiB:
/// their manifests.
fn two_shards(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let input = dir.join("in.pgn");
    let mut games = std::fs::read(fixture("pgn/twic1599_10k.pgn")).expect("fixture");
    games.extend_from_slice(b"\n\n");
    std::fs::write(&input, games.repeat(60)).expect("write");
    let out = dir.join("out.pgn");
    (0..2)
        .map(|i| {
            let spec = format!("{i}/2");
            let o = pgnkit()
                .args(["clean", "-q", "--shard", &spec, input.to_str().expect("utf-8")])
                .args(["-o", out.to_str().expect("utf-8")])
                .output()
                .expect("shard");
            assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
            dir.join(format!("out.pgn.part-{i}-of-2.manifest.json"))
        })
        .collect()
}

/// `merge -o FIFO` whose reader takes nothing, the pipe already full (another writer's bytes):
/// the merge's first write finds no room, a wait the kernel starts again after a signal. One
/// SIGTERM ends it, exit 130, in the words of the jobs, nothing put in place.
#[cfg(target_os = "linux")]
#[test]
fn a_merge_to_a_full_fifo_no_one_reads_stops_on_one_signal() {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = temp_dir("interrupt-merge-stalled");
    let manifests = two_shards(&dir);
    let fifo = dir.join("merged.pgn");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    let open = |read: bool| {
        let mut options = std::fs::OpenOptions::new();
        options.read(read).write(!read).custom_flags(nix::libc::O_NONBLOCK);
        options.open(&fifo).expect("open the FIFO")
    };
    // Held open and never read.
    let (_reader, mut filler) = (open(true), open(false));
    while filler.write(&[b'\n'; 4096]).is_ok() {}
    let args: Vec<String> = ["merge".to_string(), "-o".into(), fifo.display().to_string()]
        .into_iter()
        .chain(manifests.iter().map(|m| m.display().to_string()))
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut child = started(&args, Stdio::null(), Stdio::null());
    // Past the check of the parts, into the first write.
    std::thread::sleep(std::time::Duration::from_millis(500));
    send("-TERM", &child);
    let status = exit_within(&mut child, 20, "one SIGTERM did not end merge's wait for room in the FIFO");
    let err = stderr_of(&mut child);
    assert_eq!(status.code(), Some(130), "{err}");
    let said = format!(
        "pgnkit: merge: interrupted: stopped waiting for the reader of {} to take more; ",
        fifo.display()
    );
    assert!(err.contains(&said), "{err}");
    let left: Vec<String> = files_in(&dir, &[]).into_iter().filter(|n| n.contains("pgnkit-tmp")).collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

/// `merge -o FIFO` that no process opens for reading: one signal ends the wait for a reader, as
/// an interrupt (130), not as an output that cannot be created (73).
#[cfg(target_os = "linux")]
#[test]
fn a_merge_to_a_fifo_no_process_opens_is_interrupted_on_one_signal() {
    let dir = temp_dir("interrupt-merge-unopened");
    let manifests = two_shards(&dir);
    let fifo = dir.join("merged.pgn");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    let args: Vec<String> = ["merge".to_string(), "-o".into(), fifo.display().to_string()]
        .into_iter()
        .chain(manifests.iter().map(|m| m.display().to_string()))
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut child = started(&args, Stdio::null(), Stdio::null());
    std::thread::sleep(std::time::Duration::from_millis(500));
    send("-INT", &child);
    let status = exit_within(&mut child, 20, "one SIGINT did not end merge's wait for a reader");
    let err = stderr_of(&mut child);
    assert_eq!(status.code(), Some(130), "{err}");
    let said = format!(
        "pgnkit: merge: interrupted: stopped waiting for a reader to open {}; nothing was written to it",
        fifo.display()
    );
    assert!(err.contains(&said), "{err}");
}

/// Stderr a pipe no one reads, full of diagnostics (`clean`, which writes them there; `check`
/// with stdout and stderr one pipe, `2>&1 | sleep 1000`): one signal stops the run, exit 130;
/// the messages the pipe cannot take are dropped.
#[cfg(target_os = "linux")]
#[test]
fn a_full_stderr_pipe_no_one_reads_stops_on_one_signal() {
    let dir = temp_dir("interrupt-full-stderr");
    let bad = dir.join("bad.pgn");
    // An illegal move a game: some 20,000 diagnostics, far more than a pipe's 64 KiB.
    std::fs::write(&bad, "[Event \"e\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n\n".repeat(20_000))
        .expect("write");
    let (bad, out) = (bad.to_str().expect("utf-8"), dir.join("out.pgn"));
    for (args, both) in [
        (vec!["clean", "-j1", bad, "-o", out.to_str().expect("utf-8")], false),
        (vec!["check", "-j1", bad], true),
    ] {
        let (reader, writer) = std::io::pipe().expect("pipe");
        let stdout = if both { Stdio::from(writer.try_clone().expect("dup")) } else { Stdio::null() };
        let mut child = sigint_default(&mut pgnkit())
            .args(&args)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(writer)
            .spawn()
            .expect("spawn pgnkit");
        assert!(wait_for_sigint_handler(child.id()), "{args:?}: the handler is installed");
        // Held open and never read.
        let _reader = reader;
        std::thread::sleep(std::time::Duration::from_millis(500));
        send("-INT", &child);
        let status = exit_within(&mut child, 20, &format!("{args:?}: one SIGINT did not stop the run"));
        assert_eq!(status.code(), Some(130), "{args:?}");
        assert!(!out.exists(), "{args:?}");
    }
}

/// The bytes the pipe of `reader` holds, and its capacity.
#[cfg(target_os = "linux")]
fn pipe_fill(reader: &std::io::PipeReader) -> (usize, usize) {
    let fd = std::os::fd::AsRawFd::as_raw_fd(reader);
    let mut held: nix::libc::c_int = 0;
    // SAFETY: ioctl(2) and fcntl(2) on a descriptor the test holds open, FIONREAD into a local int.
    #[allow(unsafe_code)]
    let size = unsafe {
        nix::libc::ioctl(fd, nix::libc::FIONREAD, &mut held);
        nix::libc::fcntl(fd, nix::libc::F_GETPIPE_SZ)
    };
    (held.max(0) as usize, size.max(0) as usize)
}

/// Stdout and stderr one pipe whose reader takes nothing (`check --json 2>&1 | sleep 1000`), full:
/// one SIGINT ends the run once that reader has taken nothing for one grace (1 s), the summary
/// record and the last words on stderr then dropped, not each waited for a grace of its own.
/// That the waits make one grace in all, not one each, is proved in `src/io/piped.rs`
/// (`after_a_stop_the_writes_to_pipes_nobody_reads_wait_one_grace_in_all`);
/// here the run ends, with 130 (a watchdog catches a hang).
#[cfg(target_os = "linux")]
#[test]
fn one_stop_waits_for_a_reader_that_takes_nothing_once() {
    let dir = temp_dir("interrupt-one-grace");
    // Some 19 MB of games, whose records are far more than a pipe's 64 KiB.
    let input = lichess_copies(&dir, 2000);
    let (reader, writer) = std::io::pipe().expect("pipe");
    let mut child = sigint_default(&mut pgnkit())
        .args(["check", "-j2", "--json", "--games", input.to_str().expect("utf-8")])
        .stdin(Stdio::null())
        .stdout(writer.try_clone().expect("dup"))
        .stderr(writer)
        .spawn()
        .expect("spawn pgnkit");
    assert!(wait_for_sigint_handler(child.id()), "the handler is installed");
    // Held open and never read: full but for a page, the writer is at its wait for room.
    let waiting = std::time::Instant::now();
    loop {
        let (held, size) = pipe_fill(&reader);
        if held + 4096 >= size {
            break;
        }
        assert!(waiting.elapsed() < std::time::Duration::from_secs(60), "the pipe holds {held} of {size}");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    send("-INT", &child);
    let status = exit_within_20_s(&mut child, "one SIGINT did not end the waits for room");
    assert_eq!(status.code(), Some(130));
}
