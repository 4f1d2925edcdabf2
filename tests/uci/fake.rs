//! The fake UCI engine: this test binary run as `uci --fake-uci MODE...`. It answers every `go`
//! at once with a legal move chosen by a fixed rule ([`answer`]), through the pgnkit library, so
//! that a test knows the exact analysis to expect, and misbehaves as its modes say:
//!
//! - `crash-at=N`: exit (status 3) on the Nth `go` of this process, without answering.
//! - `crash-from=N` (with `log`): exit (status 3) on every `go` from the Nth in the log on, of
//!   every engine started (one that answers, then cannot search any more).
//! - `exit-after-go=N`: exit after answering the Nth `go` (the client's next command then meets a
//!   closed pipe).
//! - `hang-at=N`: from the Nth `go` on, answer nothing (`stop` and `isready` included; commands
//!   are still read and logged).
//! - `hang-stop-at=N` (repeatable): on the Nth `go`, answer only when `stop` comes.
//! - `garbage`: two lines that are not UCI before each answer.
//! - `illegal-bestmove`, `illegal-pv`, `no-pv`: the answer's `bestmove` is illegal, its PV has an
//!   illegal second move, or its score line has no PV.
//! - `slow-uci=MS`: wait before answering `uci`; `no-uciok`: never send `uciok`;
//!   `exit-at-uci`: exit when `uci` comes; `uciok-once=FILE`: send `uciok` only when FILE does
//!   not exist, and create it (so only the first engine started completes its handshake).
//! - `slow-ready=MS`: wait before answering the first `isready` (an engine slow to start).
//! - `slow-go=MS`: wait MS milliseconds before answering each `go` (a run to kill mid-way).
//! - `think=MS`: answer each `go` after MS milliseconds, or at `stop`, meanwhile answering
//!   `isready` at once (a long search by an engine that follows UCI); with `deaf`, `isready`
//!   during such a search is answered only after its `bestmove` (an engine that reads no command
//!   but `stop` while it searches).
//! - `stderr-flood`: write 1 MiB to stderr at each `go` before answering.
//! - `long-line`: before each answer, a line of 65,536 `x` (the client's bound) whose rest reads
//!   `bestmove 0000`.
//! - `endless-line=N`: on the Nth `go`, print `x` without end (until stdout is closed).
//! - `score=TEXT`: the exact line's score is `TEXT` (`mate 0`), in place of its own.
//! - `variants`: list `UCI_Variant` with `chess` and `crazyhouse`.
//! - `log=FILE`: append `# start PID` and every command received to FILE.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pgnkit::analysis::Score;
use pgnkit::chess::{CastlingMode, Move, Position, Square, Variant};
use pgnkit::engine::protocol::{Command, PositionStart};
use pgnkit::notation::fen::parse_fen;
use pgnkit::notation::uci::{parse_uci, write_uci};

/// The first argument that makes this binary the fake engine.
pub const FLAG: &str = "--fake-uci";

/// The `id name` the fake engine gives.
pub const NAME: &str = "pgnkit fake engine";

/// What the fake engine answers in a position: the first legal move in UCI text order, the first
/// reply to it, and a score from the number of legal moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// `bestmove`.
    pub best: Move,
    /// `ponder`, and the PV's second move.
    pub ponder: Option<Move>,
    /// The score of its exact line (a later bound says 777).
    pub score: Score,
}

fn text(m: Move, mode: CastlingMode) -> String {
    let mut s = String::new();
    write_uci(m, mode, &mut s);
    s
}

/// The first legal move of `pos` in UCI text order.
fn first_move(pos: &Position, mode: CastlingMode) -> Option<Move> {
    pos.legal_moves().iter().copied().min_by_key(|&m| text(m, mode))
}

/// The fake engine's answer in `pos` (which has legal moves).
pub fn answer(pos: &Position) -> Answer {
    let mode = pos.castling_mode();
    let best = first_move(pos, mode).expect("a position with legal moves");
    let mut after = *pos;
    after.play_unchecked(best);
    Answer {
        best,
        ponder: first_move(&after, mode),
        score: Score::Cp(10 * pos.legal_moves().len() as i32 - 200),
    }
}

