//! Long games' texts on disk past the bound ([`super::super::spill`]): the files are those of
//! the texts held in memory.

use super::*;

/// A knight shuffle of `plies` plies from `first` (`Nf3` or `Nc3`), its last move `last`, each
/// move followed by `extra`.
fn shuffle(white: &str, plies: usize, first: &str, last: &str, extra: &str, result: &str) -> String {
    let back = if first == "Nf3" { "Ng1" } else { "Nb1" };
    let mut pgn = format!("[White \"{white}\"]\n[Black \"B\"]\n[Result \"{result}\"]\n\n");
    for i in 0..plies {
        let mv = if i + 1 == plies { last } else { [first, "Nf6", back, "Ng8"][i % 4] };
        pgn +=
            &format!("{}{mv}{extra}\n", if i % 2 == 0 { format!("{}. ", i / 2 + 1) } else { String::new() });
    }
    pgn + result + "\n\n"
}

/// Long games of every fate: written with comments, NAGs and variations (one cut by a bad move),
/// a repeat and games that differ from it in their first or last move only (filtered out by
/// their length where a filter is on), rejected (CRLF line ends), kept broken; between short
/// games of the fixtures.
fn long_games() -> Vec<u8> {
    let fixture = |name: &str| {
        std::fs::read(format!("{}/fixtures/pgn/{name}", env!("CARGO_MANIFEST_DIR"))).expect("fixture")
    };
    let n = dedup::MOVES_HELD / 2 + 44; // past the moves a key holds
    let mut pgn = shuffle("A", 400, "Nf3", "Ng8", " $1 { a comment } (Nc3 Nc6 $2 {in a variation})", "*");
    pgn += &shuffle("A", n, "Nf3", "Ng8", "", "1/2-1/2");
    pgn += &shuffle("A", n, "Nf3", "Ng8", "", "1/2-1/2");
    pgn += &shuffle("A", n, "Nc3", "Ng8", "", "1/2-1/2");
    pgn += &shuffle("A", n, "Nf3", "Nh5", "", "1/2-1/2");
    pgn += &shuffle("A", 300, "Nf3", "Ng8", " (Nc3 Nc6 Qxh8 Nf6)", "*");
    pgn += &shuffle("A", 500, "Nf3", "Qxh8", " {c}", "*").replace('\n', "\r\n");
    pgn += &shuffle("C", 700, "Nf3", "Ng8", "", "*");
    [fixture("dedup_pairs.pgn"), pgn.into_bytes(), fixture("bad_games.pgn"), fixture("windows-1252.pgn")]
        .join(&b"\n"[..])
}

/// What a run of `job` over `input` writes: the output, the rejects, the duplicates, the report
/// (its summary without times) and, as a shard's writer, the keys part; with `room` distinct
/// games held before later ones wait.
fn written(job: &Clean, input: &std::path::Path, threads: usize, room: usize, shard: bool) -> Vec<Vec<u8>> {
    use crate::jobs::run::{RunOptions, Summary, run};
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |name: &str| dir.path().join(name);
    let create = |name: &str| crate::io::Output::create(&path(name), &Default::default()).expect("create");
    let dups = job.options().keep_duplicates.then(|| create("dups"));
    let outs = Outputs {
        out: create("out"),
        rejects: Some(create("rejects")),
        duplicates: dups,
        report: Some(create("report")),
    };
    let mut writer = CleanWriter::new(job, outs, std::io::sink()).holding(room);
    if shard {
        writer = writer.part(Some(create("keys"))).expect("part");
    }
    let run_opts = RunOptions { threads, chunk_size: 4 << 10, no_mmap: false };
    let mut summary: Summary =
        run(job, &[input.to_path_buf()], &run_opts, &NoProgress, &mut writer).expect("run");
    writer.finish(&mut summary).expect("finish");
    let read = |name: &str| std::fs::read(path(name)).unwrap_or_default();
    let report: Vec<String> = String::from_utf8(read("report"))
        .expect("UTF-8")
        .lines()
        .map(|l| {
            let mut r: serde_json::Value = serde_json::from_str(l).expect("JSON");
            if let Some(data) = r["data"].as_object_mut() {
                for time in ["seconds", "mb_per_s", "games_per_s"] {
                    data.remove(time);
                }
            }
            r.to_string()
        })
        .collect();
    vec![read("out"), read("rejects"), read("dups"), report.join("\n").into_bytes(), read("keys")]
}

