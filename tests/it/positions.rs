//! `pgnkit positions`: formats, the python-chess oracle, `-o` (zstd, never over an input),
//! `| head`, exit codes, and identical output at any thread count and chunk size.

use std::io::{BufRead, BufReader, Read};
use std::process::Stdio;

use crate::util::{fixture, pgnkit, run, run_with_stdin, shared_data, stderr, stdout, temp_dir};

fn path(p: &std::path::Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// The golden FENs written by `scripts/oracle_fens.py` (python-chess), without `#` lines.
fn oracle(name: &str) -> String {
    let text = std::fs::read_to_string(fixture(&format!("expected/positions/{name}.fen"))).expect("golden");
    text.lines().filter(|l| !l.starts_with('#')).map(|l| format!("{l}\n")).collect()
}

#[test]
fn fen_matches_python_chess() {
    for name in ["lichess_db_10k", "twic1599_10k"] {
        let pgn = fixture(&format!("pgn/{name}.pgn"));
        for threads in ["1", "2"] {
            let o = run(&["positions", "-q", "-j", threads, "--chunk-kib", "1", path(&pgn)]);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            assert!(stdout(&o) == oracle(name), "{name} -j {threads} differs from python-chess");
        }
    }
}

/// Every FEN of the shared collections where python-chess reads the same games, as
/// `fixtures/expected/python_chess_fens.tsv` gives python-chess's (lines and CRC-32 of the text):
/// 49 collections, 2.68 M positions: the 8 crazyhouse ones with the halfmove clock reset on a
/// pawn drop (lichess's rule, which python-chess does not follow; the script applies it), and 3
/// files whose moves are all in UCI coordinates (`g1f3`, castling `e1g1`). Left out, and why
/// (checked by hand with the script): the chess.com export without blank lines (python-chess
/// merges games) and the master games (python-chess starts a game after two blank lines; pgnkit
/// reads a second `1-0` as a game of its own).
#[test]
fn fen_matches_python_chess_on_shared_collections() {
    let Some(shared) = shared_data() else { return };
    let table = std::fs::read_to_string(fixture("expected/python_chess_fens.tsv")).expect("table");
    let mut files = 0;
    for row in table.lines().filter(|l| !l.starts_with('#')) {
        let [file, lines, crc] = row.split('\t').collect::<Vec<_>>()[..] else { panic!("row {row:?}") };
        let o = run(&["positions", "-q", path(&shared.join(file))]);
        let got =
            (o.stdout.iter().filter(|&&b| b == b'\n').count(), format!("{:08x}", crc32fast::hash(&o.stdout)));
        assert_eq!(got, (lines.parse().expect("lines"), crc.to_string()), "{file}: {}", stderr(&o));
        files += 1;
    }
    assert_eq!(files, 49);
}

/// A file name with a line break, a tab and other controls keeps each EPD record on one line:
/// its `id` reads back as the name (the other controls as spaces).
#[test]
fn epd_records_stay_one_line_whatever_the_file_name() {
    let dir = temp_dir("positions-epd-name");
    let pgn = dir.join("we,ird\"na\nme\t\u{1}.pgn");
    std::fs::write(&pgn, "[Event \"x\"]\n\n1. e4 e5 *\n").expect("write");
    let o = run(&["positions", "-q", "--format", "epd", path(&pgn)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let epd = stdout(&o);
    assert_eq!(epd.lines().count(), 3, "{epd}");
    for (ply, line) in epd.lines().enumerate() {
        let record = pgnkit::notation::fen::parse_epd(line).expect("EPD");
        let id = format!("{}:1:{ply}", path(&pgn).replace('\u{1}', " "));
        assert_eq!(record.op("id"), Some(&[id][..]), "{line}");
    }
}

#[test]
fn formats() {
    let pgn = fixture("pgn/lichess_db_10k.pgn");
    let fens = stdout(&run(&["positions", "-q", path(&pgn)]));
    let n = fens.lines().count();
    assert_eq!(n, 262);

    let o = run(&["positions", "-q", "--format", "epd", path(&pgn)]);
    let epd = stdout(&o);
    let first = epd.lines().next().expect("a record");
    assert_eq!(
        first,
        format!(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - hmvc 0; fmvn 1; id \"{}:1:0\"; c0 \"e4\";",
            path(&pgn)
        )
    );
    assert_eq!(epd.lines().count(), n);
    assert_eq!(epd.lines().filter(|l| !l.contains(" c0 ")).count(), 5, "one final position per game");

    let o = run(&["positions", "-q", "--format", "jsonl", "--tags", "White,Black,Result,Nope", path(&pgn)]);
    let recs: Vec<serde_json::Value> =
        stdout(&o).lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    assert_eq!(recs.len(), n);
    assert_eq!(recs[0]["White"], "alanbrito4");
    assert!(recs.iter().all(|r| r["file"] == path(&pgn)), "{}", recs[0]);
    assert!(recs[0]["Nope"].is_null());
    assert_eq!((recs[0]["san"].as_str(), recs[0]["uci"].as_str()), (Some("e4"), Some("e2e4")));
    assert_eq!(recs[1]["clk"], 300);
    for (r, fen) in recs.iter().zip(fens.lines()) {
        assert_eq!(r["fen"], fen);
    }
    assert_eq!(recs.iter().filter(|r| r["san"].is_null()).count(), 5);

    let o = run(&["positions", "-q", "--format", "csv", "--tags", "Event,Opening", path(&pgn)]);
    let csv = stdout(&o);
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("file,game,ply,fen,san,uci,Event,Opening"));
    assert_eq!(lines.clone().count(), n);
    // Openings such as "Sicilian Defense: Bowdler Attack" have no comma; those with one are quoted.
    for l in lines {
        let unquoted = l.matches('"').count() == 0;
        assert!(unquoted || l.matches(",\"").count() >= 1, "{l}");
    }
}

/// Records of several inputs name their input, as Parquet's `file` column does: game numbers
/// start at 1 in each.
#[test]
fn records_of_several_inputs_name_their_file() {
    let (a, b) = (fixture("pgn/lichess_db_10k.pgn"), fixture("pgn/twic1599_10k.pgn"));
    let inputs = [path(&a), path(&b)];
    let mut args = vec!["positions", "-q", "--format", "jsonl"];
    args.extend(inputs);
    let recs: Vec<serde_json::Value> =
        stdout(&run(&args)).lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let key =
        |r: &serde_json::Value| (r["file"].as_str().map(String::from), r["game"].as_u64(), r["ply"].as_u64());
    let keys: Vec<_> = recs.iter().map(key).collect();
    assert_eq!(
        keys.iter().collect::<std::collections::HashSet<_>>().len(),
        keys.len(),
        "every record told apart"
    );
    for file in inputs {
        assert_eq!(
            keys.iter().find(|k| k.0.as_deref() == Some(file)).map(|k| (k.1, k.2)),
            Some((Some(1), Some(0)))
        );
    }
    // CSV: the same records, the file first as in Parquet.
    args[3] = "csv";
    let csv = stdout(&run(&args));
    assert_eq!(csv.lines().count(), recs.len() + 1);
    for (line, r) in csv.lines().skip(1).zip(&recs) {
        let want = format!(
            "{},{},{},{},",
            inputs.iter().find(|f| r["file"] == **f).expect("a file"),
            r["game"],
            r["ply"],
            r["fen"].as_str().expect("fen")
        );
        assert!(line.starts_with(&want), "{line}");
    }
}

/// Records carry the canonical SAN of the next move whatever the input wrote (the replayer
/// copies a token only when it is exactly that).
#[test]
fn next_moves_are_canonical_san() {
    let dir = temp_dir("positions-canonical");
    let pgn = dir.join("lenient.pgn");
    let game = "[Event \"x\"]\n\n1. e4 e5 2. Ngf3 Nc6 3. Bb5 a6 4. 0-0 Nf6 5. Bxc6 dxc6 6. Nxe5 Qd4 \
                7. Nf3+ Qxe4 8. Re1 Qxe1+ 9. Nxe1 Bc5 10. d4 Bxd4 11. Qxd4 Be6 12. Qd8# 1-0\n";
    std::fs::write(&pgn, game).expect("write the game");
    let want = "e4 e5 Nf3 Nc6 Bb5 a6 O-O Nf6 Bxc6 dxc6 Nxe5 Qd4 Nf3 Qxe4 Re1 Qxe1+ Nxe1 Bc5 d4 Bxd4 \
                Qxd4 Be6 Qd8+"; // `Qd8#` was no mate: Kxd8 and Rxd8 answer it
    let o = run(&["positions", "-q", "--format", "jsonl", path(&pgn)]);
    let sans: Vec<String> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON"))
        .filter_map(|r| r["san"].as_str().map(str::to_string))
        .collect();
    assert_eq!(sans.join(" "), want.split_whitespace().collect::<Vec<_>>().join(" "));
    let epd = stdout(&run(&["positions", "-q", "--format", "epd", path(&pgn)]));
    let c0: Vec<&str> = epd.lines().filter_map(|l| l.split("c0 \"").nth(1)?.split('"').next()).collect();
    assert_eq!(c0.join(" "), sans.join(" "));
}

#[test]
fn ep_square_always_and_ply_filters() {
    let pgn = fixture("pgn/twic1599_10k.pgn");
    let legal = stdout(&run(&["positions", "-q", path(&pgn)]));
    let always = stdout(&run(&["positions", "-q", "--ep-square", "always", path(&pgn)]));
    assert_eq!(legal.lines().count(), always.lines().count());
    assert!(legal.lines().zip(always.lines()).any(|(a, b)| a != b), "double steps show their square");
    let some = stdout(&run(&[
        "positions",
        "-q",
        "--format",
        "csv",
        "--min-ply",
        "4",
        "--max-ply",
        "10",
        "--every",
        "3",
        path(&pgn),
    ]));
    let plies: Vec<&str> = some.lines().skip(1).map(|l| l.split(',').nth(2).expect("ply")).collect();
    assert!(!plies.is_empty());
    assert!(plies.iter().all(|p| *p == "6" || *p == "9"), "{plies:?}");
}

#[test]
fn zst_output_round_trip() {
    let dir = temp_dir("positions-zst");
    let pgn = fixture("pgn/twic1599_10k.pgn");
    let out = dir.join("out.fen.zst");
    let o = run(&["positions", "-q", "-o", path(&out), path(&pgn)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let raw = std::fs::read(&out).expect("output written");
    assert!(raw.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]), "zstd frame");
    let text = zstd::decode_all(&raw[..]).expect("zstd");
    assert_eq!(String::from_utf8(text).expect("UTF-8"), oracle("twic1599_10k"));
    // Plain file too; no temporary file left behind.
    let plain = dir.join("out.fen");
    assert_eq!(run(&["positions", "-q", "-o", path(&plain), path(&pgn)]).status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&plain).expect("plain"), oracle("twic1599_10k"));
    assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 2);
}

