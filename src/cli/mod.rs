//! The command line (binary only): clap definitions, dispatch, and the one place a failure
//! becomes its message and exit status.

/// `eprint!` that does not panic when stderr cannot be written (a closed pipe, a full disk): the
/// message is lost and the run goes on to its own exit status, as GNU tools do; nor waits past a
/// stop for a pipe no one reads ([`pgnkit::io::stderr`]).
macro_rules! stderr {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(pgnkit::io::stderr(), $($arg)*);
    }};
}

/// [`stderr!`] with a newline: `eprintln!` that does not panic.
macro_rules! stderrln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(pgnkit::io::stderr(), "{}\n", format_args!($($arg)*));
    }};
}

mod args;
mod cmd;
mod fail;
mod interrupt;
mod progress;
mod shard;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use pgnkit::exit::Code;

/// Validate, clean, extract positions from and annotate chess games in PGN, on all cores.
#[derive(Parser, Debug)]
#[command(name = "pgnkit", version, about, after_help = Code::help())]
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
    // The report reads every game for its summary: it is not sharded (its --shard is refused).
    #[command(
        after_help = cmd::report::EXAMPLES,
        mut_arg("shard", |a| a.hide(true)),
        mut_arg("shards", |a| a.hide(true)),
        mut_arg("output_dir", |a| a.hide(true))
    )]
    Report(Box<cmd::report::Args>),
    /// Count the leaf nodes of the legal move tree (move generator check and benchmark).
    #[command(after_help = cmd::perft::EXAMPLES)]
    Perft(cmd::perft::Args),
    /// Write every mainline position as FEN, EPD, JSON Lines, CSV or Parquet.
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
    /// Write the sidecar index of a plain PGN file or a zstd one of several frames (pzstd, the
    /// lichess dumps), so that each `--shard` starts reading near its share.
    #[command(after_help = cmd::index::EXAMPLES)]
    Index(cmd::index::Args),
    /// Work on annotate's evaluation caches: `cache merge A B ... -o C` adds several into one.
    #[command(after_help = cmd::cache::EXAMPLES)]
    Cache(cmd::cache::Args),
    /// Print a shell completion script.
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
}

const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  pgnkit completions bash > /etc/bash_completion.d/pgnkit
  pgnkit completions zsh > ~/.zfunc/_pgnkit        # a directory on zsh's $fpath
  pgnkit completions fish > ~/.config/fish/completions/pgnkit.fish";

impl Command {
    /// The inputs and output of a job that reads games.
    fn head(&self) -> Option<&args::HeadArgs> {
        match self {
            Command::Check(a) => Some(&a.head),
            Command::Clean(a) => Some(&a.head),
            Command::Annotate(a) => Some(&a.head),
            Command::Report(a) => Some(&a.head),
            Command::Positions(a) => Some(&a.head),
            _ => None,
        }
    }
}

/// Parses the command line, runs it and returns the exit code.
pub fn main() -> ExitCode {
    let parsed = Cli::command().try_get_matches().and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m)));
    let cli = match parsed {
        Ok((cli, matches)) => {
            shard::remember(matches, &Cli::command());
            cli
        }
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { Code::Usage.into() } else { Code::Ok.into() };
        }
    };
    let result = match cli.command {
        _ if cli
            .command
            .head()
            .is_some_and(|h| h.files.iter().filter(|f| f.as_os_str() == "-").count() > 1) =>
        {
            Err(fail::Fail::usage("stdin (-) can be read once: give - once among the inputs"))
        }
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
        Command::Index(args) => cmd::index::run(&args),
        Command::Cache(args) => cmd::cache::run(&args),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "pgnkit", &mut std::io::stdout());
            Ok(Code::Ok)
        }
    };
    match result {
        Ok(code) => code.into(),
        Err(fail) => {
            // An interrupt is not an error: its line says where it stopped, as a run's does.
            if fail.code() == Code::Interrupted {
                stderrln!("pgnkit: {}", fail.shown());
            } else if !fail.is_quiet() {
                stderrln!("pgnkit: error: {}", fail.shown());
            }
            fail.code().into()
        }
    }
}
