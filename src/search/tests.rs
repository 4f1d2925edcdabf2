//! Search behaviour: mates with exact distances, draws, repetition, legality of every move
//! returned (standard, Chess960, Crazyhouse), determinism and the pinned bench signature.

use super::test_position as position;
use super::*;
use crate::chess::{CastlingMode, Setup, Variant};
use crate::notation::fen::parse_fen;
use crate::notation::san::{SanPlus, parse_san};

fn analyse(fen: &str, limit: Limit) -> Analysis {
    Searcher::with_hash_mb(4).analyse(&position(fen), &[], &limit).expect("built-in search never fails")
}

/// Brute force: can the side to move force mate within `n` moves?
fn forced_mate(pos: &Position, n: u32) -> bool {
    if n == 0 {
        return false;
    }
    pos.legal_moves().into_iter().any(|m| {
        let mut p = *pos;
        p.play_unchecked(m);
        let replies = p.legal_moves();
        if replies.is_empty() {
            return p.is_check();
        }
        n > 1
            && replies.into_iter().all(|r| {
                let mut q = p;
                q.play_unchecked(r);
                forced_mate(&q, n - 1)
            })
    })
}

fn assert_pv_legal(pos: &Position, pv: &[Move]) {
    let mut p = *pos;
    for &m in pv {
        assert!(p.is_legal(m), "illegal PV move {m:?} in {p:?}");
        p.play_unchecked(m);
    }
}

#[test]
fn mate_in_one_two_three() {
    let cases = [
        ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 1),
        ("3r2k1/8/8/8/8/8/5PPP/6K1 b - - 0 1", 1),
        ("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", 2),
        ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10", 2),
        ("r4r2/1pNP4/pPk2N1Q/2BR1n2/1P6/8/2p2K1p/8 w - - 0 1", 3),
    ];
    for (fen, n) in cases {
        let pos = position(fen);
        if n <= 2 {
            assert!(forced_mate(&pos, n) && !forced_mate(&pos, n - 1), "puzzle {fen} is not mate in {n}");
        }
        let a = analyse(fen, Limit::depth(2 * n + 1));
        assert_eq!(a.score, Score::Mate(n as i32), "{fen}");
        assert_pv_legal(&pos, &a.pv);
        assert_eq!(a.pv.len(), 2 * n as usize - 1, "{fen}: {:?}", a.pv);
        let mut end = pos;
        for &m in &a.pv {
            end.play_unchecked(m);
        }
        assert!(end.is_checkmate(), "{fen}: PV {:?} does not mate", a.pv);
    }
}

#[test]
fn being_mated_and_game_over() {
    let a = analyse("k7/8/8/8/8/1r6/r7/6K1 w - - 0 1", Limit::depth(4));
    assert_eq!(a.score, Score::Mate(-1));
    let mated = analyse("k7/8/8/8/8/8/r7/1r4K1 w - - 0 1", Limit::depth(4));
    assert_eq!((mated.score, mated.best_move, mated.pv.len()), (Score::Mate(0), None, 0));
    let stalemate = analyse("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", Limit::depth(4));
    assert_eq!((stalemate.score, stalemate.best_move), (Score::Cp(0), None));
}

#[test]
fn draws_inside_the_search() {
    // Bare knight: insufficient material after any move.
    assert_eq!(analyse("7k/8/8/8/8/8/8/N6K w - - 0 1", Limit::depth(5)).score, Score::Cp(0));
    // A queen up, but the fifty-move rule strikes on the next move and there is no mate in one.
    assert_eq!(analyse("7k/8/8/8/8/8/8/1Q5K w - - 99 80", Limit::depth(5)).score, Score::Cp(0));
    // Crazyhouse has no fifty-move rule: the queen counts.
    let zh = parse_fen("7k/8/8/8/8/8/8/1Q5K[] w - - 99 80", Variant::Crazyhouse).expect("valid");
    let score = Searcher::with_hash_mb(4).analyse(&zh, &[], &Limit::depth(5)).expect("search").score;
    assert!(matches!(score, Score::Cp(cp) if cp > 500), "{score:?}");
    // Stalemate is a draw: White must find the mate, not the stalemate.
    let a = analyse("7k/5Q2/5K2/8/8/8/8/8 w - - 0 1", Limit::depth(6));
    assert!(matches!(a.score, Score::Mate(n) if n > 0), "{:?}", a.score);
}

