//! What the tests share: the fake engine's configuration, its command log, positions and moves,
//! and the analysis the fake engine gives.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use pgnkit::analysis::Analysis;
use pgnkit::chess::{Move, Position, Variant};
use pgnkit::engine::client::{EngineConfig, Timeouts};
use pgnkit::notation::fen::parse_fen;
use pgnkit::notation::uci::parse_uci;

use crate::fake;

/// Short timeouts: the fake engine answers at once, so only its faults meet them.
pub fn fast_timeouts() -> Timeouts {
    Timeouts {
        handshake: Duration::from_secs(10),
        ready: Duration::from_secs(10),
        grace: Duration::from_millis(200),
        search: Duration::from_millis(400),
        floor: Duration::from_millis(300),
        fixed: None,
        // A loaded machine stalls a process for 200 ms at times: not that short.
        alive: Duration::from_secs(1),
        stop: Duration::from_millis(200),
        quit: Duration::from_secs(2),
    }
}

/// The fake engine with `modes`, and fast timeouts.
pub fn fake(modes: &[&str]) -> EngineConfig {
    let mut config = fake_default(modes);
    config.timeouts = fast_timeouts();
    config
}

/// The fake engine with `modes`, and the default timeouts.
pub fn fake_default(modes: &[&str]) -> EngineConfig {
    let mut config = EngineConfig::new(std::env::current_exe().expect("the test binary"));
    config.args = std::iter::once(fake::FLAG).chain(modes.iter().copied()).map(OsString::from).collect();
    config
}

/// The fake engine's command log: a temporary file, removed on drop.
pub struct Log(PathBuf);

impl Log {
    /// A new empty log.
    pub fn new() -> Log {
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        Log(std::env::temp_dir().join(format!("pgnkit-fake-uci-{}-{n}.log", std::process::id())))
    }

    /// The mode that makes the fake engine write here.
    pub fn mode(&self) -> String {
        format!("log={}", self.0.display())
    }

    /// Every line so far.
    pub fn lines(&self) -> Vec<String> {
        std::fs::read_to_string(&self.0).unwrap_or_default().lines().map(str::to_string).collect()
    }

    /// How many lines are `line`.
    pub fn count(&self, line: &str) -> usize {
        self.lines().iter().filter(|l| *l == line).count()
    }

    /// The process ids of the engines started so far.
    pub fn pids(&self) -> Vec<u32> {
        self.lines()
            .iter()
            .filter_map(|l| l.strip_prefix("# start "))
            .map(|p| p.parse().expect("pid"))
            .collect()
    }
}

impl Drop for Log {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `true` while process `pid` exists (Linux: its `/proc` entry; a reaped child has none).
pub fn alive(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// The Debian package `package`'s engine at `path`, or `None` after saying the test is skipped
/// and how to install it (under CI the test fails instead).
pub fn installed(path: &'static str, package: &str) -> Option<&'static str> {
    if std::path::Path::new(path).exists() {
        return Some(path);
    }
    crate::skip::skip(format_args!("{package} not found at {path} (apt-get install -y {package})"));
    None
}

/// A position from a FEN known to be valid.
pub fn pos(fen: &str, variant: Variant) -> Position {
    parse_fen(fen, variant).expect("valid test FEN")
}

/// The moves `texts` (UCI) from `start`.
pub fn moves(start: &Position, texts: &[&str]) -> Vec<Move> {
    let mut pos = *start;
    texts
        .iter()
        .map(|t| {
            let m = parse_uci(&pos, t.as_bytes()).unwrap_or_else(|e| panic!("{t}: {e}"));
            pos.play_unchecked(m);
            m
        })
        .collect()
}

/// The position after `moves` from `start`.
pub fn after(start: &Position, moves: &[Move]) -> Position {
    let mut pos = *start;
    moves.iter().for_each(|&m| pos.play_unchecked(m));
    pos
}

/// What the client makes of the fake engine's answer in `pos`.
pub fn expected(pos: &Position) -> Analysis {
    let a = fake::answer(pos);
    Analysis {
        score: a.score,
        depth: 1,
        seldepth: 2,
        nodes: 30,
        time: Duration::from_millis(3),
        best_move: Some(a.best),
        pv: std::iter::once(a.best).chain(a.ponder).collect(),
    }
}
