//! `clean --dedup` and `positions --unique` under `--shard`: each shard sets aside the repeats
//! among its own games (positions) and writes a keys part; `merge` settles the repeats that lie
//! in different shards. Merged, the outputs, duplicates and reports are one run's, byte for
//! byte, over fixtures whose repeats cross shards, the fixtures, and shared collections.

use std::path::{Path, PathBuf};

use crate::shard::{fixture_inputs, merge_fails, path, read, same_as_one_run};
use crate::util::{fixture, run, shared_data, stderr, temp_dir};

const COUNTS: [u64; 3] = [2, 3, 5];

/// The fixtures whose repeats and shorter records lie in different shards, and the fixtures
/// after them.
fn inputs() -> Vec<PathBuf> {
    let mut inputs = vec![fixture("shard/cross_dedup.pgn"), fixture("shard/cross_prefix.pgn")];
    inputs.extend(fixture_inputs());
    inputs
}

#[test]
fn clean_dedup_shards_merge_to_one_run() {
    let outputs = [
        ("-o", "out.pgn"),
        ("--duplicates", "dups.pgn"),
        ("--rejects", "rej.pgn"),
        ("--report", "report.jsonl"),
    ];
    let cross = [fixture("shard/cross_dedup.pgn"), fixture("shard/cross_prefix.pgn")];
    for rule in ["--dedup", "--dedup=moves", "--dedup=prefix"] {
        let name = format!("dedup-{}", rule.trim_start_matches("--"));
        same_as_one_run(&format!("{name}-cross"), &["clean", rule], &cross, &outputs, &COUNTS, &["1"]);
        same_as_one_run(&name, &["clean", rule], &inputs(), &outputs, &COUNTS, &["1", "2"]);
    }
    // Without a duplicates file, and compressed outputs.
    let outputs = [("-o", "out.pgn.zst"), ("--report", "report.jsonl")];
    same_as_one_run(
        "dedup-report",
        &["clean", "--dedup", "--keep-broken"],
        &inputs(),
        &outputs,
        &[3],
        &["2"],
    );
    let outputs = [("-o", "out.pgn.gz"), ("--duplicates", "dups.pgn.zst")];
    same_as_one_run("dedup-compressed", &["clean", "--dedup"], &inputs(), &outputs, &[2, 5], &["2"]);
    let outputs = [("-o", "out.pgn.zst"), ("--report", "report.jsonl")];
    let args = ["clean", "--dedup=prefix", "--keep-broken"];
    same_as_one_run("prefix-report", &args, &inputs(), &outputs, &[3], &["2"]);
    // With the options that change what a game writes or whether it is compared.
    let outputs =
        [("-o", "out.pgn"), ("--duplicates", "dups.pgn"), ("--rejects", "rej.pgn"), ("--report", "r.jsonl")];
    let args = [
        "clean",
        "--dedup=prefix",
        "--eco-tags",
        "all",
        "--add-tags",
        "PlyCount",
        "--strip",
        "comments",
        "--fix-results",
        "--reject-null-moves",
        "--where",
        "Result != 1/2-1/2",
    ];
    same_as_one_run("prefix-options", &args, &inputs(), &outputs, &[2, 4], &["2"]);
}

/// Runs `clean` with `rule` (`--dedup`, ...) as `n` shards of `input` in `dir`; the manifests.
fn dedup_shards(dir: &Path, rule: &str, input: &Path, n: u64) -> Vec<PathBuf> {
    let out = dir.join("out.pgn");
    (0..n)
        .map(|i| {
            let spec = format!("{i}/{n}");
            let (dups, report) = (dir.join("dups.pgn"), dir.join("r.jsonl"));
            let args = ["clean", "-q", rule, "--shard", &spec, "-o", path(&out)];
            let mut args = args.to_vec();
            args.extend(["--duplicates", path(&dups), "--report", path(&report), path(input)]);
            let o = run(&args);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            let spec = pgnkit::shard::Spec::new(i, n).expect("spec");
            pgnkit::shard::manifest_path(&pgnkit::shard::part_path(&out, None, spec))
        })
        .collect()
}

