//! Inputs that may wait (stdin, a pipe, a FIFO): opened without waiting for a writer
//! ([`open`]) and read once they have bytes, polled so that a stop signal ends the wait
//! ([`stop_streams`]) and a pause of a plain stream ends a pausing read ([`read_pausing`]) for
//! the reader to work on what it holds.

use std::fs::File;
use std::io::{self, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by [`stop_streams`]: reads of pipes end.
static STOP_STREAMS: AtomicBool = AtomicBool::new(false);

/// Ends every input that is not a regular file (stdin, `<(curl ...)`, a FIFO) at its next wait
/// for bytes, as its end would, so that a run waiting on a stalled pipe stops. One atomic store:
/// async-signal-safe, for a stop signal's handler.
pub fn stop_streams() {
    STOP_STREAMS.store(true, Ordering::Relaxed);
}

/// Whether [`stop_streams`] was called: waits on pipes, for input or for output, end.
pub(super) fn stopping() -> bool {
    STOP_STREAMS.load(Ordering::Relaxed)
}

/// Opens the input `path` for reading. On Linux a FIFO no process writes to yet is opened
/// without waiting for one (an `open` would wait in the kernel, where no stop signal ends it):
/// the [`Polled`] read waits instead, and Linux reports no end of it before a first writer has
/// come and gone. Reads are blocking again once it is open.
#[cfg(target_os = "linux")]
pub(super) fn open(path: &std::path::Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = File::options().read(true).custom_flags(nix::libc::O_NONBLOCK).open(path)?;
    non_blocking(&file, false)?;
    Ok(file)
}

/// Sets or clears `O_NONBLOCK` on `file`'s open file description.
#[cfg(unix)]
pub(super) fn non_blocking(file: &File, on: bool) -> io::Result<()> {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    let flags = OFlag::from_bits_truncate(fcntl(file, FcntlArg::F_GETFL)?);
    let flags = if on { flags | OFlag::O_NONBLOCK } else { flags - OFlag::O_NONBLOCK };
    fcntl(file, FcntlArg::F_SETFL(flags))?;
    Ok(())
}

/// Opens the input `path` for reading (elsewhere than Linux, a FIFO's `open` waits for a writer).
#[cfg(not(target_os = "linux"))]
pub(super) fn open(path: &std::path::Path) -> io::Result<File> {
    File::open(path)
}

thread_local! {
    /// Set by [`read_pausing`] for the reads it makes on this thread.
    static PAUSING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `read`, a read of an input, letting it end at a pause: a plain input that may wait
/// (stdin, a FIFO) whose bytes stop coming for [`PAUSE`] then fails the read with
/// [`io::ErrorKind::WouldBlock`] instead of waiting on, so that a reader holding whole games
/// hands them on (`tail -f games.pgn | pgnkit check -`). Other inputs wait as before.
pub fn read_pausing<T>(read: impl FnOnce() -> T) -> T {
    PAUSING.with(|p| p.set(true));
    let out = read();
    PAUSING.with(|p| p.set(false));
    out
}

/// How long a stream's bytes stop coming before [`read_pausing`] calls it a pause: the poll's
/// period, far above the gaps of a pipe that is being written.
pub const PAUSE: std::time::Duration = std::time::Duration::from_millis(50);

/// An input that may wait (not a regular file), read once it has bytes: a wait for them looks
/// at [`stop_streams`] every [`PAUSE`] (a signal interrupts a read only on the thread it is
/// delivered to, which may be another), and ends at the first when `plain` is set and the read
/// is a [`read_pausing`] one (a decompressor reading it would take the pause for an error).
pub(super) struct Polled<R> {
    inner: R,
    plain: Arc<AtomicBool>,
}

impl<R> Polled<R> {
    /// `inner`, and the flag its input sets once its first bytes say it is not compressed.
    pub(super) fn new(inner: R) -> (Polled<R>, Arc<AtomicBool>) {
        let plain = Arc::new(AtomicBool::new(false));
        (Polled { inner, plain: Arc::clone(&plain) }, plain)
    }
}

#[cfg(unix)]
impl<R: Read + std::os::fd::AsFd> Read for Polled<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
        loop {
            if STOP_STREAMS.load(Ordering::Relaxed) {
                return Ok(0);
            }
            let mut fds = [PollFd::new(self.inner.as_fd(), PollFlags::POLLIN)];
            match poll(&mut fds, PollTimeout::from(PAUSE.as_millis() as u8)) {
                Ok(0) if self.plain.load(Ordering::Relaxed) && PAUSING.with(std::cell::Cell::get) => {
                    return Err(io::ErrorKind::WouldBlock.into());
                }
                Ok(0) | Err(nix::errno::Errno::EINTR) => continue,
                Ok(_) | Err(_) => return self.inner.read(buf),
            }
        }
    }
}

#[cfg(not(unix))]
impl<R: Read> Read for Polled<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf)
    }
}

/// Stdin as a file of its own descriptor: `io::stdin()` buffers, and a poll of the descriptor
/// would wait while its buffer holds bytes already read.
#[cfg(unix)]
pub(super) fn stdin_file() -> io::Result<File> {
    use std::os::fd::AsFd;
    Ok(File::from(io::stdin().as_fd().try_clone_to_owned()?))
}

#[cfg(windows)]
pub(super) fn stdin_file() -> io::Result<File> {
    use std::os::windows::io::AsHandle;
    Ok(File::from(io::stdin().as_handle().try_clone_to_owned()?))
}
