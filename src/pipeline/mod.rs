//! The parallel pipeline: input -> game-aligned chunks -> N workers -> results released strictly
//! in input order. Knows nothing of clap or indicatif. Output is identical at any thread count
//! because workers see the same chunks either way and results are released in sequence; memory is
//! bounded by the chunk size times the number of chunks in flight.

pub mod chunk;
pub mod job;
pub mod order;
pub mod replay;
pub mod stats;

use std::io::Read;
use std::panic::{AssertUnwindSafe, catch_unwind};

use chunk::{ChunkBytes, Cut, Split, StreamChunks, slice_chunks};
pub use job::{ChunkInput, ChunkOutput, Job, NoProgress, Observer, Worker};
use order::{InFlight, Reorder};

/// How the pipeline runs.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Worker threads (1 runs everything on the calling thread).
    pub threads: usize,
    /// Target chunk size in bytes (a chunk holding one huge game grows past it).
    pub chunk_size: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options { threads: std::thread::available_parallelism().map_or(1, |n| n.get()), chunk_size: 2 << 20 }
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
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string())
}

type Out<J> = <<J as Job>::Worker as Worker>::Output;

fn process<J: Job>(worker: &mut J::Worker, seq: u64, cut: &Cut<&[u8]>) -> Result<Out<J>, PipelineError> {
    let chunk = ChunkInput {
        seq,
        offset: cut.offset,
        first_game: cut.first_game,
        games: cut.games,
        bytes: cut.bytes,
        end: cut.bytes.len(),
    };
    catch_unwind(AssertUnwindSafe(|| worker.process(&chunk)))
        .map_err(|p| PipelineError::Panic { offset: cut.offset, message: panic_message(p) })
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
    let mut chunks: Chunks<'_> = match input {
        Input::Slice(bytes) => Box::new(slice_chunks(bytes, opts.chunk_size, split).map(|c| {
            Ok(Cut {
                offset: c.offset,
                first_game: c.first_game,
                games: c.games,
                bytes: ChunkBytes::Borrowed(c.bytes),
            })
        })),
        Input::Stream(r) => Box::new(StreamChunks::new(r, opts.chunk_size, split).map(|r| {
            r.map(|c| Cut {
                offset: c.offset,
                first_game: c.first_game,
                games: c.games,
                bytes: ChunkBytes::Owned(c.bytes),
            })
        })),
    };
    let mut rel = |out: Out<J>, len: u64| -> Result<(), PipelineError> {
        observer.advance(len);
        release(out).map_err(|e| PipelineError::Release(e.to_string()))
    };

    if opts.threads <= 1 {
        let mut worker = job.worker();
        for (seq, item) in (0u64..).zip(&mut chunks) {
            let c = item?;
            let out = process::<J>(&mut worker, seq, &c.borrow())?;
            rel(out, c.bytes.as_slice().len() as u64)?;
        }
        return Ok(());
    }

    let gate = InFlight::new(2 * opts.threads + 1);
    let (work_tx, work_rx) = crossbeam_channel::bounded::<(u64, Cut<ChunkBytes<'_>>)>(opts.threads);
    let (done_tx, done_rx) = crossbeam_channel::unbounded::<(u64, (u64, Result<Out<J>, PipelineError>))>();
    std::thread::scope(|s| {
        // The producer reads (and decompresses) ahead of the workers, on its own thread.
        let gate = &gate;
        let producer = s.spawn(move || -> Result<(), PipelineError> {
            for (seq, item) in (0u64..).zip(chunks) {
                let c = item?;
                gate.acquire();
                if work_tx.send((seq, c)).is_err() {
                    break; // the releaser stopped early
                }
            }
            Ok(())
        });
        for _ in 0..opts.threads {
            let (work_rx, done_tx) = (work_rx.clone(), done_tx.clone());
            s.spawn(move || {
                let mut worker = job.worker();
                for (seq, c) in work_rx {
                    let out = process::<J>(&mut worker, seq, &c.borrow());
                    if done_tx.send((seq, (c.bytes.as_slice().len() as u64, out))).is_err() {
                        break;
                    }
                }
            });
        }
        drop((work_rx, done_tx));
        let failure =
            release_in_order(done_rx, gate, opts.threads, |(len, out)| out.and_then(|o| rel(o, len)));
        let produced = producer
            .join()
            .unwrap_or_else(|p| Err(PipelineError::Panic { offset: 0, message: panic_message(p) }));
        match failure {
            Some(e) => Err(e),
            None => produced,
        }
    })
}

/// The releasing side of a threaded run: takes `(seq, item)` results as workers finish, hands
/// each item to `release` strictly in sequence order, frees a gate place per item, and stops at
/// the first failure. Afterwards the receiver is dropped (workers stop) and the gate opened wide
/// (nothing waits on it forever).
fn release_in_order<T>(
    done_rx: crossbeam_channel::Receiver<(u64, T)>,
    gate: &InFlight,
    threads: usize,
    mut release: impl FnMut(T) -> Result<(), PipelineError>,
) -> Option<PipelineError> {
    let mut reorder = Reorder::default();
    let mut failure: Option<PipelineError> = None;
    for (seq, item) in &done_rx {
        reorder.push(seq, item, |item| {
            gate.release();
            if failure.is_none()
                && let Err(e) = release(item)
            {
                failure = Some(e);
            }
        });
        if failure.is_some() {
            break;
        }
    }
    drop(done_rx);
    for _ in 0..=2 * threads {
        gate.release();
    }
    failure
}

