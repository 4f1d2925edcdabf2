//! Evaluation cache tests: round trips, key separation, stale rows, persistence, the commit
//! policy, concurrent writers and a writer process killed with SIGKILL.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::key::{Key, key_hash, limit_text};
use super::*;
use crate::analysis::Score;
use crate::chess::{Move, Square, Variant};
use crate::notation::{STARTING_FEN, parse_fen, parse_uci};

/// A fresh directory for one test, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("pgnkit-cache-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn db(&self) -> PathBuf {
        self.0.join("evals.sqlite")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn fen(text: &str) -> Position {
    parse_fen(text, Variant::Standard).unwrap()
}

/// The moves of `uci` (separated by spaces) from `start`, and the position they lead to.
fn line(start: &Position, uci: &str) -> (Vec<Move>, Position) {
    let (mut pos, mut moves) = (*start, Vec::new());
    for text in uci.split_whitespace() {
        let m = parse_uci(&pos, text.as_bytes()).unwrap();
        pos.play_unchecked(m);
        moves.push(m);
    }
    (moves, pos)
}

/// An analysis of `pos` whose PV is `moves` (UCI), played from `pos`.
fn analysis(pos: &Position, score: Score, moves: &str) -> Analysis {
    let mut cur = *pos;
    let pv: Vec<Move> = moves
        .split_whitespace()
        .map(|t| {
            let m = parse_uci(&cur, t.as_bytes()).unwrap();
            cur.play_unchecked(m);
            m
        })
        .collect();
    Analysis {
        score,
        depth: 14,
        seldepth: 21,
        nodes: 20_000,
        time: Duration::from_micros(12_345),
        best_move: pv.first().copied(),
        pv,
    }
}

fn sf() -> EngineId {
    EngineId::new("Stockfish 17", [("Threads", "1"), ("Hash", "16")])
}

const NODES: Limit = Limit::nodes(20_000);

