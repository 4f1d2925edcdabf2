//! `clean --report` on games with more repairs of a kind than it logs: every repair is counted
//! in the ledger, a game logs its first 100 of each kind, and one `unreported` record a kind
//! gives the count of the rest; the same through `--dedup=prefix`'s waiting games and a sharded
//! run merged.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::shard::{path, same_as_one_run};
use crate::util::{run, stderr, temp_dir};

/// Per kind: the ledger's count, the repair records, and the count the `unreported` records
/// give, over the whole report at `report`.
fn tally(report: &Path) -> BTreeMap<String, (u64, u64, u64)> {
    let text = std::fs::read_to_string(report).expect("report");
    let mut kinds: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
    for line in text.lines() {
        let r: Value = serde_json::from_str(line).expect("JSON");
        let data = &r["data"];
        match r["type"].as_str() {
            Some("repair") => kinds.entry(data["kind"].as_str().expect("kind").into()).or_default().1 += 1,
            Some("unreported") => {
                let n = data["count"].as_u64().expect("count");
                kinds.entry(data["kind"].as_str().expect("kind").into()).or_default().2 += n;
            }
            Some("summary") => {
                for (kind, n) in data["ledger"]["repairs"].as_object().expect("repairs") {
                    kinds.entry(kind.clone()).or_default().0 = n.as_u64().expect("a count");
                }
            }
            _ => {}
        }
    }
    kinds
}

/// Cleans `input` with `args` at 1 and 2 threads (the same report), and tallies its report.
fn clean(input: &Path, args: &[&str]) -> BTreeMap<String, (u64, u64, u64)> {
    let dir = input.parent().expect("a directory");
    let mut tallies = Vec::new();
    for j in ["1", "2"] {
        let report = dir.join(format!("report-{j}.jsonl"));
        let mut a = vec!["clean", "-q", "-j", j, path(input), "-o", "/dev/null", "--report", path(&report)];
        a.extend_from_slice(args);
        let o = run(&a);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        tallies.push(tally(&report));
    }
    assert_eq!(tallies[0], tallies[1], "-j1 and -j2");
    tallies.remove(0)
}

/// F7's game: a million words between two moves are a million `syntax` repairs in the ledger
/// (as `check` counts a million warnings), 100 logged, and the count of the others.
#[test]
fn a_million_skipped_words_are_counted_and_a_hundred_logged() {
    let dir = temp_dir("clean-repairs-words");
    let input = dir.join("words.pgn");
    std::fs::write(&input, format!("[Event \"x\"]\n\n1. e4 {}e5 *\n", "TN ".repeat(1_000_000)))
        .expect("write");
    let kinds = clean(&input, &[]);
    assert_eq!(kinds["syntax"], (1_000_000, 100, 999_900), "{kinds:?}");
}

/// Repeated tags, impossible dates, lines that are no tag pair and moves not in canonical SAN,
/// each past the 100 logged (and the reader problems of the tags past the 100 a game shows,
/// which are counted only): every one counted, at most 100 records a kind. The game's 3,302 tag
/// pairs are within its budget of 4,096.
#[test]
fn every_kind_logs_its_first_hundred_and_counts_the_rest() {
    let dir = temp_dir("clean-repairs-kinds");
    let input = dir.join("kinds.pgn");
    let mut text = String::from("[Event \"x\"]\n");
    text.push_str(&"[White \"w\"]\n".repeat(3_001));
    text.extend((0..300).map(|i| format!("[D{i}Date \"2023.02.30\"]\n")));
    text.extend((0..300).map(|i| format!("[Ev{i} Casual Game\"]\n")));
    text.push_str(&"\n1. Ng1-f3 Ng8-f6 2. Nf3-g1 Nf6-g8 ".repeat(40));
    text.push_str(&"TN ".repeat(250));
    text.push_str("*\n");
    std::fs::write(&input, text).expect("write");
    let kinds = clean(&input, &[]);
    assert_eq!(kinds["tag"], (3_300, 100, 3_200), "{kinds:?}");
    assert_eq!(kinds["date"], (300, 100, 200), "{kinds:?}");
    assert_eq!(kinds["san"], (160, 100, 60), "{kinds:?}");
    // Past the diagnostics the game shows: no message to log, the count.
    assert_eq!(kinds["syntax"], (250, 0, 250), "{kinds:?}");
    assert_eq!(kinds["roster"], (1, 1, 0), "{kinds:?}");
}

/// Games with 150 `syntax` repairs, each repeated: under `--dedup=prefix` (every game waits
/// for its verdict) the ledger counts the repairs of the games written, and sharded runs merged
/// (a verdict turned over takes its game's repairs off) give the single run's report.
#[test]
fn repairs_past_those_logged_count_through_dedup_and_merge() {
    let dir = temp_dir("clean-repairs-dedup");
    let input = dir.join("games.pgn");
    let game = |i: usize| format!("[White \"w{i}\"]\n\n1. e4 {}e5 2. Nf3 *\n\n", "TN ".repeat(150));
    let text: String = (0..4).chain(0..4).map(game).collect();
    std::fs::write(&input, text).expect("write");
    for rule in ["--dedup", "--dedup=prefix"] {
        let kinds = clean(&input, &[rule]);
        assert_eq!(kinds["syntax"], (600, 400, 200), "{rule}: {kinds:?}");
    }
    let outputs = [("-o", "out.pgn"), ("--report", "report.jsonl")];
    same_as_one_run("clean-repairs", &["clean", "--dedup"], &[input], &outputs, &[2, 3], &["1"]);
}
