//! Lenient readings of tokens that do not resolve as a move: a no-break space between moves,
//! periods or an ellipsis glued to a move, a check mark apart from its move, a result spelled
//! oddly or glued to the last move, a word of annotation. Each is rare, so each is out of line,
//! tried only after a token failed to resolve.

use super::message::{Facts, text};
use super::{Hooks, Replayer};
use crate::error::{Kind, Severity};
use crate::notation::san::{Suffix, english_pieces, parse_san_with, suffix_after};
use crate::pgn::{GameResult, SanToken};

impl<'a, H: Hooks<'a>> Replayer<'a, H> {
    /// A token that did not resolve but holds a no-break space (U+00A0: `C2 A0` in UTF-8, `A0`
    /// in Windows-1252), which text pasted from web pages puts between moves (`1.\u{a0}e4`): read
    /// as a space, each part played as a token of its own, and reported. `false` without one.
    #[cold]
    #[inline(never)]
    pub(super) fn no_break_space(&mut self, token: SanToken<'a>, ply: u32) -> bool {
        let raw = token.raw;
        let space: &[u8] = if std::str::from_utf8(raw).is_ok() { &[0xc2, 0xa0] } else { &[0xa0] };
        if memchr::memmem::find(raw, space).is_none() {
            return false;
        }
        self.settle_mate();
        self.report(Kind::SyntaxWarning, Severity::Warning, token.offset as u64, Some(ply), || {
            Facts::message(format!("\"{}\": a no-break space read as a space", text(raw)))
        });
        let mut start = 0;
        for at in memchr::memmem::find_iter(raw, space).chain([raw.len()]) {
            if at > start {
                self.play(SanToken { raw: &raw[start..at], offset: token.offset + start });
            }
            start = at + space.len();
        }
        true
    }

    /// A token that did not resolve but is a move after periods the reader left on it: `..e5`,
    /// `1. ..e5` (python-chess reads them), or an ellipsis, `…e5`, `12…Nf6` (U+2026, or byte 0x85
    /// of Windows-1252). The move is played as if written alone. A period is a token of its own in
    /// import format, so the periods pass silently, as in `1..e5` and `.. e5`; the ellipsis, which
    /// is no PGN, is reported. `false` for anything else.
    #[cold]
    #[inline(never)]
    pub(super) fn dotted_move(&mut self, token: SanToken<'a>, ply: u32) -> bool {
        let raw = token.raw;
        let digits = raw.iter().take_while(|b| b.is_ascii_digit()).count();
        let (mut at, mut ellipsis) = (digits, false);
        loop {
            match &raw[at..] {
                [b'.', ..] => at += 1,
                [0xe2, 0x80, 0xa6, ..] => (at, ellipsis) = (at + 3, true),
                [0x85, ..] => (at, ellipsis) = (at + 1, true),
                _ => break,
            }
        }
        if at == digits {
            return false;
        }
        if ellipsis {
            // Reported before the move, whose own diagnostics come later in the text.
            self.settle_mate();
            self.report(Kind::SyntaxWarning, Severity::Warning, token.offset as u64, Some(ply), || {
                Facts::message(format!("\"{}\": an ellipsis read as the periods of a move number", text(raw)))
            });
        }
        if at < raw.len() {
            self.play(SanToken { raw: &raw[at..], offset: token.offset + at });
        }
        true
    }

    /// A token that did not resolve but is a check mark apart from its move (`Qxf7 #`), alone or
    /// with the result glued to it (`Qxf7 #1-0`, in chessgames.com files; mainline only): the mark
    /// is judged as the move's, the result is read, and it is reported as a warning. `false` for
    /// anything else, and for a mark before the mainline's first move.
    #[cold]
    #[inline(never)]
    pub(super) fn detached_check_mark(&mut self, token: SanToken<'a>) -> bool {
        let raw = token.raw;
        let len = match raw {
            [b'+', b'+', ..] => 2,
            [b'+' | b'#', ..] => 1,
            _ => return false,
        };
        let (mark, rest) = raw.split_at(len);
        let mainline = self.stack.len() == 1;
        let result = match GameResult::from_ascii(rest) {
            _ if rest.is_empty() => None,
            Some(r) if r != GameResult::Unknown && mainline => Some(r),
            _ => return false,
        };
        let Some(line) = self.stack.last() else { return false };
        if mainline && line.ply == 0 {
            return false;
        }
        let ply = line.ply;
        let deserved = suffix_after(&line.pos, line.checkers);
        let written = if mark == b"#" { Suffix::Checkmate } else { Suffix::Check };
        let judged = match deserved {
            _ if deserved == Some(written) && len == 1 => "",
            Some(Suffix::Checkmate) => " (the move gives mate)",
            Some(Suffix::Check) => " (the move gives check)",
            None => " (the move gives no check)",
        };
        self.settle_mate();
        let offset = token.offset as u64;
        let facts = |what: String| Facts {
            message: format!("\"{}\" read as {what}{judged}", text(raw)),
            san: Some(text(raw)),
            fen: None,
        };
        match result {
            Some(r) => {
                self.set_repaired_result(r, offset + len as u64);
                self.report(Kind::GluedResult, Severity::Warning, offset, Some(ply), || {
                    facts(format!("the check mark of the move before and the result {}", r.as_str()))
                });
            }
            None => self.report(Kind::SyntaxWarning, Severity::Warning, offset, Some(ply), || {
                facts("the check mark of the move before".to_string())
            }),
        }
        true
    }

    /// A mainline token that did not resolve but is a result written oddly: with a Unicode dash,
    /// a `½` or `:` (`1–0`, `½-½`, `1/2`, `1:0`, in UTF-8 or Windows-1252;
    /// [`GameResult::from_spelling`]), or glued to the last move (`gxf41-0`, the move played).
    /// Reported as a repair; `false` for anything else.
    #[cold]
    #[inline(never)]
    pub(super) fn repaired_result(&mut self, token: SanToken<'a>) -> bool {
        if self.stack.len() != 1 {
            return false;
        }
        let raw = token.raw;
        let text = self::text(raw);
        if let Some(r) = GameResult::from_spelling(&text) {
            self.set_repaired_result(r, token.offset as u64);
            // A standard spelling comes here from a token split at a no-break space, reported.
            if GameResult::from_ascii(raw).is_none() {
                self.report(Kind::ResultSpelling, Severity::Warning, token.offset as u64, None, || Facts {
                    message: format!("result \"{text}\" read as {}", r.as_str()),
                    san: Some(text),
                    fen: None,
                });
            }
            return true;
        }
        for r in [GameResult::WhiteWins, GameResult::BlackWins, GameResult::Draw] {
            let suffix = r.as_str().as_bytes();
            let Some(mv) = raw.strip_suffix(suffix).filter(|m| !m.is_empty()) else { continue };
            let Some(line) = self.stack.last().filter(|l| !l.dead) else { return false };
            if parse_san_with(&line.pos, line.checkers, mv).is_err() {
                continue;
            }
            let ply = line.ply + 1;
            self.play(SanToken { raw: mv, offset: token.offset });
            self.set_repaired_result(r, (token.offset + mv.len()) as u64);
            self.report(Kind::GluedResult, Severity::Warning, token.offset as u64, Some(ply), || Facts {
                message: format!(
                    "\"{text}\" read as the move {} and the result {}",
                    self::text(mv),
                    r.as_str()
                ),
                san: Some(text),
                fen: None,
            });
            return true;
        }
        false
    }

    /// A token that did not resolve but is a word of annotation after a move (`TN`, `mat`,
    /// `Diagram`; python-chess skips them): letters that are not the start of a move cut short
    /// (`Nf`, `exd`, `Sf`, which stay errors), as prose before a game's first move does (a file's
    /// preface is no game). Skipped with a warning; `false` otherwise.
    #[cold]
    #[inline(never)]
    pub(super) fn annotation_word(&mut self, token: SanToken<'a>, ply: u32) -> bool {
        if self.stack.len() == 1 && ply == 1 {
            return false;
        }
        let raw = token.raw;
        // Bytes past ASCII are letters of other languages (`Neuerung`, `échec`).
        let letter = |b: &u8| b.is_ascii_alphabetic() || *b >= 0x80;
        if !raw.iter().all(letter) || move_cut_short(raw) {
            return false;
        }
        self.settle_mate();
        let word = text(raw);
        self.report(Kind::SyntaxWarning, Severity::Warning, token.offset as u64, Some(ply), || Facts {
            message: format!("annotation word \"{word}\" between moves; skipped"),
            san: Some(word.clone()),
            fen: None,
        });
        true
    }

    /// The game's result, read from a token the reader did not take for one (see
    /// [`repaired_result`](Self::repaired_result)).
    fn set_repaired_result(&mut self, result: GameResult, offset: u64) {
        self.game.result = Some(result);
        self.pending_result_token = Some(offset);
        self.result_repaired = true;
    }
}

/// Whether `letters` (a token of letters alone) are how a move starts, cut before its square's
/// rank: a piece letter (English, German or a figurine) or none, a file, `x`, a file (`Nf`, `exd`,
/// `Sbx`, `♘f`), or castling's and null moves' letters (`O`, `o`, `Z`).
fn move_cut_short(letters: &[u8]) -> bool {
    let english = english_pieces(letters);
    let t = english.as_deref().unwrap_or(letters);
    if t.iter().all(|b| b"OoZ".contains(b)) {
        return true;
    }
    let mut rest = t;
    for part in [&b"KQRBNPkqrnp"[..], b"abcdefgh", b"x", b"abcdefgh"] {
        if let [first, tail @ ..] = rest
            && part.contains(first)
        {
            rest = tail;
        }
    }
    rest.is_empty()
}
