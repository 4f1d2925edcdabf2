//! `pgnkit xboard`: the built-in engine as an xboard/WinBoard (CECP 2) engine on stdin/stdout.

use pgnkit::engine::xboard::run_xboard;

use crate::cli::fail::Fail;
use pgnkit::exit::Code;

pub const EXAMPLES: &str = "\
The engine answers CECP version 2: xboard, protover 2, new, variant (normal, crazyhouse,
fischerandom), force, go, playother, usermove (or a bare move), setboard, level, st, sd, time,
otim, undo, remove, result, ping, post, nopost, ?, quit. Commands are read while the engine
thinks: ? and quit act at once; ping is answered after the move, and the commands after it
wait their turn.

Examples:
  xboard -fcp 'pgnkit xboard'
  printf 'xboard\\nprotover 2\\nnew\\nsd 6\\nusermove e2e4\\n' | pgnkit xboard";

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: &Args) -> Result<Code, Fail> {
    // Read on a thread of its own: stdin itself, not its (thread-bound) lock.
    run_xboard(std::io::BufReader::new(std::io::stdin()), std::io::stdout())?;
    Ok(Code::Ok)
}