/// A well-formed move that is not legal in `pos`: one of our pieces to a square it cannot reach.
fn illegal_move(pos: &Position) -> String {
    for from in Square::ALL.into_iter().filter(|&s| pos.board().color_at(s) == Some(pos.turn())) {
        for to in Square::ALL.into_iter().filter(|&s| s != from) {
            let t = format!("{from}{to}");
            if parse_uci(pos, t.as_bytes()).is_err() {
                return t;
            }
        }
    }
    unreachable!("some piece cannot reach some square")
}

#[derive(Default)]
struct Modes {
    crash_at: Option<u32>,
    crash_from: Option<usize>,
    exit_after_go: Option<u32>,
    hang_at: Option<u32>,
    hang_stop_at: Vec<u32>,
    garbage: bool,
    illegal_bestmove: bool,
    illegal_pv: bool,
    no_pv: bool,
    slow_uci: Option<u64>,
    slow_ready: Option<u64>,
    slow_go: Option<u64>,
    think: Option<u64>,
    deaf: bool,
    no_uciok: bool,
    uciok_once: Option<String>,
    exit_at_uci: bool,
    stderr_flood: bool,
    long_line: bool,
    endless_line: Option<u32>,
    score: Option<String>,
    variants: bool,
    log: Option<File>,
    log_path: Option<String>,
}

impl Modes {
    fn parse(args: &[String]) -> Modes {
        let mut m = Modes::default();
        for arg in args {
            let (key, value) = arg.split_once('=').unwrap_or((arg, ""));
            let n = || Some(value.parse().unwrap_or_else(|_| panic!("fake engine: bad mode {arg}")));
            match key {
                "crash-at" => m.crash_at = n(),
                "crash-from" => m.crash_from = n().map(|n: u32| n as usize),
                "exit-after-go" => m.exit_after_go = n(),
                "hang-at" => m.hang_at = n(),
                "hang-stop-at" => m.hang_stop_at.extend(n()),
                "garbage" => m.garbage = true,
                "illegal-bestmove" => m.illegal_bestmove = true,
                "illegal-pv" => m.illegal_pv = true,
                "no-pv" => m.no_pv = true,
                "slow-uci" => m.slow_uci = n().map(u64::from),
                "slow-ready" => m.slow_ready = n().map(u64::from),
                "slow-go" => m.slow_go = n().map(u64::from),
                "think" => m.think = n().map(u64::from),
                "deaf" => m.deaf = true,
                "no-uciok" => m.no_uciok = true,
                "uciok-once" => m.uciok_once = Some(value.to_string()),
                "exit-at-uci" => m.exit_at_uci = true,
                "stderr-flood" => m.stderr_flood = true,
                "long-line" => m.long_line = true,
                "endless-line" => m.endless_line = n(),
                "score" => m.score = Some(value.to_string()),
                "variants" => m.variants = true,
                "log" => {
                    m.log_path = Some(value.to_string());
                    m.log = Some(
                        OpenOptions::new().create(true).append(true).open(value).expect("fake engine log"),
                    )
                }
                _ => panic!("fake engine: unknown mode {arg}"),
            }
        }
        m
    }

    /// One `write` per line: engines of one run share a log, and appends of whole lines do not
    /// interleave.
    fn log(&mut self, line: &str) {
        if let Some(f) = &mut self.log {
            f.write_all(format!("{line}\n").as_bytes()).expect("fake engine log");
        }
    }
}

fn say(out: &mut impl Write, lines: &[String]) {
    for l in lines {
        // A closed stdout (the client killed us) ends the process like any engine's.
        if writeln!(out, "{l}").and_then(|()| out.flush()).is_err() {
            std::process::exit(4);
        }
    }
}

