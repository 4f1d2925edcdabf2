//! The run driver every job uses: for each input in turn, open it (mapped, or streamed and
//! decompressed), run the job's workers over it through the pipeline (cut as the job declares),
//! hand the outputs to the job's [`Sink`] in input order with absolute game and line numbers, and
//! collect the counts. An input that cannot be opened or read to its end, or that is not the
//! format the job reads ([`InputError::NotPgn`], [`InputError::NotEpd`]), is reported to the
//! [`Observer`] and the run goes on with the next one; an interrupt stops the run at a chunk
//! boundary; a failing worker or sink stops it with its [`Error`]. Workers are kept from one
//! input to the next.

mod ahead;
mod format;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::Error;
use crate::exit::Code;
use crate::io::name::Name;
use crate::io::{Input, InputError, InputOptions, PageDropper, Source};
use crate::pipeline::stats::Stats;
use crate::pipeline::{self, InputInfo, Job, Observer, PipelineError, Records, Run, Start, Workers};
use format::{Format, Head, Held};
pub use format::{LOOKED_AT, not_pgn};

/// The part of an input a run reads (a shard's share): from `start`, an exact game start, up to
/// the (decompressed) offset `end`, another one or the end of the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// Where the part begins, with the games and lines before it.
    pub start: Start,
    /// Where it ends.
    pub end: u64,
    /// A frame start of a zstd input of several frames, at or before `start`, to read from
    /// instead of the input's beginning.
    pub seek: Option<Seek>,
}

/// A place to start reading a compressed input: a frame start, at `compressed` bytes of the file
/// and `decompressed` bytes of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seek {
    /// Offset in the file.
    pub compressed: u64,
    /// Offset in the decompressed text.
    pub decompressed: u64,
}

/// One input of a run: its path and the part of it read (`None`: all of it).
#[derive(Clone, Debug)]
pub struct Share {
    /// The path (`-` for stdin).
    pub path: PathBuf,
    /// The part read.
    pub span: Option<Span>,
    /// Why it cannot be read, found before the run (a shard's plan decoding a corrupt stream to
    /// find its part): the run reports it as an input that failed, reading nothing of it.
    pub failed: Option<InputError>,
}

/// How a run reads its inputs and how many threads work.
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    /// Worker threads (1: the calling thread does the work).
    pub threads: usize,
    /// Target chunk size in bytes (output does not depend on it).
    pub chunk_size: usize,
    /// Read regular files as streams instead of mapping them.
    pub no_mmap: bool,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        let p = pipeline::Options::default();
        RunOptions { threads: p.threads, chunk_size: p.chunk_size, no_mmap: false }
    }
}

/// The release side of a job: receives each chunk's records in input order, on one thread, with
/// absolute game and line numbers, and writes them.
pub trait Sink<T> {
    /// An input starts.
    fn begin_input(&mut self, input: &Name) -> Result<(), Error> {
        let _ = input;
        Ok(())
    }
    /// One chunk's records. `stats` are the input's counts so far, this chunk's included; the
    /// sink adds its own (positions written, duplicates...).
    fn release(&mut self, records: T, stats: &mut Stats) -> Result<(), Error>;
    /// The records released so far go out now: called after each chunk of a stream, whose
    /// next chunk may be long in coming (`tail -f games.pgn | pgnkit check -`).
    fn flush(&mut self) -> Result<(), Error> {
        Ok(())
    }
}

/// What one input gave.
#[derive(Debug)]
pub struct InputSummary {
    /// The input's name.
    pub name: Name,
    /// Its counts (what was released of it).
    pub stats: Stats,
    /// Why it could not be opened or read to its end.
    pub error: Option<Error>,
}

/// Where an interrupted run stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stopped {
    /// The input being read.
    pub input: String,
    /// The number in the input of the last game released before the stop: the games before the
    /// part read (a shard's share) count.
    pub games: u64,
    /// Games of the input before the part read: 0 when it is read from its start.
    pub first: u64,
}

/// What a whole run gave.
#[derive(Debug)]
pub struct Summary {
    /// Counts over every input.
    pub stats: Stats,
    /// Each input, in order (those after an interrupt are not listed).
    pub inputs: Vec<InputSummary>,
    /// Set when the run was interrupted.
    pub stopped: Option<Stopped>,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
}

impl Summary {
    /// Whether some input could not be opened or read to its end.
    pub fn input_failed(&self) -> bool {
        self.inputs.iter().any(|i| i.error.is_some())
    }

    /// The exit code of the run: 130 when interrupted, else the first failed input's code, else
    /// 1 when `failures` (the job's own test: games with errors, games rejected...), else 0.
    pub fn exit_code(&self, failures: bool) -> Code {
        if self.stopped.is_some() {
            return Code::Interrupted;
        }
        match self.inputs.iter().find_map(|i| i.error.as_ref()) {
            Some(e) => e.exit_code(),
            None if failures => Code::Failures,
            None => Code::Ok,
        }
    }
}

