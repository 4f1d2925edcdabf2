//! Replayed games written again in export format ([`crate::pgn::Writer`]): every move of the
//! mainline and of the variations in canonical SAN with the right check mark and its move number
//! from the position, the comments and NAGs where they stand, the result, and the tags (the
//! roster first). [`GameWriter`] writes one game as the replay goes (its tag section last, when
//! everything the tags say is known); `clean` writes with it and `annotate` adds to it.
//! [`Exporter`] is the plain rewrite, which tests compare with python-chess's export.
//!
//! The exporter writes a game only when the replay delivered all of it: one with an error (an
//! illegal or unreadable move ends its line, a variation with no move before it is read, not
//! replayed, so the rest would be lost) is left out, and its [`Exported`] record says why.

use crate::chess::{Color, Move, Position};
use crate::error::{Kind, Severity};
use crate::notation::san::write_san;
use crate::pgn::{GameResult, Nag, RawComment, Writer};
use crate::pipeline::replay::{Game, Games, Hooks, Lines, Played, Verdict};

/// What a rewrite leaves out of the movetext.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Strip {
    /// Every comment.
    pub comments: bool,
    /// Every NAG.
    pub nags: bool,
    /// Every variation, with what it holds.
    pub variations: bool,
    /// `[%clk ...]` commands (a comment left empty goes).
    pub clock: bool,
    /// `[%eval ...]` commands (a comment left empty goes).
    pub eval: bool,
}

/// One game written in export format as it is replayed: its movetext as the events come (into a
/// buffer of its own), its tag section when the game ends, so tags may depend on the whole game.
#[derive(Debug)]
pub struct GameWriter {
    tags: Writer,
    moves: Writer,
    movetext: Vec<u8>,
    /// The SAN of the last move written.
    san: Vec<u8>,
    /// A comment with commands taken out.
    comment: Vec<u8>,
    strip: Strip,
}

impl GameWriter {
    /// A writer with `layout`'s line width and roster rule, leaving out what `strip` says.
    pub fn new(layout: Writer, strip: Strip) -> GameWriter {
        GameWriter {
            // The movetext's writer has no tags: its tag section is empty.
            moves: layout.clone().fill_roster(false),
            tags: layout,
            movetext: Vec::new(),
            san: Vec::new(),
            comment: Vec::new(),
            strip,
        }
    }

    /// What is left out.
    pub fn strip(&self) -> Strip {
        self.strip
    }

    /// A tag of the game (written, roster first, when the game ends; left out when its name is
    /// not a PGN tag name, as [`Writer::tag`] says).
    pub fn tag(&mut self, name: &str, value: &str) {
        self.tags.tag(name, value);
    }

    /// The tag pairs of the game left out for their names ([`Writer::take_left_out_tags`]).
    pub fn take_left_out_tags(&mut self) -> Vec<(String, String)> {
        self.tags.take_left_out_tags()
    }

    /// Whether events `depth` variations deep are written.
    #[inline]
    fn keeps(&self, depth: u32) -> bool {
        depth == 0 || !self.strip.variations
    }