/// A likely game start at or after `from`: a `[` that begins a line after a blank line. Only a
/// guess (such a line can sit inside a comment); [`run_speculative`] verifies every guess.
pub fn guess_boundary(bytes: &[u8], from: usize) -> usize {
    let from = from.min(bytes.len());
    let hay = &bytes[from..];
    let lf = memchr::memmem::find(hay, b"\n\n[").map(|i| i + 2);
    // A CRLF boundary only matters before the LF one: bounding that search keeps a run linear.
    let before = lf.map_or(hay.len(), |a| (a + 1).min(hay.len()));
    let crlf = memchr::memmem::find(&hay[..before], b"\n\r\n[").map(|i| i + 3);
    match crlf.or(lf) {
        Some(a) => from + a,
        None => bytes.len(),
    }
}

/// Runs `job` over a mapped input without a sequential pre-scan: chunks start at guessed game
/// boundaries ([`guess_boundary`]); each worker reads the games that start before its chunk's
/// end (the last may run past it) and reports where the next game starts. On release, in
/// order, each chunk's start is checked against its predecessor's report; a wrong guess (a blank
/// line and `[` inside a comment) makes the releaser re-read that chunk from the right place, so
/// the result is exactly that of one sequential read. Game numbers become absolute on release
/// ([`ChunkOutput::renumber`]). With one thread, chunks are simply read one after another.
pub fn run_speculative<J, E>(
    bytes: &[u8],
    job: &J,
    opts: &Options,
    observer: &dyn Observer,
    mut release: impl FnMut(Out<J>) -> Result<(), E>,
) -> Result<(), PipelineError>
where
    J: Job,
    Out<J>: ChunkOutput,
    E: std::fmt::Display,
{
    let target = opts.chunk_size.max(1);
    let read =
        |worker: &mut J::Worker, seq: u64, start: usize, end: usize| -> Result<Out<J>, PipelineError> {
            let chunk = ChunkInput {
                seq,
                offset: start as u64,
                first_game: 0,
                games: 0,
                bytes: &bytes[start..],
                end: end.saturating_sub(start),
            };
            catch_unwind(AssertUnwindSafe(|| worker.process(&chunk)))
                .map_err(|p| PipelineError::Panic { offset: start as u64, message: panic_message(p) })
        };
    let mut first_game = 0u64;
    let mut finish = |mut out: Out<J>, from: u64| -> Result<u64, PipelineError> {
        let next = out.next();
        out.renumber(first_game);
        first_game += out.games();
        observer.advance(next.saturating_sub(from));
        release(out).map_err(|e| PipelineError::Release(e.to_string()))?;
        Ok(next)
    };

    if opts.threads <= 1 {
        let mut worker = job.worker();
        let (mut start, mut seq) = (0usize, 0u64);
        while start < bytes.len() {
            let end = guess_boundary(bytes, start + target);
            let out = read(&mut worker, seq, start, end)?;
            let next = finish(out, start as u64)? as usize;
            start = next.max(end.min(bytes.len())).max(start + 1);
            seq += 1;
        }
        return Ok(());
    }

    // Guessed starts; chunk k spans starts[k]..starts[k + 1].
    let mut starts = vec![0usize];
    while let Some(&last) = starts.last() {
        if last >= bytes.len() {
            break;
        }
        starts.push(guess_boundary(bytes, last + target).max(last + 1).min(bytes.len()));
    }
    let chunks = starts.len() - 1;
    let gate = InFlight::new(2 * opts.threads + 1);
    let next_seq = std::sync::atomic::AtomicUsize::new(0);
    let (done_tx, done_rx) = crossbeam_channel::unbounded::<(u64, (usize, Result<Out<J>, PipelineError>))>();
    let starts = &starts;
    std::thread::scope(|s| {
        for _ in 0..opts.threads {
            let (done_tx, gate, next_seq) = (done_tx.clone(), &gate, &next_seq);
            s.spawn(move || {
                let mut worker = job.worker();
                loop {
                    gate.acquire();
                    let k = next_seq.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if k >= chunks {
                        gate.release();
                        break;
                    }
                    let out = read(&mut worker, k as u64, starts[k], starts[k + 1]);
                    if done_tx.send((k as u64, (k, out))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        let mut expected = 0usize; // where the next chunk must start, from its predecessor
        let mut fixer: Option<J::Worker> = None;
        let failure =
            release_in_order(done_rx, &gate, opts.threads, |(k, out): (usize, Result<Out<J>, _>)| {
                let out = out.and_then(|o| {
                    if starts[k] == expected {
                        Ok(o)
                    } else {
                        // A wrong guess: read this chunk again from the true start.
                        let w = fixer.get_or_insert_with(|| job.worker());
                        read(w, k as u64, expected, starts[k + 1])
                    }
                })?;
                expected = (finish(out, expected as u64)? as usize).max(expected);
                Ok(())
            });
        failure.map_or(Ok(()), Err)
    })
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
    fn guess_boundary_takes_the_first_lf_or_crlf_start() {
        let text = b"[A]\n\n[B]\r\n\r\n[C]\n\n[D]";
        assert_eq!(guess_boundary(text, 0), 5);
        assert_eq!(guess_boundary(text, 6), 12);
        assert_eq!(guess_boundary(text, 13), 17);
        assert_eq!(guess_boundary(text, 18), text.len());
        assert_eq!(guess_boundary(b"x\r\n\r\n[y\n\n[z", 0), 5);
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
}
