//! Outputs that are pipes or FIFOs, whose reader may take nothing (`| sleep 1000`, a FIFO no
//! process opened for reading): a wait for a reader or for room looks every [`PAUSE`] at whether
//! a stop signal came ([`super::stop_streams`]), so that one stop ends it, as it ends a wait for
//! input. The kernel would wait with no end: a write or an `open` that a signal interrupts
//! starts again. Stderr's messages are written the same way ([`stderr`]). The first wait for room
//! that a stop ends ends every later one of the process, in any pipe ([`GIVING_UP`]).

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

#[cfg(unix)]
use super::waiting::non_blocking;
use super::waiting::{PAUSE, stopping};

/// How long a write, once a stop came, waits for a reader that takes nothing before it gives up:
/// a slow reader still gets the games released before the stop.
const GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// When waits for room give up: a [`GRACE`] after a stop, and once one gave up, every wait for
/// room of the process (the write then, its flush, another output, stderr) at once, so one stop
/// ends the run within one grace, not one a write.
static GIVING_UP: GiveUp = GiveUp::new(stopping, GRACE);

/// The state behind [`GIVING_UP`], apart so that a unit test has one of its own.
struct GiveUp {
    stopping: fn() -> bool,
    grace: std::time::Duration,
    gave_up: std::sync::atomic::AtomicBool,
    /// How many waits began a grace: one a stop, whatever the writes after it.
    graces: std::sync::atomic::AtomicU32,
}

impl GiveUp {
    const fn new(stopping: fn() -> bool, grace: std::time::Duration) -> GiveUp {
        use std::sync::atomic::{AtomicBool, AtomicU32};
        GiveUp { stopping, grace, gave_up: AtomicBool::new(false), graces: AtomicU32::new(0) }
    }
}

/// The error of a wait a stop ended: `opening` when no reader had opened the output yet.
#[derive(Debug)]
pub(super) struct Stopped {
    pub(super) opening: bool,
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.opening { "stopped waiting for a reader" } else { "stopped waiting for room" })
    }
}

impl std::error::Error for Stopped {}

/// The [`Stopped`] in `e`, if it is one.
pub(super) fn stopped(e: &io::Error) -> Option<&Stopped> {
    e.get_ref().and_then(|e| e.downcast_ref::<Stopped>())
}

/// Opens the output `path`, a device or a pipe written in place. A FIFO is opened once a process
/// has it open for reading, tried again every [`PAUSE`] until then; its writes block, as any
/// file's.
#[cfg(unix)]
pub(super) fn open(path: &Path, meta: &std::fs::Metadata) -> io::Result<File> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    if !meta.file_type().is_fifo() {
        return File::options().write(true).open(path);
    }
    loop {
        // Without a reader this fails at once (ENXIO) instead of waiting in the kernel.
        match File::options().write(true).custom_flags(nix::libc::O_NONBLOCK).open(path) {
            Err(e) if e.raw_os_error() == Some(nix::libc::ENXIO) => {
                if stopping() {
                    return Err(io::Error::other(Stopped { opening: true }));
                }
                std::thread::sleep(PAUSE);
            }
            Err(e) => return Err(e),
            Ok(file) => {
                non_blocking(&file, false)?;
                return Ok(file);
            }
        }
    }
}

#[cfg(not(unix))]
pub(super) fn open(path: &Path, _: &std::fs::Metadata) -> io::Result<File> {
    File::options().write(true).open(path)
}

/// A writer to the file `file`. A pipe is written non-blocking: a write that finds it full waits
/// for room by `poll`, which a stop ends. A pipe's other writes cost nothing more.
pub(crate) struct Watched {
    file: File,
    pipe: bool,
    give_up: &'static GiveUp,
}

impl Watched {
    /// `file`, an open file description of this process's own (no other process writes through
    /// it: it is made non-blocking when it is a pipe).
    pub(crate) fn new(file: File) -> Watched {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            let fifo = file.metadata().is_ok_and(|m| m.file_type().is_fifo());
            let pipe = fifo && non_blocking(&file, true).is_ok();
            Watched { file, pipe, give_up: &GIVING_UP }
        }
        #[cfg(not(unix))]
        Watched { file, pipe: false, give_up: &GIVING_UP }
    }

    /// `file` as it is, unwatched: a regular file, which never waits for a reader.
    pub(crate) fn unwatched(file: File) -> Watched {
        Watched { file, pipe: false, give_up: &GIVING_UP }
    }

    pub(crate) fn file(&self) -> &File {
        &self.file
    }
}

