//! `pgnkit uci`: the UCI loop over the built-in [`Searcher`], reading commands from any `BufRead`
//! and answering on any `Write`, so it runs the same over stdin/stdout and in tests.
//!
//! Commands are read on a thread of their own (`engine::input`) and the search runs on another
//! (scoped, with a large stack), so `isready` is answered at once and `stop`, `ponderhit` and
//! `quit` act at once whatever was read before them. `position`, `go`, `setoption` and
//! `ucinewgame` read during a search wait, in order, for it to end (as in Stockfish, where a GUI
//! sends `stop` first). `go infinite` holds `bestmove` back until `stop`, as UCI requires; `go
//! ponder` until `stop` or `ponderhit`, from which the search goes on with the time its clock
//! gives it. Moves in `position` are resolved against our own legal moves: the first unknown or
//! illegal one ends the list with an `info string`, and the position stays the last legal one.
//! A `position` with neither `startpos` nor `fen` is ignored (as in Stockfish) and an unknown
//! command passed over, each said in an `info string`.
//!
//! ```
//! use pgnkit::engine::{AtEof, server::run_uci};
//! let mut out = Vec::new();
//! run_uci("uci\nposition startpos moves e2e4\ngo depth 2\n".as_bytes(), &mut out, AtEof::Finish).unwrap();
//! let out = String::from_utf8(out).unwrap();
//! assert!(out.contains("uciok") && out.lines().last().unwrap().starts_with("bestmove "));
//! ```

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, bounded, never, select};

use crate::analysis::{Analyzer, Limit};
use crate::chess::{Move, Position};
use crate::notation::fen::{FenError, parse_fen};
use crate::notation::uci::{parse_uci, write_uci};
use crate::search::Searcher;

use super::input::{self, AtEof, Line, say};
use super::protocol::{self, Command, PositionStart};
use super::uci_options::Options;

/// Options and the game being analysed.
#[derive(Default)]
struct State {
    options: Options,
    /// `None` after a FEN that could not be read: `go` has no position to search.
    pos: Option<Position>,
    /// Keys of the positions before `pos`.
    history: Vec<u64>,
}

impl State {
    fn set_position(
        &mut self,
        start: &PositionStart,
        moves: &[String],
        out: &Mutex<impl Write>,
    ) -> io::Result<()> {
        let variant = self.options.variant();
        let pos = match start {
            PositionStart::StartPos => Ok(Position::new(variant)),
            PositionStart::Fen(fen) => parse_fen(fen, variant),
        };
        let mut pos = match pos {
            Ok(pos) => pos,
            // Soft problems are repaired, as a game's FEN tag is: rights without their rook, an
            // impossible en passant square.
            Err(FenError::Position(e)) if let Ok(pos) = e.clone().ignore_droppable() => {
                say(out, &format!("info string {e} in fen; dropped"))?;
                pos
            }
            Err(e) => {
                self.pos = None;
                return say(out, &format!("info string invalid fen ({e}); no position until the next one"));
            }
        };
        let mut history = Vec::with_capacity(moves.len());
        for text in moves {
            let Ok(m) = parse_uci(&pos, text.as_bytes()) else {
                say(out, &format!("info string illegal move {text}; ignoring it and the moves after it"))?;
                break;
            };
            history.push(pos.zobrist());
            pos.play_unchecked(m);
        }
        self.pos = Some(pos);
        self.history = history;
        Ok(())
    }
}

/// A search running on its own thread; it gives the searcher back when joined.
struct Running<'scope> {
    handle: ScopedJoinHandle<'scope, (Searcher, ())>,
    /// Disconnects when the search thread has written `bestmove`.
    ended: Receiver<()>,
    /// `bestmove` is held back (`go infinite`, `go ponder` until `ponderhit`).
    hold: Arc<AtomicBool>,
    /// The search has a limit of its own (depth, nodes, time, a clock).
    limited: bool,
    /// `go ponder` before `ponderhit`: the time its clock gives the search from then on (`None`:
    /// no clock, so it goes on until its own limit or `stop`).
    ponder: Option<Option<Duration>>,
    /// The search has ended.
    done: Arc<AtomicBool>,
    /// Stops the search when the time after `ponderhit` is up.
    timer: Option<ScopedJoinHandle<'scope, ()>>,
}