/// The lines answering `go` in `pos`.
fn search_output(pos: &Position, modes: &Modes) -> Vec<String> {
    let mode = pos.castling_mode();
    let a = answer(pos);
    let best = text(a.best, mode);
    let ponder = a.ponder.map(|m| text(m, mode));
    let Score::Cp(cp) = a.score else { unreachable!() };
    let mut lines = Vec::new();
    if modes.long_line {
        lines.push(format!("{}bestmove 0000", "x".repeat(1 << 16)));
    }
    if modes.garbage {
        lines.push("fake engine says hello".to_string());
        lines.push("\u{7}\u{fffd} 12 34".to_string());
    }
    let mut pv = format!(" pv {best}");
    if modes.illegal_pv {
        pv = format!(" pv {best} {}", illegal_move(pos));
    } else if let Some(p) = &ponder {
        pv = format!(" pv {best} {p}");
    }
    if modes.no_pv {
        pv.clear();
    }
    let score = modes.score.clone().unwrap_or_else(|| format!("cp {cp}"));
    lines.push(format!("info depth 1 seldepth 2 multipv 1 score {score} nodes 10 nps 1000 time 1{pv}"));
    lines.push(format!("info depth 2 seldepth 3 score cp 777 lowerbound nodes 25 time 2 pv {best}"));
    lines.push("info string fake engine thinking".to_string());
    lines.push(format!("info depth 2 currmove {best} currmovenumber 1"));
    lines.push("info nodes 30 time 3".to_string());
    let best = if modes.illegal_bestmove { illegal_move(pos) } else { best };
    lines.push(match ponder {
        Some(p) => format!("bestmove {best} ponder {p}"),
        None => format!("bestmove {best}"),
    });
    lines
}

/// A `think` search in progress.
#[derive(Default)]
struct Thinking {
    /// Its answer, until given.
    answer: Option<Vec<String>>,
    /// `readyok`s owed by a `deaf` engine, given after the answer.
    owed: u32,
    /// How many searches were started.
    search: u64,
}

impl Thinking {
    /// Gives the answer (if not given yet) and the `readyok`s owed.
    fn end(&mut self) {
        if let Some(lines) = self.answer.take() {
            say(&mut io::stdout(), &lines);
        }
        for _ in 0..std::mem::take(&mut self.owed) {
            say(&mut io::stdout(), &["readyok".into()]);
        }
    }
}

