//! The [`Visitor`] trait: events the [`Reader`](super::Reader) delivers for one game, in input
//! order, each token with its byte offset in the input.
//!
//! Event order per game: `begin_game`, `tag`*, `begin_movetext`, then any of `san`, `nag`,
//! `comment`, `begin_variation`/`end_variation` (balanced), `outcome` once, `problem`
//! anywhere after `begin_game`, and always exactly one `end_game`.
//! Skipping: `ControlFlow::Break(())` from `begin_game` skips the tag events, from
//! `begin_movetext` the movetext events, from `begin_variation` that variation (no
//! `end_variation` follows), from `san` the rest of the movetext. Skipped parts are still
//! scanned by the same code, so game boundaries never depend on what a visitor skips.

use std::ops::ControlFlow;

use super::{Nag, RawComment, RawTag};

/// Where a game starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameStart {
    /// Byte offset of the game's first token (its first `[` or first movetext token).
    pub offset: usize,
}

/// A move token as written: move number stripped, suffix glyphs (`!`, `?!`, ...) split off
/// and delivered as NAGs. May be anything the SAN parser has to judge: `e4`, `O-O+`, `0-0`,
/// `e2e4`, `--`, `Z0`, `0000`, `N@f3`, figurines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SanToken<'a> {
    /// The token's bytes.
    pub raw: &'a [u8],
    /// Byte offset of its first byte.
    pub offset: usize,
}

/// A game termination marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
    /// `*`: ongoing, abandoned or unknown.
    Unknown,
}

impl GameResult {
    /// A result as people write it besides the standard's four: with blanks around it, a Unicode
    /// dash, a `½`, `:` for `-` (`1:0`), or a half written `1/2`, `0.5` or `0,5` alone or on
    /// both sides (`½-½`, `1/2`, `0.5-0.5`); `None` for anything else (`draw`, `+/-`).
    ///
    /// ```
    /// use pgnkit::pgn::GameResult;
    /// assert_eq!(GameResult::from_spelling("1:0"), Some(GameResult::WhiteWins));
    /// assert_eq!(GameResult::from_spelling(" ½-½ "), Some(GameResult::Draw));
    /// assert_eq!(GameResult::from_spelling("draw"), None);
    /// ```
    pub fn from_spelling(text: &str) -> Option<GameResult> {
        let text = text.trim().replace(['\u{2013}', '\u{2014}', '\u{2212}', ':'], "-");
        let text = text.replace('\u{bd}', "1/2").replace("0.5", "1/2").replace("0,5", "1/2");
        match text.as_str() {
            "1/2" | "1/2-1/2" => Some(GameResult::Draw),
            t => GameResult::from_ascii(t.as_bytes()),
        }
    }

    /// A Result tag's value (escapes resolved) as the result it spells: one of the standard
    /// four, or one written oddly ([`GameResult::from_spelling`]).
    ///
    /// ```
    /// use pgnkit::pgn::GameResult;
    /// assert_eq!(GameResult::from_tag(b"1:0"), Some(GameResult::WhiteWins));
    /// assert_eq!(GameResult::from_tag(b"\xbd-\xbd"), Some(GameResult::Draw)); // Windows-1252
    /// assert_eq!(GameResult::from_tag(b"?"), None);
    /// ```
    pub fn from_tag(value: &[u8]) -> Option<GameResult> {
        GameResult::from_ascii(value)
            .or_else(|| GameResult::from_spelling(&crate::pgn::text::decode(value).0))
    }

    /// Parses the four standard tokens.
    pub fn from_ascii(token: &[u8]) -> Option<GameResult> {
        Some(match token {
            b"1-0" => GameResult::WhiteWins,
            b"0-1" => GameResult::BlackWins,
            b"1/2-1/2" => GameResult::Draw,
            b"*" => GameResult::Unknown,
            _ => return None,
        })
    }

    /// The standard token.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        }
    }
}

/// A syntax diagnostic: what and where (byte offset in the input).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Problem {
    /// What went wrong.
    pub kind: ProblemKind,
    /// Byte offset where it was found.
    pub offset: usize,
}

