//! pgnkit: validate, clean, extract positions from and annotate chess games in PGN, on all cores.
//!
//! The library holds everything but the command line, in layers: the rules ([`chess`]), text
//! formats of positions and moves ([`notation`]), PGN syntax ([`pgn`]), input and output
//! ([`io`]), the parallel pipeline that replays every game ([`pipeline`]), the jobs and the run
//! driver they share ([`jobs`]), and engines ([`analysis`], [`engine`], [`search`]). The design
//! and its reasons: `docs/design.md`. Everything past the chess core ([`chess`], [`notation`],
//! [`pgn`]) is the default feature `cli`: `default-features = false` builds the core alone.
//!
//! The rules: play SAN on a position (python-chess's `push_san`), then ask about it. A position
//! with its history (python-chess's move stack: `pop`, repetitions, draw claims) is a
//! [`chess::Game`]; a [`Move`] prints as UCI, a [`Position`] as its FEN.
//!
//! ```
//! use pgnkit::chess::{Position, Termination, perft::perft};
//! use pgnkit::notation::San;
//!
//! let mut pos = Position::default();
//! for text in ["f3", "e5", "g4", "Qh4#"] {
//!     let san: San = text.parse().unwrap();
//!     san.play(&mut pos).unwrap();
//! }
//! assert_eq!(pos.outcome().map(|o| o.termination), Some(Termination::Checkmate));
//! assert_eq!(perft(&Position::default(), 3), 8_902);
//! ```
//!
//! From python-chess (`examples/python_chess_port.rs` ports a whole script):
//!
//! | python-chess | pgnkit |
//! | --- | --- |
//! | `chess.Board(fen)` | `fen.parse::<Position>()?` (another variant: [`notation::parse_fen`]); `Game::new(pos)` for the move stack |
//! | `board.push_san(s)`, `board.pop()`, `board.move_stack` | [`chess::Game::push_san`], [`chess::Game::pop`], [`chess::Game::moves`] |
//! | `board.san(m)`, `m.uci()`, `board.fen()` | [`chess::Game::san`] (a position: `SanPlus::from_move(&pos, m).to_string()`), `m.to_string()`, `pos.to_string()` |
//! | `board.legal_moves` | [`Position::legal_moves`] |
//! | `is_check`, `is_checkmate`, `is_stalemate`, `is_insufficient_material` | the same names on [`Position`] |
//! | `can_claim_draw()`, `outcome()`, `is_game_over()` | on [`chess::Game`] (it has the history) |
//! | `chess.pgn.read_game(f)` | [`pgn::read_games`]`(&bytes)`: [`pgn::PgnGame`]s |
//! | `game.headers["White"]`, `game.mainline()`, `node.board()` | `game.header("White")`, `game.game.moves()`, `game.game.positions()[i + 1]` |
//! | `node.eval()`, `node.clock()` | [`pgn::PgnGame::eval`], [`pgn::PgnGame::clock`] |
//! | `chess.pgn.Game.from_board(board)`, `str(game)` | [`pgn::Writer::game`] |
//! | `chess.variant.CrazyhouseBoard`, `chess960=True` | `Variant::Crazyhouse` (feature `variants`), `Variant::Chess960` |
//! | `perft` | [`chess::perft::perft`] |
//!
//! Notation: read a FEN, write SAN and UCI (reading is `parse_*`, writing `write_*` into a
//! `String` or a reused `Vec<u8>`).
//!
//! ```
//! use pgnkit::chess::Variant;
//! use pgnkit::notation::{EpMode, parse_fen, parse_uci, write_fen, write_san};
//!
//! let pos = parse_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", Variant::Standard)?;
//! let m = parse_uci(&pos, b"f1b5")?;
//! let (mut san, mut fen) = (String::new(), String::new());
//! write_san(&pos, m, &mut san);
//! write_fen(&pos, EpMode::Legal, &mut fen);
//! assert_eq!(san, "Bb5");
//! assert!(fen.starts_with("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! PGN: read games whole, their mainline played ([`pgn::read_games`], python-chess's
//! `chess.pgn.read_game`), or with a visitor over a byte slice (here, the mainline moves of each
//! game), and write them in export format: a [`chess::Game`] whole with [`pgn::Writer::game`]. To write
//! replayed games back (canonical SAN, comments, NAGs and variations), see
//! [`pipeline::replay::export::export`].
//!
//! ```
//! use std::ops::ControlFlow;
//! use pgnkit::pgn::{GameResult, Reader, SanToken, Visitor, Writer};
//!
//! struct Moves(Vec<String>);
//! impl<'a> Visitor<'a> for Moves {
//!     type Output = Vec<String>;
//!     fn san(&mut self, san: SanToken<'a>) -> ControlFlow<()> {
//!         self.0.push(String::from_utf8_lossy(san.raw).into_owned());
//!         ControlFlow::Continue(())
//!     }
//!     fn begin_variation(&mut self, _: usize) -> ControlFlow<()> {
//!         ControlFlow::Break(()) // skip variations
//!     }
//!     fn end_game(&mut self) -> Vec<String> {
//!         std::mem::take(&mut self.0)
//!     }
//! }
//! let mut reader = Reader::new(b"1. e4 { [%clk 0:05:00] } e5 (1... c5) 2. Nf3 1-0\n");
//! assert_eq!(reader.read_game(&mut Moves(Vec::new())), Some(vec!["e4".into(), "e5".into(), "Nf3".into()]));
//!
//! let (mut out, mut w) = (Vec::new(), Writer::new());
//! w.san(&mut out, b"e4", 1, false);
//! w.end_game(&mut out, GameResult::Unknown);
//! assert_eq!(out, b"1. e4 *\n\n");
//! ```
//!
//! Replay: every game played through the rules, its events handed to [`pipeline::replay::Hooks`]
//! (here: the final position of each game, and the games with an error).
//!
//! ```
//! use pgnkit::chess::Position;
//! use pgnkit::notation::{EpMode, write_fen};
//! use pgnkit::pipeline::replay::{Game, Games, Hooks};
//!
//! #[derive(Default)]
//! struct Ends(Vec<String>);
//! impl<'a> Hooks<'a> for Ends {
//!     fn end(&mut self, game: &Game<'a>, last: Option<&Position>) {
//!         let mut fen = String::new();
//!         match last {
//!             Some(pos) if game.errors == 0 => write_fen(pos, EpMode::Legal, &mut fen),
//!             _ => fen.push_str("error"),
//!         }
//!         self.0.push(fen);
//!     }
//! }
//! let mut games = Games::new(Ends::default(), b"1. f3 e5 2. g4 Qh4# 0-1\n\n1. e4 Ke7 *\n");
//! while games.next_game() {}
//! assert_eq!(games.into_hooks().0, ["rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", "error"]);
//! ```
//!
//! Jobs: run a job over files with the driver every command uses ([`jobs::run::run`]), e.g.
//! `check` writing its report (`pgnkit check` is this plus argument parsing).
//!
//! ```no_run
//! use pgnkit::io::{Output, OutputOptions};
//! use pgnkit::jobs::check::{Check, CheckOptions, Report};
//! use pgnkit::jobs::run::{RunOptions, run};
//! use pgnkit::pipeline::NoProgress;
//!
//! let job = Check::default();
//! let mut report = Report::new(Output::create("-".as_ref(), &OutputOptions::default())?, false);
//! let summary = run(&job, &["games.pgn.zst".into()], &RunOptions::default(), &NoProgress, &mut report)?;
//! report.finish(&summary, &job.select)?;
//! println!("{} games, {} with errors", summary.stats.games, summary.stats.games_with_errors);
//! # Ok::<(), pgnkit::error::Error>(())
//! ```

