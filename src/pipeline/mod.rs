//! The parallel pipeline: input -> chunks -> N workers -> results released strictly in input
//! order. Knows nothing of clap or indicatif. Output is identical at any thread count because
//! workers see the same chunks either way and results are released in sequence (chunks cut at
//! guessed game starts are checked on release, see [`run_speculative`]); memory is bounded by the
//! chunk size times the number of chunks in flight.

pub mod chunk;
mod drive;
pub mod job;
pub mod order;
pub mod replay;
pub mod stats;

use std::io::Read;
use std::panic::{AssertUnwindSafe, catch_unwind};

pub use crate::pgn::split::guess_boundary;
use chunk::{ChunkBytes, Cut, Split, StreamChunks, StreamWindows, Window, slice_chunks, slice_windows};
use drive::drive;
pub use job::{ChunkEnd, ChunkInput, ChunkOutput, Job, NoProgress, Observer, Worker};

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
        drive::unreleased_limit(self.threads) * chunk::read_size(self.chunk_size)
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

/// Why a run stopped early.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// Reading the input failed.
    #[error("read error: {0}")]
    Read(#[from] std::io::Error),
    /// A worker panicked: a bug, caught and reported instead of killing the process.
    #[error("internal error while processing bytes {offset}..: {message}")]
    Panic {
        /// Offset of the chunk that was being processed.
        offset: u64,
        /// The panic message.
        message: String,
    },
    /// The caller's release function refused a result (e.g. the output failed).
    #[error("{0}")]
    Release(String),
    /// The [`Observer`] asked to stop: the chunks before were released, none after.
    #[error("interrupted")]
    Interrupted,
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string())
}

type Out<J> = <<J as Job>::Worker as Worker>::Output;

/// Runs `worker` on `chunk`; a panic becomes an error naming the chunk.
fn process<J: Job>(worker: &mut J::Worker, chunk: &ChunkInput<'_>) -> Result<Out<J>, PipelineError> {
    catch_unwind(AssertUnwindSafe(|| worker.process(chunk)))
        .map_err(|p| PipelineError::Panic { offset: chunk.offset, message: panic_message(p) })
}

/// Runs `job` over `input`, cut by `split`, calling `release` with each chunk's output in input
/// order (on the calling thread).
pub fn run<J: Job, E: std::fmt::Display>(
    input: Input<'_>,
    job: &J,
    split: Split,
    opts: &Options,
    observer: &dyn Observer,
    mut release: impl FnMut(Out<J>) -> Result<(), E>,
) -> Result<(), PipelineError> {
    type Chunks<'b> = Box<dyn Iterator<Item = std::io::Result<Cut<ChunkBytes<'b>>>> + Send + 'b>;
    // A stream is read ahead (reading may decompress; see `drive::Reading`).
    let (chunks, stream): (Chunks<'_>, bool) = match input {
        Input::Slice(bytes) => (
            Box::new(
                slice_chunks(bytes, opts.chunk_size, split).map(|c| Ok(c.map_bytes(ChunkBytes::Borrowed))),
            ),
            false,
        ),
        Input::Stream(r) => (
            Box::new(
                StreamChunks::new(r, opts.chunk_size, split)
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
        };
        process::<J>(worker, &chunk)
    };
    drive(chunks, stream, job, opts.threads, work, |_, c, out| {
        if observer.interrupted() {
            return Err(PipelineError::Interrupted);
        }
        let out = out?;
        observer.advance(c.bytes.as_slice().len() as u64, c.games);
        release(out).map_err(|e| PipelineError::Release(e.to_string()))
    })
}

/// Runs `job` without a sequential pre-scan. Chunks ([`Window`]s) start at guessed game
/// boundaries ([`guess_boundary`]); each worker reads the games that start before its chunk's
/// end (the last may run past it, into the look-ahead) and reports where the next game starts
/// and how far it looked for a `}`. On release, in order, each chunk's start is checked against
/// its predecessor's report; a wrong guess (a blank line and `[` inside a comment) makes the
/// releaser re-read that chunk from the right place, and a reading that needed bytes past a
/// stream chunk's look-ahead is redone with the next chunk joined on, so the result is exactly
/// that of one sequential read. Game numbers become absolute on release
/// ([`ChunkOutput::renumber`]). A mapped input needs no copy: a chunk's look-ahead is the rest of
/// the file. `split` cuts exactly where a stream gives nothing to guess from.
pub fn run_speculative<J, E>(
    input: Input<'_>,
    job: &J,
    split: Split,
    opts: &Options,
    observer: &dyn Observer,
    mut release: impl FnMut(Out<J>) -> Result<(), E>,
) -> Result<(), PipelineError>
where
    J: Job,
    Out<J>: ChunkOutput,
    E: std::fmt::Display,
{
    type Windows<'b> = Box<dyn Iterator<Item = std::io::Result<Window<ChunkBytes<'b>>>> + Send + 'b>;
    let (windows, stream): (Windows<'_>, bool) = match input {
        Input::Slice(bytes) => (
            Box::new(slice_windows(bytes, opts.chunk_size).map(|w| Ok(w.map_bytes(ChunkBytes::Borrowed)))),
            false,
        ),
        Input::Stream(r) => (
            Box::new(
                StreamWindows::new(r, opts.chunk_size, split)
                    .map(|r| r.map(|w| w.map_bytes(ChunkBytes::Stream))),
            ),
            true,
        ),
    };
    let mut verifier = Verifier::<J, _> {
        job,
        observer,
        release: |o| release(o).map_err(|e| PipelineError::Release(e.to_string())),
        expected: 0,
        first_game: 0,
        pending: None,
        fixer: None,
    };

    let work =
        |worker: &mut J::Worker, seq: u64, w: &Window<ChunkBytes<'_>>| read_window::<J>(worker, seq, w, 0);
    drive(windows, stream, job, opts.threads, work, |seq, w, out| {
        if observer.interrupted() {
            return Err(PipelineError::Interrupted);
        }
        verifier.verify(seq, w, out)
    })
}

/// Reads the games of window `w` from `from` (relative) that start before its end.
fn read_window<J: Job>(
    worker: &mut J::Worker,
    seq: u64,
    w: &Window<ChunkBytes<'_>>,
    from: usize,
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
    };
    process::<J>(worker, &chunk)
}

