//! Argument groups shared by the commands that read PGN.

use std::path::PathBuf;

/// Inputs and how to read them.
#[derive(clap::Args, Debug)]
pub struct InputArgs {
    /// PGN files (plain, zstd or gzip, detected by content), or `-` for stdin.
    #[arg(required = true, value_name = "FILES")]
    pub files: Vec<PathBuf>,
    /// Read regular files instead of memory-mapping them.
    #[arg(long)]
    pub no_mmap: bool,
    /// Worker threads (default: all cores).
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
    /// Target chunk size in KiB (output does not depend on it).
    #[arg(long, value_name = "KIB", default_value_t = 2048, hide = true)]
    pub chunk_kib: usize,
}

impl InputArgs {
    /// Pipeline options from the arguments.
    pub fn pipeline(&self) -> pgnkit::pipeline::Options {
        let defaults = pgnkit::pipeline::Options::default();
        pgnkit::pipeline::Options {
            threads: self.threads.filter(|&n| n > 0).unwrap_or(defaults.threads),
            chunk_size: self.chunk_kib.max(1) << 10,
        }
    }

    /// The input path as shown in diagnostics.
    pub fn display(path: &std::path::Path) -> String {
        path.to_string_lossy().into_owned()
    }
}
