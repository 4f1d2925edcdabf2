//! What the pipeline runs: a [`Job`] declares how its input is cut ([`Cuts`]) and makes one
//! [`Worker`] per thread; a worker turns a chunk of whole games into an [`Output`], which the
//! pipeline hands on in input order with its numbers made absolute ([`Located::shift`]). Workers
//! may fail (an engine that does not start, a database that cannot open) and are told to stop
//! through a [`Cancel`] they check between games.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::stats::Stats;
use crate::error::{Diagnostic, Error};
use crate::io::name::Name;

/// A game-aligned piece of the input, as a worker sees it.
#[derive(Clone, Copy)]
pub struct ChunkInput<'a> {
    /// Position of the chunk in the input: 0, 1, 2...
    pub seq: u64,
    /// Byte offset of the chunk's first byte in the (decompressed) input.
    pub offset: u64,
    /// Index (0-based) of the chunk's first game in the input with exact cuts; 0 with guessed
    /// cuts, whose numbers are made absolute on release.
    pub first_game: u64,
    /// Number of games in the chunk, as the splitter counted them (0 with guessed cuts).
    pub games: u64,
    /// The chunk's games, and with guessed cuts look-ahead after them (to the end of a mapped
    /// input), so the last game can be read past `end`.
    pub bytes: &'a [u8],
    /// The chunk owns the games that start before `bytes[end]`; `end == bytes.len()` for exactly
    /// cut chunks.
    pub end: usize,
    /// Column (1-based) of `bytes[0]` in its line of the input; 1: it begins a line.
    pub column: u64,
    /// The input's name.
    pub input: &'a Name,
    /// Set when the run stops: checked between games; the output of a chunk cut short is dropped.
    pub cancel: &'a Cancel<'a>,
}

impl std::fmt::Debug for ChunkInput<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkInput")
            .field("seq", &self.seq)
            .field("offset", &self.offset)
            .field("first_game", &self.first_game)
            .field("len", &self.bytes.len())
            .field("end", &self.end)
            .finish_non_exhaustive()
    }
}

/// Where reading a chunk ended (see [`super::replay::replay_chunk`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChunkEnd {
    /// Offset (absolute) where the first game at or after the chunk's `end` starts, or the end
    /// of the input: where the next chunk must start.
    pub next: u64,
    /// Line breaks in the bytes read (to make the next chunk's lines absolute).
    pub newlines: u64,
    /// Offset just past the farthest byte the reader examined looking for a comment's `}`
    /// ([`crate::pgn::Reader::searched_to`]): a stream chunk read past its look-ahead is re-read.
    pub searched_to: u64,
    /// The last game read ended at its result token ([`crate::pgn::Reader::ended_at_result`]).
    pub at_result: bool,
}

/// How the pipeline cuts an input for a job: a property of the job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cuts {
    /// At guessed game starts with no sequential pre-scan, each guess checked on release and the
    /// chunk read again when it was wrong (see [`super::run`]). For jobs whose chunk outputs can be
    /// read before their game numbers are known: numbers are made absolute on release.
    Guessed,
    /// At exact game boundaries, in chunks of the usual size: each worker knows the number of its
    /// chunk's first game (for records that carry game numbers in their rendered bytes).
    Exact,
    /// At exact game boundaries, one game a chunk: for jobs whose games are slow (an engine's
    /// minutes), so progress, interrupts and work in flight go game by game, and no game is
    /// ever worked on twice.
    PerGame,
    /// At line ends, this many lines a chunk (the last line of the input may have no line
    /// break): for inputs whose records are lines (EPD), so each worker knows the index of its
    /// chunk's first line ([`ChunkInput::first_game`]) and counts its lines as its games. With
    /// slow records (an engine's search), a line a chunk: progress, interrupts and work in
    /// flight go line by line.
    Lines(usize),
}

/// Game numbers and line numbers in a chunk's records, relative to the chunk until released.
pub trait Located {
    /// Adds `games` to every game number and `lines` to every line number.
    fn shift(&mut self, games: u64, lines: u64);
}

impl Located for () {
    fn shift(&mut self, _: u64, _: u64) {}
}

