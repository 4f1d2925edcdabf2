//! The evaluation cache: engine analyses stored in SQLite, so that a position is analysed once
//! per cache file (within a run and across runs) and a run killed at any moment resumes from what
//! was committed (reproducible analysis and resume, as the README's `annotate` section states).
//!
//! Invariants:
//! - Only reproducible limits are cached ([`Limit::is_reproducible`]: nodes and/or depth, no
//!   movetime). With one thread and a cleared hash an analysis is then a pure function of
//!   (position, engine, options, limit), which is the key, so a hit is exact.
//! - The key is the text of the four EPD fields ([`write_epd`] with [`EpMode::Legal`]: the en
//!   passant square only when a capture is legal; crazyhouse pockets and `~` marks included)
//!   with the halfmove clock as `hmvc N` when the moves below do not make all of it (the
//!   fifty-move rule; a line from a game's `FEN` or an EPD line with a clock), and, for
//!   [`Cache::lookup_line`], the moves since the last capture or pawn move (an engine
//!   that sees them scores repetitions, so two move orders to one position may score apart)
//!   with the line's start as `from EPD` when the moves and the last position do not make it
//!   (castling rights lost on the way, an en passant capture the start allowed),
//!   the [`EngineId`] and the limit as `go` arguments (`nodes 20000`, `depth 18`,
//!   `depth 18 nodes 20000`). It is hashed to a 64-bit integer primary key and the full key is
//!   stored beside it and compared on every read, so a hash collision costs a miss, never a
//!   wrong answer.
//! - Moves are stored as UCI text and read back against the position: a row whose best move or
//!   PV no longer parses is a miss (counted as `stale`), never an illegal move handed out.
//! - Everything [`Cache::store`]d is visible to [`Cache::lookup`] at once (uncommitted rows are
//!   looked up in memory), and committed by a writer thread within [`CommitPolicy::max_age`].
//!
//! Schema (version 1, `PRAGMA user_version`; `PRAGMA application_id` is 0x50474E4B, "PGNK"),
//! readable with `sqlite3`:
//!
//! ```sql
//! CREATE TABLE evals (
//!     key          INTEGER PRIMARY KEY, -- 64-bit hash of (position, engine, search_limit)
//!     position     TEXT NOT NULL,       -- EPD: placement[pockets] side castling ep, then
//!                                       -- ' hmvc N' when the clock is more than the moves,
//!                                       -- ' from EPD' (the line's start, see above) and
//!                                       -- ' moves e2e4 ...' when the analysis saw the moves
//!                                       -- since the last capture or pawn move
//!     engine       TEXT NOT NULL,       -- 'id name; option=value; ...' (EngineId)
//!     search_limit TEXT NOT NULL,       -- 'nodes 20000', 'depth 18', 'depth 18 nodes 20000'
//!     cp           INTEGER,             -- centipawns, side to move's view (NULL for a mate)
//!     mate         INTEGER,             -- mate in moves, side to move's view (NULL for cp)
//!     depth        INTEGER NOT NULL,
//!     seldepth     INTEGER NOT NULL,
//!     nodes        INTEGER NOT NULL,
//!     time_us      INTEGER NOT NULL,    -- microseconds the engine spent
//!     best         TEXT,                -- best move in UCI, NULL when there is none
//!     pv           TEXT NOT NULL,       -- UCI moves separated by spaces
//!     CHECK ((cp IS NULL) <> (mate IS NULL))
//! );
//! ```
//!
//! The key hash is FNV-1a 64 over `position 0xFF engine 0xFF search_limit 0xFF` (0xFF never
//! occurs in UTF-8), finished with MurmurHash3's 64-bit mixer, stored as a signed integer.
//!
//! Durability: WAL mode with `synchronous=NORMAL`, so a commit is a write to the WAL file
//! without fsync: it survives a killed process (SIGKILL) but not a power cut, which for a cache
//! only costs analyses done again. Writes go through one writer thread that commits a batch
//! when its oldest row is [`CommitPolicy::max_age`] old (500 ms by default) or when it holds
//! [`CommitPolicy::max_rows`] rows, so a kill loses at most about half a second of engine work.
//! Lookups use a small pool of read connections with prepared statements; WAL readers never
//! wait for the writer. Other processes may use the same file at the same time: every
//! connection waits up to 10 s for a lock (`busy_timeout`).
//!
//! Cost, measured with `cargo run --release --example cache_bench` (100,000 distinct positions
//! of random games with 12-move PVs in a new file; a 2-core VM shared with other builds, so the
//! CPU times are the steadier figures):
//! - store: 5.5 us in the caller; 62,000 rows/s committed (15 us of CPU a row, writer
//!   included); 231 bytes a row in the file.
//! - lookup: a hit 11 us (89,000/s on one thread, 118,000/s on two), the PV's moves checked
//!   included; a miss 7 us (140,000/s).
//! - commit: 1 row 0.44 ms (0.27 ms CPU), 10 rows 1.3 ms, 100 rows 7.6 ms (36 us CPU a row),
//!   1000 rows 60 to 75 ms (28 to 38 us CPU a row). The key is a hash, so each row lands on a
//!   page of its own: a row costs a WAL page and its checkpoint. A commit per store would cost
//!   0.27 ms of CPU each; the policy's fixed part is at most two age-triggered commits a
//!   second (under 1 ms of CPU a second), and each row costs about 35 us of CPU on the writer
//!   thread, off the callers' threads.

