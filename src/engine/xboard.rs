//! `pgnkit xboard`: the xboard/WinBoard protocol (CECP version 2) over the built-in [`Searcher`],
//! reading commands from any `BufRead` and answering on any `Write`, like [`super::server::run_uci`].
//!
//! Commands are read on a thread of their own and the engine searches on another, so that
//! commands are read while it thinks. `?` (move now) and `quit` act at once. `ping`, moves and
//! `go` wait for the search to end (so `pong` means every earlier command has been dealt with,
//! the move included, as CECP asks), and the commands after them wait their turn. `force`, `new`,
//! `undo`, `remove`, `result`, `setboard`, `variant`, `white` and `black` abandon the running
//! search when their turn comes (at once when nothing waits), without sending its move; a move
//! that was already sent when they arrived is kept in the game, so the engine's game always
//! matches the GUI's. Moves are sent as coordinates
//! (`move e2e4`, `move e7e8q`, `move N@f3`), castling as `O-O`/`O-O-O` in `fischerandom` and as
//! the king's two-square step otherwise; moves are read in either castling form (and in SAN,
//! leniently). After its move the engine claims the end of the game itself: `1-0 {White mates}`,
//! `1/2-1/2 {Stalemate}`, `1/2-1/2 {Draw by repetition}`...
//!
//! Analyze mode (`analyze` until `exit`): the engine thinks about the position without end,
//! posting its lines whether `post` was sent or not, and never moves. A move, `undo`, `remove`,
//! `new` or `setboard` ends that analysis and starts one of the new position; `ping` is answered
//! at once; `?` and `.` are ignored.
//!
//! Time: `st` (seconds per move) wins over `level MPS BASE INC` with `time` (the engine's clock in
//! centiseconds); `sd` caps the depth. With no time information at all a move takes 5 seconds.
//! `nps N` before a `level` or `st` counts that control's time in nodes, N a second; `nps 0`
//! (or a negative N) counts it on the clock again.
//!
//! ```
//! use pgnkit::engine::{AtEof, xboard::run_xboard};
//! let mut out = Vec::new();
//! let input = "xboard\nprotover 2\nsd 2\nusermove e2e4\nping 7\n";
//! run_xboard(input.as_bytes(), &mut out, AtEof::Finish).unwrap();
//! let out = String::from_utf8(out).unwrap();
//! assert!(out.contains("done=1"));
//! assert!(out.lines().any(|l| l.starts_with("move ")) && out.contains("pong 7"));
//! ```

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, Scope, ScopedJoinHandle};
use std::time::Duration;

use crossbeam_channel::{Receiver, bounded, never, select};

use crate::analysis::{Analyzer, Limit, Score};
use crate::chess::{CastlingMode, CastlingSide, Color, Game, Move, Position, Variant};
use crate::notation::fen::parse_fen;
use crate::notation::uci::write_uci;
use crate::search::{Searcher, TimeUse};

use super::game::{MoveInputError, ending, parse_move};
use super::input::{self, AtEof, Line, say};
use super::protocol::number;
use super::xboard_clock::{Clock, parse_duration};

/// The answer to `protover 2`.
pub const FEATURES: &str = concat!(
    "feature ping=1 setboard=1 usermove=1 san=0 time=1 draw=0 sigint=0 sigterm=0 reuse=1 analyze=1 nps=1 ",
    "myname=\"pgnkit ",
    env!("CARGO_PKG_VERSION"),
    "\" variants=\"normal,crazyhouse,fischerandom\" colors=0 done=1"
);

/// The move as sent to the GUI: coordinates, with `O-O`/`O-O-O` for Chess960 castling.
pub fn xboard_move(pos: &Position, m: Move) -> String {
    if m.is_castle() && pos.castling_mode().is_chess960() {
        let side = if m.to() > m.from_raw() { CastlingSide::KingSide } else { CastlingSide::QueenSide };
        return if side.is_king_side() { "O-O" } else { "O-O-O" }.to_string();
    }
    let mut text = String::new();
    write_uci(m, CastlingMode::Standard, &mut text);
    text
}

/// Everything but the running search.
struct Engine {
    game: Game,
    variant: Variant,
    /// Force mode: the engine plays neither side.
    force: bool,
    /// The side the engine plays when not in force mode.
    side: Color,
    post: bool,
    /// Analyze mode: the engine thinks about every position without end and never moves.
    analyzing: bool,
    clock: Clock,
    searcher: Option<Searcher>,
}

