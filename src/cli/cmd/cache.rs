//! `pgnkit cache`: work on annotate's evaluation caches; `cache merge` adds several into one.

use std::path::PathBuf;

use crate::cli::fail::Fail;
use pgnkit::exit::Code;

pub const EXAMPLES: &str = "\
Examples:
  pgnkit cache merge node1.sqlite node2.sqlite node3.sqlite -o evals.sqlite

Each shard of `annotate --shard I/N` keeps its own cache on its node (never one SQLite file over
a network file system); `cache merge` adds their analyses to one file (created when missing; a
position the file holds already keeps its row), so that the next run on any node starts warm.";

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: CacheCommand,
}

#[derive(clap::Subcommand, Debug)]
enum CacheCommand {
    /// Add the analyses of CACHES to the cache -o FILE (created when missing).
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
            if let Some(missing) = caches.iter().find(|c| !c.is_file()) {
                return Err(Fail::Command {
                    code: Code::NoInput,
                    message: format!("{}: no such cache file", missing.display()),
                });
            }
            let added = pgnkit::analysis::cache::merge::merge(output, caches)
                .map_err(|e| Fail::Run(pgnkit::error::Error::Cache(e)))?;
            if !quiet {
                stderrln!("pgnkit cache merge: {added} analyses added to {}", output.display());
            }
            Ok(Code::Ok)
        }
    }
}
