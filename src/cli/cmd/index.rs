//! `pgnkit index`: writes the sidecar (`FILE.pgnkit-index`) that lets each `--shard` of a plain
//! file start reading near its share instead of at the file's beginning.

use std::path::PathBuf;
use std::time::Instant;

use pgnkit::shard::index::Index;

use crate::cli::fail::Fail;
use pgnkit::exit::Code;

pub const EXAMPLES: &str = "\
Examples:
  pgnkit index big.pgn                     # writes big.pgn.pgnkit-index
  pgnkit check --shard 3/16 big.pgn -o diag.txt

The sidecar (JSON) holds the exact game start at or after every MiB with the games and lines
before it, and the file's fingerprint (its size and a digest of sampled blocks). A shard uses
it when the fingerprint matches; a stale sidecar is an error. Without it a shard reads the file
before its share once, at the reader's skip speed; the parts are the same either way. Only
plain files are indexed: a shard of a compressed file decompresses it from its start.";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Plain PGN files to index.
    #[arg(required = true, value_name = "FILES")]
    files: Vec<PathBuf>,
    /// No line per file on stderr.
    #[arg(short, long)]
    quiet: bool,
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    for file in &args.files {
        let start = Instant::now();
        let index = Index::build(file)?;
        let path = index.write(file).map_err(|e| Fail::Command {
            code: Code::CantCreate,
            message: format!("{}: {e}", file.display()),
        })?;
        if !args.quiet {
            eprintln!(
                "pgnkit index: {}: {} games, {} points, in {:.2} s: {}",
                file.display(),
                index.end.game,
                index.points.len(),
                start.elapsed().as_secs_f64(),
                path.display()
            );
        }
    }
    Ok(Code::Ok)
}