/// Runs the fake engine on stdin/stdout with `args` (after [`FLAG`]); the exit status.
pub fn run(args: &[String]) -> i32 {
    let mut modes = Modes::parse(args);
    modes.log(&format!("# start {}", std::process::id()));
    // Locked per line: a `think` search answers from a thread of its own.
    let mut out = io::stdout();
    let (mut chess960, mut crazyhouse) = (false, false);
    let mut pos = Position::default();
    let mut gos = 0;
    let mut held: Option<Vec<String>> = None;
    let thinking: Arc<Mutex<Thinking>> = Arc::default();
    let mut hung = false;
    let mut slow_ready = modes.slow_ready;
    for line in io::stdin().lock().lines() {
        let Ok(line) = line else { return 5 };
        modes.log(&line);
        if hung {
            continue;
        }
        match Command::parse(&line) {
            Command::Uci => {
                if modes.exit_at_uci {
                    return 3;
                }
                if let Some(ms) = modes.slow_uci {
                    std::thread::sleep(Duration::from_millis(ms));
                }
                let mut lines = vec![
                    "fake engine banner, not UCI".to_string(),
                    format!("id name {NAME}"),
                    "id author the pgnkit tests".to_string(),
                    "option name Threads type spin default 1 min 1 max 8".to_string(),
                    "option name Hash type spin default 16 min 1 max 1024".to_string(),
                    "option name Clear Hash type button".to_string(),
                    "option name Skill Level type spin default 20 min 0 max 20".to_string(),
                    "option name UCI_Chess960 type check default false".to_string(),
                ];
                if modes.variants {
                    lines.push(
                        "option name UCI_Variant type combo default chess var chess var crazyhouse".into(),
                    );
                }
                let once = modes
                    .uciok_once
                    .as_ref()
                    .map(|f| OpenOptions::new().write(true).create_new(true).open(f));
                if modes.no_uciok || once.is_some_and(|created| created.is_err()) {
                    eprintln!("fake engine: no uciok today");
                } else {
                    lines.push("uciok".into());
                }
                say(&mut out, &lines);
            }
            Command::IsReady => {
                if let Some(ms) = slow_ready.take() {
                    std::thread::sleep(Duration::from_millis(ms));
                }
                let mut t = thinking.lock().expect("not poisoned");
                if modes.deaf && t.answer.is_some() {
                    t.owed += 1;
                } else {
                    say(&mut out, &["readyok".into()]);
                }
            }
            Command::SetOption { name, value } => match name.to_ascii_lowercase().as_str() {
                "uci_chess960" => chess960 = value.as_deref() == Some("true"),
                "uci_variant" => crazyhouse = value.as_deref() == Some("crazyhouse"),
                _ => {}
            },
            Command::Position { start, moves } => {
                let variant = match (crazyhouse, chess960) {
                    (true, _) => Variant::Crazyhouse,
                    (false, true) => Variant::Chess960,
                    (false, false) => Variant::Standard,
                };
                pos = match start {
                    PositionStart::StartPos => Position::new(variant),
                    PositionStart::Fen(fen) => parse_fen(&fen, variant).expect("the client sends valid FENs"),
                };
                for m in moves {
                    // The client sends legal moves only: a test failure, not an engine's leniency.
                    let m = parse_uci(&pos, m.as_bytes()).unwrap_or_else(|_| panic!("illegal move {m} sent"));
                    pos.play_unchecked(m);
                }
            }
            Command::Go(_) => {
                gos += 1;
                let logged = || {
                    let log = modes.log_path.as_ref().expect("crash-from needs a log");
                    let text = std::fs::read_to_string(log).expect("fake engine log");
                    text.lines().filter(|l| l.starts_with("go ")).count()
                };
                if modes.crash_at == Some(gos) || modes.crash_from.is_some_and(|n| logged() >= n) {
                    eprintln!("fake engine: crashing at go {gos}");
                    return 3;
                }
                if modes.stderr_flood {
                    let chunk = "x".repeat(1023);
                    let mut err = io::stderr().lock();
                    for _ in 0..1024 {
                        let _ = writeln!(err, "{chunk}");
                    }
                }
                if modes.hang_at == Some(gos) {
                    hung = true;
                    continue;
                }
                if modes.endless_line == Some(gos) {
                    let chunk = "x".repeat(1 << 16);
                    while out.write_all(chunk.as_bytes()).and_then(|()| out.flush()).is_ok() {}
                    return 4;
                }
                if let Some(ms) = modes.slow_go {
                    std::thread::sleep(Duration::from_millis(ms));
                }
                let lines = search_output(&pos, &modes);
                if let Some(ms) = modes.think {
                    let search = {
                        let mut t = thinking.lock().expect("not poisoned");
                        t.answer = Some(lines);
                        t.search += 1;
                        t.search
                    };
                    let thinking = Arc::clone(&thinking);
                    std::thread::spawn(move || {
                        std::thread::sleep(Duration::from_millis(ms));
                        let mut t = thinking.lock().expect("not poisoned");
                        // A search ended by `stop` does not end the next one.
                        if t.search == search {
                            t.end();
                        }
                    });
                } else if modes.hang_stop_at.contains(&gos) {
                    held = Some(lines);
                } else {
                    say(&mut out, &lines);
                }
                if modes.exit_after_go == Some(gos) {
                    return 3;
                }
            }
            Command::Stop => {
                thinking.lock().expect("not poisoned").end();
                if let Some(lines) = held.take() {
                    say(&mut out, &lines);
                }
            }
            Command::Quit => return 0,
            _ => {}
        }
    }
    0
}
