//! `pgnkit show`: a board diagram (ASCII, Unicode or SVG) of a FEN, or of a position in a game of
//! a PGN file (game N 1-based, ply P 0-based: ply 0 is the start, the default is the last ply).
//! A file that is not PGN is refused as every job refuses it (exit 65); a game or ply the file
//! does not have is a usage error (exit 2).

use std::io::Write;
use std::path::PathBuf;

use pgnkit::chess::attacks::attacks;
use pgnkit::chess::{Color, File, Move, MoveKind, Position, Rank, Role, Square, Variant};
use pgnkit::error::{Diagnostic, Severity};
use pgnkit::io::{Input, InputError, InputOptions, Source};
use pgnkit::jobs::diagnostics;
use pgnkit::jobs::run::{LOOKED_AT, not_pgn};
use pgnkit::notation::diagram::{SvgOptions, TextStyle, svg, text_diagram};
use pgnkit::notation::fen::{FenError, implied_variant, parse_fen};
use pgnkit::pgn::split::cut;
use pgnkit::pipeline::chunk::{Start, StreamChunks};
use pgnkit::pipeline::replay::{Game, Games, Hooks, Lines, Played};

use pgnkit::error::UsageError;

use crate::cli::fail::Fail;
use pgnkit::exit::Code;

pub const EXAMPLES: &str = "\
Examples:
  pgnkit show --fen 'r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3'
  pgnkit show games.pgn --game 3 --ply 20 --format svg > board.svg
  pgnkit show --fen '6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1' --format ascii --flip
  pgnkit show --fen 'rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3' --lastmove d8h4 --format svg";

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// FEN letters, `.` for empty squares.
    Ascii,
    /// Unicode chess symbols.
    Unicode,
    /// A standalone SVG image.
    Svg,
}

// The group makes the error of neither name both. An option of one side conflicts with the
// other: clap lets a `requires` pass when what is required conflicts with an argument given.
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("position").args(["file", "fen"]).required(true)))]
pub struct Args {
    /// A PGN file (plain, zstd or gzip), or `-` for stdin.
    #[arg(conflicts_with = "fen")]
    file: Option<PathBuf>,
    /// The position as FEN (instead of a PGN file).
    #[arg(long)]
    fen: Option<String>,
    /// With --fen: the rule set (standard, chess960, crazyhouse; default from the FEN).
    #[arg(long, conflicts_with = "file")]
    variant: Option<String>,
    /// With FILE: the game, 1-based.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "fen")]
    game: u64,
    /// With FILE: the ply, 0-based (0 is the start position; default: the end of the game).
    #[arg(long, conflicts_with = "fen")]
    ply: Option<u32>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Unicode)]
    format: Format,
    /// Black at the bottom.
    #[arg(long)]
    flip: bool,
    /// With --format svg: the move that led to the position, highlighted (UCI, e.g. e2e4, e7e8q
    /// or N@f3): the side that just moved must have its piece on the destination, come from the
    /// origin, now empty (castling: king and rook where it puts them); with FILE the game's move
    /// is highlighted without it.
    #[arg(long, value_name = "UCI")]
    lastmove: Option<String>,
}

/// Collects the start position, mainline moves and errors of one game (`None`: a null move).
struct Pick {
    number: u64,
    start: Option<Position>,
    moves: Vec<Option<Move>>,
    errors: Vec<Diagnostic>,
    found: bool,
}

impl<'a> Hooks<'a> for Pick {
    fn wants(&self, _: pgnkit::error::Kind, severity: Severity) -> bool {
        severity == Severity::Error
    }
    fn diagnostic(&mut self, game: &Game<'a>, d: Diagnostic) {
        if game.number == self.number && d.severity == Severity::Error {
            self.errors.push(d);
        }
    }
    fn start(&mut self, game: &Game<'a>, pos: &Position) {
        if game.number == self.number {
            self.start = Some(*pos);
        }
    }
    fn moves(&self) -> Lines {
        Lines::Mainline
    }
    fn played(&mut self, game: &Game<'a>, played: &Played<'a, '_>) {
        if game.number == self.number {
            self.moves.push(played.mv);
        }
    }
    fn end(&mut self, game: &Game<'a>, _last: Option<&Position>) {
        if game.number == self.number {
            self.found = true;
        }
    }
}

/// Two squares (`e2e4`), with a promotion (`e7e8q`), or a drop (`N@f3`): the move that led to
/// the position shown, so not a legal move of it ([`why_not_last`] checks it).
fn parse_highlight(text: &str) -> Option<Move> {
    let b = text.as_bytes();
    if b.len() == 4 && b[1] == b'@' {
        let role = Role::from_char(b[0].to_ascii_lowercase() as char).filter(|r| Role::POCKET.contains(r))?;
        return Some(Move::drop(role, Square::from_ascii(&b[2..])?));
    }
    let (from, to) = (Square::from_ascii(b.get(..2)?)?, Square::from_ascii(b.get(2..4)?)?);
    match b.get(4..)? {
        [] => Some(Move::normal(from, to)),
        &[p] => {
            let role = Role::from_char(p as char).filter(|r| Role::PROMOTIONS.contains(r))?;
            Some(Move::promotion(from, to, role))
        }
        _ => None,
    }
}

