//! One engine process and its pipes. The engine runs in a process group of its own, so that
//! killing it kills whatever it started too, and a Ctrl-C at the terminal reaches pgnkit alone
//! (which decides when its engines stop). Stdout is read by the thread that waits for the answer,
//! `poll` giving every read its deadline (a reading thread and a channel cost one more wake-up a
//! line: `annotate --keep-hash` at `go nodes 1` on a 47-game sample, best of 7 alternating runs,
//! 1.52 s against 1.66 s);
//! a thread drains stderr, since an engine blocked on a full stderr pipe would look hung, and
//! keeps its last lines for error messages.
//!
//! Invariant: the child is reaped only in [`Process::kill`], after its group was signalled, so the
//! group id signalled is never one the system has given to another process.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{self, BufRead, BufReader, Read as _, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::INTERRUPT_POLL;

/// Longest line read from the engine, its line break aside: some 40 times its longest line of
/// UCI (an `info` with a PV of a few hundred moves). A longer stdout line is [`Read::TooLong`],
/// its rest skipped as it arrives; a longer stderr line comes in pieces (its last few are kept).
pub(crate) const MAX_LINE: u64 = 64 << 10;
/// Lines of stderr kept for error messages.
const STDERR_KEPT: usize = 8;

/// What reading a line gave.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Read {
    /// A line, without its line ending.
    Line(String),
    /// A line longer than [`MAX_LINE`]: its first [`MAX_LINE`] bytes; the rest of it is read
    /// and dropped (an engine printing without end holds no more memory than that).
    TooLong(String),
    /// Stdout is closed: the engine exited (or closed it, which is as bad).
    Eof,
    /// Nothing before the deadline.
    Timeout,
    /// The run is being interrupted (Ctrl-C): the wait was given up ([`Process::read_line_until`]).
    Interrupted,
}

