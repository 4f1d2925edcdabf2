//! `clean --dedup` past the distinct games it holds in memory, where games wait in temporary
//! files: the same files as the whole set in memory, in a run, a shard and a stop.

use super::*;

/// Games that test the set's bound: `n` games with one mainline between other players (more
/// than [`dedup::seen::COMPARED`], so older ones are found only when equal in every fact), then
/// exact repeats of the oldest, a repeat of an old one on a date that is compatible, not equal
/// (a distinct game then), repeats of recent ones, and other mainlines.
fn crowded(n: usize) -> String {
    let game = |white: &str, date: &str, moves: &str| {
        format!("[White \"{white}\"]\n[Black \"Bot\"]\n[Date \"{date}\"]\n[Result \"*\"]\n\n{moves} *\n\n")
    };
    // Names as `--dedup` tells them apart: words of letters (it reads no digits).
    let player = |p: usize| {
        let (mut name, mut k) = (String::from("Player "), p + 26 * 26);
        while k > 0 {
            name.push(char::from(b'a' + (k % 26) as u8));
            k /= 26;
        }
        name
    };
    let mut pgn = String::new();
    for p in 0..n {
        pgn += &game(&player(p), "2024.01.01", "1. e4 e5 2. Nf3");
    }
    for p in [0, 1, 2, n - 1, n - 2] {
        pgn += &game(&player(p), "2024.01.01", "1. e4 e5 2. Nf3");
    }
    pgn += &game(&player(3), "2024.01.??", "1. e4 e5 2. Nf3");
    pgn += &game(&player(3), "2024.01.??", "1. e4 e5 2. Nf3");
    for p in 0..n / 4 {
        pgn += &game(&player(p), "2024.02.02", "1. d4 d5 2. c4");
        pgn += &game(&player(p), "2024.02.02", "1. d4 d5 2. c4");
    }
    pgn
}

/// `--dedup` past the distinct games held in memory writes what the whole set in memory
/// writes: the output, the rejects and the duplicates byte for byte, the report record for
/// record (its summary but for its times, with its count of games compared in part), and each
/// input's ledger, under `game` and `moves`; with room for none (every game waits), a
/// few (the bound reached within a chunk) or many, over two inputs, chunks of a few games on
/// two threads.
#[test]
fn dedup_past_the_memory_bound_writes_what_the_whole_set_writes() {
    use crate::jobs::run::{RunOptions, Summary, run};
    let dir = tempfile::tempdir().expect("temp dir");
    let pairs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/pgn/dedup_pairs.pgn"))
        .expect("fixture");
    let inputs: Vec<std::path::PathBuf> = (0..2)
        .map(|i| {
            let path = dir.path().join(format!("in{i}.pgn"));
            let pgn = if i == 0 {
                crowded(150) + &GAMES.repeat(3) + &pairs
            } else {
                // More games between players sharing a word than one is compared with.
                let crowd = dedup::seen::COMPARED + dedup::seen::MAY_BE_SAME + 50;
                GAMES.to_string() + &pairs + &crowded(150) + &crowded(20) + &crowded(crowd)
            };
            std::fs::write(&path, pgn).expect("write input");
            path
        })
        .collect();
    let run_opts = RunOptions { threads: 2, chunk_size: 300, no_mmap: false };
    for rule in [Rule::Game, Rule::Moves] {
        // Broken games kept under one rule, rejected under the other.
        let keep_broken = rule == Rule::Moves;
        let opts =
            CleanOptions { dedup: Some(rule), keep_duplicates: true, keep_broken, ..CleanOptions::default() };
        let job = Clean::new(opts);
        let mut outputs = Vec::new();
        let some = if rule == Rule::Game { 120 } else { 12 };
        for room in [usize::MAX, some, 3, 0] {
            let path = |name: &str| dir.path().join(format!("{name}-{room}"));
            let create =
                |name: &str| crate::io::Output::create(&path(name), &Default::default()).expect("create");
            let outs = Outputs {
                out: create("out"),
                rejects: Some(create("rejects")),
                duplicates: Some(create("dups")),
                report: Some(create("report")),
            };
            let mut writer = CleanWriter::new(&job, outs, std::io::sink()).holding(room);
            let mut summary: Summary = run(&job, &inputs, &run_opts, &NoProgress, &mut writer).expect("run");
            let waited = writer.late.is_some();
            writer.finish(&mut summary).expect("finish");
            // The counts, in an order of their own (a run that waits counts some at its end).
            let ledgers: Vec<Stats> = summary
                .inputs
                .iter()
                .map(|i| {
                    let mut stats = i.stats.clone();
                    stats.counts.sort_by_key(|&(c, _)| c.name());
                    stats
                })
                .collect();
            let read = |name: &str| std::fs::read(path(name)).expect("read back");
            // The report's summary record without its times (a run that waits takes longer).
            let report = String::from_utf8(read("report")).expect("UTF-8");
            let report: Vec<String> = report
                .lines()
                .map(|l| {
                    let mut r: serde_json::Value = serde_json::from_str(l).expect("JSON");
                    if r["type"] == "summary"
                        && let Some(data) = r["data"].as_object_mut()
                    {
                        for time in ["seconds", "mb_per_s", "games_per_s"] {
                            data.remove(time);
                        }
                    }
                    r.to_string()
                })
                .collect();
            let report = report.join("\n").into_bytes();
            outputs.push((room, waited, [read("out"), read("rejects"), read("dups"), report], ledgers));
        }
        let (_, waited, whole, ledgers) = &outputs[0];
        assert!(!waited);
        assert!(
            whole.iter().enumerate().all(|(k, f)| !f.is_empty() || (k == 1 && keep_broken)),
            "{rule:?}: every file has games"
        );
        let dups = whole[3]
            .split(|&b| b == b'\n')
            .filter(|l| l.starts_with(b"{\"data\"") && l.ends_with(b"\"type\":\"duplicate\"}"))
            .count();
        assert!(dups > 150, "{rule:?}: {dups} duplicates");
        let in_part = String::from_utf8_lossy(&whole[3]).contains("\"compared_in_part\":");
        assert_eq!(in_part, rule == Rule::Game, "{rule:?}: games compared in part are counted");
        for (room, waited, files, counts) in &outputs[1..] {
            assert!(waited, "{rule:?}, room {room}: games waited");
            for (k, name) in ["out", "rejects", "dups", "report"].iter().enumerate() {
                assert!(files[k] == whole[k], "{rule:?}, room {room}: {name} differs");
            }
            assert_eq!(counts, ledgers, "{rule:?}, room {room}");
        }
    }
}