/// Long games' texts, written and as read, waiting on disk past a few bytes are written as the
/// same texts held in memory: the output, rejects, duplicates, report and a shard's keys part
/// byte for byte, with variations, comments, CRLF rejects, games kept broken, `--dedup` judged
/// at once or after waiting, at 1 and 2 threads. Each run's chunks did hold texts on disk.
#[test]
fn texts_spilled_to_disk_are_the_texts_held_in_memory() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("long.pgn");
    let pgn = long_games();
    std::fs::write(&input, &pgn).expect("write input");
    let select = Selection { max_ply: Some(30_000), ..Selection::default() };
    let dedup = |rule, keep_broken| CleanOptions {
        dedup: Some(rule),
        keep_duplicates: true,
        keep_broken,
        ..CleanOptions::default()
    };
    let cases = [
        (CleanOptions { select, ..CleanOptions::default() }, usize::MAX, false),
        (CleanOptions { keep_broken: true, line_width: 20, ..CleanOptions::default() }, usize::MAX, false),
        (dedup(Rule::Game, false), usize::MAX, true),
        (dedup(Rule::Moves, true), 0, false),
        (dedup(Rule::Prefix, false), usize::MAX, true),
    ];
    for (opts, room, shard) in cases {
        let name = format!("{:?} broken {} room {room}", opts.dedup, opts.keep_broken);
        let held_job = Clean::new(opts.clone());
        for threads in [1, 2] {
            let held = written(&held_job, &input, threads, room, shard);
            assert!(
                held[0].len() > 10_000 && held[3].len() > 1000,
                "{name}: {} {}",
                held[0].len(),
                held[3].len()
            );
            assert!(held[1].len() > 1000 || opts.keep_broken, "{name}: long games rejected");
            for bound in [1, 7, 4096] {
                let job = Clean::new(opts.clone()).spilling_at(bound);
                let spilled = written(&job, &input, threads, room, shard);
                for (k, file) in ["out", "rejects", "dups", "report", "keys"].iter().enumerate() {
                    assert!(spilled[k] == held[k], "{name} -j{threads} at {bound}: {file} differs");
                }
            }
        }
        // The spilled runs did put texts on disk; the held ones none.
        let on_disk = |job: &Clean| {
            let (workers, pipeline) = (Workers::default(), Options { threads: 1, chunk_size: 4 << 10 });
            let run_ =
                Run { name: &"t.pgn".into(), job, workers: &workers, opts: &pipeline, observer: &NoProgress };
            let mut n = 0;
            run(Input::Slice(&pgn), &run_, |o| {
                n += o.records.spilled.len();
                Ok(())
            })
            .expect("run");
            n
        };
        assert_eq!(on_disk(&held_job), 0, "{name}");
        assert!(on_disk(&Clean::new(opts.clone()).spilling_at(4096)) >= 4, "{name}");
    }
}

/// Long games' moves keys, fed part by part, tell games apart by every move: a repeat is a
/// duplicate, a game that differs in its first or its last move is not.
#[test]
fn long_games_repeat_by_their_whole_mainline() {
    let n = dedup::MOVES_HELD / 2 + 44;
    let game = |first, last| shuffle("A", n, first, last, "", "*");
    let pgn = [game("Nf3", "Ng8"), game("Nf3", "Ng8"), game("Nc3", "Ng8"), game("Nf3", "Nh5")].concat();
    let opts = CleanOptions { dedup: Some(Rule::Moves), ..CleanOptions::default() };
    let fates: Vec<String> = clean_with(&pgn, &opts, 1, 1 << 20).fates.into_iter().map(|f| f.1).collect();
    assert_eq!(fates, ["written", "duplicate of 1 (moves)", "written", "written"]);
}
