//! One module per subcommand.

pub mod annotate;
pub mod bench;
pub mod check;
pub mod clean;
pub mod merge;
pub mod perft;
pub mod play;
pub mod positions;
pub mod report;
pub mod show;
pub mod uci;
pub mod xboard;
