//! The same games give the same report whatever the input path: mmap, `--no-mmap`, stdin, zstd
//! (one frame, or several behind a leading skippable frame, as pzstd writes), gzip, a named pipe.

use std::io::Write;

use crate::util::{fixture, run, run_with_stdin, stdout, temp_dir};

/// The corpus: every fixture game file concatenated (valid games, broken ones, variants).
fn corpus() -> Vec<u8> {
    let mut names: Vec<_> = std::fs::read_dir(fixture("pgn"))
        .expect("fixtures")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    names.sort();
    let mut all = Vec::new();
    for n in names {
        all.extend(std::fs::read(n).expect("read"));
        all.extend_from_slice(b"\n\n");
    }
    // A comment quoting games, closed only many chunks later: streamed chunks must be joined.
    all.extend_from_slice(b"[Event \"quote\"]\n\n1. e4 { quoting:");
    for i in 0..2000 {
        all.extend_from_slice(format!("\n\n[Event \"q{i}\"]\n\n1. Kxe8 *").as_bytes());
    }
    all.extend_from_slice(b" } e5 *\n\n[Event \"after\"]\n\n1. d4 *\n");
    all
}

/// Writes `pgn` as `all.pgn` and as `all.pgn.zst` in `dir`.
fn plain_and_zst(dir: &std::path::Path, pgn: &[u8]) -> (std::path::PathBuf, std::path::PathBuf) {
    let plain = dir.join("all.pgn");
    std::fs::write(&plain, pgn).expect("write");
    let zst = dir.join("all.pgn.zst");
    std::fs::write(&zst, zstd::encode_all(pgn, 3).expect("zstd")).expect("write");
    (plain, zst)
}

/// Runs `pgnkit ARGS`, with `stdin` on its standard input if given.
fn run_on(args: &[&str], stdin: Option<&[u8]>) -> std::process::Output {
    match stdin {
        None => run(args),
        Some(bytes) => run_with_stdin(args, bytes),
    }
}

/// `check --json --games` output with the file name blanked, so inputs can be compared.
fn report(args: &[&str], name: &str, stdin: Option<&[u8]>) -> String {
    let mut all = vec!["check", "--quiet", "--json", "--games", "--chunk-kib", "4"];
    all.extend_from_slice(args);
    let out = run_on(&all, stdin);
    let text = String::from_utf8_lossy(&out.stdout).replace(&format!("\"{name}\""), "\"INPUT\"");
    // Timing fields of the summary differ run to run.
    text.lines().filter(|l| !l.contains("\"type\":\"summary\"")).collect::<Vec<_>>().join("\n")
}

#[test]
fn every_input_path_gives_the_same_report() {
    let dir = temp_dir("inputs");
    let pgn = corpus();
    let (plain, zst) = plain_and_zst(&dir, &pgn);
    // pzstd style: a skippable frame first, then several frames.
    let multi = dir.join("multi.zst");
    let mut bytes = vec![0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 1, 2, 3, 4];
    for part in pgn.chunks(pgn.len() / 3 + 1) {
        bytes.extend(zstd::encode_all(part, 1).expect("zstd"));
    }
    std::fs::write(&multi, bytes).expect("write");
    let gz = dir.join("all.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(&pgn).expect("gzip");
    std::fs::write(&gz, enc.finish().expect("gzip")).expect("write");

    let p = |x: &std::path::Path| x.to_str().expect("utf-8").to_string();
    let base = report(&[&p(&plain)], &p(&plain), None);
    assert!(base.lines().filter(|l| l.contains("\"type\":\"game\"")).count() > 50, "{base}");
    assert_eq!(report(&["--no-mmap", &p(&plain)], &p(&plain), None), base, "--no-mmap");
    assert_eq!(report(&["-"], "-", Some(&pgn)), base, "stdin");
    assert_eq!(report(&[&p(&zst)], &p(&zst), None), base, "zstd");
    assert_eq!(report(&[&p(&multi)], &p(&multi), None), base, "zstd, skippable frame + 3 frames");
    assert_eq!(report(&[&p(&gz)], &p(&gz), None), base, "gzip");
    // A named pipe, as `<(zcat f)` passes one: plain, and zstd through it.
    #[cfg(unix)]
    for (name, bytes) in [("plain", pgn.clone()), ("zst", std::fs::read(&zst).expect("read"))] {
        let fifo = dir.join(format!("fifo-{name}"));
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::write(fifo, bytes))
        };
        assert_eq!(report(&[&p(&fifo)], &p(&fifo), None), base, "a named pipe, {name}");
        writer.join().expect("writer").expect("the pipe was read to its end");
    }
}

