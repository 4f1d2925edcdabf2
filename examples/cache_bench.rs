//! What the evaluation cache costs: `cache_bench [N] [FILE]` stores N analyses of distinct
//! positions (from random games, each with a 12-move PV) in a new cache file, then looks them
//! all up from the file (hits, on one thread and on two), looks them up under another limit
//! (misses), and times commits of 1, 100 and 1000 rows. Figures in `src/analysis/cache.rs`.
//!
//! `cargo run --release --example cache_bench [-- 100000 /tmp/bench.sqlite]`

use std::collections::HashSet;
use std::time::{Duration, Instant};

use pgnkit::analysis::cache::{Cache, CommitPolicy, EngineId};
use pgnkit::analysis::{Analysis, Limit, Score};
use pgnkit::chess::Position;
use pgnkit::notation::{EpMode, write_epd};

/// xorshift64*: a fixed sequence, so every run measures the same positions.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as usize % n
    }
}

/// `n` distinct positions of random games, each with the game's next (up to) 12 moves as PV.
fn samples(n: usize) -> Vec<(Position, Analysis)> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut game = vec![Position::default()];
        let mut moves = Vec::new();
        for _ in 0..120 {
            let pos = *game.last().unwrap();
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[rng.below(legal.len())];
            let mut next = pos;
            next.play_unchecked(m);
            moves.push(m);
            game.push(next);
        }
        for (i, pos) in game.iter().enumerate().take(moves.len()) {
            let mut epd = String::new();
            write_epd(pos, EpMode::Legal, &mut epd);
            if out.len() < n && seen.insert(epd) {
                let pv = moves[i..moves.len().min(i + 12)].to_vec();
                let analysis = Analysis {
                    score: Score::Cp(rng.below(600) as i32 - 300),
                    depth: 18,
                    seldepth: 27,
                    nodes: 200_000,
                    time: Duration::from_micros(123_456),
                    best_move: pv.first().copied(),
                    pv,
                };
                out.push((*pos, analysis));
            }
        }
    }
    out
}

/// CPU time of this process's living threads so far (Linux: `/proc/self/task/*/schedstat`), so
/// that figures hold on a machine shared with other work; zero elsewhere.
fn cpu() -> Duration {
    let tasks = std::fs::read_dir("/proc/self/task").into_iter().flatten().flatten();
    tasks.map(|t| schedstat(&t.path().join("schedstat"))).sum()
}

/// CPU time of the calling thread so far.
fn thread_cpu() -> Duration {
    schedstat("/proc/thread-self/schedstat".as_ref())
}

fn schedstat(path: &std::path::Path) -> Duration {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    Duration::from_nanos(text.split_whitespace().next().and_then(|ns| ns.parse().ok()).unwrap_or(0))
}

/// Wall and CPU time since a start.
struct Clock(Instant, Duration);

impl Clock {
    fn start() -> Clock {
        Clock(Instant::now(), cpu())
    }

    /// `n` operations: their rate by wall time, and wall and CPU time for each.
    fn rate(&self, n: usize) -> String {
        let (wall, cpu) = (self.0.elapsed().as_secs_f64(), cpu().saturating_sub(self.1).as_secs_f64());
        format!(
            "{:>7.0}/s, {:>6.2} us each, {:>6.2} us CPU",
            n as f64 / wall,
            wall * 1e6 / n as f64,
            cpu * 1e6 / n as f64
        )
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(100_000, |a| a.parse().expect("N: a number"));
    let path = args.next().map_or_else(|| std::env::temp_dir().join("pgnkit-cache-bench.sqlite"), Into::into);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    let engine = EngineId::new("Stockfish 17", [("Threads", "1"), ("Hash", "16")]);
    let limit = Limit::nodes(200_000);
    let samples = samples(n);
    println!("{n} positions, cache {}", path.display());

    let cache = Cache::open(&path).expect("cache");
    let clock = Clock::start();
    for (pos, a) in &samples {
        cache.store(pos, &engine, &limit, a).expect("store");
    }
    let caller = clock.0.elapsed();
    cache.flush().expect("flush");
    println!(
        "stores:             {} (committed; {:.2} us each in the caller; {} commits)",
        clock.rate(n),
        caller.as_secs_f64() * 1e6 / n as f64,
        cache.stats().commits
    );
    cache.close().expect("close");
    let size = std::fs::metadata(&path).map_or(0, |m| m.len())
        + std::fs::metadata(format!("{}-wal", path.display())).map_or(0, |m| m.len());
    println!("file:               {:.0} bytes a row", size as f64 / n as f64);

    let cache = Cache::open(&path).expect("cache");
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = Rng(7);
    for i in (1..n).rev() {
        order.swap(i, rng.below(i + 1));
    }
    let clock = Clock::start();
    for &i in &order {
        let (pos, a) = &samples[i];
        assert_eq!(cache.lookup(pos, &engine, &limit).expect("lookup").as_ref(), Some(a));
    }
    println!("lookups, hits:      {}", clock.rate(n));
    // Both threads' CPU time, counted by themselves (a thread's is gone once it has ended).
    let clock = Clock::start();
    let threads_cpu: Duration = std::thread::scope(|s| {
        let threads: Vec<_> = order
            .chunks(n.div_ceil(2))
            .map(|half| {
                let (cache, engine, samples) = (&cache, &engine, &samples);
                s.spawn(move || {
                    let start = thread_cpu();
                    for &i in half {
                        let (pos, a) = &samples[i];
                        assert_eq!(cache.lookup(pos, engine, &limit).expect("lookup").as_ref(), Some(a));
                    }
                    thread_cpu() - start
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).sum()
    });
    let wall = clock.0.elapsed().as_secs_f64();
    println!(
        "lookups, 2 threads: {:>7.0}/s, {:>6.2} us each, {:>6.2} us CPU",
        n as f64 / wall,
        wall * 1e6 / n as f64,
        threads_cpu.as_secs_f64() * 1e6 / n as f64
    );
    let other = Limit::nodes(100_000);
    let clock = Clock::start();
    for &i in &order {
        assert!(cache.lookup(&samples[i].0, &engine, &other).expect("lookup").is_none());
    }
    println!("lookups, misses:    {}", clock.rate(n));
    cache.close().expect("close");

    // Commits alone: the writer never commits by age here, only on flush.
    let policy = CommitPolicy { max_age: Duration::from_secs(3600), max_rows: usize::MAX };
    let cache = Cache::open_with(&path, policy).expect("cache");
    let mut depth = 0;
    for batch in [1usize, 10, 100, 1000] {
        let rounds = 200.min(20_000 / batch);
        let (mut wall, mut cpu_time) = (Duration::ZERO, Duration::ZERO);
        for _ in 0..rounds {
            depth += 1;
            for (pos, a) in samples.iter().take(batch) {
                cache.store(pos, &engine, &Limit::depth(depth), a).expect("store");
            }
            let clock = Clock::start();
            cache.flush().expect("flush");
            wall += clock.0.elapsed();
            cpu_time += cpu().saturating_sub(clock.1);
        }
        let us = |t: Duration| t.as_secs_f64() * 1e6 / rounds as f64;
        println!(
            "commit of {batch:>4} rows: {:>8.1} us, {:>8.1} us CPU ({:.1} us CPU a row, {rounds} commits)",
            us(wall),
            us(cpu_time),
            us(cpu_time) / batch as f64
        );
    }
    cache.close().expect("close");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}
