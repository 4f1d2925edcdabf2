//! The writer thread and what it shares with the callers: stored rows wait in memory (where
//! lookups find them) until a batch is due by the [`CommitPolicy`], a flush or the shutdown;
//! a failed commit keeps them for another try.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use rusqlite::Connection;

use super::row::{Row, write_batch};
use super::{CacheError, CommitPolicy};

/// Rows kept in memory for another try after failed commits; beyond it a failed batch is dropped.
const MAX_RETAINED: usize = 1 << 16;

/// What the writer and the callers share, under [`Shared::state`].
#[derive(Default)]
pub(super) struct State {
    /// Stored rows not yet handed to the writer, by key hash.
    pub(super) pending: HashMap<i64, Row>,
    /// The batch the writer is committing (still looked up until it is committed).
    pub(super) flushing: Arc<HashMap<i64, Row>>,
    /// When the oldest row of `pending` was stored.
    pub(super) oldest: Option<Instant>,
    /// After a failed commit: not before this instant again unless asked.
    pub(super) retry_at: Option<Instant>,
    /// Stores accepted, and the number of the last one committed (or given up).
    pub(super) seq: u64,
    pub(super) done_seq: u64,
    /// Failed commits, the last one's error, and how many failures a caller was told about.
    pub(super) failures: u64,
    pub(super) last_error: Option<Arc<rusqlite::Error>>,
    pub(super) reported: u64,
    /// A caller waits in [`Cache::flush`].
    pub(super) flush_wanted: bool,
    /// The cache is closing: commit what is left and stop.
    pub(super) shutdown: bool,
}

impl State {
    /// The failures no caller was told about yet, as an error.
    pub(super) fn unreported(&mut self) -> Option<CacheError> {
        let error = self.last_error.clone().filter(|_| self.failures > self.reported)?;
        self.reported = self.failures;
        Some(CacheError::Commit(error))
    }
}

pub(super) struct Shared {
    pub(super) state: Mutex<State>,
    /// Wakes the writer: a first pending row, a full batch, a flush, the shutdown.
    pub(super) wake: Condvar,
    /// Wakes [`Cache::flush`]: a commit finished or failed.
    pub(super) done: Condvar,
    pub(super) policy: CommitPolicy,
    pub(super) hits: AtomicU64,
    pub(super) misses: AtomicU64,
    pub(super) stale: AtomicU64,
    pub(super) stores: AtomicU64,
    pub(super) commits: AtomicU64,
    /// Lookups that found the file gone (removed while the run went on): misses.
    pub(super) gone: AtomicU64,
}

impl Shared {
    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The writer thread: waits until a batch is due ([`CommitPolicy`], a flush, the shutdown),
/// commits it, and on failure keeps the rows for another try after `max_age`.
pub(super) fn run_writer(shared: &Shared, mut conn: Connection) {
    let policy = shared.policy;
    let mut st = shared.lock();
    loop {
        let Some(oldest) = st.oldest.filter(|_| !st.pending.is_empty()) else {
            st.flush_wanted = false;
            if st.shutdown {
                break;
            }
            st = shared.wake.wait(st).unwrap_or_else(PoisonError::into_inner);
            continue;
        };
        let now = Instant::now();
        let retry_at = st.retry_at.unwrap_or(now);
        let due = (oldest + policy.max_age).max(retry_at);
        let urgent =
            st.shutdown || st.flush_wanted || (st.pending.len() >= policy.max_rows && now >= retry_at);
        if !urgent && now < due {
            st = shared.wake.wait_timeout(st, due - now).unwrap_or_else(PoisonError::into_inner).0;
            continue;
        }
        let batch = Arc::new(std::mem::take(&mut st.pending));
        st.flushing = Arc::clone(&batch);
        st.oldest = None;
        st.flush_wanted = false;
        let (seq, shutdown) = (st.seq, st.shutdown);
        drop(st);
        let result = write_batch(&mut conn, &batch);
        st = shared.lock();
        st.flushing = Arc::default();
        match result {
            Ok(()) => {
                st.done_seq = seq;
                st.retry_at = None;
                shared.commits.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                st.failures += 1;
                st.last_error = Some(Arc::new(e));
                if shutdown || st.pending.len() + batch.len() > MAX_RETAINED {
                    // Given up: these analyses are done again by whoever needs them.
                    st.done_seq = seq;
                } else {
                    let batch = Arc::try_unwrap(batch).unwrap_or_else(|b| (*b).clone());
                    for (key, row) in batch {
                        // A newer store of the same key wins.
                        st.pending.entry(key).or_insert(row);
                    }
                    st.oldest = Some(st.oldest.map_or(oldest, |o| o.min(oldest)));
                    st.retry_at = Some(Instant::now() + policy.max_age);
                }
            }
        }
        shared.done.notify_all();
    }
}
