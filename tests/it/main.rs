//! Integration tests: run the real `pgnkit` binary on `fixtures/` (and on `../shared/data` when
//! it is there) and check its output and exit codes.

mod perft;
mod util;
