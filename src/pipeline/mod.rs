//! The parallel pipeline: input -> chunks -> N workers -> outputs released strictly in input
//! order, with game and line numbers made absolute on release (the one place they are). Knows
//! nothing of clap or indicatif. Output is identical at any thread count because workers see the
//! same chunks either way and outputs are released in sequence (chunks cut at guessed game
//! starts are checked on release, see [`run`]); memory is bounded by the chunk size times the
//! number of chunks in flight.
//!
//! The pipeline runs on scoped threads of its own, not rayon's pool: outputs are released in
//! input order by a thread that also works and reads, memory stays bounded on streams, and a
//! blocked releaser must not hold a pool thread (`docs/design.md`).

pub mod chunk;
pub mod counter;
mod drive;
pub mod job;
pub mod order;
mod panic;
pub mod replay;
pub mod stats;
mod stream;
pub mod window;

use std::io::Read;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::error::Error;
pub use crate::error::Panic;
use crate::io::name::Name;
pub use crate::pgn::split::guess_boundary;
pub use chunk::Start;
use chunk::{ChunkBytes, Cut, Split, StreamChunks, slice_chunks};
use drive::drive;
pub use job::{
    Cancel, ChunkEnd, ChunkInput, Cuts, InputInfo, Job, Located, NoProgress, Observer, Output, Records,
    Spare, Spares, WithCuts, Worker, Workers,
};
use panic::panic_message;
use window::{StreamWindows, Window, slice_windows};

/// How the pipeline runs.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Worker threads (1: the calling thread does the work; a stream is read on another thread
    /// when a core is free for it).
    pub threads: usize,
    /// Target chunk size in bytes (a chunk holding one huge game grows past it).
    pub chunk_size: usize,
}

/// The CPUs this process may use (affinity and cgroup quota), asked once: the system's answer
/// costs file reads, and a run over many inputs needs it for each.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get))
}

impl Options {
    /// Bytes of a stream read and not yet released, at most, while every game is shorter than a
    /// chunk: what a streamed run holds of its input at once (a mapped one is not copied).
    pub fn max_unreleased_bytes(&self) -> usize {
        drive::unreleased_limit(self.threads) * stream::read_size(self.chunk_size)
    }
}

impl Default for Options {
    fn default() -> Options {
        // 256 KiB: positions output runs ~7x its input, and chunks in flight are what memory holds.
        Options { threads: cores(), chunk_size: 256 << 10 }
    }
}

