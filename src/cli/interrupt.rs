//! Ctrl-C (and SIGTERM, SIGHUP), as the README's exit codes say. For the commands that read PGN
//! and `merge`, the first asks the run to stop at the next chunk it would release, so everything
//! released before is written and flushed, the summary says where the run stopped, and the exit
//! code is 130 (`merge` stops at its next buffer and puts nothing in place); the second ends the
//! process at once (130), removing the outputs' temporary files. A signal within a second of the
//! first is the same request: `timeout` and schedulers signal the process, then its group, so
//! one stop arrives twice. `perft` and `bench`, with nothing to put in place, end at the first. A
//! signal ignored when pgnkit starts (`nohup`, a background job of a script) stays ignored.
//! Elsewhere than Unix, signals keep their default.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use pgnkit::exit::Code;

use crate::cli::fail::Fail;

/// Set by the first signal; read by the pipeline before it releases each chunk.
static REQUESTED: AtomicBool = AtomicBool::new(false);

/// When the first signal came, on the monotonic clock in nanoseconds (0: none yet).
static FIRST_AT: AtomicU64 = AtomicU64::new(0);

/// A signal this soon after the first is the same request.
const SAME_REQUEST_NS: u64 = 1_000_000_000;

/// What a signal is, given when it came and when the first did (0: it is the first).
#[derive(Debug, PartialEq, Eq)]
enum Arrival {
    First,
    Again,
    Abort,
}

fn arrival(now: u64, first: u64) -> Arrival {
    match first {
        0 => Arrival::First,
        _ if now.saturating_sub(first) < SAME_REQUEST_NS => Arrival::Again,
        _ => Arrival::Abort,
    }
}

/// Installs the handler for the signals that are not ignored.
pub fn install() {
    pgnkit::io::watch_stderr();
    #[cfg(unix)]
    unix::install(unix::on_signal);
}

/// For a command with nothing to put in place (`perft`, `bench`): the first signal ends the
/// process at once with 130, saying so on stderr.
pub fn install_immediate() {
    pgnkit::io::watch_stderr();
    #[cfg(unix)]
    unix::install(unix::on_signal_exit);
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// A writer's end: `Ok(Some(130))`, having said so, when a stop came while it wrote `what` at the
/// end of the run (what waited past a memory bound); its other errors as they are.
pub fn at_finish(result: Result<(), pgnkit::error::Error>, what: &str) -> Result<Option<Code>, Fail> {
    match result {
        Ok(()) => Ok(None),
        Err(pgnkit::error::Error::Interrupted) => {
            stderrln!("pgnkit: interrupted: stopped writing {what}; no file was put in place");
            Ok(Some(Code::Interrupted))
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(unix)]
mod unix {
    use std::sync::atomic::Ordering;

    use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};

    use pgnkit::exit::Code;

    /// Only async-signal-safe work: `clock_gettime`, atomics, and on a second request `unlink`,
    /// `write` and `_exit`. Stderr is written through [`pgnkit::io::stderr_fd`]: a write to a full
    /// pipe would keep the process from ending.
    pub(super) extern "C" fn on_signal(_: nix::libc::c_int) {
        pgnkit::io::stop_streams();
        let now = monotonic_ns().max(1);
        let first = match super::FIRST_AT.compare_exchange(0, now, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => 0,
            Err(first) => first,
        };
        match super::arrival(now, first) {
            super::Arrival::First => super::REQUESTED.store(true, Ordering::SeqCst),
            super::Arrival::Again => {}
            super::Arrival::Abort => {
                const SAID: &[u8] =
                    b"pgnkit: interrupted again: stopped at once; no output was put in place\n";
                pgnkit::io::temporary::remove_all();
                // SAFETY: `write` and `_exit` are async-signal-safe; the buffer is a static.
                #[allow(unsafe_code)]
                unsafe {
                    nix::libc::write(pgnkit::io::stderr_fd(), SAID.as_ptr().cast(), SAID.len());
                    nix::libc::_exit(nix::libc::c_int::from(Code::Interrupted.number()))
                }
            }
        }
    }

    /// The monotonic clock in nanoseconds (async-signal-safe).
    fn monotonic_ns() -> u64 {
        let mut t = nix::libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `clock_gettime` is async-signal-safe and writes only `t`.
        #[allow(unsafe_code)]
        let ok = unsafe { nix::libc::clock_gettime(nix::libc::CLOCK_MONOTONIC, &mut t) } == 0;
        if ok { (t.tv_sec as u64).saturating_mul(1_000_000_000).saturating_add(t.tv_nsec as u64) } else { 0 }
    }

    /// Only async-signal-safe work: `write` and `_exit` (stderr as in [`on_signal`]).
    pub(super) extern "C" fn on_signal_exit(_: nix::libc::c_int) {
        const SAID: &[u8] = b"pgnkit: interrupted\n";
        // SAFETY: `write` and `_exit` are async-signal-safe; the buffer is a static.
        #[allow(unsafe_code)]
        unsafe {
            nix::libc::write(pgnkit::io::stderr_fd(), SAID.as_ptr().cast(), SAID.len());
            nix::libc::_exit(nix::libc::c_int::from(Code::Interrupted.number()))
        }
    }

    pub(super) fn install(handler: extern "C" fn(nix::libc::c_int)) {
        // SA_RESTART: a read that the signal interrupts goes on (the run stops at its next chunk).
        let action = SigAction::new(SigHandler::Handler(handler), SaFlags::SA_RESTART, SigSet::empty());
        for signal in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
            // SAFETY: the handler does only async-signal-safe work (above); the previous action
            // is one the C runtime or nohup set (a default or SIG_IGN), put back as it was.
            #[allow(unsafe_code)]
            unsafe {
                if let Ok(previous) = sigaction(signal, &action)
                    && previous.handler() == SigHandler::SigIgn
                {
                    let _ = sigaction(signal, &previous);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_within_a_second_of_the_first_is_the_same_request() {
        assert_eq!(arrival(5, 0), Arrival::First);
        assert_eq!(arrival(5 + SAME_REQUEST_NS - 1, 5), Arrival::Again);
        assert_eq!(arrival(5 + SAME_REQUEST_NS, 5), Arrival::Abort);
    }
}