#[test]
fn round_trip_cp_and_mate() {
    let dir = Scratch::new("roundtrip");
    let cache = Cache::open(dir.db()).unwrap();
    let start = Position::default();
    let cp = analysis(&start, Score::Cp(31), "e2e4 e7e5 g1f3 b8c6 f1b5");
    // Black to move mates in 1 (2... Qh4#): the side to move's view.
    let fools = fen("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2");
    let mate = analysis(&fools, Score::Mate(1), "d8h4");
    let mated = fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    let over = Analysis { best_move: None, pv: Vec::new(), ..analysis(&mated, Score::Mate(0), "") };
    let losing = analysis(&start, Score::Mate(-3), "g2g4");
    assert!(cache.store(&start, &sf(), &NODES, &cp).unwrap());
    assert!(cache.store(&fools, &sf(), &NODES, &mate).unwrap());
    assert!(cache.store(&mated, &sf(), &NODES, &over).unwrap());
    assert!(cache.store(&start, &sf(), &Limit::depth(3), &losing).unwrap());
    // Served from memory before the commit, then from the file.
    for _ in 0..2 {
        assert_eq!(cache.lookup(&start, &sf(), &NODES).unwrap().as_ref(), Some(&cp));
        assert_eq!(cache.lookup(&fools, &sf(), &NODES).unwrap().as_ref(), Some(&mate));
        assert_eq!(cache.lookup(&mated, &sf(), &NODES).unwrap().as_ref(), Some(&over));
        assert_eq!(cache.lookup(&start, &sf(), &Limit::depth(3)).unwrap().as_ref(), Some(&losing));
        cache.flush().unwrap();
    }
    let stats = cache.stats();
    assert_eq!((stats.hits, stats.misses, stats.stale, stats.stores), (8, 0, 0, 4));
    assert!(stats.commits >= 1);
    assert_eq!(stats.hit_share(), 1.0);
    cache.close().unwrap();
    // The columns as `sqlite3` shows them.
    let conn = Connection::open(dir.db()).unwrap();
    let row: (String, String, String, Option<i64>, Option<i64>, Option<String>, String) = conn
        .query_row(
            "SELECT position, engine, search_limit, cp, mate, best, pv FROM evals WHERE mate = 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?)),
        )
        .unwrap();
    assert_eq!(
        row,
        (
            "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq -".into(),
            "Stockfish 17; hash=16; threads=1".into(),
            "nodes 20000".into(),
            None,
            Some(1),
            Some("d8h4".into()),
            "d8h4".into()
        )
    );
    let none: (Option<String>, String) = conn
        .query_row("SELECT best, pv FROM evals WHERE mate = 0", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!(none, (None, String::new()));
}

#[test]
fn side_to_move_and_en_passant_are_part_of_the_key() {
    let dir = Scratch::new("turn");
    let cache = Cache::open(dir.db()).unwrap();
    let white = fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    let black = fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1");
    let a = analysis(&white, Score::Cp(500), "e2e4");
    let b = analysis(&black, Score::Cp(-480), "e8d7");
    cache.store(&white, &sf(), &NODES, &a).unwrap();
    assert_eq!(cache.lookup(&black, &sf(), &NODES).unwrap(), None);
    cache.store(&black, &sf(), &NODES, &b).unwrap();
    cache.flush().unwrap();
    assert_eq!(cache.lookup(&white, &sf(), &NODES).unwrap(), Some(a));
    assert_eq!(cache.lookup(&black, &sf(), &NODES).unwrap(), Some(b));

    // After 1. e4 no en passant capture is legal: the key is the position without the square,
    // whatever the FEN said, and the move number does not count (the halfmove clock does:
    // `a_clock_the_moves_do_not_make_separates_entries`).
    let after_e4 = fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    let same = fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 30");
    let e5 = analysis(&after_e4, Score::Cp(-25), "e7e5");
    cache.store(&after_e4, &sf(), &NODES, &e5).unwrap();
    assert_eq!(cache.lookup(&same, &sf(), &NODES).unwrap(), Some(e5));
    // A legal en passant capture makes another position.
    let ep = fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
    let no_ep = fen("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 2");
    let take = analysis(&ep, Score::Cp(600), "e5d6");
    cache.store(&ep, &sf(), &NODES, &take).unwrap();
    assert_eq!(cache.lookup(&no_ep, &sf(), &NODES).unwrap(), None);
    assert_eq!(cache.lookup(&ep, &sf(), &NODES).unwrap(), Some(take));
}

#[cfg(feature = "variants")]
#[test]
fn crazyhouse_pockets_are_part_of_the_key() {
    let dir = Scratch::new("zh");
    let cache = Cache::open(dir.db()).unwrap();
    let zh = |text: &str| parse_fen(text, Variant::Crazyhouse).unwrap();
    let board = "r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R";
    let empty = zh(&format!("{board}[] w KQkq - 0 4"));
    let knight = zh(&format!("{board}[N] w KQkq - 0 4"));
    let black_knight = zh(&format!("{board}[n] w KQkq - 0 4"));
    let standard = fen(&format!("{board} w KQkq - 0 4"));
    let fairy = EngineId::new("Fairy-Stockfish 14", [("UCI_Variant", "crazyhouse")]);
    // A drop in the PV, read back as a drop.
    let drop = analysis(&knight, Score::Cp(120), "N@g5 d7d5 g5f7");
    assert_eq!(drop.pv[0], Move::drop(crate::Role::Knight, Square::G5));
    cache.store(&knight, &fairy, &NODES, &drop).unwrap();
    cache.flush().unwrap();
    for other in [&empty, &black_knight, &standard] {
        assert_eq!(cache.lookup(other, &fairy, &NODES).unwrap(), None);
    }
    assert_eq!(cache.lookup(&knight, &fairy, &NODES).unwrap(), Some(drop));
    let conn = Connection::open(dir.db()).unwrap();
    let (position, pv): (String, String) =
        conn.query_row("SELECT position, pv FROM evals", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    assert_eq!(position, format!("{board}[N] w KQkq -"));
    assert_eq!(pv, "N@g5 d7d5 g5f7");
}

#[test]
fn engine_options_and_limit_separate_entries() {
    let dir = Scratch::new("separate");
    let cache = Cache::open(dir.db()).unwrap();
    let start = Position::default();
    let a = analysis(&start, Score::Cp(20), "d2d4");
    cache.store(&start, &sf(), &NODES, &a).unwrap();
    let others = [
        (EngineId::new("Stockfish 16", [("Threads", "1"), ("Hash", "16")]), NODES),
        (EngineId::new("Stockfish 17", [("Threads", "2"), ("Hash", "16")]), NODES),
        (EngineId::new("Stockfish 17", [("Threads", "1")]), NODES),
        (EngineId::new::<&str, &str>("Stockfish 17", []), NODES),
        (sf(), Limit::nodes(20_001)),
        (sf(), Limit::depth(20)),
        (sf(), Limit { nodes: Some(20_000), depth: Some(20), movetime: None }),
    ];
    for pass in 0..2 {
        for (engine, limit) in &others {
            assert_eq!(cache.lookup(&start, engine, limit).unwrap(), None, "{engine} {limit:?} pass {pass}");
        }
        // The same identity spelled otherwise is the same engine.
        let spelled = EngineId::new(" Stockfish 17 ", [("hash", "32"), ("THREADS", " 1 "), ("Hash", "16")]);
        assert_eq!(cache.lookup(&start, &spelled, &NODES).unwrap().as_ref(), Some(&a));
        cache.flush().unwrap();
    }
    assert_eq!(cache.stats().misses, 14);
}

/// The moves that led to a position separate entries: an engine that sees them scores
/// repetitions; a position with no moves is the position alone.
#[test]
fn the_moves_to_a_position_separate_entries() {
    let dir = Scratch::new("moves");
    let cache = Cache::open(dir.db()).unwrap();
    let start = Position::default();
    let (moves, pos) = line(&start, "g1f3 b8c6");
    let (longer, same) = line(&start, "g1f3 g8f6 f3g1 b8c6 g1f3 f6g8");
    assert_eq!(same.zobrist(), pos.zobrist());
    let a = analysis(&pos, Score::Cp(20), "d2d4");
    cache.store_line(&start, &moves, &sf(), &NODES, &a).unwrap();
    for pass in 0..2 {
        assert_eq!(
            cache.lookup_line(&start, &moves, &sf(), &NODES).unwrap().as_ref(),
            Some(&a),
            "pass {pass}"
        );
        assert_eq!(cache.lookup(&pos, &sf(), &NODES).unwrap(), None, "pass {pass}");
        assert_eq!(cache.lookup_line(&start, &longer, &sf(), &NODES).unwrap(), None);
        cache.flush().unwrap();
    }
    assert_eq!(cache.lookup_line(&pos, &[], &sf(), &NODES).unwrap(), None, "the same as lookup");
}

/// The halfmove clock separates entries when the moves do not make it (a game from a `FEN`
/// with a clock, an EPD line): an engine that sees 97 halfmoves scores a draw the fifty-move
/// rule is about to give; a clock the moves make keeps the key it always had.
#[test]
fn a_clock_the_moves_do_not_make_separates_entries() {
    let dir = Scratch::new("clock");
    let cache = Cache::open(dir.db()).unwrap();
    let fresh = fen("8/8/8/4k3/8/8/2Q5/4K3 w - - 0 60");
    let late = fen("8/8/8/4k3/8/8/2Q5/4K3 w - - 97 60");
    let won = analysis(&fresh, Score::Cp(650), "c2c3");
    cache.store_line(&fresh, &[], &sf(), &NODES, &won).unwrap();
    assert_eq!(cache.lookup(&late, &sf(), &NODES).unwrap(), None, "97 halfmoves is another key");
    assert_eq!(cache.lookup(&fresh, &sf(), &NODES).unwrap().as_ref(), Some(&won));
    let engine = sf();
    let (key, _) = Key::new(&late, &[], &engine, &NODES).unwrap();
    assert_eq!(key.position, "8/8/8/4k3/8/8/2Q5/4K3 w - - hmvc 97");
    // Two plies from the start: the clock is the moves', and the key has no `hmvc`.
    let start = Position::default();
    let (moves, _) = line(&start, "g1f3 b8c6");
    let (key, _) = Key::new(&start, &moves, &engine, &NODES).unwrap();
    assert_eq!(key.position, "r1bqkbnr/pppppppp/2n5/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - moves g1f3 b8c6");
}

/// Lines that reach one position by the same moves from starts that differ separate entries
/// where the engine sees another history: the last position's third occurrence in one line is
/// its second in the other.
#[test]
fn a_start_the_moves_do_not_make_separates_entries() {
    let engine = sf();
    let kings = "e1e2 e8e7 e2e1 e7e8 e1e2 e8e7 e2e1 e7e8";
    // Castling rights lost by the first king move: the start is not the position the moves
    // come back to.
    let castling = fen("4k2r/8/8/8/8/8/8/4K2R w Kk - 0 1");
    let (moves, end) = line(&castling, kings);
    let (key, _) = Key::new(&castling, &moves, &engine, &NODES).unwrap();
    assert_eq!(
        key.position,
        format!("4k2r/8/8/8/8/8/8/4K2R w - - from 4k2r/8/8/8/8/8/8/4K2R w Kk - moves {kings}")
    );
    let none = fen("4k2r/8/8/8/8/8/8/4K2R w - - 0 1");
    let (moves_none, end_none) = line(&none, kings);
    assert_eq!(end.zobrist(), end_none.zobrist());
    let (plain, _) = Key::new(&none, &moves_none, &engine, &NODES).unwrap();
    assert_eq!(plain.position, format!("4k2r/8/8/8/8/8/8/4K2R w - - moves {kings}"));
    // An en passant capture the start allowed, and the same start without it.
    let ep = fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
    let (moves, _) = line(&ep, "e1e2 e8e7 e2e1 e7e8");
    let (key, _) = Key::new(&ep, &moves, &engine, &NODES).unwrap();
    assert_eq!(
        key.position,
        "4k3/8/8/3pP3/8/8/8/4K3 w - - from 4k3/8/8/3pP3/8/8/8/4K3 w - d6 moves e1e2 e8e7 e2e1 e7e8"
    );
    let no_ep = fen("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 2");
    let (moves, _) = line(&no_ep, "e1e2 e8e7 e2e1 e7e8");
    assert!(!Key::new(&no_ep, &moves, &engine, &NODES).unwrap().0.position.contains(" from "));
    // Through the cache: the line from the castling start does not read the other's row.
    let dir = Scratch::new("start");
    let cache = Cache::open(dir.db()).unwrap();
    let a = analysis(&end, Score::Cp(-691), "e1e2");
    cache.store_line(&none, &moves_none, &engine, &NODES, &a).unwrap();
    assert_eq!(cache.lookup_line(&none, &moves_none, &engine, &NODES).unwrap().as_ref(), Some(&a));
    let (moves, _) = line(&castling, kings);
    assert_eq!(cache.lookup_line(&castling, &moves, &engine, &NODES).unwrap(), None);
}

#[test]
fn time_limits_are_not_cached() {
    let dir = Scratch::new("movetime");
    let cache = Cache::open(dir.db()).unwrap();
    let start = Position::default();
    let a = analysis(&start, Score::Cp(20), "e2e4");
    let uncached = [
        Limit::movetime(Duration::from_millis(100)),
        Limit { nodes: Some(1000), depth: None, movetime: Some(Duration::from_millis(100)) },
        Limit::infinite(),
    ];
    for limit in &uncached {
        assert!(!cacheable(limit));
        assert!(!cache.store(&start, &sf(), limit, &a).unwrap());
        assert_eq!(cache.lookup(&start, &sf(), limit).unwrap(), None);
    }
    cache.flush().unwrap();
    assert_eq!(cache.stats(), CacheStats::default());
    let conn = Connection::open(dir.db()).unwrap();
    assert_eq!(conn.query_row("SELECT count(*) FROM evals", [], |r| r.get::<_, i64>(0)).unwrap(), 0);
}

#[test]
fn rows_whose_moves_do_not_parse_are_misses() {
    let dir = Scratch::new("stale");
    let cache = Cache::open(dir.db()).unwrap();
    let start = Position::default();
    // In memory: a PV move that is not legal in the position.
    let mut bad = analysis(&start, Score::Cp(20), "e2e4 e7e5");
    bad.pv.push(Move::normal(Square::E1, Square::E3));
    cache.store(&start, &sf(), &NODES, &bad).unwrap();
    assert_eq!(cache.lookup(&start, &sf(), &NODES).unwrap(), None);
    // In the file: rows edited behind the cache's back (another writer's bug, a manual edit).
    let good = analysis(&start, Score::Cp(20), "e2e4 e7e5 g1f3");
    cache.store(&start, &sf(), &NODES, &good).unwrap();
    cache.store(&start, &sf(), &Limit::depth(5), &good).unwrap();
    cache.store(&start, &sf(), &Limit::depth(6), &good).unwrap();
    cache.flush().unwrap();
    assert_eq!(cache.lookup(&start, &sf(), &NODES).unwrap().as_ref(), Some(&good));
    let conn = Connection::open(dir.db()).unwrap();
    conn.execute("UPDATE evals SET pv = 'e2e4 e7e5 g1g3' WHERE search_limit = 'nodes 20000'", []).unwrap();
    conn.execute("UPDATE evals SET best = 'e2e5' WHERE search_limit = 'depth 5'", []).unwrap();
    conn.execute("UPDATE evals SET depth = 'deep' WHERE search_limit = 'depth 6'", []).unwrap();
    assert_eq!(cache.lookup(&start, &sf(), &NODES).unwrap(), None);
    assert_eq!(cache.lookup(&start, &sf(), &Limit::depth(5)).unwrap(), None);
    assert_eq!(cache.lookup(&start, &sf(), &Limit::depth(6)).unwrap(), None);
    // Scores out of an engine's range (i32::MIN would wrap when negated).
    for (limit, score) in [(7, Score::Cp(100_000)), (8, Score::Mate(-1_000))] {
        cache.store(&start, &sf(), &Limit::depth(limit), &analysis(&start, score, "e2e4")).unwrap();
    }
    cache.flush().unwrap();
    conn.execute("UPDATE evals SET cp = -2147483648 WHERE search_limit = 'depth 7'", []).unwrap();
    conn.execute("UPDATE evals SET mate = 1001 WHERE search_limit = 'depth 8'", []).unwrap();
    assert_eq!(cache.lookup(&start, &sf(), &Limit::depth(7)).unwrap(), None);
    assert_eq!(cache.lookup(&start, &sf(), &Limit::depth(8)).unwrap(), None);
    let stats = cache.stats();
    assert_eq!((stats.hits, stats.misses, stats.stale), (1, 6, 6));
}

#[test]
fn analyses_persist_across_reopening() {
    let dir = Scratch::new("reopen");
    let positions = game_positions();
    {
        let cache = Cache::open(dir.db()).unwrap();
        for (i, pos) in positions.iter().enumerate() {
            cache.store(pos, &sf(), &NODES, &analysis(pos, Score::Cp(i as i32), "")).unwrap();
        }
        // Dropped without close: the drop commits too.
    }
    let cache = Cache::open(dir.db()).unwrap();
    for (i, pos) in positions.iter().enumerate() {
        assert_eq!(cache.lookup(pos, &sf(), &NODES).unwrap(), Some(analysis(pos, Score::Cp(i as i32), "")));
    }
    assert_eq!(cache.stats().hits, positions.len() as u64);
    assert_eq!(cache.stats().stores, 0);
}

#[test]
fn commits_come_from_the_policy_without_a_flush() {
    let dir = Scratch::new("policy");
    let start = Position::default();
    let count =
        |conn: &Connection| conn.query_row("SELECT count(*) FROM evals", [], |r| r.get::<_, i64>(0)).unwrap();
    // By age: one store and nothing after it.
    let policy = CommitPolicy { max_age: Duration::from_millis(50), max_rows: 1000 };
    let cache = Cache::open_with(dir.db(), policy).unwrap();
    let conn = Connection::open(dir.db()).unwrap();
    cache.store(&start, &sf(), &NODES, &analysis(&start, Score::Cp(1), "e2e4")).unwrap();
    assert!(wait_for(|| count(&conn) == 1), "the row was not committed by age");
    drop(cache);
    // By count: a day's age, ten rows.
    let policy = CommitPolicy { max_age: Duration::from_secs(86_400), max_rows: 10 };
    let cache = Cache::open_with(dir.db(), policy).unwrap();
    for d in 1..=10 {
        cache.store(&start, &sf(), &Limit::depth(d), &analysis(&start, Score::Cp(1), "e2e4")).unwrap();
    }
    assert!(wait_for(|| count(&conn) == 11), "the rows were not committed by count");
    // Nothing is left to commit: the flush only waits for the counters of that commit.
    cache.flush().unwrap();
    assert_eq!(cache.stats().commits, 1);
}

fn wait_for(mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

/// The positions of a short game, all different.
fn game_positions() -> Vec<Position> {
    let mut pos = Position::default();
    let mut out = vec![pos];
    for m in "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6 c1e3 e7e5 d4b3 c8e6 f2f3 f8e7".split(' ') {
        let m = parse_uci(&pos, m.as_bytes()).unwrap();
        pos.play_unchecked(m);
        out.push(pos);
    }
    out
}

/// Key `i` of the bulk tests (with any engine): one of the game's positions and a node limit
/// of its own.
fn bulk(positions: &[Position], i: u64) -> (Position, Limit, Analysis) {
    let pos = positions[i as usize % positions.len()];
    let a = Analysis { nodes: i, ..analysis(&pos, Score::Cp((i % 1000) as i32 - 500), "") };
    (pos, Limit::nodes(1000 + i), a)
}

#[test]
fn threads_and_caches_write_the_same_file_at_once() {
    let dir = Scratch::new("threads");
    let positions = game_positions();
    let policy = CommitPolicy { max_age: Duration::from_millis(2), max_rows: 64 };
    let (a, b) = (EngineId::new::<&str, &str>("A", []), EngineId::new::<&str, &str>("B", []));
    const N: u64 = 1500;
    {
        // Two threads on one cache, and a second cache on the same file (as another process
        // would be), each storing its keys (the two threads share half of theirs) and reading
        // them back.
        let one = Cache::open_with(dir.db(), policy).unwrap();
        let two = Cache::open_with(dir.db(), policy).unwrap();
        std::thread::scope(|s| {
            for (cache, engine, from) in [(&one, &a, 0), (&one, &a, N / 2), (&two, &b, 0)] {
                let positions = &positions;
                s.spawn(move || {
                    for i in from..from + N {
                        let (pos, limit, an) = bulk(positions, i);
                        cache.store(&pos, engine, &limit, &an).unwrap();
                        // One of its own keys, stored before it: committed or not.
                        let (pos, limit, an) = bulk(positions, from + (i - from) / 2);
                        assert_eq!(cache.lookup(&pos, engine, &limit).unwrap(), Some(an));
                        // Commits of both caches while the others store, however fast the
                        // stores come.
                        if i % 100 == 0 {
                            cache.flush().unwrap();
                        }
                    }
                });
            }
        });
        assert!(one.stats().commits >= N / 100 && two.stats().commits >= N / 100);
        one.close().unwrap();
        two.close().unwrap();
    }
    let cache = Cache::open(dir.db()).unwrap();
    for (engine, n) in [(&a, N + N / 2), (&b, N)] {
        for i in 0..n {
            let (pos, limit, an) = bulk(&positions, i);
            assert_eq!(cache.lookup(&pos, engine, &limit).unwrap(), Some(an), "{engine} {i}");
        }
    }
    let conn = Connection::open(dir.db()).unwrap();
    let rows: i64 = conn.query_row("SELECT count(*) FROM evals", [], |r| r.get(0)).unwrap();
    assert_eq!(rows as u64, N + N / 2 + N);
}

const KILL_CHILD_ENV: &str = "PGNKIT_CACHE_KILL_CHILD";

/// The child of [`kill_mid_write_keeps_what_was_committed`]: stores keys of engine `E<round>`
/// without end, flushing every 250 stores and printing how many are committed.
#[test]
#[ignore = "child process of kill_mid_write_keeps_what_was_committed"]
fn kill_child() {
    // Not a test of its own: `cargo test -- --ignored` runs it without a parent, with nothing to do.
    let Some(spec) = std::env::var_os(KILL_CHILD_ENV) else {
        return;
    };
    let spec = spec.into_string().unwrap();
    let (round, path) = spec.split_once(':').unwrap();
    let policy = CommitPolicy { max_age: Duration::from_millis(5), max_rows: 100 };
    let cache = Cache::open_with(path, policy).unwrap();
    let engine = EngineId::new::<&str, &str>(&format!("E{round}"), []);
    let positions = game_positions();
    let start = Instant::now();
    let mut i = 0;
    // Bounded, in case the parent died.
    while start.elapsed() < Duration::from_secs(60) {
        let (pos, limit, an) = bulk(&positions, i);
        cache.store(&pos, &engine, &limit, &an).unwrap();
        i += 1;
        if i % 250 == 0 {
            cache.flush().unwrap();
            println!("committed {i}");
        }
    }
}

#[test]
fn kill_mid_write_keeps_what_was_committed() {
    let dir = Scratch::new("kill");
    let positions = game_positions();
    let mut committed = Vec::new();
    for (round, wanted) in [500u64, 1500, 3000].into_iter().enumerate() {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "analysis::cache::tests::kill_child",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(KILL_CHILD_ENV, format!("{round}:{}", dir.db().display()))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut last = 0;
        for line in BufReader::new(child.stdout.take().unwrap()).lines() {
            if let Some(n) = line.unwrap().strip_prefix("committed ") {
                last = n.parse().unwrap();
                if last >= wanted {
                    break;
                }
            }
        }
        // SIGKILL while the child keeps storing (its writer commits every 5 ms).
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(last >= wanted, "round {round}: the child stopped at {last}");
        committed.push(last);
        check_after_kill(&dir.db(), &positions, &committed);
    }
}

fn check_after_kill(db: &Path, positions: &[Position], committed: &[u64]) {
    let conn = Connection::open(db).unwrap();
    let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    drop(conn);
    let cache = Cache::open(db).unwrap();
    for (round, &n) in committed.iter().enumerate() {
        let engine = EngineId::new::<&str, &str>(&format!("E{round}"), []);
        for i in 0..n {
            let (pos, limit, an) = bulk(positions, i);
            assert_eq!(cache.lookup(&pos, &engine, &limit).unwrap(), Some(an), "round {round} key {i}");
        }
    }
}

#[test]
fn the_file_format_is_fixed() {
    // The hash is the primary key of every row written: changing it orphans existing caches.
    // The figure is FNV-1a 64 and MurmurHash3's fmix64 computed apart (in Python).
    let position = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
    assert_eq!(
        key_hash(position, "Stockfish 17; hash=16; threads=1", "nodes 20000"),
        0x9E72_AF5D_983C_9D79_u64 as i64
    );
    assert_ne!(key_hash("a", "b", "c"), key_hash("ab", "", "c"));
    let engine = sf();
    let (key, _) = Key::new(&fen(STARTING_FEN), &[], &engine, &NODES).unwrap();
    assert_eq!((key.position.as_str(), key.limit.as_str()), (position, "nodes 20000"));
    let both = Limit { nodes: Some(5), depth: Some(7), movetime: None };
    assert_eq!(limit_text(&both).as_deref(), Some("depth 7 nodes 5"));
    assert_eq!(limit_text(&Limit::depth(18)).as_deref(), Some("depth 18"));
}

#[test]
fn foreign_and_newer_files_are_refused() {
    let dir = Scratch::new("foreign");
    let other = dir.0.join("other.sqlite");
    Connection::open(&other).unwrap().execute_batch("CREATE TABLE t (x INTEGER)").unwrap();
    let foreign = Cache::open(&other).expect_err("refused");
    assert!(
        matches!(foreign, CacheError::Foreign { .. }) && foreign.exit_code() == Code::DataErr,
        "{foreign:?}"
    );
    let text = dir.0.join("notes.txt");
    std::fs::write(&text, "not a database, but long enough to have a header of sorts....................")
        .unwrap();
    assert!(matches!(Cache::open(&text), Err(CacheError::Open { .. })));
    Cache::open(dir.db()).unwrap().close().unwrap();
    Connection::open(dir.db()).unwrap().pragma_update(None, "user_version", 2).unwrap();
    let newer = Cache::open(dir.db()).expect_err("refused");
    assert!(
        matches!(newer, CacheError::Version { found: 2, .. }) && newer.exit_code() == Code::DataErr,
        "{newer:?}"
    );
    // The directory is created.
    let nested = dir.0.join("a/b/evals.sqlite");
    Cache::open(&nested).unwrap().close().unwrap();
    assert!(nested.exists());
}

#[test]
fn default_path_follows_xdg() {
    let path =
        |xdg: Option<&str>, home: Option<&str>| default_path_from(xdg.map(Into::into), home.map(Into::into));
    assert_eq!(path(Some("/x/cache"), Some("/home/u")), Some(PathBuf::from("/x/cache/pgnkit/evals.sqlite")));
    assert_eq!(path(None, Some("/home/u")), Some(PathBuf::from("/home/u/.cache/pgnkit/evals.sqlite")));
    assert_eq!(
        path(Some("relative"), Some("/home/u")),
        Some(PathBuf::from("/home/u/.cache/pgnkit/evals.sqlite"))
    );
    assert_eq!(path(Some(""), None), None);
    assert_eq!(path(None, Some("")), None);
}

/// A cache file removed while the run goes on makes a lookup that needs a connection of its own
/// a miss, counted, not an error that ends the run.
#[test]
fn a_removed_file_is_a_miss_not_an_error() {
    let dir = Scratch::new("removed");
    let cache = Cache::open(dir.db()).unwrap();
    let start = fen(STARTING_FEN);
    cache.store(&start, &sf(), &NODES, &analysis(&start, Score::Cp(20), "e2e4")).unwrap();
    cache.flush().unwrap();
    // Every pooled connection busy elsewhere: the lookup opens one.
    cache.readers.lock().unwrap().clear();
    std::fs::remove_file(dir.db()).unwrap();
    let other = fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
    assert_eq!(cache.lookup(&other, &sf(), &NODES).unwrap(), None);
    assert_eq!((cache.gone(), cache.stats().misses), (1, 1));
}

/// A cache where no file can be written (sysfs here: no new file even for root) is refused at the
/// start with what to do, not after a run's work at its first commit.
#[test]
fn a_cache_that_cannot_be_written_is_refused_at_the_start() {
    let Err(e) = Cache::open("/sys/pgnkit-evals.sqlite") else { panic!("refused") };
    assert!(matches!(e, CacheError::ReadOnly { .. }), "{e:?}");
    assert!(e.to_string().contains("--no-cache"), "{e}");
}
