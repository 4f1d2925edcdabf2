//! Input that is not PGN (EPD, a binary, JSON, random bytes): every job that reads games refuses
//! it with one error naming the file and quoting its first line, writes no record of it, and
//! exits 65, while the other inputs of the run are read. PGN at its oddest (no tags, comments
//! first, a BOM, garbage before the first game, an illegal first move, empty) is never refused.

use std::path::{Path, PathBuf};

use pgnkit::jobs::run::LOOKED_AT;

use crate::util::{
    fixture, run, run_with_stdin, shared_data, shared_not_pgn, spawn_piped, stderr, stdout, temp_dir,
};

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// `pgnkit JOB... REST...`.
fn run_job(job: &[&str], rest: &[&str]) -> std::process::Output {
    run(&[job, rest].concat())
}

/// The jobs that read games, with what keeps them quick, and the name of the file `-o` writes.
const JOBS: [(&[&str], &str); 6] = [
    (&["check"], "d.txt"),
    (&["check", "--json", "--games"], "d.jsonl"),
    (&["positions"], "p.fen"),
    (&["clean"], "c.pgn"),
    (&["annotate", "--nodes", "1000"], "a.pgn"),
    (&["report"], "r.html"),
];

/// The records in a job's output: its lines but a JSON summary record (`check --json` ends with
/// one whatever it read).
fn records(output: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(output)
        .lines()
        .filter(|l| !l.contains("\"type\":\"summary\""))
        .map(String::from)
        .collect()
}

/// Bytes of no format: a fixed pseudo-random sequence (a linear congruential generator).
fn random_bytes(n: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (x >> 56) as u8
        })
        .collect()
}

/// The inputs that are not PGN: the fixtures (EPD lines, a PNG image, a JSON object) and random
/// bytes written into `dir`.
fn not_pgn_inputs(dir: &Path) -> Vec<PathBuf> {
    let random = dir.join("random.bin");
    std::fs::write(&random, random_bytes(3000)).expect("write");
    let mut inputs: Vec<PathBuf> = ["positions.epd", "pixel.png", "object.json"]
        .iter()
        .map(|name| fixture(&format!("not_pgn/{name}")))
        .collect();
    inputs.push(random);
    inputs
}

/// The error `pgnkit` gives for `input`, up to the quoted line: the file, then the verdict.
fn refusal(input: &str) -> String {
    format!("pgnkit: error: {input}: not PGN: no tag pair and no move in it; line 1 reads \"")
}

/// Asserts that `o` is the refusal of `input`, alone among the errors, with no record written.
fn assert_refused(o: &std::process::Output, input: &str, what: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(65), "{what}: {err}");
    assert!(err.contains(&refusal(input)), "{what}: {err}");
    assert_eq!(err.matches("error:").count(), 1, "{what}: one error, the refusal: {err}");
    assert_eq!(records(&o.stdout), Vec::<String>::new(), "{what}: records on stdout");
}

#[test]
fn every_job_refuses_input_that_is_not_pgn_and_writes_nothing_of_it() {
    let dir = temp_dir("not-pgn-jobs");
    for input in not_pgn_inputs(&dir) {
        for (job, out) in JOBS {
            let what = format!("{job:?} {}", input.display());
            let o = run_job(job, &["-q", path(&input)]);
            assert_refused(&o, path(&input), &what);
            let out = dir.join(out);
            let o = run_job(job, &["-q", path(&input), "-o", path(&out)]);
            assert_refused(&o, path(&input), &format!("{what} -o"));
            let written = std::fs::read(&out).unwrap_or_default();
            assert_eq!(records(&written), Vec::<String>::new(), "{what}: records in -o");
            std::fs::remove_file(&out).ok();
        }
    }
}

