//! The text of the replay's diagnostics: a token as written, a position's FEN, a move's SAN, and
//! the facts a diagnostic carries beside its kind and place.

use crate::chess::{Move, Position};
use crate::notation::fen::{EpMode, write_fen};
use crate::notation::san::write_san;
use crate::pgn::ProblemKind;
use crate::pgn::text::quoted;

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

/// The text of a token, for diagnostics: UTF-8, else Windows-1252, as all input text.
pub(super) fn text(raw: &[u8]) -> String {
    crate::pgn::text::decode(raw).0.into_owned()
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
        _ => kind.message().to_string(),
    }
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
