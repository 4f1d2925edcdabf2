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
        let tag_result = tag.and_then(|t| GameResult::from_ascii(&t.unescape()));
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
}
