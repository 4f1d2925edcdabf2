//! Which differences between shards' options still make one run: what does not shape the output
//! may differ, defaults and spellings compare by their values, and `--where`/`--eco` orders do not.

use std::path::{Path, PathBuf};

use crate::shard::{code_and_err, path, read};
use crate::util::{fixture, run, stderr, temp_dir};

/// What does not shape the output (quiet, threads) may differ between shards: they still merge.
#[test]
fn shards_run_with_and_without_quiet_or_threads_merge() {
    let dir = temp_dir("shard-quiet");
    let input = fixture("pgn/twic1599_10k.pgn");
    let out = dir.join("out.pgn");
    for (i, extra) in [(0u64, vec!["-q", "-j1"]), (1, vec!["-j2"])] {
        let spec = format!("{i}/2");
        let mut args = vec!["clean", "--shard", &spec, "-o", path(&out)];
        args.extend(extra);
        args.push(path(&input));
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let merged = dir.join("merged.pgn");
    let o = run(&["merge", "-q", "-o", path(&merged), path(&dir)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let one = dir.join("one.pgn");
    let o = run(&["clean", "-q", "-o", path(&one), path(&input)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(read(&merged), read(&one));
}

/// An option given at its default value, or in another spelling of its value (an alias, `080`),
/// is the option not given, and a set of values is the same set in any order: shards run either
/// way record the same options and merge.
#[test]
fn options_at_their_defaults_compare_by_their_effective_values() {
    let dir = temp_dir("shard-defaults");
    let games = fixture("pgn/twic1599_10k.pgn");
    // Two short games: annotate at its default limit (100000 nodes) takes a moment.
    let short = dir.join("short.pgn");
    std::fs::write(&short, "[Event \"a\"]\n\n1. e4 e5 *\n\n[Event \"b\"]\n\n1. d4 d5 *\n").expect("write");
    // The command, its output, the options of shard 0 and of shard 1, the input.
    type Case<'a> = (&'a str, &'a str, &'a [&'a str], &'a [&'a str], &'a Path);
    let cases: [Case; 6] = [
        ("clean", "c.pgn", &["--line-width", "080", "--tags", "all"], &["-j1", "--chunk-kib", "64"], &games),
        // Sets of values in any order, repeated or not.
        (
            "clean",
            "s.pgn",
            &["--strip", "nags,comments", "--drop-tags", "A,B", "--where", "Elo > 1", "--where", "Year > 1"],
            &[
                "--strip",
                "comments,nags,nags",
                "--drop-tags",
                "B,A",
                "--where",
                "Elo > 1",
                "--where",
                "Year > 1",
            ],
            &games,
        ),
        ("positions", "p.fen", &["--format", "fen", "--every", "1", "--ep-square", "legal"], &[], &games),
        ("check", "v.txt", &["--variant", "960"], &["--variant", "chess960"], &games),
        // ECO ranges comma-separated or repeated, in the same order.
        ("check", "e.txt", &["--eco", "A00-B99,C42"], &["--eco", "A00-B99", "--eco", " C42"], &games),
        (
            "annotate",
            "a.pgn",
            // The built-in engine's hash at its size when none is given.
            &["--format", "pgn", "--variations", "mistakes", "--nodes", "100000", "--hash", "16"],
            &[],
            &short,
        ),
    ];
    for (job, out, first, second, input) in cases {
        let out = dir.join(out);
        let mut manifests = Vec::new();
        for (i, given) in [first, second].into_iter().enumerate() {
            let spec = format!("{i}/2");
            let mut args = vec![job, "-q", "--shard", &spec, "-o", path(&out)];
            args.extend(given);
            args.push(path(input));
            let o = run(&args);
            assert!(matches!(o.status.code(), Some(0 | 1)), "{job} {spec}: {}", stderr(&o));
            let spec = pgnkit::shard::Spec::new(i as u64, 2).expect("spec");
            manifests.push(pgnkit::shard::manifest_path(&pgnkit::shard::part_path(&out, None, spec)));
        }
        let options = |m: &PathBuf| pgnkit::shard::Manifest::read(m).expect("manifest").options;
        assert_eq!(options(&manifests[0]), options(&manifests[1]), "{job}");
        let mut args = vec!["merge", "-q"];
        args.extend(manifests.iter().map(|m| path(m)));
        let o = run(&args);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{job}: {}", stderr(&o));
    }
}

/// `--where` and `--eco` given in another order are other options: their text, in the order
/// given, is in the outputs (the summary's `where_absent`, clean's `filtered` records), so shards
/// given other orders would merge into no single run's output. The refusal shows the values
/// comma-separated, as given.
#[test]
fn where_and_eco_in_another_order_are_other_options() {
    let dir = temp_dir("shard-ordered-options");
    let games = fixture("pgn/twic1599_10k.pgn");
    type Case<'a> = (&'a [&'a str], &'a [&'a str], &'a str);
    let cases: [Case; 2] = [
        (
            &["--where", "White ~ a", "--where", "Foo ~ x"],
            &["--where", "Foo ~ x", "--where", "White ~ a"],
            "wheres=White ~ a,Foo ~ x",
        ),
        (&["--eco", "A00-B99", "--eco", "C42"], &["--eco", "C42", "--eco", "A00-B99"], "eco=A00-B99,C42"),
    ];
    for (first, second, shown) in cases {
        let out = dir.join("d.jsonl");
        let mut manifests = Vec::new();
        for (i, given) in [first, second].into_iter().enumerate() {
            let spec = format!("{i}/2");
            let mut args = vec!["check", "-q", "--json", "--shard", &spec, "-o", path(&out), path(&games)];
            args.extend(given);
            let o = run(&args);
            assert!(matches!(o.status.code(), Some(0 | 1)), "{args:?}: {}", stderr(&o));
            let spec = pgnkit::shard::Spec::new(i as u64, 2).expect("spec");
            manifests.push(pgnkit::shard::manifest_path(&pgnkit::shard::part_path(&out, None, spec)));
        }
        let merged = dir.join("merged.jsonl");
        let (exit, err) =
            code_and_err(&["merge", "-o", path(&merged), path(&manifests[0]), path(&manifests[1])]);
        assert_eq!(exit, Some(65), "{err}");
        assert!(err.contains("the options (") && err.contains(shown), "{shown}: {err}");
        assert!(!err.contains("\\u{1f}"), "{err}");
        assert!(!merged.exists(), "nothing written");
    }
}