impl Write for Watched {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        loop {
            match self.file.write(buf) {
                Err(e) if self.pipe && e.kind() == io::ErrorKind::WouldBlock => {
                    wait_for_room(&self.file, self.give_up)?
                }
                written => return written,
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Waits until the pipe `file` has room or has no reader any more (the write then fails as it
/// would have), or a stop came a grace ago with no room since, or a wait gave up ([`GiveUp`]).
#[cfg(unix)]
fn wait_for_room(file: &File, give_up: &GiveUp) -> io::Result<()> {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use std::os::fd::AsFd;
    use std::sync::atomic::Ordering::Relaxed;
    let mut stop_seen: Option<std::time::Instant> = None;
    loop {
        if give_up.gave_up.load(Relaxed) {
            return Err(io::Error::other(Stopped { opening: false }));
        }
        let mut fds = [PollFd::new(file.as_fd(), PollFlags::POLLOUT)];
        match poll(&mut fds, PollTimeout::from(PAUSE.as_millis() as u8)) {
            Ok(0) | Err(nix::errno::Errno::EINTR) => {
                if !(give_up.stopping)() {
                    continue;
                }
                let since = stop_seen.get_or_insert_with(|| {
                    give_up.graces.fetch_add(1, Relaxed);
                    std::time::Instant::now()
                });
                if since.elapsed() >= give_up.grace {
                    give_up.gave_up.store(true, Relaxed);
                }
            }
            Ok(_) => return Ok(()),
            Err(e) => return Err(e.into()),
        }
    }
}

#[cfg(not(unix))]
fn wait_for_room(_: &File, _: &GiveUp) -> io::Result<()> {
    Ok(())
}

/// The standard stream `fd` (1 or 2) when it is a pipe, on Linux: opened again
/// (`/proc/self/fd/N`) as an open file description of its own that is [`Watched`], since the one
/// the stream shares with the shell and the other processes of a pipeline must stay blocking.
/// `None` elsewhere, for a stream that is no pipe, and when that open fails (no `/proc`).
fn reopened(fd: u8) -> Option<Watched> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        let path = format!("/proc/self/fd/{fd}");
        let fifo = |m: std::fs::Metadata| m.file_type().is_fifo();
        if std::fs::metadata(&path).is_ok_and(fifo)
            && let Ok(file) = File::options().write(true).custom_flags(nix::libc::O_NONBLOCK).open(&path)
        {
            return Some(Watched::new(file));
        }
    }
    let _ = fd;
    None
}

/// Stdout, for an output: a pipe [`reopened`], else as it is.
pub(super) fn stdout() -> Box<dyn Write + Send> {
    match reopened(1) {
        Some(watched) => Box::new(watched),
        None => Box::new(io::stdout()),
    }
}

/// Stderr when it is a pipe, [`reopened`] at the first use.
static STDERR: std::sync::OnceLock<Option<std::sync::Mutex<Watched>>> = std::sync::OnceLock::new();

/// The descriptor [`stderr_fd`] gives: stderr's own, or its [`reopened`] one.
static STDERR_FD: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(2);

fn stderr_pipe() -> Option<&'static std::sync::Mutex<Watched>> {
    STDERR
        .get_or_init(|| {
            let out = reopened(2)?;
            #[cfg(unix)]
            STDERR_FD
                .store(std::os::fd::AsRawFd::as_raw_fd(out.file()), std::sync::atomic::Ordering::Relaxed);
            Some(std::sync::Mutex::new(out))
        })
        .as_ref()
}

/// A descriptor to write stderr's last words through from a signal handler (async-signal-safe: an
/// atomic load): the non-blocking one of a pipe once [`watch_stderr`] opened it (a blocking write
/// to a full pipe would keep the handler from ending the process), else 2.
pub fn stderr_fd() -> i32 {
    STDERR_FD.load(std::sync::atomic::Ordering::Relaxed)
}

/// Opens stderr's own description now when it is a pipe, for [`stderr_fd`]: before a signal
/// handler may need it.
pub fn watch_stderr() {
    let _ = stderr_pipe();
}

/// Stderr, for messages: a pipe's wait for room ends at a stop (as an output pipe's), what it could not
/// take is then dropped (at once after any wait for room gave up), and a write never fails
/// (nothing could be said of it but on stderr).
/// Each `write!` is written whole, as `io::stderr()`'s is.
pub fn stderr() -> Messages {
    Messages
}

/// See [`stderr`].
pub struct Messages;

impl Messages {
    fn write_whole(bytes: &[u8]) {
        let Some(pipe) = stderr_pipe() else {
            let _ = io::stderr().write_all(bytes);
            return;
        };
        let _ = pipe.lock().unwrap_or_else(std::sync::PoisonError::into_inner).write_all(bytes);
    }
}

impl Write for Messages {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Messages::write_whole(buf);
        Ok(buf.len())
    }

    fn write_fmt(&mut self, args: std::fmt::Arguments<'_>) -> io::Result<()> {
        match args.as_str() {
            Some(text) => Messages::write_whole(text.as_bytes()),
            None => Messages::write_whole(args.to_string().as_bytes()),
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A pipe whose reader is held and never read, filled: its writer waits for room.
    fn full_pipe(give_up: &'static GiveUp) -> (io::PipeReader, Watched) {
        let (reader, writer) = io::pipe().unwrap();
        let mut out = Watched { give_up, ..Watched::new(File::from(std::os::fd::OwnedFd::from(writer))) };
        assert!(out.pipe);
        while out.file.write(&[0; 4096]).is_ok() {}
        while out.file.write(&[0]).is_ok() {}
        (reader, out)
    }

    #[test]
    fn after_a_stop_the_writes_to_pipes_nobody_reads_wait_one_grace_in_all() {
        static STOPPED: GiveUp = GiveUp::new(|| true, std::time::Duration::ZERO);
        let (_a, mut first) = full_pipe(&STOPPED);
        let (_b, mut second) = full_pipe(&STOPPED);
        for _ in 0..2 {
            for out in [&mut first, &mut second] {
                let e = out.write(b"1. e4 e5").unwrap_err();
                assert!(stopped(&e).is_some_and(|s| !s.opening), "{e}");
            }
        }
        assert_eq!(STOPPED.graces.load(std::sync::atomic::Ordering::Relaxed), 1);
    }
}
