//! Where the outputs of shards and of `merge` go: a pipe or the standard output gets nothing
//! before every part is checked; shards may write their parts in directories of their own, and
//! refuse an output that their merge would write over an input.

use std::path::Path;

use crate::shard::{assert_same, path, read, shards, two_shards_merged};
use crate::util::{fixture, pgnkit, run, stderr, stdout, temp_dir};

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

/// Outputs in other directories than `-o`'s (`--rejects rej/r.pgn`): the manifest names each
/// part by the way from it, and merge writes each output beside its parts, as one run does.
#[test]
fn outputs_in_other_directories_merge_beside_their_parts() {
    let dir = temp_dir("shard-dirs");
    let input = fixture("pgn/bad_games.pgn");
    let args = |at: &Path, shard: Option<String>| {
        let mut a: Vec<String> = vec!["clean".into(), "-q".into()];
        if let Some(spec) = shard {
            a.extend(["--shard".into(), spec]);
        }
        for (flag, file) in [("-o", "out/c.pgn"), ("--rejects", "rej/r.pgn"), ("--report", "rej/x.jsonl")] {
            a.extend([flag.into(), path(&at.join(file)).into()]);
        }
        a.push(path(&input).into());
        a
    };
    let (one, sharded) = (dir.join("one"), dir.join("sharded"));
    for d in ["out", "rej"] {
        std::fs::create_dir_all(one.join(d)).expect("dir");
        std::fs::create_dir_all(sharded.join(d)).expect("dir");
    }
    let o = run(&args(&one, None).iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(o.status.code(), Some(1), "rejects: {}", stderr(&o));
    for i in 0..2 {
        let o = run(&args(&sharded, Some(format!("{i}/2"))).iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    }
    let o = run(&["merge", "-q", path(&sharded.join("out"))]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    for file in ["out/c.pgn", "rej/r.pgn", "rej/x.jsonl"] {
        assert_same(&read(&one.join(file)), &read(&sharded.join(file)), file);
    }
    assert!(!read(&one.join("rej/r.pgn")).is_empty(), "bad_games.pgn has rejects");
}

/// `merge --output-dir DIR` writes every merged file in DIR, made if missing, the main one under
/// `-o`'s file name (as a shard's `--output-dir` places its parts); the same bytes as beside the
/// parts.
#[test]
fn merge_writes_every_output_in_its_output_dir_made_if_missing() {
    let dir = temp_dir("shard-merge-dir");
    let input = fixture("pgn/twic1599_10k.pgn");
    let set = shards(&dir, &[input.as_path()], 2, &[]);
    let merge = |extra: &[&str]| {
        let o = run(&[&["merge", "-q"][..], extra, &[path(&set[0]), path(&set[1])]].concat());
        assert_eq!(o.status.code(), Some(0), "{extra:?}: {}", stderr(&o));
    };
    merge(&[]);
    let (beside, report) = (read(&dir.join("out.pgn")), read(&dir.join("r.jsonl")));
    let made = dir.join("made/deeper");
    merge(&["--output-dir", path(&made)]);
    assert_eq!(read(&made.join("out.pgn")), beside);
    assert_eq!(read(&made.join("r.jsonl")), report);
    let named = dir.join("named");
    let elsewhere = dir.join("elsewhere/all.pgn");
    merge(&["--output-dir", path(&named), "-o", path(&elsewhere)]);
    assert_eq!(read(&named.join("all.pgn")), beside, "-o's name, in DIR");
    assert_eq!(read(&named.join("r.jsonl")), report);
    assert!(!elsewhere.exists() && !elsewhere.parent().expect("parent").exists());
}

/// An `--output-dir` that cannot be made (under a file) is exit 73, naming it, as for a shard;
/// nothing is written.
#[test]
fn merge_and_shards_refuse_an_output_dir_they_cannot_make() {
    let dir = temp_dir("shard-merge-nodir");
    let input = fixture("pgn/twic1599_10k.pgn");
    let set = shards(&dir, &[input.as_path()], 2, &[]);
    let names = || {
        let mut names: Vec<_> =
            std::fs::read_dir(&dir).expect("dir").map(|e| e.expect("entry").file_name()).collect();
        names.sort();
        names
    };
    let before = names();
    let under_a_file = input.join("sub");
    let o = run(&["merge", "-q", "--output-dir", path(&under_a_file), path(&set[0]), path(&set[1])]);
    assert_eq!(o.status.code(), Some(73), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("--output-dir {}: cannot create", path(&under_a_file))),
        "{}",
        stderr(&o)
    );
    assert_eq!(names(), before, "nothing written");
    // Outputs are renamed into place: stdout is refused, not made a file named `-`.
    let o = run(&["merge", "-q", "-o", "-", path(&set[0]), path(&set[1])]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("merge writes files: -o - (stdout) is not one"), "{}", stderr(&o));
    assert!(stderr(&o).contains("or -o /dev/stdout to stream"), "the way that works: {}", stderr(&o));
    assert!(!Path::new("-").exists());
    assert_eq!(names(), before, "nothing written");
    let out = dir.join("again.pgn");
    let o = run(&[
        "clean",
        "-q",
        "--shard",
        "0/2",
        "--output-dir",
        path(&under_a_file),
        "-o",
        path(&out),
        path(&input),
    ]);
    assert_eq!(o.status.code(), Some(73), "{}", stderr(&o));
    assert!(stderr(&o).contains(path(&under_a_file)), "{}", stderr(&o));
    // A file where the directory would be is said so, not as a bare `File exists`.
    let said = format!(
        "--output-dir {}: cannot create the directory: it exists and is not a directory",
        path(&input)
    );
    let shard =
        ["clean", "-q", "--shard", "0/2", "--output-dir", path(&input), "-o", path(&out), path(&input)];
    let merge = ["merge", "-q", "--output-dir", path(&input), path(&set[0]), path(&set[1])];
    for args in [&shard[..], &merge] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(73), "{}", stderr(&o));
        assert!(stderr(&o).contains(&said), "{args:?}: {}", stderr(&o));
    }
    assert_eq!(names(), before, "nothing written");
}

