//! `pgnkit merge`: joins the parts the shards of one run wrote (`--shard I/N`) into the outputs
//! a single run writes, after checking their manifests; exits with the run's status.

use std::path::PathBuf;

use pgnkit::shard::merge;

use crate::cli::fail::Fail;
use pgnkit::exit::Code;

pub const EXAMPLES: &str = "\
Examples:
  pgnkit clean --shard 0/3 big.pgn -o clean.pgn    # and 1/3, 2/3, anywhere
  pgnkit merge clean.pgn.part-*.manifest.json       # writes clean.pgn
  pgnkit merge parts/ -o all.pgn

merge checks that the manifests come from one run (one pgnkit version, command, options, inputs
with their sizes and fingerprints, N), that every shard is there once and finished, that their
parts of each input cover every game exactly once, and every part's size and XXH3-128 digest
(hashed as it is copied). Then it writes each output (under the name the shards were given,
beside the parts or in --output-dir; -o names the main one): what a single run writes before the
games (a CSV header), the parts in order, and the summary record a single run writes last, from
the shards' ledgers added up (its seconds are the shards' sum). Compressed outputs (.zst, .gz)
are the parts' frames (members) one after another: they decompress to a single run's text.
Otherwise it writes nothing, names every missing, unfinished, duplicated or changed shard, every
manifest of another run (other options: its shard to rerun as the run's others ran, or one to
leave out), and every input a shard found not PGN (UTF-16, a corrupt stream: what no rerun changes), and exits 65; an output it cannot create (--output-dir under a file, a directory's name, no
permission, a file the merge reads) is exit 73, one it cannot write or rename into place (disk
full) exit 74. Ctrl-C (SIGTERM, SIGHUP) stops it at its next buffer: what it wrote is removed,
exit 130.

Shards of clean --dedup and positions --unique each removed the repeats among their own games
(positions) and wrote a keys part; merge reads those in shard order through the set a single run
keeps, moves each game whose verdict differs between the output and the duplicates (its report
records with it) or drops each position an earlier shard wrote, and adjusts the ledgers.";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shards' manifests (`*.manifest.json`), or directories holding them.
    #[arg(required = true, value_name = "MANIFESTS|DIR")]
    manifests: Vec<PathBuf>,
    /// The merged main output (default: the name the shards were given, beside the parts). With
    /// --output-dir, its file name in DIR, as a shard's --output-dir places its parts. A file,
    /// not `-`: outputs are checked whole and renamed into place; a pipe or a device
    /// (/dev/stdout) is written in place once every part's digest is checked.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Write every merged file in DIR (made if missing, as a shard's --output-dir is), the main
    /// one under -o's file name when given.
    #[arg(long, value_name = "DIR")]
    output_dir: Option<PathBuf>,
    /// No summary on stderr.
    #[arg(short, long)]
    quiet: bool,
}

pub fn run(args: &Args) -> Result<Code, Fail> {
    // Outputs are checked whole and renamed into place: a merge has no stream to give stdout.
    if args.output.as_deref() == Some(std::path::Path::new("-")) {
        return Err(Fail::usage(
            "merge writes files: -o - (stdout) is not one; name a file, or -o /dev/stdout to stream the main \
             output once every part is checked",
        ));
    }
    let paths = merge::manifests(&args.manifests)
        .map_err(|message| Fail::Command { code: Code::NoInput, message })?;
    crate::cli::interrupt::install();
    let requested = crate::cli::interrupt::requested;
    match merge::merge(&paths, args.output.as_deref(), args.output_dir.as_deref(), &requested) {
        Ok(m) => {
            // Warnings, as a single run gives them with -q too.
            for a in merge::absent(&m.summary.stats, &m.extra) {
                let message = a.get("message").and_then(serde_json::Value::as_str).unwrap_or_default();
                stderrln!("pgnkit: warning: {message}");
            }
            for name in merge::absent_tags(&m.summary.stats, &m.extra) {
                stderrln!("pgnkit: warning: {}", pgnkit::jobs::positions::absent_tag_message(&name));
            }
            if let Some(warning) = pgnkit::jobs::clean::dedup::in_part_warning(&m.summary.stats) {
                stderrln!("pgnkit: warning: {warning}");
            }
            if !args.quiet {
                stderr!("{}", m.summary_text());
                if m.job == "clean" {
                    stderr!("{}", crate::cli::cmd::clean::ledger(&m.summary, false));
                }
                let files: Vec<String> = m.files.iter().map(|f| f.display().to_string()).collect();
                stderrln!(
                    "pgnkit merge: {}, {} bytes of parts: {}",
                    pgnkit::jobs::diagnostics::counted(paths.len() as u64, "shard", "shards"),
                    m.bytes,
                    files.join(", ")
                );
            }
            Ok(Code::ALL.iter().copied().find(|c| c.number() == m.exit).unwrap_or(Code::Software))
        }
        Err(refused) => {
            for p in &refused.problems {
                stderrln!("pgnkit: merge: {p}");
            }
            let names = |files: &[PathBuf]| files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>();
            let mut message = match (refused.written.is_empty(), refused.streamed.is_empty()) {
                (true, true) => "nothing written".to_string(),
                (true, false) => "nothing put in place".to_string(),
                (false, _) => format!("only {} put in place", names(&refused.written).join(", ")),
            };
            if !refused.streamed.is_empty() {
                message.push_str(&format!(
                    "; {} got part of the merge before it stopped (written in place)",
                    names(&refused.streamed).join(", ")
                ));
            }
            Err(Fail::Command { code: refused.code, message })
        }
    }
}