/// A running engine: stdin to write commands to, stdout as lines, stderr drained.
pub(crate) struct Process {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines,
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
        let stderr_tail = Arc::new(Mutex::new(StderrTail::default()));
        let tail = Arc::clone(&stderr_tail);
        let started = thread::Builder::new().name("engine-stderr".into()).spawn(move || {
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
        });
        let stdout = Lines::new(stdout);
        let mut process = Process { child, stdin, stdout, stderr: stderr_tail, reaped: None };
        if let Err(e) = started {
            process.kill();
            return Err(e);
        }
        Ok(process)
    }

    /// Writes one command line. An error (a broken pipe) means the engine is gone.
    pub(crate) fn send(&mut self, line: &str) -> io::Result<()> {
        self.send_all(&[line])
    }

    /// Writes command lines in one write: the engine reads them in one wake-up.
    pub(crate) fn send_all(&mut self, lines: &[&str]) -> io::Result<()> {
        let mut bytes = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
        for line in lines {
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
        }
        self.stdin.write_all(&bytes)?;
        self.stdin.flush()
    }

    /// The next line of stdout, waiting until `deadline` at most.
    pub(crate) fn read_line(&mut self, deadline: Instant) -> Read {
        self.stdout.next(deadline)
    }

    /// [`Process::read_line`], looking at `interrupted` every [`INTERRUPT_POLL`] until then:
    /// [`Read::Interrupted`] once it says so.
    pub(crate) fn read_line_until(&mut self, deadline: Instant, interrupted: Option<fn() -> bool>) -> Read {
        let Some(interrupted) = interrupted else { return self.read_line(deadline) };
        loop {
            if interrupted() {
                return Read::Interrupted;
            }
            match self.read_line(deadline.min(Instant::now() + INTERRUPT_POLL)) {
                Read::Timeout if Instant::now() < deadline => {}
                read => return read,
            }
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
            while let Read::Line(_) | Read::TooLong(_) = self.read_line(deadline) {}
        }
        self.kill();
    }

    /// The engine's exit status when it exits by itself within `wait` (its pipes closed: it may
    /// be on its way out), after which it is reaped with its group killed; `None` while it runs.
    #[cfg(target_os = "linux")]
    pub(crate) fn exited(&mut self, wait: Duration) -> Option<ExitStatus> {
        use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};
        use nix::unistd::Pid;
        if self.reaped.is_some() {
            return self.reaped;
        }
        let deadline = Instant::now() + wait;
        // WNOWAIT looks without reaping: the invariant leaves reaping to `kill`.
        let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
        loop {
            match waitid(Id::Pid(Pid::from_raw(self.child.id() as i32)), flags) {
                Ok(WaitStatus::StillAlive) if Instant::now() < deadline => {
                    thread::sleep(Duration::from_millis(2))
                }
                Ok(WaitStatus::StillAlive) => return None,
                Err(nix::errno::Errno::EINTR) => {}
                Ok(_) => return self.kill(),
                Err(_) => return None,
            }
        }
    }

    /// Without `waitid`'s look that does not reap, the status `kill` gives.
    #[cfg(not(target_os = "linux"))]
    pub(crate) fn exited(&mut self, _wait: Duration) -> Option<ExitStatus> {
        self.kill()
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

/// Stdout as lines, each read waiting until a deadline at most.
struct Lines {
    stdout: ChildStdout,
    /// Bytes read and not yet returned, from `start`.
    buf: Vec<u8>,
    start: usize,
    /// Inside a line over [`MAX_LINE`], whose rest is dropped up to its line break.
    skipping: bool,
    /// Stdout is closed (or failed): what is left in `buf` is the last line.
    closed: bool,
}

impl Lines {
    fn new(stdout: ChildStdout) -> Lines {
        Lines { stdout, buf: Vec::with_capacity(4096), start: 0, skipping: false, closed: false }
    }

    /// The next line (lossy UTF-8, without `\r\n`), [`Read::TooLong`] for one over
    /// [`MAX_LINE`], [`Read::Eof`] once stdout is closed and read, or [`Read::Timeout`] when no
    /// whole line came before `deadline`.
    fn next(&mut self, deadline: Instant) -> Read {
        let max = MAX_LINE as usize;
        loop {
            if self.skipping {
                match memchr::memchr(b'\n', &self.buf[self.start..]) {
                    Some(end) => (self.start, self.skipping) = (self.start + end + 1, false),
                    None => self.start = self.buf.len(),
                }
            }
            let pending = &self.buf[self.start..];
            let cut = match memchr::memchr(b'\n', &pending[..pending.len().min(max + 1)]) {
                Some(end) => Some((end, end + 1)),
                None if pending.len() > max => {
                    let head = String::from_utf8_lossy(&pending[..max]).into_owned();
                    (self.start, self.skipping) = (self.start + max, true);
                    return Read::TooLong(head);
                }
                None if self.closed && !pending.is_empty() => Some((pending.len(), pending.len())),
                None => None,
            };
            if let Some((end, next)) = cut {
                let mut line = &pending[..end];
                while let [rest @ .., b'\r'] = line {
                    line = rest;
                }
                let line = String::from_utf8_lossy(line).into_owned();
                self.start += next;
                return Read::Line(line);
            }
            if self.closed {
                return Read::Eof;
            }
            if !self.wait(deadline) {
                return Read::Timeout;
            }
            self.fill();
        }
    }

    /// Reads what the pipe holds (it was found readable); a read of nothing or an error closes.
    fn fill(&mut self) {
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        let len = self.buf.len();
        self.buf.resize(len + 4096, 0);
        match self.stdout.read(&mut self.buf[len..]) {
            Ok(n) if n > 0 => self.buf.truncate(len + n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => self.buf.truncate(len),
            _ => {
                self.buf.truncate(len);
                self.closed = true;
            }
        }
    }

    /// Waits until stdout can be read (data or its end): `false` when `deadline` came first.
    #[cfg(unix)]
    fn wait(&self, deadline: Instant) -> bool {
        use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
        use std::os::fd::AsFd;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            // Whole milliseconds, rounded up: a wait never ends before its deadline.
            let ms = left.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
            let mut fds = [PollFd::new(self.stdout.as_fd(), PollFlags::POLLIN)];
            match poll(&mut fds, PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX)) {
                Ok(0) | Err(nix::errno::Errno::EINTR) => {}
                // Readable, closed (POLLHUP) or failed: the read says which.
                _ => return true,
            }
        }
    }

    /// Without `poll`, a read blocks: the deadline is not kept.
    #[cfg(not(unix))]
    fn wait(&self, _deadline: Instant) -> bool {
        true
    }
}

