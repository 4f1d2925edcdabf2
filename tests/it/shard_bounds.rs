//! An index sidecar or a manifest is read within what one can hold: a longer file or list, or
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

/// A manifest within its bytes (60 MiB) whose list is longer than pgnkit writes, or of entries
/// of another type, or with no field but a long list of inputs: refused as it is read, naming
/// the file, in memory a small multiple of the file's (where a JSON tree took over the 1 GiB).
#[test]
fn a_manifest_of_a_long_list_is_refused_within_memory() {
    let dir = temp_dir("shard-manifest-lists");
    let write = |name: &str, (open, item, close): (&str, &str, &str)| {
        let file = dir.join(name);
        let mut text =
            format!(r#"{{"format": "pgnkit shard manifest", "format_version": 3, {open}["#).into_bytes();
        let n = (60 << 20) / (item.len() + 1);
        text.extend(std::iter::repeat_n(format!("{item},"), n).flat_map(String::into_bytes));
        text.extend(format!("{item}]{close}}}").into_bytes());
        std::fs::write(&file, &text).expect("write");
        file
    };
    let zeros = write("zeros.manifest.json", (r#""options": "#, "0", ""));
    let seen = write("seen.manifest.json", (r#""ledger": {"wheres_seen": "#, "false", "}"));
    let tags = write("tags.manifest.json", (r#""extra": {"tags": "#, r#""a""#, "}"));
    // No bound of its own, but inputs take in memory about as many bytes as written (3 times).
    let inputs =
        write("inputs.manifest.json", (r#""inputs": "#, r#"{"path":"a","size":0,"fingerprint":"a"}"#, ""));
    let o = run_limited(&["merge", "-q", path(&zeros), path(&seen), path(&tags), path(&inputs)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(65), "{err}");
    for (file, said) in [
        (&zeros, "invalid type: integer `0`, expected a string at line 1 column "),
        (&seen, "more than 32768 --where expressions or --tags names (the most pgnkit writes) at line 1"),
        (&tags, "more than 32768 --where expressions or --tags names (the most pgnkit writes) at line 1"),
        (&inputs, "missing field `pgnkit_version` at line 1 column "),
    ] {
        assert!(err.contains(&format!("{}: {said}", file.display())), "{said}: {err}");
    }
}