    /// Writes a move of the replay (canonical SAN: the token when it is that, `--` for a null
    /// move) and returns the SAN written.
    #[inline(always)]
    pub fn played<'s, 'a: 's>(&'s mut self, p: &Played<'a, '_>) -> &'s [u8] {
        let san: &[u8] = match (p.mv, p.canonical_san()) {
            (None, _) => b"--",
            (Some(_), Some(token)) => token,
            (Some(m), None) => {
                self.san.clear();
                write_san(p.before, m, &mut self.san);
                &self.san
            }
        };
        if self.keeps(p.depth) {
            let black = p.before.turn() == Color::Black;
            self.moves.san(&mut self.movetext, san, p.before.fullmoves(), black);
        }
        san
    }

    /// Writes a move already in SAN, `depth` variations deep, played at move `number` by Black
    /// when `black` (a move kept from an earlier replay).
    pub fn san(&mut self, depth: u32, san: &[u8], number: u32, black: bool) {
        if self.keeps(depth) {
            self.moves.san(&mut self.movetext, san, number, black);
        }
    }

    /// Writes `moves` played from `start` (a line that is not in the input, such as an engine's
    /// principal variation), each in SAN with its check mark.
    pub fn line(&mut self, depth: u32, start: &Position, moves: &[Move]) {
        if !self.keeps(depth) {
            return;
        }
        let mut pos = *start;
        for &m in moves {
            self.san.clear();
            write_san(&pos, m, &mut self.san);
            let black = pos.turn() == Color::Black;
            self.moves.san(&mut self.movetext, &self.san, pos.fullmoves(), black);
            pos.play_unchecked(m);
        }
    }

    /// Writes a NAG.
    pub fn nag(&mut self, depth: u32, nag: Nag) {
        if self.keeps(depth) && !self.strip.nags {
            self.moves.nag(&mut self.movetext, nag);
        }
    }

    /// Whether a NAG written now would stand first in a variation of depth `depth`, with no move
    /// to annotate (`($1 2. Nf3)`, which pgn-extract refuses).
    pub fn nag_has_no_move(&self, depth: u32) -> bool {
        self.keeps(depth) && !self.strip.nags && self.moves.in_empty_variation()
    }

    /// Writes a comment (its text without delimiters), without the commands `strip` leaves out.
    pub fn comment(&mut self, depth: u32, text: &[u8]) {
        if !self.keeps(depth) || self.strip.comments {
            return;
        }
        if !(self.strip.clock || self.strip.eval) || memchr::memmem::find(text, b"[%").is_none() {
            self.moves.comment(&mut self.movetext, text);
            return;
        }
        self.comment.clear();
        without_commands(text, self.strip, &mut self.comment);
        if self.comment.iter().any(|b| !b.is_ascii_whitespace()) {
            self.moves.comment(&mut self.movetext, &self.comment);
        }
    }

    /// The first comment of the game written so far that was not UTF-8, as read (it was written
    /// as its Windows-1252 reading: [`Writer::take_not_utf8`]).
    pub fn take_not_utf8(&mut self) -> Option<Vec<u8>> {
        self.moves.take_not_utf8()
    }

    /// A variation starts.
    pub fn begin_variation(&mut self, depth: u32) {
        if self.keeps(depth) {
            self.moves.begin_variation(&mut self.movetext);
        }
    }

    /// The variation of depth `depth` ends.
    pub fn end_variation(&mut self, depth: u32) {
        if self.keeps(depth) {
            self.moves.end_variation(&mut self.movetext);
        }
    }

    /// The variation of depth `depth` ends, cut short: left out when nothing of it was written
    /// (then `true`).
    pub fn end_cut_variation(&mut self, depth: u32) -> bool {
        self.keeps(depth) && self.moves.end_cut_variation(&mut self.movetext)
    }

    /// Ends the game with `result`: appends its tag section, then its movetext, to `out`.
    pub fn finish(&mut self, out: &mut Vec<u8>, result: GameResult) {
        self.tag_section(out);
        self.end_movetext(out, result);
    }

    /// Appends the game's tag section to `out` (its tags then forgotten), for a caller that puts
    /// the movetext after it itself ([`GameWriter::take_settled`], [`GameWriter::end_movetext`]).
    pub fn tag_section(&mut self, out: &mut Vec<u8>) {
        self.tags.tag_section(out);
        self.tags.reset();
    }

    /// Ends the movetext with `result` and appends what of it is still held to `out`.
    pub fn end_movetext(&mut self, out: &mut Vec<u8>, result: GameResult) {
        self.moves.end_game(&mut self.movetext, result);
        out.extend_from_slice(&self.movetext);
        self.movetext.clear();
    }

    /// Bytes of movetext held.
    #[inline]
    pub fn movetext_len(&self) -> usize {
        self.movetext.len()
    }

    /// Moves the movetext written so far that no later event changes to `out` (a long game's
    /// movetext waits on disk while its tags are not known).
    pub fn take_settled(&mut self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let n = self.moves.settled(self.movetext.len());
        out.write_all(&self.movetext[..n])?;
        self.movetext.drain(..n);
        self.moves.forget_front(n);
        Ok(())
    }

    /// Forgets the game being written.
    pub fn abandon(&mut self) {
        self.tags.reset();
        self.moves.reset();
        self.movetext.clear();
    }
}

/// Appends `text` without the `[%clk ...]` / `[%eval ...]` commands `strip` leaves out.
pub(crate) fn without_commands(text: &[u8], strip: Strip, out: &mut Vec<u8>) {
    let mut rest = text;
    while let Some(open) = memchr::memmem::find(rest, b"[%") {
        let body = &rest[open + 2..];
        let Some(close) = memchr::memchr(b']', body) else { break };
        let name = body[..close].split(|b| b.is_ascii_whitespace()).next().unwrap_or_default();
        let drop = (strip.clock && name == b"clk") || (strip.eval && name == b"eval");
        let end = open + 2 + close + 1;
        out.extend_from_slice(if drop { &rest[..open] } else { &rest[..end] });
        rest = &rest[end..];
    }
    out.extend_from_slice(rest);
}