impl Located for Diagnostic {
    fn shift(&mut self, games: u64, lines: u64) {
        Diagnostic::shift(self, games, lines);
    }
}

impl<T: Located> Located for Vec<T> {
    fn shift(&mut self, games: u64, lines: u64) {
        for r in self {
            r.shift(games, lines);
        }
    }
}

/// What a worker makes of one chunk: its records, its counters and where its reading ended.
#[derive(Debug, Default)]
pub struct Output<T> {
    /// The job's records, in input order.
    pub records: T,
    /// Counters (games, plies, diagnostics by kind, the job's own counts).
    pub stats: Stats,
    /// Where reading ended: the next chunk's start, line breaks read, comment look-ahead.
    pub end: ChunkEnd,
}

/// A job run over every chunk of every input.
pub trait Job: Sync {
    /// The per-thread state.
    type Worker: Worker;
    /// How the input is cut for this job.
    fn cuts(&self) -> Cuts;
    /// A new worker (one per thread; workers are kept from one input to the next).
    fn worker(&self) -> Result<Self::Worker, Error>;
}

/// Per-thread state of a job.
pub trait Worker: Send {
    /// The records one chunk yields.
    type Records: Located + Send;
    /// Processes one chunk. An error stops the run; a chunk cut short because
    /// [`ChunkInput::cancel`] was set may return anything (it is dropped).
    fn process(&mut self, chunk: &ChunkInput<'_>) -> Result<Output<Self::Records>, Error>;
}

/// The records of a job's chunk outputs.
pub type Records<J> = <<J as Job>::Worker as Worker>::Records;

/// Workers kept between the inputs of a run: an engine process or an open database is made once
/// per thread, not once per input.
pub struct Workers<W> {
    idle: Mutex<Vec<W>>,
}

impl<W> Default for Workers<W> {
    fn default() -> Workers<W> {
        Workers { idle: Mutex::new(Vec::new()) }
    }
}

impl<W> Workers<W> {
    /// A kept worker, or one made by `make`.
    pub fn take<J: Job<Worker = W>>(&self, job: &J) -> Result<W, Error> {
        let kept = self.idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
        kept.map_or_else(|| job.worker(), Ok)
    }

    /// Keeps `worker` for the next input.
    pub fn put(&self, worker: W) {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner).push(worker);
    }
}

/// Record buffers the release side hands back for workers to fill again. A chunk's output
/// allocated anew each time was released on one thread and made on another: at `-j2` the
/// allocator gave the pages back and faulted them in again (`clean -j2` of the 100 MB corpus:
/// 16,900 page faults against 1,100 at `-j1`, `perf stat -e page-faults`).
pub struct Spares<T> {
    idle: Mutex<Vec<T>>,
}

impl<T> Spares<T> {
    /// Buffers kept now.
    pub fn kept(&self) -> usize {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}

impl<T> std::fmt::Debug for Spares<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spares").field("kept", &self.kept()).finish()
    }
}

impl<T> Default for Spares<T> {
    fn default() -> Spares<T> {
        Spares { idle: Mutex::new(Vec::new()) }
    }
}

/// A chunk's records, whose buffers can be filled again.
pub trait Spare: Default {
    /// Empties the records and keeps their buffers; `false` when a buffer grew past what is
    /// worth keeping (a chunk of huge games).
    fn empty(&mut self) -> bool;
}

impl<T: Spare> Spares<T> {
    /// Buffers kept at most: more than the chunks a run holds at once at any thread count.
    const KEPT: usize = 64;

    /// A buffer handed back (empty), or a new one.
    pub fn take(&self) -> T {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner).pop().unwrap_or_default()
    }

    /// Empties `records` and keeps their buffers for a later [`take`](Spares::take), unless
    /// they are not worth keeping or enough are kept.
    pub fn give(&self, mut records: T) {
        if !records.empty() {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < Self::KEPT {
            idle.push(records);
        }
    }
}

/// Tells workers to stop: set when the run fails or stops, or when the [`Observer`] reports an
/// interrupt (read at once, so a worker deep in a slow game sees Ctrl-C without waiting for the
/// releasing thread).
pub struct Cancel<'o> {
    stopped: AtomicBool,
    observer: &'o dyn Observer,
}