/// Whether the reading of `w`, which stopped at `next` after looking for a `}` up to `searched`,
/// is what a reading of the whole input gives ([`crate::pgn::split::decided`]).
fn decided_inside(w: &Window<ChunkBytes<'_>>, next: u64, searched: u64) -> bool {
    let rel = |at: u64| at.saturating_sub(w.offset) as usize;
    w.complete || crate::pgn::split::decided(w.bytes.as_slice(), rel(next), rel(searched))
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

/// The releasing side of [`run_speculative`]: checks each chunk's reading in order, re-reads what
/// was guessed wrong, and releases the outputs with absolute game numbers.
struct Verifier<'j, J: Job, R> {
    job: &'j J,
    observer: &'j dyn Observer,
    release: R,
    /// Where the next chunk's games start, from its predecessor's reading.
    expected: u64,
    /// Games released so far.
    first_game: u64,
    /// A stream chunk whose reading needed more look-ahead than it had.
    pending: Option<Pending>,
    /// Re-reads on the releasing thread.
    fixer: Option<J::Worker>,
}

impl<J, R> Verifier<'_, J, R>
where
    J: Job,
    Out<J>: ChunkOutput,
    R: FnMut(Out<J>) -> Result<(), PipelineError>,
{
    fn reread(&mut self, seq: u64, w: &Window<ChunkBytes<'_>>) -> Result<Out<J>, PipelineError> {
        let job = self.job;
        let fixer = self.fixer.get_or_insert_with(|| job.worker());
        read_window::<J>(fixer, seq, w, self.expected.saturating_sub(w.offset) as usize)
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
        if !decided_inside(&w, out.end().next, out.end().searched_to) {
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
        let mut out = out;
        let (next, games) = (out.end().next, out.games());
        out.renumber(self.first_game);
        self.first_game += games;
        self.observer.advance(next.saturating_sub(self.expected), games);
        (self.release)(out)?;
        self.expected = next.max(self.expected);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::chunk::tests::toy;

    /// Echoes each game with its absolute number.
    struct Numbered;
    struct NumberedWorker;
    impl Job for Numbered {
        type Worker = NumberedWorker;
        fn worker(&self) -> NumberedWorker {
            NumberedWorker
        }
    }
    impl Worker for NumberedWorker {
        type Output = Vec<String>;
        fn process(&mut self, c: &ChunkInput<'_>) -> Vec<String> {
            let first = c.first_game;
            String::from_utf8_lossy(c.bytes)
                .lines()
                .filter(|l| l.starts_with('['))
                .enumerate()
                .map(|(i, l)| format!("{} {l}", first + i as u64))
                .collect()
        }
    }

    #[test]
    fn guess_boundary_takes_the_first_blank_line_or_event_start() {
        let text = b"[A]\n\n[B]\r\n\r\n[C]\n\n[D]";
        assert_eq!(guess_boundary(text, 0), 5);
        assert_eq!(guess_boundary(text, 6), 12);
        assert_eq!(guess_boundary(text, 13), 17);
        assert_eq!(guess_boundary(text, 18), text.len());
        assert_eq!(guess_boundary(b"x\r\n\r\n[y\n\n[z", 0), 5);
        // Without a blank line, an `[Event ` line is a guess, and so is a tag after a line
        // that ends with a result; other tag lines are not.
        let text = b"1. e4\n[Site \"a\"]\n[Event \"b\"]\n[Site \"c\"]\n1. e4 \n[x";
        assert_eq!(guess_boundary(text, 0), 17);
        assert_eq!(guess_boundary(text, 19), text.len());
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

    fn collect(input: Input<'_>, threads: usize, chunk_size: usize) -> Vec<String> {
        let mut all = Vec::new();
        run(input, &Numbered, toy, &Options { threads, chunk_size }, &NoProgress, |v: Vec<String>| {
            all.extend(v);
            Ok::<(), String>(())
        })
        .expect("run");
        all
    }

    #[test]
    fn same_output_at_any_thread_count_and_input_kind() {
        let input: Vec<u8> =
            (0..2000).flat_map(|i| format!("[G \"{i}\"]\n1. e4 *\n\n").into_bytes()).collect();
        let expected: Vec<String> = (0..2000).map(|i| format!("{i} [G \"{i}\"]")).collect();
        for threads in [1, 2, 3, 8] {
            for chunk in [10, 1000, 50_000] {
                assert_eq!(
                    collect(Input::Slice(&input), threads, chunk),
                    expected,
                    "slice t{threads} c{chunk}"
                );
                assert_eq!(
                    collect(Input::Stream(Box::new(&input[..])), threads, chunk),
                    expected,
                    "stream t{threads} c{chunk}"
                );
            }
        }
    }

    #[test]
    fn worker_panic_is_an_error_not_a_crash() {
        struct Boom;
        struct BoomWorker;
        impl Job for Boom {
            type Worker = BoomWorker;
            fn worker(&self) -> BoomWorker {
                BoomWorker
            }
        }
        impl Worker for BoomWorker {
            type Output = ();
            fn process(&mut self, c: &ChunkInput<'_>) {
                assert!(c.seq < 3, "boom at chunk {}", c.seq);
            }
        }
        let input: Vec<u8> = (0..100).flat_map(|i| format!("[G \"{i}\"]\n*\n\n").into_bytes()).collect();
        for threads in [1, 2] {
            let r = run(
                Input::Slice(&input),
                &Boom,
                toy,
                &Options { threads, chunk_size: 10 },
                &NoProgress,
                |_| Ok::<(), String>(()),
            );
            assert!(matches!(r, Err(PipelineError::Panic { .. })), "{r:?}");
        }
    }

    #[test]
    fn release_error_stops_the_run() {
        let input: Vec<u8> = (0..1000).flat_map(|i| format!("[G \"{i}\"]\n*\n\n").into_bytes()).collect();
        let mut n = 0;
        let r = run(
            Input::Slice(&input),
            &Numbered,
            toy,
            &Options { threads: 2, chunk_size: 10 },
            &NoProgress,
            |_| {
                n += 1;
                if n == 5 { Err("disk full") } else { Ok(()) }
            },
        );
        assert!(matches!(r, Err(PipelineError::Release(ref m)) if m == "disk full"), "{r:?}");
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
        for threads in [1, 2] {
            for stream in [false, true] {
                let observer = StopAfter { after: 7, released: Default::default() };
                let mut all = Vec::new();
                let src = if stream { Input::Stream(Box::new(&input[..])) } else { Input::Slice(&input) };
                let opts = Options { threads, chunk_size: 100 };
                let r = run(src, &Numbered, toy, &opts, &observer, |v: Vec<String>| {
                    all.extend(v);
                    Ok::<(), String>(())
                });
                assert!(matches!(r, Err(PipelineError::Interrupted)), "{r:?}");
                assert_eq!(observer.released.into_inner(), 7, "t{threads} stream {stream}");
                // A prefix of the games, in order, whole chunks of them.
                let n = all.len();
                assert!(n > 7 && n < 1000, "{n} games released");
                assert_eq!(all, (0..n).map(|i| format!("{i} [G \"{i}\"]")).collect::<Vec<_>>());
            }
        }
    }
}
