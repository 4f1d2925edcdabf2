//! Where the outputs of shards and of `merge` go: a pipe or the standard output gets nothing
//! before every part is checked.

use crate::shard::{path, read, shards};
use crate::util::{fixture, pgnkit, stderr, stdout, temp_dir};

/// `merge -o /dev/stdout` (a pipe here) writes in place, so a changed part must be found before
/// the first byte goes out: stdout gets nothing and the refusal says nothing was written. A good
/// set streams the merge, and the summary names the output.
#[cfg(unix)]
#[test]
fn merge_to_a_pipe_checks_every_part_before_writing() {
    let dir = temp_dir("shard-targets-pipe");
    let input = fixture("pgn/twic1599_10k.pgn");
    let set = shards(&dir, &[input.as_path()], 2, &[]);
    let (one, two) = (path(&set[0]), path(&set[1]));
    let reference = dir.join("all.pgn");
    let o = pgnkit().args(["merge", "-q", "-o", path(&reference), one, two]).output().expect("pgnkit");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let want = read(&reference);
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