impl Engine {
    fn limit(&self) -> Limit {
        self.clock.limit(self.game.position().fullmoves())
    }

    /// The engine moves next.
    fn to_move(&self) -> bool {
        !self.force
            && !self.analyzing
            && self.side == self.game.position().turn()
            && ending(&self.game).is_none()
    }

    fn reset(&mut self, start: Position) {
        self.game = Game::new(start);
    }
}

/// `ply score time nodes pv`: score in centipawns for the side to move (mates as 100000 + N),
/// time in centiseconds.
fn thinking_line(pos: &Position, info: &crate::search::Info) -> String {
    let score = match info.score {
        Score::Cp(cp) => cp,
        Score::Mate(n) if n > 0 => 100_000 + n,
        Score::Mate(n) => -100_000 + n,
    };
    let mut line = format!("{} {} {} {}", info.depth, score, info.time.as_millis() / 10, info.nodes);
    let mut p = *pos;
    for &m in &info.pv {
        line.push(' ');
        line.push_str(&xboard_move(&p, m));
        p.play_unchecked(m);
    }
    line
}

/// The engine's search on its own thread, with a channel that disconnects when it has ended.
struct Thinking<'scope> {
    handle: ScopedJoinHandle<'scope, (Searcher, Option<Move>)>,
    ended: Receiver<()>,
}

/// How a command meets a running search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Acts on the search at once: `?` (move now), `quit`.
    Now,
    /// Abandons the search when its turn comes (its move is not sent), then waits for it to end.
    Abandon,
    /// Waits for the search to end: `ping` (answered after the move), moves, `go`.
    Wait,
    /// Touches no search: carried out at once unless commands before it wait.
    Free,
}

/// The kind of command `cmd` (the line's first word), in analyze mode or not. In analyze mode
/// the search never ends by itself: what would wait for it abandons it instead (the position it
/// changes is analysed next, `exit` ends it), `ping` is answered at once and `?` is ignored.
fn kind(cmd: &str, analyzing: bool) -> Kind {
    if analyzing {
        return match cmd {
            "quit" => Kind::Now,
            "ping" | "?" => Kind::Free,
            "exit" => Kind::Abandon,
            _ if kind(cmd, false) == Kind::Free => Kind::Free,
            _ => Kind::Abandon,
        };
    }
    match cmd {
        "?" | "quit" => Kind::Now,
        "new" | "variant" | "force" | "result" | "setboard" | "undo" | "remove" | "white" | "black"
        | "analyze" => Kind::Abandon,
        "" | "xboard" | "accepted" | "rejected" | "easy" | "hard" | "random" | "computer" | "name"
        | "rating" | "ics" | "cores" | "memory" | "draw" | "hint" | "bk" | "." | "otim" | "egtpath"
        | "option" | "exit" | "protover" | "post" | "nopost" | "time" | "level" | "st" | "sd" | "nps" => {
            Kind::Free
        }
        _ => Kind::Wait,
    }
}

/// A line's command word and its argument.
fn split(line: &str) -> (&str, &str) {
    let line = line.trim();
    let (cmd, arg) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    (cmd, arg.trim())
}

/// The loop's state between commands: the game, the search thinking about it, and the commands
/// read during the search that wait for it to end.
struct Dialogue<'scope, 'env, W: Write + Send> {
    scope: &'scope Scope<'scope, 'env>,
    out: &'env Mutex<W>,
    eng: Engine,
    stop: Arc<AtomicBool>,
    /// The running search does not send its move.
    discard: Arc<AtomicBool>,
    running: Option<Thinking<'scope>>,
    waiting: VecDeque<String>,
    /// In analyze mode, the position changed since its analysis started: analyse it once the
    /// commands read so far are carried out.
    reanalyse: bool,
    /// The input has ended under [`AtEof::Finish`]: what was read is carried out, then the loop
    /// ends.
    eof: bool,
}

impl<'scope, 'env, W: Write + Send> Dialogue<'scope, 'env, W> {
    /// A line as it is read; `false` on `quit`.
    fn read(&mut self, line: String) -> io::Result<bool> {
        let cmd = split(&line).0;
        match kind(cmd, self.eng.analyzing) {
            Kind::Now if cmd == "quit" => {
                self.abandon();
                self.join();
                return Ok(false);
            }
            Kind::Now => {
                if self.running.is_some() {
                    self.stop.store(true, Ordering::Relaxed);
                }
            }
            kind => {
                // Its turn has come unless earlier commands wait; if they do, it abandons the
                // search that is running when its turn comes (`next_waiting`).
                if kind == Kind::Abandon && self.waiting.is_empty() {
                    self.abandon();
                }
                if self.waiting.is_empty() && (kind == Kind::Free || self.running.is_none()) {
                    self.execute(&line)?;
                } else {
                    self.waiting.push_back(line);
                }
            }
        }
        Ok(true)
    }

