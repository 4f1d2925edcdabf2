//! The command line (binary only): clap definitions, dispatch, error-to-exit-code mapping.

mod args;
mod cmd;
mod exit;
mod interrupt;
mod progress;
mod shard;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

pub use exit::Code;

/// Validate, clean, extract positions from and annotate chess games in PGN, on all cores.
#[derive(Parser, Debug)]
#[command(name = "pgnkit", version, about, after_help = exit::HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Validate every game: syntax, setup, every move (variations too), results.
    #[command(after_help = cmd::check::EXAMPLES)]
    Check(cmd::check::Args),
    /// Write every game again in PGN export format: repairs logged, broken games kept verbatim,
    /// duplicates removed.
    #[command(after_help = cmd::clean::EXAMPLES)]
    Clean(Box<cmd::clean::Args>),
    /// Analyse every mainline position with an engine and write lichess-style annotations
    /// ([%eval], judgements, the engine's line), or JSON Lines records.
    #[command(after_help = cmd::annotate::EXAMPLES)]
    Annotate(Box<cmd::annotate::Args>),
    /// Write an HTML report of an analysed collection: evaluation graphs, the mistakes on
    /// boards, each player's accuracy by opening and phase (or the summary as text or JSON).
    #[command(after_help = cmd::report::EXAMPLES)]
    Report(Box<cmd::report::Args>),
    /// Count the leaf nodes of the legal move tree (move generator check and benchmark).
    #[command(after_help = cmd::perft::EXAMPLES)]
    Perft(cmd::perft::Args),
    /// Write every mainline position as FEN, EPD, JSON Lines or CSV.
    #[command(after_help = cmd::positions::EXAMPLES)]
    Positions(cmd::positions::Args),
    /// Run the built-in engine as a UCI engine on stdin/stdout (for GUIs and python-chess).
    #[command(after_help = cmd::uci::EXAMPLES)]
    Uci(cmd::uci::Args),
    /// Run the built-in engine as an xboard/WinBoard (CECP 2) engine on stdin/stdout.
    #[command(after_help = cmd::xboard::EXAMPLES)]
    Xboard(cmd::xboard::Args),
    /// Play a game against the built-in engine in the terminal (moves in SAN or UCI).
    #[command(after_help = cmd::play::EXAMPLES)]
    Play(cmd::play::Args),
    /// Draw a board diagram (ASCII, Unicode or SVG) of a FEN or of a position in a PGN game.
    #[command(after_help = cmd::show::EXAMPLES)]
    Show(cmd::show::Args),
    /// Search fixed positions: print the engine's node signature and its speed.
    #[command(after_help = cmd::bench::EXAMPLES)]
    Bench(cmd::bench::Args),
    /// Join the parts the shards of one run wrote (`--shard I/N`) into the outputs one run
    /// writes, after checking that every game was handled exactly once.
    #[command(after_help = cmd::merge::EXAMPLES)]
    Merge(cmd::merge::Args),
    /// Print a shell completion script.
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
}

/// A failure that ends the run with a specific exit code and message.
#[derive(Debug)]
pub struct Fail {
    pub code: Code,
    pub message: String,
}

impl Fail {
    /// A usage error (exit 2).
    pub fn usage(message: impl Into<String>) -> Fail {
        Fail { code: Code::Usage, message: message.into() }
    }
}

impl Fail {
    /// An input that could not be opened or read, with the exit code the I/O layer assigns.
    pub fn from_input(e: pgnkit::io::InputError) -> Fail {
        Fail { code: Code::from_exit(e.exit_code()), message: e.to_string() }
    }
}

impl From<pgnkit::error::Error> for Fail {
    /// A failure that ended a run; a closed stdout (`| head`) is a quiet success.
    fn from(e: pgnkit::error::Error) -> Fail {
        match e {
            pgnkit::error::Error::Output(pgnkit::io::OutputError::BrokenPipe) => {
                Fail { code: Code::Ok, message: String::new() }
            }
            e => Fail { code: Code::from_exit(e.exit_code()), message: e.to_string() },
        }
    }
}

impl From<pgnkit::io::OutputError> for Fail {
    /// An output that could not be created or written; a closed stdout is a quiet success.
    fn from(e: pgnkit::io::OutputError) -> Fail {
        Fail::from(pgnkit::error::Error::Output(e))
    }
}

impl From<std::io::Error> for Fail {
    /// A write error; a closed stdout (`| head`) is a quiet success.
    fn from(e: std::io::Error) -> Fail {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Fail { code: Code::Ok, message: String::new() }
        } else {
            Fail { code: Code::IoErr, message: e.to_string() }
        }
    }
}

/// Parses the command line, runs it and returns the exit code.
pub fn main() -> ExitCode {
    let parsed = Cli::command().try_get_matches().and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m)));
    let cli = match parsed {
        Ok((cli, matches)) => {
            shard::remember(matches);
            cli
        }
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { Code::Usage.into() } else { Code::Ok.into() };
        }
    };
    let result = match cli.command {
        Command::Check(args) => cmd::check::run(&args),
        Command::Clean(args) => cmd::clean::run(&args),
        Command::Annotate(args) => cmd::annotate::run(&args),
        Command::Report(args) => cmd::report::run(&args),
        Command::Perft(args) => cmd::perft::run(&args),
        Command::Positions(args) => cmd::positions::run(&args),
        Command::Uci(args) => cmd::uci::run(&args),
        Command::Xboard(args) => cmd::xboard::run(&args),
        Command::Play(args) => cmd::play::run(&args),
        Command::Show(args) => cmd::show::run(&args),
        Command::Bench(args) => cmd::bench::run(&args),
        Command::Merge(args) => cmd::merge::run(&args),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "pgnkit", &mut std::io::stdout());
            Ok(Code::Ok)
        }
    };
    match result {
        Ok(code) => code.into(),
        Err(fail) => {
            if !fail.message.is_empty() {
                eprintln!("pgnkit: error: {}", fail.message);
            }
            fail.code.into()
        }
    }
}
