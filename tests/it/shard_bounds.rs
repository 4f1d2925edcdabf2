//! An index sidecar or a manifest is read within what one can hold: a longer file, or
//! `/dev/zero` named so, is an error naming the file and the bound, with the address space
//! limited far below what reading it whole takes (so a read without end fails there, not by
//! taking the machine's memory).

use std::process::{Command, Output, Stdio};

use crate::shard::path;
use crate::util::{fixture, stderr, temp_dir};

/// `pgnkit ARGS` with its address space limited to 1 GiB (`ulimit -v`).
fn run_limited(args: &[&str]) -> Output {
    Command::new("sh")
        .args(["-c", "ulimit -v 1048576 && exec \"$0\" \"$@\"", env!("CARGO_BIN_EXE_pgnkit")])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run pgnkit")
}

#[test]
fn an_index_past_what_its_input_holds_is_refused_as_read() {
    let dir = temp_dir("shard-index-bound");
    let input = dir.join("in.pgn");
    std::fs::copy(fixture("pgn/twic1599_10k.pgn"), &input).expect("copy");
    let size = std::fs::metadata(&input).expect("meta").len();
    let sidecar = pgnkit::shard::index::index_path(&input);
    let out = dir.join("d.txt");
    let shard = ["check", "-q", "--shard", "1/2", path(&input), "-o", path(&out)];
    // A point per MiB of the input (one here), and the fields: 64 KiB and 128 bytes.
    let mut long = vec![b' '; 1 << 20];
    long.extend_from_slice(b"{}");
    std::fs::write(&sidecar, &long).expect("write");
    let o = run_limited(&shard);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(65), "{err}");
    let said = format!(
        "{}: longer than 65664 bytes, the most an index of this input ({size} bytes) takes; remove it or run",
        sidecar.display()
    );
    assert!(err.contains(&said), "{err}");
    std::fs::remove_file(&sidecar).expect("remove");
    std::os::unix::fs::symlink("/dev/zero", &sidecar).expect("symlink");
    let o = run_limited(&shard);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(65), "{err}");
    let said = format!("{}: not JSON: expected value at line 1 column 1;", sidecar.display());
    assert!(err.contains(&said), "{err}");
}

#[test]
fn a_manifest_past_its_bound_is_refused_as_read() {
    let dir = temp_dir("shard-manifest-bound");
    let long = dir.join("long.manifest.json");
    let mut text = vec![b' '; 65 << 20];
    text.extend_from_slice(b"{}");
    std::fs::write(&long, &text).expect("write");
    let zero = dir.join("zero.manifest.json");
    std::os::unix::fs::symlink("/dev/zero", &zero).expect("symlink");
    let o = run_limited(&["merge", "-q", path(&long), path(&zero)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(65), "{err}");
    let said = format!("{}: longer than 67108864 bytes, the most a manifest takes\n", long.display());
    assert!(err.contains(&said), "{err}");
    let said = format!("{}: not JSON: expected value at line 1 column 1\n", zero.display());
    assert!(err.contains(&said), "{err}");
}
