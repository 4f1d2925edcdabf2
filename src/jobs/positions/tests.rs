//! Tests of `positions`: every format, filters, `--unique`, and the same output at any thread
//! count and chunk size.

use super::*;
use crate::chess::Variant;
use crate::error::{Kind, Severity};
use crate::notation::fen::parse_fen;
use crate::pipeline::{Input, NoProgress, Options, Run, Workers, run};
use crate::select::tags::TagExpr;
use std::collections::HashSet;

/// Runs the job as the command line does on an input named `name`; returns (output,
/// diagnostics, stats).
fn positions_named(
    pgn: &str,
    opts: &PositionsOptions,
    threads: usize,
    chunk: usize,
    name: &str,
) -> (String, Vec<Diagnostic>, Stats) {
    let job = Positions::new(opts.clone()).expect("columns");
    let (mut bytes, mut diags, mut stats) = (Vec::new(), Vec::new(), Stats::default());
    let mut unique = opts.unique.then(Unique::new);
    if opts.format == Format::Csv {
        bytes.extend(csv_header(&opts.tags));
    }
    let (workers, pipeline) = (Workers::default(), Options { threads, chunk_size: chunk });
    let run_ =
        Run { name: &name.into(), job: &job, workers: &workers, opts: &pipeline, observer: &NoProgress };
    let mut part = PositionsChunk::default();
    run(Input::Slice(pgn.as_bytes()), &run_, |mut o| {
        diags.extend(o.records.diagnostics.iter().cloned());
        stats.merge(&o.stats);
        spill::for_each_part(&mut o.records, &mut part, |p| {
            match unique.as_mut() {
                Some(u) => {
                    u.filter(&p.keys, |r| {
                        bytes.extend_from_slice(&p.bytes[r]);
                        Ok::<(), Error>(())
                    })?;
                }
                None => bytes.extend_from_slice(&p.bytes),
            }
            Ok(())
        })
    })
    .expect("run");
    (String::from_utf8(bytes).expect("UTF-8 output"), diags, stats)
}

fn positions(
    pgn: &str,
    opts: &PositionsOptions,
    threads: usize,
    chunk: usize,
) -> (String, Vec<Diagnostic>, Stats) {
    positions_named(pgn, opts, threads, chunk, "t.pgn")
}

fn opts(format: Format) -> PositionsOptions {
    PositionsOptions { format, ..PositionsOptions::default() }
}

