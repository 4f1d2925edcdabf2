//! A child that takes SIGINT whatever the test process does with it. Shared by the test binaries
//! `it` and `uci` (each includes it with `#[path]`).

use std::process::Command;

/// `command` with SIGINT at its default disposition in the child. A test process run as a
/// background job of a non-interactive shell (a CI runner's script, `cargo test &`) ignores
/// SIGINT, its children start with it ignored, and pgnkit, as it must, keeps it ignored: a Ctrl-C
/// test resets it in its child, so it runs wherever the suite runs.
pub fn sigint_default(command: &mut Command) -> &mut Command {
    #[cfg(unix)]
    {
        use nix::sys::signal::{SigHandler, Signal, signal};
        use std::os::unix::process::CommandExt;
        // SAFETY: the hook runs in the child between fork and exec, where only async-signal-safe
        // calls may be made: signal(2) is one, and nothing is allocated.
        #[allow(unsafe_code)]
        unsafe {
            command.pre_exec(|| signal(Signal::SIGINT, SigHandler::SigDfl).map(drop).map_err(Into::into));
        }
    }
    command
}