/// Progress for a mapped input: released bytes are done with, so their pages can go.
struct Dropping<'a> {
    observer: &'a dyn Observer,
    pages: PageDropper<'a>,
}

impl Observer for Dropping<'_> {
    fn advance(&self, bytes: u64, games: u64) {
        self.observer.advance(bytes, games);
        self.pages.advance(bytes as usize);
    }
    fn interrupted(&self) -> bool {
        self.observer.interrupted()
    }
}

/// Runs `job` over `inputs` (paths, `-` for stdin), handing the outputs to `sink`.
pub fn run<J: Job>(
    job: &J,
    inputs: &[PathBuf],
    opts: &RunOptions,
    observer: &dyn Observer,
    sink: &mut impl Sink<Records<J>>,
) -> Result<Summary, Error> {
    let shares: Vec<Share> =
        inputs.iter().map(|p| Share { path: p.clone(), span: None, failed: None }).collect();
    run_shares(job, &shares, opts, observer, sink)
}

/// Skips the first `n` bytes of a stream; fewer is an unexpected end (the input shrank).
fn skip(r: &mut dyn std::io::Read, n: u64) -> std::io::Result<()> {
    let skipped = std::io::copy(&mut r.take(n), &mut std::io::sink())?;
    if skipped < n {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            format!("the input ends at byte {skipped}, before its share starts at byte {n}: it changed"),
        ));
    }
    Ok(())
}

/// The pipeline over the part `span` of a stream (all of it: `None`), which begins at `from`;
/// `seek`: the frame start the stream was opened at.
fn stream_part<J: Job>(
    mut r: Box<dyn Read + Send + '_>,
    span: Option<Span>,
    seek: Option<Seek>,
    run: &Run<'_, J>,
    from: Start,
    release: impl FnMut(pipeline::Output<Records<J>>) -> Result<(), Error>,
) -> Result<(), PipelineError> {
    let Some(s) = span else { return pipeline::run(pipeline::Input::Stream(r), run, release) };
    skip(&mut r, s.start.offset - seek.map_or(0, |at| at.decompressed)).map_err(PipelineError::Read)?;
    let part = r.take(s.end.saturating_sub(s.start.offset));
    pipeline::run_from(pipeline::Input::Stream(Box::new(part)), run, from, release)
}

/// [`run`] over parts of inputs: the records of each part carry the offsets and numbers a run
/// over the whole input gives them.
pub fn run_shares<J: Job>(
    job: &J,
    inputs: &[Share],
    opts: &RunOptions,
    observer: &dyn Observer,
    sink: &mut impl Sink<Records<J>>,
) -> Result<Summary, Error> {
    let mut runner = Runner::new(job, opts, observer);
    for Share { path, span, failed } in inputs {
        let opened = match (failed, span.and_then(|s| s.seek)) {
            (Some(e), _) => Err(e.clone()),
            (None, Some(at)) => Input::open_at(path, at.compressed),
            (None, None) => Input::open(path, InputOptions { no_mmap: opts.no_mmap }),
        };
        runner.input(path, *span, opened, sink)?;
        if runner.summary.stopped.is_some() {
            break;
        }
    }
    Ok(runner.finish())
}

/// [`run`] over one input opened by the caller (to look at its first bytes, say: a stream cannot
/// be opened twice); `opened` is `path`'s, or why it could not be opened.
pub fn run_opened<J: Job>(
    job: &J,
    path: &Path,
    opened: Result<Input, InputError>,
    opts: &RunOptions,
    observer: &dyn Observer,
    sink: &mut impl Sink<Records<J>>,
) -> Result<Summary, Error> {
    let mut runner = Runner::new(job, opts, observer);
    runner.input(path, None, opened, sink)?;
    Ok(runner.finish())
}

/// What the inputs of one run share: the job's workers, kept from one input to the next, and
/// what the inputs read so far gave.
struct Runner<'r, J: Job> {
    job: &'r J,
    workers: Workers<J::Worker>,
    opts: pipeline::Options,
    observer: &'r dyn Observer,
    summary: Summary,
    start: Instant,
}

