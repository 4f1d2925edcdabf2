//! Diagnostics about games (a bad game is data, not control flow) and their kinds. Every
//! problem pgnkit finds in a game becomes a [`Diagnostic`]: counted in the stats, reported with
//! its location, and the run goes on with the next game.

use std::fmt;

use crate::pgn::ProblemKind;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Unusual but readable: the game stays valid.
    Warning,
    /// Information is lost or wrong: the game is invalid (its valid prefix is kept).
    Error,
}

impl Severity {
    /// `warning` or `error`.
    pub const fn name(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

macro_rules! kinds {
    ($($kind:ident => $code:literal, $sev:ident, $what:literal;)*) => {
        /// What kind of problem a diagnostic reports.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Kind { $(#[doc = $what] $kind),* }

        impl Kind {
            /// Every kind, in report order.
            pub const ALL: &'static [Kind] = &[$(Kind::$kind),*];
            /// Stable snake_case code (JSON output, summaries).
            pub const fn code(self) -> &'static str { match self { $(Kind::$kind => $code),* } }
            /// The usual severity of this kind.
            pub const fn severity(self) -> Severity { match self { $(Kind::$kind => Severity::$sev),* } }
            /// A short description.
            pub const fn what(self) -> &'static str { match self { $(Kind::$kind => $what),* } }
        }
    };
}

kinds! {
    Syntax => "syntax", Error, "PGN syntax error";
    BadTag => "bad_tag", Error, "malformed tag pair";
    BadFen => "bad_fen", Error, "bad FEN or setup";
    UnsupportedVariant => "unsupported_variant", Error, "unsupported variant";
    IllegalMove => "illegal_move", Error, "illegal move";
    AmbiguousMove => "ambiguous_move", Error, "ambiguous move";
    InvalidMove => "invalid_move", Error, "unreadable move token";
    ResultMismatch => "result_mismatch", Error, "result contradicts tag or board";
    MissingResult => "missing_result", Warning, "missing result";
    UnterminatedComment => "unterminated_comment", Error, "unterminated comment";
    OverBudget => "over_budget", Error, "game over budget";
    Encoding => "encoding", Warning, "text not UTF-8 or UTF-16 input";
    NonCanonicalSan => "non_canonical_san", Warning, "non-canonical SAN";
    CheckMark => "check_mark", Warning, "missing or wrong check mark";
    NullMove => "null_move", Warning, "null move";
    CastlingRights => "castling_rights", Warning, "castling rights repaired";
    SyntaxWarning => "syntax_warning", Warning, "unusual PGN syntax";
}

impl Kind {
    /// The kind of a reader problem, and its severity.
    pub fn from_problem(p: ProblemKind) -> (Kind, Severity) {
        let kind = match p {
            ProblemKind::UnterminatedComment => Kind::UnterminatedComment,
            ProblemKind::CommentTooLong
            | ProblemKind::TooManyTokens
            | ProblemKind::VariationTooDeep
            | ProblemKind::TooManyProblems => Kind::OverBudget,
            ProblemKind::MalformedTag
            | ProblemKind::UnterminatedTagValue
            | ProblemKind::UnescapedQuoteInTag => Kind::BadTag,
            ProblemKind::Utf16Bom | ProblemKind::TagNotUtf8 => Kind::Encoding,
            _ if !p.is_error() => Kind::SyntaxWarning,
            _ => Kind::Syntax,
        };
        (kind, if p.is_error() { Severity::Error } else { Severity::Warning })
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// One problem in one game, located.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// What.
    pub kind: Kind,
    /// How bad.
    pub severity: Severity,
    /// Game number in its input, 1-based.
    pub game: u64,
    /// Byte offset in the (decompressed) input.
    pub offset: u64,
    /// Line (1-based) within the chunk; the pipeline makes it absolute on release.
    pub line: u64,
    /// Column (1-based, in bytes).
    pub col: u64,
    /// Ply (half-move, 1-based) of the offending move, when there is one.
    pub ply: Option<u32>,
    /// `White - Black` of the game, for the reader of the report.
    pub players: String,
    /// The specific message (offending move, position...).
    pub message: String,
}
