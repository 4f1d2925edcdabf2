//! The temporary files outputs are being written under: their names (`name_for`); the table a
//! second interrupt removes them from before it ends the process at once (a signal handler may
//! only read atomics and call `unlink`, so each path is a C string in a fixed table of slots);
//! and the removal of those a run killed outright left (`remove_stale`).

use std::io;
use std::path::{Path, PathBuf};
#[cfg(unix)]
use std::sync::atomic::{AtomicPtr, Ordering};

/// Slots for paths: outputs open at once past this many are not removed by a second interrupt
/// (a normal end removes them all the same).
#[cfg(unix)]
const SLOTS: usize = 32;

#[cfg(unix)]
static PATHS: [AtomicPtr<std::ffi::c_char>; SLOTS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

/// What a temporary file's name adds to its output's after a `.` and before the process id.
const MARK: &str = ".pgnkit-tmp-";

/// The temporary file this process writes the output `target` under: `.NAME.pgnkit-tmp-PID`
/// beside it, hidden, and one a process so that two runs writing one output do not share it.
pub(crate) fn name_for(target: &Path) -> io::Result<PathBuf> {
    let name = target.file_name().ok_or_else(|| io::Error::other("not a file name"))?;
    let mut temp = std::ffi::OsString::from(".");
    temp.push(name);
    temp.push(format!("{MARK}{}", std::process::id()));
    Ok(target.with_file_name(temp))
}

/// The process id a file named `name` in `target`'s directory is `target`'s temporary file of
/// ([`name_for`]), written in full without a leading zero; `None` for any other name.
#[cfg(unix)]
fn writer_of(target: &Path, name: &std::ffi::OsStr) -> Option<u32> {
    use std::os::unix::ffi::OsStrExt;
    let base = target.file_name()?.as_bytes();
    let digits = name.as_bytes().strip_prefix(b".")?.strip_prefix(base)?.strip_prefix(MARK.as_bytes())?;
    let ok = !digits.is_empty() && digits[0] != b'0' && digits.iter().all(u8::is_ascii_digit);
    // A pid_t is positive: `kill` of 0 or less would signal process groups.
    std::str::from_utf8(digits).ok().filter(|_| ok)?.parse::<i32>().ok().filter(|&p| p > 0).map(|p| p as u32)
}

/// Removes the temporary files of the output `target` that runs ended without a chance to remove
/// them (`kill -9`, a crash) left: only files named as [`name_for`] names them for `target`,
/// whose process is gone (`kill(pid, 0)` fails with `ESRCH`; a reused pid keeps the file) and
/// that no process holds locked ([`lock`]: a run on another host, or in another pid namespace,
/// sharing the directory keeps its own). Returns the paths removed.
#[cfg(unix)]
pub(crate) fn remove_stale(target: &Path) -> Vec<PathBuf> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = writer_of(target, &entry.file_name()) else { continue };
        // Links and directories of that name are no file of ours.
        if pid == std::process::id() || !entry.file_type().is_ok_and(|t| t.is_file()) || alive(pid) {
            continue;
        }
        use std::os::unix::fs::OpenOptionsExt;
        let path = entry.path();
        let Ok(file) = std::fs::File::options().read(true).custom_flags(nix::libc::O_NOFOLLOW).open(&path)
        else {
            continue;
        };
        // Removed while held locked, so that another run cleaning at once removes it or nothing.
        if lock(&file) && std::fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed
}

#[cfg(not(unix))]
pub(crate) fn remove_stale(_: &Path) -> Vec<PathBuf> {
    Vec::new()
}

/// Whether the process `pid` may be running: anything but `ESRCH` (`EPERM`: another user's).
#[cfg(unix)]
fn alive(pid: u32) -> bool {
    // No signal sent: it only asks whether the process exists; the pid is positive
    // ([`writer_of`]), so no group is addressed.
    let pid = nix::unistd::Pid::from_raw(pid as i32);
    nix::sys::signal::kill(pid, None) != Err(nix::errno::Errno::ESRCH)
}

/// Takes an exclusive lock on `file` without waiting (`flock` on Unix): a run holds its
/// temporary file's until it ends, so [`remove_stale`] elsewhere leaves it alone. `false` when
/// another holds it, or locks are not to be had there.
pub(crate) fn lock(file: &std::fs::File) -> bool {
    file.try_lock().is_ok()
}

