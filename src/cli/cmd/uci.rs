//! `pgnkit uci`: the built-in engine as a UCI engine on stdin/stdout.

use std::io::{BufReader, Stdin, Stdout};

use pgnkit::engine::AtEof;
use pgnkit::engine::server::run_uci;

use crate::cli::fail::Fail;
use pgnkit::exit::Code;

pub const EXAMPLES: &str = "\
The engine answers the UCI protocol (uci, isready, setoption, ucinewgame, position, go, stop,
ponderhit, quit). isready is answered at once and stop ends the search, whatever was sent
before them; the end of input is quit, unless --finish-at-eof. go movetime searches that long,
less Move Overhead; a go number past its range is the largest limit (depth: the deepest ply), a
negative one 0. Options: Hash, Clear Hash, MultiPV (the best N lines, each info line saying its
rank), Move Overhead (ms, default 10), Ponder, UCI_Chess960, UCI_Variant (chess, crazyhouse;
chess is standard chess whatever UCI_Chess960 was, and UCI_Chess960 sent after it applies).
A number out of an option's range is taken as the nearest end of it, and said (info string).
Hash offers up to half the machine's memory and is set and cleared at once whatever its size
(the system zeroes the table's memory as the search first uses it); a size that cannot be
allocated keeps the table in use and says so.

Examples:
  printf 'uci\\nposition startpos moves e2e4\\ngo depth 8\\n' | pgnkit uci --finish-at-eof
  python3 scripts/check_uci_python.py target/release/pgnkit   (python-chess plays and analyses)";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// At the end of input, let the searches that have a limit run to it and answer (for piped
    /// commands), instead of stopping every search as `quit` does
    #[arg(long)]
    finish_at_eof: bool,
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    serve(run_uci, args.finish_at_eof)
}

/// An engine's command loop (`uci`, `xboard`) over stdin and stdout; at the end of input what was
/// read is finished when `finish_at_eof`, else it is `quit`.
pub(super) fn serve(
    run: fn(BufReader<Stdin>, Stdout, AtEof) -> std::io::Result<()>,
    finish_at_eof: bool,
) -> Result<Code, Fail> {
    let at_eof = if finish_at_eof { AtEof::Finish } else { AtEof::Quit };
    // Read on a thread of its own: stdin itself, not its (thread-bound) lock.
    run(BufReader::new(std::io::stdin()), std::io::stdout(), at_eof)?;
    Ok(Code::Ok)
}
