//! The temporary files outputs are being written under, for a second interrupt to remove
//! before it ends the process at once: a signal handler may only read atomics and call
//! `unlink`, so each path is a C string in a fixed table of slots.

#[cfg(unix)]
use std::sync::atomic::{AtomicPtr, Ordering};

/// Slots for paths: outputs open at once past this many are not removed by a second interrupt
/// (a normal end removes them all the same).
#[cfg(unix)]
const SLOTS: usize = 32;

#[cfg(unix)]
static PATHS: [AtomicPtr<std::ffi::c_char>; SLOTS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

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
    for p in &PATHS {
        let path = p.load(Ordering::SeqCst);
        if !path.is_null() {
            // SAFETY: a registered pointer is a C string that is never freed; `unlink` is
            // async-signal-safe.
            #[allow(unsafe_code)]
            unsafe {
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
        remove_all();
        assert!(!a.exists() && b.exists());
        drop(kept);
    }
}