/// A temporary file's place in the table, left when dropped.
#[derive(Debug)]
pub(crate) struct Registered {
    #[cfg(unix)]
    slot: Option<usize>,
}

/// Notes `path` as a temporary file for [`remove_all`].
pub(crate) fn register(path: &std::path::Path) -> Registered {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
            return Registered { slot: None };
        };
        // Never freed: a handler on another thread may be reading it (a few bytes an output).
        let c = c.into_raw();
        let slot = PATHS.iter().position(|p| {
            p.compare_exchange(std::ptr::null_mut(), c, Ordering::SeqCst, Ordering::SeqCst).is_ok()
        });
        Registered { slot }
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Registered {}
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(slot) = self.slot {
            PATHS[slot].store(std::ptr::null_mut(), Ordering::SeqCst);
        }
    }
}

/// Removes every registered temporary file. Async-signal-safe: atomic loads and `unlink`.
#[cfg(unix)]
pub fn remove_all() {
    remove_under(b"");
}

/// Removes the registered temporary files whose paths begin with `prefix` (a test's own, as
/// tests run side by side in one process). Async-signal-safe: atomic loads, reading the
/// never-freed path, and `unlink`.
#[cfg(unix)]
fn remove_under(prefix: &[u8]) {
    for p in &PATHS {
        let path = p.load(Ordering::SeqCst);
        if path.is_null() {
            continue;
        }
        // SAFETY: a registered pointer is a C string that is never freed; `unlink` is
        // async-signal-safe.
        #[allow(unsafe_code)]
        unsafe {
            if std::ffi::CStr::from_ptr(path).to_bytes().starts_with(prefix) {
                libc::unlink(path);
            }
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn registered_files_are_removed_and_left_ones_are_not() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, "a").expect("write");
        std::fs::write(&b, "b").expect("write");
        let kept = register(&a);
        drop(register(&b));
        // This test's files only: other tests' registered outputs are theirs.
        use std::os::unix::ffi::OsStrExt;
        remove_under(dir.path().as_os_str().as_bytes());
        assert!(!a.exists() && b.exists());
        drop(kept);
    }

    #[test]
    fn only_the_outputs_own_temporary_names_are_its() {
        let target = Path::new("dir/out.pgn");
        let of = |n: &str| writer_of(target, n.as_ref());
        assert_eq!(
            name_for(target).unwrap(),
            Path::new(&format!("dir/.out.pgn.pgnkit-tmp-{}", std::process::id()))
        );
        assert_eq!(of(".out.pgn.pgnkit-tmp-4321"), Some(4321));
        for other in [
            ".out.pgn.pgnkit-tmp-",
            ".out.pgn.pgnkit-tmp-04321",
            ".out.pgn.pgnkit-tmp-4321x",
            ".out.pgn.pgnkit-tmp-+4321",
            ".out.pgn.pgnkit-tmp-0",
            ".out.pgn.pgnkit-tmp-2147483648",
            ".out.pgn.pgnkit-tmp-99999999999999999999",
            "out.pgn.pgnkit-tmp-4321",
            ".xout.pgn.pgnkit-tmp-4321",
            ".out.pgn.zst.pgnkit-tmp-4321",
        ] {
            assert_eq!(of(other), None, "{other}");
        }
    }

    /// A dead process's file goes; a live one's, a locked one's and a link of the name stay.
    #[test]
    fn stale_files_go_and_held_ones_stay() {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("out.pgn");
        // Beyond Linux's PID_MAX_LIMIT (2^22): no process has it. Process 1 always runs.
        let (dead, live) =
            (dir.path().join(".out.pgn.pgnkit-tmp-2147483647"), dir.path().join(".out.pgn.pgnkit-tmp-1"));
        let locked = dir.path().join(".out.pgn.pgnkit-tmp-2147483646");
        let link = dir.path().join(".out.pgn.pgnkit-tmp-2147483645");
        for p in [&dead, &live, &locked] {
            std::fs::write(p, "partial").expect("write");
        }
        std::os::unix::fs::symlink(&live, &link).expect("link");
        // Locked as a run on another host holds its own.
        let holder = std::fs::File::open(&locked).expect("open");
        assert!(lock(&holder));
        assert_eq!(remove_stale(&target), vec![dead.clone()]);
        assert!(!dead.exists() && live.exists() && locked.exists() && link.exists());
        drop(holder);
        assert_eq!(remove_stale(&target), vec![locked.clone()], "released, it goes");
    }
}
