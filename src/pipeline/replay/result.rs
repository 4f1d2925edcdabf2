//! The game's result checked when it ends: the movetext's result token against the `Result`
//! tag, and against a mate or stalemate on the board after the mainline.

use super::message::Facts;
use super::{Hooks, Replayer};
use crate::error::{Kind, Severity};
use crate::pgn::GameResult;

impl<'a, H: Hooks<'a>> Replayer<'a, H> {
    /// Compares the result token with the `Result` tag and with the board after the mainline.
    pub(super) fn check_result(&mut self) {
        let end = self.pending_result_token.unwrap_or(self.game.offset);
        let tag = self.game.setup_tags.result;
        let tag_result = tag.and_then(|t| self.tag_result(t));
        let Some(token) = self.game.result else {
            self.report(Kind::MissingResult, Severity::Warning, end, None, || {
                Facts::message("no result token at the end of the movetext".into())
            });
            return;
        };
        if let Some(t) = tag_result
            && t != token
        {
            let sev = if t == GameResult::Unknown || token == GameResult::Unknown {
                Severity::Warning
            } else {
                Severity::Error
            };
            self.report(Kind::ResultMismatch, sev, end, None, || {
                Facts::message(format!(
                    "result {} differs from the Result tag \"{}\"",
                    token.as_str(),
                    t.as_str()
                ))
            });
        }
        let Some(line) = self.stack.first().filter(|l| !l.dead) else { return };
        if let Some(o) = line.pos.mate_or_stalemate()
            && token != GameResult::Unknown
            && o.result() != token.as_str()
        {
            let ply = line.ply;
            self.report(Kind::ResultMismatch, Severity::Error, end, Some(ply), || {
                Facts::message(format!(
                    "result {} but the board shows {:?} ({})",
                    token.as_str(),
                    o.termination,
                    o.result()
                ))
            });
        }
    }

    /// The Result tag's value: a standard one, or one written oddly (`1:0`, `½-½`), which is
    /// reported ([`GameResult::from_tag`]). `?` says nothing; other text (`draw`) is
    /// reported and read as no tag.
    fn tag_result(&mut self, tag: crate::pgn::RawTag<'a>) -> Option<GameResult> {
        let value = tag.unescape();
        if let Some(r) = GameResult::from_ascii(&value) {
            return Some(r);
        }
        let text = super::message::text(&value);
        let read = GameResult::from_tag(&value);
        if text != "?" {
            let offset = tag.offset as u64;
            let (kind, what) = match read {
                Some(r) => (Kind::ResultSpelling, format!("read as {}", r.as_str())),
                // Settled as a conflict of tag and token: `clean` logs it with the result.
                None => (Kind::ResultMismatch, "is no result; the result token stands".to_string()),
            };
            self.report(kind, Severity::Warning, offset, None, || Facts {
                message: format!("Result tag \"{text}\" {what}"),
                san: Some(text.clone()),
                fen: None,
            });
        }
        read
    }
}