/// Sets `stop` once `budget` has passed, unless the search is `done` first.
fn stop_after(budget: Duration, done: &AtomicBool, stop: &AtomicBool) {
    // A budget past what an `Instant` holds never ends.
    let end = Instant::now().checked_add(budget);
    while !done.load(Ordering::Relaxed) {
        if end.is_some_and(|end| Instant::now() >= end) {
            stop.store(true, Ordering::Relaxed);
            return;
        }
        thread::sleep(Duration::from_millis(1));
    }
}

/// A command read while a search runs, waiting for it to end.
struct Waiting {
    command: Command,
    /// `stop` or `ponderhit` read for this `go` before it could start: applied once it has.
    then: Option<Command>,
}

/// The loop's state between commands: options, position, the searcher or the search that has it,
/// and the commands read during a search that wait for its end.
struct Dialogue<'scope, 'env, W: Write + Send> {
    scope: &'scope Scope<'scope, 'env>,
    out: &'env Mutex<W>,
    state: State,
    /// At home between searches.
    searcher: Option<Searcher>,
    stop: Arc<AtomicBool>,
    running: Option<Running<'scope>>,
    /// Commands that need the searcher, read while a search runs: carried out in order after it.
    waiting: VecDeque<Waiting>,
    at_eof: AtEof,
    /// The input has ended under [`AtEof::Finish`]: a search without a limit of its own is
    /// stopped, since no `stop` can come.
    eof: bool,
    /// `quit` was read: the commands read before it are carried out, their searches stopped.
    quit: bool,
}

impl<'scope, 'env, W: Write + Send> Dialogue<'scope, 'env, W> {
    /// A command as it is read. `isready`, `stop`, `ponderhit` and `quit` act at once; the others
    /// wait for a running search (and for those read before them) to end.
    fn read(&mut self, command: Command) -> io::Result<()> {
        match command {
            Command::IsReady => say(self.out, "readyok")?,
            Command::Debug(_) => {}
            Command::Unknown(line) if line.is_empty() => {}
            Command::Unknown(line) => say(self.out, &format!("info string unknown command: {line}"))?,
            Command::Ignored(why) => say(self.out, &format!("info string {why}"))?,
            Command::Stop => self.stop_all(),
            Command::PonderHit => {
                match self.waiting.iter_mut().rfind(|w| matches!(w.command, Command::Go(_))) {
                    // Meant for the last `go` read.
                    Some(w) => {
                        w.then.get_or_insert(Command::PonderHit);
                    }
                    None => self.ponderhit(),
                }
            }
            Command::Quit => {
                self.stop_all();
                self.quit = true;
            }
            Command::Uci => self.identify()?,
            command if self.running.is_some() || !self.waiting.is_empty() => {
                self.waiting.push_back(Waiting { command, then: None })
            }
            command => self.execute(command)?,
        }
        Ok(())
    }

    /// Ends every search asked for so far: the running one and those waiting to start (each
    /// still answers with its `bestmove`).
    fn stop_all(&mut self) {
        self.stop_search();
        for w in self.waiting.iter_mut().filter(|w| matches!(w.command, Command::Go(_))) {
            w.then = Some(Command::Stop);
        }
    }