#[test]
fn the_refusal_quotes_the_first_line_and_holds_for_every_way_of_reading() {
    let epd = fixture("not_pgn/positions.epd");
    let text = std::fs::read_to_string(&epd).expect("read");
    let first: String = text.lines().next().expect("a line").chars().take(32).collect();
    let quoted = format!("{}{first}…\"", refusal(path(&epd)));
    let dir = temp_dir("not-pgn-reading");
    let zst = dir.join("positions.epd.zst");
    std::fs::write(&zst, zstd::encode_all(text.as_bytes(), 3).expect("zstd")).expect("write");
    for args in [
        vec!["check", "-q", path(&epd)],
        vec!["check", "-q", "--no-mmap", path(&epd)],
        vec!["check", "-q", "-j", "2", "--chunk-kib", "1", path(&epd)],
    ] {
        let o = run(&args);
        assert_refused(&o, path(&epd), &format!("{args:?}"));
        assert!(stderr(&o).contains(&quoted), "{args:?}: {}", stderr(&o));
    }
    let o = run(&["check", "-q", path(&zst)]);
    assert_refused(&o, path(&zst), "zstd");
    let o = run_with_stdin(&["check", "-q", "-"], text.as_bytes());
    assert_refused(&o, "stdin", "stdin");
    // A binary: the start of the test's own executable (ELF, Mach-O or PE), its control bytes
    // escaped; a MiB of it, as the whole may be more than the 16 MiB read before the refusal.
    let exe = std::fs::read(env!("CARGO_BIN_EXE_pgnkit")).expect("read the executable");
    let binary = dir.join("pgnkit-start.bin");
    std::fs::write(&binary, &exe[..exe.len().min(1 << 20)]).expect("write");
    let binary = path(&binary);
    let o = run(&["check", "-q", binary]);
    assert_refused(&o, binary, "an executable");
    let line = stderr(&o).lines().next().unwrap_or_default().to_string();
    assert!(!line.chars().any(|c| c.is_control()), "no raw control byte in the message: {line:?}");
}

#[test]
fn the_other_inputs_of_the_run_are_read_as_with_a_corrupt_stream() {
    let dir = temp_dir("not-pgn-others");
    let (a, b) = (fixture("show/two_games.pgn"), fixture("pgn/kokopu__chess960.pgn"));
    let epd = fixture("not_pgn/positions.epd");
    let corrupt = dir.join("corrupt.pgn.zst");
    std::fs::write(&corrupt, [0x28, 0xB5, 0x2F, 0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x01]).expect("write");
    let games = ["check", "-q", "--json", "--games"];
    let without = run_job(&games, &[path(&a), path(&b)]);
    let with = run_job(&games, &[path(&a), path(&epd), path(&b)]);
    assert_eq!(with.status.code(), Some(65), "{}", stderr(&with));
    assert!(stderr(&with).contains(&refusal(path(&epd))), "{}", stderr(&with));
    assert_eq!(records(&with.stdout), records(&without.stdout), "the games of the PGN inputs");
    // An output file is put in place, or not, as when an input is a corrupt stream; when not,
    // stderr says so (its summary counted what the file would have held).
    for (job, name) in JOBS {
        let outcome = |bad: &Path| {
            let out = dir.join(name);
            let o = run_job(job, &["-q", path(&a), path(bad), "-o", path(&out)]);
            let written = std::fs::read(&out).ok().map(|bytes| records(&bytes));
            std::fs::remove_file(&out).ok();
            let said = stderr(&o)
                .contains(&format!("an input failed (above), so {} was not written", path(&out)))
                || stderr(&o).contains("no report was written");
            assert_eq!(said, written.is_none(), "{job:?}: {}", stderr(&o));
            (o.status.code(), written)
        };
        assert_eq!(outcome(&epd), outcome(&corrupt), "{job:?}");
    }
}

/// A summary whose output was not put in place claims no record written: the records counted
/// passed, the output named as not written; the ledger's arithmetic holds.
#[test]
fn a_summary_claims_nothing_written_when_an_input_failed() {
    let dir = temp_dir("not-pgn-summary");
    let (a, epd) = (fixture("show/two_games.pgn"), fixture("not_pgn/positions.epd"));
    let jobs: [(&[&str], &str, &str); 3] = [
        (&["clean"], "c.pgn", "2 passed"),
        (&["positions"], "p.fen", " positions passed"),
        (&["annotate", "--nodes", "1000", "--no-cache"], "a.pgn", "2 passed"),
    ];
    for (job, name, passed) in jobs {
        let out = dir.join(name);
        let o = run_job(job, &[path(&a), path(&epd), "-o", path(&out)]);
        assert_eq!(o.status.code(), Some(65), "{job:?}: {}", stderr(&o));
        let err = stderr(&o);
        let claims = |l: &str| (l.starts_with("  ") && l.ends_with(" written")) || l.contains(" written + ");
        assert!(!err.lines().any(claims), "{job:?}: {err}");
        assert!(err.contains(passed), "{job:?}: {err}");
        assert!(err.contains(&format!("passed ({} not written)\n", path(&out))), "{job:?}: {err}");
        if job[0] == "clean" {
            assert!(err.contains("two_games.pgn: 2 read = 2 passed + 0 rejected"), "{err}");
        }
        // With the output in place, the same counts are of records written.
        let o = run_job(job, &[path(&a), "-o", path(&out)]);
        assert!(!stderr(&o).contains(" passed"), "{job:?}: {}", stderr(&o));
    }
}