/// A stop asked for while the games that waited past `--dedup`'s bound are judged and written:
/// the writer fails with `Interrupted` and its outputs are not put in place.
#[test]
fn a_stop_while_the_waiting_games_are_written_leaves_no_file() {
    use crate::jobs::run::{RunOptions, run};
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("in.pgn");
    std::fs::write(&input, crowded(10)).expect("write input");
    let job = Clean::new(CleanOptions { dedup: Some(Rule::Game), ..CleanOptions::default() });
    let (out, report) = (dir.path().join("out.pgn"), dir.path().join("r.jsonl"));
    let create = |p: &std::path::Path| crate::io::Output::create(p, &Default::default()).expect("create");
    let outputs =
        Outputs { out: create(&out), rejects: None, duplicates: None, report: Some(create(&report)) };
    let mut writer = CleanWriter::new(&job, outputs, std::io::sink()).holding(3).interruptible(|| true);
    let run_opts = RunOptions { threads: 1, chunk_size: 1 << 20, no_mmap: false };
    let mut summary = run(&job, &[input], &run_opts, &NoProgress, &mut writer).expect("run");
    assert!(writer.late.is_some(), "games waited");
    assert!(matches!(writer.finish(&mut summary), Err(crate::error::Error::Interrupted)));
    assert!(!out.exists() && !report.exists(), "no output put in place");
}

/// A shard's writer past `--dedup`'s bound writes what it writes holding every game: its
/// output, duplicates and report parts byte for byte, and its keys part's entries (each game's
/// place in the parts, its verdict, what `merge` needs to turn it over; the inputs' entries
/// come before the games that waited), over two inputs.
#[test]
fn a_shard_past_the_memory_bound_writes_the_same_parts_and_keys() {
    use crate::jobs::keys::{CleanEntry, KeysReader};
    use crate::jobs::run::{RunOptions, run};
    let dir = tempfile::tempdir().expect("temp dir");
    let inputs: Vec<std::path::PathBuf> = (0..2)
        .map(|i| {
            let path = dir.path().join(format!("in{i}.pgn"));
            std::fs::write(&path, crowded(80) + &GAMES.repeat(2)).expect("write input");
            path
        })
        .collect();
    let run_opts = RunOptions { threads: 2, chunk_size: 300, no_mmap: false };
    let opts = CleanOptions { dedup: Some(Rule::Game), keep_duplicates: true, ..CleanOptions::default() };
    let job = Clean::new(opts);
    let mut results = Vec::new();
    for room in [usize::MAX, 50, 0] {
        let path = |name: &str| dir.path().join(format!("{name}-{room}"));
        let create =
            |name: &str| crate::io::Output::create(&path(name), &Default::default()).expect("create");
        let outs = Outputs {
            out: create("out"),
            rejects: None,
            duplicates: Some(create("dups")),
            report: Some(create("report")),
        };
        let writer = CleanWriter::new(&job, outs, std::io::sink());
        let mut writer = writer.part(Some(create("keys"))).expect("part").holding(room);
        let mut summary = run(&job, &inputs, &run_opts, &NoProgress, &mut writer).expect("run");
        let waited = writer.late.is_some();
        writer.finish(&mut summary).expect("finish");
        let read = |name: &str| std::fs::read(path(name)).expect("read back");
        let (mut keys, _) =
            KeysReader::new(std::fs::File::open(path("keys")).expect("keys")).expect("header");
        let (mut names, mut games) = (Vec::new(), Vec::new());
        while let Some(entry) = keys.clean().expect("entry") {
            match entry {
                CleanEntry::Input(name) => names.push(name),
                CleanEntry::Game(g) => games.push(*g),
            }
        }
        results.push((room, waited, [read("out"), read("dups"), read("report")], names, games));
    }
    let (_, waited, whole, names, games) = &results[0];
    assert!(!waited && games.len() > 100 && games.iter().any(|g| g.of.is_some()), "{}", games.len());
    for (room, waited, files, n, g) in &results[1..] {
        assert!(waited, "room {room}: games waited");
        for (k, name) in ["out", "dups", "report"].iter().enumerate() {
            assert!(files[k] == whole[k], "room {room}: {name} differs");
        }
        assert_eq!(n, names, "room {room}");
        assert!(g == games, "room {room}: the keys part's games differ");
    }
}