    /// Stops the running search, held or not: its `bestmove` comes at once.
    fn stop_search(&self) {
        if self.running.is_some() {
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    /// The move pondered on was played: the search goes on as a timed one.
    fn ponderhit(&mut self) {
        if let Some(r) = self.running.as_mut().filter(|r| r.ponder.is_some()) {
            if let Some(budget) = r.ponder.take().flatten() {
                let (done, stop) = (r.done.clone(), self.stop.clone());
                r.timer = Some(self.scope.spawn(move || stop_after(budget, &done, &stop)));
                r.limited = true;
            }
            r.hold.store(false, Ordering::Relaxed);
        }
    }

    /// Waits for the running search to write `bestmove` and takes the searcher back.
    fn join(&mut self) {
        if let Some(r) = self.running.take() {
            self.searcher = Some(r.handle.join().expect("search thread panicked").0);
            // Done is set, so the timer ends at once; joined before the next search clears stop.
            if let Some(timer) = r.timer {
                timer.join().expect("timer thread panicked");
            }
        }
    }

    /// The end of input, as [`AtEof`] says.
    fn end_of_input(&mut self) {
        match self.at_eof {
            AtEof::Quit => {
                self.stop_all();
                self.quit = true;
            }
            AtEof::Finish => {
                self.eof = true;
                if let Some(r) = &self.running
                    && (r.hold.load(Ordering::Relaxed) || !r.limited)
                {
                    self.stop.store(true, Ordering::Relaxed);
                }
            }
        }
    }

    fn identify(&self) -> io::Result<()> {
        let name = self.searcher.as_ref().map_or(concat!("pgnkit ", env!("CARGO_PKG_VERSION")), |s| s.name());
        say(self.out, &format!("id name {name}"))?;
        say(self.out, "id author the pgnkit authors")?;
        for l in Options::lines() {
            say(self.out, &l)?;
        }
        say(self.out, "uciok")
    }

    /// A command that needs the searcher, with no search running.
    fn execute(&mut self, command: Command) -> io::Result<()> {
        let out = self.out;
        match command {
            Command::SetOption { name, value } => {
                let searcher = self.searcher.as_mut().expect("searcher is home");
                if let Some(said) = self.state.options.set(&name, &value.unwrap_or_default(), searcher) {
                    say(out, &said)?;
                }
            }
            Command::UciNewGame => self.searcher.as_mut().expect("searcher is home").new_game(),
            Command::Position { start, moves } => self.state.set_position(&start, &moves, out)?,
            Command::Go(go) => self.go(&go)?,
            _ => {}
        }
        Ok(())
    }

    fn go(&mut self, go: &protocol::Go) -> io::Result<()> {
        let Some(pos) = self.state.pos else {
            say(self.out, "info string no position to search (the last fen was invalid)")?;
            return say(self.out, &protocol::bestmove_line(None, None));
        };
        for p in &go.not_numbers {
            say(self.out, &format!("info string go {p}: not a whole number; ignored"))?;
        }
        let s = self.searcher.take().expect("searcher is home");
        let history = self.state.history.clone();
        let overhead = self.state.options.move_overhead();
        let (limit, time) = (go.limit(pos.turn(), overhead), go.time_use());
        // Moves that do not parse in the position are passed over, as Stockfish does.
        let only: Vec<Move> =
            go.searchmoves.iter().filter_map(|m| parse_uci(&pos, m.as_bytes()).ok()).collect();
        let hold = Arc::new(AtomicBool::new(go.infinite || go.ponder));
        let ponder = go.ponder.then(|| go.move_time(pos.turn(), overhead));
        let done = Arc::new(AtomicBool::new(false));
        let limited = limit != Limit::infinite();
        // After the end of input no `stop` can come to end a search without a limit.
        self.stop.store(self.eof && (go.infinite || go.ponder || !limited), Ordering::Relaxed);
        let (ended_tx, ended) = bounded::<()>(0);
        let (out, stop, held, finished) = (self.out, self.stop.clone(), hold.clone(), done.clone());
        let handle = super::search_thread::spawn(self.scope, s, move |s| {
            let _ended = ended_tx;
            let mode = pos.castling_mode();
            let uci = |m| {
                let mut text = String::new();
                write_uci(m, mode, &mut text);
                text
            };
            let multipv = s.multipv() > 1;
            let result = s.search_among(&pos, &history, &limit, &only, time, &mut |info| {
                let pv: Vec<String> = info.pv.iter().map(|&m| uci(m)).collect();
                let _ = say(out, &protocol::info_line(info, &pv, multipv));
            });
            finished.store(true, Ordering::Relaxed);
            while held.load(Ordering::Relaxed) && !stop.load(Ordering::Relaxed) {
                thread::sleep(Duration::from_millis(1));
            }
            let best = result.best_move.map(&uci);
            let ponder = result.pv.get(1).map(|&m| uci(m));
            let _ = say(out, &protocol::bestmove_line(best.as_deref(), ponder.as_deref()));
        })?;
        self.running = Some(Running { handle, ended, hold, limited, ponder, done, timer: None });
        Ok(())
    }
}

/// Runs the UCI protocol until `quit` or the end of `input`, which does what `at_eof` says.
/// Commands are read on a thread of their own, so `isready` and `stop` are answered while a
/// search runs, whatever was read before them.
pub fn run_uci<R: BufRead + Send + 'static, W: Write + Send>(
    input: R,
    output: W,
    at_eof: AtEof,
) -> io::Result<()> {
    let lines = input::lines(input)?;
    let out = Mutex::new(output);
    let searcher = Searcher::new();
    let stop = searcher.stop_handle();
    let state = State { pos: Some(Position::default()), ..State::default() };
    thread::scope(|scope| -> io::Result<()> {
        let mut dialogue = Dialogue {
            scope,
            out: &out,
            state,
            searcher: Some(searcher),
            stop,
            running: None,
            waiting: VecDeque::new(),
            at_eof,
            eof: false,
            quit: false,
        };
        loop {
            if dialogue.running.is_none() {
                if let Some(w) = dialogue.waiting.pop_front() {
                    dialogue.execute(w.command)?;
                    match w.then {
                        Some(Command::Stop) => dialogue.stop_search(),
                        Some(Command::PonderHit) => dialogue.ponderhit(),
                        _ => {}
                    }
                    continue;
                }
                if dialogue.eof || dialogue.quit {
                    return Ok(());
                }
            }
            let ended = dialogue.running.as_ref().map_or_else(never, |r| r.ended.clone());
            let input = if dialogue.eof || dialogue.quit { never() } else { lines.clone() };
            select! {
                recv(input) -> line => match line {
                    Ok(Ok(Line::Text(line))) => dialogue.read(Command::parse(&line))?,
                    Ok(Ok(Line::NotUtf8(line))) => say(&out, &format!("info string unknown command (not UTF-8): {line}"))?,
                    Ok(Ok(Line::TooLong)) => say(&out, &format!("info string unknown command (longer than {} bytes): skipped", input::MAX_LINE))?,
                    Ok(Err(e)) => {
                        dialogue.stop_search();
                        dialogue.join();
                        return Err(e);
                    }
                    Err(_) => dialogue.end_of_input(),
                },
                recv(ended) -> _ => dialogue.join(),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Variant;

    fn run(input: &str) -> Vec<String> {
        crate::engine::search_thread::dialogue(|i, o| run_uci(i, o, AtEof::Finish), input)
    }

    #[test]
    fn handshake_and_search() {
        let lines = run("uci\nisready\nucinewgame\nposition startpos moves e2e4 e7e5\ngo depth 3\n");
        assert!(lines.iter().any(|l| l.starts_with("id name pgnkit")));
        assert!(lines.iter().any(|l| l == "uciok") && lines.iter().any(|l| l == "readyok"));
        let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth")).collect();
        assert_eq!(infos.len(), 3);
        let best = lines.last().expect("output");
        let m = best.split_whitespace().nth(1).expect("a move");
        let mut pos = Position::default();
        for t in ["e2e4", "e7e5"] {
            let m = parse_uci(&pos, t.as_bytes()).expect("legal");
            pos.play_unchecked(m);
        }
        assert!(parse_uci(&pos, m.as_bytes()).is_ok(), "{best}");
    }

    #[test]
    fn fen_mate_and_bad_input() {
        let lines = run("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1\ngo depth 3\n");
        assert!(lines.iter().any(|l| l.contains("score mate 1")), "{lines:?}");
        assert_eq!(lines.last().map(String::as_str), Some("bestmove d1d8"));
        let lines = run("position startpos moves e2e4 e2e4\nposition fen not-a-fen w - - 0 1\ngo depth 1\n");
        assert!(lines[0].starts_with("info string illegal move e2e4"));
        assert!(lines[1].starts_with("info string invalid fen"));
        // No move of the position before: there is none to search.
        assert_eq!(lines.last().map(String::as_str), Some("bestmove (none)"), "{lines:?}");
        // Rights without their rook are dropped, as python-chess does: the king and rook move.
        let lines = run("position fen 4k3/8/8/8/8/8/8/4K2R w KQkq - 0 1 moves e1g1\ngo depth 1\n");
        assert!(lines[0].contains("castling rights without their rook"), "{lines:?}");
        let best = lines.last().expect("bestmove").split_whitespace().nth(1).expect("a move").to_string();
        let pos = parse_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1", Variant::Standard).expect("fen");
        assert!(parse_uci(&pos, b"e1g1").is_ok(), "the repaired position castles");
        let mut after = pos;
        after.play_unchecked(parse_uci(&pos, b"e1g1").expect("castles"));
        assert!(parse_uci(&after, best.as_bytes()).is_ok(), "{lines:?}");
    }

    /// A `position` with neither `startpos` nor `fen` is ignored, as Stockfish does, and said:
    /// the position stays the one before (here Black is to move after e2e4).
    #[test]
    fn position_without_a_start_is_ignored() {
        for bad in ["position", "position foo moves d2d4"] {
            let lines = run(&format!("position startpos moves e2e4\n{bad}\ngo depth 1\n"));
            assert!(
                lines[0].starts_with("info string position") && lines[0].contains("ignored"),
                "{lines:?}"
            );
            let best = lines.last().expect("bestmove").split_whitespace().nth(1).expect("a move").to_string();
            let mut pos = Position::default();
            pos.play_unchecked(parse_uci(&pos, b"e2e4").expect("legal"));
            assert!(parse_uci(&pos, best.as_bytes()).is_ok(), "{bad}: {lines:?}");
        }
    }

    /// Unknown commands and a `setoption` without a name are said, not passed over in silence;
    /// control characters of the input are escaped in what is said; an empty line is nothing.
    #[test]
    fn unknown_commands_are_said() {
        let lines = run("frobnicate 3\n\n   \nisr\u{0}eady\nsetoption value 3\nsetoption name\nisready\n");
        assert_eq!(
            lines,
            [
                "info string unknown command: frobnicate 3",
                "info string unknown command: isr\\u{0}eady",
                "info string setoption needs name <option>; ignored",
                "info string setoption needs name <option>; ignored",
                "readyok",
            ]
        );
    }

    /// `go searchmoves` searches those root moves alone: here not the mate in one, and its
    /// line starts with the move chosen; moves that are not legal are passed over.
    #[test]
    fn searchmoves_restricts_the_root() {
        let mate = "position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1\n";
        for (moves, best) in [("g2g3", "g2g3"), ("h2h4 g2g4", ""), ("e2e4 g2g3", "g2g3"), ("e2e4", "d1d8")] {
            let lines = run(&format!("{mate}go depth 3 searchmoves {moves}\n"));
            let last = lines.last().expect("bestmove");
            let chosen = last.split_whitespace().nth(1).expect("a move");
            if best.is_empty() {
                assert!(moves.split(' ').any(|m| m == chosen), "{moves}: {lines:?}");
            } else {
                assert_eq!(chosen, best, "{moves}: {lines:?}");
            }
            let info = lines.iter().rev().find(|l| l.starts_with("info depth")).expect("info");
            assert!(info.contains(&format!(" pv {chosen}")), "{info}");
        }
    }

    /// `ponderhit` turns the ponder search into a timed one: it goes on for the time the clock of
    /// `go ponder` gives (here about a second: the whole 2 s to the control, less a margin, halved)
    /// instead of ending at once; `stop` ends a ponder search at once, whatever the clock.
    #[test]
    fn ponderhit_goes_on_with_the_clocks_time() {
        let go = "position startpos moves e2e4\ngo ponder wtime 2000 btime 2000 movestogo 1\n";
        let start = Instant::now();
        let lines = run(&format!("{go}ponderhit\n"));
        let searched = start.elapsed();
        assert!(lines.last().expect("bestmove").starts_with("bestmove "), "{lines:?}");
        assert!(searched >= Duration::from_millis(800), "{searched:?}: {lines:?}");
        // A watchdog: with 20 minutes to the control, a stop that waited for the clock would
        // search for minutes.
        let long = "position startpos moves e2e4\ngo ponder wtime 1200000 btime 1200000 movestogo 1\n";
        let start = Instant::now();
        let lines = run(&format!("{long}stop\n"));
        assert!(lines.last().expect("bestmove").starts_with("bestmove "), "{lines:?}");
        assert!(start.elapsed() < Duration::from_secs(60), "stop does not wait for the clock");
    }

    #[test]
    fn infinite_search_waits_for_stop_and_game_over_has_no_move() {
        let lines = run("go infinite\nstop\n");
        assert!(lines.last().expect("bestmove").starts_with("bestmove "));
        let lines = run("position fen k7/8/8/8/8/8/r7/1r4K1 w - - 0 1\ngo depth 3\nquit\n");
        assert_eq!(lines.last().map(String::as_str), Some("bestmove (none)"));
        // The score is said first, as python-chess's `analyse` reads it: mated, and stalemate.
        assert!(
            lines.iter().any(|l| l.starts_with("info depth 0 ") && l.contains(" score mate 0 ")),
            "{lines:?}"
        );
        let lines = run("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\ngo depth 3\nquit\n");
        assert!(
            lines.iter().any(|l| l.starts_with("info depth 0 ") && l.contains(" score cp 0 ")),
            "{lines:?}"
        );
        assert_eq!(lines.last().map(String::as_str), Some("bestmove (none)"));
        let lines = run(
            "setoption name UCI_Variant value crazyhouse\nposition startpos moves e2e4 d7d5 e4d5 d8d5\ngo nodes 2000\n",
        );
        let best = lines.last().expect("bestmove");
        assert!(best.starts_with("bestmove "), "{lines:?}");
    }
}
