//! One engine process and its pipes. The engine runs in a process group of its own, so that
//! killing it kills whatever it started too, and a Ctrl-C at the terminal reaches pgnkit alone
//! (which decides when its engines stop). A thread turns stdout into lines on a channel, so that
//! every read can have a deadline; another drains stderr, since an engine blocked on a full
//! stderr pipe would look hung, and keeps its last lines for error messages.
//!
//! Invariant: the child is reaped only in [`Process::kill`], after its group was signalled, so the
//! group id signalled is never one the system has given to another process.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{self, BufRead, BufReader, Read as _, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError};

/// Longest line read from the engine; the rest of a longer one arrives as further lines.
const MAX_LINE: u64 = 64 << 10;
/// Lines of stdout buffered ahead of the reader; a faster engine waits on its pipe.
const LINES_AHEAD: usize = 4096;
/// Lines of stderr kept for error messages.
const STDERR_KEPT: usize = 8;

/// What reading a line gave.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Read {
    /// A line, without its line ending.
    Line(String),
    /// Stdout is closed: the engine exited (or closed it, which is as bad).
    Eof,
    /// Nothing before the deadline.
    Timeout,
}

/// A running engine: stdin to write commands to, stdout as lines, stderr drained.
pub(crate) struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr: Arc<Mutex<StderrTail>>,
    reaped: Option<ExitStatus>,
}

/// The last lines of the engine's stderr, and whether it is closed.
#[derive(Default)]
struct StderrTail {
    lines: VecDeque<String>,
    closed: bool,
}

impl Process {
    /// Starts `path` with `args`, in a new process group.
    pub(crate) fn spawn(path: &Path, args: &[OsString]) -> io::Result<Process> {
        let mut command = Command::new(path);
        command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn()?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            unreachable!("all three pipes were asked for")
        };
        let (tx, lines) = crossbeam_channel::bounded(LINES_AHEAD);
        let stderr_tail = Arc::new(Mutex::new(StderrTail::default()));
        let tail = Arc::clone(&stderr_tail);
        let started = thread::Builder::new()
            .name("engine-stdout".into())
            .spawn(move || {
                for_each_line(stdout, |line| tx.send(line).is_ok());
            })
            .and_then(|_| {
                thread::Builder::new().name("engine-stderr".into()).spawn(move || {
                    let lock = || tail.lock().unwrap_or_else(|e| e.into_inner());
                    for_each_line(stderr, |line| {
                        let lines = &mut lock().lines;
                        if lines.len() == STDERR_KEPT {
                            lines.pop_front();
                        }
                        lines.push_back(line);
                        true
                    });
                    lock().closed = true;
                })
            });
        let mut process = Process { child, stdin, lines, stderr: stderr_tail, reaped: None };
        if let Err(e) = started {
            process.kill();
            return Err(e);
        }
        Ok(process)
    }

    /// Writes one command line. An error (a broken pipe) means the engine is gone.
    pub(crate) fn send(&mut self, line: &str) -> io::Result<()> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        self.stdin.write_all(&bytes)?;
        self.stdin.flush()
    }

    /// The next line of stdout, waiting until `deadline` at most.
    pub(crate) fn read_line(&self, deadline: Instant) -> Read {
        match self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => Read::Line(line),
            Err(RecvTimeoutError::Disconnected) => Read::Eof,
            Err(RecvTimeoutError::Timeout) => Read::Timeout,
        }
    }

    /// The engine's last lines of stderr, joined with ` | ` (empty when it wrote none), after
    /// waiting up to `wait` for stderr to close (for the last words of an engine that died).
    pub(crate) fn stderr_tail(&self, wait: Duration) -> String {
        let deadline = Instant::now() + wait;
        loop {
            let tail = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
            if tail.closed || Instant::now() >= deadline {
                return tail.lines.iter().map(String::as_str).collect::<Vec<_>>().join(" | ");
            }
            drop(tail);
            thread::sleep(Duration::from_millis(2));
        }
    }

    /// Asks the engine to quit and waits until `deadline` for it to close stdout; then kills
    /// whatever is left of its group.
    pub(crate) fn quit(&mut self, deadline: Instant) {
        if self.reaped.is_none() && self.send("quit").is_ok() {
            while let Read::Line(_) = self.read_line(deadline) {}
        }
        self.kill();
    }

    /// Kills the engine's process group and reaps the engine; its exit status, when it could be
    /// had. Idempotent.
    pub(crate) fn kill(&mut self) -> Option<ExitStatus> {
        if self.reaped.is_none() {
            #[cfg(unix)]
            {
                use nix::sys::signal::{Signal, killpg};
                use nix::unistd::Pid;
                // The group exists while its leader is unreaped; ESRCH cannot happen, other
                // errors leave the child.kill() below.
                let _ = killpg(Pid::from_raw(self.child.id() as i32), Signal::SIGKILL);
            }
            let _ = self.child.kill();
            self.reaped = self.child.wait().ok();
        }
        self.reaped
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Calls `each` with every line of `input` (lossy UTF-8, without `\r\n`) until the end, an error,
/// or `each` returning `false`. Lines longer than [`MAX_LINE`] come in pieces.
fn for_each_line(input: impl io::Read, mut each: impl FnMut(String) -> bool) {
    let mut input = BufReader::new(input);
    let mut buf = Vec::with_capacity(256);
    loop {
        buf.clear();
        match (&mut input).take(MAX_LINE).read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                while matches!(buf.last(), Some(b'\n' | b'\r')) {
                    buf.pop();
                }
                if !each(String::from_utf8_lossy(&buf).into_owned()) {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_dead_engine_is_eof_then_a_broken_pipe() {
        let mut p =
            Process::spawn(Path::new("/bin/sh"), &["-c".into(), "echo last words >&2; exit 3".into()])
                .expect("/bin/sh");
        let deadline = Instant::now() + Duration::from_secs(10);
        assert_eq!(p.read_line(deadline), Read::Eof);
        assert_eq!(p.stderr_tail(Duration::from_secs(10)), "last words");
        // The child is gone (reaped by `kill`, which signals nothing that is not its group).
        assert_eq!(p.kill().and_then(|s| s.code()), Some(3));
        let e = p.send("isready").expect_err("nobody reads");
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
    }

    #[test]
    fn lines_are_split_trimmed_and_capped() {
        let mut long = vec![b'x'; MAX_LINE as usize + 10];
        long.extend_from_slice(b"\r\nuciok\n\xffend");
        let mut got = Vec::new();
        for_each_line(&long[..], |l| {
            got.push(l);
            true
        });
        assert_eq!(got.len(), 4, "{:?}", got.iter().map(String::len).collect::<Vec<_>>());
        assert_eq!(got[0].len(), MAX_LINE as usize);
        assert_eq!(got[1], "x".repeat(10));
        assert_eq!(got[2], "uciok");
        assert_eq!(got[3], "\u{fffd}end");
    }
}