/// Why `m` cannot be the move that led to `pos`: the side that just moved has its piece on the
/// destination (the promotion's, the drop's), come from the origin, now empty, as the piece
/// moves (a pawn forward, a promotion from the last rank but one); castling leaves the king
/// and rook on their squares. `None` when it can.
fn why_not_last(pos: &Position, m: Move) -> Option<String> {
    let mover = !pos.turn();
    let board = pos.board();
    let to = m.to();
    let on_to = board.piece_at(to).filter(|p| p.color == mover);
    let Some(from) = m.from() else {
        let MoveKind::Drop(role) = m.kind() else { return None };
        if pos.variant() != Variant::Crazyhouse {
            return Some("a drop, in a position that is not crazyhouse".into());
        }
        let dropped = on_to.is_some_and(|p| p.role == role);
        return (!dropped).then(|| format!("no {} on {to}", role.of(mover).char()));
    };
    if castled(pos, mover, from, to) {
        return None;
    }
    let Some(piece) = on_to else {
        return Some(format!("no {} piece on {to}, the destination", mover.name()));
    };
    if board.piece_at(from).is_some() {
        return Some(format!("{from}, the origin, is not empty"));
    }
    let (f, t) = (from.relative(mover), to.relative(mover));
    let forward = |ranks: usize| t.rank().index() == f.rank().index() + ranks;
    let files = f.file().index().abs_diff(t.file().index());
    let moves_so = match m.promotion_role() {
        Some(role) if piece.role != role => {
            return Some(format!("no {} on {to}", role.of(mover).char()));
        }
        Some(_) => f.rank() == Rank::Seventh && forward(1) && files <= 1,
        None if piece.role == Role::Pawn => {
            let between = Square::from_coords(f.file(), Rank::Third).relative(mover);
            (forward(1) && files <= 1)
                || (f.rank() == Rank::Second && forward(2) && files == 0 && board.piece_at(between).is_none())
        }
        None => attacks(piece.role, mover, to, board.occupied()).contains(from),
    };
    (!moves_so).then(|| format!("the {} on {to} cannot have come from {from}", piece.char()))
}

/// Whether `from`-`to` (king to its square or to the rook's) is `mover`'s castling, the king and
/// rook where it puts them.
fn castled(pos: &Position, mover: Color, from: Square, to: Square) -> bool {
    let (f, t) = (from.relative(mover), to.relative(mover));
    if f.rank() != Rank::First || t.rank() != Rank::First || f == t {
        return false;
    }
    let (king, rook) = if t.file() > f.file() { (File::G, File::F) } else { (File::C, File::D) };
    let on = |file, role: Role| {
        let sq = Square::from_coords(file, Rank::First).relative(mover);
        pos.board().piece_at(sq) == Some(role.of(mover))
    };
    on(king, Role::King) && on(rook, Role::Rook)
}

/// The position of game `number` at `ply` (the end of its valid moves by default), the move
/// that led to it, and the game's errors.
type Picked = (Position, Option<Move>, Vec<Diagnostic>);

/// Bytes of a compressed input or stdin read at a time while the game is looked for: memory stays
/// about this, whatever the input holds before the game. The first piece is as long as the
/// text the jobs look at before they call an input no PGN.
const STREAM_CHUNK: usize = LOOKED_AT as usize;

/// What [`look`] read of a piece: the pick, the games and the line breaks.
type Looked = (Pick, u64, u64);

/// Looks for game `pick.number` in `bytes`, which begin at `start` of the input at `path` (the
/// game's errors get the input's lines). The first piece of the input is refused as every job
/// refuses it when it is no PGN, before a game of it is looked for or drawn.
fn look(pick: Pick, bytes: &[u8], start: Start, path: &std::path::Path) -> Result<Looked, Fail> {
    let mut replay = Games::starting(pick, bytes, start);
    while !replay.hooks().found && replay.next_game() {}
    if start.offset == 0
        && let Some(e) = not_pgn(&mut replay, path, bytes)
    {
        return Err(e.into());
    }
    let (games, newlines) = (replay.stats().games, replay.newlines());
    let mut pick = replay.into_hooks();
    pick.errors.iter_mut().for_each(|d| d.shift(0, start.line));
    Ok((pick, games, newlines))
}