/// Kinds of syntax diagnostics. [`ProblemKind::is_error`] tells errors from warnings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProblemKind {
    /// The input starts with a UTF-16 byte order mark; nothing more is read.
    Utf16Bom,
    /// NUL or other control bytes: the rest up to the next line starting with `[` is skipped.
    BinaryData,
    /// A tag line that is not `[Name "value"]`; it is skipped.
    MalformedTag,
    /// A tag value without a closing quote on its line; the value runs to the end of the line (a
    /// repair: the tag is kept).
    UnterminatedTagValue,
    /// A tag value closed by its quote, with no `]` before the line's end or the next tag on
    /// it (`[Event "e"`, `[Event "e" [Site "s"]`): the value ends at the quote.
    UnclosedTag,
    /// A `]` repeated after a tag pair's own (`[Event "A"]]`): skipped.
    StrayAfterTag,
    /// Quotes inside a tag value not escaped as `\"`; the value runs to the last `"]`.
    UnescapedQuoteInTag,
    /// `{` without `}` before the next game or the end of input; the comment ends there.
    UnterminatedComment,
    /// A comment longer than the budget: its text is cut at the budget, and the comment still
    /// ends at its `}` (a `;` comment at its line's end).
    CommentTooLong,
    /// `}` outside a comment.
    UnmatchedCloseBrace,
    /// `)` without a `(`.
    UnmatchedCloseParen,
    /// `(` not closed before the end of the game.
    UnclosedVariation,
    /// Variations nested deeper than the budget; the deeper part is skipped.
    VariationTooDeep,
    /// `$` not followed by 0..=255 (`$256`, a `$` alone): skipped, as no glyph is defined past
    /// `$255`.
    InvalidNag,
    /// A result token inside a variation (ignored).
    ResultInVariation,
    /// A `[` in movetext that starts no tag line (through its `]` on that line): skipped; it may
    /// have held something (a command outside its comment, a tag), so it is an error here, and
    /// the replay makes one short enough for a message to show whole a warning; its bytes are
    /// [`reader::unexpected_token`](super::reader::unexpected_token).
    UnexpectedToken,
    /// A run of punctuation with no meaning in movetext (`\`, `"`, `,`, `&`, `%` not in column 1
    /// ...): skipped, no move or word is in it; its bytes are
    /// [`reader::unexpected_token`](super::reader::unexpected_token).
    StrayBytes,
    /// More tokens than the per-game budget; the rest of the game is skipped.
    TooManyTokens,
    /// A token longer than the budget ([`Limits::max_token`](super::Limits::max_token)): a move
    /// or word in movetext, or a tag pair (at its `[`); skipped, read no further than its end.
    /// Its bytes are [`reader::long_token`](super::reader::long_token).
    TokenTooLong,
    /// More tag pairs than the per-game budget ([`Limits::max_tags`](super::Limits::max_tags),
    /// [`Limits::max_tag_bytes`](super::Limits::max_tag_bytes)), at the first past it: it and
    /// the game's later tag pairs are skipped, its movetext is read.
    TooManyTags,
    /// More diagnostics than the per-game budget; the later ones are dropped.
    TooManyProblems,
    /// A game of nothing but a result token: no tags, no movetext before it. Most often a result
    /// written twice (`1-0 1-0`), whose second copy reads as a game of its own.
    LoneResult,
    /// A result token after the game's result (`1-0 1-0`): ignored, the first one stands.
    RepeatedResult,
    /// Comments before the game's first tag (a collection's preamble): read as the comments
    /// at the start of its movetext.
    CommentBeforeTags,
    /// Text of the game (a tag, a comment, any token) that is not UTF-8: it reads as
    /// Windows-1252 (Latin-1 files). Reported once a game, where the first such byte is.
    NotUtf8,
}

impl ProblemKind {
    /// Errors lose information; warnings are only unusual spelling.
    pub fn is_error(self) -> bool {
        !matches!(
            self,
            ProblemKind::MalformedTag
                | ProblemKind::UnescapedQuoteInTag
                | ProblemKind::UnterminatedTagValue
                | ProblemKind::UnclosedTag
                | ProblemKind::StrayAfterTag
                | ProblemKind::ResultInVariation
                | ProblemKind::UnmatchedCloseBrace
                | ProblemKind::StrayBytes
                | ProblemKind::InvalidNag
                | ProblemKind::LoneResult
                | ProblemKind::RepeatedResult
                | ProblemKind::CommentBeforeTags
                | ProblemKind::NotUtf8
        )
    }

