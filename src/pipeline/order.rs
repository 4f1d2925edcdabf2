//! Releases results strictly in sequence order, whatever order the workers finish in, and bounds
//! how many chunks are in flight (read but not yet released): that bound, times the chunk size,
//! is the pipeline's memory bound.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex};

/// A counting gate: `acquire` blocks while `limit` chunks are in flight.
pub struct InFlight {
    count: Mutex<usize>,
    freed: Condvar,
    limit: usize,
}

impl InFlight {
    /// At most `limit` (at least 1) chunks in flight.
    pub fn new(limit: usize) -> InFlight {
        InFlight { count: Mutex::new(0), freed: Condvar::new(), limit: limit.max(1) }
    }

    /// Waits for room, then takes a place.
    pub fn acquire(&self) {
        let mut n = self.count.lock().unwrap_or_else(|e| e.into_inner());
        while *n >= self.limit {
            n = self.freed.wait(n).unwrap_or_else(|e| e.into_inner());
        }
        *n += 1;
    }

    /// Gives a place back.
    pub fn release(&self) {
        let mut n = self.count.lock().unwrap_or_else(|e| e.into_inner());
        *n = n.saturating_sub(1);
        self.freed.notify_one();
    }
}

/// Holds results that arrive early until every earlier sequence number has been released.
pub struct Reorder<T> {
    next: u64,
    waiting: BTreeMap<u64, T>,
}

impl<T> Default for Reorder<T> {
    fn default() -> Reorder<T> {
        Reorder { next: 0, waiting: BTreeMap::new() }
    }
}

impl<T> Reorder<T> {
    /// Accepts result `seq` and passes every result now in order to `release`.
    pub fn push(&mut self, seq: u64, item: T, mut release: impl FnMut(T)) {
        self.waiting.insert(seq, item);
        while let Some(item) = self.waiting.remove(&self.next) {
            release(item);
            self.next += 1;
        }
    }

    /// Results still waiting for an earlier one.
    pub fn pending(&self) -> usize {
        self.waiting.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_in_order() {
        let mut r = Reorder::default();
        let mut out = Vec::new();
        for seq in [2u64, 0, 3, 1, 4] {
            r.push(seq, seq, |x| out.push(x));
        }
        assert_eq!(out, vec![0, 1, 2, 3, 4]);
        assert_eq!(r.pending(), 0);
    }

    #[test]
    fn gate_bounds_in_flight() {
        let gate = std::sync::Arc::new(InFlight::new(2));
        gate.acquire();
        gate.acquire();
        let g = gate.clone();
        let t = std::thread::spawn(move || g.acquire());
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!t.is_finished(), "third acquire must wait");
        gate.release();
        t.join().expect("acquired after release");
    }
}