/// Where the bytes come from.
pub enum Input<'a> {
    /// The whole input in memory (a mapped file).
    Slice(&'a [u8]),
    /// A stream (stdin, a decompressor, a file read without mmap).
    Stream(Box<dyn Read + Send + 'a>),
}

/// Why a run over one input stopped early.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// Reading the input failed.
    #[error("read error: {0}")]
    Read(#[from] std::io::Error),
    /// A worker panicked: a bug, caught and reported instead of killing the process.
    #[error(transparent)]
    Panic(#[from] Panic),
    /// A worker failed (or could not be made).
    #[error("{0}")]
    Job(Error),
    /// The release function refused an output (e.g. the output failed).
    #[error("{0}")]
    Release(Error),
    /// The [`Observer`] asked to stop: the chunks before were released, none after.
    #[error("interrupted")]
    Interrupted,
}

type Out<J> = Output<Records<J>>;

/// Runs `worker` on `chunk`; a panic becomes an error naming the chunk.
fn process<J: Job>(worker: &mut J::Worker, chunk: &ChunkInput<'_>) -> Result<Out<J>, PipelineError> {
    catch_unwind(AssertUnwindSafe(|| worker.process(chunk)))
        .map_err(|p| Panic { offset: chunk.offset, message: panic_message(p) })?
        .map_err(PipelineError::Job)
}

/// What the pipeline is given for one input: its name, the job, the workers kept between inputs
/// and the observer of the run.
pub struct Run<'r, J: Job> {
    /// The input's name.
    pub name: &'r Name,
    /// The job.
    pub job: &'r J,
    /// Workers kept from the inputs before (and for the ones after).
    pub workers: &'r Workers<J::Worker>,
    /// Threads and chunk size.
    pub opts: &'r Options,
    /// Progress and interrupts.
    pub observer: &'r dyn Observer,
}

/// Game and line numbers of the outputs released so far: each output's numbers are made
/// absolute from them, whichever way its input was cut.
#[derive(Default)]
struct Numbering {
    games: u64,
    lines: u64,
}

impl Numbering {
    /// Makes `out`'s numbers absolute: its worker numbered games from `first_game` + 1.
    fn absolute<T: Located>(&mut self, out: &mut Output<T>, first_game: u64) {
        out.records.shift(self.games.saturating_sub(first_game), self.lines);
        self.games += out.stats.games;
        self.lines += out.end.newlines;
    }
}

/// Runs `run.job` over `input`, cut as the job declares ([`Job::cuts`]), and calls `release` with
/// each chunk's output in input order (on the calling thread), its game and line numbers
/// absolute.
///
/// With [`Cuts::Guessed`] there is no sequential pre-scan: chunks start at guessed game boundaries
/// ([`guess_boundary`]); each worker reads the games that start before its chunk's end (the last
/// may run past it, into the look-ahead) and reports where the next game starts and how far it
/// looked for a `}`. On release, in order, each chunk's start is checked against its predecessor's
/// report; a wrong guess (a blank line and `[` inside a comment) makes the releaser read that
/// chunk again from the right place, and a reading that needed bytes past a stream chunk's
/// look-ahead is redone with the next chunk joined on, so the result is exactly that of one
/// sequential read. A mapped input needs no copy: a chunk's look-ahead is the rest of the file.
pub fn run<J: Job>(
    input: Input<'_>,
    run: &Run<'_, J>,
    release: impl FnMut(Out<J>) -> Result<(), Error>,
) -> Result<(), PipelineError> {
    run_with(input, run, crate::pgn::split::cut, Start::default(), release)
}

/// [`run`] over the part of an input that begins at `start`, an exact game start (a shard's
/// share): its records carry the offsets and numbers a run over the whole input gives them.
pub fn run_from<J: Job>(
    input: Input<'_>,
    run: &Run<'_, J>,
    start: Start,
    release: impl FnMut(Out<J>) -> Result<(), Error>,
) -> Result<(), PipelineError> {
    run_with(input, run, crate::pgn::split::cut, start, release)
}

/// [`run_from`] with the exact cutter `split` (tests give a toy one).
fn run_with<J: Job>(
    input: Input<'_>,
    run: &Run<'_, J>,
    split: Split,
    start: Start,
    mut release: impl FnMut(Out<J>) -> Result<(), Error>,
) -> Result<(), PipelineError> {
    let cancel = Cancel::new(run.observer);
    let mut numbering = Numbering { games: start.game, lines: start.line };
    let release = |mut out: Out<J>, first_game: u64| {
        numbering.absolute(&mut out, first_game);
        release(out).map_err(PipelineError::Release)
    };
    let result = match run.job.cuts() {
        Cuts::Guessed => guessed(input, run, split, start, &cancel, release),
        Cuts::Exact => exact(input, run, split, run.opts.chunk_size, start, &cancel, release),
        Cuts::PerGame => exact(input, run, split, 1, start, &cancel, release),
        Cuts::Lines(n) => exact(input, run, chunk::line_cut, n.max(1), start, &cancel, release),
    };
    cancel.set();
    result
}

/// Chunks cut at exact game boundaries, about `target` bytes each.
fn exact<J: Job>(
    input: Input<'_>,
    run: &Run<'_, J>,
    split: Split,
    target: usize,
    start: Start,
    cancel: &Cancel<'_>,
    mut release: impl FnMut(Out<J>, u64) -> Result<(), PipelineError>,
) -> Result<(), PipelineError> {
    type Chunks<'b> = Box<dyn Iterator<Item = std::io::Result<Cut<ChunkBytes<'b>>>> + Send + 'b>;
    // A stream is read ahead (reading may decompress; see `drive::Reading`).
    let (chunks, stream): (Chunks<'_>, bool) = match input {
        Input::Slice(bytes) => (
            Box::new(
                slice_chunks(bytes, target, split, start).map(|c| Ok(c.map_bytes(ChunkBytes::Borrowed))),
            ),
            false,
        ),
        Input::Stream(r) => (
            Box::new(
                StreamChunks::new(r, target, split, start)
                    .map(|r| r.map(|c| c.map_bytes(ChunkBytes::Stream))),
            ),
            true,
        ),
    };
    let work = |worker: &mut J::Worker, seq: u64, c: &Cut<ChunkBytes<'_>>| {
        let chunk = ChunkInput {
            seq,
            offset: c.offset,
            first_game: c.first_game,
            games: c.games,
            bytes: c.bytes.as_slice(),
            end: c.bytes.as_slice().len(),
            column: c.column,
            input: run.name,
            cancel,
        };
        process::<J>(worker, &chunk)
    };
    let observer = run.observer;
    drive(chunks, stream, run, cancel, work, |_, c, out| {
        if observer.interrupted() {
            return Err(PipelineError::Interrupted);
        }
        let out = out?;
        observer.advance(c.bytes.as_slice().len() as u64, c.games);
        release(out, c.first_game)
    })
}

