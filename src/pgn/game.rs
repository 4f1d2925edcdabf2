//! [`PgnGame`]: a game read whole with the rules (python-chess's `chess.pgn.read_game`, for
//! the mainline): its tags, its moves played from the start its `Variant` and `FEN` tags give,
//! the comment after each move, and its result. The chess core alone reads it; variations are
//! skipped. For millions of games, on all cores and with every variation, see the replay
//! pipeline (`pipeline::replay`, feature `cli`).
//!
//! The first bad move ends the mainline: the moves before it are kept and the error says where.

use std::ops::ControlFlow;
use std::time::Duration;

use super::{CommentKind, Eval, GameResult, Problem, RawComment, RawTag, Reader, SanToken, Visitor};
use crate::chess::{Game, Position, UnsupportedVariant, Variant};
use crate::notation::fen::parse_fen_tag;
use crate::notation::{FenError, SanError, parse_san};

/// One game read with [`read_games`]: tags, mainline, comments and result.
///
/// ```
/// use pgnkit::notation::SanPlus;
/// use pgnkit::pgn::read_games;
///
/// let pgn = b"[White \"Fool\"]\n[Result \"0-1\"]\n\n1. f3 e5 { [%clk 0:03:00] } 2. g4 Qh4# 0-1\n";
/// let game = read_games(pgn).next().unwrap();
/// assert_eq!(game.header("White"), Some("Fool"));
/// assert!(game.error.is_none());
/// // The mainline: positions()[i] is where moves()[i] is played, positions()[i + 1] after it.
/// let (moves, positions) = (game.game.moves(), game.game.positions());
/// for (i, &m) in moves.iter().enumerate() {
///     let san = SanPlus::from_move(&positions[i], m).to_string();
///     println!("{san} {} {:?} {:?}", positions[i + 1], game.eval(i), game.clock(i));
/// }
/// assert_eq!(game.clock(1), Some(std::time::Duration::from_secs(180)));
/// assert_eq!(game.game.position().to_string(), "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
/// assert!(game.game.position().is_checkmate());
/// ```
#[derive(Debug)]
pub struct PgnGame {
    /// The tags in the order written, values unescaped and decoded ([`RawTag::decode`]).
    pub headers: Vec<(String, String)>,
    /// The start position and the mainline moves played from it (its valid prefix when
    /// [`PgnGame::error`] is set).
    pub game: Game,
    /// `comments[0]` precedes the first move; `comments[i + 1]` follows move `i`. The comments
    /// at one place are joined with a space (python-chess's `node.comment`); empty if none.
    pub comments: Vec<String>,
    /// The movetext's result token, if the mainline was read up to it.
    pub result: Option<GameResult>,
    /// Why the mainline stops short, if it does.
    pub error: Option<GameError>,
    /// The reader's syntax problems (each located), errors and warnings alike.
    pub problems: Vec<Problem>,
    /// Byte offset of the game's first token in the input.
    pub offset: usize,
}

impl PgnGame {
    /// The value of the first tag named `name` (python-chess's `game.headers.get(name)`).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The `[%eval]` of the comment after move `i` (0-based ply).
    pub fn eval(&self, i: usize) -> Option<Eval> {
        self.comment_after(i)?.eval()
    }

    /// The `[%clk]` of the comment after move `i` (0-based ply).
    pub fn clock(&self, i: usize) -> Option<Duration> {
        self.comment_after(i)?.clock()
    }

    fn comment_after(&self, i: usize) -> Option<RawComment<'_>> {
        let text = self.comments.get(i + 1)?;
        Some(RawComment { raw: text.as_bytes(), offset: 0, kind: CommentKind::Brace })
    }
}

/// Why a game's mainline stops short of its movetext, with the byte offset of the culprit.
#[derive(Debug)]
pub enum GameError {
    /// The `Variant` tag names a variant pgnkit does not play: no move is played.
    Variant {
        /// Offset of the tag's `[`.
        offset: usize,
        /// The tag's value.
        error: UnsupportedVariant,
    },
    /// The `FEN` tag is no valid position: no move is played.
    Fen {
        /// Offset of the tag's `[`.
        offset: usize,
        /// What is wrong with it.
        error: FenError,
    },
    /// A mainline move is not a legal move (null moves included) where it stands.
    Move {
        /// Offset of the move's first byte.
        offset: usize,
        /// The move as written.
        san: String,
        /// Why it is no move.
        error: SanError,
    },
}

impl std::fmt::Display for GameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GameError::Variant { offset, error } => write!(f, "byte {offset}: {error}"),
            GameError::Fen { offset, error } => write!(f, "byte {offset}: {error}"),
            GameError::Move { offset, san, error } => write!(f, "byte {offset}: {error} \"{san}\""),
        }
    }
}

impl std::error::Error for GameError {}

