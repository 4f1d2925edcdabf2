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

/// Waits until process `pid` catches SIGINT (its handler is installed: bit 2 of `SigCgt` in
/// `/proc/PID/status`), so a signal sent next reaches the handler, not the default action, however
/// slowly a loaded machine starts it. `false` when it exited or did not install one in 30 s.
#[cfg(target_os = "linux")]
#[allow(dead_code)] // the `uci` test binary includes this file for sigint_default alone
pub fn wait_for_sigint_handler(pid: u32) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::time::Instant::now() < deadline {
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { return false };
        let caught = status
            .lines()
            .find_map(|l| l.strip_prefix("SigCgt:"))
            .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
            .is_some_and(|m| m & (1 << 1) != 0);
        if caught {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    false
}