/// Chunks ([`Window`]s) cut at guessed game starts and checked on release; see [`run`]. `split`
/// cuts exactly where a stream gives nothing to guess from.
fn guessed<J: Job>(
    input: Input<'_>,
    run: &Run<'_, J>,
    split: Split,
    start: Start,
    cancel: &Cancel<'_>,
    release: impl FnMut(Out<J>, u64) -> Result<(), PipelineError>,
) -> Result<(), PipelineError> {
    type Windows<'b> = Box<dyn Iterator<Item = std::io::Result<Window<ChunkBytes<'b>>>> + Send + 'b>;
    let chunk_size = run.opts.chunk_size;
    let (windows, stream): (Windows<'_>, bool) = match input {
        Input::Slice(bytes) => (
            Box::new(slice_windows(bytes, chunk_size, start).map(|w| Ok(w.map_bytes(ChunkBytes::Borrowed)))),
            false,
        ),
        Input::Stream(r) => (
            Box::new(
                StreamWindows::new(r, chunk_size, split, start)
                    .map(|r| r.map(|w| w.map_bytes(ChunkBytes::Stream))),
            ),
            true,
        ),
    };
    let mut verifier =
        Verifier::<J, _> { run, cancel, release, expected: start.offset, pending: None, fixer: None };
    let work = |worker: &mut J::Worker, seq: u64, w: &Window<ChunkBytes<'_>>| {
        read_window::<J>(worker, seq, w, 0, run.name, cancel)
    };
    let observer = run.observer;
    let result = drive(windows, stream, run, cancel, work, |seq, w, out| {
        if observer.interrupted() {
            return Err(PipelineError::Interrupted);
        }
        verifier.verify(seq, w, out)
    });
    if let Some(fixer) = verifier.fixer.take() {
        run.workers.put(fixer);
    }
    result
}

/// Reads the games of window `w` from `from` (relative) that start before its end.
fn read_window<J: Job>(
    worker: &mut J::Worker,
    seq: u64,
    w: &Window<ChunkBytes<'_>>,
    from: usize,
    input: &Name,
    cancel: &Cancel<'_>,
) -> Result<Out<J>, PipelineError> {
    let bytes = w.bytes.as_slice();
    let from = from.min(bytes.len());
    let chunk = ChunkInput {
        seq,
        offset: w.offset + from as u64,
        first_game: 0,
        games: 0,
        bytes: &bytes[from..],
        end: w.end.saturating_sub(from),
        column: chunk::column_after(w.column, &bytes[..from]),
        input,
        cancel,
    };
    process::<J>(worker, &chunk)
}

/// Whether the reading of `w`, which ended as `end` says, is what a reading of the whole input
/// gives ([`crate::pgn::split::decided`]).
fn decided_inside(w: &Window<ChunkBytes<'_>>, end: &ChunkEnd) -> bool {
    let rel = |at: u64| at.saturating_sub(w.offset) as usize;
    w.complete
        || crate::pgn::split::decided(w.bytes.as_slice(), rel(end.next), rel(end.searched_to), end.at_result)
}

/// Bytes whose reading needed more look-ahead than their chunk had: the next chunks are joined
/// on, and the whole is read again once it is twice as long as at the last try (so re-reading
/// stays linear in the input) or reaches the end of the input.
struct Pending {
    offset: u64,
    /// Up to where the next chunk starts.
    bytes: Vec<u8>,
    column: u64,
    retry_at: usize,
}

/// The releasing side of [`guessed`]: checks each chunk's reading in order, re-reads what was
/// guessed wrong, and releases the outputs.
struct Verifier<'r, 'c, J: Job, R> {
    run: &'r Run<'r, J>,
    cancel: &'r Cancel<'c>,
    release: R,
    /// Where the next chunk's games start, from its predecessor's reading.
    expected: u64,
    /// A stream chunk whose reading needed more look-ahead than it had.
    pending: Option<Pending>,
    /// Re-reads on the releasing thread.
    fixer: Option<J::Worker>,
}

