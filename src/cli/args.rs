//! Argument groups shared by the commands that read PGN, and the steps they share around the
//! library's run driver: the run options, the exit code and the lines printed at the end.

use std::path::PathBuf;

use pgnkit::jobs::run::{RunOptions, Summary};

use crate::cli::Code;

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
    #[arg(long, value_name = "KIB", hide = true)]
    pub chunk_kib: Option<usize>,
}

impl InputArgs {
    /// The run driver's options from the arguments.
    pub fn run_options(&self) -> RunOptions {
        let defaults = RunOptions::default();
        RunOptions {
            threads: self.threads.filter(|&n| n > 0).unwrap_or(defaults.threads),
            chunk_size: self.chunk_kib.map_or(defaults.chunk_size, |k| k.max(1) << 10),
            no_mmap: self.no_mmap,
        }
    }
}

/// A run's end as the command ends: the line saying where an interrupted run stopped, and the
/// exit code (`failures`: the job found what makes it exit 1).
pub fn conclude(summary: &Summary, failures: bool) -> Code {
    if let Some(s) = &summary.stopped {
        eprintln!(
            "pgnkit: interrupted: stopped after game {} of {}; the output holds every game before",
            s.games, s.input
        );
    }
    Code::from_exit(summary.exit_code(failures))
}