/// An output named as an existing directory cannot be created: exit 73 before any part is
/// copied, nothing put in place, no temporary file left, the directory untouched (a rename onto
/// it after the work would fail).
#[test]
fn merge_refuses_a_directory_as_an_output_before_writing() {
    let dir = temp_dir("shard-merge-ontodir");
    let input = fixture("pgn/twic1599_10k.pgn");
    let set = shards(&dir, &[input.as_path()], 2, &[]);
    let names = |d: &Path| {
        let mut names: Vec<_> =
            std::fs::read_dir(d).expect("dir").map(|e| e.expect("entry").file_name()).collect();
        names.sort();
        names
    };
    // The main output onto a directory with a file in it.
    let onto = dir.join("all.pgn");
    std::fs::create_dir_all(&onto).expect("dir");
    std::fs::write(onto.join("kept"), "kept").expect("write");
    let before = names(&dir);
    let o = run(&["merge", "-q", "-o", path(&onto), path(&set[0]), path(&set[1])]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(73), "{err}");
    assert!(err.contains(&format!("{}: cannot create: is a directory", path(&onto))), "{err}");
    assert!(err.contains("nothing written"), "{err}");
    assert_eq!(names(&dir), before, "nothing written, no temporary file left");
    assert_eq!(names(&onto), ["kept"]);
    // The report onto an empty directory: the main output is not put in place without it.
    std::fs::create_dir_all(dir.join("r.jsonl")).expect("dir");
    let o = run(&["merge", "-q", "-o", path(&dir.join("main.pgn")), path(&set[0]), path(&set[1])]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(73), "{err}");
    assert!(err.contains(&format!("{}: cannot create: is a directory", path(&dir.join("r.jsonl")))), "{err}");
    assert!(!dir.join("main.pgn").exists(), "the main output is not put in place either");
}

/// A device, a pipe and the file the standard output is redirected to are written in place: a
/// temporary file renamed onto `/dev/stdout` replaced the link itself (as root) and the
/// redirection's file got nothing; renamed onto a FIFO (standing in for `/dev/null`), it replaced
/// the pipe and its reader got nothing.
#[cfg(unix)]
#[test]
fn merge_writes_devices_pipes_and_the_standard_output_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = temp_dir("shard-merge-in-place");
    let (set, want) = two_shards_merged(&dir);
    let (one, two) = (path(&set[0]), path(&set[1]));
    assert!(!want.is_empty());
    // The standard output, redirected to a file.
    let redirected = dir.join("stdout.pgn");
    let o = crate::util::pgnkit()
        .args(["merge", "-q", "-o", "/dev/stdout", one, two])
        .stdout(std::fs::File::create(&redirected).expect("create"))
        .output()
        .expect("pgnkit");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(read(&redirected) == want, "the redirection's file holds the merge");
    let link = std::fs::symlink_metadata("/dev/stdout").expect("/dev/stdout");
    assert!(
        link.file_type().is_symlink() || link.file_type().is_char_device(),
        "/dev/stdout is left as it was"
    );
    // A pipe.
    let fifo = dir.join("fifo.pgn");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).expect("read the pipe"))
    };
    let o = run(&["merge", "-q", "-o", path(&fifo), one, two]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Checked before joining: after a rename onto the path the reader would wait forever.
    assert!(std::fs::metadata(&fifo).expect("fifo").file_type().is_fifo(), "still a FIFO");
    assert!(reader.join().expect("reader") == want, "the pipe's reader got the merge");
}