impl<J, R> Verifier<'_, '_, J, R>
where
    J: Job,
    R: FnMut(Out<J>, u64) -> Result<(), PipelineError>,
{
    fn reread(&mut self, seq: u64, w: &Window<ChunkBytes<'_>>) -> Result<Out<J>, PipelineError> {
        let fixer = match self.fixer.take() {
            Some(f) => f,
            None => self.run.workers.take(self.run.job).map_err(PipelineError::Job)?,
        };
        let fixer = self.fixer.insert(fixer);
        let from = self.expected.saturating_sub(w.offset) as usize;
        read_window::<J>(fixer, seq, w, from, self.run.name, self.cancel)
    }

    fn verify(
        &mut self,
        seq: u64,
        w: Window<ChunkBytes<'_>>,
        out: Result<Out<J>, PipelineError>,
    ) -> Result<(), PipelineError> {
        let (w, out) = match self.pending.take() {
            Some(mut p) => {
                p.bytes.extend_from_slice(w.bytes.as_slice());
                let end = (w.offset - p.offset) as usize + w.end;
                if p.bytes.len() < p.retry_at && !w.complete {
                    p.bytes.truncate(end);
                    self.pending = Some(p);
                    return Ok(());
                }
                let (offset, column, complete) = (p.offset, p.column, w.complete);
                let joined = Window { offset, bytes: ChunkBytes::Owned(p.bytes), end, complete, column };
                let out = self.reread(seq, &joined)?;
                (joined, out)
            }
            None if w.offset == self.expected => (w, out?),
            // The previous chunk's last game ran over this whole chunk: nothing starts here.
            None if self.expected >= w.offset + w.end as u64 => return Ok(()),
            None => {
                let out = self.reread(seq, &w)?;
                (w, out)
            }
        };
        if !decided_inside(&w, &out.end) {
            let retry_at = 2 * w.bytes.as_slice().len();
            let bytes = match w.bytes {
                ChunkBytes::Owned(mut v) => {
                    v.truncate(w.end);
                    v
                }
                ChunkBytes::Stream(s) => s.into_vec(w.end),
                ChunkBytes::Borrowed(b) => b[..w.end].to_vec(),
            };
            self.pending = Some(Pending { offset: w.offset, bytes, column: w.column, retry_at });
            return Ok(());
        }
        let (next, games) = (out.end.next, out.stats.games);
        self.run.observer.advance(next.saturating_sub(self.expected), games);
        (self.release)(out, 0)?;
        self.expected = next.max(self.expected);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::chunk::tests::toy;

    /// Each game's first line with its number, as a job's records would carry it.
    #[derive(Debug, Default)]
    struct Numbered(Vec<(u64, String)>);
    impl Located for Numbered {
        fn shift(&mut self, games: u64, _: u64) {
            self.0.iter_mut().for_each(|(n, _)| *n += games);
        }
    }

    /// Echoes each game with its number, cut as `cuts` says.
    struct Echo(Cuts);
    struct EchoWorker;
    impl Job for Echo {
        type Worker = EchoWorker;
        fn cuts(&self) -> Cuts {
            self.0
        }
        fn worker(&self) -> Result<EchoWorker, Error> {
            Ok(EchoWorker)
        }
    }
    impl Worker for EchoWorker {
        type Records = Numbered;
        fn process(&mut self, c: &ChunkInput<'_>) -> Result<Output<Numbered>, Error> {
            // Guessed cuts: only the games that start before `end` are this chunk's.
            let text = String::from_utf8_lossy(&c.bytes[..c.end]);
            let games: Vec<(u64, String)> = text
                .lines()
                .filter(|l| l.starts_with('['))
                .enumerate()
                .map(|(i, l)| (c.first_game + i as u64, l.to_string()))
                .collect();
            let mut out = Output { records: Numbered(games), ..Output::default() };
            out.stats.games = out.records.0.len() as u64;
            out.end.next = c.offset + c.end as u64;
            Ok(out)
        }
    }

    fn run_job<J: Job>(
        job: &J,
        input: Input<'_>,
        threads: usize,
        chunk_size: usize,
        observer: &dyn Observer,
        release: impl FnMut(Out<J>) -> Result<(), Error>,
    ) -> Result<(), PipelineError> {
        let workers = Workers::default();
        let opts = Options { threads, chunk_size };
        let run = Run { name: &"t.pgn".into(), job, workers: &workers, opts: &opts, observer };
        run_with(input, &run, toy, Start::default(), release)
    }

    fn collect(cuts: Cuts, input: Input<'_>, threads: usize, chunk_size: usize) -> Vec<String> {
        let mut all = Vec::new();
        run_job(&Echo(cuts), input, threads, chunk_size, &NoProgress, |o| {
            all.extend(o.records.0.into_iter().map(|(n, l)| format!("{n} {l}")));
            Ok(())
        })
        .expect("run");
        all
    }

    #[test]
    fn guess_boundary_takes_the_first_blank_line_or_event_start() {
        let text = b"[A]\n\n[B]\r\n\r\n[C]\n\n[D]";
        assert_eq!(guess_boundary(text, 0), 5);
        assert_eq!(guess_boundary(text, 6), 12);
        assert_eq!(guess_boundary(text, 13), 17);
        assert_eq!(guess_boundary(text, 18), text.len());
        assert_eq!(guess_boundary(b"x\r\n\r\n[y\n\n[z", 0), 5);
        // Without a blank line, an `[Event ` line is a guess, but after a tag pair (the same
        // game's, as the reader takes it), and so is a tag after a line that ends with a result;
        // other tag lines are not.
        let text = b"1. e4\n[Site \"a\"]\n[Event \"b\"]\n1. d4\n[Event \"c\"]\n1. e4 \n[x";
        assert_eq!(guess_boundary(text, 0), 35);
        assert_eq!(guess_boundary(text, 36), text.len());
        assert_eq!(guess_boundary(&b"[Event \"x\"]\r\n".repeat(9), 0), 9 * 13);
        let text =
            b"[Site \"a\"]\n1. e4 1-0\n[Site \"b\"]\n1. d4 *  \r\n[Date \"c\"]\n1/2-1/2\n[White \"d\"]";
        assert_eq!(guess_boundary(text, 0), 21);
        assert_eq!(guess_boundary(text, 22), 43);
        assert_eq!(guess_boundary(text, 44), 62);
        // Not after a longer token ending like a result, nor before a line that is not a tag.
        assert_eq!(guess_boundary(b"e4 11-0\n[Site \"x\"]", 0), 18);
        assert_eq!(guess_boundary(b"e4 {a}1-0\n[Site \"x\"]", 0), 10);
        assert_eq!(guess_boundary(b"e4 {a 1-0\n[%clk 0:01] }", 0), 23);
        assert_eq!(guess_boundary(b"\n[Event \"x\"]", 0), 1);
        assert_eq!(guess_boundary(b"[Event \"x\"]", 0), 11, "a start at `from` itself is not a line start");
        // CR line breaks (old Mac files) count as well.
        assert_eq!(guess_boundary(b"1-0\r\r[A]\r[B]", 0), 5);
        assert_eq!(guess_boundary(b"1-0\r[Event \"x\"]", 0), 4);
        assert_eq!(guess_boundary(b"{ [%clk 0:01:00] }\n[%x]\n\n[A]", 0), 25);
    }

    #[test]
    fn same_numbers_at_any_thread_count_cut_and_input_kind() {
        let input: Vec<u8> =
            (0..2000).flat_map(|i| format!("[G \"{i}\"]\n1. e4 *\n\n").into_bytes()).collect();
        let expected: Vec<String> = (0..2000).map(|i| format!("{i} [G \"{i}\"]")).collect();
        for cuts in [Cuts::Exact, Cuts::Guessed, Cuts::PerGame] {
            for threads in [1, 2, 3, 8] {
                for chunk in [10, 1000, 50_000] {
                    let what = format!("{cuts:?} t{threads} c{chunk}");
                    assert_eq!(collect(cuts, Input::Slice(&input), threads, chunk), expected, "slice {what}");
                    let stream = Input::Stream(Box::new(&input[..]));
                    assert_eq!(collect(cuts, stream, threads, chunk), expected, "stream {what}");
                    // A stream that pauses: each pause is "nothing yet", never an error.
                    let parts = input.chunks(7_001).collect();
                    let paused = Input::Stream(Box::new(chunk::tests::Pausing { parts, pauses: 0 }));
                    assert_eq!(collect(cuts, paused, threads, chunk), expected, "paused stream {what}");
                }
            }
        }
    }

    #[test]
    fn per_game_cuts_give_one_game_a_chunk() {
        let input: Vec<u8> = (0..50).flat_map(|i| format!("[G \"{i}\"]\n1. e4 *\n\n").into_bytes()).collect();
        let mut sizes = Vec::new();
        run_job(&Echo(Cuts::PerGame), Input::Slice(&input), 2, 1 << 20, &NoProgress, |o| {
            sizes.push(o.records.0.len());
            Ok(())
        })
        .expect("run");
        assert_eq!(sizes, vec![1; 50]);
    }

    /// A job whose workers panic, or fail, at chunk 3, or cannot be made at all.
    struct Failing {
        panic: bool,
        make: bool,
    }
    struct FailingWorker(bool);
    impl Job for Failing {
        type Worker = FailingWorker;
        fn cuts(&self) -> Cuts {
            Cuts::Exact
        }
        fn worker(&self) -> Result<FailingWorker, Error> {
            if self.make {
                Ok(FailingWorker(self.panic))
            } else {
                Err(crate::engine::client::StartError::NotFound { path: "no-engine".into() }.into())
            }
        }
    }
    impl Worker for FailingWorker {
        type Records = ();
        fn process(&mut self, c: &ChunkInput<'_>) -> Result<Output<()>, Error> {
            if c.seq >= 3 {
                assert!(!self.0, "boom at chunk {}", c.seq);
                return Err(Error::Internal("database gone"));
            }
            Ok(Output::default())
        }
    }

    #[test]
    fn a_worker_that_panics_fails_or_cannot_start_is_an_error_not_a_crash() {
        let input: Vec<u8> = (0..100).flat_map(|i| format!("[G \"{i}\"]\n*\n\n").into_bytes()).collect();
        for threads in [1, 2] {
            let run =
                |job: &Failing| run_job(job, Input::Slice(&input), threads, 10, &NoProgress, |_| Ok(()));
            let r = run(&Failing { panic: true, make: true });
            assert!(matches!(r, Err(PipelineError::Panic(_))), "{r:?}");
            let r = run(&Failing { panic: false, make: true });
            assert!(matches!(r, Err(PipelineError::Job(Error::Internal("database gone")))), "{r:?}");
            let r = run(&Failing { panic: false, make: false });
            assert!(
                matches!(r, Err(PipelineError::Job(ref e)) if e.exit_code() == crate::exit::Code::Unavailable),
                "{r:?}"
            );
        }
    }

    #[test]
    fn release_error_stops_the_run() {
        let input: Vec<u8> = (0..1000).flat_map(|i| format!("[G \"{i}\"]\n*\n\n").into_bytes()).collect();
        let mut n = 0;
        let r = run_job(&Echo(Cuts::Exact), Input::Slice(&input), 2, 10, &NoProgress, |_| {
            n += 1;
            if n == 5 { Err(Error::Internal("disk full")) } else { Ok(()) }
        });
        assert!(matches!(r, Err(PipelineError::Release(Error::Internal("disk full")))), "{r:?}");
    }

    /// Asks to stop once `after` chunks were released.
    struct StopAfter {
        after: u64,
        released: std::sync::atomic::AtomicU64,
    }
    impl Observer for StopAfter {
        fn advance(&self, _: u64, _: u64) {
            self.released.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        fn interrupted(&self) -> bool {
            self.released.load(std::sync::atomic::Ordering::Relaxed) >= self.after
        }
    }

    #[test]
    fn interrupt_stops_at_a_chunk_boundary_with_the_chunks_before_released() {
        let input: Vec<u8> = (0..1000).flat_map(|i| format!("[G \"{i}\"]\n*\n\n").into_bytes()).collect();
        for cuts in [Cuts::Exact, Cuts::Guessed, Cuts::PerGame] {
            for threads in [1, 2] {
                for stream in [false, true] {
                    let observer = StopAfter { after: 7, released: Default::default() };
                    let mut all = Vec::new();
                    let src = if stream { Input::Stream(Box::new(&input[..])) } else { Input::Slice(&input) };
                    let r = run_job(&Echo(cuts), src, threads, 100, &observer, |o| {
                        all.extend(o.records.0);
                        Ok(())
                    });
                    assert!(matches!(r, Err(PipelineError::Interrupted)), "{r:?}");
                    let what = format!("{cuts:?} t{threads} stream {stream}");
                    assert_eq!(observer.released.into_inner(), 7, "{what}");
                    // A prefix of the games, in order, whole chunks of them.
                    let n = all.len();
                    assert!((7..1000).contains(&n), "{n} games released, {what}");
                    let expected: Vec<(u64, String)> =
                        (0..n).map(|i| (i as u64, format!("[G \"{i}\"]"))).collect();
                    assert_eq!(all, expected, "{what}");
                }
            }
        }
    }

    /// A worker deep in slow work sees an interrupt at once through its cancel handle (not only
    /// when the releasing thread next looks), and what it was doing is not released.
    #[test]
    fn a_slow_worker_sees_the_interrupt_through_its_cancel_handle() {
        struct Slow;
        struct SlowWorker;
        impl Job for Slow {
            type Worker = SlowWorker;
            fn cuts(&self) -> Cuts {
                Cuts::PerGame
            }
            fn worker(&self) -> Result<SlowWorker, Error> {
                Ok(SlowWorker)
            }
        }
        impl Worker for SlowWorker {
            type Records = ();
            fn process(&mut self, c: &ChunkInput<'_>) -> Result<Output<()>, Error> {
                // Game 3 is an engine's long think, checked between positions.
                let start = std::time::Instant::now();
                if c.first_game == 3 {
                    IN_SLOW_GAME.store(true, std::sync::atomic::Ordering::SeqCst);
                }
                while c.first_game == 3 && !c.cancel.is_set() {
                    assert!(start.elapsed().as_secs() < 60, "the cancel never came");
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                let mut out = Output::default();
                out.stats.games = 1;
                Ok(out)
            }
        }
        /// Set when game 3 is being worked on: the interrupt comes then, however slowly a loaded
        /// machine runs the games before it.
        static IN_SLOW_GAME: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        /// Interrupted from another thread while game 3 is worked on.
        struct Later(std::sync::atomic::AtomicBool);
        impl Observer for Later {
            fn interrupted(&self) -> bool {
                self.0.load(std::sync::atomic::Ordering::Relaxed)
            }
        }
        let input: Vec<u8> = (0..10).flat_map(|i| format!("[G \"{i}\"]\n*\n\n").into_bytes()).collect();
        for threads in [1, 2] {
            let observer = Later(Default::default());
            IN_SLOW_GAME.store(false, std::sync::atomic::Ordering::SeqCst);
            let mut released = 0;
            let r = std::thread::scope(|s| {
                s.spawn(|| {
                    while !IN_SLOW_GAME.load(std::sync::atomic::Ordering::SeqCst) {
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                    observer.0.store(true, std::sync::atomic::Ordering::Relaxed);
                });
                run_job(&Slow, Input::Slice(&input), threads, 1, &observer, |o| {
                    released += o.stats.games;
                    Ok(())
                })
            });
            assert!(matches!(r, Err(PipelineError::Interrupted)), "{r:?}");
            // One thread released the games before the slow one as it went; with two, the
            // interrupt may come before the releasing thread has handed all of them on.
            if threads == 1 {
                assert_eq!(released, 3, "the games before the slow one");
            } else {
                assert!(released <= 3, "never the slow game nor one after it: {released}");
            }
        }
    }

    /// Workers are made once per thread and kept for the next input.
    #[test]
    fn workers_are_kept_between_inputs() {
        struct Counting(std::sync::atomic::AtomicUsize);
        impl Job for Counting {
            type Worker = EchoWorker;
            fn cuts(&self) -> Cuts {
                Cuts::Exact
            }
            fn worker(&self) -> Result<EchoWorker, Error> {
                self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Ok(EchoWorker)
            }
        }
        let input: Vec<u8> = (0..500).flat_map(|i| format!("[G \"{i}\"]\n*\n\n").into_bytes()).collect();
        let job = Counting(Default::default());
        let workers = Workers::default();
        let opts = Options { threads: 2, chunk_size: 100 };
        let run = Run { name: &"t".into(), job: &job, workers: &workers, opts: &opts, observer: &NoProgress };
        for _ in 0..5 {
            run_with(Input::Slice(&input), &run, toy, Start::default(), |_| Ok(())).expect("run");
        }
        assert!(job.0.into_inner() <= 2, "one worker per thread for the whole run");
    }
}