use std::ffi::OsString;
use std::fmt;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior};

use crate::analysis::{Analysis, Limit};
use crate::chess::{Move, Position};
use crate::exit::Code;
#[cfg(doc)]
use crate::notation::{EpMode, write_epd};

mod key;
pub mod merge;
mod row;
#[cfg(test)]
mod tests;
mod writer;

pub use key::EngineId;
use key::Key;
use row::{CREATE, Fields, Found, Row, SELECT, decode};
use writer::{Shared, State, run_writer};

/// The schema version this code reads and writes (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i32 = 1;

/// `PRAGMA application_id` of a pgnkit cache: "PGNK".
const APPLICATION_ID: i32 = 0x5047_4E4B;

/// How long a connection waits for another one's lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The writer's page cache, in KiB as `PRAGMA cache_size` takes it (negative).
const WRITER_CACHE_KIB: i64 = -8192;

/// Pages are read through a shared memory map of the file instead of a copy per connection.
const MMAP_SIZE: i64 = 1 << 30;

/// Why the cache could not be opened, read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CacheError {
    /// The directory for the cache file could not be created.
    #[error("cannot create the directory of the evaluation cache {}: {source}", path.display())]
    Dir {
        /// The directory.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// SQLite could not open or set up the file.
    #[error("cannot open the evaluation cache {}: {source}", path.display())]
    Open {
        /// The cache file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// The file is an SQLite database of something else: it is left alone.
    #[error("{} is an SQLite database but not a pgnkit evaluation cache", path.display())]
    Foreign {
        /// The file.
        path: PathBuf,
    },
    /// The file is a pgnkit cache of another schema version.
    #[error("{} is a pgnkit evaluation cache of version {found}; this pgnkit uses version {SCHEMA_VERSION}", path.display())]
    Version {
        /// The file.
        path: PathBuf,
        /// Its `user_version`.
        found: i32,
    },
    /// The file, its directory or its file system cannot be written: found at the start, not
    /// at the first commit after a run's work.
    #[error(
        "the evaluation cache {} cannot be written (a read-only file, directory or file system): \
         run with --no-cache, or --cache FILE where it can be written",
        path.display()
    )]
    ReadOnly {
        /// The file.
        path: PathBuf,
    },
    /// WAL mode is not available for the file (a network file system, for one).
    #[error("the evaluation cache {} cannot use WAL mode (journal mode {mode}): use a local file", path.display())]
    NoWal {
        /// The file.
        path: PathBuf,
        /// The journal mode SQLite kept.
        mode: String,
    },
    /// A lookup failed.
    #[error("cannot read the evaluation cache {}: {source}", path.display())]
    Read {
        /// The cache file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// `cache merge` could not add a source (the ones before it were added, each in its own
    /// transaction).
    #[error("cannot add the evaluation cache {} to {}: {error}; the caches named before it were added", from.display(), dest.display())]
    Merge {
        /// The cache being added.
        from: PathBuf,
        /// The cache added to.
        dest: PathBuf,
        /// What SQLite said.
        error: rusqlite::Error,
    },
    /// The writer could not commit stored analyses; they stay in memory for another try.
    #[error("evaluation cache: stored analyses not committed: {0}")]
    Commit(#[source] std::sync::Arc<rusqlite::Error>),
    /// The writer thread is gone (it panicked).
    #[error("evaluation cache: the writer thread stopped")]
    WriterStopped,
}

impl CacheError {
    /// Its exit code: 65 for a file SQLite finds is no database or a corrupt one, or that is
    /// another program's database or another schema's (what it holds is wrong, as a corrupt
    /// input's), 74 for the rest (I/O, locks, a full disk).
    pub fn exit_code(&self) -> Code {
        if matches!(self, CacheError::Foreign { .. } | CacheError::Version { .. }) {
            return Code::DataErr;
        }
        let sqlite = match self {
            CacheError::Open { source, .. } | CacheError::Read { source, .. } => Some(source),
            CacheError::Merge { error, .. } => Some(error),
            CacheError::Commit(error) => Some(&**error),
            _ => None,
        };
        match sqlite.and_then(rusqlite::Error::sqlite_error_code) {
            Some(rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt) => Code::DataErr,
            _ => Code::IoErr,
        }
    }
}

/// When the writer commits: as soon as the oldest uncommitted row is `max_age` old, or when
/// `max_rows` rows wait, whichever comes first. A transaction takes every row waiting then, so
/// batches grow when stores come faster than commits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommitPolicy {
    /// The longest a stored analysis stays uncommitted (what a kill can lose).
    pub max_age: Duration,
    /// Commit without waiting for `max_age` once this many rows wait.
    pub max_rows: usize,
}

