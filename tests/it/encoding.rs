//! Every byte pgnkit writes is UTF-8: a file in Windows-1252 (tag values, comments of the
//! mainline and of a variation, a `;` comment, `%` escape lines, a result with a Windows-1252
//! dash, a game with an illegal move, a game mixing UTF-8 tags with Windows-1252 comments) and an
//! input name that is not UTF-8, through `clean`, `annotate` (PGN and JSON Lines), `positions`
//! (every format) and `check` (text and JSON); python-chess reads what `clean` and `annotate`
//! write with a strict UTF-8 decoder. The rejects file is the one byte copy of the input.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::util::{fixture, python_chess_missing, run, stderr, temp_dir};

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// The fixture, copied under a name that is not UTF-8 (`café.pgn` in Latin-1).
fn latin1_named_copy(dir: &Path) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.pgn");
    let copy = dir.join(name);
    std::fs::copy(fixture("pgn/windows-1252.pgn"), &copy).expect("copy");
    copy
}

/// Whether JSON's `file` is the bytes of the Latin-1 name, as `{"bytes": base64}`.
fn is_latin1_name(file: &Value) -> bool {
    use base64::Engine as _;
    let Some(b64) = file["bytes"].as_str() else { return false };
    let bytes = base64::engine::general_purpose::STANDARD.decode(b64).expect("base64");
    bytes.ends_with(b"/caf\xe9.pgn")
}

/// `bytes` as UTF-8, or a failure naming the output and the first bad byte.
fn utf8<'b>(what: &str, bytes: &'b [u8]) -> &'b str {
    match std::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => panic!("{what}: not UTF-8 at byte {}: {e}", e.valid_up_to()),
    }
}

/// Reads every game of a PGN file with python-chess through a strict UTF-8 decoder; prints one
/// line per game: its errors, White, and its comments (mainline and variations).
const STRICT_READER: &str = r#"
import sys, chess.pgn
with open(sys.argv[1], encoding="utf-8", errors="strict") as f:
    while True:
        game = chess.pgn.read_game(f)
        if game is None:
            break
        comments = [n.comment for n in game.mainline()] + [v.comment for n in game.mainline() for v in n.variations[1:]]
        print(len(game.errors), game.headers["White"], "|", " ".join(c for c in comments if c))
"#;

/// python-chess's reading of `pgn`, one line a game (the test is skipped without python-chess).
fn python_chess_reads(pgn: &Path) -> Option<Vec<String>> {
    if python_chess_missing() {
        return None;
    }
    let o = Command::new("python3").args(["-c", STRICT_READER, path(pgn)]).output().expect("python3");
    assert!(o.status.success(), "python-chess: {}", String::from_utf8_lossy(&o.stderr));
    Some(String::from_utf8(o.stdout).expect("UTF-8").lines().map(String::from).collect())
}