const GAMES: &str = "[Event \"Club, \\\"open\\\"\"]\n[White \"Doe, John\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n\
        1. e4 { [%eval 0.17] [%clk 0:03:00] } 1... e5 { [%clk 0:02:58.6] [%eval #-4] } 2. Qh5 { no commands } 1-0\n\n\
        [Event \"illegal\"]\n[White \"X\"]\n[Result \"*\"]\n\n1. d4 d5 2. Ke3 { [%eval 9.99] } Nf6 *\n\n\
        [Event \"ep\"]\n[Result \"*\"]\n\n1. e4 Nf6 2. e5 d5 3. exd6 *\n";

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn fen_one_record_per_position_and_the_valid_prefix_of_a_bad_game() {
    let (out, diags, stats) = positions(GAMES, &opts(Format::Fen), 1, 1 << 20);
    let lines: Vec<&str> = out.lines().collect();
    // 3 + 1, the valid prefix 2 + 1 (Ke3 is illegal), 5 + 1.
    assert_eq!(lines.len(), 4 + 3 + 6, "{out}");
    assert_eq!(lines[0], START);
    assert_eq!(lines[3], "rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2");
    assert_eq!(lines[6], "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2");
    // After 2... d5 the ep square is shown because exd6 is legal.
    assert_eq!(lines[11], "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
    assert_eq!(stats.games, 3);
    assert_eq!(stats.games_with_errors, 1);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!((diags[0].game, diags[0].kind, diags[0].ply), (2, Kind::IllegalMove, Some(3)));
    assert_eq!((diags[0].line, diags[0].column), (12, 13));
    // Every FEN reads back.
    for l in &lines {
        assert!(parse_fen(l, Variant::Standard).is_ok(), "{l}");
    }
}

#[test]
fn ep_square_always() {
    let o = PositionsOptions { ep: EpMode::Always, ..opts(Format::Fen) };
    let (out, _, _) = positions(GAMES, &o, 1, 1 << 20);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[1], "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    assert_eq!(lines[11], "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
}

#[test]
fn skip_errors_drops_the_whole_game() {
    let o = PositionsOptions { skip_errors: true, ..opts(Format::Fen) };
    let (out, diags, stats) = positions(GAMES, &o, 1, 1 << 20);
    assert_eq!(out.lines().count(), 4 + 6);
    assert!(!out.contains("3p4/3P4"), "{out}");
    assert_eq!((diags.len(), stats.games_with_errors), (1, 1));
    assert_eq!(stats.get(Counter::SkippedForErrors), 1, "the game left out is counted");
    // A game the filters leave out is filtered, not skipped, error or not.
    let wheres = vec![TagExpr::parse("Event = ep").expect("expression")];
    let o = PositionsOptions { select: Selection { wheres, ..Selection::default() }, ..o };
    let (_, _, stats) = positions(GAMES, &o, 1, 1 << 20);
    assert_eq!((stats.get(Counter::SkippedForErrors), stats.get(Counter::Filtered)), (0, 2), "{stats:?}");
}

#[test]
fn epd_records() {
    let (out, _, _) = positions(GAMES, &opts(Format::Epd), 1, 1 << 20);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - hmvc 0; fmvn 1; id \"t.pgn:1:0\"; c0 \"e4\";"
    );
    assert_eq!(
        lines[3],
        "rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - hmvc 1; fmvn 2; id \"t.pgn:1:3\";"
    );
    assert!(lines[6].ends_with("id \"t.pgn:2:2\";"), "{}", lines[6]);
    // Reads back as EPD with the same operations.
    let epd = crate::notation::fen::parse_epd(lines[0]).expect("EPD");
    assert_eq!(epd.op("id"), Some(&["t.pgn:1:0".to_string()][..]));
    assert_eq!(epd.op("c0"), Some(&["e4".to_string()][..]));
    let (out, _, _) = positions_named(GAMES, &opts(Format::Epd), 1, 1 << 20, "a \"b\".pgn");
    assert!(
        out.starts_with(&format!(
            "{} hmvc 0; fmvn 1; id \"a \\\"b\\\".pgn:1:0\";",
            &START[..START.len() - 4]
        ))
    );
}

#[test]
fn jsonl_records_with_tags_eval_and_clock() {
    let o = PositionsOptions {
        tags: vec!["White".into(), "Event".into(), "Round".into()],
        ..opts(Format::Jsonl)
    };
    let (out, _, _) = positions(GAMES, &o, 1, 1 << 20);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "{{\"file\":\"t.pgn\",\"game\":1,\"ply\":0,\"fen\":\"{START}\",\"san\":\"e4\",\"uci\":\"e2e4\",\
                 \"White\":\"Doe, John\",\"Event\":\"Club, \\\"open\\\"\",\"Round\":null}}"
        )
    );
    let recs: Vec<serde_json::Value> =
        lines.iter().map(|l| serde_json::from_str(l).expect("valid JSON")).collect();
    assert_eq!(recs[1]["eval"], serde_json::json!({"cp": 17}));
    assert_eq!(recs[1]["clk"], serde_json::json!(180));
    assert_eq!(recs[2]["eval"], serde_json::json!({"mate": -4}));
    assert_eq!(recs[2]["clk"], serde_json::json!(178.6));
    assert_eq!((recs[2]["san"].as_str(), recs[2]["uci"].as_str()), (Some("Qh5"), Some("d1h5")));
    assert!(recs[3].get("eval").is_none() && recs[3].get("clk").is_none());
    assert!(recs[3]["san"].is_null() && recs[3]["uci"].is_null());
    // The eval after the illegal move is not given to the last valid position.
    assert_eq!((recs[6]["game"].as_u64(), recs[6]["ply"].as_u64()), (Some(2), Some(2)));
    assert!(recs[6].get("eval").is_none(), "{}", lines[6]);
    assert!(recs[6]["san"].is_null());
}