/// `positions` output (text and diagnostics) with the input's name blanked: exact cuts (epd) and
/// guessed ones (fen), each from a file, stdin and zstd.
#[test]
fn positions_reads_every_input_path_alike() {
    let dir = temp_dir("inputs-positions");
    let pgn = corpus();
    let (plain, zst) = plain_and_zst(&dir, &pgn);
    let p = |x: &std::path::Path| x.to_str().expect("utf-8").to_string();
    let positions = |format: &str, input: &str, stdin: bool| {
        let args = ["positions", "--quiet", "--chunk-kib", "4", "-j", "2", "--format", format, input];
        let out = run_on(&args, stdin.then_some(&pgn[..]));
        // Records keep the name as given; messages name `-` stdin.
        let shown = if stdin { "stdin" } else { input };
        let blank = |b: &[u8]| {
            let text = String::from_utf8_lossy(b);
            text.replace(&format!("\"{input}:"), "\"INPUT:")
                .replace(&format!("pgnkit: {shown}:"), "pgnkit: INPUT:")
        };
        (blank(&out.stdout), blank(&out.stderr), out.status.code())
    };
    for format in ["epd", "fen"] {
        let base = positions(format, &p(&plain), false);
        assert!(base.0.lines().count() > 1000, "{format}: {}", base.1);
        assert_eq!(positions(format, "-", true), base, "{format}: stdin");
        assert_eq!(positions(format, &p(&zst), false), base, "{format}: zstd");
    }
}

#[test]
fn output_is_identical_at_any_thread_count() {
    let dir = temp_dir("inputs-threads");
    let plain = dir.join("all.pgn");
    std::fs::write(&plain, corpus().repeat(3)).expect("write");
    let path = plain.to_str().expect("utf-8");
    let one = report(&["-j", "1", path], path, None);
    for threads in ["2", "3", "8"] {
        assert_eq!(report(&["-j", threads, path], path, None), one, "{threads} threads");
    }
}

/// Games run together on one line, with no line break in the input: every path reads the same
/// games, cut at their results (a stream waited for the line's end, holding the whole input).
#[test]
fn games_on_one_line_read_alike_by_every_path() {
    let dir = temp_dir("inputs-one-line");
    let games = [
        "[Event \"a\"] [Result \"1-0\"] 1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0 ",
        "[Event \"b\"] 1. d4 {a comment} d5 (1... Nf6 2. c4) 2. c4 $1 * {after the result} ",
        "[Event \"c\"] 1. e4 e5 2. Ke3 1/2-1/2 ",
        "[Event \"d\"][Result \"0-1\"]1. f3 e5 2. g4 Qh4# 0-1",
    ];
    let pgn: Vec<u8> = (0..4000).flat_map(|i| games[i % games.len()].bytes()).collect();
    assert!(!pgn.contains(&b'\n'));
    let (plain, zst) = plain_and_zst(&dir, &pgn);
    let p = |x: &std::path::Path| x.to_str().expect("utf-8").to_string();
    let base = report(&["-j", "1", &p(&plain)], &p(&plain), None);
    assert_eq!(base.lines().filter(|l| l.contains("\"type\":\"game\"")).count(), 4000, "{base}");
    assert_eq!(base.matches("\"illegal_move\"").count(), 1000, "game c, and no other: {base}");
    assert_eq!(report(&["-j", "2", &p(&plain)], &p(&plain), None), base, "mapped, two threads");
    assert_eq!(report(&["-j", "2", "-"], "-", Some(&pgn)), base, "stdin");
    assert_eq!(report(&["-j", "2", &p(&zst)], &p(&zst), None), base, "zstd");
    let clean = |input: &str, stdin: bool| {
        let out = dir.join("clean.pgn");
        let args = ["clean", "--quiet", "--chunk-kib", "4", "-j", "2", "-o", &p(&out), input];
        let o = run_on(&args, stdin.then_some(&pgn[..]));
        assert_eq!(o.status.code(), Some(1), "game c is rejected: {}", String::from_utf8_lossy(&o.stderr));
        std::fs::read(&out).expect("clean output")
    };
    let cleaned = clean(&p(&plain), false);
    assert_eq!(cleaned.windows(8).filter(|w| w == b"[Event \"").count(), 3000, "game c is rejected");
    assert!(clean("-", true) == cleaned, "clean from stdin");
}

