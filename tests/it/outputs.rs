//! Output files: what a run does with what is already at an output's path (a write-protected
//! file, the temporary files of runs killed outright).

use std::path::Path;

use crate::util::{fixture, run, stderr, temp_dir};

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

fn names(dir: &Path) -> Vec<String> {
    let mut n: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    n.sort();
    n
}

/// A run writing `-o out.pgn` removes the temporary files of out.pgn that runs killed with
/// SIGKILL left, whose process is gone; one of a live process, another output's, and names that
/// only look alike stay.
#[cfg(unix)]
#[test]
fn stale_temporary_files_of_the_output_are_removed() {
    let dir = temp_dir("outputs-stale");
    // Beyond Linux's PID_MAX_LIMIT (2^22): no process has it.
    let dead = i32::MAX;
    let live = std::process::id();
    let stale = format!(".out.pgn.pgnkit-tmp-{dead}");
    let kept = [
        format!(".out.pgn.pgnkit-tmp-{live}"),
        format!(".other.pgn.pgnkit-tmp-{dead}"),
        format!(".out.pgn.pgnkit-tmp-0{dead}"),
        format!(".out.pgn.pgnkit-tmp-{dead}.bak"),
        format!("out.pgn.pgnkit-tmp-{dead}"),
    ];
    for name in kept.iter().chain([&stale]) {
        std::fs::write(dir.join(name), "a killed run's partial output").expect("write");
    }
    let out = dir.join("out.pgn");
    let o = run(&["clean", "-q", "-o", path(&out), path(&fixture("pgn/lichess_db_10k.pgn"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut expected: Vec<String> = kept.to_vec();
    expected.push("out.pgn".into());
    expected.sort();
    assert_eq!(names(&dir), expected, "only the dead process's temporary file of out.pgn is removed");
}

/// `-o` over a file no one may write is refused before any work, naming the file, as `cp` over
/// it is (also as root, who may write anything): the rename would replace it.
#[cfg(unix)]
#[test]
fn a_write_protected_output_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("outputs-protected");
    let out = dir.join("kept.pgn");
    std::fs::write(&out, "protected").expect("write");
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    let o = run(&["clean", "-q", "-o", path(&out), path(&fixture("pgn/lichess_db_10k.pgn"))]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(73), "{err}");
    assert!(err.contains(&format!("{}: cannot create: permission denied", out.display())), "{err}");
    assert!(err.contains("write-protected (mode 444)"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).expect("read"), "protected");
    assert_eq!(names(&dir), ["kept.pgn"], "no temporary file");
    // Writable again, it is replaced.
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let o = run(&["clean", "-q", "-o", path(&out), path(&fixture("pgn/lichess_db_10k.pgn"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_ne!(std::fs::read_to_string(&out).expect("read"), "protected");
}
