//! Outputs that are pipes or FIFOs, whose reader may take nothing (`| sleep 1000`, a FIFO no
//! process opened for reading): a wait for a reader or for room looks every [`PAUSE`] at whether
//! a stop signal came ([`super::stop_streams`]), so that one stop ends it, as it ends a wait for
//! input. The kernel would wait with no end: a write or an `open` that a signal interrupts
//! starts again.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

#[cfg(unix)]
use super::waiting::non_blocking;
use super::waiting::{PAUSE, stopping};

/// How long a write, once a stop came, waits for a reader that takes nothing before it gives up:
/// a slow reader still gets the games released before the stop.
const GRACE: std::time::Duration = std::time::Duration::from_secs(1);

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
pub(super) struct Watched {
    file: File,
    pipe: bool,
}

impl Watched {
    /// `file`, an open file description of this process's own (no other process writes through
    /// it: it is made non-blocking when it is a pipe).
    pub(super) fn new(file: File) -> Watched {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            let fifo = file.metadata().is_ok_and(|m| m.file_type().is_fifo());
            let pipe = fifo && non_blocking(&file, true).is_ok();
            Watched { file, pipe }
        }
        #[cfg(not(unix))]
        Watched { file, pipe: false }
    }

    /// `file` as it is, unwatched: a regular file, which never waits for a reader.
    pub(super) fn unwatched(file: File) -> Watched {
        Watched { file, pipe: false }
    }

    pub(super) fn file(&self) -> &File {
        &self.file
    }
}

impl Write for Watched {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        loop {
            match self.file.write(buf) {
                Err(e) if self.pipe && e.kind() == io::ErrorKind::WouldBlock => wait_for_room(&self.file)?,
                written => return written,
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Waits until the pipe `file` has room or has no reader any more (the write then fails as it
/// would have), or a stop came [`GRACE`] ago with no room since.
#[cfg(unix)]
fn wait_for_room(file: &File) -> io::Result<()> {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use std::os::fd::AsFd;
    let mut stop_seen: Option<std::time::Instant> = None;
    loop {
        let mut fds = [PollFd::new(file.as_fd(), PollFlags::POLLOUT)];
        match poll(&mut fds, PollTimeout::from(PAUSE.as_millis() as u8)) {
            Ok(0) | Err(nix::errno::Errno::EINTR) => {
                if stopping() && stop_seen.get_or_insert_with(std::time::Instant::now).elapsed() >= GRACE {
                    return Err(io::Error::other(Stopped { opening: false }));
                }
            }
            Ok(_) => return Ok(()),
            Err(e) => return Err(e.into()),
        }
    }
}

#[cfg(not(unix))]
fn wait_for_room(_: &File) -> io::Result<()> {
    Ok(())
}

/// Stdout, for an output. On Linux a pipe is opened again (`/proc/self/fd/1`), as an open file
/// description of its own that is [`Watched`]: the one stdout shares with the shell and the
/// other processes of a pipeline must stay blocking. Elsewhere, and when that open fails (no
/// `/proc`), it is written as it is.
pub(super) fn stdout() -> Box<dyn Write + Send> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        let fifo = |m: std::fs::Metadata| m.file_type().is_fifo();
        if std::fs::metadata("/proc/self/fd/1").is_ok_and(fifo)
            && let Ok(file) =
                File::options().write(true).custom_flags(nix::libc::O_NONBLOCK).open("/proc/self/fd/1")
        {
            return Box::new(Watched::new(file));
        }
    }
    Box::new(io::stdout())
}