#[test]
fn a_stream_corrupt_midway_reports_the_games_before_and_where_reading_stopped() {
    let dir = temp_dir("inputs-midway");
    // A good frame of games, then a frame whose header is garbage: decoding fails right there.
    let games: Vec<u8> = (0..20_000)
        .flat_map(|i| format!("[Event \"g{i}\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n").into_bytes())
        .collect();
    let mut data = zstd::encode_all(&games[..], 1).expect("zstd");
    data.extend_from_slice(&[0x28, 0xB5, 0x2F, 0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x01]);
    let path = dir.join("midway.pgn.zst");
    std::fs::write(&path, &data).expect("write");
    let path = path.to_str().expect("utf-8");
    for threads in ["1", "2"] {
        let o = run(&["check", "--quiet", "--json", "--games", "-j", threads, path]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(65), "{err}");
        assert!(err.contains("corrupt zstd stream"), "{err}");
        assert!(err.contains(&format!("(reading stopped at byte {})", games.len())), "{err}");
        // Every game before that byte is reported.
        let reported = stdout(&o).lines().filter(|l| l.contains("\"type\":\"game\"")).count();
        assert_eq!(reported, 20_000, "{threads} threads");
    }
}

/// A read error inside a game (a corrupt frame, a temporary file that cannot hold a game longer
/// than memory takes) leaves that game out, where it was read as if the input ended there and
/// diagnosed as cut (`unterminated_comment`, `missing_result`): the error names where it starts.
#[test]
fn a_game_cut_by_a_read_error_is_left_out_not_diagnosed() {
    let dir = temp_dir("inputs-cut-game");
    let before = "[Event \"a\"]\n\n1. e4 e5 1-0\n\n".repeat(100);
    let mut text = format!("{before}[Event \"cut\"]\n\n1. e4 {{a comment").into_bytes();
    let mut data = zstd::encode_all(&text[..], 1).expect("zstd");
    data.extend_from_slice(&[0x28, 0xB5, 0x2F, 0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x01]);
    let path = dir.join("cut.pgn.zst");
    std::fs::write(&path, &data).expect("write");
    let left_out = format!("; the game it cut, from byte {}, is left out)", before.len());
    for threads in ["1", "2"] {
        let o = run(&["check", "--json", "--games", "-j", threads, path.to_str().expect("utf-8")]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(65), "{err}");
        assert!(err.contains(&format!("(reading stopped at byte {}{left_out}", text.len())), "{err}");
        let games = stdout(&o).lines().filter(|l| l.contains("\"type\":\"game\"")).count();
        assert_eq!(games, 100, "-j{threads}: the games before it");
        assert!(!stdout(&o).contains("unterminated_comment") && !stdout(&o).contains("missing_result"));
    }
    // A game longer than memory takes from stdin, and a temporary directory that is not there.
    text.extend(std::iter::repeat_n(b'x', 65 << 20));
    text.extend_from_slice(b"} *\n");
    for threads in ["1", "2"] {
        let mut child = crate::util::pgnkit()
            .args(["check", "-j", threads, "-"])
            .env("TMPDIR", dir.join("missing"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut stdin = child.stdin.take().expect("stdin");
        let input = text.clone();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let o = child.wait_with_output().expect("wait");
        writer.join().expect("writer");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(74), "{err}");
        assert!(err.contains("temporary file ($TMPDIR)") && err.contains(&left_out), "-j{threads}: {err}");
        assert!(!err.contains("unterminated_comment") && !err.contains("missing_result"), "{err}");
        assert!(err.contains("pgnkit check: 100 games"), "-j{threads}: {err}");
    }
}

/// A `{` never closed ends its game at the next tag line, read from a file or a stream alike:
/// the games after it are read and reported the same (a stream holds them until a `{` after the
/// tag line, a `}`, the comment's budget or the end decides where the comment ends).
#[test]
fn an_unterminated_comment_reads_the_same_from_a_stream() {
    let dir = temp_dir("inputs-open-comment");
    let mut text = String::from("[Event \"a\"]\n\n1. e4 {never closed\n1. e5 *\n\n");
    for i in 0..300 {
        text += &format!("[Event \"g{i}\"]\n\n1. d4 d5 2. Ke3 *\n\n");
    }
    text += "[Event \"z\"]\n\n1. c4 {closed} Kd7 *\n";
    let file = dir.join("open.pgn");
    std::fs::write(&file, &text).expect("write");
    let file = file.to_str().expect("utf-8");
    // The records but the summary, which holds timings.
    let records = |o: &std::process::Output| -> String {
        stdout(o).lines().filter(|l| !l.contains("\"type\":\"summary\"")).map(|l| format!("{l}\n")).collect()
    };
    let from_file = run(&["check", "--json", "--games", file]);
    let games = records(&from_file).replace(file, "-");
    assert_eq!(games.matches("\"illegal_move\"").count(), 301, "{games}");
    assert_eq!(games.matches("\"unterminated_comment\"").count(), 1, "{games}");
    for threads in ["1", "2"] {
        let o = run_with_stdin(&["check", "--json", "--games", "-j", threads, "-"], &text);
        assert_eq!(records(&o), games, "-j{threads}");
        assert_eq!(o.status.code(), from_file.status.code());
    }
}

#[test]
fn input_errors_have_their_exit_codes() {
    let dir = temp_dir("inputs-errors");
    let utf16 = dir.join("utf16.pgn");
    std::fs::write(&utf16, b"\xff\xfe[\0E\0").expect("write");
    let corrupt = dir.join("corrupt.pgn.zst");
    std::fs::write(&corrupt, [0x28, 0xB5, 0x2F, 0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x01]).expect("write");
    for (args, code) in [
        (vec!["check", "/no/such/file.pgn"], 66),
        (vec!["check", corrupt.to_str().expect("utf-8")], 65),
        (vec!["check", "--bogus-flag", "x.pgn"], 2),
        (vec!["check"], 2),
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        // Reported once, where it happened (not again as the run's exit reason).
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.matches("error:").count(), 1, "{args:?}: {err}");
    }
    // A frame whose content checksum is wrong decodes without a complaint from its blocks: the
    // checksum is what tells, so it must be verified (a corrupt stream: 65, named as such).
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).expect("encoder");
    enc.include_checksum(true).expect("checksum flag");
    enc.write_all(b"[Event \"x\"]\n\n1. e4 e5 2. Nf3 *\n").expect("encode");
    let mut data = enc.finish().expect("finish");
    *data.last_mut().expect("checksum byte") ^= 0xff;
    let bad_sum = dir.join("checksum.pgn.zst");
    std::fs::write(&bad_sum, &data).expect("write");
    let bad_sum = bad_sum.to_str().expect("utf-8");
    for args in [vec!["check", bad_sum], vec!["check", "--no-mmap", bad_sum], vec!["positions", bad_sum]] {
        let o = run(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(65), "{args:?}: {err}");
        assert!(err.contains("corrupt zstd stream") && err.contains("checksum"), "{args:?}: {err}");
        // The game is in the frame's only block, which the failed check withholds: none was read.
        assert!(err.contains("(reading stopped at byte 0)"), "{args:?}: {err}");
    }
    let o = run_with_stdin(&["check", "-"], &data);
    assert_eq!(o.status.code(), Some(65), "stdin: {}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["check", "--quiet", utf16.to_str().expect("utf-8")]);
    assert!(matches!(o.status.code(), Some(65 | 1)), "UTF-16: {:?} {}", o.status.code(), stdout(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("UTF-16") || stdout(&o).contains("UTF-16"));
    // UTF-16 and UTF-32 inside a compressed file get the advice a plain file gets, not "not PGN".
    let pgn = "[Event \"x\"]\n\n1. e4 e5 1-0\n";
    let le16: Vec<u8> = pgn.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let be32: Vec<u8> = pgn.chars().flat_map(|c| u32::from(c).to_be_bytes()).collect();
    for (text, encoding) in [(le16, "UTF-16LE"), (be32, "UTF-32BE")] {
        let zst = dir.join("wide.pgn.zst");
        std::fs::write(&zst, zstd::encode_all(&text[..], 3).expect("zstd")).expect("write");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&text).expect("gzip");
        let gz_file = dir.join("wide.pgn.gz");
        std::fs::write(&gz_file, gz.finish().expect("gzip")).expect("write");
        let zst_bytes = std::fs::read(&zst).expect("read");
        for o in [
            run(&["check", "-q", zst.to_str().expect("utf-8")]),
            run(&["positions", "-q", "--no-mmap", gz_file.to_str().expect("utf-8")]),
            run_with_stdin(&["check", "-q", "-"], &zst_bytes),
        ] {
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(65), "{encoding}: {err}");
            assert!(err.contains(&format!("iconv -f {encoding} -t UTF-8")), "{encoding}: {err}");
            assert!(!err.contains("not PGN"), "{err}");
        }
    }
}

