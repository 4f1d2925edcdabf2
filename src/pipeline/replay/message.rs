//! The text of the replay's diagnostics: a token as written, a position's FEN, a move's SAN, and
//! the facts a diagnostic carries beside its kind and place; a reader problem's kind, which
//! depends on whether its message can name the token whole.

use crate::chess::{Move, Position};
use crate::error::{Kind, Severity};
use crate::notation::fen::{EpMode, write_fen};
use crate::notation::san::write_san;
use crate::pgn::ProblemKind;
use crate::pgn::text::{QUOTED_MAX, decode, quoted, quoted_head};

/// The typed facts of a diagnostic beside its kind and place: its message, and the move as
/// written and the position it was played in, when there are such.
pub(super) struct Facts {
    pub(super) message: String,
    pub(super) san: Option<String>,
    pub(super) fen: Option<String>,
}

impl Facts {
    pub(super) fn message(message: String) -> Facts {
        Facts { message, san: None, fen: None }
    }
}

/// The text of a token or a tag value, for diagnostics: UTF-8, else Windows-1252, as all input
/// text; cut after [`TEXT_MAX`] bytes with `…`, so a token of the whole rest of a game (a
/// comment cut at the budget) is not copied into every message.
pub(super) fn text(raw: &[u8]) -> String {
    if raw.len() <= TEXT_MAX {
        return decode(raw).0.into_owned();
    }
    let mut head = &raw[..TEXT_MAX];
    // Not through a UTF-8 character: a cut one would make the head read as Windows-1252.
    if let Err(e) = std::str::from_utf8(head)
        && e.error_len().is_none()
    {
        head = &head[..e.valid_up_to()];
    }
    let mut text = decode(head).0.into_owned();
    text.push('…');
    text
}

/// The bytes of a token or tag value [`text`] shows.
pub(super) const TEXT_MAX: usize = 200;

/// The kind and severity of a reader problem at `at` of `chunk`: the reader's, but a short
/// bracketed token (`[%clk 0:01]` outside its comment) is skipped as python-chess skips it, with a
/// warning that names it whole ([`problem_message`]); a longer one stays an error, so that `clean`
/// keeps its game verbatim rather than a message cut short.
pub(super) fn problem_kind(kind: ProblemKind, chunk: &[u8], at: usize) -> (Kind, Severity) {
    let shown_whole = |token: &[u8]| decode(quoted_head(token)).0.chars().count() <= QUOTED_MAX;
    if kind == ProblemKind::UnexpectedToken && shown_whole(crate::pgn::reader::unexpected_token(chunk, at)) {
        return (Kind::SyntaxWarning, Severity::Warning);
    }
    Kind::from_problem(kind)
}

/// The message of a reader problem at `at` of `chunk`: a token skipped is named.
pub(super) fn problem_message(kind: ProblemKind, chunk: &[u8], at: usize) -> String {
    let skipped = || quoted(crate::pgn::reader::unexpected_token(chunk, at));
    match kind {
        ProblemKind::UnexpectedToken => format!("unexpected token {} in movetext; skipped", skipped()),
        ProblemKind::StrayBytes => format!("stray {} in movetext; skipped", skipped()),
        ProblemKind::InvalidNag => {
            let digits =
                chunk.get(at + 1..).unwrap_or_default().iter().take_while(|b| b.is_ascii_digit()).count();
            let nag = chunk.get(at..at + 1 + digits).unwrap_or_default();
            format!("NAG {} not in $0..$255; skipped", quoted(nag))
        }
        ProblemKind::BinaryData => binary_data(chunk, at),
        ProblemKind::CommentTooLong if chunk.get(at) == Some(&b';') => {
            "comment longer than the budget; its text cut there, read on after its line".to_string()
        }
        ProblemKind::TokenTooLong => {
            let token = crate::pgn::reader::long_token(chunk, at);
            let what = if token.starts_with(b"[") { "tag pair" } else { "token" };
            format!("{what} {} of {} bytes, longer than the budget; skipped", quoted(token), token.len())
        }
        _ => kind.message().to_string(),
    }
}

/// The message of binary data at `at` of `chunk`: how much was skipped, so that nothing is lost
/// unsaid, and UTF-16 text (a file in UTF-16 appended to one in UTF-8) named as such.
#[cold]
fn binary_data(chunk: &[u8], at: usize) -> String {
    let end = crate::pgn::reader::binary_data_end(chunk, at);
    let skipped = &chunk[at.min(end)..end];
    // A line cut short counts; the NUL after a UTF-16LE line break does not make one.
    let cut = skipped.iter().rposition(|&b| b != 0).is_some_and(|i| skipped[i] != b'\n');
    let lines = memchr::memchr_iter(b'\n', skipped).count() + usize::from(cut);
    let what = if utf16(chunk, at) {
        // Which byte order cannot be told without the start of the UTF-16 text.
        "binary data, UTF-16 text it seems (convert that part to UTF-8: iconv -f UTF-16LE -t UTF-8, \
         or UTF-16BE)"
    } else {
        "binary data"
    };
    // Which of the two ended the skip is not in the chunk when the chunk ends with the game.
    format!(
        "{what}; skipped {} bytes ({lines} lines) to the next line starting with '[' or the end",
        skipped.len()
    )
}

/// Whether the text from the NUL at `at` reads as UTF-16: ASCII characters each between NULs,
/// four at least (UTF-8 text has no NUL). Only bytes from `at` on are looked at: they are the
/// same however the input was cut into chunks.
fn utf16(chunk: &[u8], at: usize) -> bool {
    let text = |b: u8| b.is_ascii_graphic() || b.is_ascii_whitespace();
    chunk
        .get(at..at + 9)
        .is_some_and(|w| w.iter().enumerate().all(|(i, &b)| if i % 2 == 0 { b == 0 } else { text(b) }))
}

/// The FEN of `pos`, for diagnostics.
pub(super) fn fen(pos: &Position) -> String {
    let mut fen = String::new();
    write_fen(pos, EpMode::Legal, &mut fen);
    fen
}

/// The SAN of `m` in `pos`, for diagnostics.
pub(super) fn san(pos: &Position, m: Move) -> String {
    let mut san = String::new();
    write_san(pos, m, &mut san);
    san
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_at_a_character() {
        assert_eq!(text(b"Nf3"), "Nf3");
        let long = "x".repeat(TEXT_MAX + 1);
        assert_eq!(text(long.as_bytes()), format!("{}…", &long[..TEXT_MAX]));
        // A two-byte character across the cut is left out whole, and the rest stays UTF-8.
        let across = format!("{}é{}", "x".repeat(TEXT_MAX - 1), "y".repeat(10));
        assert_eq!(text(across.as_bytes()), format!("{}…", "x".repeat(TEXT_MAX - 1)));
    }
}
