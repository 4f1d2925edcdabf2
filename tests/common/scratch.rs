//! A test's own directory under the system's temporary directory, removed when the test passes
//! and kept to look at when it fails; shared by the test binaries `it` and `uci` (each includes
//! it with `#[path]`).

use std::path::{Path, PathBuf};

/// A fresh, empty directory `pgnkit-NAME-PID` (emptied first if an earlier run left it).
/// Tests run in parallel: each passes its own `name`.
pub fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("pgnkit-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    Scratch(dir)
}

/// A test's directory ([`scratch`]): removed on drop unless the test is failing.
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