/// An exit status in words: `exit status: 3`, or `killed by signal 4 (SIGILL)`.
pub(crate) fn status_text(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(n) = status.signal() {
            let name = nix::sys::signal::Signal::try_from(n).map_or("", |s| s.as_str());
            let core = if status.core_dumped() { ", core dumped" } else { "" };
            return if name.is_empty() {
                format!("killed by signal {n}{core}")
            } else {
                format!("killed by signal {n} ({name}){core}")
            };
        }
    }
    status.to_string()
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

    #[cfg(target_os = "linux")]
    #[test]
    fn an_engine_that_exits_gives_its_status_one_that_runs_none() {
        let mut p =
            Process::spawn(Path::new("/bin/sh"), &["-c".into(), "kill -ILL $$".into()]).expect("/bin/sh");
        let status = p.exited(Duration::from_secs(10)).expect("it exits");
        // ", core dumped" where the system dumps cores.
        assert!(status_text(status).starts_with("killed by signal 4 (SIGILL)"), "{status}");
        let mut p = Process::spawn(Path::new("/bin/sh"), &["-c".into(), "exit 3".into()]).expect("/bin/sh");
        assert_eq!(p.exited(Duration::from_secs(10)).map(status_text).as_deref(), Some("exit status: 3"));
        let mut p = Process::spawn(Path::new("/bin/sh"), &["-c".into(), "sleep 30".into()]).expect("/bin/sh");
        assert_eq!(p.exited(Duration::from_millis(50)), None);
        // Killed by pgnkit, reaped once.
        assert!(p.kill().is_some() && p.kill().is_some());
    }

    #[cfg(unix)]
    #[test]
    fn stdout_lines_keep_their_deadline_and_end_with_eof() {
        let script = "printf 'uciok\\r\\nid name x\\n'; sleep 1; printf 'last'";
        let mut p = Process::spawn(Path::new("/bin/sh"), &["-c".into(), script.into()]).expect("/bin/sh");
        let soon = || Instant::now() + Duration::from_millis(300);
        assert_eq!(p.read_line(soon()), Read::Line("uciok".into()));
        assert_eq!(p.read_line(soon()), Read::Line("id name x".into()));
        let asked = Instant::now();
        assert_eq!(p.read_line(asked + Duration::from_millis(100)), Read::Timeout);
        assert!(asked.elapsed() >= Duration::from_millis(100));
        let later = Instant::now() + Duration::from_secs(10);
        assert_eq!(p.read_line(later), Read::Line("last".into()));
        assert_eq!(p.read_line(later), Read::Eof);
        assert_eq!(p.read_line(later), Read::Eof);
    }

    /// A stdout line over the bound is one [`Read::TooLong`], the rest of it dropped as it comes:
    /// no piece of it is read as a line (its tail could look like `bestmove`).
    #[cfg(unix)]
    #[test]
    fn a_long_stdout_line_is_skipped_whole() {
        let script =
            format!("head -c {} /dev/zero | tr '\\0' x; echo ' bestmove e2e4'; echo after", 3 * MAX_LINE);
        let mut p = Process::spawn(Path::new("/bin/sh"), &["-c".into(), script.into()]).expect("/bin/sh");
        let deadline = Instant::now() + Duration::from_secs(10);
        let Read::TooLong(head) = p.read_line(deadline) else { panic!("a line over the bound") };
        assert_eq!(head, "x".repeat(MAX_LINE as usize));
        assert_eq!(p.read_line(deadline), Read::Line("after".into()));
        assert_eq!(p.read_line(deadline), Read::Eof);
        // One without end: the reader keeps its deadline, holding no more than the bound.
        let script = "yes x | tr -d '\\n'";
        let mut p = Process::spawn(Path::new("/bin/sh"), &["-c".into(), script.into()]).expect("/bin/sh");
        assert!(matches!(p.read_line(deadline), Read::TooLong(_)));
        assert_eq!(p.read_line(Instant::now() + Duration::from_millis(300)), Read::Timeout);
        assert!(p.stdout.buf.capacity() <= 2 * MAX_LINE as usize, "{}", p.stdout.buf.capacity());
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