    /// A short description for diagnostics.
    pub fn message(self) -> &'static str {
        match self {
            ProblemKind::Utf16Bom => "input is UTF-16 (byte order mark); convert it to UTF-8",
            ProblemKind::BinaryData => "binary data; skipped to the next line starting with '['",
            ProblemKind::MalformedTag => "malformed tag pair; skipped",
            ProblemKind::UnterminatedTagValue => "unterminated tag value; read to the end of its line",
            ProblemKind::UnclosedTag => "tag pair without its closing ']'",
            ProblemKind::StrayAfterTag => "']' after a tag pair's own; skipped",
            ProblemKind::UnescapedQuoteInTag => "unescaped '\"' in tag value",
            ProblemKind::UnterminatedComment => "unterminated comment",
            ProblemKind::CommentTooLong => {
                "comment longer than the budget; its text cut there, read on after its '}'"
            }
            ProblemKind::UnmatchedCloseBrace => "'}' outside a comment",
            ProblemKind::UnmatchedCloseParen => "')' without '('",
            ProblemKind::UnclosedVariation => "variation not closed",
            ProblemKind::VariationTooDeep => "variations nested too deep; skipped",
            ProblemKind::InvalidNag => "NAG not in $0..$255; skipped",
            ProblemKind::ResultInVariation => "result inside a variation; ignored",
            ProblemKind::UnexpectedToken => "unexpected token in movetext; skipped",
            ProblemKind::StrayBytes => "stray punctuation in movetext; skipped",
            ProblemKind::TooManyTokens => "game too large; rest skipped",
            ProblemKind::TokenTooLong => "token longer than the budget; skipped",
            ProblemKind::TooManyTags => {
                "more tags than the budget; this one and the rest of the tags skipped"
            }
            ProblemKind::TooManyProblems => "too many problems in this game; further ones dropped",
            ProblemKind::NotUtf8 => "text not UTF-8; read as Windows-1252",
            ProblemKind::RepeatedResult => "a second result token after the game's result; ignored",
            ProblemKind::CommentBeforeTags => "comment before the tags; read as the start of the movetext",
            ProblemKind::LoneResult => {
                "a result with no tags and no moves: a game of its own (a result written twice?)"
            }
        }
    }
}

/// Receives the events of one game at a time; see the module docs for order and skipping.
///
/// `'a` is the lifetime of the input: tokens borrow from it, so a visitor may keep them
/// (e.g. collect a game's `SanToken`s) without copying.
pub trait Visitor<'a> {
    /// What [`Visitor::end_game`] produces for each game.
    type Output;

    /// A game starts. `Break` skips its tag events.
    fn begin_game(&mut self, start: GameStart) -> ControlFlow<()> {
        let _ = start;
        ControlFlow::Continue(())
    }

    /// A tag pair; `name` as written, `value` raw (see [`RawTag`]).
    fn tag(&mut self, name: &'a [u8], value: RawTag<'a>) {
        let _ = (name, value);
    }

    /// The tags are over. `Break` skips the movetext events (including `outcome`).
    fn begin_movetext(&mut self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// A move token. `Break` skips the rest of this game's movetext.
    fn san(&mut self, san: SanToken<'a>) -> ControlFlow<()> {
        let _ = san;
        ControlFlow::Continue(())
    }

    /// A NAG (`$n`, a suffix glyph, or an evaluation symbol), at `offset`.
    fn nag(&mut self, nag: Nag, offset: usize) {
        let _ = (nag, offset);
    }

    /// A comment.
    fn comment(&mut self, comment: RawComment<'a>) {
        let _ = comment;
    }

    /// `(` at `offset`. `Break` skips the variation; no `end_variation` follows.
    fn begin_variation(&mut self, offset: usize) -> ControlFlow<()> {
        let _ = offset;
        ControlFlow::Continue(())
    }

    /// `)` at `offset` (or the end of the game for an unclosed variation).
    fn end_variation(&mut self, offset: usize) {
        let _ = offset;
    }

    /// The game's result token (main line) at `offset`, or `None` at the end of a movetext
    /// without one (then `offset` is where the game ends). Called once per game unless the
    /// movetext was skipped.
    fn outcome(&mut self, result: Option<GameResult>, offset: usize) {
        let _ = (result, offset);
    }

    /// A syntax diagnostic.
    fn problem(&mut self, problem: Problem) {
        let _ = problem;
    }

    /// The game is over.
    fn end_game(&mut self) -> Self::Output;
}

/// A visitor that ignores everything (used to skip games).
#[derive(Debug, Default, Clone, Copy)]
pub struct Ignore;

impl Visitor<'_> for Ignore {
    type Output = ();

    fn begin_game(&mut self, _: GameStart) -> ControlFlow<()> {
        ControlFlow::Break(())
    }
    fn begin_movetext(&mut self) -> ControlFlow<()> {
        ControlFlow::Break(())
    }
    fn end_game(&mut self) {}
}
