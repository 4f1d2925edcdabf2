//! `pgnkit play`: a game against the built-in engine in the terminal. Reads one line at a time
//! from stdin (a terminal or a pipe; the end of input ends the game cleanly; a line over
//! [`MAX_LINE`] is skipped as it is read, as `pgnkit uci` does), prints the board
//! after every move of the engine, and the result and PGN when the game ends.

use std::io::Write;
use std::time::Duration;

use pgnkit::analysis::{Analyzer, Limit, Score};
use pgnkit::chess::{Color, Game, Position, Variant};
use pgnkit::engine::game::{ending, parse_move, pgn};
use pgnkit::engine::input::{Line, MAX_LINE, next_line};
use pgnkit::notation::diagram::{TextStyle, text_diagram};
use pgnkit::notation::fen::{EpMode, parse_fen, write_fen};
use pgnkit::notation::san::SanPlus;
use pgnkit::pgn::GameResult;
use pgnkit::search::Searcher;

use pgnkit::error::UsageError;

use crate::cli::fail::Fail;
use pgnkit::exit::Code;

pub const EXAMPLES: &str = "\
Type moves in SAN (e4, Nf3, O-O, exd5, e8=Q) or UCI (e2e4, g1f3, e7e8q). Commands:
  go       the engine plays the side to move now (you take the other side)
  undo     take back your last move (and the engine's reply)
  pgn      print the game so far as PGN
  fen      print the position as FEN
  reset    take back every move (same start position, same sides)
  restart  a new game (the engine forgets what it learnt)
  help     this list
  exit     leave (also: quit, or the end of input); the PGN is printed

Examples:
  pgnkit play
  pgnkit play --color black --movetime 2000
  pgnkit play --fen '6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1' --depth 6 --ascii
  printf 'e4\\nundo\\nd4\\npgn\\nexit\\n' | pgnkit play --depth 3";

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// You play White.
    White,
    /// You play Black.
    Black,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Start position (default: the variant's start).
    #[arg(long)]
    fen: Option<String>,
    /// Engine strength as a search depth in plies.
    #[arg(long, conflicts_with = "movetime", value_parser = clap::value_parser!(u32).range(1..=64))]
    depth: Option<u32>,
    /// Engine thinking time per move in milliseconds (default 1000).
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// The side you play.
    #[arg(long, value_enum, default_value_t = Side::White)]
    color: Side,
    /// Rule set: standard, chess960 or crazyhouse.
    #[arg(long)]
    variant: Option<String>,
    /// Draw the board with ASCII letters instead of Unicode symbols.
    #[arg(long)]
    ascii: bool,
}

/// Stack for the search thread (the recursion keeps a position per ply).
const SEARCH_STACK: usize = 64 << 20;

struct PlayState {
    start: Position,
    game: Game,
    human: Color,
    human_default: Color,
    limit: Limit,
    style: TextStyle,
    searcher: Searcher,
    /// The result and PGN of the finished game were printed.
    reported: bool,
}

/// White's view of a score, as `+0.35` or `#3` / `#-2`.
fn format_score(turn: Color, score: Score) -> String {
    match pgnkit::analysis::PovScore::new(turn, score).white() {
        Score::Cp(cp) => format!("{:+.2}", cp as f64 / 100.0),
        Score::Mate(n) => format!("#{n}"),
    }
}

impl PlayState {
    fn tags(&self) -> Vec<(&'static str, String)> {
        let me = "You".to_string();
        let engine = self.searcher.name().to_string();
        let (white, black) = if self.human.is_white() { (me, engine) } else { (engine, me) };
        vec![("Event", "pgnkit play".to_string()), ("White", white), ("Black", black)]
    }

    fn pgn(&self, result: Option<GameResult>) -> String {
        let tags = self.tags();
        let tags: Vec<(&str, &str)> = tags.iter().map(|(n, v)| (*n, v.as_str())).collect();
        pgn(&self.game, &tags, result)
    }

    fn board(&self, out: &mut impl Write) -> std::io::Result<()> {
        writeln!(out)?;
        out.write_all(text_diagram(self.game.position(), self.style, !self.human.is_white()).as_bytes())?;
        if self.game.position().is_check() && ending(&self.game).is_none() {
            writeln!(
                out,
                "  {} is in check.",
                if self.game.position().turn().is_white() { "White" } else { "Black" }
            )?;
        }
        Ok(())
    }

    /// Prints the result and the PGN once when the game is over; `true` if it is.
    fn report_end(&mut self, out: &mut impl Write) -> std::io::Result<bool> {
        let Some(end) = ending(&self.game) else { return Ok(false) };
        if !self.reported {
            writeln!(out, "Game over: {} ({}).", end.result(), end.reason())?;
            writeln!(out)?;
            out.write_all(self.pgn(None).as_bytes())?;
            writeln!(out, "Type undo, restart or exit.")?;
            self.reported = true;
        }
        Ok(true)
    }

    fn engine_move(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        let pos = *self.game.position();
        let history = self.game.earlier_keys();
        let limit = self.limit;
        let searcher = &mut self.searcher;
        let analysis = std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(SEARCH_STACK)
                .spawn_scoped(s, move || searcher.search(&pos, history, &limit, &mut |_| {}))
                .map(|h| h.join().expect("search thread panicked"))
        })?;
        let Some(m) = analysis.best_move else { return Ok(()) };
        let pos = self.game.position();
        let number = if pos.turn().is_white() {
            format!("{}.", pos.fullmoves())
        } else {
            format!("{}...", pos.fullmoves())
        };
        writeln!(
            out,
            "pgnkit plays {number} {} (eval {}, depth {}, {} nodes)",
            SanPlus::from_move(pos, m),
            format_score(pos.turn(), analysis.score),
            analysis.depth,
            analysis.nodes
        )?;
        self.game.push(m).expect("the search's move is legal");
        self.board(out)?;
        self.report_end(out)?;
        Ok(())
    }

    fn new_game(&mut self, out: &mut impl Write, forget: bool) -> std::io::Result<()> {
        self.game = Game::new(self.start);
        self.reported = false;
        if forget {
            self.searcher.new_game();
            self.human = self.human_default;
        }
        self.board(out)?;
        if self.game.position().turn() != self.human && !self.report_end(out)? {
            self.engine_move(out)?;
        }
        Ok(())
    }

    fn undo(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        // Back to the human's turn: the engine's reply and the human's move.
        if self.game.pop().is_none() {
            return writeln!(out, "Nothing to undo.");
        }
        let mut undone = 1;
        if self.game.position().turn() != self.human && self.game.pop().is_some() {
            undone += 1;
        }
        self.reported = false;
        writeln!(out, "Took back {undone} {}.", if undone == 1 { "ply" } else { "plies" })?;
        self.board(out)?;
        if self.game.position().turn() != self.human {
            writeln!(out, "The engine is to move: type go, or enter a move to play this side yourself.")?;
        }
        Ok(())
    }
}

