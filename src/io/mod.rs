//! Input and output: opening PGN sources (memory-mapped files, stdin, zstd/gzip streams
//! detected by magic bytes) and writing results (stdout or a file replaced atomically,
//! optionally zstd-compressed).
//!
//! Errors are typed ([`InputError`], [`OutputError`]) and know the exit code the command line
//! maps them to (the table in [`crate::exit`]).

mod gzip;
mod input;
pub mod name;
mod output;
mod piped;
pub mod run;
mod sniff;
pub mod sort;
pub mod spill;
pub mod temporary;
mod waiting;

pub use input::{Compression, Input, InputError, InputOptions, PageDropper, Source, read_full};
pub(crate) use output::canonical;
pub(crate) use output::place;
pub use output::{Output, OutputError, OutputOptions, compressed_as, is_input, written_in_place};
pub(crate) use piped::Watched;
pub use piped::{Messages, stderr, stderr_fd, watch_stderr};
pub use waiting::{PAUSE, read_pausing, stop_streams};
