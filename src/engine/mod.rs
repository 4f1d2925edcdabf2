//! UCI and xboard, both directions. [`client`]: an external UCI engine as an
//! [`Analyzer`](crate::analysis::Analyzer). [`protocol`]: UCI messages as data (parse, format, clock
//! budgets), no processes. [`server`]: the UCI loop over the built-in search, with its options in
//! `uci_options`. [`xboard`]: the xboard (CECP) loop over the built-in search, with its time
//! control in `xboard_clock`. [`game`]: what `pgnkit xboard` and `pgnkit play` say of the
//! [`Game`](crate::chess::Game) played against the engine (its end, a player's move, its PGN).
//! [`input`]: a loop's commands, read on a thread of their own, a line at most
//! [`input::MAX_LINE`] bytes.

pub mod client;
pub mod game;
pub mod input;
pub mod protocol;
mod search_thread;
pub mod server;
mod uci_options;
pub mod xboard;
mod xboard_clock;

pub use input::AtEof;
