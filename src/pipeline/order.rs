//! Releases results strictly in sequence order, whatever order the workers finish in, and bounds
//! how many chunks are in flight (read but not yet released): that bound, times the chunk size,
//! is the pipeline's memory bound.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex};

/// A counting gate: `acquire` blocks while `limit` chunks are in flight.
pub struct InFlight {
    state: Mutex<Gate>,
    freed: Condvar,
    limit: usize,
}

struct Gate {
    count: usize,
    /// Opened for good: the run is stopping and nobody may wait.
    open: bool,
}

impl InFlight {
    /// At most `limit` (at least 1) chunks in flight.
    pub fn new(limit: usize) -> InFlight {
        InFlight {
            state: Mutex::new(Gate { count: 0, open: false }),
            freed: Condvar::new(),
            limit: limit.max(1),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Gate> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for room, then takes a place.
    pub fn acquire(&self) {
        let mut g = self.lock();
        while g.count >= self.limit && !g.open {
            g = self.freed.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        g.count += 1;
    }

    /// Takes a place if there is room, without waiting.
    pub fn try_acquire(&self) -> bool {
        let mut g = self.lock();
        let room = g.count < self.limit || g.open;
        if room {
            g.count += 1;
        }
        room
    }

    /// Gives a place back.
    pub fn release(&self) {
        let mut g = self.lock();
        g.count = g.count.saturating_sub(1);
        self.freed.notify_one();
    }

    /// Lets every waiting and later `acquire` through (the run is stopping).
    pub fn open(&self) {
        self.lock().open = true;
        self.freed.notify_all();
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
        assert!(!gate.try_acquire(), "full again");
        gate.release();
        assert!(gate.try_acquire(), "room after release");
    }

    #[test]
    fn opened_gate_lets_everyone_through() {
        let gate = std::sync::Arc::new(InFlight::new(1));
        gate.acquire();
        let g = gate.clone();
        let t = std::thread::spawn(move || g.acquire());
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!t.is_finished(), "second acquire must wait");
        gate.open();
        t.join().expect("acquired once open");
        assert!(gate.try_acquire());
    }
}
