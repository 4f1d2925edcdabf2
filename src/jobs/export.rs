//! Replayed games written again in export format ([`crate::pgn::Writer`]): the tags as read
//! (the roster first), every move of the mainline and of the variations in canonical SAN with the
//! right check mark and its move number from the position, the comments and NAGs where they
//! stand, and the result. This is what `clean` writes and `annotate` adds to; tests compare it
//! with python-chess's export.
//!
//! A game is written only when the replay delivered all of it: one with an error (an illegal or
//! unreadable move ends its line, so the rest would be lost) or with a variation that could not
//! be replayed (no move before it to replace) is left out, and its [`Exported`] record says why.

use crate::chess::{Color, Position};
use crate::error::{Kind, Severity};
use crate::notation::san::write_san;
use crate::pgn::{GameResult, Nag, RawComment, Writer};
use crate::pipeline::replay::{Game, Games, Hooks, Lines, Played, Verdict};

/// Why a game was not written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unwritten {
    /// The game has an error: its moves after the error were not replayed.
    Error,
    /// A variation had no move before it to replace: its moves were not replayed.
    UnreplayedVariation,
}

/// One game as exported: its number and where its text is in the output, or why it is not there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exported {
    /// Game number in its input, 1-based.
    pub game: u64,
    /// The game's text in the output (`start..end`), or why it was not written.
    pub text: Result<std::ops::Range<usize>, Unwritten>,
}

/// Replay hooks that write each game in export format into [`Exporter::out`].
#[derive(Debug, Default)]
pub struct Exporter {
    writer: Writer,
    /// The games written, one after the other.
    pub out: Vec<u8>,
    /// One record per game read.
    pub games: Vec<Exported>,
    /// The canonical SAN of a move whose token was not it.
    san: Vec<u8>,
    /// Where the current game's text starts in `out`.
    start: usize,
    /// A variation of the current game was not replayed.
    lost: bool,
}

impl Exporter {
    /// An exporter with `writer`'s layout (e.g. [`Writer::fill_roster`]).
    pub fn new(writer: Writer) -> Exporter {
        Exporter { writer, ..Exporter::default() }
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
        self.start = self.out.len();
        self.lost = false;
        for (name, value) in &game.tags {
            self.writer.tag(&String::from_utf8_lossy(name), &value.decode().0);
        }
        Verdict::Replay
    }

    fn played(&mut self, _: &Game<'a>, p: &Played<'a, '_>) {
        let san: &[u8] = match (p.mv, p.canonical_san()) {
            (None, _) => b"--",
            (Some(_), Some(token)) => token,
            (Some(m), None) => {
                self.san.clear();
                write_san(p.before, m, &mut self.san);
                &self.san
            }
        };
        let black = p.before.turn() == Color::Black;
        self.writer.san(&mut self.out, san, p.before.fullmoves(), black);
    }

    fn nag(&mut self, _: &Game<'a>, _: u32, nag: Nag, _: u64) {
        self.writer.nag(&mut self.out, nag);
    }

    fn comment(&mut self, _: &Game<'a>, _: u32, comment: RawComment<'a>) {
        self.writer.comment(&mut self.out, comment.raw);
    }

    fn begin_variation(&mut self, _: &Game<'a>, _: u32, replayed: bool) {
        self.lost |= !replayed;
        self.writer.begin_variation(&mut self.out);
    }

    fn end_variation(&mut self, _: &Game<'a>, _: u32) {
        self.writer.end_variation(&mut self.out);
    }

    fn end(&mut self, game: &Game<'a>, _: Option<&Position>) {
        let text = if game.errors > 0 {
            Err(Unwritten::Error)
        } else if self.lost {
            Err(Unwritten::UnreplayedVariation)
        } else {
            self.writer.end_game(&mut self.out, game.result.unwrap_or(GameResult::Unknown));
            Ok(self.start..self.out.len())
        };
        if text.is_err() {
            self.writer.reset();
            self.out.truncate(self.start);
        }
        self.games.push(Exported { game: game.number, text });
        self.start = self.out.len();
    }
}

/// Every game of `pgn` exported with `writer`'s layout: the text of the games written, and one
/// record per game read.
///
/// ```
/// use pgnkit::jobs::export::export;
/// use pgnkit::pgn::Writer;
/// let (text, games) = export(b"[White \"A\"]\n\n1. e2e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7 1-0", Writer::new());
/// assert_eq!(text, b"[White \"A\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n");
/// assert_eq!(games.len(), 1);
/// ```
pub fn export(pgn: &[u8], writer: Writer) -> (Vec<u8>, Vec<Exported>) {
    let mut games = Games::new(Exporter::new(writer), pgn);
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
        assert_eq!(
            reasons,
            [(1, None), (2, Some(Unwritten::Error)), (3, Some(Unwritten::UnreplayedVariation)), (4, None)]
        );
        assert_eq!(&out[games[3].text.clone().expect("written")], "[Event \"after\"]\n\n1. d4 1-0\n\n");
    }

    /// Exporting an export gives it back: the writer's layout is a fixed point.
    #[test]
    fn an_export_exports_to_itself() {
        let games = crate::read_shared_data("games/lichess_db_10k.pgn")
            .unwrap_or_else(|| include_str!("../../fixtures/pgn/lichess_db_10k.pgn").to_string());
        let (once, _) = export(games.as_bytes(), Writer::new().fill_roster(true));
        let (twice, _) = export(&once, Writer::new().fill_roster(true));
        assert!(once.len() > 1000);
        assert_eq!(String::from_utf8_lossy(&twice), String::from_utf8_lossy(&once));
    }
}