impl Default for CommitPolicy {
    /// 500 ms, 1024 rows: committed at least twice a second.
    fn default() -> CommitPolicy {
        CommitPolicy { max_age: Duration::from_millis(500), max_rows: 1024 }
    }
}

/// What the cache did since it was opened. `hits + misses` counts the lookups of cacheable
/// limits; lookups and stores with a limit that is not cached count nowhere.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups that returned an analysis.
    pub hits: u64,
    /// Lookups that returned nothing (`stale` ones included).
    pub misses: u64,
    /// Misses where a row with the key was found but its moves do not parse in the position.
    pub stale: u64,
    /// Analyses stored.
    pub stores: u64,
    /// Transactions committed by the writer.
    pub commits: u64,
}

impl CacheStats {
    /// The share of lookups that were hits, in [0, 1] (0 with no lookups).
    pub fn hit_share(&self) -> f64 {
        let lookups = self.hits + self.misses;
        if lookups == 0 { 0.0 } else { self.hits as f64 / lookups as f64 }
    }
}

/// `true` when analyses under `limit` are cached: nodes and/or depth, no movetime (a time limit
/// gives a different result on every run).
pub const fn cacheable(limit: &Limit) -> bool {
    limit.is_reproducible()
}

/// A read connection with its prepared statement cache.
struct Reader(Connection);