/// An `[%eval]` that reads as no evaluation is a null eval in the records that carry evals,
/// counted as a `bad_eval` warning; formats without evals do not read them.
#[test]
fn an_eval_that_does_not_read_is_counted() {
    let pgn = "[Event \"e\"]\n\n1. e4 { [%eval 1e308] } 1... e5 { [%eval 0.3] } *\n";
    let bad = |stats: &Stats| {
        stats
            .by_kind
            .iter()
            .filter(|&&(k, _, _)| k == Kind::BadEval)
            .map(|&(_, s, n)| (s, n))
            .collect::<Vec<_>>()
    };
    let (out, _, stats) = positions(pgn, &opts(Format::Jsonl), 1, 1 << 20);
    let recs: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    assert!(recs[1].get("eval").is_none() && recs[2]["eval"] == serde_json::json!({"cp": 30}), "{out}");
    assert_eq!(bad(&stats), [(Severity::Warning, 1)]);
    let (_, _, stats) = positions(pgn, &opts(Format::Fen), 1, 1 << 20);
    assert_eq!(bad(&stats), []);
}

#[test]
fn csv_header_and_quoting() {
    let o =
        PositionsOptions { tags: vec!["White".into(), "Event".into(), "Round".into()], ..opts(Format::Csv) };
    let (out, _, _) = positions(GAMES, &o, 1, 1 << 20);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "file,game,ply,fen,san,uci,White,Event,Round");
    assert_eq!(lines[1], format!("t.pgn,1,0,{START},e4,e2e4,\"Doe, John\",\"Club, \"\"open\"\"\","));
    assert_eq!(
        lines[4],
        "t.pgn,1,3,rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2,,,\"Doe, John\",\"Club, \"\"open\"\"\","
    );
    assert_eq!(lines[5], format!("t.pgn,2,0,{START},d4,d2d4,X,illegal,"));
    assert_eq!(csv_header(&["a,b".into(), "q\"".into()]), b"file,game,ply,fen,san,uci,\"a,b\",\"q\"\"\"\n");
    // A name that needs quoting is quoted.
    let (out, _, _) = positions_named(GAMES, &opts(Format::Csv), 1, 1 << 20, "a, b.pgn");
    assert!(out.lines().nth(1).expect("a record").starts_with("\"a, b.pgn\",1,0,"), "{out}");
}

#[test]
fn ply_filters() {
    let plies = |o: PositionsOptions| -> Vec<(u64, u64)> {
        let (out, _, _) = positions(GAMES, &PositionsOptions { ..o }, 1, 1 << 20);
        out.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON"))
            .map(|v| (v["game"].as_u64().unwrap_or(0), v["ply"].as_u64().unwrap_or(0)))
            .collect()
    };
    let base = opts(Format::Jsonl);
    assert_eq!(
        plies(PositionsOptions { min_ply: 2, ..base.clone() }),
        [(1, 2), (1, 3), (2, 2), (3, 2), (3, 3), (3, 4), (3, 5)]
    );
    assert_eq!(
        plies(PositionsOptions { max_ply: Some(1), ..base.clone() }),
        [(1, 0), (1, 1), (2, 0), (2, 1), (3, 0), (3, 1)]
    );
    assert_eq!(
        plies(PositionsOptions { every: 2, min_ply: 1, ..base.clone() }),
        [(1, 2), (2, 2), (3, 2), (3, 4)]
    );
    assert_eq!(plies(PositionsOptions { min_ply: 1, max_ply: Some(1), ..base }), [(1, 1), (2, 1), (3, 1)]);
}