#[test]
fn refuses_to_overwrite_an_input() {
    let dir = temp_dir("positions-clash");
    let input = dir.join("in.pgn");
    std::fs::copy(fixture("pgn/lichess_db_10k.pgn"), &input).expect("copy");
    let before = std::fs::read(&input).expect("read");
    let sneaky = dir.join(".").join("in.pgn");
    let o = run(&["positions", "-q", path(&input), "-o", path(&sneaky)]);
    assert_eq!(o.status.code(), Some(73), "{}", stderr(&o));
    assert!(stderr(&o).contains("refusing to overwrite"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&input).expect("read"), before);
    // Nor the file stdin is redirected from.
    let o = crate::util::pgnkit()
        .args(["positions", "-q", "-", "-o", path(&input)])
        .stdin(std::fs::File::open(&input).expect("open"))
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(73), "{}", stderr(&o));
    assert_eq!(std::fs::read(&input).expect("read"), before);
}

#[test]
fn closed_stdout_is_a_quiet_success() {
    let dir = temp_dir("positions-head");
    let big = dir.join("big.pgn");
    let one = std::fs::read(fixture("pgn/twic1599_10k.pgn")).expect("read");
    std::fs::write(&big, one.repeat(30)).expect("write"); // ~1.3 MB of FEN, far past a pipe buffer
    // Two row groups of Parquet: the second is written after the reader has gone.
    let bigger = dir.join("bigger.pgn");
    std::fs::write(&bigger, one.repeat(300)).expect("write");
    for threads in ["1", "2"] {
        let mut child = pgnkit()
            .args(["positions", "-j", threads, path(&big)])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut line = String::new();
        let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
        reader.read_line(&mut line).expect("one line");
        assert_eq!(line, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n");
        drop(reader);
        let o = child.wait_with_output().expect("wait");
        assert_eq!(o.status.code(), Some(0), "-j {threads}: {}", stderr(&o));
        assert!(!stderr(&o).contains("error"), "{}", stderr(&o));
        // A Parquet table to stdout, read up to its first bytes.
        let mut child = pgnkit()
            .args(["positions", "-q", "--format", "parquet", "-j", threads, path(&bigger), "-o", "-"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut magic = [0u8; 4];
        child.stdout.take().expect("stdout").read_exact(&mut magic).expect("magic");
        assert_eq!(&magic, b"PAR1");
        let o = child.wait_with_output().expect("wait");
        assert_eq!(o.status.code(), Some(0), "parquet -j {threads}: {}", stderr(&o));
        assert!(!stderr(&o).contains("error"), "{}", stderr(&o));
    }
}

#[test]
fn same_bytes_at_any_thread_count_and_chunk_size() {
    let files =
        [fixture("pgn/lichess_db_10k.pgn"), fixture("pgn/twic1599_10k.pgn"), fixture("pgn/kokopu__misc.pgn")];
    let files: Vec<&str> = files.iter().map(|p| path(p)).collect();
    let variants: [&[&str]; 5] = [
        &["--format", "fen"],
        &["--format", "epd", "--skip-errors"],
        &["--format", "jsonl", "--tags", "White,Black,Result"],
        &["--format", "csv", "--tags", "Event", "--every", "2"],
        &["--unique"],
    ];
    for extra in variants {
        let out = |threads: &str, chunk: &str| {
            let mut args = vec!["positions", "-q", "-j", threads, "--chunk-kib", chunk];
            args.extend_from_slice(extra);
            args.extend_from_slice(&files);
            run(&args)
        };
        let one = out("1", "2048");
        assert_eq!(one.status.code(), Some(1), "kokopu__misc has errors: {}", stderr(&one));
        for (threads, chunk) in [("2", "2048"), ("2", "1"), ("1", "1"), ("3", "4")] {
            let many = out(threads, chunk);
            assert!(many.stdout == one.stdout, "{extra:?} -j {threads} --chunk-kib {chunk}");
            assert_eq!(stderr(&many), stderr(&one), "{extra:?}");
            assert_eq!(many.status.code(), one.status.code());
        }
    }
}

#[test]
fn unique_drops_repeats_across_files() {
    let pgn = fixture("pgn/twic1599_10k.pgn");
    let twice = stdout(&run(&["positions", "-q", "--unique", path(&pgn), path(&pgn)]));
    let once = stdout(&run(&["positions", "-q", "--unique", path(&pgn)]));
    assert_eq!(twice, once);
    let all = oracle("twic1599_10k");
    let mut seen = std::collections::HashSet::new();
    let expected: String = all
        .lines()
        .filter(|l| seen.insert(l.rsplitn(3, ' ').nth(2).map(str::to_owned)))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(once, expected);
}

#[test]
fn errors_are_reported_and_set_the_exit_code() {
    let pgn = fixture("pgn/kokopu__syntactic-error-1.pgn");
    let o = run(&["positions", path(&pgn)]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    let prefix = format!("pgnkit: {}:", path(&pgn));
    let diag = err.lines().find(|l| l.contains(": error: ")).expect("a diagnostic");
    assert!(diag.starts_with(&prefix), "{diag}");
    assert!(err.contains("pgnkit positions: "), "summary: {err}");
    let kept = stdout(&o).lines().count();
    let skipped = stdout(&run(&["positions", "-q", "--skip-errors", path(&pgn)])).lines().count();
    assert!(skipped < kept, "{skipped} < {kept}");
}

/// A tag line that reads as no tag pair (`[Event Casual Game"]`, as in the chessgames.com
/// collection) costs its tag, not the game: a warning, so `--skip-errors` keeps the game's
/// positions, as python-chess reads it and `clean` writes it.
#[test]
fn a_malformed_tag_line_costs_the_tag_not_the_game() {
    let pgn = "[Event Casual Game\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n\
               1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
    let o = run_with_stdin(&["positions", "--skip-errors", "-"], pgn);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("1 valid, 0 with errors") && err.contains("warnings: bad_tag 1"), "{err}");
    assert_eq!(stdout(&o).lines().count(), 8, "{}", stdout(&o));
}

#[test]
fn usage_and_input_errors() {
    let pgn = fixture("pgn/lichess_db_10k.pgn");
    for args in [
        &["positions", "--every", "0", path(&pgn)][..],
        &["positions", "--format", "xml", path(&pgn)],
        &["positions", "--tags", "White", path(&pgn)],
        &["positions", "--format", "jsonl", "--tags", "fen", path(&pgn)],
        &["positions", "--min-ply", "5", "--max-ply", "4", path(&pgn)],
        &["positions"],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
    let o = run(&["positions", "-q", "/nonexistent/x.pgn"]);
    assert_eq!(o.status.code(), Some(66), "{}", stderr(&o));
    let dir = temp_dir("positions-missing");
    let out = dir.join("out.fen");
    let o = run(&["positions", "-q", "-o", path(&out), path(&pgn), "/nonexistent/x.pgn"]);
    assert_eq!(o.status.code(), Some(66));
    assert!(!out.exists(), "no output put in place when an input failed");
}

#[test]
fn tag_columns_are_checked_alike_in_every_format() {
    let input = fixture("pgn/lichess_db_10k.pgn");
    for format in ["jsonl", "csv", "parquet"] {
        for (tags, says) in
            [("White,White", "\"White\" is named twice"), ("White, ", "\"\" cannot be a tag column")]
        {
            let o = run(&["positions", "--format", format, "--tags", tags, path(&input), "-o", "/dev/null"]);
            assert_eq!(o.status.code(), Some(2), "{format} {tags}: {}", stderr(&o));
            assert!(stderr(&o).contains(says), "{format} {tags}: {}", stderr(&o));
        }
    }
    // A column of the record itself, in any case: DuckDB's `SELECT FEN` would read `fen`.
    for format in ["jsonl", "csv", "parquet"] {
        for tags in ["fen", "FEN", "White,white"] {
            let o = run(&["positions", "--format", format, "--tags", tags, path(&input), "-o", "/dev/null"]);
            assert_eq!(o.status.code(), Some(2), "{format} {tags}: {}", stderr(&o));
        }
    }
    // Names as typed after a comma: `White, Black`.
    let o = run(&["positions", "-q", "--format", "csv", "--tags", "White, Black", path(&input)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("file,game,ply,fen,san,uci,White,Black\n"), "{}", stdout(&o));
}

/// `n` games of `plies` random legal moves each (a fixed seed), as PGN.
fn random_games(n: usize, plies: usize) -> String {
    use pgnkit::Position;
    use pgnkit::notation::san::write_san;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut pgn = String::with_capacity(n * plies * 6);
    for g in 0..n {
        pgn.push_str(&format!("[Event \"{g}\"]\n[Result \"*\"]\n\n"));
        let mut pos = Position::default();
        for p in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[(next() % moves.len() as u64) as usize];
            if p % 2 == 0 {
                pgn.push_str(&format!("{}. ", p / 2 + 1));
            }
            write_san(&pos, m, &mut pgn);
            pgn.push(' ');
            pos.play_unchecked(m);
        }
        pgn.push_str("*\n\n");
    }
    pgn
}

/// More distinct positions than `--unique` holds in memory (`UNIQUE_HELD`, 1,835,008): the rest
/// is decided on disk, and the output is every position's first record, in order, as a set of
/// all of them gives it, in one run and in three shards merged; without room for temporary
/// files the run fails with exit 74.
#[test]
fn unique_past_the_memory_bound_keeps_each_first_position() {
    let dir = temp_dir("positions-unique-spill");
    let input = dir.join("random.pgn");
    std::fs::write(&input, random_games(24_000, 100)).expect("write");
    let all = dir.join("all.epd");
    let o = run(&["positions", "-q", "--format", "epd", "-o", path(&all), path(&input)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let records = std::fs::read_to_string(&all).expect("read");
    let mut seen = std::collections::HashSet::new();
    let mut want = String::new();
    for line in records.lines() {
        // The position: the EPD's four fields (its operations name the game and ply).
        let fields: Vec<&str> = line.splitn(5, ' ').take(4).collect();
        if seen.insert(fields) {
            want.push_str(line);
            want.push('\n');
        }
    }
    let held = pgnkit::jobs::positions::UNIQUE_HELD;
    assert!(seen.len() > held + 100_000, "{} distinct positions", seen.len());
    let unique = dir.join("unique.epd");
    let o = run(&["positions", "--format", "epd", "--unique", "-o", path(&unique), path(&input)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&unique).expect("read") == want, "the first of each position, in order");
    assert!(stderr(&o).contains(&format!("{} positions written", seen.len())), "{}", stderr(&o));
    // Three shards, merged: `merge` settles the positions past the same room (the 460,000 or so
    // past it sorted in memory, below the sort's run), to the same output and count.
    let sharded = dir.join("sharded.epd");
    for i in 0..3 {
        let spec = format!("{i}/3");
        let args = ["positions", "-q", "--format", "epd", "--unique", "--shard", &spec, "-o", path(&sharded)];
        let o = run(&[&args[..], &[path(&input)]].concat());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let manifests: Vec<String> = (0..3)
        .map(|i| {
            let spec = pgnkit::shard::Spec::new(i, 3).expect("spec");
            let part = pgnkit::shard::part_path(&sharded, None, spec);
            path(&pgnkit::shard::manifest_path(&part)).to_string()
        })
        .collect();
    let merge = [&["merge"][..], &manifests.iter().map(String::as_str).collect::<Vec<_>>()].concat();
    let o = run(&merge);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        std::fs::read_to_string(&sharded).expect("read") == want,
        "merged shards: the first of each position"
    );
    assert!(stderr(&o).contains(&format!("{} positions written", seen.len())), "{}", stderr(&o));
    let o = pgnkit()
        .args([
            "positions",
            "-q",
            "--format",
            "epd",
            "--unique",
            "-o",
            path(&dir.join("no.epd")),
            path(&input),
        ])
        .env("TMPDIR", "/nonexistent")
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(74), "{}", stderr(&o));
    assert!(stderr(&o).contains("/nonexistent ($TMPDIR)"), "{}", stderr(&o));
    assert!(!dir.join("no.epd").exists());
}

/// The glob `positions --help` gives for a shard's Parquet parts is README's, which matches the
/// parts and not the file `merge` writes beside them.
#[test]
fn help_reads_the_parquet_parts_as_the_readme_does() {
    /// Whether `name` matches `pattern`, whose `*` stands for any text.
    fn matches(pattern: &str, name: &str) -> bool {
        match pattern.split_once('*') {
            None => pattern == name,
            Some((head, rest)) => {
                name.starts_with(head) && (head.len()..=name.len()).any(|i| matches(rest, &name[i..]))
            }
        }
    }
    let help = stdout(&run(&["positions", "--help"]));
    let glob = help.split("read_parquet('").nth(1).and_then(|r| r.split("')").next()).expect("a glob");
    let readme = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README");
    assert!(readme.contains(&format!("read_parquet('{glob}')")), "{glob}");
    let name = glob.strip_prefix("DIR/").expect("DIR/");
    assert!(matches(name, "out.part-1-of-2.parquet") && !matches(name, "out.parquet"), "{glob}");
}

/// A `--tags` name no game has gives a column without a value: it is warned of at the end,
/// naming it (tag names are case-sensitive), and the exit code stays. A shard warns of none; a
/// tag one shard's games have and another's do not is no warning of the merge.
#[test]
fn a_tags_name_no_game_has_is_warned_of_in_a_run_and_a_merge() {
    let dir = temp_dir("positions-absent-tags");
    let pgn = dir.join("two.pgn");
    std::fs::write(&pgn, "[Event \"a\"]\n[Foo \"x\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 *\n")
        .expect("write");
    let warnings = |err: &str| -> Vec<String> {
        err.lines().filter(|l| l.starts_with("pgnkit: warning")).map(str::to_string).collect()
    };
    let absent = |name: &str| {
        format!(
            "pgnkit: warning: --tags {name}: no game had this tag, so its column holds no value (tag names are case-sensitive)"
        )
    };
    let o = run(&["positions", "-q", "--format", "csv", "--tags", "Event,foo,Bar", path(&pgn)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(warnings(&stderr(&o)), [absent("foo"), absent("Bar")]);
    let out = dir.join("p.csv");
    // A shard warns of none (shard 1's game lacks Foo, which shard 0's has): merge warns.
    for i in 0..2 {
        let spec = format!("{i}/2");
        let args =
            ["positions", "-q", "--format", "csv", "--tags", "Foo,Bar", "--shard", &spec, "-o", path(&out)];
        let o = run(&[&args[..], &[path(&pgn)]].concat());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(warnings(&stderr(&o)), Vec::<String>::new(), "shard {i}");
    }
    let o = run(&["merge", "-o", path(&dir.join("all.csv")), path(&dir)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(warnings(&stderr(&o)), [absent("Bar")]);
}
