//! What the pipeline runs: a `Job` makes one `Worker` per thread; a worker turns a chunk of whole
//! games into an output value, which the pipeline hands to the caller in input order.

/// A game-aligned piece of the input, as a worker sees it.
#[derive(Clone, Copy, Debug)]
pub struct ChunkInput<'a> {
    /// Position of the chunk in the input: 0, 1, 2...
    pub seq: u64,
    /// Byte offset of the chunk's first byte in the (decompressed) input.
    pub offset: u64,
    /// Index (0-based) of the chunk's first game in the input.
    pub first_game: u64,
    /// Number of games in the chunk, as the splitter counted them.
    pub games: u64,
    /// The chunk's games, and in speculative mode (see [`super::run_speculative`]) look-ahead
    /// after them (to the end of a mapped input), so the last game can be read past `end`.
    pub bytes: &'a [u8],
    /// The chunk owns the games that start before `bytes[end]`; `end == bytes.len()` for exactly
    /// cut chunks.
    pub end: usize,
    /// Column (1-based) of `bytes[0]` in its line of the input; 1: it begins a line.
    pub column: u64,
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
}

/// What the speculative pipeline needs to know of a chunk's output.
pub trait ChunkOutput {
    /// Games read.
    fn games(&self) -> u64;
    /// Where reading the chunk ended.
    fn end(&self) -> &ChunkEnd;
    /// Makes the game numbers absolute, given the index (0-based) of the chunk's first game.
    fn renumber(&mut self, first_game: u64);
}

/// A job run over every chunk of the input.
pub trait Job: Sync {
    /// The per-thread state.
    type Worker: Worker;
    /// A new worker (one per thread).
    fn worker(&self) -> Self::Worker;
}

/// Per-thread state of a job.
pub trait Worker: Send {
    /// What one chunk produces.
    type Output: Send;
    /// Processes one chunk.
    fn process(&mut self, chunk: &ChunkInput<'_>) -> Self::Output;
}

/// Receives progress as chunks are released (from the releasing thread).
pub trait Observer: Sync {
    /// `bytes` more input consumed (decompressed bytes; the I/O layer reports compressed ones),
    /// holding `games` more games.
    fn advance(&self, bytes: u64, games: u64) {
        let _ = (bytes, games);
    }
    /// Whether the run should stop (Ctrl-C): asked before each chunk is released, so a run
    /// stops at a chunk boundary, with [`PipelineError::Interrupted`](super::PipelineError).
    fn interrupted(&self) -> bool {
        false
    }
}

/// An observer that ignores everything.
pub struct NoProgress;

impl Observer for NoProgress {}