#[test]
fn show_refuses_input_that_is_not_pgn_and_draws_nothing() {
    let dir = temp_dir("not-pgn-show");
    for input in not_pgn_inputs(&dir) {
        // The refusal comes before the game is looked for: a game past the input's is no usage error.
        for game in ["1", "7"] {
            let o = run(&["show", path(&input), "--game", game]);
            assert_refused(&o, path(&input), &format!("show {} --game {game}", input.display()));
        }
    }
    let epd = fixture("not_pgn/positions.epd");
    let text = std::fs::read_to_string(&epd).expect("read");
    let first: String = text.lines().next().expect("a line").chars().take(32).collect();
    let o = run(&["show", path(&epd), "--format", "svg"]);
    assert_refused(&o, path(&epd), "show --format svg");
    assert!(stderr(&o).contains(&format!("{}{first}…\"", refusal(path(&epd)))), "{}", stderr(&o));
    let zst = dir.join("positions.epd.zst");
    std::fs::write(&zst, zstd::encode_all(text.as_bytes(), 3).expect("zstd")).expect("write");
    assert_refused(&run(&["show", path(&zst)]), path(&zst), "show, zstd");
    assert_refused(&run_with_stdin(&["show", "-"], text.as_bytes()), "stdin", "show, stdin");
}

/// PGN at its oddest, each (what, text): none of these is refused.
const ODD_PGN: [(&str, &str); 11] = [
    ("movetext only", "1. e4 e5 2. Nf3 *\n"),
    ("comments first", "{ Annotated by X }\n; a rest-of-line comment\n\n[Event \"a\"]\n\n1. d4 d5 *\n"),
    ("a comment, then movetext only", "{ intro } 1. c4 *"),
    ("a UTF-8 BOM", "\u{feff}[Event \"a\"]\n\n1. e4 *\n"),
    ("a BOM, then movetext only", "\u{feff}1. e4 *\n"),
    ("garbage before the first game", "garbage here\n\u{1}\u{2}\u{3}\n[Event \"a\"]\n\n1. e4 *\n"),
    ("an illegal first move", "1. Ke2 *\n"),
    ("tags and no movetext", "[Event \"a\"]\n[Site \"b\"]\n"),
    ("CR line breaks", "1. e4 e5\r2. Nf3 *\r"),
    ("empty", ""),
    ("blank", "\n  \r\n\t\n"),
];

#[test]
fn pgn_at_its_oddest_is_never_refused() {
    let dir = temp_dir("not-pgn-odd");
    for (k, (what, text)) in ODD_PGN.iter().enumerate() {
        let file = dir.join(format!("odd{k}.pgn"));
        std::fs::write(&file, text).expect("write");
        for job in [&["check"][..], &["positions"], &["clean"], &["check", "--no-mmap"]] {
            let o = run_job(job, &["-q", path(&file)]);
            assert!(matches!(o.status.code(), Some(0 | 1)), "{what}, {job:?}: {}", stderr(&o));
            assert!(!stderr(&o).contains("not PGN"), "{what}, {job:?}: {}", stderr(&o));
        }
        let o = run_with_stdin(&["check", "-q", "-"], text);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{what}, stdin: {}", stderr(&o));
        // `show` draws game 1, and reports its errors with exit 1 (the garbage is game 1's
        // unreadable first move); an input without a game has none to draw, which is said.
        let o = run(&["show", "--format", "ascii", path(&file)]);
        let game_1_errs = matches!(*what, "garbage before the first game" | "an illegal first move");
        if text.trim().is_empty() {
            assert_eq!(o.status.code(), Some(2), "{what}, show: {}", stderr(&o));
            let said = format!("pgnkit: error: {} has 0 games: there is no game 1\n", path(&file));
            assert_eq!(stderr(&o), said, "{what}, show");
            assert_eq!(stdout(&o), "", "{what}, show");
        } else {
            let code = if game_1_errs { 1 } else { 0 };
            assert_eq!(o.status.code(), Some(code), "{what}, show: {}", stderr(&o));
            assert_eq!(stderr(&o).contains(": error: game 1 "), game_1_errs, "{what}, show: {}", stderr(&o));
            assert!(stdout(&o).ends_with("    a b c d e f g h\n"), "{what}, show: {}", stdout(&o));
        }
    }
    // The garbage is an error of its own game, and the game after it is read.
    let after_garbage = run(&["positions", "-q", path(&dir.join("odd5.pgn"))]);
    assert!(stdout(&after_garbage).contains("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"));
    let illegal = run(&["check", "-q", path(&dir.join("odd6.pgn"))]);
    assert!(stdout(&illegal).contains("illegal SAN \"Ke2\""), "{}", stdout(&illegal));
    // Filters that leave out every game, tags or none, leave the input PGN.
    for k in [0, 2, 3, 6] {
        let file = dir.join(format!("odd{k}.pgn"));
        let o = run(&["check", "-q", "--where", "White = nobody", path(&file)]);
        assert_eq!(o.status.code(), Some(0), "{}: {}", ODD_PGN[k].0, stderr(&o));
    }
}