/// Black, a queen down in `pos`, is lost alone, and draws with ...Nf6 back into a position of the
/// game's history (`11`, `12`: keys of no position); returns the searcher and that history.
fn nf6_repeats_history(pos: &Position) -> (Searcher, [u64; 3]) {
    let nf6 = Move::normal(Square::G8, Square::F6);
    let mut after = *pos;
    after.play_unchecked(nf6);
    let mut engine = Searcher::with_hash_mb(4);
    let alone = engine.analyse(pos, &[], &Limit::depth(5)).expect("search");
    assert!(matches!(alone.score, Score::Cp(cp) if cp < -500), "{:?}", alone.score);
    engine.new_game();
    let history = [after.zobrist(), 11, 12];
    let with_history = engine.analyse(pos, &history, &Limit::depth(5)).expect("search");
    assert_eq!((with_history.score, with_history.best_move), (Score::Cp(0), Some(nf6)));
    (engine, history)
}

#[test]
fn repetition_in_history_is_seen() {
    let pos = position("6nk/8/8/8/8/8/8/Q6K b - - 10 40");
    let (mut engine, [a, b, c]) = nf6_repeats_history(&pos);
    // The current position's own key at the end of the history is tolerated.
    engine.new_game();
    let history = [a, b, c, pos.zobrist()];
    assert_eq!(engine.analyse(&pos, &history, &Limit::depth(5)).expect("search").score, Score::Cp(0));
}

#[test]
fn crazyhouse_repetition_reaches_past_a_capture() {
    // The halfmove clock is 0 (a capture just happened), yet in crazyhouse the captured piece can
    // come back from the pocket, so the history before the capture still counts.
    nf6_repeats_history(&parse_fen("6nk/8/8/8/8/8/8/Q6K[] b - - 0 40", Variant::Crazyhouse).expect("valid"));
}

/// A small deterministic generator for playouts.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn never_returns_an_illegal_move() {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut engine = Searcher::with_hash_mb(2);
    let mut checked = 0;
    for game in 0..36 {
        let variant = Variant::ALL[game % 3];
        let mut pos = match variant {
            Variant::Chess960 => {
                let setup = Setup::chess960((rng.next() % 960) as u32).expect("valid number");
                Position::from_setup(setup, variant, CastlingMode::Chess960).expect("valid")
            }
            v => Position::new(v),
        };
        let mut keys = Vec::new();
        let plies = 10 + rng.next() % 90;
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            keys.push(pos.zobrist());
            pos.play_unchecked(moves[(rng.next() % moves.len() as u64) as usize]);
            if rng.next().is_multiple_of(8) {
                engine.new_game();
                let a = engine.analyse(&pos, &keys, &Limit::nodes(300)).expect("search");
                match a.best_move {
                    Some(m) => assert!(pos.is_legal(m), "{m:?} in {pos:?}"),
                    None => assert!(pos.legal_moves().is_empty()),
                }
                assert_eq!(a.pv.first().copied(), a.best_move);
                assert_pv_legal(&pos, &a.pv);
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "only {checked} positions checked");
}

#[test]
fn deterministic_under_node_and_depth_limits() {
    let pos = position("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8");
    for limit in [Limit::nodes(20_000), Limit::depth(5)] {
        let mut runs = Vec::new();
        for _ in 0..2 {
            let mut engine = Searcher::with_hash_mb(4);
            runs.push(engine.analyse(&pos, &[], &limit).expect("search"));
            // The same engine after new_game gives the same result again.
            engine.new_game();
            runs.push(engine.analyse(&pos, &[], &limit).expect("search"));
        }
        for r in &runs[1..] {
            assert_eq!(
                (r.nodes, r.best_move, r.score, &r.pv),
                (runs[0].nodes, runs[0].best_move, runs[0].score, &runs[0].pv)
            );
        }
    }
}

