//! Ctrl-C (and SIGTERM, SIGHUP), as the README's exit codes say. For the commands that read PGN
//! and `merge`, the first asks the run to stop at the next chunk it would release, so everything
//! released before is written and flushed, the summary says where the run stopped, and the exit
//! code is 130 (`merge` stops at its next buffer and puts nothing in place); the second ends the
//! process at once (130). `perft` and `bench`, with nothing to put in place, end at the first. A
//! signal ignored when pgnkit starts (`nohup`, a background job of a script) stays ignored.
//! Elsewhere than Unix, signals keep their default.

use std::sync::atomic::{AtomicBool, Ordering};

use pgnkit::exit::Code;

use crate::cli::fail::Fail;

/// Set by the first signal; read by the pipeline before it releases each chunk.
static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Installs the handler for the signals that are not ignored.
pub fn install() {
    #[cfg(unix)]
    unix::install(unix::on_signal);
}

/// For a command with nothing to put in place (`perft`, `bench`): the first signal ends the
/// process at once with 130, saying so on stderr.
pub fn install_immediate() {
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

    /// Only async-signal-safe work: atomic stores, and `_exit` on the second signal.
    pub(super) extern "C" fn on_signal(_: nix::libc::c_int) {
        pgnkit::io::stop_streams();
        if super::REQUESTED.swap(true, Ordering::SeqCst) {
            // SAFETY: `_exit` is async-signal-safe; it ends the process without running
            // anything else.
            #[allow(unsafe_code)]
            unsafe {
                nix::libc::_exit(nix::libc::c_int::from(Code::Interrupted.number()))
            }
        }
    }

    /// Only async-signal-safe work: `write` and `_exit`.
    pub(super) extern "C" fn on_signal_exit(_: nix::libc::c_int) {
        const SAID: &[u8] = b"pgnkit: interrupted\n";
        // SAFETY: `write` and `_exit` are async-signal-safe; the buffer is a static.
        #[allow(unsafe_code)]
        unsafe {
            nix::libc::write(2, SAID.as_ptr().cast(), SAID.len());
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