#[test]
fn null_moves_are_positions_too() {
    let pgn = "[Event \"null\"]\n\n1. e4 -- 2. d4 *\n";
    let (out, _, stats) = positions(pgn, &opts(Format::Csv), 1, 1 << 20);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1 + 4);
    assert_eq!(lines[2], "t.pgn,1,1,rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1,--,0000");
    assert_eq!(lines[3], "t.pgn,1,2,rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2,d4,d2d4");
    assert_eq!(stats.games_with_errors, 0);
}

/// Games that share positions: the start, transpositions, repetitions, ep squares that differ
/// only in "always" mode.
fn repeats() -> String {
    let games = [
        "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 *",
        "1. e4 e5 2. Nf3 Nc6 *",
        "1. Nf3 Nc6 2. e4 e5 *",
        "1. e4 d5 2. Nf3 Nf6 *",
        "1. Nf3 Nf6 2. e4 d5 *",
        "1. e4 *",
    ];
    (0..40).map(|i| format!("[Event \"{i}\"]\n\n{}\n\n", games[i % games.len()])).collect()
}

#[test]
fn unique_is_exact_and_the_same_at_any_thread_count() {
    let pgn = repeats();
    let u = PositionsOptions { unique: true, ..opts(Format::Fen) };
    let (one, _, _) = positions(&pgn, &u, 1, 1 << 20);
    let mut seen = HashSet::new();
    // Distinct FENs without the clocks == distinct positions here.
    let mut expected = String::new();
    for l in positions(&pgn, &opts(Format::Fen), 1, 1 << 20).0.lines() {
        let key: Vec<&str> = l.split(' ').take(4).collect();
        if seen.insert(key.join(" ")) {
            expected.push_str(l);
            expected.push('\n');
        }
    }
    assert_eq!(one, expected);
    assert_eq!(one.lines().count(), 4 + 4 + 2 + 3 + 1, "{one}");
    for (threads, chunk) in [(2, 1 << 20), (2, 60), (3, 200), (1, 60)] {
        assert_eq!(positions(&pgn, &u, threads, chunk).0, one, "threads {threads} chunk {chunk}");
    }
    // Other formats carry the same records.
    let uj = PositionsOptions { unique: true, ..opts(Format::Jsonl) };
    assert_eq!(positions(&pgn, &uj, 2, 60).0.lines().count(), 14);
}

#[test]
fn every_format_is_the_same_at_any_thread_count() {
    let pgn = GAMES.repeat(30) + &repeats();
    for format in [Format::Fen, Format::Epd, Format::Jsonl, Format::Csv] {
        for skip_errors in [false, true] {
            let o = PositionsOptions { skip_errors, tags: vec!["White".into()], ..opts(format) };
            let o = if format == Format::Fen || format == Format::Epd {
                PositionsOptions { tags: vec![], ..o }
            } else {
                o
            };
            let one = positions(&pgn, &o, 1, 1 << 20);
            for (threads, chunk) in [(2, 100), (2, 1000), (3, 333)] {
                let many = positions(&pgn, &o, threads, chunk);
                assert_eq!(many.0, one.0, "{format:?} threads {threads} chunk {chunk}");
                assert_eq!(many.1, one.1);
                assert_eq!(many.2, one.2);
            }
        }
    }
}