/// The evaluation cache: one SQLite file, shared by every thread of a run through `&Cache` (it is
/// `Send + Sync`). Stores are committed by a writer thread of its own ([`CommitPolicy`]);
/// [`Cache::close`] (or dropping the cache) commits what is left.
pub struct Cache {
    path: PathBuf,
    shared: Arc<Shared>,
    readers: Mutex<Vec<Reader>>,
    writer: Option<JoinHandle<()>>,
}

impl fmt::Debug for Cache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cache").field("path", &self.path).field("stats", &self.stats()).finish()
    }
}

impl Cache {
    /// The default cache file: `$XDG_CACHE_HOME/pgnkit/evals.sqlite` when that variable holds an
    /// absolute path, else `$HOME/.cache/pgnkit/evals.sqlite`; `None` without either.
    pub fn default_path() -> Option<PathBuf> {
        default_path_from(std::env::var_os("XDG_CACHE_HOME"), std::env::var_os("HOME"))
    }

    /// Opens (creating it and its directory if needed) the cache file at `path` with the default
    /// [`CommitPolicy`].
    pub fn open(path: impl AsRef<Path>) -> Result<Cache, CacheError> {
        Cache::open_with(path, CommitPolicy::default())
    }

    /// [`Cache::open`] with a commit policy of its own.
    pub fn open_with(path: impl AsRef<Path>, policy: CommitPolicy) -> Result<Cache, CacheError> {
        let path = path.as_ref().to_path_buf();
        let writer = match open_writer(&path) {
            // SQLite opens a file it cannot write read-only, and fails at the first commit.
            Ok(conn) if conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(false) => {
                return Err(CacheError::ReadOnly { path });
            }
            Err(CacheError::Open { .. }) if read_only(&path) => return Err(CacheError::ReadOnly { path }),
            opened => opened?,
        };
        let reader = open_reader(&path).map_err(|source| CacheError::Open { path: path.clone(), source })?;
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
            done: Condvar::new(),
            policy: CommitPolicy { max_rows: policy.max_rows.max(1), ..policy },
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            stale: AtomicU64::new(0),
            stores: AtomicU64::new(0),
            commits: AtomicU64::new(0),
            gone: AtomicU64::new(0),
        });
        let thread_shared = Arc::clone(&shared);
        let writer = std::thread::Builder::new()
            .name("pgnkit-cache".into())
            .spawn(move || run_writer(&thread_shared, writer))
            .map_err(|_| CacheError::WriterStopped)?;
        Ok(Cache { path, shared, readers: Mutex::new(vec![reader]), writer: Some(writer) })
    }

    /// The cache file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The analysis stored for `pos` by `engine` under `limit`, if any. `Ok(None)` for a limit
    /// that is not cached, for a key never stored, and for a row whose moves no longer parse.
    pub fn lookup(
        &self,
        pos: &Position,
        engine: &EngineId,
        limit: &Limit,
    ) -> Result<Option<Analysis>, CacheError> {
        self.lookup_line(pos, &[], engine, limit)
    }

    /// [`Cache::lookup`] of the position `moves` lead to from `start`: the moves since the last
    /// capture or pawn move, which an engine that sees them may score otherwise (a repetition),
    /// so they are part of the key.
    pub fn lookup_line(
        &self,
        start: &Position,
        moves: &[Move],
        engine: &EngineId,
        limit: &Limit,
    ) -> Result<Option<Analysis>, CacheError> {
        let Some((key, pos)) = Key::new(start, moves, engine, limit) else {
            return Ok(None);
        };
        let pos = &pos;
        let in_memory = {
            let st = self.shared.lock();
            let row = st.pending.get(&key.hash).or_else(|| st.flushing.get(&key.hash));
            row.map(|row| decode(pos, &key, Some(row.fields())))
        };
        let found = match in_memory {
            Some(found) => found,
            None => self.query(pos, &key)?,
        };
        let s = &self.shared;
        Ok(match found {
            Found::Hit(a) => {
                s.hits.fetch_add(1, Ordering::Relaxed);
                Some(a)
            }
            Found::Stale => {
                s.stale.fetch_add(1, Ordering::Relaxed);
                s.misses.fetch_add(1, Ordering::Relaxed);
                None
            }
            Found::Absent => {
                s.misses.fetch_add(1, Ordering::Relaxed);
                None
            }
        })
    }

    fn query(&self, pos: &Position, key: &Key<'_>) -> Result<Found, CacheError> {
        let reader = self.readers.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let reader = match reader {
            Some(r) => r,
            None => match open_reader(&self.path) {
                Ok(r) => r,
                // Removed while the run goes on: a miss, not the end of the run's work.
                Err(_) if !self.path.exists() => {
                    self.shared.gone.fetch_add(1, Ordering::Relaxed);
                    return Ok(Found::Absent);
                }
                Err(source) => return Err(CacheError::Read { path: self.path.clone(), source }),
            },
        };
        let found = reader.0.prepare_cached(SELECT).and_then(|mut stmt| {
            stmt.query_row([key.hash], |r| Ok(decode(pos, key, Fields::from_sql(r)))).optional()
        });
        self.readers.lock().unwrap_or_else(PoisonError::into_inner).push(reader);
        let found = found.map_err(|source| CacheError::Read { path: self.path.clone(), source })?;
        Ok(found.unwrap_or(Found::Absent))
    }

    /// Stores `analysis` of `pos` by `engine` under `limit` (replacing what the key held), to be
    /// committed within the [`CommitPolicy`]; visible to [`Cache::lookup`] at once. Returns
    /// whether it was stored (`false` for a limit that is not cached). An error reports commits
    /// that failed since the last report; the analysis is stored all the same.
    pub fn store(
        &self,
        pos: &Position,
        engine: &EngineId,
        limit: &Limit,
        analysis: &Analysis,
    ) -> Result<bool, CacheError> {
        self.store_line(pos, &[], engine, limit, analysis)
    }

    /// [`Cache::store`] of the position `moves` lead to from `start` (see
    /// [`Cache::lookup_line`]).
    pub fn store_line(
        &self,
        start: &Position,
        moves: &[Move],
        engine: &EngineId,
        limit: &Limit,
        analysis: &Analysis,
    ) -> Result<bool, CacheError> {
        let Some((key, pos)) = Key::new(start, moves, engine, limit) else {
            return Ok(false);
        };
        let hash = key.hash;
        let row = Row::new(key, analysis, pos.castling_mode());
        let mut st = self.shared.lock();
        let first = st.pending.is_empty();
        if first {
            st.oldest = Some(Instant::now());
        }
        st.pending.insert(hash, row);
        st.seq += 1;
        let full = st.pending.len() >= self.shared.policy.max_rows;
        let error = st.unreported();
        drop(st);
        self.shared.stores.fetch_add(1, Ordering::Relaxed);
        if first || full {
            self.shared.wake.notify_one();
        }
        error.map_or(Ok(true), Err)
    }

    /// Commits everything stored so far and waits for it (for Ctrl-C, and for tests).
    pub fn flush(&self) -> Result<(), CacheError> {
        let s = &self.shared;
        let mut st = s.lock();
        let (target, failures) = (st.seq, st.failures);
        if st.done_seq < target {
            st.flush_wanted = true;
            s.wake.notify_one();
        }
        while st.done_seq < target && st.failures == failures {
            if self.writer.as_ref().is_none_or(|w| w.is_finished()) {
                return Err(CacheError::WriterStopped);
            }
            st =
                s.done.wait_timeout(st, Duration::from_millis(100)).unwrap_or_else(PoisonError::into_inner).0;
        }
        st.unreported().map_or(Ok(()), Err)
    }

    /// The counters so far.
    pub fn stats(&self) -> CacheStats {
        let s = &self.shared;
        CacheStats {
            hits: s.hits.load(Ordering::Relaxed),
            misses: s.misses.load(Ordering::Relaxed),
            stale: s.stale.load(Ordering::Relaxed),
            stores: s.stores.load(Ordering::Relaxed),
            commits: s.commits.load(Ordering::Relaxed),
        }
    }

    /// Lookups that found the cache file removed since it was opened (each a miss): what this
    /// run stores then goes nowhere a later run reads.
    pub fn gone(&self) -> u64 {
        self.shared.gone.load(Ordering::Relaxed)
    }

    /// Commits what is left, stops the writer and closes the file; reports a commit that failed.
    pub fn close(mut self) -> Result<(), CacheError> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> Result<(), CacheError> {
        let Some(writer) = self.writer.take() else {
            return Ok(());
        };
        self.shared.lock().shutdown = true;
        self.shared.wake.notify_one();
        if writer.join().is_err() {
            return Err(CacheError::WriterStopped);
        }
        self.shared.lock().unreported().map_or(Ok(()), Err)
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        // Errors are lost here: `close` reports them.
        let _ = self.shutdown();
    }
}