#[test]
fn clean_writes_windows_1252_text_as_utf8_with_one_repair_a_game() {
    let dir = temp_dir("encoding-clean");
    let (out, report, rejects) = (dir.join("out.pgn"), dir.join("report.jsonl"), dir.join("rejects.pgn"));
    let input = latin1_named_copy(&dir);
    let o = Command::new(env!("CARGO_BIN_EXE_pgnkit"))
        .args(["clean", "-q", "-o", path(&out), "--report", path(&report), "--rejects", path(&rejects)])
        .arg(&input)
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(1), "a game is rejected: {}", stderr(&o));
    let bytes = std::fs::read(&out).expect("output");
    let text = utf8("clean's output", &bytes);
    for want in [
        "[Event \"Café Open – Round 3\"]",
        "[Black \"António, José\"]",
        "{ Kasparov’s favourite }",
        "{ the élève’s choice }",
        "{ a naïve move—which we see often }",
        "{ 20…Qe7 comes much later }",
        "[White \"Dvořák, Antonín\"]",
        "{ «classical» € 1.000 }",
        "{ café — naïve … ’ }",
        "4. Qxf7# 1-0",
    ] {
        assert!(text.contains(want), "{want} in\n{text}");
    }
    // The rejects are the input's bytes, as read.
    let input_bytes = std::fs::read(fixture("pgn/windows-1252.pgn")).expect("fixture");
    let rejected = std::fs::read(&rejects).expect("rejects");
    let needle = b"[Event \"Illegal \x93move\x94\"]";
    let game3 = input_bytes.windows(needle.len()).position(|w| w == needle).expect("game 3");
    assert!(input_bytes[game3..].starts_with(rejected.trim_ascii_end()), "a byte copy");
    // The report: UTF-8, the input's name read as Windows-1252, one encoding repair a game.
    let report = std::fs::read(&report).expect("report");
    let records: Vec<Value> =
        utf8("the report", &report).lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let encodings: Vec<(u64, &str, &str)> = records
        .iter()
        .filter(|r| r["type"] == "repair" && r["data"]["kind"] == "encoding")
        .map(|r| {
            (
                r["data"]["game"].as_u64().unwrap(),
                r["data"]["before"].as_str().unwrap(),
                r["data"]["after"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        encodings,
        [
            (1, "Caf\\xe9 Open \\x96 Round 3", "Café Open – Round 3"),
            (2, "\\xabclassical\\xbb \\x80 1.000", "«classical» € 1.000")
        ]
    );
    let named: Vec<&Value> = records.iter().filter(|r| r["data"].get("file").is_some()).collect();
    assert!(named.len() > 3 && named.iter().all(|r| is_latin1_name(&r["data"]["file"])), "{named:?}");
    let spelled: Vec<&Value> = records.iter().filter(|r| r["data"]["kind"] == "result_spelling").collect();
    assert_eq!(spelled.len(), 1, "the Windows-1252 dash of game 4");
    assert_eq!(spelled[0]["data"]["before"], "1–0");
    let summary = records.last().expect("summary");
    assert_eq!(summary["data"]["ledger"]["repairs"]["encoding"], 2);
    assert_eq!(summary["data"]["warnings"]["encoding"], 4, "games 1 to 4");
    let Some(games) = python_chess_reads(&out) else { return };
    assert_eq!(
        games,
        [
            "0 Kasparov, Garry | Kasparov’s favourite a naïve move—which we see often 20…Qe7 comes much later the élève’s choice",
            "0 Dvořák, Antonín | «classical» € 1.000 é",
            "0 A | ",
            "0 Najdorf, Miguel | café — naïve … ’",
        ]
    );
}

#[test]
fn annotate_writes_windows_1252_text_as_utf8() {
    let dir = temp_dir("encoding-annotate");
    let input = latin1_named_copy(&dir);
    let (pgn, jsonl) = (dir.join("out.pgn"), dir.join("out.jsonl"));
    for (out, format) in [(&pgn, "pgn"), (&jsonl, "jsonl")] {
        let o = Command::new(env!("CARGO_BIN_EXE_pgnkit"))
            .args(["annotate", "-q", "--no-cache", "--nodes", "1", "--format", format, "-o", path(out)])
            .arg(&input)
            .output()
            .expect("run");
        assert_eq!(o.status.code(), Some(1), "game 3 has an error: {}", stderr(&o));
        assert!(stderr(&o).contains("café.pgn:33:25: error: game 3 (Björn - Señor)"), "{}", stderr(&o));
    }
    let bytes = std::fs::read(&pgn).expect("pgn");
    let text = utf8("annotate's PGN", &bytes);
    for want in [
        "[Site \"Reykjavík\"]",
        "Kasparov’s favourite }",
        "{ the élève’s choice }",
        "20…Qe7 comes much later }",
        "«classical» € 1.000 }",
        // Game 3, written as read (an illegal move), each line read as Windows-1252.
        "[Event \"Illegal “move”\"]\n[Site \"?\"]",
        "1. e4 { déjà vu } e5 2. Ke3 *",
    ] {
        assert!(text.contains(want), "{want} in\n{text}");
    }
    let bytes = std::fs::read(&jsonl).expect("jsonl");
    let records: Vec<Value> = utf8("annotate's JSON Lines", &bytes)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert!(records.len() > 30);
    assert!(records.iter().filter(|r| r["type"] == "position").all(|r| is_latin1_name(&r["data"]["file"])));
    let Some(games) = python_chess_reads(&pgn) else { return };
    assert_eq!(games.len(), 5);
    assert!(games[2].starts_with("1 Björn | déjà vu"), "the illegal move: {games:?}");
    assert!(games[0].contains("Kasparov’s favourite"), "{games:?}");
}

#[test]
fn positions_writes_utf8_in_every_format() {
    let dir = temp_dir("encoding-positions");
    let input = latin1_named_copy(&dir);
    for format in ["fen", "epd", "jsonl", "csv"] {
        let out = dir.join(format!("out.{format}"));
        let o = Command::new(env!("CARGO_BIN_EXE_pgnkit"))
            .args(["positions", "-q", "--format", format, "-o", path(&out)])
            .args(if matches!(format, "jsonl" | "csv") {
                &["--tags", "Event,White,Black,Site"][..]
            } else {
                &[]
            })
            .arg(&input)
            .output()
            .expect("run");
        assert_eq!(o.status.code(), Some(1), "{format}: game 3 has an error: {}", stderr(&o));
        let bytes = std::fs::read(&out).expect("output");
        let text = utf8(format, &bytes);
        let wants: &[&str] = match format {
            "fen" => &["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n"],
            "epd" => &["id \"", "café.pgn:1:0\"; c0 \"e4\";", "café.pgn:4:6\"; c0 \"Qxf7#\";"],
            "jsonl" => &[
                "\"Event\":\"Café Open – Round 3\"",
                "\"Black\":\"António, José\"",
                "\"White\":\"Dvořák, Antonín\"",
            ],
            _ => {
                &["Café Open – Round 3,\"Kasparov, Garry\",\"António, José\",Reykjavík\n", ",Björn,Señor,?\n"]
            }
        };
        for want in wants {
            assert!(text.contains(want), "{format}: {want} in\n{text}");
        }
        if format == "jsonl" {
            text.lines().for_each(|l| drop(serde_json::from_str::<Value>(l).expect("JSON")));
        }
    }
}

#[test]
fn check_warns_once_a_game_and_writes_utf8() {
    let dir = temp_dir("encoding-check");
    let input = latin1_named_copy(&dir);
    let o =
        Command::new(env!("CARGO_BIN_EXE_pgnkit")).args(["check", "-q"]).arg(&input).output().expect("run");
    let text = utf8("check's report", &o.stdout);
    let warnings: Vec<&str> = text.lines().filter(|l| l.contains("[encoding,")).collect();
    assert_eq!(warnings.len(), 4, "one a game, games 1 to 4:\n{text}");
    assert!(warnings[0].ends_with("café.pgn:2:12: warning: game 1 (Kasparov, Garry - António, José): text not UTF-8; read as Windows-1252 [encoding, byte 49]"), "{}", warnings[0]);
    assert!(
        warnings[1].contains(":23:9: warning: game 2 (Dvořák, Antonín - Müller, Jörg)"),
        "the first comment: {}",
        warnings[1]
    );
    assert!(text.contains("warning: game 4 (A - B): result \"1–0\" read as 1-0 [result_spelling"), "{text}");
    let o = Command::new(env!("CARGO_BIN_EXE_pgnkit"))
        .args(["check", "-q", "--json"])
        .arg(&input)
        .output()
        .expect("run");
    let records: Vec<Value> =
        utf8("check --json", &o.stdout).lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let spelled = records.iter().find(|r| r["data"]["kind"] == "result_spelling").expect("the dash");
    assert_eq!(
        (spelled["data"]["san"].as_str(), is_latin1_name(&spelled["data"]["file"])),
        (Some("1–0"), true)
    );
    let illegal = records.iter().find(|r| r["data"]["kind"] == "illegal_move").expect("game 3");
    assert_eq!(
        (illegal["data"]["white"].as_str(), illegal["data"]["black"].as_str()),
        (Some("Björn"), Some("Señor"))
    );
    // UTF-8 input draws no encoding warning.
    let o = run(&["check", "-q", path(&fixture("pgn/lichess_db_10k.pgn"))]);
    assert!(!stderr(&o).contains("encoding") && !String::from_utf8_lossy(&o.stdout).contains("[encoding,"));
}

#[test]
fn shards_of_an_input_and_an_output_not_named_in_utf8_merge_to_the_single_run() {
    use std::os::unix::ffi::OsStrExt;
    let dir = temp_dir("encoding-shards");
    let input = latin1_named_copy(&dir);
    let out = dir.join(std::ffi::OsStr::from_bytes(b"s\xe9lection.pgn"));
    // Exit 1 for a run that rejects game 3.
    let clean = |extra: &[&str], out: &Path| {
        let o = Command::new(env!("CARGO_BIN_EXE_pgnkit"))
            .args(["clean", "-q"])
            .args(extra)
            .arg("-o")
            .arg(out)
            .arg(&input)
            .output()
            .expect("run");
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
        o.status.code()
    };
    assert_eq!(clean(&[], &dir.join("single.pgn")), Some(1), "game 3 is rejected");
    let mut manifests = Vec::new();
    for i in 0..2 {
        clean(&["--shard", &format!("{i}/2")], &out);
        let spec = pgnkit::shard::Spec::new(i, 2).expect("spec");
        let manifest = pgnkit::shard::manifest_path(&pgnkit::shard::part_path(&out, None, spec));
        let text = std::fs::read(&manifest).expect("manifest");
        let json: Value = serde_json::from_slice(&text).expect("the manifest is JSON");
        // The names' bytes, as CONVENTIONS' `{"bytes": base64}`.
        assert!(is_latin1_name(&json["inputs"][0]["path"]), "{json}");
        assert!(json["parts"][0]["target"]["bytes"].is_string(), "{json}");
        manifests.push(manifest);
    }
    let o = Command::new(env!("CARGO_BIN_EXE_pgnkit")).arg("merge").args(&manifests).output().expect("run");
    assert_eq!(o.status.code(), Some(1), "the shards' status: {}", stderr(&o));
    let merged = std::fs::read(&out).expect("merge wrote the output under its own name");
    assert_eq!(merged, std::fs::read(dir.join("single.pgn")).expect("single"));
}

/// UTF-16 text appended to a UTF-8 file reads as binary data to the end of the input: the
/// error says how much it skipped, that it seems to be UTF-16, and how to convert it; the game
/// before it is read.
#[test]
fn utf16_text_after_utf8_text_is_named_and_measured() {
    let dir = temp_dir("encoding-mixed-utf16");
    let games = "[Event \"b\"]\n\n1. d4 d5 *\n\n[Event \"c\"]\n\n1. c4 c5 *\n";
    let wide: Vec<u8> = games.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let mut text = b"[Event \"a\"]\n\n1. e4 e5 *\n".to_vec();
    text.extend(&wide);
    let pgn = dir.join("mixed.pgn");
    std::fs::write(&pgn, &text).expect("write");
    let o = run(&["check", "--json", path(&pgn)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let records: Vec<Value> =
        crate::util::stdout(&o).lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let binary: Vec<&Value> = records.iter().filter(|r| r["data"]["kind"] == "syntax").collect();
    assert_eq!(binary.len(), 1, "{records:?}");
    // Found in the first UTF-16 line, whose `[` starts a game of its own.
    let at = binary[0]["data"]["offset"].as_u64().expect("offset") as usize;
    assert!(at > text.len() - wide.len() && at < text.len() - wide.len() + 40, "at {at}");
    let lines = wide.iter().filter(|&&b| b == b'\n').count();
    let message = binary[0]["data"]["message"].as_str().expect("message");
    assert_eq!(
        message,
        format!(
            "binary data, UTF-16 text it seems (convert that part to UTF-8: iconv -f UTF-16LE -t UTF-8, or \
             UTF-16BE); skipped {} bytes ({lines} lines) to the next line starting with '[' or the end",
            text.len() - at
        )
    );
    let summary = records.last().expect("summary");
    assert_eq!(summary["data"]["valid"], 1, "the UTF-8 game is read: {summary}");
}
