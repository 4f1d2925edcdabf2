//! UCI and xboard, both directions. [`protocol`]: UCI messages as data (parse, format, clock
//! budgets), no processes.

pub mod protocol;