#[test]
fn reading_stops_once_the_first_mib_held_nothing_pgn() {
    let dir = temp_dir("not-pgn-large");
    // Lines of letters, a `[` line (a malformed tag: a new game) every tenth: many games.
    let line = |i: usize| {
        if i.is_multiple_of(10) { format!("[junk {i}\n") } else { format!("words and more words {i}\n") }
    };
    let mut junk = String::new();
    let mut i = 0;
    while (junk.len() as u64) < LOOKED_AT + (4 << 20) {
        junk += &line(i);
        i += 1;
    }
    let large = dir.join("large.txt");
    std::fs::write(&large, &junk).expect("write");
    let mib = |err: &str| -> f64 {
        let at = err.find("its first ").map(|i| i + "its first ".len()).expect("a size read");
        err[at..].split(' ').next().and_then(|n| n.parse().ok()).expect("MiB")
    };
    for o in [run(&["check", "-q", path(&large)]), run_with_stdin(&["check", "-q", "-"], &junk)] {
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(65), "{err}");
        assert!(err.contains("(read no further)"), "{err}");
        let read = mib(&err) * f64::from(1 << 20);
        assert!(read >= LOOKED_AT as f64 && read < junk.len() as f64, "{err}");
    }
    // Garbage short of the limit, then a game: PGN, the garbage reported.
    let late = dir.join("late.pgn");
    std::fs::write(&late, format!("{}\n[Event \"late\"]\n\n1. e4 *\n", &junk[..1 << 20])).expect("write");
    let o = run(&["check", "-q", path(&late)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

/// A tag pair longer than the bound is PGN, over the token budget: skipped with its error, and
/// the game and the next one read, from a file, without mapping and from a pipe.
#[test]
fn a_tag_pair_longer_than_the_bound_is_pgn() {
    let dir = temp_dir("not-pgn-long-tag");
    let value = "x".repeat(LOOKED_AT as usize + (1 << 20));
    let text = format!("[Event \"{value}\"]\n[Result \"*\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 *\n");
    let file = dir.join("long-tag.pgn");
    std::fs::write(&file, &text).expect("write");
    for (how, o) in [
        ("file", run(&["check", path(&file)])),
        ("no mmap", run(&["check", "--no-mmap", path(&file)])),
        ("stdin", run_with_stdin(&["check", "-"], &text)),
    ] {
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{how}: {err}");
        let out = stdout(&o);
        assert!(out.contains("longer than the budget; skipped [over_budget, byte 0]"), "{how}: {out}");
        assert!(err.contains("2 games, 1 valid, 1 with errors"), "{how}: {err}");
    }
}

/// The refusal of an input read only to the bound.
const AT_THE_BOUND: &str = "not PGN: no tag pair and no move in its first 16.0 MiB (read no further)";

/// One game with no tag pair and no move that does not end (lone results are one game's, and so
/// are zeros): reading stops at the bound, from a file, a compressed bomb and a pipe that never
/// ends, where the game was read whole, into a temporary file for a stream, or for ever.
#[test]
fn a_game_with_nothing_pgn_is_read_to_the_bound_only() {
    use std::io::Write;
    let dir = temp_dir("not-pgn-endless");
    let lone = dir.join("lone.pgn");
    std::fs::write(&lone, b"*\n".repeat((LOOKED_AT as usize + (2 << 20)) / 2)).expect("write");
    // 256 MiB of zeros, 10 KB compressed.
    let bomb = dir.join("zeros.zst");
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).expect("encoder");
    let zeros = vec![0u8; 1 << 20];
    (0..256).for_each(|_| enc.write_all(&zeros).expect("encode"));
    std::fs::write(&bomb, enc.finish().expect("finish")).expect("write");
    for args in [
        vec!["check", "-q", path(&lone)],
        vec!["check", "-q", "--no-mmap", "-j1", path(&lone)],
        vec!["positions", "-q", path(&bomb)],
        vec!["check", "-q", path(&bomb)],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(65), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(AT_THE_BOUND), "{args:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), "", "{args:?}");
    }
    // A pipe of lone results that never ends: the run ends at the bound, the writer with it.
    for threads in ["1", "2"] {
        let mut child = spawn_piped(&["check", "-q", "-j", threads, "-"]);
        let mut stdin = child.stdin.take().expect("piped stdin");
        let writer = std::thread::spawn(move || {
            let block = b"*\n".repeat(32 << 10);
            let mut written = 0usize;
            while stdin.write_all(&block).is_ok() {
                written += block.len();
            }
            written
        });
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while child.try_wait().expect("wait").is_none() {
            if std::time::Instant::now() > deadline {
                child.kill().expect("kill");
                panic!("-j{threads}: still reading an endless pipe after 60 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let o = child.wait_with_output().expect("output");
        let written = writer.join().expect("writer");
        assert_eq!(o.status.code(), Some(65), "-j{threads}: {}", stderr(&o));
        assert!(stderr(&o).contains(AT_THE_BOUND), "-j{threads}: {}", stderr(&o));
        assert!(written < 2 * LOOKED_AT as usize, "-j{threads}: {written} bytes taken");
    }
    // Blank lines past the bound are no game, read on: the game after them makes the input PGN.
    let late = dir.join("late.pgn");
    let blank = "\n".repeat(LOOKED_AT as usize + (1 << 20));
    std::fs::write(&late, format!("{blank}[Event \"x\"]\n\n1. e4 *\n")).expect("write");
    for no_mmap in [&[][..], &["--no-mmap"]] {
        let o = run(&[&["check", "-q"], no_mmap, &[path(&late)]].concat());
        assert_eq!(o.status.code(), Some(0), "{no_mmap:?}: {}", stderr(&o));
    }
}

#[test]
fn a_shard_judges_an_input_only_when_it_reads_it_whole() {
    let dir = temp_dir("not-pgn-shard");
    let epd = fixture("not_pgn/positions.epd");
    for shard in ["0/1", "0/2"] {
        let o = run(&["check", "-q", "--shard", shard, path(&epd), "-o", path(&dir.join("d.txt"))]);
        assert_eq!(o.status.code(), Some(65), "--shard {shard}: {}", stderr(&o));
    }
    // Legal games, then as many games of garbage of the same length: the second shard's part
    // is garbage only (no position after a move in it), read as games: the input is PGN.
    let (n, mixed) = (500, dir.join("mixed.pgn"));
    std::fs::write(&mixed, "1. e4 e5 *\n\n".repeat(n) + &"xyzzy zz *\n\n".repeat(n)).expect("write");
    let out = dir.join("p.fen");
    let o = run(&["positions", "-q", "--shard", "1/2", path(&mixed), "-o", path(&out)]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let part = std::fs::read_to_string(dir.join("p.fen.part-1-of-2")).expect("the part");
    assert!(part.lines().count() > n / 2, "a start position a game of garbage: {part}");
    assert!(part.lines().all(|fen| fen.starts_with("rnbqkbnr/pppppppp/8/8/8/8/")), "{part}");
}

/// A shard that reads a not-PGN input (or a UTF-16 one) whole fails (65) on every rerun: it
/// still writes its manifest, with the input's error, and merge names the input and says that no
/// rerun helps, instead of asking for the shard again as a missing one. The other shard runs.
#[test]
fn merge_names_an_input_a_shard_found_not_pgn() {
    let dir = temp_dir("not-pgn-merge");
    let utf16 = dir.join("wide.pgn");
    let text: Vec<u8> = "[Event \"x\"]\n\n1. e4 e5 1-0\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
    std::fs::write(&utf16, text).expect("write");
    let games = fixture("pgn/lichess_db_10k.pgn");
    for (bad, says) in [(fixture("not_pgn/positions.epd"), "not PGN: "), (utf16, "input is UTF-16LE; ")] {
        let out = dir.join("c.pgn");
        let mut manifests = Vec::new();
        for (i, code) in [(0, 0), (1, 65)] {
            let spec = format!("{i}/2");
            let o = run(&["clean", "-q", "--shard", &spec, path(&games), path(&bad), "-o", path(&out)]);
            assert_eq!(o.status.code(), Some(code), "shard {spec}: {}", stderr(&o));
            let manifest = dir.join(format!("c.pgn.part-{i}-of-2.manifest.json"));
            assert!(manifest.is_file(), "shard {spec} wrote its manifest: {}", stderr(&o));
            manifests.push(manifest);
        }
        let mut args = vec!["merge", "-o", path(&out)];
        args.extend(manifests.iter().map(|m| path(m)));
        let o = run(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(65), "{err}");
        let says = format!("shard 1/2 cannot complete: {}: {says}", bad.display());
        assert!(err.contains(&says) && err.contains("no rerun changes that"), "{err}");
        assert!(!err.contains("missing shards") && !err.contains("not of one run"), "{err}");
        assert!(!out.exists(), "nothing written");
    }
}

/// An input no shard reads whole is judged by merge over all its parts, as one run judges it: not
/// PGN when no part has a tag pair or a move (JSON arrays, a line each, which the shards cut as
/// games), PGN when one has.
#[test]
fn merge_judges_an_input_split_between_shards() {
    let dir = temp_dir("not-pgn-split");
    let json = dir.join("rows.json");
    let rows: String = (0..3000).map(|i| format!("[\"row\", {i}]\nnote {i}\n")).collect();
    std::fs::write(&json, rows).expect("write");
    let o = run(&["clean", "-q", path(&json), "-o", path(&dir.join("one.pgn"))]);
    assert_eq!(o.status.code(), Some(65), "one run: {}", stderr(&o));
    let mixed = dir.join("mixed.pgn");
    std::fs::write(&mixed, "1. e4 e5 *\n\n".repeat(500) + &"xyzzy zz *\n\n".repeat(500)).expect("write");
    for (input, code) in [(&json, 65), (&mixed, 1)] {
        let out = dir.join("c.pgn");
        let mut manifests = Vec::new();
        for i in 0..3 {
            let spec = format!("{i}/3");
            let o = run(&["clean", "-q", "--shard", &spec, path(input), "-o", path(&out)]);
            assert!(
                matches!(o.status.code(), Some(0 | 1)),
                "{} shard {spec}: {}",
                input.display(),
                stderr(&o)
            );
            manifests.push(dir.join(format!("c.pgn.part-{i}-of-3.manifest.json")));
        }
        let mut args = vec!["merge", "-o", path(&out)];
        args.extend(manifests.iter().map(|m| path(m)));
        let o = run(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(code), "{}: {err}", input.display());
        let refused = format!("{}: not PGN: no tag pair and no move in its games", input.display());
        assert_eq!(err.contains(&refused), code == 65, "{err}");
        assert_eq!(out.exists(), code != 65, "{}", input.display());
        let _ = std::fs::remove_file(&out);
    }
}

#[test]
fn annotate_reads_epd_as_positions_when_asked() {
    let epd = fixture("not_pgn/positions.epd");
    let o = run(&["annotate", "-q", "--format", "epd", "--nodes", "1000", path(&epd)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines = std::fs::read_to_string(&epd).expect("read").lines().count();
    assert_eq!(stdout(&o).lines().count(), lines);
}

/// Over the shared collections: every EPD, FEN and perft file is refused, and of the files named
/// `*.pgn`, exactly those that hold no PGN ([`crate::util::SHARED_NOT_PGN`]).
#[test]
fn shared_files_are_refused_exactly_when_they_hold_no_pgn() {
    let Some(data) = shared_data() else { return };
    let mut files = Vec::new();
    let mut dirs = vec![data.join("malformed_and_tricky"), data.join("epd_suites"), data.join("perft")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    let name = |p: &Path| p.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
    let positions =
        |p: &Path| [".epd", ".epd.zst", ".fen", ".perft", ".perft.zst"].iter().any(|e| name(p).ends_with(e));
    let mut refused_pgn = Vec::new();
    for f in files.iter().filter(|f| positions(f) || name(f).ends_with(".pgn")) {
        let o = run(&["check", "-q", path(f)]);
        let refused = o.status.code() == Some(65) && stderr(&o).contains(": not PGN: ");
        if positions(f) {
            assert!(refused, "{}: {}", f.display(), stderr(&o));
        } else if refused {
            refused_pgn.push(f.clone());
        }
    }
    assert!(refused_pgn.iter().all(|f| shared_not_pgn(f)), "{refused_pgn:?}");
    assert_eq!(refused_pgn.len(), crate::util::SHARED_NOT_PGN.len(), "{refused_pgn:?}");
}