/// The fixture's repeats do cross the two shards: merge moves games both ways and renames the
/// game a repeat repeats; a changed or missing keys part is named, nothing written.
#[test]
fn merge_settles_repeats_in_other_shards() {
    let dir = temp_dir("shard-dedup-settle");
    let set = dedup_shards(&dir, "--dedup", &fixture("shard/cross_dedup.pgn"), 2);
    let part = |name: &str, i: u64| {
        let spec = pgnkit::shard::Spec::new(i, 2).expect("spec");
        String::from_utf8(read(&pgnkit::shard::part_path(&dir.join(name), None, spec))).expect("UTF-8")
    };
    let (out0, out1) = (part("out.pgn", 0), part("out.pgn", 1));
    assert!(out0.contains("1983.07.??") && !out0.contains("1983.08.??"), "the first shard: {out0}");
    assert!(out1.contains("1983.??.??") && !out1.contains("1983.08.??"), "the second shard: {out1}");
    // The second shard starts at the input's third game, and names the games as one run does.
    let own: Vec<(u64, u64)> =
        duplicates(&part("r.jsonl", 1)).into_iter().map(|(g, _, of)| (g, of)).collect();
    assert_eq!(own, [(4, 3), (5, 3), (6, 3)]);
    let o = run(&["merge", "-q", path(&set[0]), path(&set[1])]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = |name: &str| String::from_utf8(read(&dir.join(name))).expect("UTF-8");
    let (out, dups) = (text("out.pgn"), text("dups.pgn"));
    // Written once, by the first shard; set aside by the second, first in the run; first in
    // the second, a repeat in the run.
    assert!(out.contains("1983.07.??") && out.contains("1983.08.??") && !out.contains("1983.??.??"), "{out}");
    assert!(dups.contains("1983.??.??") && !dups.contains("1983.08.??"), "{dups}");
    let report = text("r.jsonl");
    let of: Vec<(u64, u64)> = duplicates(&report).into_iter().map(|(game, _, of)| (game, of)).collect();
    assert_eq!(of, [(3, 2), (5, 4), (6, 2), (7, 1)], "{report}");
    for f in ["out.pgn", "dups.pgn", "r.jsonl"] {
        std::fs::remove_file(dir.join(f)).expect("rm");
    }
    // A keys part changed, or gone.
    let keys = dir.join("out.pgn.keys.part-1-of-2");
    let bytes = std::fs::read(&keys).expect("keys part");
    let mut changed = bytes.clone();
    let last = changed.len() - 1;
    changed[last] ^= 1;
    std::fs::write(&keys, &changed).expect("write");
    merge_fails(&dir, &set, "shard 1/2's keys part changed");
    std::fs::remove_file(&keys).expect("rm");
    merge_fails(&dir, &set, "rerun shard 1");
}

/// Parts cut short (a copy stopped midway) are each named with the shard to rerun, whether the
/// cut part is a keys part or one that settling edits, all in one merge.
#[test]
fn merge_names_every_part_cut_short_among_settled_shards() {
    let dir = temp_dir("shard-dedup-cut");
    let set = dedup_shards(&dir, "--dedup", &fixture("shard/cross_dedup.pgn"), 2);
    let cut = |name: &str| {
        let at = dir.join(name);
        let len = std::fs::metadata(&at).expect("part").len();
        std::fs::File::options().write(true).open(&at).expect("open").set_len(len - 5).expect("cut");
    };
    // The second shard's duplicates, of which merge moves a game to the output.
    cut("dups.pgn.part-1-of-2");
    merge_fails(&dir, &set, "dups.pgn.part-1-of-2: shard 1/2's part changed since it was written");
    merge_fails(&dir, &set, "rerun shard 1");
    // And a keys part of the first shard: both named at once.
    cut("out.pgn.keys.part-0-of-2");
    let both =
        ["out.pgn.keys.part-0-of-2: shard 0/2's", "rerun shard 0", "dups.pgn.part-1-of-2: shard 1/2's"];
    for says in both {
        merge_fails(&dir, &set, says);
    }
}

/// The duplicate records of a report: each game, the rule, the game it repeats.
fn duplicates(report: &str) -> Vec<(u64, String, u64)> {
    report
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|r| r["type"] == "duplicate")
        .map(|r| {
            let d = &r["data"];
            let rule = d["rule"].as_str().unwrap_or_default().to_string();
            (d["game"].as_u64().unwrap_or(0), rule, d["of"]["game"].as_u64().unwrap_or(0))
        })
        .collect()
}

