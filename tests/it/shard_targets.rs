//! Where the outputs of shards and of `merge` go: a pipe or the standard output gets nothing
//! before every part is checked; shards may write their parts in directories of their own, and
//! refuse an output that their merge would write over an input.

use std::path::Path;

use crate::shard::{path, read, two_shards_merged};
use crate::util::{fixture, pgnkit, stderr, stdout, temp_dir};

/// `merge -o /dev/stdout` (a pipe here) writes in place, so a changed part must be found before
/// the first byte goes out: stdout gets nothing and the refusal says nothing was written. A good
/// set streams the merge, and the summary names the output.
#[cfg(unix)]
#[test]
fn merge_to_a_pipe_checks_every_part_before_writing() {
    let dir = temp_dir("shard-targets-pipe");
    let (set, want) = two_shards_merged(&dir);
    let (one, two) = (path(&set[0]), path(&set[1]));
    let o = pgnkit().args(["merge", "-o", "/dev/stdout", one, two]).output().expect("pgnkit");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(o.stdout == want, "the pipe got the merge");
    let summary = err.lines().find(|l| l.starts_with("pgnkit merge: ")).unwrap_or_default();
    assert!(summary.contains("/dev/stdout"), "the summary names the output: {err}");
    // The last part changed: the first must not reach the pipe.
    let part = dir.join("out.pgn.part-1-of-2");
    let mut bytes = std::fs::read(&part).expect("read");
    bytes[100] ^= 1;
    std::fs::write(&part, &bytes).expect("write");
    let o = pgnkit().args(["merge", "-o", "/dev/stdout", one, two]).output().expect("pgnkit");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(65), "{err}");
    assert!(err.contains("shard 1/2's part changed since it was written"), "{err}");
    assert!(err.contains("nothing written"), "{err}");
    assert_eq!(stdout(&o), "", "nothing reached the pipe");
}

/// Shards that write their parts in other directories (`-o A/out.pgn`, `-o B/out.pgn`, or the
/// same relative `-o` from another working directory) are of one run: the file names make it,
/// and the merge is one run's. An input given in another spelling is refused, both named.
#[test]
fn shards_writing_in_other_directories_merge() {
    let dir = temp_dir("shard-targets-dirs");
    let input = dir.join("in.pgn");
    std::fs::copy(fixture("pgn/twic1599_10k.pgn"), &input).expect("copy");
    let (a, b, c, one) = (dir.join("A"), dir.join("B"), dir.join("C"), dir.join("one"));
    for d in [&a, &b, &c, &one] {
        std::fs::create_dir_all(d).expect("dir");
    }
    // `clean --dedup`: its keys part is named after -o too.
    let clean = |at: &Path, cwd: &Path, shard: Option<&str>, input: &str| {
        let (out, rej) = (at.join("out.pgn"), at.join("rej.pgn"));
        let mut args = vec!["clean", "-q", "--dedup", "-o", path(&out), "--rejects", path(&rej), input];
        if let Some(spec) = shard {
            args.extend(["--shard", spec]);
        }
        let o = pgnkit().args(&args).current_dir(cwd).output().expect("pgnkit");
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    };
    clean(&one, &dir, None, path(&input));
    clean(&a, &dir, Some("0/3"), path(&input));
    clean(&b, &dir, Some("1/3"), path(&input));
    clean(Path::new(""), &c, Some("2/3"), path(&input));
    let merged = dir.join("M");
    let o =
        pgnkit().args(["merge", "-q", path(&a), path(&b), path(&c), "--output-dir", path(&merged)]).output();
    let o = o.expect("pgnkit");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for file in ["out.pgn", "rej.pgn"] {
        assert!(read(&merged.join(file)) == read(&one.join(file)), "{file}: one run's bytes");
    }
    // The input as `in.pgn` in two shards and `./in.pgn` in the third.
    let spelled = dir.join("spelled");
    std::fs::create_dir_all(&spelled).expect("dir");
    for (spec, name) in [("0/3", "in.pgn"), ("1/3", "in.pgn"), ("2/3", "./in.pgn")] {
        clean(&spelled, &dir, Some(spec), name);
    }
    let o =
        pgnkit().args(["merge", "-o", path(&dir.join("s.pgn")), path(&spelled)]).output().expect("pgnkit");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(65), "{err}");
    assert!(err.contains("the inputs as given (./in.pgn and in.pgn) differ"), "{err}");
}

/// A shard refuses an output its merge would write over an input (73, before its plan reads
/// anything), as one run refuses it: `-o` or `--rejects` onto the input, through a link too.
/// With `--output-dir` the merged file goes there, so the input's name is no clash.
#[cfg(unix)]
#[test]
fn a_shard_refuses_an_output_onto_its_input() {
    let dir = temp_dir("shard-targets-input");
    let (g, link, out) = (dir.join("g.pgn"), dir.join("link.pgn"), dir.join("out.pgn"));
    std::fs::copy(fixture("pgn/twic1599_10k.pgn"), &g).expect("copy");
    std::os::unix::fs::symlink(&g, &link).expect("symlink");
    let before = std::fs::read(&g).expect("read");
    let refused = |args: &[&str]| {
        let o = pgnkit().args(args).output().expect("pgnkit");
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(73), "{args:?}: {err}");
        assert!(err.contains("refusing to overwrite an input file"), "{args:?}: {err}");
    };
    refused(&["clean", "-q", path(&g), "-o", path(&g)]);
    for spec in ["0/2", "1/2"] {
        refused(&["clean", "-q", "--shard", spec, path(&g), "-o", path(&g)]);
        refused(&["clean", "-q", "--shard", spec, path(&link), "-o", path(&g)]);
        refused(&["clean", "-q", "--shard", spec, path(&g), "-o", path(&out), "--rejects", path(&link)]);
    }
    let parts: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".part-"))
        .collect();
    assert!(parts.is_empty(), "no part written: {parts:?}");
    let elsewhere = dir.join("merged");
    let o = pgnkit()
        .args(["clean", "-q", "--shard", "0/2", path(&g), "-o", path(&g), "--output-dir", path(&elsewhere)])
        .output()
        .expect("pgnkit");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(elsewhere.join("g.pgn.part-0-of-2").is_file());
    assert!(std::fs::read(&g).expect("read") == before, "the input is untouched");
}
