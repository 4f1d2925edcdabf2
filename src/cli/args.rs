//! Argument groups shared by the commands that read PGN, and the per-input steps they share:
//! open with a progress bar, run the job, settle its errors.

use std::path::PathBuf;

use pgnkit::io::{Compression, Input, InputError, InputOptions, PageDropper, Source};
use pgnkit::pipeline::{self, Job, Observer, PipelineError, Worker};

use crate::cli::progress::Progress;
use crate::cli::{Code, Fail};

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
    /// Pipeline options from the arguments.
    pub fn pipeline(&self) -> pgnkit::pipeline::Options {
        let defaults = pgnkit::pipeline::Options::default();
        pgnkit::pipeline::Options {
            threads: self.threads.filter(|&n| n > 0).unwrap_or(defaults.threads),
            chunk_size: self.chunk_kib.map_or(defaults.chunk_size, |k| k.max(1) << 10),
        }
    }

    /// The input path as shown in diagnostics.
    pub fn display(path: &std::path::Path) -> String {
        path.to_string_lossy().into_owned()
    }
}

/// One input, opened, with its progress bar.
pub struct Opened {
    /// The path as shown in diagnostics.
    pub file: String,
    /// The bytes: mapped or streamed.
    pub source: Source,
    /// How the stream is compressed: a read error of a compressed one is a corrupt stream.
    pub compression: Compression,
    /// Progress over this input.
    pub progress: Progress,
}

impl InputArgs {
    /// Opens `path` with its progress bar. An input that cannot be opened is reported on stderr
    /// and its exit code kept in `worst` (it ends the run), and the run goes on with the next one.
    pub fn open(&self, path: &std::path::Path, worst: &mut Option<Code>) -> Option<Opened> {
        let file = InputArgs::display(path);
        let input = match Input::open(path, InputOptions { no_mmap: self.no_mmap }) {
            Ok(i) => i,
            Err(e) => {
                eprintln!("pgnkit: error: {e}");
                worst.get_or_insert(Code::from_exit(e.exit_code()));
                return None;
            }
        };
        // Streams report the bytes they consumed (compressed bytes for compressed input).
        let consumed = matches!(input.source, Source::Stream(_)).then(|| input.consumed.clone());
        let progress = Progress::new(&file, input.total_size, consumed, self.quiet);
        Some(Opened { file, source: input.source, compression: input.compression, progress })
    }
}

/// Runs `f` on the pipeline's view of `source` and the observer to give it: a mapped file as a
/// slice whose pages are dropped behind the reader as progress advances, anything else as a
/// stream.
fn with_input<T>(
    source: Source,
    progress: &Progress,
    f: impl FnOnce(pipeline::Input<'_>, &dyn Observer) -> T,
) -> T {
    match source {
        Source::Mapped(m) => {
            f(pipeline::Input::Slice(&m), &Dropping { progress, pages: PageDropper::new(&m) })
        }
        Source::Stream(r) => f(pipeline::Input::Stream(r), progress),
    }
}

/// Progress for a mapped input: released bytes are done with, so their pages can go.
struct Dropping<'a> {
    progress: &'a Progress,
    pages: PageDropper<'a>,
}

impl Observer for Dropping<'_> {
    fn advance(&self, bytes: u64, games: u64) {
        self.progress.advance(bytes, games);
        self.pages.advance(bytes as usize);
    }
    fn interrupted(&self) -> bool {
        self.progress.interrupted()
    }
}

/// Runs `job` over a source with exact game-aligned cuts (mapped or streamed).
pub fn run_exact<J: Job, E: std::fmt::Display>(
    source: Source,
    job: &J,
    opts: &pipeline::Options,
    progress: &Progress,
    release: impl FnMut(<J::Worker as Worker>::Output) -> Result<(), E>,
) -> Result<(), PipelineError> {
    with_input(source, progress, |input, observer| {
        pipeline::run(input, job, pgnkit::pgn::split::cut, opts, observer, release)
    })
}

/// Runs `job` over a source cut at guessed game boundaries ([`pipeline::run_speculative`]): for
/// jobs whose outputs can be renumbered on release.
pub fn run_guessed<J, E>(
    source: Source,
    job: &J,
    opts: &pipeline::Options,
    progress: &Progress,
    release: impl FnMut(<J::Worker as Worker>::Output) -> Result<(), E>,
) -> Result<(), PipelineError>
where
    J: Job,
    <J::Worker as Worker>::Output: pipeline::ChunkOutput,
    E: std::fmt::Display,
{
    let cut = pgnkit::pgn::split::cut;
    with_input(source, progress, |input, observer| {
        pipeline::run_speculative(input, job, cut, opts, observer, release)
    })
}

/// What a run's end means for the command: a read error of `path` (compressed as
/// `compression`) is reported and its code kept in `worst` (the run goes on with the next
/// input); a failed output (`output`, when the release step recorded it) or a caught panic ends
/// the run. An interrupt is no error here: the command sees
/// [`interrupt::requested`](crate::cli::interrupt::requested) and stops.
pub fn settle(
    path: &std::path::Path,
    compression: Compression,
    result: Result<(), PipelineError>,
    output: Option<Fail>,
    worst: &mut Option<Code>,
) -> Result<(), Fail> {
    match result {
        Ok(()) => Ok(()),
        Err(PipelineError::Release(m)) => Err(output.unwrap_or_else(|| Fail::internal(m))),
        Err(PipelineError::Read(e)) => {
            let e = InputError::reading(path, compression, e);
            eprintln!("pgnkit: error: {e}");
            worst.get_or_insert(Code::from_exit(e.exit_code()));
            Ok(())
        }
        Err(e @ PipelineError::Panic { .. }) => {
            Err(Fail::internal(format!("{}: {e}", InputArgs::display(path))))
        }
        Err(PipelineError::Interrupted) => Ok(()),
    }
}
