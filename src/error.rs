//! The two kinds of failure. A bad game is data, not control flow: every problem pgnkit finds in
//! a game becomes a [`Diagnostic`], counted in the stats and reported with its location, and the
//! run goes on with the next game. A failure that stops a run (an input or output that fails, an
//! engine that does not start, a caught bug) is an [`Error`]: it holds the typed error of the
//! layer that failed, with its source, and knows its exit [`Code`].

use std::fmt;

use crate::analysis::AnalyzerError;
use crate::analysis::StartError;
use crate::analysis::cache::CacheError;
use crate::exit::Code;
use crate::io::{InputError, OutputError};
use crate::jobs::clean::dedup::DedupError;
use crate::pgn::ProblemKind;

/// A failure that stops a run, or the reading of one input; [`Error::exit_code`] maps it to its
/// exit code.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An input could not be opened or read (65, 66 or 74).
    #[error(transparent)]
    Input(#[from] InputError),
    /// The output could not be created or written (73 or 74; a closed stdout is 0).
    #[error(transparent)]
    Output(#[from] OutputError),
    /// An argument or setting that cannot be used (2).
    #[error(transparent)]
    Usage(#[from] UsageError),
    /// An engine was not found or did not start (69).
    #[error(transparent)]
    Engine(StartError),
    /// An engine that cannot go on, e.g. one that could not be restarted (69).
    #[error(transparent)]
    Analysis(#[from] AnalyzerError),
    /// The evaluation cache could not be opened, read or written (74; 65 when it is no SQLite
    /// database, a corrupt one, or no pgnkit cache of this version).
    #[error(transparent)]
    Cache(#[from] CacheError),
    /// `clean --dedup` ran out of memory, or its inputs changed between its passes (74).
    #[error(transparent)]
    Dedup(#[from] DedupError),
    /// Temporary files beyond memory could not be used (74).
    #[error(transparent)]
    Spill(#[from] crate::io::sort::SpillError),
    /// A worker panicked on an input: a bug, caught instead of killing the process (70).
    #[error("{input}: {source}")]
    Panic {
        /// The input being read.
        input: String,
        /// Where and with what message.
        #[source]
        source: Panic,
    },
    /// A bug, caught instead of killing the process (70): what broke.
    #[error("{0}")]
    Internal(&'static str),
    /// The run was asked to stop (130).
    #[error("interrupted")]
    Interrupted,
}

/// A start an interrupt ended stops the run as an interrupted one, not as a missing engine.
impl From<StartError> for Error {
    fn from(e: StartError) -> Error {
        match e {
            StartError::Interrupted => Error::Interrupted,
            e => Error::Engine(e),
        }
    }
}

impl Error {
    /// The exit code this failure ends a run with.
    pub fn exit_code(&self) -> Code {
        match self {
            Error::Input(e) => e.exit_code(),
            Error::Output(e) => e.exit_code(),
            Error::Usage(_) => Code::Usage,
            Error::Engine(_) | Error::Analysis(_) => Code::Unavailable,
            Error::Cache(e) => e.exit_code(),
            Error::Dedup(_) | Error::Spill(_) => Code::IoErr,
            Error::Panic { .. } | Error::Internal(_) => Code::Software,
            Error::Interrupted => Code::Interrupted,
        }
    }
}

/// An argument, or a combination of arguments, that cannot be used (exit code 2). Those with a
/// value that does not parse keep the parser's error as their source.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// A `--where` expression that does not parse.
    #[error("--where {expr:?}: {source}")]
    Where {
        /// The expression as given.
        expr: String,
        /// Why and where it does not parse.
        #[source]
        source: crate::select::tags::error::TagExprError,
    },
    /// A `--material` signature that does not parse.
    #[error("--material {signature:?}: {source}")]
    Material {
        /// The signature as given.
        signature: String,
        /// Why it does not parse.
        #[source]
        source: crate::select::material::MaterialSigError,
    },
    /// A FEN that does not parse: `option` is the option that gave it (`--position`), or
    /// `bad FEN` where the command takes a FEN in more than one way.
    #[error("{option} {fen:?}: {source}")]
    Fen {
        /// The option, or `bad FEN`.
        option: &'static str,
        /// The FEN as given.
        fen: String,
        /// Why it does not parse.
        #[source]
        source: crate::notation::FenError,
    },
    /// `--min-ply` above `--max-ply`.
    #[error("--max-ply {max} is below --min-ply {min}")]
    PlyRange {
        /// `--min-ply`.
        min: u32,
        /// `--max-ply`.
        max: u32,
    },
    /// Any other rule of the command line, as the command states it.
    #[error("{0}")]
    Rule(String),
}

impl UsageError {
    /// A rule of the command line that the arguments break, in words.
    pub fn rule(message: impl Into<String>) -> UsageError {
        UsageError::Rule(message.into())
    }
}

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Unusual but readable: the game stays valid.
    Warning,
    /// Information is lost or wrong: the game is invalid (its valid prefix is kept).
    #[default]
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

        /// The message of the `unreported` warning that follows a game's first
/// [`Limits::MAX_PROBLEMS`](crate::pgn::Limits::MAX_PROBLEMS) diagnostics of `what` (`""`, `"engine "`).
pub fn unreported_message(what: &str) -> String {
    format!(
        "more than {} {what}diagnostics in this game: the rest are counted in the summary, not shown",
        crate::pgn::Limits::MAX_PROBLEMS
    )
}

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
    BadTag => "bad_tag", Warning, "malformed tag pair";
    BadFen => "bad_fen", Error, "bad FEN or setup";
    UnsupportedVariant => "unsupported_variant", Error, "unsupported variant";
    IllegalMove => "illegal_move", Error, "illegal move";
    CounterLimit => "counter_limit", Error, "a move taking the halfmove clock or the fullmove number past 4294967295";
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
    GluedResult => "glued_result", Warning, "result token glued to the last move";
    ResultSpelling => "result_spelling", Warning, "result written oddly (a Unicode dash, ½, 1/2, 1:0, blanks around it)";
    FenRepaired => "fen_repaired", Warning, "impossible en passant square dropped, or fullmove 0 read as 1";
    MissingSetUp => "missing_setup", Warning, "FEN tag without SetUp \"1\"";
    DuplicateTag => "duplicate_tag", Warning, "tag name given twice in a game (the first counts)";
    BadDate => "bad_date", Warning, "date tag naming no day (month 13, April 31)";
    EngineWarning => "engine_warning", Warning, "engine output ignored or cut, or the engine restarted";
    Unevaluated => "unevaluated", Error, "position left without an engine evaluation";
    NoEvals => "no_evals", Warning, "a game with no [%eval] for annotate --from-evals to judge (written as read in PGN)";
    BadEval => "bad_eval", Warning, "an [%eval] that reads as no evaluation, left out by annotate --from-evals, report and positions (JSON Lines, Parquet)";
    Unreported => "unreported", Warning, "a game's diagnostics past the first 100: counted in the summary, not shown";
}

// Written out: the enum comes from the macro above, which has no `#[default]` to give.
#[allow(clippy::derivable_impls)]
impl Default for Kind {
    fn default() -> Kind {
        Kind::Syntax
    }
}

impl Kind {
    /// The kind of a reader problem, and its severity.
    pub fn from_problem(p: ProblemKind) -> (Kind, Severity) {
        let kind = match p {
            ProblemKind::UnterminatedComment => Kind::UnterminatedComment,
            ProblemKind::CommentTooLong
            | ProblemKind::TooManyTokens
            | ProblemKind::TokenTooLong
            | ProblemKind::TooManyTags
            | ProblemKind::VariationTooDeep
            | ProblemKind::TooManyProblems => Kind::OverBudget,
            ProblemKind::MalformedTag
            | ProblemKind::UnterminatedTagValue
            | ProblemKind::UnclosedTag
            | ProblemKind::UnescapedQuoteInTag => Kind::BadTag,
            ProblemKind::Utf16Bom | ProblemKind::NotUtf8 => Kind::Encoding,
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

/// One problem in one game, located, with the typed facts its message is made of.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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
    pub column: u64,
    /// Ply (half-move, 1-based) of the offending move, when there is one.
    pub ply: Option<u32>,
    /// The move as written, for a problem with a move.
    pub san: Option<String>,
    /// The position the move was played in (for a bad setup, the `FEN` tag as written).
    pub fen: Option<String>,
    /// The game's `White` tag.
    pub white: Option<String>,
    /// The game's `Black` tag.
    pub black: Option<String>,
    /// The specific message (offending move, position...).
    pub message: String,
}

impl Diagnostic {
    /// `White - Black` for the reader of a report, `?` (PGN's unknown) for a missing tag.
    pub fn players(&self) -> String {
        format!("{} - {}", self.white.as_deref().unwrap_or("?"), self.black.as_deref().unwrap_or("?"))
    }

    /// Adds `games` to the game number and `lines` to the line (numbers made absolute).
    pub fn shift(&mut self, games: u64, lines: u64) {
        self.game += games;
        self.line += lines;
    }
}

/// A worker's panic, caught: a bug in pgnkit, reported instead of killing the process.
#[derive(Debug, thiserror::Error)]
#[error("internal error while processing bytes {offset}..: {message}")]
pub struct Panic {
    /// Offset of the chunk that was being processed.
    pub offset: u64,
    /// The panic message.
    pub message: String,
}