impl<'r, J: Job> Runner<'r, J> {
    fn new(job: &'r J, opts: &RunOptions, observer: &'r dyn Observer) -> Runner<'r, J> {
        Runner {
            job,
            workers: Workers::default(),
            opts: pipeline::Options { threads: opts.threads.max(1), chunk_size: opts.chunk_size.max(1) },
            observer,
            summary: Summary {
                stats: Stats::default(),
                inputs: Vec::new(),
                stopped: None,
                elapsed: Duration::ZERO,
            },
            start: Instant::now(),
        }
    }

    /// Reads the part `span` of `path` (all of it: `None`) from `opened`, handing its outputs to
    /// `sink`; an input that could not be opened or read is listed with its error.
    fn input(
        &mut self,
        path: &Path,
        span: Option<Span>,
        opened: Result<Input, InputError>,
        sink: &mut impl Sink<Records<J>>,
    ) -> Result<(), Error> {
        let (job, workers, pipeline_opts, observer) = (self.job, &self.workers, &self.opts, self.observer);
        let summary = &mut self.summary;
        let name = Name::of(path);
        let seek = span.and_then(|s| s.seek);
        let input = match opened {
            Ok(i) => i,
            Err(e) => {
                let e = Error::Input(e);
                observer.input_failed(name.prose(), &e);
                summary.inputs.push(InputSummary { name, stats: Stats::default(), error: Some(e) });
                return Ok(());
            }
        };
        let format = Format::of(job.cuts());
        let judged = format::whole(span.as_ref(), &input.source);
        let compression = input.compression;
        let (head, source) = match input.source {
            Source::Mapped(map) if judged => (Head::of(&map), Source::Mapped(map)),
            Source::Stream(r) if judged => {
                let head = Head::default();
                let r = head.tap(r);
                (head, Source::Stream(r))
            }
            source => (Head::default(), source),
        };
        let stream = matches!(source, Source::Stream(_));
        let consumed = stream.then(|| input.consumed.clone());
        observer.begin_input(&InputInfo { name: name.prose(), total_bytes: input.total_size, consumed });
        sink.begin_input(&name)?;
        let mut stats = Stats::default();
        let mut held = Held::new(format, judged);
        let mut pass = |out: pipeline::Output<Records<J>>| {
            stats.merge(&out.stats);
            sink.release(out.records, &mut stats)?;
            if stream { sink.flush() } else { Ok(()) }
        };
        let result = {
            let release = |out| match held.offer(out, &mut pass)? {
                true => Ok(()),
                false => Err(Error::Input(format::not_read(format, path, &head, Some(held.bytes())))),
            };
            let from = span.map_or(Start::default(), |s| s.start);
            // The first bytes of an input judged as PGN are looked at before the pipeline holds
            // a game that never ends ([`ahead`]).
            let ahead = judged && format == Format::Pgn;
            let not_pgn = |read| -> Result<(), PipelineError> {
                Err(PipelineError::Release(Error::Input(format::not_read(format, path, &head, Some(read)))))
            };
            match source {
                Source::Mapped(map) if ahead && let Some(read) = ahead::mapped(&map) => not_pgn(read),
                Source::Mapped(map) => {
                    let len = map.len() as u64;
                    let (at, end) = span.map_or((0, len), |s| (s.start.offset.min(len), s.end.min(len)));
                    let pages = PageDropper::new(&map);
                    pages.advance(at as usize);
                    let dropping = Dropping { observer, pages };
                    let run = Run { name: &name, job, workers, opts: pipeline_opts, observer: &dropping };
                    let bytes = &map[at as usize..end.max(at) as usize];
                    pipeline::run_from(pipeline::Input::Slice(bytes), &run, from, release)
                }
                Source::Stream(r) => match if ahead { ahead::stream(r) } else { Ok(r) } {
                    Err(read) => not_pgn(read),
                    Ok(r) => {
                        let run = Run { name: &name, job, workers, opts: pipeline_opts, observer };
                        stream_part(r, span, seek, &run, from, release)
                    }
                },
            }
        };
        let first = span.map_or(0, |s| s.start.game);
        let stopped = |games| Stopped { input: name.prose().into(), games: first + games, first };
        let mut error = None;
        match result {
            // A stop signal can end a stream (`io::end_streams_on_signal`) before any chunk saw it.
            Ok(()) if observer.interrupted() => {
                summary.stopped = Some(stopped(stats.games));
            }
            Ok(()) => {
                if !held.end(&mut pass)? {
                    error = Some(Error::Input(format::not_read(format, path, &head, None)));
                }
            }
            Err(PipelineError::Read(e)) => {
                error = Some(Error::Input(InputError::reading(path, compression, e)));
            }
            Err(PipelineError::Release(Error::Input(
                e @ (InputError::NotPgn { .. } | InputError::NotEpd { .. }),
            ))) => {
                error = Some(Error::Input(e));
            }
            // A worker a stop kept from starting (an engine waited for) stops the run as well.
            Err(PipelineError::Interrupted | PipelineError::Job(Error::Interrupted)) => {
                summary.stopped = Some(stopped(stats.games));
            }
            Err(PipelineError::Job(e) | PipelineError::Release(e)) => return Err(e),
            Err(PipelineError::Panic(source)) => {
                return Err(Error::Panic { input: name.prose().into(), source });
            }
        }
        observer.end_input();
        // The input's records go out before the next input is opened, which may wait (stdin).
        sink.flush()?;
        summary.stats.merge(&stats);
        if let Some(e) = &error {
            observer.input_failed(name.prose(), e);
        }
        summary.inputs.push(InputSummary { name, stats, error });
        Ok(())
    }

    fn finish(mut self) -> Summary {
        self.summary.elapsed = self.start.elapsed();
        self.summary
    }
}