/// `--unique` past the positions held in memory writes what the whole set in memory writes:
/// the records in every format, a shard's keys part, and each input's count; with a set of
/// room 1, 5 and 40 (runs deferred from the first new position, from within a chunk, or
/// never), two inputs, chunks of a few games on two threads.
#[test]
fn unique_past_the_memory_bound_writes_what_the_whole_set_writes() {
    use crate::columnar::read::TableReader;
    use crate::jobs::run::{RunOptions, run};
    let dir = tempfile::tempdir().expect("temp dir");
    let inputs: Vec<std::path::PathBuf> = (0..2)
        .map(|i| {
            let path = dir.path().join(format!("in{i}.pgn"));
            let pgn = if i == 0 {
                repeats() + &GAMES.repeat(3)
            } else {
                // Repeats of the first input's positions, and new ones.
                GAMES.to_string() + &repeats().replace("Nf3", "Nc3").replace("Nf6", "Nc6") + &repeats()
            };
            std::fs::write(&path, pgn).expect("write input");
            path
        })
        .collect();
    let run_opts = RunOptions { threads: 2, chunk_size: 150, no_mmap: false };
    for format in [Format::Fen, Format::Csv, Format::Parquet] {
        let opts = PositionsOptions { unique: true, tags: vec!["Event".into()], ..opts(format) };
        let job = Positions::new(opts).expect("columns");
        let mut outputs = Vec::new();
        for room in [usize::MAX, 40, 5, 1] {
            let path = dir.path().join(format!("out-{room}"));
            let create = |p: &std::path::Path| Out::create(p, &Default::default()).expect("create");
            let keys_path = dir.path().join(format!("keys-{room}"));
            let writer = Writer::part(&job, create(&path), std::io::sink()).expect("writer");
            let keys = Some(create(&keys_path));
            let mut writer = writer.keys(keys).expect("keys").holding(room);
            let mut summary = run(&job, &inputs, &run_opts, &NoProgress, &mut writer).expect("run");
            let deferred = writer.deferred.as_ref().map_or(0, |(d, _)| d.len());
            writer.finish(&mut summary).expect("finish");
            let counts: Vec<u64> =
                summary.inputs.iter().map(|i| i.stats.get(Counter::PositionsWritten)).collect();
            assert_eq!(counts.iter().sum::<u64>(), summary.stats.get(Counter::PositionsWritten));
            let records = match format {
                Format::Parquet => {
                    let table = TableReader::new(std::fs::File::open(&path).expect("open")).expect("table");
                    let batches: Vec<Batch> =
                        (0..table.groups()).map(|g| table.group(g).expect("group")).collect();
                    format!("{batches:?}").into_bytes()
                }
                _ => std::fs::read(&path).expect("read back"),
            };
            let keys = std::fs::read(&keys_path).unwrap_or_default();
            outputs.push((room, deferred, records, keys, counts));
        }
        let (_, none, whole, whole_keys, whole_counts) = &outputs[0];
        assert_eq!(*none, 0);
        assert!(whole_counts.iter().all(|&c| c > 0), "{whole_counts:?}");
        for (room, deferred, records, keys, counts) in &outputs[1..] {
            assert!(*room == 40 || *deferred > 0, "{format:?}: room {room} deferred records");
            assert_eq!(records, whole, "{format:?}: room {room}");
            assert_eq!(keys, whole_keys, "{format:?}: room {room}");
            assert_eq!(counts, whole_counts, "{format:?}: room {room}");
        }
    }
}

/// A stop asked for while the records that waited past `--unique`'s bound are written: the
/// writer fails with `Interrupted` and its output file is not put in place.
#[test]
fn a_stop_while_the_waiting_records_are_written_leaves_no_file() {
    use crate::jobs::run::{RunOptions, run};
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("in.pgn");
    std::fs::write(&input, repeats() + GAMES).expect("write input");
    let job = Positions::new(PositionsOptions { unique: true, ..opts(Format::Fen) }).expect("job");
    let path = dir.path().join("out.fen");
    let out = Out::create(&path, &Default::default()).expect("create");
    let mut writer =
        Writer::new(&job, out, std::io::sink()).expect("writer").holding(1).interruptible(|| true);
    let run_opts = RunOptions { threads: 1, chunk_size: 1 << 20, no_mmap: false };
    let mut summary = run(&job, &[input], &run_opts, &NoProgress, &mut writer).expect("run");
    assert!(writer.deferred.is_some(), "records waited");
    assert!(matches!(writer.finish(&mut summary), Err(Error::Interrupted)));
    assert!(!path.exists(), "no output put in place");
}

/// `plies` plies of knights going out and back (`Nf3 Nf6 Ng1 Ng8`), then `tail`.
fn shuffle_game(event: &str, plies: usize, tail: &str) -> String {
    let moves = ["Nf3", "Nf6", "Ng1", "Ng8"];
    let text: Vec<&str> = (0..plies).map(|i| moves[i % 4]).collect();
    format!("[Event \"{event}\"]\n[White \"W\"]\n\n{} {tail} *\n\n", text.join(" "))
}