impl<'o> Cancel<'o> {
    /// A handle that also reports `observer`'s interrupts.
    pub fn new(observer: &'o dyn Observer) -> Cancel<'o> {
        Cancel { stopped: AtomicBool::new(false), observer }
    }

    /// Whether work should stop.
    #[inline]
    pub fn is_set(&self) -> bool {
        self.stopped.load(Ordering::Relaxed) || self.observer.interrupted()
    }

    /// Asks every worker to stop.
    pub fn set(&self) {
        self.stopped.store(true, Ordering::Relaxed);
    }

    /// Whether [`set`](Cancel::set) was called (interrupts aside).
    pub(super) fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }
}

/// One input as the run's [`Observer`] is told of it.
#[derive(Debug, Clone)]
pub struct InputInfo<'a> {
    /// The name as reports show it (`-` for stdin).
    pub name: &'a str,
    /// Size on disk (compressed size for compressed input), when known.
    pub total_bytes: Option<u64>,
    /// Bytes the I/O layer has read so far, for streams (compressed bytes for compressed input);
    /// `None` for a mapped file, whose progress is the bytes released.
    pub consumed: Option<Arc<AtomicU64>>,
}

/// Watches a run: progress as chunks are released, interrupts, and inputs that fail. Called from
/// the releasing thread, except [`interrupted`](Observer::interrupted), which workers read too.
pub trait Observer: Sync {
    /// An input is about to be read.
    fn begin_input(&self, input: &InputInfo<'_>) {
        let _ = input;
    }
    /// `bytes` more input consumed (decompressed bytes), holding `games` more games.
    fn advance(&self, bytes: u64, games: u64) {
        let _ = (bytes, games);
    }
    /// Whether the run should stop (Ctrl-C): asked before each chunk is released, so a run
    /// stops at a chunk boundary; workers ask between games.
    fn interrupted(&self) -> bool {
        false
    }
    /// The input being read ended (to its end or not).
    fn end_input(&self) {}
    /// An input could not be opened or read to its end; the run goes on with the next one.
    fn input_failed(&self, input: &str, error: &Error) {
        let _ = (input, error);
    }
}

/// A job run with other cuts than its own: its output is the same whichever way the input is
/// cut (when its records carry no rendered game numbers), which tests and fuzzing compare.
pub struct WithCuts<'j, J>(pub &'j J, pub Cuts);

impl<J: Job> Job for WithCuts<'_, J> {
    type Worker = J::Worker;
    fn cuts(&self) -> Cuts {
        self.1
    }
    fn worker(&self) -> Result<J::Worker, Error> {
        self.0.worker()
    }
}

/// An observer that ignores everything.
pub struct NoProgress;

impl Observer for NoProgress {}

#[cfg(test)]
mod tests {
    use super::{Spare, Spares};

    /// Records of one buffer, any size kept.
    #[derive(Default)]
    struct Buf(Vec<u8>);

    impl Spare for Buf {
        fn empty(&mut self) -> bool {
            self.0.clear();
            true
        }
    }

    /// A buffer given back is the next one taken, emptied, its capacity kept; past the limit,
    /// buffers given back are dropped.
    #[test]
    fn spares_keep_what_is_given_back_up_to_the_limit() {
        let spares = Spares::<Buf>::default();
        assert_eq!(spares.take().0.capacity(), 0);
        let mut given = Vec::with_capacity(1000);
        given.extend_from_slice(b"records");
        spares.give(Buf(given));
        let taken = spares.take().0;
        assert_eq!((taken.capacity(), taken.len()), (1000, 0), "kept, and emptied");
        assert_eq!(spares.take().0.capacity(), 0, "taken once only");
        for _ in 0..Spares::<Buf>::KEPT + 5 {
            spares.give(Buf(Vec::with_capacity(10)));
        }
        assert_eq!(spares.kept(), Spares::<Buf>::KEPT);
        let kept = std::iter::from_fn(|| Some(spares.take())).take_while(|b| b.0.capacity() == 10).count();
        assert_eq!(kept, Spares::<Buf>::KEPT);
    }
}
