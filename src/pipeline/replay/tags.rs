//! What a game's tag section says, read when its movetext begins: the start position (the
//! `Variant`, `FEN` and `SetUp` tags, a FEN's soft problems repaired with a warning) and the
//! tags named twice.

use super::game::no_day;
use super::message::{Facts, text};
use super::{Hooks, Replayer};
use crate::chess::{Position, PositionErrorKind, Variant};
use crate::error::{Kind, Severity};
use crate::notation::fen::{FenError, parse_fen_tag};
use crate::pgn::RawTag;
use crate::pgn::date::is_date_tag;

impl<'a, H: Hooks<'a>> Replayer<'a, H> {
    /// The game's start position, from its tags; `None` (an error reported) when they give none.
    pub(super) fn setup(&mut self) -> Option<Position> {
        if let Some(tag) = self.game.setup_tags.variant {
            let (name, _) = tag.decode();
            match Variant::from_tag(&name) {
                Ok(v) => self.game.variant = v,
                Err(_) => {
                    let name = text(&tag.unescape());
                    self.report(Kind::UnsupportedVariant, Severity::Error, tag.offset as u64, None, || {
                        Facts::message(format!("unsupported variant \"{name}\""))
                    });
                    return None;
                }
            }
        }
        let Some(tag) = self.game.setup_tags.fen else {
            return Some(Position::new(self.game.variant));
        };
        let fen = tag.decode().0.into_owned();
        let offset = tag.offset as u64;
        // The FEN as shown (cut when long), made only for a diagnostic a hook wants.
        let facts = |message: &dyn Fn(&str) -> String| {
            let shown = text(&tag.unescape());
            Facts { message: message(&shown), san: None, fen: Some(shown) }
        };
        let pos = match parse_fen_tag(&fen, self.game.variant) {
            Ok((pos, None)) => pos,
            // Soft problems are repaired: rights without their rook, an impossible ep square.
            Ok((pos, Some(e))) => {
                if e.has(PositionErrorKind::InvalidCastlingRights) {
                    self.report(Kind::CastlingRights, Severity::Warning, offset, None, || {
                        facts(&|shown| {
                            format!("castling rights without their rook in FEN \"{shown}\": dropped")
                        })
                    });
                }
                if e.has(PositionErrorKind::InvalidEpSquare) {
                    self.report(Kind::FenRepaired, Severity::Warning, offset, None, || {
                        facts(&|shown| format!("impossible en passant square in FEN \"{shown}\": dropped"))
                    });
                }
                pos
            }
            Err(FenError::Position(e)) => {
                self.report(Kind::BadFen, Severity::Error, offset, None, || {
                    facts(&|shown| format!("{e} in FEN \"{shown}\""))
                });
                return None;
            }
            Err(e) => {
                self.report(Kind::BadFen, Severity::Error, offset, None, || {
                    facts(&|shown| format!("bad FEN \"{shown}\": {e}"))
                });
                return None;
            }
        };
        if fen.split_ascii_whitespace().nth(5) == Some("0") {
            self.report(Kind::FenRepaired, Severity::Warning, offset, None, || {
                facts(&|shown| format!("fullmove number 0 in FEN \"{shown}\": read as 1"))
            });
        }
        if self.game.tag(b"SetUp").is_none_or(|t| t.raw != b"1") {
            self.report(Kind::MissingSetUp, Severity::Warning, offset, None, || {
                facts(&|_| "FEN tag without SetUp \"1\"".to_string())
            });
        }
        Some(pos)
    }

    /// Warns, in line order, of each tag whose name an earlier tag of the game has
    /// ([`Game::repeated`]: the first counts) and of each date tag whose value names no day
    /// (`[Date "2003.04.31"]`).
    #[cold]
    #[inline(never)]
    pub(super) fn tag_warnings(&mut self) {
        // The first value of each name, found in one pass (a search a repeat is quadratic).
        let mut first: hashbrown::HashMap<&[u8], RawTag<'a>> = hashbrown::HashMap::new();
        for i in 0..self.game.tags.len() {
            let (name, value) = self.game.tags[i];
            if !self.game.repeated(i) {
                if self.game.has_repeats() {
                    first.entry(name).or_insert(value);
                }
                if !self.game.has_no_day() || !is_date_tag(name) {
                    continue;
                }
                let Some(why) = no_day(value.raw) else { continue };
                self.report(Kind::BadDate, Severity::Warning, value.offset as u64, None, || {
                    Facts::message(format!("{} \"{}\" names no day: {why}", text(name), text(value.raw)))
                });
                continue;
            }
            let first = first.get(name).copied().unwrap_or(value);
            self.report(Kind::DuplicateTag, Severity::Warning, value.offset as u64, None, || {
                Facts::message(format!(
                    "duplicate tag {}: the first, {:?}, counts; {:?} is ignored",
                    text(name),
                    text(&first.unescape()),
                    text(&value.unescape())
                ))
            });
        }
    }
}
