//! One module per subcommand.

pub mod check;
pub mod perft;
pub mod positions;
