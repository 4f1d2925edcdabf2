//! `pgnkit cache`: work on annotate's evaluation caches; `cache merge` adds several into one.

use std::path::PathBuf;

use crate::cli::fail::Fail;
use pgnkit::analysis::cache::CacheError;
use pgnkit::exit::Code;

pub const EXAMPLES: &str = "\
Examples:
  pgnkit cache merge node1.sqlite node2.sqlite node3.sqlite -o evals.sqlite

Each shard of `annotate --shard I/N` keeps its own cache on its node (never one SQLite file over
a network file system); `cache merge` adds their analyses to one file (created, with its
directory, when missing; a position the file holds already keeps its row), so that the next run
on any node starts warm. The file is an SQLite database: -o - (stdout) is refused.";

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: CacheCommand,
}

#[derive(clap::Subcommand, Debug)]
enum CacheCommand {
    /// Add the analyses of CACHES to the cache -o FILE (created when missing).
    #[command(after_help = EXAMPLES)]
    Merge {
        /// The caches to add (`annotate --cache FILE`'s files).
        #[arg(required = true, value_name = "CACHES")]
        caches: Vec<PathBuf>,
        /// The cache they are added to.
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
        /// No line on stderr.
        #[arg(short, long)]
        quiet: bool,
    },
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    match &args.command {
        CacheCommand::Merge { caches, output, quiet } => {
            // `-` is stdout elsewhere; an SQLite database cannot be streamed to it.
            if output.as_os_str() == "-" {
                return Err(Fail::usage(
                    "cache merge writes an SQLite file, which stdout (-o -) cannot hold: give -o a file name",
                ));
            }
            if let Some(missing) = caches.iter().find(|c| !c.is_file()) {
                let why =
                    if missing.is_dir() { "is a directory, not a cache file" } else { "no such cache file" };
                return Err(Fail::Command {
                    code: Code::NoInput,
                    message: format!("{}: {why}", missing.display()),
                });
            }
            let added = pgnkit::analysis::cache::merge::merge(output, caches).map_err(|e| match e {
                // The output (or its directory) that cannot be made is exit 73, as for every job.
                CacheError::Dir { .. } => Fail::Command { code: Code::CantCreate, message: e.to_string() },
                CacheError::Open { ref path, .. } if path == output && e.exit_code() == Code::IoErr => {
                    Fail::Command { code: Code::CantCreate, message: e.to_string() }
                }
                e => Fail::Run(pgnkit::error::Error::Cache(e)),
            })?;
            if !quiet {
                stderrln!("pgnkit cache merge: {added} analyses added to {}", output.display());
            }
            Ok(Code::Ok)
        }
    }
}