fn default_path_from(xdg_cache_home: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    // The XDG base directory specification says to ignore a relative path.
    let base = match xdg_cache_home.map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir,
        _ => PathBuf::from(home.filter(|h| !h.is_empty())?).join(".cache"),
    };
    Some(base.join("pgnkit").join("evals.sqlite"))
}

/// Whether the cache file at `path` (or a new file beside it) may not be written: no permission,
/// or a read-only file system (a directory given as the file is another error).
fn read_only(path: &Path) -> bool {
    let opened = if path.exists() {
        std::fs::OpenOptions::new().append(true).open(path).map(drop)
    } else {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        tempfile::tempfile_in(dir).map(drop)
    };
    opened.is_err_and(|e| matches!(e.kind(), ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem))
}

/// The writer's connection (the file and its directory created if needed): WAL mode,
/// `synchronous=NORMAL`, the schema created or checked.
fn open_writer(path: &Path) -> Result<Connection, CacheError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| CacheError::Dir { path: dir.to_path_buf(), source })?;
    }
    let open_err = |source| CacheError::Open { path: path.to_path_buf(), source };
    let mut conn = Connection::open(path).map_err(open_err)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(open_err)?;
    let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)).map_err(open_err)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(CacheError::NoWal { path: path.to_path_buf(), mode });
    }
    conn.pragma_update(None, "synchronous", "NORMAL").map_err(open_err)?;
    // A batch's rows land on random pages (the key is a hash): its dirty pages must fit.
    conn.pragma_update(None, "cache_size", WRITER_CACHE_KIB).map_err(open_err)?;
    conn.pragma_update(None, "mmap_size", MMAP_SIZE).map_err(open_err)?;
    // IMMEDIATE: two processes creating the same new file take turns.
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(open_err)?;
    let app: i32 = tx.query_row("PRAGMA application_id", [], |r| r.get(0)).map_err(open_err)?;
    let version: i32 = tx.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(open_err)?;
    let tables: i64 =
        tx.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0)).map_err(open_err)?;
    match app {
        APPLICATION_ID if version == SCHEMA_VERSION => {}
        APPLICATION_ID => return Err(CacheError::Version { path: path.to_path_buf(), found: version }),
        0 if tables == 0 => {
            tx.execute_batch(CREATE).map_err(open_err)?;
            tx.pragma_update(None, "application_id", APPLICATION_ID).map_err(open_err)?;
            tx.pragma_update(None, "user_version", SCHEMA_VERSION).map_err(open_err)?;
        }
        _ => return Err(CacheError::Foreign { path: path.to_path_buf() }),
    }
    tx.commit().map_err(open_err)?;
    Ok(conn)
}

fn open_reader(path: &Path) -> Result<Reader, rusqlite::Error> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.pragma_update(None, "mmap_size", MMAP_SIZE)?;
    Ok(Reader(conn))
}