/// Why a game was not written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unwritten {
    /// The game has an error: its moves after the error were not replayed.
    Error,
}

/// One game as exported: its number and where its text is in the output, or why it is not there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exported {
    /// Game number in its input, 1-based.
    pub game: u64,
    /// The game's text in the output (`start..end`), or why it was not written.
    pub text: Result<std::ops::Range<usize>, Unwritten>,
    /// The game's tag pairs whose names are not PGN tag names, which its text leaves out
    /// ([`Writer::tag`]).
    pub left_out_tags: Vec<(String, String)>,
}

/// Replay hooks that write each game as read (tags as given, roster first, those whose names are
/// not PGN tag names left out and named in the game's [`Exported`]) into [`Exporter::out`].
#[derive(Debug)]
pub struct Exporter {
    game: GameWriter,
    /// The games written, one after the other.
    pub out: Vec<u8>,
    /// One record per game read.
    pub games: Vec<Exported>,
}

impl Exporter {
    /// An exporter with `layout`'s line width and roster rule (e.g. [`Writer::fill_roster`]).
    pub fn new(layout: Writer) -> Exporter {
        Exporter { game: GameWriter::new(layout, Strip::default()), out: Vec::new(), games: Vec::new() }
    }
}

impl<'a> Hooks<'a> for Exporter {
    fn variations(&self) -> bool {
        true
    }

    fn zobrist_keys(&self) -> bool {
        false
    }

    fn wants(&self, _: Kind, _: Severity) -> bool {
        false
    }

    fn moves(&self) -> Lines {
        Lines::All
    }

    fn written_san(&self) -> bool {
        true
    }

    fn tags(&mut self, game: &Game<'a>) -> Verdict {
        for (name, value) in &game.tags {
            self.game.tag(&String::from_utf8_lossy(name), &value.decode().0);
        }
        Verdict::Replay
    }

    fn played(&mut self, _: &Game<'a>, p: &Played<'a, '_>) {
        self.game.played(p);
    }

    fn nag(&mut self, _: &Game<'a>, depth: u32, nag: Nag, _: u64) {
        self.game.nag(depth, nag);
    }

    fn comment(&mut self, _: &Game<'a>, depth: u32, comment: RawComment<'a>) {
        self.game.comment(depth, comment.raw);
    }

    fn begin_variation(&mut self, _: &Game<'a>, depth: u32, _: bool) {
        self.game.begin_variation(depth);
    }

    fn end_variation(&mut self, _: &Game<'a>, depth: u32) {
        self.game.end_variation(depth);
    }

    fn end(&mut self, game: &Game<'a>, _: Option<&Position>) {
        let start = self.out.len();
        let left_out_tags = self.game.take_left_out_tags();
        let text = if game.errors > 0 {
            Err(Unwritten::Error)
        } else {
            self.game.finish(&mut self.out, game.result.unwrap_or(GameResult::Unknown));
            Ok(start..self.out.len())
        };
        if text.is_err() {
            self.game.abandon();
        }
        self.games.push(Exported { game: game.number, text, left_out_tags });
    }
}

