//! `annotate --format epd` on lines longer than the budget (1 MiB): each is one `over_budget`
//! error at its line and is skipped, never held whole, the lines after it numbered as they are;
//! an input of one line that never ends is not EPD, and the run ends. LF, CR LF and a lone CR
//! end a line alike, in one run and in shards merged.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use crate::util::*;

/// Lines of `text` on stderr that are diagnostics, the input's name replaced by `FILE`.
fn diagnostics(err: &str, name: &str) -> Vec<String> {
    let name = format!("{name}:");
    err.lines().filter(|l| l.contains(": error: ")).map(|l| l.replace(&name, "FILE:")).collect()
}

/// Waits for `child`, killed after a generous watchdog: a run that reads for ever fails the test.
fn finished(mut child: Child, what: &str) -> Output {
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("{what}: still reading after 120 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// A good line, a line of 2.7 MB (NULs and other control bytes in it, one at every third byte),
/// a good line, a line that is no position, a line of 1.5 MiB, a last good line without its line
/// break.
fn input() -> Vec<u8> {
    let mut text = b"6k1/5ppp/8/8/8/8/8/R6K w - - id \"one\";\n".to_vec();
    text.extend(b"ab\0ab\x0bab\x0c".repeat(300_000));
    text.extend(b"\n8/8/8/4k3/8/8/4K3/7Q w - - id \"three\";\nnot a position\n");
    text.extend(std::iter::repeat_n(b'y', 3 << 19));
    text.extend(b"\r\n7k/8/6K1/8/8/8/8/6Q1 w - - id \"six\";");
    text
}

#[test]
fn annotate_epd_skips_a_line_over_the_budget_and_numbers_the_rest() {
    let dir = temp_dir("epd-lines");
    let text = input();
    let file = dir.join("long.epd");
    std::fs::write(&file, &text).expect("write");
    let zst = dir.join("long.epd.zst");
    std::fs::write(&zst, zstd::encode_all(&text[..], 3).expect("zstd")).expect("write");
    let args = ["annotate", "--no-cache", "--format", "epd", "--nodes", "200"];
    let mut runs = Vec::new();
    for j in ["1", "2"] {
        for (input, extra) in [(&file, None), (&file, Some("--no-mmap")), (&zst, None)] {
            let name = input.to_str().expect("UTF-8");
            let mut a = [&args[..], &["-j", j, name]].concat();
            a.extend(extra);
            let o = run(&a);
            runs.push((format!("{a:?}"), o.status.code(), stdout(&o), diagnostics(&stderr(&o), name)));
        }
        let a = [&args[..], &["-j", j, "-"]].concat();
        let o = run_with_stdin(&a, &text);
        runs.push((format!("{a:?} (stdin)"), o.status.code(), stdout(&o), diagnostics(&stderr(&o), "stdin")));
    }
    let (_, code, out, found) = &runs[0];
    assert_eq!(*code, Some(1), "{found:?}");
    let expected = [
        "pgnkit: FILE:2:1: error: game 2 (? - ?): line longer than the budget (1 MiB); skipped",
        "pgnkit: FILE:4:1: error: game 4 (? - ?): not an EPD or FEN line: ",
        "pgnkit: FILE:5:1: error: game 5 (? - ?): line longer than the budget (1 MiB); skipped",
    ];
    assert_eq!(found.len(), expected.len(), "{found:#?}");
    for (line, want) in found.iter().zip(expected) {
        assert!(line.starts_with(want), "{line}\nwanted {want}");
    }
    let written: Vec<&str> = out.lines().collect();
    assert_eq!(written.len(), 4, "{out}");
    assert!(written[0].starts_with("6k1/5ppp/8/8/8/8/8/R6K w - - id \"one\"; acd "), "{out}");
    assert!(written[1].starts_with("8/8/8/4k3/8/8/4K3/7Q w - - id \"three\"; acd "), "{out}");
    assert_eq!(written[2], "not a position");
    assert!(written[3].starts_with("7k/8/6K1/8/8/8/8/6Q1 w - - id \"six\"; acd "), "{out}");
    for (what, c, o, f) in &runs[1..] {
        assert_eq!((c, o, f), (code, out, found), "{what}");
    }
}

/// The error of an input of one endless line: read to the end of its first piece, no further.
const REFUSAL: &str =
    "not EPD: no EPD record and no FEN in its first 2.0 MiB (read no further); line 1 reads ";

/// Starts an EPD annotation of `input` (`-`: stdin, piped).
fn spawn_annotate(input: &str, out: &Path) -> Child {
    let args = ["annotate", "--no-cache", "--format", "epd", "--nodes", "200", "-o"];
    pgnkit()
        .args(args)
        .args([out.to_str().expect("UTF-8"), input])
        .stdin(if input == "-" { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pgnkit")
}

/// One line that never ends (`/dev/zero`, `yes x | tr -d '\n'`) is no EPD: one error, exit 65,
/// no output, read no further than its first piece, where it waited for ever for a line break.
#[test]
fn annotate_epd_of_one_endless_line_ends_not_epd() {
    let dir = temp_dir("epd-endless");
    let out = dir.join("out.epd");
    let o = finished(spawn_annotate("/dev/zero", &out), "/dev/zero");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(65), "{err}");
    assert!(err.contains(&format!("pgnkit: error: /dev/zero: {REFUSAL}\"\\u{{0}}")), "{err}");
    assert!(!out.exists());

    let mut child = spawn_annotate("-", &out);
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || {
        let xs = vec![b'x'; 1 << 16];
        // Until the run ends and the pipe breaks.
        while stdin.write_all(&xs).is_ok() {}
    });
    let o = finished(child, "endless stdin");
    writer.join().expect("writer");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(65), "{err}");
    assert!(err.contains(&format!("pgnkit: error: stdin: {REFUSAL}\"xxx")), "{err}");
    assert!(!out.exists());
}

/// Lines of an EPD input: mostly lines that are no position (cheap, and each a diagnostic that
/// names its line), a position every 40th, ended by LF, CR LF, lone CRs in turn (`\r\r\n` and
/// `\n\r` too, and NULs and other control bytes among them); `big` adds 512 KiB of CRs (as many
/// empty lines) and a line over the budget of control bytes ended by a lone CR.
fn mixed_breaks(lines: usize, big: bool) -> Vec<u8> {
    let good = ["6k1/5ppp/8/8/8/8/8/R6K w - - id \"a\";", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"];
    let breaks: [&[u8]; 6] = [b"\n", b"\r\n", b"\r", b"\r\r\n", b"\n\r", b"\r"];
    let mut text = Vec::new();
    for i in 0..lines {
        match i % 40 {
            0 => text.extend(good[i / 40 % 2].as_bytes()),
            7 => text.extend(b"bad\0line\x01\x0b"),
            _ => text.extend(format!("x{i}").as_bytes()),
        }
        text.extend(breaks[i % breaks.len()]);
        if big && i == lines / 2 {
            text.extend(vec![b'\r'; 1 << 19]);
            text.extend(b"\0\x0c\x1a".iter().cycle().take((1 << 20) + (100 << 10)));
            text.push(b'\r');
        }
    }
    text.extend(good[0].as_bytes());
    text
}

/// The diagnostics and the written lines of `annotate --format epd` over `file`: once at `-j1`
/// and `-j2`, from the file and from stdin, and as shards of each count merged: every run gives
/// the first run's lines and diagnostics, in the same order.
fn same_lines_and_diagnostics(file: &Path, counts: &[u64]) {
    let name = file.to_str().expect("UTF-8");
    let dir = file.parent().expect("a directory");
    let args = ["annotate", "--no-cache", "--format", "epd", "--nodes", "200"];
    let (one, first) = (
        dir.join("one.epd"),
        run(&[&args[..], &["-j1", "-o"], &[dir.join("one.epd").to_str().expect("UTF-8"), name]].concat()),
    );
    assert_eq!(first.status.code(), Some(1), "{}", stderr(&first));
    let (out, found) = (std::fs::read(&one).expect("output"), diagnostics(&stderr(&first), name));
    assert!(found.len() > 10, "{found:#?}");
    let text = std::fs::read(file).expect("input");
    for j in ["1", "2"] {
        let o = run(&[&args[..], &["-j", j, name]].concat());
        assert_eq!((&o.stdout, diagnostics(&stderr(&o), name)), (&out, found.clone()), "-j{j} {name}");
        let o = run_with_stdin(&[&args[..], &["-j", j, "-"]].concat(), &text);
        assert_eq!((&o.stdout, diagnostics(&stderr(&o), "stdin")), (&out, found.clone()), "-j{j} stdin");
        for &n in counts {
            let merged = dir.join(format!("n{n}-j{j}.epd"));
            let mut manifests = Vec::new();
            let mut shards = Vec::new();
            for i in 0..n {
                let shard = format!("{i}/{n}");
                let extra = ["-j", j, "--shard", &shard, "-o", merged.to_str().expect("UTF-8"), name];
                let o = run(&[&args[..], &extra].concat());
                assert!(matches!(o.status.code(), Some(0 | 1)), "{shard} -j{j}: {}", stderr(&o));
                shards.extend(diagnostics(&stderr(&o), name));
                let spec = pgnkit::shard::Spec::new(i, n).expect("spec");
                let part = pgnkit::shard::part_path(&merged, None, spec);
                manifests.push(pgnkit::shard::manifest_path(&part).to_str().expect("UTF-8").to_string());
            }
            let o =
                run(&[&["merge", "-q"][..], &manifests.iter().map(String::as_str).collect::<Vec<_>>()]
                    .concat());
            assert_eq!(o.status.code(), Some(1), "merge of {n} -j{j}: {}", stderr(&o));
            assert!(std::fs::read(&merged).expect("merged") == out, "{n} shards -j{j}: the lines of one run");
            assert_eq!(shards, found, "{n} shards -j{j}: the diagnostics of one run");
        }
    }
}

/// LF, CR LF and lone CRs end lines alike in one run and in shards, wherever a shard's share
/// starts (on the LF of a CR LF, after a lone CR, in a MiB of CRs, inside a line over the
/// budget): the lines written and their diagnostics are one run's.
#[test]
fn annotate_epd_lines_end_alike_in_one_run_and_in_shards() {
    let dir = temp_dir("epd-breaks");
    let small = dir.join("small").join("mixed.epd");
    std::fs::create_dir_all(small.parent().expect("dir")).expect("dir");
    let text = mixed_breaks(1240, false);
    std::fs::write(&small, &text).expect("write");
    // Where the shares of 2..=9 shards are asked to start: on each kind of byte around a break.
    let size = text.len() as u64;
    let asked: Vec<&[u8]> = (2..=9u64)
        .flat_map(|n| (1..n).map(move |i| (i * size / n) as usize))
        .map(|at| &text[at - 1..=at])
        .collect();
    for pair in [b"\r\n", b"\r\r", b"\rx", b"\nx"] {
        assert!(asked.contains(&&pair[..]), "a share asked to start inside {pair:?}: {asked:?}");
    }
    same_lines_and_diagnostics(&small, &(2..=9).collect::<Vec<_>>());
    let big = dir.join("big").join("mixed.epd");
    std::fs::create_dir_all(big.parent().expect("dir")).expect("dir");
    std::fs::write(&big, mixed_breaks(200, true)).expect("write");
    // Shares of 3 and 5 start in the CRs and inside the line over the budget.
    same_lines_and_diagnostics(&big, &[3, 5]);
}
