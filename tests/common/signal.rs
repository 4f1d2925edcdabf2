//! Shared by the test binaries `it` and `uci` (each includes it with `#[path]`).

/// Whether this process ignores SIGINT, as a background job of a non-interactive shell does: a
/// child then starts with it ignored and, as pgnkit must, keeps it so; a Ctrl-C test cannot run
/// (then the caller's test is skipped, and says so).
pub fn sigint_ignored() -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let ignored = status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        // SIGINT is signal 2: bit 1 of the mask.
        .is_some_and(|mask| mask & (1 << 1) != 0);
    if ignored {
        eprintln!("skipped: SIGINT is ignored in this process (a background job), so pgnkit ignores it too");
    }
    ignored
}