/// A stream that pauses (`tail -f games.pgn | pgnkit ...`, a tournament writing its games) has
/// the games that came before the pause worked on and written at once, at any `-j`, not when
/// more bytes come or the stream ends: the test waits for them with stdin still open. The
/// last game before the pause waits (a comment after its result may still come), as
/// python-chess's reader waits for the next game's tags.
#[test]
fn games_before_a_pause_of_stdin_are_written_at_once() {
    use std::io::{BufRead, BufReader};
    use std::sync::mpsc;
    let game = |i: u32| format!("[Event \"g{i}\"]\n[Result \"*\"]\n\n1. e4 e5 *\n\n");
    for (args, first) in [
        (&["positions", "-q", "--format", "csv", "-j1", "-"][..], "file,game,ply"),
        (&["positions", "-q", "--format", "csv", "-j2", "-"], "file,game,ply"),
        // A reading thread of its own and helpers: the releasing thread waits on both.
        (&["positions", "-q", "--format", "csv", "-j5", "-"], "file,game,ply"),
        (&["clean", "-q", "-j2", "-"], "[Event \"g1\"]"),
    ] {
        let mut child = crate::util::spawn_piped(args);
        let mut stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line.expect("a line")).is_err() {
                    break;
                }
            }
        });
        stdin.write_all((1..=3).map(game).collect::<String>().as_bytes()).expect("write");
        stdin.flush().expect("flush");
        // Liveness, not speed: without the pause being seen, nothing comes until stdin closes.
        let wait = std::time::Duration::from_secs(60);
        let got =
            rx.recv_timeout(wait).unwrap_or_else(|_| panic!("{args:?}: nothing written with stdin open"));
        assert!(got.starts_with(first), "{args:?}: {got}");
        let mut lines = vec![got];
        while let Ok(l) = rx.recv_timeout(std::time::Duration::from_millis(500)) {
            lines.push(l);
        }
        let text = lines.join("\n");
        assert!(text.contains("g2") || text.contains(",2,"), "{args:?}: the second game is out:\n{text}");
        stdin.write_all(game(4).as_bytes()).expect("write");
        drop(stdin);
        reader.join().expect("reader");
        lines.extend(rx.try_iter());
        assert!(child.wait().expect("wait").success(), "{args:?}");
        let all = lines.join("\n");
        let games = if args[0] == "clean" { all.matches("[Event ").count() } else { lines.len() - 1 };
        assert_eq!(games, if args[0] == "clean" { 4 } else { 4 * 3 }, "{args:?}: every game once:\n{all}");
    }
}
