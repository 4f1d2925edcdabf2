//! `pgnkit perft`: counts, divide format, suites, errors.

use crate::util::{fixture, run, stderr, stdout, temp_dir};

#[test]
fn start_position_depth_4() {
    let o = run(&["perft", "4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "Nodes searched: 197281\n");
    assert!(stderr(&o).contains("nodes/s"));
}

#[test]
fn divide_lists_sorted_uci_moves_then_total() {
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let o = run(&["perft", "--fen", kiwipete, "2", "--divide"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let (moves, total) = text.split_once("\n\n").expect("blank line before the total");
    let rows: Vec<(&str, u64)> = moves
        .lines()
        .map(|l| {
            let (m, n) = l.split_once(": ").expect("move: count");
            (m, n.parse().expect("count"))
        })
        .collect();
    assert_eq!(rows.len(), 48);
    assert!(rows.windows(2).all(|w| w[0].0 < w[1].0), "sorted");
    assert!(rows.iter().any(|r| r.0 == "e1g1"), "standard castling written king-to-destination");
    assert_eq!(rows.iter().map(|r| r.1).sum::<u64>(), 2039);
    assert_eq!(total, "Nodes searched: 2039\n");
}

#[test]
fn variants() {
    let o = run(&["perft", "--variant", "crazyhouse", "3"]);
    assert_eq!(stdout(&o), "Nodes searched: 8902\n");
    let o = run(&["perft", "--fen", "2k5/8/8/8/8/8/8/4K3[QRBNPqrbnp] w - - 0 1", "2"]);
    assert_eq!(stdout(&o), "Nodes searched: 75353\n", "{}", stderr(&o));
    let o =
        run(&["perft", "--fen", "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", "3"]);
    assert_eq!(stdout(&o), "Nodes searched: 12189\n", "{}", stderr(&o));
}

#[test]
fn bad_input_is_a_usage_error() {
    for args in [
        &["perft", "--fen", "not a fen", "2"][..],
        &["perft", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1", "2"],
        &["perft", "x"],
        &["perft"],
        &["perft", "--variant", "antichess", "2"],
        // Deeper than the recursion's stack holds (it aborted at about 1,700 plies).
        &["perft", "2000"],
        &["perft", "--divide", "4294967295"],
        // Threads past the cap every command has (it started thousands).
        &["perft", "-j", "4294967295", "--divide", "1"],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("error"), "{args:?}");
    }
}

/// A suite's count deeper than perft goes is that case's failure, and the other counts are
/// checked.
#[test]
fn a_suite_depth_beyond_the_cap_fails_its_case() {
    let dir = temp_dir("perft-deep");
    let suite = dir.join("deep.epd");
    std::fs::write(&suite, "k7/8/8/8/8/8/8/7K w - - ;D1 3 ;D2000 1\n").expect("write");
    let o = run(&["perft", "--suite", suite.to_str().expect("UTF-8")]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("perft 2000 is deeper than 128") && out.contains("1 passed, 1 failed"), "{out}");
}

/// Every suite under `fixtures/perft/` (the random one compressed).
const SUITES: [&str; 10] = [
    "tricky.perft",
    "crazyhouse.perft",
    "chess960.perft",
    "chess960-first100.perft",
    "perftsuite.epd",
    "chriswhittington_perft.epd",
    "frankwalter_perftsuite.epd",
    "scalachess_x-fen.perft",
    "impossible-checker.perft",
    "random.perft.zst",
];

fn suite(file: &str, max_nodes: &str) {
    let path = fixture(&format!("perft/{file}"));
    let o = run(&["perft", "--suite", path.to_str().expect("utf-8 path"), "--max-nodes", max_nodes]);
    let out = stdout(&o);
    assert!(o.status.success(), "{file}: {out}{}", stderr(&o));
    let last = out.lines().last().expect("summary line");
    assert!(last.ends_with(" passed, 0 failed"), "{file}: {last}");
    assert!(!last.starts_with("0 passed"), "{file} checked nothing");
}

#[test]
fn suites_pass_node_limited() {
    for file in SUITES {
        suite(file, "200000");
    }
}

#[test]
#[ignore = "full depth: minutes; run with --ignored"]
fn suites_pass_full_depth() {
    for file in SUITES {
        suite(file, "100000000000");
    }
}

#[test]
fn failing_suite_exits_1_and_names_the_case() {
    let dir = temp_dir("perft");
    let path = dir.join("wrong.epd");
    std::fs::write(&path, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 401\n")
        .expect("write");
    let o = run(&["perft", "--suite", path.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("perft 2 = 400, expected 401"), "{out}");
    assert!(out.ends_with("1 passed, 1 failed\n"), "{out}");

    // Cases run in parallel, a slow one first; failures are reported in suite order.
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let suite: String = (0..8)
        .map(|i| {
            let fen = if i == 0 { kiwipete } else { "4k3/8/8/8/8/8/8/4K2R w K - 0 1" };
            let depth = if i == 0 { 4 } else { 1 };
            format!("{fen} ;D{depth} {}\n", 1_000_000 + i)
        })
        .collect();
    std::fs::write(&path, suite).expect("write");
    for threads in ["1", "2", "4"] {
        let o = run(&["perft", "--suite", path.to_str().expect("utf-8"), "-j", threads]);
        assert_eq!(o.status.code(), Some(1));
        let expected: Vec<String> = (0..8).map(|i| format!("expected {}", 1_000_000 + i)).collect();
        let got: Vec<String> = stdout(&o)
            .lines()
            .filter(|l| l.starts_with("FAIL"))
            .filter_map(|l| l.split(", ").nth(1))
            .map(|s| s.split(" (").next().unwrap_or(s).to_string())
            .collect();
        assert_eq!(got, expected, "-j {threads}: {}", stdout(&o));
    }
}