/// `--dedup=prefix` shards: the longest record may lie in another shard than its shorter
/// ones. The fixture's shards each keep their own longest records; merge moves the shorter
/// ones of the other shard to the duplicates, names the longer game a shard's shorter record
/// was set aside for when another shard holds a longer one still, and writes what one run
/// writes.
#[test]
fn merge_settles_shorter_records_in_other_shards() {
    let dir = temp_dir("shard-dedup-prefix");
    let input = fixture("shard/cross_prefix.pgn");
    let set = dedup_shards(&dir, "--dedup=prefix", &input, 2);
    let part = |name: &str, i: u64| {
        let spec = pgnkit::shard::Spec::new(i, 2).expect("spec");
        String::from_utf8(read(&pgnkit::shard::part_path(&dir.join(name), None, spec))).expect("UTF-8")
    };
    let games = |text: &str| text.matches("[Event ").count();
    assert_eq!((games(&part("out.pgn", 0)), games(&part("out.pgn", 1))), (4, 5), "each shard's own");
    // The second shard's own verdicts, its games numbered in the input, as one run numbers them.
    let own = duplicates(&part("r.jsonl", 1));
    assert_eq!(own, [(8, "prefix".to_string(), 9), (11, "prefix".to_string(), 6)]);
    let o = run(&["merge", "-q", path(&set[0]), path(&set[1])]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report = String::from_utf8(read(&dir.join("r.jsonl"))).expect("UTF-8");
    let found = duplicates(&report);
    let v: Vec<(u64, &str, u64)> = found.iter().map(|(g, r, o)| (*g, r.as_str(), *o)).collect();
    // Games 1 and 3, written by the first shard, are shorter records of games of the second;
    // 7 repeats the first shard's 4; 8, a shorter record of the second shard's 9 there, and 9
    // are shorter records of the first shard's 2; 11 repeats 1, a shorter record of 6.
    let want = [
        (1, "prefix", 6),
        (3, "prefix", 10),
        (7, "game", 4),
        (8, "prefix", 2),
        (9, "prefix", 2),
        (11, "prefix", 6),
    ];
    assert_eq!(v, want, "{report}");
    let out = String::from_utf8(read(&dir.join("out.pgn"))).expect("UTF-8");
    assert_eq!(games(&out), 5, "{out}");
    same_as_one_run(
        "prefix-cross",
        &["clean", "--dedup=prefix"],
        &[input],
        &[("-o", "out.pgn"), ("--duplicates", "dups.pgn"), ("--report", "report.jsonl")],
        &[2, 3, 5],
        &["1", "2"],
    );
}

/// The games of `texts`, each followed, for two games in three, by one or two records of it cut
/// short at a pseudo-random ply (the result `*` or the game's own, for one in five at another
/// `Site`), all shuffled: the shorter records of a game lie anywhere, before it or after it.
fn cut_broadcasts(texts: &[String], seed: u64) -> String {
    let mut state = seed;
    let mut next = move |n: u64| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) % n.max(1)
    };
    let mut games = Vec::new();
    for text in texts {
        for game in text.split("\n\n[Event ").filter(|g| !g.trim().is_empty()) {
            let game = format!("[Event {}", game.trim().trim_start_matches("[Event "));
            let Some((head, movetext)) = game.split_once("\n\n") else { continue };
            games.push(game.clone());
            if next(3) == 0 {
                continue;
            }
            // The mainline's moves: no comment, move number, NAG, variation or result.
            let mut moves = Vec::new();
            let (mut comment, mut depth) = (false, 0);
            for token in movetext.split_whitespace() {
                let (open, close) = (token.starts_with('{'), token.ends_with('}'));
                if comment || open {
                    comment = !close;
                    continue;
                }
                depth += token.matches('(').count();
                let inside = depth > 0;
                depth = depth.saturating_sub(token.matches(')').count());
                let san = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
                if inside
                    || san.is_empty()
                    || san.starts_with('$')
                    || ["1-0", "0-1", "1/2-1/2", "*"].contains(&san)
                {
                    continue;
                }
                moves.push(san.to_string());
            }
            let result = head.split("[Result \"").nth(1).and_then(|r| r.split('"').next()).unwrap_or("*");
            for _ in 0..1 + next(2) {
                let plies = next(moves.len() as u64 + 1) as usize;
                let result = if next(2) == 0 { "*" } else { result };
                let mut head = head.to_string();
                if let Some(at) = head.find("[Result \"") {
                    let end = head[at..].find(']').map_or(head.len(), |e| at + e + 1);
                    head.replace_range(at..end, &format!("[Result \"{result}\"]"));
                }
                if next(5) == 0
                    && let Some(at) = head.find("[Site \"")
                {
                    let end = head[at..].find(']').map_or(head.len(), |e| at + e + 1);
                    head.replace_range(at..end, "[Site \"Elsewhere\"]");
                }
                games.push(format!("{head}\n\n{} {result}", moves[..plies].join(" ")));
            }
        }
    }
    for i in (1..games.len()).rev() {
        games.swap(i, next(i as u64 + 1) as usize);
    }
    games.join("\n\n") + "\n"
}