fn parse_args(args: &Args) -> Result<(Position, Limit), Fail> {
    let variant = match &args.variant {
        Some(v) => Variant::from_tag(v).map_err(|_| Fail::usage(format!("unknown variant {v:?}")))?,
        None if args.fen.as_deref().is_some_and(|f| f.contains('[')) => Variant::Crazyhouse,
        None => Variant::Standard,
    };
    let start = match &args.fen {
        Some(fen) => parse_fen(fen, variant).map_err(|source| UsageError::Fen {
            option: "bad FEN",
            fen: fen.to_string(),
            source,
        })?,
        None => Position::new(variant),
    };
    let limit = match (args.depth, args.movetime) {
        (Some(d), _) => Limit::depth(d),
        (None, Some(ms)) => Limit::movetime(Duration::from_millis(ms.max(1))),
        (None, None) => Limit::movetime(Duration::from_millis(1000)),
    };
    Ok((start, limit))
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    let (start, limit) = parse_args(args)?;
    let human = if args.color == Side::White { Color::White } else { Color::Black };
    let mut state = PlayState {
        game: Game::new(start),
        start,
        human,
        human_default: human,
        limit,
        style: if args.ascii { TextStyle::Ascii } else { TextStyle::Unicode },
        searcher: Searcher::new(),
        reported: false,
    };
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "pgnkit play: you are {}. Enter moves (e4, Nf3, e2e4) or a command (help).",
        if human.is_white() { "White" } else { "Black" }
    )?;
    state.new_game(&mut out, false)?;
    let (mut stdin, mut buf) = (std::io::stdin().lock(), Vec::new());
    loop {
        let turn = if state.game.position().turn().is_white() { "White" } else { "Black" };
        write!(out, "{turn} to move> ")?;
        out.flush()?;
        let line = match next_line(&mut stdin, &mut buf) {
            Ok(None) => {
                writeln!(out)?;
                break;
            }
            Ok(Some(Line::Text(line) | Line::NotUtf8(line))) => line,
            Ok(Some(Line::TooLong)) => {
                writeln!(out, "A line longer than {MAX_LINE} bytes: skipped. Type help for commands.")?;
                continue;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(Fail::Command { code: Code::IoErr, message: format!("reading stdin: {e}") });
            }
        };
        let input = line.trim();
        match input {
            "" => {}
            "help" | "?" => writeln!(out, "{}", EXAMPLES.split("\n\nExamples:").next().unwrap_or(EXAMPLES))?,
            "exit" | "quit" => break,
            "fen" => {
                let mut fen = String::new();
                write_fen(state.game.position(), EpMode::Legal, &mut fen);
                writeln!(out, "{fen}")?
            }
            "pgn" => out.write_all(state.pgn(None).as_bytes())?,
            "undo" => state.undo(&mut out)?,
            "reset" => state.new_game(&mut out, false)?,
            "restart" => state.new_game(&mut out, true)?,
            "board" => state.board(&mut out)?,
            "go" => {
                if state.report_end(&mut out)? {
                    continue;
                }
                state.human = !state.game.position().turn();
                state.engine_move(&mut out)?;
            }
            text => {
                if ending(&state.game).is_some() {
                    writeln!(out, "The game is over: type undo, restart, pgn or exit.")?;
                    continue;
                }
                match parse_move(state.game.position(), text) {
                    Err(e) => writeln!(out, "Illegal move {text:?}: {e}. Type help for commands.")?,
                    Ok(m) => {
                        state.human = state.game.position().turn();
                        state.game.push(m).expect("parse_move reads legal moves");
                        if ending(&state.game).is_some() {
                            state.board(&mut out)?;
                            state.report_end(&mut out)?;
                        } else {
                            state.engine_move(&mut out)?;
                        }
                    }
                }
            }
        }
    }
    if !state.reported && !state.game.moves().is_empty() {
        out.write_all(state.pgn(None).as_bytes())?;
    }
    Ok(Code::Ok)
}
