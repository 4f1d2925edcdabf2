//! The `pgnkit` command line.
fn main() {}