/// The games of `bytes`, one [`PgnGame`] each, read one at a time (memory: one game's).
///
/// ```
/// use pgnkit::pgn::{GameError, read_games};
///
/// let pgn = b"1. e4 e5 2. Ke3 Nc6 *\n\n[Variant \"Crazyhouse\"]\n\n1. e4 d5 2. exd5 Qxd5 3. P@e4 *\n";
/// let games: Vec<_> = read_games(pgn).collect();
/// assert!(matches!(games[0].error, Some(GameError::Move { offset: 12, .. })));
/// assert_eq!(games[0].game.moves().len(), 2); // the moves before the bad one
/// assert_eq!(games[1].game.position().to_string(), "rnb1kbnr/ppp1pppp/8/3q4/4P3/8/PPPP1PPP/RNBQKBNR[p] b KQkq - 0 3");
/// ```
pub fn read_games(bytes: &[u8]) -> impl Iterator<Item = PgnGame> + '_ {
    let mut reader = Reader::new(bytes);
    std::iter::from_fn(move || reader.read_game(&mut Collect::default()))
}

/// The visitor behind [`read_games`].
#[derive(Default)]
struct Collect {
    headers: Vec<(String, String)>,
    variant: Option<(usize, String)>,
    fen: Option<(usize, String)>,
    game: Option<Game>,
    comments: Vec<String>,
    result: Option<GameResult>,
    error: Option<GameError>,
    problems: Vec<Problem>,
    offset: usize,
}

impl Collect {
    /// The start position from the `Variant` and `FEN` tags.
    fn start(&self) -> Result<Position, GameError> {
        let variant = match &self.variant {
            Some((offset, name)) => {
                Variant::from_tag(name).map_err(|error| GameError::Variant { offset: *offset, error })?
            }
            None => Variant::Standard,
        };
        let Some((offset, fen)) = &self.fen else { return Ok(Position::new(variant)) };
        // As every job reads a FEN tag: what can be dropped without a guess is.
        parse_fen_tag(fen, variant)
            .map(|(pos, _)| pos)
            .map_err(|error| GameError::Fen { offset: *offset, error })
    }
}

impl<'a> Visitor<'a> for Collect {
    type Output = PgnGame;

    fn begin_game(&mut self, start: super::GameStart) -> ControlFlow<()> {
        self.offset = start.offset;
        ControlFlow::Continue(())
    }

    fn tag(&mut self, name: &'a [u8], value: RawTag<'a>) {
        let text = value.decode().0.into_owned();
        let setup = match name {
            b"Variant" => Some(&mut self.variant),
            b"FEN" => Some(&mut self.fen),
            _ => None,
        };
        // The first of each, as the replay reads them.
        if let Some(slot) = setup.filter(|slot| slot.is_none()) {
            *slot = Some((value.offset, text.clone()));
        }
        self.headers.push((String::from_utf8_lossy(name).into_owned(), text));
    }

    fn begin_movetext(&mut self) -> ControlFlow<()> {
        match self.start() {
            Ok(pos) => self.game = Some(Game::new(pos)),
            Err(e) => self.error = Some(e),
        }
        ControlFlow::Continue(())
    }

    fn san(&mut self, san: SanToken<'a>) -> ControlFlow<()> {
        let Some(game) = self.game.as_mut().filter(|_| self.error.is_none()) else {
            return ControlFlow::Break(());
        };
        match parse_san(game.position(), san.raw) {
            Ok((m, _)) => {
                game.push(m).expect("parse_san gives a legal move");
                ControlFlow::Continue(())
            }
            Err(error) => {
                let san_text = String::from_utf8_lossy(san.raw).into_owned();
                self.error = Some(GameError::Move { offset: san.offset, san: san_text, error });
                ControlFlow::Break(())
            }
        }
    }

    fn comment(&mut self, comment: RawComment<'a>) {
        let ply = self.game.as_ref().map_or(0, |g| g.moves().len());
        self.comments.resize(self.comments.len().max(ply + 1), String::new());
        let slot = &mut self.comments[ply];
        if !slot.is_empty() {
            slot.push(' ');
        }
        slot.push_str(&super::text::decode(comment.text()).0);
    }

    fn begin_variation(&mut self, _: usize) -> ControlFlow<()> {
        ControlFlow::Break(())
    }

    fn outcome(&mut self, result: Option<GameResult>, _: usize) {
        self.result = result;
    }

    fn problem(&mut self, problem: Problem) {
        self.problems.push(problem);
    }

    fn end_game(&mut self) -> PgnGame {
        let mut c = std::mem::take(self);
        let game = match c.game {
            Some(game) => game,
            // No movetext event came: the tags alone still give the start.
            None => match c.start() {
                Ok(pos) => Game::new(pos),
                Err(e) => {
                    c.error.get_or_insert(e);
                    Game::new(Position::new(Variant::Standard))
                }
            },
        };
        c.comments.resize(game.moves().len() + 1, String::new());
        PgnGame {
            headers: c.headers,
            game,
            comments: c.comments,
            result: c.result,
            error: c.error,
            problems: c.problems,
            offset: c.offset,
        }
    }
}

#[cfg(test)]
mod tests;