fn from_pgn(path: &std::path::Path, number: u64, ply: Option<u32>) -> Result<Picked, Fail> {
    let mut input = Input::open(path, InputOptions::default()).map_err(Fail::from)?;
    let mut pick = Pick { number, start: None, moves: Vec::new(), errors: Vec::new(), found: false };
    let mut games = 0;
    match input.source {
        Source::Mapped(ref map) => (pick, games, _) = look(pick, map, Start::default(), path)?,
        // Read in game-aligned pieces, never whole: a lichess dump is tens of GB.
        Source::Stream(ref mut stream) => {
            let mut line = 0;
            for cut in StreamChunks::new(stream, STREAM_CHUNK, cut, Start::default()) {
                let cut = cut.map_err(|e| Fail::from(InputError::reading(path, input.compression, e)))?;
                let start = Start { offset: cut.offset, game: cut.first_game, line, column: cut.column };
                let (read, newlines);
                (pick, read, newlines) = look(pick, &cut.bytes[..], start, path)?;
                games += read;
                if pick.found {
                    break;
                }
                line += newlines;
            }
        }
    }
    let name = pgnkit::io::name::Name::of(path);
    let name = name.prose();
    if !pick.found {
        let games = diagnostics::counted(games, "game", "games");
        return Err(Fail::usage(format!("{name} has {games}: there is no game {number}")));
    }
    let Some(mut pos) = pick.start else {
        // A game of a PGN input, bad as the jobs report it: its errors where they stand, exit 1.
        let shown = pgnkit::io::name::input(path);
        for d in &pick.errors {
            stderrln!("{}", diagnostics::diagnostic_text(&shown, d));
        }
        return Err(Fail::Command {
            code: Code::Failures,
            message: format!("{name}: game {number} has no position to draw: its start position is invalid"),
        });
    };
    let plies = pick.moves.len() as u32;
    let ply = ply.unwrap_or(plies);
    if ply > plies {
        let valid = diagnostics::counted(plies.into(), "valid ply", "valid plies");
        return Err(Fail::usage(format!("game {number} of {name} has {valid}: there is no ply {ply}")));
    }
    for &m in &pick.moves[..ply as usize] {
        match m {
            Some(m) => pos.play_unchecked(m),
            // Replayed legal: a null move was only recorded out of check.
            None => pos
                .play_null()
                .map_err(|_| Fail::Command { code: Code::Software, message: "null move in check".into() })?,
        }
    }
    Ok((pos, ply.checked_sub(1).and_then(|i| pick.moves[i as usize]), pick.errors))
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    // The text diagrams have no way to mark a square.
    if args.lastmove.is_some() && args.format != Format::Svg {
        return Err(Fail::usage("--lastmove is drawn in the SVG only: it needs --format svg"));
    }
    let (pos, mut last, errors) = match (&args.fen, &args.file) {
        (Some(fen), _) => {
            let variant = match &args.variant {
                Some(v) => Variant::from_tag(v).map_err(|_| Fail::usage(format!("unknown variant {v:?}")))?,
                None => implied_variant(fen),
            };
            let pos = read_fen(fen, variant).map_err(|source| UsageError::Fen {
                option: "bad FEN",
                fen: fen.to_string(),
                source,
            })?;
            (pos, None, Vec::new())
        }
        (None, Some(path)) => from_pgn(path, args.game, args.ply)?,
        (None, None) => return Err(Fail::usage("give a FILE or --fen")),
    };
    if let Some(text) = &args.lastmove {
        let m = parse_highlight(text)
            .ok_or_else(|| Fail::usage(format!("--lastmove: not a UCI move: {text:?}")))?;
        if let Some(why) = why_not_last(&pos, m) {
            return Err(Fail::usage(format!(
                "--lastmove {text}: not the move that led to the position: {why}"
            )));
        }
        last = Some(m);
    }
    let text = match args.format {
        Format::Ascii => text_diagram(&pos, TextStyle::Ascii, args.flip),
        Format::Unicode => text_diagram(&pos, TextStyle::Unicode, args.flip),
        Format::Svg => svg(&pos, &SvgOptions { flip: args.flip, last_move: last, ..SvgOptions::default() }),
    };
    // The board drawn is the valid moves': each error says where the game stopped being read.
    if let Some(path) = &args.file {
        let name = pgnkit::io::name::input(path);
        for d in &errors {
            stderrln!("{}", diagnostics::diagnostic_text(&name, d));
        }
    }
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(if errors.is_empty() { Code::Ok } else { Code::Failures })
}

/// `--fen` read as a game's `[FEN]` tag is: castling rights without their rook and an
/// impossible en passant square are dropped, with a warning, not refused.
fn read_fen(fen: &str, variant: Variant) -> Result<pgnkit::chess::Position, FenError> {
    use pgnkit::chess::PositionErrorKind as P;
    match parse_fen(fen, variant) {
        Err(FenError::Position(e)) => {
            let dropped = [
                (P::InvalidCastlingRights, "castling rights without their rook"),
                (P::InvalidEpSquare, "an impossible en passant square"),
            ];
            let said: Vec<&str> = dropped.iter().filter(|(k, _)| e.has(*k)).map(|&(_, s)| s).collect();
            let pos = e.ignore_droppable().map_err(FenError::Position)?;
            stderrln!("pgnkit: warning: FEN {fen:?}: {} dropped", said.join(" and "));
            Ok(pos)
        }
        r => r,
    }
}