/// `--dedup=prefix` over broadcasts cut short and shuffled: shorter records of many games lie in
/// other shards than their longest record; merged, the shards write what one run writes. The
/// fixtures' games always; the shared TWIC and lichess samples too, where they are.
#[test]
fn prefix_shards_of_cut_broadcasts_merge_to_one_run() {
    let dir = temp_dir("shard-cut-broadcasts");
    let mut sources = vec![fixture("pgn/twic1599_10k.pgn"), fixture("pgn/lichess_db_10k.pgn")];
    if let Some(data) = shared_data() {
        sources.extend(["games/twic1599_100k.pgn", "games/lichess_db_100k.pgn"].map(|f| data.join(f)));
    }
    let texts: Vec<String> = sources.iter().map(|p| String::from_utf8_lossy(&read(p)).into_owned()).collect();
    let input = dir.join("cut.pgn");
    std::fs::write(&input, cut_broadcasts(&texts, 7)).expect("write");
    // The one run finds shorter records, or the test shows nothing.
    let report = dir.join("r.jsonl");
    let o = run(&[
        "clean",
        "-q",
        "--dedup=prefix",
        "-o",
        path(&dir.join("o.pgn")),
        "--report",
        path(&report),
        path(&input),
    ]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let shorter = duplicates(&String::from_utf8(read(&report)).expect("UTF-8"))
        .iter()
        .filter(|d| d.1 == "prefix")
        .count();
    assert!(shorter > 10, "{shorter} shorter records");
    let outputs = [("-o", "out.pgn"), ("--duplicates", "dups.pgn"), ("--report", "report.jsonl")];
    same_as_one_run("prefix-cut", &["clean", "--dedup=prefix"], &[input], &outputs, &[2, 3, 7], &["1", "2"]);
}

#[test]
fn positions_unique_shards_merge_to_one_run() {
    let inputs = inputs();
    for format in ["fen", "epd", "jsonl"] {
        let args = ["positions", "--unique", "--format", format];
        same_as_one_run(&format!("unique-{format}"), &args, &inputs, &[("-o", "pos")], &COUNTS, &["1", "2"]);
    }
    let args = ["positions", "--unique", "--format", "csv", "--tags", "White,Black", "--min-ply", "4"];
    same_as_one_run("unique-csv", &args, &inputs, &[("-o", "pos.csv.zst")], &COUNTS, &["2"]);
    // A table's rows: the keys part gives each position's one row.
    let args = ["positions", "--unique", "--format", "parquet", "--tags", "White,Black"];
    same_as_one_run("unique-parquet", &args, &inputs, &[("-o", "pos.parquet")], &COUNTS, &["1", "2"]);
}

/// Shared collections: TWIC issues and master games (many repeats across them), lichess games.
#[test]
fn dedup_and_unique_shards_of_shared_collections_merge_to_one_run() {
    let Some(data) = shared_data() else { return };
    let games = data.join("games");
    let inputs = vec![
        games.join("twic1599_1000k.pgn"),
        games.join("twic0920.pgn.zst"),
        games.join("pgnmentor_Carlsen.pgn.zst"),
        games.join("chesscom_magnuscarlsen_live_2014.pgn.zst"),
        games.join("twic1599_100k.pgn"),
    ];
    let outputs = [("-o", "out.pgn"), ("--duplicates", "dups.pgn"), ("--report", "report.jsonl")];
    for rule in ["--dedup", "--dedup=moves", "--dedup=prefix"] {
        let name = format!("shared-{}", rule.trim_start_matches("--"));
        same_as_one_run(&name, &["clean", rule], &inputs, &outputs, &COUNTS, &["2"]);
    }
    let inputs = vec![games.join("lichess_db_1000k.pgn"), games.join("twic1599_1000k.pgn")];
    let args = ["positions", "--unique", "--format", "epd"];
    same_as_one_run("shared-unique", &args, &inputs, &[("-o", "p.epd")], &COUNTS, &["2"]);
}

/// `merge` of `clean --dedup` shards past the distinct games it holds in memory (none, a few,
/// many): the games past them wait, judged key by key, and their keys parts are read again; the
/// merged output, duplicates, rejects and report are the bytes of a merge holding every game,
/// under both rules, for repeats within and across three shards.
#[test]
fn merge_past_the_memory_bound_settles_as_the_whole_set() {
    let dir = temp_dir("shard-dedup-held");
    // The fixtures twice over, with the crossing repeats: every game repeats one in another shard.
    let input = dir.join("in.pgn");
    let mut text = Vec::new();
    for _ in 0..2 {
        for p in inputs() {
            text.extend(read(&p));
            text.extend_from_slice(b"\n\n");
        }
    }
    std::fs::write(&input, text).expect("write");
    for rule in ["--dedup", "--dedup=moves"] {
        let at = dir.join(rule.trim_start_matches("--"));
        std::fs::create_dir_all(&at).expect("dir");
        let out = at.join("out.pgn");
        let manifests: Vec<PathBuf> = (0..3)
            .map(|i| {
                let spec = format!("{i}/3");
                let args = ["clean", "-q", rule, "--shard", &spec, "--chunk-kib", "1", "-o", path(&out)];
                let mut args = args.to_vec();
                let (dups, rejects, report) = (at.join("dups.pgn"), at.join("rej.pgn"), at.join("r.jsonl"));
                args.extend(["--duplicates", path(&dups), "--rejects", path(&rejects)]);
                args.extend(["--report", path(&report), path(&input)]);
                let o = run(&args);
                assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
                let spec = pgnkit::shard::Spec::new(i, 3).expect("spec");
                pgnkit::shard::manifest_path(&pgnkit::shard::part_path(&out, None, spec))
            })
            .collect();
        let merged = |held: usize| {
            let to = at.join(format!("held-{held}"));
            let m = pgnkit::shard::merge::merge_holding(&manifests, None, Some(&to), &|| false, held)
                .unwrap_or_else(|r| panic!("{rule}, held {held}: {:?}", r.problems));
            let files: Vec<Vec<u8>> =
                ["out.pgn", "dups.pgn", "rej.pgn", "r.jsonl"].iter().map(|f| read(&to.join(f))).collect();
            (files, m.summary.stats)
        };
        let (whole, stats) = merged(usize::MAX);
        assert!(whole.iter().all(|f| !f.is_empty()), "{rule}: every file has games");
        // Every game written is repeated in the second copy.
        let count = |c| stats.get(c);
        use pgnkit::pipeline::counter::Counter;
        assert!(count(Counter::Duplicates) >= count(Counter::Written), "{rule}: {stats:?}");
        for held in [0, 3, 60] {
            let (files, held_stats) = merged(held);
            for (k, name) in ["out.pgn", "dups.pgn", "rej.pgn", "r.jsonl"].iter().enumerate() {
                assert!(files[k] == whole[k], "{rule}, held {held}: {name} differs");
            }
            assert_eq!(format!("{held_stats:?}"), format!("{stats:?}"), "{rule}, held {held}");
        }
    }
}

/// More games sharing moves, result and every word of the players' names than `--dedup`
/// compares a game with (one engine pair replaying one line, round after round; the boards of a
/// round, `Player W1` against `Player B1`, whose names differ only by digits): one run counts and
/// warns of the games compared with only the latest of them, `prefix` as many as `game` (no game
/// is a shorter record of another), and the shards merged count as many, whatever shard each
/// game fell in; a crowd just under the bound is not counted at all, one game over it counts that game.
#[test]
fn games_compared_in_part_are_counted_by_merge_as_by_one_run() {
    let dir = temp_dir("shard-dedup-crowd");
    let engines = |round: usize| {
        format!(
            "[Event \"Match\"]\n[Round \"{round}\"]\n[White \"Engine Alpha\"]\n[Black \"Engine Beta\"]\n\
             [Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3 Nc6 1/2-1/2\n\n"
        )
    };
    let board = |b: usize| {
        format!(
            "[Event \"Open\"]\n[Date \"2024.05.01\"]\n[Round \"1.{b}\"]\n[White \"Player W{b}\"]\n\
             [Black \"Player B{b}\"]\n[Result \"0-1\"]\n\n1. d4 d5 0-1\n\n"
        )
    };
    // A game is compared one by one with the latest 64, through the index with 1,024 more.
    let bound = 64 + 1024 + 1;
    let warning = |n: usize| format!("warning: --dedup: {n} games were compared with only the latest 1024 ");
    let warning_of = |n: usize| match n {
        0 => "compared with only the latest".to_string(),
        1 => "warning: --dedup: 1 game was compared with only the latest 1024 ".to_string(),
        n => warning(n),
    };
    let crowds = [
        ("engines", (1..=1200).map(engines).collect::<String>(), 1200),
        ("under", (0..bound).map(board).collect(), bound),
        ("over", (0..=bound).map(board).collect(), bound + 1),
    ];
    let outputs = [("-o", "out.pgn"), ("--report", "report.jsonl")];
    for (crowd, pgn, games) in crowds {
        let input = dir.join(format!("{crowd}.pgn"));
        std::fs::write(&input, pgn).expect("write");
        let n = games.saturating_sub(bound);
        for rule in ["--dedup", "--dedup=prefix"] {
            let name = format!("{crowd}-{}", rule.trim_start_matches("--"));
            if crowd == "engines" {
                same_as_one_run(
                    &name,
                    &["clean", rule],
                    std::slice::from_ref(&input),
                    &outputs,
                    &[3],
                    &["1", "2"],
                );
            }
            let o = run(&["clean", "-q", rule, path(&input), "-o", path(&dir.join("one.pgn"))]);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            assert_eq!(stderr(&o).contains(&warning_of(n)), n > 0, "{crowd} {rule}: {}", stderr(&o));
            let at = dir.join(&name);
            std::fs::create_dir_all(&at).expect("dir");
            let manifests = dedup_shards(&at, rule, &input, 3);
            let mut args = vec!["merge", "-q"];
            args.extend(manifests.iter().map(|m| path(m)));
            let o = run(&args);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            assert_eq!(stderr(&o).contains(&warning_of(n)), n > 0, "{crowd} {rule}, merged: {}", stderr(&o));
        }
    }
}
