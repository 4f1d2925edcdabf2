//! UCI and xboard, both directions. [`protocol`]: UCI messages as data (parse, format, clock
//! budgets), no processes. [`server`]: the UCI loop over the built-in search.

pub mod protocol;
pub mod server;