/// Set by the test below, on another thread, while a search runs.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[test]
fn an_interrupt_ends_a_search_and_sets_its_answer_aside() {
    let mut engine = Searcher::with_hash_mb(2);
    engine.set_interrupt(|| INTERRUPTED.load(std::sync::atomic::Ordering::Relaxed));
    let pos = Position::default();
    assert!(engine.analyse(&pos, &[], &Limit::depth(2)).is_ok(), "no interrupt: an answer");
    let raise = std::thread::spawn(|| {
        std::thread::sleep(std::time::Duration::from_millis(100));
        INTERRUPTED.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    // Without the interrupt this search would not end.
    assert!(matches!(engine.analyse(&pos, &[], &Limit::infinite()), Err(AnalyzerError::Interrupted)));
    raise.join().expect("the interrupting thread");
    // Once interrupted, no search starts.
    assert!(matches!(engine.analyse(&pos, &[], &Limit::depth(1)), Err(AnalyzerError::Interrupted)));
}

#[test]
fn info_after_each_iteration_and_stop_flag() {
    let mut engine = Searcher::with_hash_mb(2);
    let mut depths = Vec::new();
    let a = engine.search(&Position::default(), &[], &Limit::depth(4), &mut |info| depths.push(info.depth));
    assert_eq!(depths, [1, 2, 3, 4]);
    assert_eq!(a.depth, 4);
    // A stop raised before the search ends it at the first poll (every 1024 nodes), within the
    // first iteration here: a legal move still comes back, and is said.
    engine.stop_handle().store(true, std::sync::atomic::Ordering::Relaxed);
    let mut infos = Vec::new();
    let a =
        engine.search(&Position::default(), &[], &Limit::infinite(), &mut |info| infos.push(info.clone()));
    assert!(a.depth <= 1 && a.nodes <= 1024, "{a:?}");
    assert!(a.best_move.is_some_and(|m| Position::default().is_legal(m)), "{a:?}");
    assert_eq!(infos.last().map(|i| &i.pv), Some(&a.pv));
}

/// A `movetime` is used whole, as UCI asks, even when an iteration would most likely not finish
/// in what is left (here after depth 1, which `on_info` makes last 60% of it); a clock's share
/// stops there and keeps the rest.
#[test]
fn a_movetime_is_used_whole_and_a_clock_share_is_not() {
    let movetime = Duration::from_millis(500);
    let pos = Position::default();
    let mut slow_first = |info: &Info| {
        if info.depth == 1 {
            std::thread::sleep(movetime * 3 / 5);
        }
    };
    let mut engine = Searcher::with_hash_mb(2);
    let a = engine.search(&pos, &[], &Limit::movetime(movetime), &mut slow_first);
    assert!(a.time >= movetime, "{a:?}");
    assert!(a.depth > 1, "{a:?}");
    let limit = Limit::movetime(movetime);
    let a = engine.search_among(&pos, &[], &limit, &[], TimeUse::Budget, &mut slow_first);
    assert_eq!(a.depth, 1, "{a:?}");
}

/// A hash size that cannot be allocated is refused, and the table in use is kept.
#[test]
fn a_hash_that_cannot_be_allocated_keeps_the_table() {
    let mut engine = Searcher::with_hash_mb(2);
    assert!(engine.set_hash_mb(usize::MAX).is_err());
    assert_eq!(engine.hash_mb(), 2);
    assert!(engine.set_hash_mb(4).is_ok());
    assert_eq!(engine.hash_mb(), 4);
}

/// Limits end the first iteration too: with 18 queens, depth 1's quiescence alone takes a
/// minute. The move is the best of the root moves searched by then, and legal.
#[test]
fn limits_cut_the_first_iteration_short() {
    let pos = position("rnbqkbnr/qqqqqqqq/8/8/8/8/QQQQQQQQ/RNBQKBNR w KQkq - 0 1");
    let mut engine = Searcher::with_hash_mb(2);
    let start = Instant::now();
    let a = engine.analyse(&pos, &[], &Limit::movetime(Duration::from_millis(100))).expect("search");
    // A bound for a loaded machine: the search took 46 s when depth 1 could not be cut.
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    assert!(a.best_move.is_some_and(|m| pos.is_legal(m)), "{a:?}");
    assert_pv_legal(&pos, &a.pv);
    let a = engine.analyse(&pos, &[], &Limit::nodes(2000)).expect("search");
    assert!(a.nodes <= 2000 && a.depth <= 1, "{a:?}");
    assert!(a.best_move.is_some_and(|m| pos.is_legal(m)), "{a:?}");
    assert_pv_legal(&pos, &a.pv);
}

#[test]
fn crazyhouse_and_chess960_positions() {
    // Crazyhouse: a queen in hand next to a boxed-in king is worth at least a lot of material.
    let zh = parse_fen("6rk/6pp/8/8/2B5/8/8/6K1[Q] w - - 0 1", Variant::Crazyhouse).expect("valid");
    let a = Searcher::with_hash_mb(2).analyse(&zh, &[], &Limit::depth(3)).expect("search");
    assert!(
        matches!(a.score, Score::Mate(_)) || matches!(a.score, Score::Cp(cp) if cp > 300),
        "{:?}",
        a.score
    );
    let c960 =
        parse_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", Variant::Chess960)
            .expect("valid");
    let a = Searcher::with_hash_mb(2).analyse(&c960, &[], &Limit::depth(4)).expect("search");
    assert!(c960.is_legal(a.best_move.expect("a move")));
}

/// 31 queens in one pocket: the material stays an evaluation, not a mate, and a depth-limited
/// search ends (summed past the mate scores, it never finished depth 1).
#[test]
fn a_pocket_of_queens_is_no_mate() {
    for pocket in ["Q", "q"] {
        let fen = format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[{}] w KQkq - 0 1", pocket.repeat(31));
        let pos = parse_fen(&fen, Variant::Crazyhouse).expect("valid");
        let mut engine = Searcher::with_hash_mb(2);
        engine.stop_handle().store(false, Ordering::Relaxed);
        let a = engine.search(&pos, &[], &Limit::depth(3), &mut |_| {});
        assert_eq!(a.depth, 3, "{fen}: {a:?}");
        assert!(matches!(a.score, Score::Cp(cp) if cp.abs() <= eval::EVAL_LIMIT), "{fen}: {:?}", a.score);
    }
}

#[test]
fn bench_signature() {
    assert_eq!(bench(), 155_829, "bench signature changed: if deliberate, update it here");
}

/// Speed report: `cargo test --release --lib search::tests::bench_speed -- --ignored --nocapture`.
#[test]
#[ignore]
fn bench_speed() {
    for depth in [BENCH_DEPTH, BENCH_DEPTH + 3] {
        let r = run_bench(depth);
        println!("bench depth {depth}: {} nodes in {:?}: {} nodes/s", r.nodes, r.time, r.nps());
    }
}

/// Nodes per position for [`wac`]: a fixed budget makes the count the same on every machine.
const WAC_NODES: u64 = 30_000;
/// Positions of WAC the engine must solve at [`WAC_NODES`] (it solved 244 when this was set):
/// fewer is a loss of strength. Searches given more nodes or time must solve at least as many.
const WAC_FLOOR: usize = 240;

/// Strength against Win At Chess (300 tactical positions, Fred Reinfeld's suite as EPD, from the
/// shared data set `read_shared_data` finds):
/// at least [`WAC_FLOOR`] solved at [`WAC_NODES`] nodes each, deterministic on any machine.
/// `WAC_NODES=N` or `WAC_MS=1000` set another budget (a report: the misses and the count are
/// printed with `--nocapture`; the floor still holds), e.g.
/// `WAC_MS=1000 cargo test --release --lib search::tests::wac -- --nocapture`.
#[test]
fn wac() {
    let Some(text) = crate::read_shared_data("epd_suites/wac.epd") else { return };
    let ms: Option<u64> = std::env::var("WAC_MS").ok().and_then(|s| s.parse().ok());
    let nodes: u64 = std::env::var("WAC_NODES").ok().and_then(|s| s.parse().ok()).unwrap_or(WAC_NODES);
    let (mut solved, mut total, mut total_nodes) = (0, 0, 0u64);
    let mut engine = Searcher::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let epd = crate::notation::fen::parse_epd(line).expect("EPD");
        let pos = Position::from_setup(epd.setup.clone(), Variant::Standard, CastlingMode::Standard)
            .expect("valid");
        let bm = epd.op("bm").expect("bm").join(" ");
        let id = epd.op("id").map(|v| v.join(" ")).unwrap_or_default();
        let best: Vec<Move> =
            epd.op("bm").expect("bm").iter().map(|s| parse_san(&pos, s.as_bytes()).expect("bm").0).collect();
        engine.new_game();
        let limit = match ms {
            Some(ms) => Limit::movetime(std::time::Duration::from_millis(ms)),
            None => Limit::nodes(nodes),
        };
        let a = engine.analyse(&pos, &[], &limit).expect("search");
        total += 1;
        total_nodes += a.nodes;
        if a.best_move.is_some_and(|m| best.contains(&m)) {
            solved += 1;
        } else {
            println!(
                "miss {id} bm {bm} got {:?} {:?}",
                a.best_move.map(|m| SanPlus::from_move(&pos, m).to_string()),
                a.score
            );
        }
    }
    println!("WAC solved {solved}/{total}, {total_nodes} nodes");
    assert_eq!(total, 300, "the WAC suite has 300 positions");
    if ms.is_some() || nodes >= WAC_NODES {
        assert!(solved >= WAC_FLOOR, "WAC solved {solved}/{total}: below the floor of {WAC_FLOOR}");
    }
}

/// `MultiPV`: each depth tells its lines in rank order with distinct first moves, as many as
/// asked or as the position has legal moves; the result is the first line, here the mate.
#[test]
fn multipv_lines_take_distinct_root_moves() {
    let mut engine = Searcher::with_hash_mb(4);
    engine.set_multipv(3);
    let mate = position("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");
    let mut infos = Vec::new();
    let result = engine.search(&mate, &[], &Limit::depth(4), &mut |i| infos.push(i.clone()));
    for depth in 1..=4 {
        let lines: Vec<&Info> = infos.iter().filter(|i| i.depth == depth).collect();
        assert_eq!(lines.iter().map(|i| i.multipv).collect::<Vec<_>>(), [1, 2, 3], "depth {depth}");
        let mut firsts: Vec<Move> = lines.iter().map(|i| i.pv[0]).collect();
        firsts.dedup();
        assert_eq!(firsts.len(), 3, "depth {depth}: {lines:?}");
        assert!(
            lines[1..].iter().all(|i| !matches!(i.score, Score::Mate(n) if n > 0)),
            "one mate: {lines:?}"
        );
    }
    assert_eq!(result.score, Score::Mate(1));
    let first_line = infos.iter().rev().find(|i| i.multipv == 1).expect("a first line");
    assert_eq!(result.pv, first_line.pv);
    // Two legal moves (the king in check): two lines, whatever was asked.
    let mut engine = Searcher::with_hash_mb(4);
    engine.set_multipv(5);
    let check = position("7k/8/8/8/8/8/8/K6R b - - 0 1");
    let mut lines = Vec::new();
    engine.search(&check, &[], &Limit::depth(3), &mut |i| lines.push((i.depth, i.multipv)));
    assert_eq!(lines, [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (3, 2)]);
}

/// A forced mate found ends a search with a node or time limit early, but one without a limit
/// (`go infinite`, xboard's analyze mode) deepens on: an analysing GUI waits for depths.
#[test]
fn a_found_mate_ends_a_limited_search_but_not_an_unlimited_one() {
    let mate_in_one = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
    let limited = analyse(mate_in_one, Limit::nodes(100_000_000));
    assert_eq!(limited.score, Score::Mate(1));
    assert!(limited.depth <= 3, "{limited:?}");
    let unlimited = analyse(mate_in_one, Limit::infinite());
    assert_eq!(unlimited.score, Score::Mate(1));
    assert_eq!(unlimited.depth, MAX_PLY as u32 - 8, "{unlimited:?}");
}

/// A MultiPV search stopped inside a depth ends with one line a rank, each of another move: the
/// ranks it had not searched again are said from the depth before, without the moves the new
/// lines took (a client keeps the last line of each rank).
#[test]
fn a_stopped_multipv_search_ends_with_different_moves_at_every_rank() {
    let mut stopped_inside = 0;
    for nodes in [300, 1000, 2000, 5000, 20_000, 60_000] {
        let mut engine = Searcher::with_hash_mb(4);
        engine.set_multipv(4);
        let mut last = std::collections::BTreeMap::<u32, Info>::new();
        let mut depths = Vec::new();
        engine.search(&Position::default(), &[], &Limit::nodes(nodes), &mut |i| {
            depths.push((i.depth, i.multipv));
            last.insert(i.multipv, i.clone());
        });
        let moves: Vec<_> = last.values().map(|i| i.pv[0]).collect();
        let distinct: std::collections::BTreeSet<_> = moves.iter().map(|m| format!("{m:?}")).collect();
        assert_eq!(distinct.len(), moves.len(), "{nodes} nodes: {moves:?}");
        if depths.iter().any(|&(d, _)| d >= 2) {
            assert_eq!(last.len(), 4, "{nodes} nodes: {depths:?}");
        }
        stopped_inside +=
            usize::from(last.values().map(|i| i.depth).collect::<std::collections::BTreeSet<_>>().len() > 1);
    }
    assert!(stopped_inside > 0, "no search stopped inside a depth: the test tests nothing");
}
