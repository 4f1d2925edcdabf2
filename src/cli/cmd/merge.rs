//! `pgnkit merge`: joins the parts the shards of one run wrote (`--shard I/N`) into the outputs
//! a single run writes, after checking their manifests; exits with the run's status.

use std::path::PathBuf;

use pgnkit::jobs::diagnostics;
use pgnkit::shard::merge;

use crate::cli::{Code, Fail};

pub const EXAMPLES: &str = "\
Examples:
  pgnkit clean --shard 0/3 big.pgn -o clean.pgn    # and 1/3, 2/3, anywhere
  pgnkit merge clean.pgn.part-*.manifest.json       # writes clean.pgn
  pgnkit merge parts/ -o all.pgn

merge checks that the manifests come from one run (one pgnkit version, command, options, inputs
with their sizes and fingerprints, N), that every shard is there once and finished, that their
parts of each input cover every game exactly once, and every part's size and XXH3-128 digest
(hashed as it is copied). Then it writes each output (under the name the shards were given,
beside the parts, or -o / --output-dir): what a single run writes before the games (a CSV
header), the parts in order, and the summary record a single run writes last, from the shards'
ledgers added up (its seconds are the shards' sum). Compressed outputs (.zst, .gz) are the parts'
frames (members) one after another: they decompress to a single run's text. Otherwise it writes
nothing, names every missing, unfinished, duplicated or changed shard, and exits 65.";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shards' manifests (`*.manifest.json`), or directories holding them.
    #[arg(required = true, value_name = "MANIFESTS|DIR")]
    manifests: Vec<PathBuf>,
    /// The merged main output (default: the name the shards were given, beside the parts).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Write the merged files in DIR.
    #[arg(long, value_name = "DIR")]
    output_dir: Option<PathBuf>,
    /// No summary on stderr.
    #[arg(short, long)]
    quiet: bool,
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    let paths = merge::manifests(&args.manifests).map_err(|message| Fail { code: Code::NoInput, message })?;
    match merge::merge(&paths, args.output.as_deref(), args.output_dir.as_deref()) {
        Ok(m) => {
            if !args.quiet {
                eprint!("{}", diagnostics::summary_text(&m.job, &m.summary.stats, m.summary.elapsed));
                if m.job == "clean" {
                    eprint!("{}", crate::cli::cmd::clean::ledger(&m.summary));
                }
                let files: Vec<String> = m.files.iter().map(|f| f.display().to_string()).collect();
                eprintln!(
                    "pgnkit merge: {} shards, {} bytes of parts: {}",
                    paths.len(),
                    m.bytes,
                    files.join(", ")
                );
            }
            Ok(Code::from_exit(m.exit))
        }
        Err(problems) => {
            for p in &problems {
                eprintln!("pgnkit: merge: {p}");
            }
            Err(Fail { code: Code::DataErr, message: "nothing written".into() })
        }
    }
}
