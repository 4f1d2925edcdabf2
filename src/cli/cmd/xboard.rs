//! `pgnkit xboard`: the built-in engine as an xboard/WinBoard (CECP 2) engine on stdin/stdout.

use pgnkit::engine::xboard::run_xboard;

use crate::cli::fail::Fail;
use pgnkit::exit::Code;

pub const EXAMPLES: &str = "\
The engine answers CECP version 2: xboard, protover 2, new, variant (normal, crazyhouse,
fischerandom), force, go, playother, usermove (or a bare move), setboard, level, st, sd, nps
(time counted in nodes: nps 1 then st N searches N nodes, as python-chess's node limits send
it; it holds for the level or st that follows it), time, otim, undo, remove, result, ping, post, nopost, ?, quit, and analyze mode (analyze, exit:
the engine posts its lines about each position until exit, and never moves). Commands are
read while the engine thinks: ? and quit act at once; force, new, variant, setboard, undo,
remove, result, white and black end the search without its move; ping is answered after the
move (at once in analyze mode), and the commands after it wait their turn. The end of input is
quit, unless --finish-at-eof.

Examples:
  xboard -fcp 'pgnkit xboard'
  printf 'xboard\\nprotover 2\\nnew\\nsd 6\\nusermove e2e4\\n' | pgnkit xboard --finish-at-eof";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// At the end of input, carry out what was read and let the engine's search finish and
    /// move (for piped commands), instead of ending at once as `quit` does
    #[arg(long)]
    finish_at_eof: bool,
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    super::uci::serve(run_xboard, args.finish_at_eof)
}
