//! [`Fail`]: how a command fails, with the exit code it ends the process with.

use pgnkit::error::{Error, UsageError};
use pgnkit::exit::Code;
use pgnkit::io::{InputError, OutputError};

/// A failure that ends a command: a run's typed [`Error`], or a failure of a command that runs
/// no job (perft, show, play) with its code and message.
#[derive(Debug, thiserror::Error)]
pub enum Fail {
    /// A failure of the library, with its source.
    #[error(transparent)]
    Run(#[from] Error),
    /// Writing to stdout or reading stdin failed (a closed stdout is a quiet success).
    #[error(transparent)]
    Stdio(#[from] std::io::Error),
    /// A run's failure, then a line on what it left (the cache that lets the same command
    /// resume).
    #[error("{source}\npgnkit: {note}")]
    Noted {
        /// The failure (boxed: a note is rare, and `Fail` travels in every `Result`).
        source: Box<Error>,
        /// What it left.
        note: String,
    },
    /// What a command that runs no job found wrong, and its code.
    #[error("{message}")]
    Command {
        /// The exit code.
        code: Code,
        /// What went wrong.
        message: String,
    },
}

impl Fail {
    /// A usage error (exit 2): a rule of the command line, in words.
    pub fn usage(message: impl Into<String>) -> Fail {
        Fail::Run(Error::Usage(UsageError::rule(message)))
    }

    /// A usage error for `options` (as on the command line, one or more) that shape only what
    /// `--format FORMAT` does not write: it `writes` something else, they shape `shaping`.
    pub fn ignored_by_format(
        format: &impl clap::ValueEnum,
        writes: &str,
        options: &[&str],
        shaping: &str,
    ) -> Fail {
        let format = format.to_possible_value().expect("a format clap offers");
        Fail::usage(format!(
            "--format {} writes {writes}: {}, which {} {shaping}, cannot be used with it",
            format.get_name(),
            options.join(" and "),
            if options.len() == 1 { "shapes" } else { "shape" }
        ))
    }

    /// The exit code it ends the run with.
    pub(super) fn code(&self) -> Code {
        match self {
            Fail::Run(e) => e.exit_code(),
            Fail::Noted { source, .. } => source.exit_code(),
            Fail::Stdio(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Code::Ok,
            Fail::Stdio(_) => Code::IoErr,
            Fail::Command { code, .. } => *code,
        }
    }

    /// As stderr shows it: a file name or other text from outside escaped
    /// ([`without_controls`](pgnkit::pgn::text::without_controls)), so that it can neither forge a
    /// line nor drive the terminal; a note stays a line of its own.
    pub(super) fn shown(&self) -> String {
        let shown = |text: &str| pgnkit::pgn::text::without_controls(text, &[]).into_owned();
        match self {
            Fail::Noted { source, note } => {
                format!("{}\npgnkit: {}", shown(&source.to_string()), shown(note))
            }
            fail => shown(&fail.to_string()),
        }
    }

    /// Nothing to say: stdout was closed early (`| head`).
    pub(super) fn is_quiet(&self) -> bool {
        match self {
            Fail::Run(Error::Output(OutputError::BrokenPipe)) => true,
            Fail::Stdio(e) => e.kind() == std::io::ErrorKind::BrokenPipe,
            _ => false,
        }
    }
}

impl From<UsageError> for Fail {
    fn from(e: UsageError) -> Fail {
        Fail::Run(e.into())
    }
}

impl From<OutputError> for Fail {
    fn from(e: OutputError) -> Fail {
        Fail::Run(e.into())
    }
}

impl From<InputError> for Fail {
    fn from(e: InputError) -> Fail {
        Fail::Run(e.into())
    }
}
