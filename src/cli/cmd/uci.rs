//! `pgnkit uci`: the built-in engine as a UCI engine on stdin/stdout.

use pgnkit::engine::server::run_uci;

use crate::cli::fail::Fail;
use pgnkit::exit::Code;

pub const EXAMPLES: &str = "\
The engine answers the UCI protocol (uci, isready, setoption, ucinewgame, position, go, stop,
quit). Options: Hash, Clear Hash, UCI_Chess960, UCI_Variant (chess, crazyhouse). Hash offers up
to half the machine's memory; a size that cannot be allocated keeps the table in use and says so
(info string).

Examples:
  printf 'uci\\nposition startpos moves e2e4\\ngo depth 8\\n' | pgnkit uci
  python3 scripts/check_uci_python.py target/release/pgnkit   (python-chess plays and analyses)";

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: &Args) -> Result<Code, Fail> {
    // Read on a thread of its own: stdin itself, not its (thread-bound) lock.
    run_uci(std::io::BufReader::new(std::io::stdin()), std::io::stdout())?;
    Ok(Code::Ok)
}