pub mod chess;
pub mod notation;
pub mod pgn;

// The tool (feature `cli`, default): without it the crate is the chess core above.
#[cfg(feature = "cli")]
pub mod analysis;
#[cfg(feature = "cli")]
pub mod columnar;
#[cfg(feature = "cli")]
pub mod engine;
#[cfg(feature = "cli")]
pub mod error;
#[cfg(feature = "cli")]
pub mod exit;
#[cfg(feature = "cli")]
pub mod io;
#[cfg(feature = "cli")]
pub mod jobs;
#[cfg(feature = "cli")]
pub mod pipeline;
#[cfg(feature = "cli")]
pub mod search;
#[cfg(feature = "cli")]
pub mod select;
#[cfg(feature = "cli")]
pub mod shard;

pub use chess::{Color, Game, Move, Position, Role, Square, Variant};

/// The README's Rust examples, run as doctests so they stay true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// Skip or fail when a test's tool or data is missing (one decision for every test crate).
#[cfg(test)]
#[path = "../tests/common/skip.rs"]
pub(crate) mod skip;

/// The large shared data sets: `$PGNKIT_SHARED_DATA`, else their directory where CI places it,
/// beside the clone.
#[cfg(test)]
pub(crate) fn shared_data_dir() -> std::path::PathBuf {
    std::env::var_os("PGNKIT_SHARED_DATA").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data"),
        std::path::PathBuf::from,
    )
}

/// A file of the large shared data sets ([`shared_data_dir`]), or `None` after saying the test
/// using it is skipped (a user's clone does not have them; under CI the test fails instead).
#[cfg(test)]
pub(crate) fn read_shared_data(rel: &str) -> Option<String> {
    let path = shared_data_dir().join(rel);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) => {
            skip::skip(format_args!(
                "{}: {e} (the large shared data sets are not part of the repository)",
                path.display()
            ));
            None
        }
    }
}

/// What python-chess prints for `script` (run by `python3 -c`, with `input` on its stdin): the
/// oracle of the rules' tests, or `None` after saying the test is skipped (under CI it fails).
#[cfg(test)]
pub(crate) fn python_chess(script: &str, input: &str) -> Option<String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    if skip::python_chess_missing() {
        return None;
    }
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.to_owned();
    // Written from another thread, so a long answer cannot block the writing.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("python3 ends");
    writer.join().expect("stdin writer").expect("python3 reads its input");
    assert!(out.status.success(), "python3: {}", String::from_utf8_lossy(&out.stderr));
    Some(String::from_utf8(out.stdout).expect("UTF-8"))
}
