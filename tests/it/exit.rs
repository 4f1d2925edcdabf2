//! The exit-code table: the README's and `--help`'s are the library's [`Code`] table.

use pgnkit::exit::Code;

use crate::util::{run, stdout};

/// The rows of the README's table under `## Exit codes`: (code, name, meaning).
fn readme_rows() -> Vec<(String, String, String)> {
    let readme = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"));
    let section = readme.split("\n## Exit codes\n").nth(1).expect("an `## Exit codes` section");
    section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // the header and its rule
        .map(|row| {
            // `\|` is a `|` inside a cell.
            let row = row.replace("\\|", "\u{0}");
            let cells: Vec<String> =
                row.trim_matches('|').split('|').map(|c| c.trim().replace('\u{0}', "|")).collect();
            assert_eq!(cells.len(), 3, "{row}");
            (cells[0].clone(), cells[1].trim_matches('`').to_string(), cells[2].clone())
        })
        .collect()
}

#[test]
fn the_readme_table_is_the_library_table() {
    let library: Vec<(String, String, String)> = Code::ALL
        .iter()
        .map(|c| (c.number().to_string(), c.name().to_string(), c.meaning().to_string()))
        .collect();
    assert_eq!(readme_rows(), library);
}

#[test]
fn help_ends_with_the_library_table() {
    let o = run(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).trim_end().ends_with(&Code::help()), "{}", stdout(&o));
}

#[test]
fn limits_that_would_never_end_and_thread_counts_past_the_cap_are_usage_errors() {
    // Stockfish reads `go depth 0` and `go nodes 0` as no limit: a search that never returns.
    for args in [
        &["annotate", "--depth", "0", "x.pgn"][..],
        &["annotate", "--nodes", "0", "x.pgn"],
        &["annotate", "--movetime", "0", "x.pgn"],
        &["annotate", "--engines", "1025", "x.pgn"],
        &["check", "-j", "1025", "x.pgn"],
        // A chunk past 1 GiB (or of nothing) is memory no run needs, and used to abort.
        &["check", "--chunk-kib", "1099511627776", "x.pgn"],
        &["check", "--chunk-kib", "0", "x.pgn"],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("is not in"), "{args:?}");
    }
}

/// Stdin can be read once: a second `-` would read nothing, silently.
#[test]
fn stdin_given_twice_is_a_usage_error() {
    for job in ["check", "clean", "positions", "annotate", "report"] {
        let o = run(&[job, "-", "x.pgn", "-"]);
        assert_eq!(o.status.code(), Some(2), "{job}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("stdin (-) can be read once"), "{job}");
    }
}

/// A stdout that cannot be written (a full disk) is exit 74, named `stdout`, not `-`.
#[test]
fn a_full_stdout_is_named_stdout() {
    let games = crate::util::fixture("pgn/twic1599_10k.pgn");
    let games = games.to_str().expect("UTF-8 path");
    let jobs: [&[&str]; 3] = [&["check", "--json", games], &["clean", games], &["positions", games]];
    for args in jobs {
        let full = std::fs::File::options().write(true).open("/dev/full").expect("/dev/full");
        let o = crate::util::pgnkit().args(args).stdout(full).output().expect("pgnkit");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(74), "{args:?}: {err}");
        assert!(err.contains("pgnkit: error: stdout: write error: "), "{args:?}: {err}");
    }
}

/// A stderr that cannot be written (a full disk, a pipe closed after one line) loses the
/// messages, not the run: each job ends with its own exit status, never a panic (101).
#[test]
fn an_unwritable_stderr_is_not_a_panic() {
    let bad = crate::util::fixture("pgn/bad_games.pgn");
    let bad = bad.to_str().expect("UTF-8 path");
    let jobs: [&[&str]; 5] = [
        &["check", bad],
        &["clean", bad, "-o", "/dev/null"],
        &["positions", bad, "-o", "/dev/null"],
        &["annotate", "--nodes", "10", bad, "-o", "/dev/null"],
        &["report", "--format", "text", bad, "-o", "/dev/null"],
    ];
    for args in jobs {
        let full = std::fs::File::options().write(true).open("/dev/full").expect("/dev/full");
        let o = crate::util::pgnkit().args(args).stderr(full).output().expect("pgnkit");
        assert_eq!(o.status.code(), Some(1), "{args:?}, stderr on /dev/full");
        // A pipe whose reader is gone: writes fail with EPIPE (SIGPIPE is ignored by Rust).
        let mut child = crate::util::pgnkit()
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("pgnkit");
        drop(child.stderr.take());
        let status = child.wait().expect("wait");
        assert_eq!(status.code(), Some(1), "{args:?}, stderr a closed pipe");
    }
}
