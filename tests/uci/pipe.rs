//! pgnkit's own engine (`pgnkit uci`, `pgnkit xboard`) on pipes: lines sent, lines waited for
//! within a bound, and the process killed at the end whatever happened, so that a hang fails the
//! test instead of stalling the run.

use std::io::Write;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// Long enough for a loaded machine, where the defects these tests catch meant never.
pub const BOUND: Duration = Duration::from_secs(10);

/// A running `pgnkit` and what it has written so far.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line read, in order.
    pub seen: Vec<String>,
}

impl Engine {
    /// `pgnkit ARGS` with stdin and stdout on pipes (stderr inherited).
    pub fn start(args: &[&str]) -> Engine {
        Engine::spawn(Command::new(env!("CARGO_BIN_EXE_pgnkit")).args(args))
    }

    /// [`Engine::start`] with the process's address space limited to `kb` kilobytes (`ulimit
    /// -v`), so that large allocations fail.
    pub fn start_with_address_space(kb: u64, args: &[&str]) -> Engine {
        let mut command = Command::new("sh");
        command.args(["-c", &format!("ulimit -v {kb} && exec \"$0\" \"$@\""), env!("CARGO_BIN_EXE_pgnkit")]);
        Engine::spawn(command.args(args))
    }

    fn spawn(command: &mut Command) -> Engine {
        let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("start pgnkit");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        Engine { child, stdin, lines, seen: Vec::new() }
    }

    /// Sends `bytes` as they are.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("input still open");
        stdin.write_all(bytes).and_then(|()| stdin.flush()).expect("write to pgnkit");
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    /// The first line for which `want` holds, waited for up to `within`; panics naming `what`
    /// and the lines seen when it does not come.
    pub fn expect(&mut self, what: &str, within: Duration, want: impl Fn(&str) -> bool) -> String {
        let end = Instant::now() + within;
        loop {
            match self.lines.recv_timeout(end.saturating_duration_since(Instant::now())) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if want(&line) {
                        return line;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no {what} within {within:?}; seen {:#?}", self.seen)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("output ended before {what}; seen {:#?}", self.seen)
                }
            }
        }
    }

    /// The next `bestmove` line's move, waited for up to [`BOUND`].
    pub fn bestmove(&mut self) -> String {
        let line = self.expect("bestmove", BOUND, |l| l.starts_with("bestmove "));
        line.split_whitespace().nth(1).expect("a move").to_string()
    }
}

impl Engine {
    /// Closes the input (end of file).
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The memory the process holds (`VmRSS` of Linux's `/proc/PID/status`), in kilobytes.
    pub fn resident_kb(&self) -> u64 {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).expect("/proc status");
        let kb = status.lines().find_map(|l| l.strip_prefix("VmRSS:")).expect("a VmRSS line");
        kb.trim().trim_end_matches("kB").trim().parse().expect("VmRSS in kB")
    }

    /// The exit status, waited for up to `within`; panics when the process still runs then.
    pub fn exit_within(&mut self, within: Duration) -> ExitStatus {
        let end = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for pgnkit") {
                return status;
            }
            assert!(Instant::now() < end, "still running after {within:?}; seen {:#?}", self.seen);
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
