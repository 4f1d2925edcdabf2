//! One module per subcommand.

pub mod perft;