/// Every game of `pgn` exported with `layout`'s line width and roster rule: the text of the
/// games written, and one record per game read.
///
/// ```
/// use pgnkit::pipeline::replay::export::export;
/// use pgnkit::pgn::Writer;
/// let (text, games) = export(b"[White \"A\"]\n\n1. e2e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7 1-0", Writer::new());
/// assert_eq!(text, b"[White \"A\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n");
/// assert_eq!(games.len(), 1);
/// ```
pub fn export(pgn: &[u8], layout: Writer) -> (Vec<u8>, Vec<Exported>) {
    let mut games = Games::new(Exporter::new(layout), pgn);
    while games.next_game() {}
    let e = games.into_hooks();
    (e.out, e.games)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(pgn: &str) -> (String, Vec<Exported>) {
        let (out, games) = export(pgn.as_bytes(), Writer::new());
        (String::from_utf8(out).expect("UTF-8"), games)
    }

    #[test]
    fn moves_are_written_canonical_with_numbers_from_the_position() {
        let (out, _) = text(
            "[Event \"e\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 7\"]\n\n\
             7... e7e5 $2 {why} 8. Ng1-f3 (8. d4?? -- 9. Nf3) 8... Nc6 *",
        );
        assert_eq!(
            out,
            "[Event \"e\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 7\"]\n\n\
             7... e5 $2 { why } 8. Nf3 (8. d4 $4 8... -- 9. Nf3) 8... Nc6 *\n\n"
        );
    }

    #[test]
    fn games_the_replay_could_not_finish_are_left_out_with_the_reason() {
        let (out, games) = text(
            "[Event \"ok\"]\n\n1. e4 *\n\n[Event \"bad\"]\n\n1. e4 Ke3 *\n\n\
             [Event \"lost\"]\n\n(1. d4) 1. e4 *\n\n[Event \"after\"]\n\n1. d4 1-0\n",
        );
        assert_eq!(out, "[Event \"ok\"]\n\n1. e4 *\n\n[Event \"after\"]\n\n1. d4 1-0\n\n");
        let reasons: Vec<_> = games.iter().map(|g| (g.game, g.text.clone().err())).collect();
        assert_eq!(reasons, [(1, None), (2, Some(Unwritten::Error)), (3, Some(Unwritten::Error)), (4, None)]);
        assert_eq!(&out[games[3].text.clone().expect("written")], "[Event \"after\"]\n\n1. d4 1-0\n\n");
    }

    /// A tag the reader takes but the standard does not name so (`Ev-ent`) is not written: the
    /// game's record names it.
    #[test]
    fn a_tag_without_a_pgn_tag_name_is_left_out_and_named() {
        let (out, games) = text("[Ev-ent \"x\"]\n[White \"A\"]\n\n1. e4 *\n");
        assert_eq!(out, "[White \"A\"]\n\n1. e4 *\n\n");
        assert_eq!(games[0].left_out_tags, [("Ev-ent".to_string(), "x".to_string())]);
    }

    /// Exporting an export gives it back: the writer's layout is a fixed point.
    #[test]
    fn an_export_exports_to_itself() {
        let games = crate::read_shared_data("games/lichess_db_10k.pgn")
            .unwrap_or_else(|| include_str!("../../../fixtures/pgn/lichess_db_10k.pgn").to_string());
        let (once, _) = export(games.as_bytes(), Writer::new().fill_roster(true));
        let (twice, _) = export(&once, Writer::new().fill_roster(true));
        assert!(once.len() > 1000);
        assert_eq!(String::from_utf8_lossy(&twice), String::from_utf8_lossy(&once));
    }

    /// What a rewrite leaves out goes with everything it holds; a comment emptied of its
    /// commands goes too.
    #[test]
    fn stripped_parts_go_whole() {
        let pgn =
            b"1. e4 { [%clk 0:03:00] } e5 $1 { [%eval 0.2] fine [%clk 0:02:59] } (1... c5 {s}) 2. Nf3 *";
        let write = |strip: Strip| {
            let mut games = Games::new(StripHooks(GameWriter::new(Writer::new(), strip), Vec::new()), pgn);
            while games.next_game() {}
            String::from_utf8(games.into_hooks().1).expect("UTF-8")
        };
        let clock = Strip { clock: true, ..Strip::default() };
        assert_eq!(write(clock), "1. e4 e5 $1 { [%eval 0.2] fine } (1... c5 { s }) 2. Nf3 *\n\n");
        let all = Strip { clock: true, eval: true, nags: true, variations: true, comments: false };
        assert_eq!(write(all), "1. e4 e5 { fine } 2. Nf3 *\n\n");
        assert_eq!(write(Strip { comments: true, ..Strip::default() }), "1. e4 e5 $1 (1... c5) 2. Nf3 *\n\n");
    }

    /// Hooks that write every game with a [`GameWriter`] into the vector.
    struct StripHooks(GameWriter, Vec<u8>);
    impl<'a> Hooks<'a> for StripHooks {
        fn variations(&self) -> bool {
            true
        }
        fn moves(&self) -> Lines {
            Lines::All
        }
        fn written_san(&self) -> bool {
            true
        }
        fn played(&mut self, _: &Game<'a>, p: &Played<'a, '_>) {
            self.0.played(p);
        }
        fn nag(&mut self, _: &Game<'a>, depth: u32, nag: Nag, _: u64) {
            self.0.nag(depth, nag);
        }
        fn comment(&mut self, _: &Game<'a>, depth: u32, c: RawComment<'a>) {
            self.0.comment(depth, c.raw);
        }
        fn begin_variation(&mut self, _: &Game<'a>, depth: u32, _: bool) {
            self.0.begin_variation(depth);
        }
        fn end_variation(&mut self, _: &Game<'a>, depth: u32) {
            self.0.end_variation(depth);
        }
        fn end(&mut self, game: &Game<'a>, _: Option<&Position>) {
            self.0.finish(&mut self.1, game.result.unwrap_or(GameResult::Unknown));
        }
    }
}