    /// The next waiting line that can be carried out now. One that abandons the search waits
    /// for it to end, but abandons it first: a line before it may have started it.
    fn next_waiting(&mut self) -> Option<String> {
        let kind = kind(split(self.waiting.front()?).0, self.eng.analyzing);
        if self.running.is_none() || kind == Kind::Free {
            return self.waiting.pop_front();
        }
        if kind == Kind::Abandon {
            self.abandon();
        }
        None
    }

    /// Stops the running search without sending its move (a move already sent stays played).
    fn abandon(&self) {
        if self.running.is_some() {
            self.discard.store(true, Ordering::Relaxed);
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Waits for the running search to end and plays the move it sent, if any.
    fn join(&mut self) {
        if let Some(t) = self.running.take() {
            let (searcher, sent) = t.handle.join().expect("search thread panicked");
            self.eng.searcher = Some(searcher);
            if let Some(m) = sent {
                self.eng.game.push(m).expect("the search's move is legal");
            }
        }
    }

    /// A command, with no search running unless it is [`Kind::Free`].
    fn execute(&mut self, line: &str) -> io::Result<()> {
        let (out, eng) = (self.out, &mut self.eng);
        let (cmd, arg) = split(line);
        match cmd {
            "" | "xboard" | "accepted" | "rejected" | "easy" | "hard" | "random" | "computer" | "name"
            | "rating" | "ics" | "cores" | "memory" | "draw" | "hint" | "bk" | "." | "?" | "otim"
            | "egtpath" | "option" => {}
            "analyze" => eng.analyzing = true,
            "exit" => eng.analyzing = false,
            "protover" => say(out, FEATURES)?,
            "ping" => say(out, &format!("pong {arg}"))?,
            "post" => eng.post = true,
            "nopost" => eng.post = false,
            "time" => match number(arg) {
                Some(cs) => eng.clock.time = Some(Duration::from_millis(cs.saturating_mul(10))),
                None => say(out, &format!("Error (bad time): {arg}"))?,
            },
            "level" => match eng.clock.level(arg) {
                Some(clock) => eng.clock = clock.counted(),
                None => say(out, &format!("Error (bad level): {arg}"))?,
            },
            "st" => match parse_duration(arg, false) {
                Some(t) => {
                    eng.clock = eng.clock.counted();
                    eng.clock.st = Some(t);
                }
                None => say(out, &format!("Error (bad st): {arg}"))?,
            },
            // CECP: `nps 0` times the search again; a negative rate reads as 0, as `time` does.
            "nps" => match number(arg) {
                Some(n) => (eng.clock.nps, eng.clock.nps_next) = ((n > 0).then_some(n), true),
                None => say(out, &format!("Error (bad nps): {arg}"))?,
            },
            "sd" => match number(arg) {
                Some(d) if d > 0 => eng.clock.sd = Some(u32::try_from(d).unwrap_or(u32::MAX)),
                _ => say(out, &format!("Error (bad sd): {arg}"))?,
            },
            "new" => {
                eng.variant = Variant::Standard;
                eng.reset(Position::default());
                eng.force = false;
                eng.side = Color::Black;
                eng.clock.sd = None;
                eng.clock.st = None;
                eng.clock.nps = None;
                if let Some(s) = eng.searcher.as_mut() {
                    s.new_game();
                }
            }
            "variant" => {
                let v = match arg {
                    "normal" => Some(Variant::Standard),
                    "fischerandom" => Some(Variant::Chess960),
                    "crazyhouse" => Some(Variant::Crazyhouse),
                    _ => None,
                };
                match v {
                    Some(v) => {
                        eng.variant = v;
                        eng.reset(Position::new(v));
                    }
                    None => say(out, &format!("Error (unsupported variant): {arg}"))?,
                }
            }
            "force" | "result" => eng.force = true,
            "setboard" => match parse_fen(arg, eng.variant) {
                Ok(pos) => eng.reset(pos),
                Err(e) => say(out, &format!("tellusererror Illegal position: {e}"))?,
            },
            "undo" | "remove" => {
                // All or nothing: `remove` with one move played takes none back, as it says.
                let n = if cmd == "undo" { 1 } else { 2 };
                if eng.game.moves().len() < n {
                    say(out, &format!("Error (no move to take back): {cmd}"))?;
                } else {
                    for _ in 0..n {
                        eng.game.pop();
                    }
                }
            }
            "white" | "black" => {
                eng.side = if cmd == "white" { Color::Black } else { Color::White };
                eng.force = false;
            }
            "go" | "playother" => {
                eng.force = false;
                eng.analyzing = false;
                let turn = eng.game.position().turn();
                eng.side = if cmd == "go" { turn } else { !turn };
                if eng.to_move() {
                    self.think(false)?;
                } else if let Some(end) = ending(&eng.game) {
                    // No move to make: the result is the answer (a GUI waits for one).
                    say(out, &end.xboard())?;
                }
            }
            _ => {
                let (text, explicit) = if cmd == "usermove" { (arg, true) } else { (line.trim(), false) };
                match parse_move(eng.game.position(), text) {
                    Ok(m) => {
                        eng.game.push(m).expect("parse_move reads legal moves");
                        if eng.to_move() {
                            self.think(false)?;
                        } else if !eng.force
                            && !eng.analyzing
                            && let Some(end) = ending(&eng.game)
                        {
                            say(out, &end.xboard())?;
                        }
                    }
                    Err(MoveInputError::Syntax) if !explicit => {
                        say(out, &format!("Error (unknown command): {}", line.trim()))?
                    }
                    Err(_) => say(out, &format!("Illegal move: {text}"))?,
                }
            }
        }
        // A command carried out in analyze mode with no search running abandoned the analysis
        // (or came after it ended): the position, changed or not, is analysed again.
        self.reanalyse |= self.eng.analyzing && self.running.is_none();
        Ok(())
    }

    /// In analyze mode, starts the analysis of the position once the commands read are carried
    /// out (none at the end of the input). A finished game's ends at once, its score said.
    fn resume_analysis(&mut self) -> io::Result<()> {
        if !self.reanalyse || self.running.is_some() || !self.waiting.is_empty() {
            return Ok(());
        }
        self.reanalyse = false;
        if self.eng.analyzing && !self.eof {
            self.think(true)?;
        }
        Ok(())
    }

    /// Starts the engine's search on its own thread. The thread sends `move ...` (and a result
    /// line when the move ends the game) unless `discard` was set first, and returns the move it
    /// sent. An `analysis` has no limit, always posts its thinking and sends no move.
    fn think(&mut self, analysis: bool) -> io::Result<()> {
        let eng = &mut self.eng;
        let searcher = eng.searcher.take().expect("searcher is home");
        let game = eng.game.clone();
        let limit = if analysis { Limit::infinite() } else { eng.limit() };
        let post = eng.post || analysis;
        self.stop.store(false, Ordering::Relaxed);
        self.discard.store(false, Ordering::Relaxed);
        let (out, discard) = (self.out, Arc::clone(&self.discard));
        let (ended_tx, ended) = bounded::<()>(0);
        let handle = super::search_thread::spawn(self.scope, searcher, move |searcher| {
            let _ended = ended_tx;
            let pos = *game.position();
            // Every xboard time control is a clock to share out, `st` included (a maximum).
            let result =
                searcher.search_among(&pos, game.earlier_keys(), &limit, &[], TimeUse::Budget, &mut |info| {
                    if post && !discard.load(Ordering::Relaxed) {
                        let _ = say(out, &thinking_line(&pos, info));
                    }
                });
            let mut w = out.lock().unwrap_or_else(|e| e.into_inner());
            let m = result.best_move.filter(|_| !analysis && !discard.load(Ordering::Relaxed))?;
            let mut after = game;
            after.push(m).expect("the search's move is legal");
            let _ = writeln!(w, "move {}", xboard_move(&pos, m));
            if let Some(end) = ending(&after) {
                let _ = writeln!(w, "{}", end.xboard());
            }
            let _ = w.flush();
            Some(m)
        })?;
        self.running = Some(Thinking { handle, ended });
        Ok(())
    }
}

/// Runs the xboard protocol until `quit` or the end of `input`, which is `quit` too under
/// [`AtEof::Quit`]; under [`AtEof::Finish`] what was read is carried out first, the engine's
/// searches included. Commands are read on a thread of their own, so `?` and `quit` act while
/// the engine thinks whatever was read before them.
pub fn run_xboard<R: BufRead + Send + 'static, W: Write + Send>(
    input: R,
    output: W,
    at_eof: AtEof,
) -> io::Result<()> {
    let lines = input::lines(input)?;
    let out = Mutex::new(output);
    let searcher = Searcher::new();
    let stop = searcher.stop_handle();
    let eng = Engine {
        game: Game::default(),
        variant: Variant::Standard,
        force: false,
        side: Color::Black,
        post: false,
        analyzing: false,
        clock: Clock::default(),
        searcher: Some(searcher),
    };
    thread::scope(|scope| -> io::Result<()> {
        let mut dialogue = Dialogue {
            scope,
            out: &out,
            eng,
            stop,
            discard: Arc::new(AtomicBool::new(false)),
            running: None,
            waiting: VecDeque::new(),
            reanalyse: false,
            eof: false,
        };
        loop {
            if let Some(line) = dialogue.next_waiting() {
                dialogue.execute(&line)?;
                continue;
            }
            dialogue.resume_analysis()?;
            if dialogue.eof && dialogue.running.is_none() && dialogue.waiting.is_empty() {
                return Ok(());
            }
            let ended = dialogue.running.as_ref().map_or_else(never, |t| t.ended.clone());
            let input = if dialogue.eof { never() } else { lines.clone() };
            select! {
                recv(input) -> line => match line {
                    Ok(Ok(Line::Text(line))) => {
                        if !dialogue.read(line)? {
                            return Ok(());
                        }
                    }
                    Ok(Ok(Line::NotUtf8(line))) => say(&out, &format!("Error (unknown command, not UTF-8): {line}"))?,
                    Ok(Ok(Line::TooLong)) => say(&out, &format!("Error (unknown command, longer than {} bytes): skipped", input::MAX_LINE))?,
                    Ok(Err(e)) => {
                        dialogue.abandon();
                        dialogue.join();
                        return Err(e);
                    }
                    Err(_) if at_eof == AtEof::Quit => {
                        dialogue.abandon();
                        dialogue.join();
                        return Ok(());
                    }
                    Err(_) => {
                        dialogue.eof = true;
                        // An analysis never ends by itself: what was read before it is done.
                        if dialogue.eng.analyzing {
                            dialogue.abandon();
                        }
                    }
                },
                recv(ended) -> _ => dialogue.join(),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &str) -> Vec<String> {
        crate::engine::search_thread::dialogue(|i, o| run_xboard(i, o, AtEof::Finish), input)
    }

    fn moves(lines: &[String]) -> Vec<&str> {
        lines.iter().filter_map(|l| l.strip_prefix("move ")).collect()
    }

    #[test]
    fn handshake_and_play() {
        let lines = run("xboard\nprotover 2\nnew\nsd 3\nusermove e2e4\nping 1\nusermove e7e5\n");
        assert_eq!(lines[0], FEATURES);
        let m = moves(&lines);
        assert_eq!(m.len(), 1, "{lines:?}");
        assert!(lines.contains(&"pong 1".to_string()));
        // The engine's reply is on the board, so e7e5 is White's move now: illegal.
        assert_eq!(lines.last().map(String::as_str), Some("Illegal move: e7e5"));
    }

    #[test]
    fn go_in_a_finished_game_answers_its_result() {
        let lines = run("new\nforce\nsetboard 3R2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1\ngo\n");
        assert_eq!(lines.last().map(String::as_str), Some("1-0 {White mates}"), "{lines:?}");
        let lines = run("new\nforce\nsetboard 7k/8/6QK/8/8/8/8/8 b - - 0 1\nplayother\ngo\n");
        assert_eq!(lines.last().map(String::as_str), Some("1/2-1/2 {Stalemate}"), "{lines:?}");
    }

    #[test]
    fn mates_and_claims() {
        let lines = run("new\nforce\nsetboard 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1\nsd 3\npost\ngo\n");
        assert!(lines.iter().any(|l| l.starts_with("3 100001 ")), "{lines:?}");
        let n = lines.len();
        assert_eq!(lines[n - 2..], ["move d1d8", "1-0 {White mates}"]);
        let lines = run("new\nforce\nsetboard 7k/8/6K1/8/8/8/8/5Q2 w - - 0 1\nsd 2\nnopost\ngo\n");
        assert_eq!(lines.last().map(String::as_str), Some("1-0 {White mates}"), "{lines:?}");
        // Stalemate after the user's move, with the engine to move.
        let lines = run("new\nforce\nsetboard 7k/8/5QK1/8/8/8/8/8 w - - 0 1\nsd 2\ngo\n");
        assert!(lines.iter().any(|l| l.starts_with("move ")), "{lines:?}");
    }

    #[test]
    fn force_undo_and_bad_input() {
        let lines = run(
            "new\nforce\ne2e4\ne7e5\nNf3\nundo\nremove\nusermove e2e5\nfrobnicate\nsetboard junk\nsd 1\ngo\n",
        );
        assert_eq!(lines[0], "Illegal move: e2e5");
        assert_eq!(lines[1], "Error (unknown command): frobnicate");
        assert!(lines[2].starts_with("tellusererror Illegal position"));
        // Back at the start with White to move: the engine plays a White move.
        let m = moves(&lines);
        assert_eq!(m.len(), 1);
        assert!(parse_move(&Position::default(), m[0]).is_ok(), "{m:?}");
    }

    /// `sd` and `time` past their types are the largest, not refused or passed over; a word
    /// is an error.
    #[test]
    fn numbers_out_of_range_are_clamped() {
        let input =
            "new\nforce\nsd 99999999999\ntime 99999999999999999999999\ntime abc\notim -5\nst 0.05\ngo\n";
        let lines = run(input);
        let errors: Vec<&String> = lines.iter().filter(|l| l.starts_with("Error")).collect();
        assert_eq!(errors, ["Error (bad time): abc"]);
        assert_eq!(moves(&lines).len(), 1, "{lines:?}");
    }

    /// CECP's `nps 0` times the search again, and a negative rate reads as 0, not an error; a
    /// word is an error.
    #[test]
    fn nps_zero_or_negative_counts_time() {
        let lines = run("new\nforce\nnps -1\nnps 0\nnps abc\nst 0.05\ngo\n");
        let errors: Vec<&String> = lines.iter().filter(|l| l.starts_with("Error")).collect();
        assert_eq!(errors, ["Error (bad nps): abc"], "{lines:?}");
        assert_eq!(moves(&lines).len(), 1, "{lines:?}");
    }

    /// Input echoed in an answer has its control characters escaped: no NUL reaches the GUI.
    #[test]
    fn echoed_control_characters_are_escaped() {
        let lines = run("new\nforce\nusermove e2e4\u{0}\npi\u{1b}ng\n");
        assert_eq!(lines, ["Illegal move: e2e4\\u{0}", "Error (unknown command): pi\\u{1b}ng"]);
    }

    /// `remove` takes back two moves or, with fewer played, none: it says so and the game stays.
    #[test]
    fn remove_with_one_move_played_takes_none_back() {
        let lines = run("new\nforce\nusermove e2e4\nremove\nusermove e7e5\nremove\nusermove e2e4\n");
        assert_eq!(lines, ["Error (no move to take back): remove"], "{lines:?}");
    }

    #[test]
    fn fischerandom_castling_both_ways() {
        let fen = "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1";
        for castle in ["O-O", "e1h1", "e1g1"] {
            let lines = run(&format!(
                "new\nvariant fischerandom\nforce\nsetboard {fen}\nusermove {castle}\nsd 1\ngo\n"
            ));
            assert!(!lines.iter().any(|l| l.starts_with("Illegal")), "{castle}: {lines:?}");
        }
        let lines = run(&format!("new\nvariant fischerandom\nforce\nsetboard {fen}\nsd 2\nst 1\n"));
        assert!(lines.is_empty());
        let pos = parse_fen(fen, Variant::Chess960).expect("valid");
        let castle = crate::notation::uci::parse_uci(&pos, b"e1h1").expect("castling");
        assert_eq!(xboard_move(&pos, castle), "O-O");
        let standard = parse_fen(fen, Variant::Standard).expect("valid");
        assert_eq!(xboard_move(&standard, castle), "e1g1");
    }

    #[test]
    fn clocks() {
        let lines = run("new\nlevel 40 0:02 0\ntime 200\notim 200\nusermove d2d4\n");
        assert_eq!(moves(&lines).len(), 1, "{lines:?}");
        let lines = run("new\nst 0.05\nusermove d2d4\nquit\n");
        assert!(moves(&lines).len() <= 1);
        let lines = run("new\nvariant crazyhouse\nsd 2\nusermove e2e4\n");
        assert_eq!(moves(&lines).len(), 1, "{lines:?}");
        assert_eq!(run("variant atomic\n"), ["Error (unsupported variant): atomic"]);
    }
}
