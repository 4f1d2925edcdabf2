//! `pgnkit index`: writes the sidecar (`FILE.pgnkit-index`) that lets each `--shard` of a plain
//! file, or of a zstd file of several frames, start reading near its share instead of at the
//! file's beginning.

use std::path::PathBuf;
use std::time::Instant;

use pgnkit::jobs::diagnostics::counted;
use pgnkit::shard::index::Index;

use crate::cli::fail::Fail;
use pgnkit::exit::Code;

pub const EXAMPLES: &str = "\
Examples:
  pgnkit index big.pgn                     # writes big.pgn.pgnkit-index
  pgnkit check --shard 3/16 big.pgn -o diag.txt
  pgnkit index lichess_db_standard_rated_2024-01.pgn.zst

The sidecar (JSON) holds, with the file's fingerprint (its size and a digest of sampled blocks)
and modification time, for a plain file the exact game start at or after every MiB with the
games and lines before it; for a zstd file of several frames (pzstd, the lichess dumps,
concatenated frames) each frame's offset in the file and in the text and the first game start at
or after it, found decoding frame by frame. A shard uses it when the fingerprint and the time
match; a stale sidecar is an error (a copy of the file that does not keep its time is indexed
again). Without it a shard reads the file before its share once (decompressing it); with it, a
plain file's shard reads from the MiB before its share, a zstd one only its own frames. The
parts are the same either way. A single-frame zstd stream and gzip are not indexed: a shard
decompresses them from their start.";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// PGN files to index: plain, or zstd of several frames.
    #[arg(required = true, value_name = "FILES")]
    files: Vec<PathBuf>,
    /// No line per file on stderr.
    #[arg(short, long)]
    quiet: bool,
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    if args.files.iter().any(|f| f == std::path::Path::new("-")) {
        return Err(Fail::usage("index: stdin cannot be indexed (nor sharded): give a file"));
    }
    for file in &args.files {
        let start = Instant::now();
        let index = Index::build(file)?;
        let path = index.write(file).map_err(|e| Fail::Command {
            code: Code::CantCreate,
            message: format!("{}: {e}", file.display()),
        })?;
        if !args.quiet {
            let points = match index.frames.len() {
                0 => counted(index.points.len() as u64, "point", "points"),
                n => counted(n as u64, "frame", "frames"),
            };
            stderrln!(
                "pgnkit index: {}: {}, {points}, in {:.2} s: {}",
                file.display(),
                counted(index.end.game, "game", "games"),
                start.elapsed().as_secs_f64(),
                path.display()
            );
        }
    }
    Ok(Code::Ok)
}