/// What `job` writes of `pgn` (text, or the table's rows) at `threads` threads and chunks of
/// `chunk` bytes, and the most records and bytes a released chunk held in memory.
fn spilled_run(pgn: &str, job: &Positions, threads: usize, chunk: usize) -> (Vec<u8>, Batch, (u64, usize)) {
    let (mut bytes, mut table, mut held) = (Vec::new(), Batch::new(job.schema()), (0, 0));
    let mut unique = job.options().unique.then(Unique::new);
    let (workers, pipeline) = (Workers::default(), Options { threads, chunk_size: chunk });
    let run_ = Run { name: &"t.pgn".into(), job, workers: &workers, opts: &pipeline, observer: &NoProgress };
    let mut part = PositionsChunk { table: Batch::new(job.schema()), ..PositionsChunk::default() };
    run(Input::Slice(pgn.as_bytes()), &run_, |mut o| {
        held =
            (held.0.max(o.records.records), held.1.max(o.records.bytes.len() + o.records.table.text_bytes()));
        spill::for_each_part(&mut o.records, &mut part, |p| {
            let mut write = |r: std::ops::Range<usize>| {
                if job.options().format == Format::Parquet {
                    table.extend_from(&p.table, r);
                } else {
                    bytes.extend_from_slice(&p.bytes[r]);
                }
                Ok::<(), Error>(())
            };
            match unique.as_mut() {
                Some(u) => u.filter(&p.keys, write).map(|_| ()),
                None => write(
                    0..if job.options().format == Format::Parquet { p.table.rows() } else { p.bytes.len() },
                ),
            }
        })
    })
    .expect("run");
    (bytes, table, held)
}

/// Records past the bound a chunk holds wait on disk: whatever a game's length, a chunk holds at
/// most the bound in memory, and the output is the same as with everything held, at any thread
/// count and cut, with games dropped at their end after some of their records were spilled
/// (`--skip-errors`, a filter on the game's length) and with `--unique`.
#[test]
fn records_past_the_bound_are_spilled_to_the_same_output() {
    let pgn = [
        shuffle_game("long", 600, ""),
        GAMES.to_string(),
        shuffle_game("illegal at the end", 700, "Ke2"),
        shuffle_game("longest", 1500, ""),
        shuffle_game("short", 3, ""),
    ]
    .concat();
    let (bound_bytes, bound_records) = (4096, 100);
    let select = Selection { max_ply: Some(1000), ..Selection::default() };
    for format in [Format::Fen, Format::Epd, Format::Jsonl, Format::Csv, Format::Parquet] {
        let variants = [
            opts(format),
            PositionsOptions { unique: true, ..opts(format) },
            PositionsOptions { skip_errors: true, ..opts(format) },
            PositionsOptions { select: select.clone(), tags: vec!["Event".into()], ..opts(format) },
        ];
        for o in variants {
            let held_all = Positions::new(o.clone()).expect("columns");
            let (bytes, table, held) = spilled_run(&pgn, &held_all, 1, 1 << 20);
            assert!(held.0 > 3 * bound_records, "{format:?}: the whole input in one chunk, {held:?}");
            assert!(bytes.len() + table.rows() > 0, "{format:?}: nothing written");
            let spilling = held_all.clone().spilling_at(bound_bytes, bound_records);
            for (threads, chunk) in [(1, 1 << 20), (2, 1 << 20), (2, 64), (1, 64)] {
                let (b, t, h) = spilled_run(&pgn, &spilling, threads, chunk);
                let what =
                    format!("{format:?} unique {} skip {} j{threads} chunk {chunk}", o.unique, o.skip_errors);
                assert!(b == bytes, "{what}: {} bytes against {}", b.len(), bytes.len());
                assert!(t == table, "{what}: {} rows against {}", t.rows(), table.rows());
                // A record's bytes over the bound: the record that reached it was spilled with it.
                assert!(h.0 < bound_records && h.1 < bound_bytes, "{what}: held {h:?}");
            }
        }
    }
}
