//! Runs a job's workers over the chunks and releases their outputs in input order, on the
//! calling thread. With N threads, the calling thread is one of the N workers: only N threads
//! are runnable, so no wakeup preempts a worker (with a separate releaser and reader, `check -j2`
//! on 2 cores switched ~780 times per 100 MB and moved workers between cores). Chunks of a mapped
//! input are cut on demand by whichever thread takes one. A stream (reading may decompress) is
//! read ahead: on its own thread when a core is left for it, else by the releasing thread between
//! its own chunks ([`Reading`]). At most 4N + 4 chunks are taken and not yet released, and a
//! stream holds up to 2N + 2 more read ahead: that, times the chunk size, bounds memory.

use std::sync::Mutex;

use super::order::{InFlight, Reorder};
use super::{Cancel, Job, Panic, PipelineError, Run, panic_message};

/// An input cut on demand: the next item goes to whoever asks, with its sequence number.
struct Inline<I> {
    items: I,
    next_seq: u64,
    /// The first read error; nothing is taken after it.
    error: Option<std::io::Error>,
}

/// Where a thread takes its next item from.
enum Feed<'f, I, T> {
    Inline(&'f Mutex<Inline<I>>),
    Ahead(crossbeam_channel::Receiver<(u64, T)>),
}

impl<I, T> Clone for Feed<'_, I, T> {
    fn clone(&self) -> Self {
        match self {
            Feed::Inline(m) => Feed::Inline(m),
            Feed::Ahead(rx) => Feed::Ahead(rx.clone()),
        }
    }
}

impl<I: Iterator<Item = std::io::Result<T>>, T> Feed<'_, I, T> {
    /// The next item, or `None` at the end of the input or after a read error.
    fn take(&self) -> Option<(u64, T)> {
        match self {
            Feed::Inline(m) => {
                let mut inline = m.lock().unwrap_or_else(|e| e.into_inner());
                if inline.error.is_some() {
                    return None;
                }
                match inline.items.next()? {
                    Ok(item) => {
                        let seq = inline.next_seq;
                        inline.next_seq += 1;
                        Some((seq, item))
                    }
                    Err(e) => {
                        inline.error = Some(e);
                        None
                    }
                }
            }
            Feed::Ahead(rx) => rx.recv().ok(),
        }
    }
}

/// How the threads get their items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// Cut on demand by whichever thread takes one (a mapped input: cutting is cheap).
    OnDemand,
    /// Read ahead on a thread of their own (a stream, with a core to spare for it).
    Thread,
    /// Read ahead by the releasing thread between its own items (a stream, every core busy
    /// working): a reading thread would be a third runnable thread on two cores, preempting a
    /// worker ~300 times per 100 MB of `.zst` (`check -j2` of the `.zst` corpus: this is 2.5-4.7%
    /// faster by the median, 2.6-3.1% by the best run, in two series of 41 alternating runs).
    Releaser,
}

impl Reading {
    /// How a run on `threads` threads reads a stream (`stream`) or a mapped input. The releasing
    /// thread reads only for a few threads: one thread decodes zstd about 6 times as fast as one
    /// worker checks the text, so feeding 3 helpers takes about half its time, and more would
    /// leave it none to work (a thread of its own, time-sliced, then costs the workers less).
    fn choose(stream: bool, threads: usize) -> Reading {
        let cores = super::cores();
        match stream {
            false => Reading::OnDemand,
            true if threads >= cores && threads <= 4 => Reading::Releaser,
            true => Reading::Thread,
        }
    }
}

/// Runs `work` over `items` on `run.opts.threads` threads (one: the calling thread alone, which
/// a stream's reading thread feeds when a core is left for it) and hands each item with its
/// output to `release` in input order, on the calling thread; `stream`: reading the items may
/// take time (it may decompress), so they are read ahead. Each thread takes a worker from
/// `run.workers` (or makes one) and gives it back at the end; a worker that cannot be made stops
/// the run with its error. `cancel` is set when the run stops.
pub(super) fn drive<J: Job, T: Send, O: Send>(
    mut items: impl Iterator<Item = std::io::Result<T>> + Send,
    stream: bool,
    run: &Run<'_, J>,
    cancel: &Cancel<'_>,
    work: impl Fn(&mut J::Worker, u64, &T) -> O + Sync,
    mut release: impl FnMut(u64, T, O) -> Result<(), PipelineError>,
) -> Result<(), PipelineError> {
    let threads = run.opts.threads.max(1);
    let reading = Reading::choose(stream, threads);
    // One thread with a spare core reads a stream on another: decoding overlaps the work.
    if threads > 1 || reading == Reading::Thread {
        return threaded(items, reading, run, threads, cancel, work, release);
    }
    let mut worker = run.workers.take(run.job).map_err(PipelineError::Job)?;
    let mut result = Ok(());
    // The one thread has nothing else to do while a stream pauses: it asks again.
    for (seq, item) in (0u64..).zip(items.by_ref().filter(|i| !i.as_ref().is_err_and(paused))) {
        result = item.map_err(PipelineError::Read).and_then(|item| {
            let out = work(&mut worker, seq, &item);
            release(seq, item, out)
        });
        if result.is_err() {
            break;
        }
    }
    run.workers.put(worker);
    result
}

/// How long the releasing thread waits on the helpers' outputs before it reads a paused stream
/// again: a pause's length, as a read of a paused stream waits. The unit tests' streams pause
/// without waiting: the steps taken do not depend on the wait's length, the time asleep does
/// (`same_numbers_at_any_thread_count_cut_and_input_kind`: 15-17 s at 50 ms, 4-7 s at 2 ms).
const RETRY: std::time::Duration =
    if cfg!(test) { std::time::Duration::from_millis(2) } else { crate::io::PAUSE };

/// The stream paused: nothing yet, ask again ([`super::stream::Refill::next_with`]).
fn paused(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::WouldBlock
}

/// Chunks taken and not yet released, at most. The releasing thread also works, so a wait on
/// its chunk holds back every later one: with a stream, it shares its core with the reading
/// thread, and at 2N + 1 the other workers found the gate shut while cores stood idle (`.zst`
/// `check -j2` 2% slower than at 4N + 4, `perf sched timehist`).
fn in_flight_limit(threads: usize) -> usize {
    4 * threads + 4
}

/// Items read ahead for the takers, at most. The releasing thread reading (`Reading::Releaser`)
/// queues this many: room for every helper to take two while it works on one. A reading thread
/// (`Reading::Thread`) holds fewer: `threads` queued and one waiting to be sent.
fn read_ahead_limit(threads: usize) -> usize {
    2 * threads + 2
}

/// Stream items read and not yet released, at most: in flight, read ahead, one being read and
/// one the releaser holds back to join to the next (`Verifier`).
pub(super) fn unreleased_limit(threads: usize) -> usize {
    in_flight_limit(threads) + read_ahead_limit(threads) + 2
}

/// How [`Ahead::top_up`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TopUp {
    /// The channel is full.
    Full,
    /// The stream paused: nothing more yet.
    Paused,
    /// The input ended.
    Ended,
}

/// Items read ahead by the releasing thread, for every thread to take.
struct Ahead<I, T> {
    items: I,
    tx: crossbeam_channel::Sender<(u64, T)>,
    next_seq: u64,
}

impl<I: Iterator<Item = std::io::Result<T>>, T> Ahead<I, T> {
    /// Reads until the channel is full ([`TopUp::Full`]), the stream pauses (the releasing
    /// thread then releases what is done before it reads on) or ends (the channel then ends
    /// once emptied, when this is dropped).
    fn top_up(&mut self) -> std::io::Result<TopUp> {
        while !self.tx.is_full() {
            match self.items.next() {
                Some(Err(e)) if paused(&e) => return Ok(TopUp::Paused),
                Some(item) => {
                    // Cannot block (not full, and this is the only sender) nor fail (a receiver
                    // is alive in the caller).
                    let _ = self.tx.send((self.next_seq, item?));
                    self.next_seq += 1;
                }
                None => return Ok(TopUp::Ended),
            }
        }
        Ok(TopUp::Full)
    }
}

/// Runs `work` over `items` on `threads` threads and hands each item with its
/// output to `release` in input order, on the calling thread, the items read as `reading` says.
fn threaded<J: Job, T: Send, O: Send>(
    items: impl Iterator<Item = std::io::Result<T>> + Send,
    reading: Reading,
    run: &Run<'_, J>,
    threads: usize,
    cancel: &Cancel<'_>,
    work: impl Fn(&mut J::Worker, u64, &T) -> O + Sync,
    release: impl FnMut(u64, T, O) -> Result<(), PipelineError>,
) -> Result<(), PipelineError> {
    let mut worker = run.workers.take(run.job).map_err(PipelineError::Job)?;
    let gate = InFlight::new(in_flight_limit(threads));
    // A helper whose worker could not be made: the run stops with its error.
    let helper_failure: Mutex<Option<PipelineError>> = Mutex::new(None);
    let (done_tx, done_rx) = crossbeam_channel::unbounded::<(u64, (u64, T, O))>();
    let (work, gate, helper_failure) = (&work, &gate, &helper_failure);
    let stopped = || cancel_stopped(cancel);
    let (ahead, on_demand) =
        if reading == Reading::OnDemand { (None, Some(items)) } else { (Some(items), None) };
    let inline = Mutex::new(Inline { items: on_demand.into_iter().flatten(), next_seq: 0, error: None });

    let failure = std::thread::scope(|s| {
        // The releasing thread's own reading, and why it stopped early.
        let mut own: Option<Ahead<_, _>> = None;
        let mut own_error = None;
        let (feed, producer) = match ahead {
            Some(items) if reading == Reading::Releaser => {
                let (tx, rx) = crossbeam_channel::bounded(read_ahead_limit(threads));
                own = Some(Ahead { items, tx, next_seq: 0 });
                (Feed::Ahead(rx), None)
            }
            Some(items) => {
                let (tx, rx) = crossbeam_channel::bounded(threads);
                let producer = s.spawn(move || -> Result<(), PipelineError> {
                    // A thread that only reads asks a paused stream again.
                    for (seq, item) in (0u64..).zip(items.filter(|i| !i.as_ref().is_err_and(paused))) {
                        if tx.send((seq, item?)).is_err() {
                            break; // every taker stopped
                        }
                    }
                    Ok(())
                });
                (Feed::Ahead(rx), Some(producer))
            }
            None => (Feed::Inline(&inline), None),
        };
        let home = placement::current_cpu();
        for helper in 1..threads {
            let (feed, done_tx) = (feed.clone(), done_tx.clone());
            s.spawn(move || {
                placement::spread(home, helper);
                let mut worker = match run.workers.take(run.job) {
                    Ok(w) => w,
                    Err(e) => {
                        helper_failure
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .get_or_insert(PipelineError::Job(e));
                        cancel.set();
                        gate.open();
                        return;
                    }
                };
                loop {
                    gate.acquire(); // opened only after `cancel` is set
                    if cancel_stopped(cancel) {
                        break;
                    }
                    let Some((seq, item)) = feed.take() else {
                        gate.release();
                        break;
                    };
                    let out = work(&mut worker, seq, &item);
                    if done_tx.send((seq, (seq, item, out))).is_err() {
                        break; // the releaser stopped
                    }
                }
                run.workers.put(worker);
            });
        }
        drop(done_tx);

        let mut releaser = Releaser { reorder: Reorder::default(), gate, release, failure: None };
        let mut feed = Some(feed);
        // The stream paused: the releasing thread reads again once it has nothing else to do,
        // not between every two outputs (each read of a paused stream waits for it a while).
        let mut paused = false;
        while releaser.failure.is_none() && !stopped() {
            if let Some(a) = &mut own
                && !paused
            {
                match a.top_up() {
                    Ok(TopUp::Full) => {}
                    Ok(TopUp::Paused) => paused = true,
                    Ok(TopUp::Ended) => own = None,
                    Err(e) => {
                        own_error = Some(PipelineError::Read(e));
                        own = None;
                    }
                }
            }
            if let Ok((seq, done)) = done_rx.try_recv() {
                releaser.push(seq, done);
                continue;
            }
            if let Some(f) = &feed
                && gate.try_acquire()
            {
                let taken = match f {
                    // While it reads, the releasing thread must not wait for an item: it makes them.
                    Feed::Ahead(rx) if own.is_some() => rx.try_recv().ok(),
                    // A reading thread's next item or a helper's output, whichever comes first:
                    // a stream that pauses must not hold back what the helpers finished.
                    Feed::Ahead(rx) if threads > 1 => crossbeam_channel::select! {
                        recv(rx) -> item => item.ok(),
                        recv(done_rx) -> done => {
                            gate.release();
                            match done {
                                Ok((seq, done)) => releaser.push(seq, done),
                                Err(_) => break,
                            }
                            continue;
                        }
                    },
                    _ => f.take(),
                };
                match taken {
                    // The helpers took them all; a paused stream is read again after a helper's
                    // output or a pause's length, whichever comes first.
                    None if own.is_some() => {
                        gate.release();
                        if paused {
                            match done_rx.recv_timeout(RETRY) {
                                Ok((seq, done)) => releaser.push(seq, done),
                                Err(_) => paused = false,
                            }
                        }
                    }
                    Some((seq, item)) => {
                        let out = work(&mut worker, seq, &item);
                        releaser.push(seq, (seq, item, out));
                    }
                    None => {
                        gate.release();
                        feed = None;
                    }
                }
                continue;
            }
            // Nothing to take: wait for a helper's output (none left when all have finished).
            match done_rx.recv() {
                Ok((seq, done)) => releaser.push(seq, done),
                Err(_) => break,
            }
        }
        // Stop the helpers and the reader (a failure leaves them mid-input).
        cancel.set();
        gate.open();
        drop((feed, done_rx, own));
        let produced = producer.map_or(Ok(()), |p| {
            p.join().unwrap_or_else(|p| Err(Panic { offset: 0, message: panic_message(p) }.into()))
        });
        releaser.failure.map_or(own_error.map_or(produced, Err), Err)
    });
    run.workers.put(worker);
    let helper = helper_failure.lock().unwrap_or_else(|e| e.into_inner()).take();
    let read_error = inline.into_inner().unwrap_or_else(|e| e.into_inner()).error;
    // A helper's failure to start is the cause of a stop it made.
    helper.map_or(failure, Err).and(read_error.map_or(Ok(()), |e| Err(PipelineError::Read(e))))
}

/// Whether the run was stopped by a failure (not an interrupt: the releaser sees that itself,
/// at a chunk boundary, so every chunk before is released).
fn cancel_stopped(cancel: &Cancel<'_>) -> bool {
    cancel.is_stopped()
}

/// Where helper threads start. Linux (seen on the 2-vCPU VM, kernel 6.18) may start a new thread
/// on its parent's CPU and leave the two sharing it until the next load balance: 2-3.5 ms of
/// one core idle at the start of every `-j2` run (a timeline of chunk work showed it in 7 runs
/// of 8). Moving each helper to another allowed CPU once, then giving its mask back, removes that.
mod placement {
    #[cfg(target_os = "linux")]
    use nix::sched::{CpuSet, sched_getaffinity, sched_getcpu, sched_setaffinity};
    #[cfg(target_os = "linux")]
    use nix::unistd::Pid;

    /// The CPU the calling thread runs on, if the system says.
    pub(super) fn current_cpu() -> Option<usize> {
        #[cfg(target_os = "linux")]
        return sched_getcpu().ok();
        #[cfg(not(target_os = "linux"))]
        None
    }

    /// Moves the calling thread, helper number `helper` (from 1), to an allowed CPU other than
    /// `home` (the releasing thread's), then restores its mask so the scheduler stays free to
    /// move it. Does nothing where a CPU cannot be chosen.
    pub(super) fn spread(home: Option<usize>, helper: usize) {
        #[cfg(target_os = "linux")]
        {
            let (Some(home), Ok(allowed)) = (home, sched_getaffinity(Pid::from_raw(0))) else { return };
            let others = (0..CpuSet::count()).filter(|&c| c != home && allowed.is_set(c).unwrap_or(false));
            // Helpers beyond the CPUs there are wrap around (`cycle` of none is none).
            let Some(cpu) = others.cycle().nth(helper - 1) else { return };
            let mut one = CpuSet::new();
            if one.set(cpu).is_ok() && sched_setaffinity(Pid::from_raw(0), &one).is_ok() {
                let _ = sched_setaffinity(Pid::from_raw(0), &allowed);
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (home, helper);
    }
}

/// Releases outputs in sequence order and frees a gate place for each; keeps the first failure.
struct Releaser<'g, T, O, R> {
    reorder: Reorder<(u64, T, O)>,
    gate: &'g InFlight,
    release: R,
    failure: Option<PipelineError>,
}

impl<T, O, R: FnMut(u64, T, O) -> Result<(), PipelineError>> Releaser<'_, T, O, R> {
    fn push(&mut self, seq: u64, done: (u64, T, O)) {
        let (gate, release, failure) = (self.gate, &mut self.release, &mut self.failure);
        self.reorder.push(seq, done, |(seq, item, out)| {
            gate.release();
            if failure.is_none()
                && let Err(e) = release(seq, item, out)
            {
                *failure = Some(e);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::pipeline::{ChunkInput, Cuts, NoProgress, Options, Output, Worker, Workers};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A job whose workers count the items they took.
    struct Counting(AtomicUsize);
    struct CountingWorker<'c>(&'c AtomicUsize);
    impl<'c> Job for &'c Counting {
        type Worker = CountingWorker<'c>;
        fn cuts(&self) -> Cuts {
            Cuts::Exact
        }
        fn worker(&self) -> Result<CountingWorker<'c>, Error> {
            Ok(CountingWorker(&self.0))
        }
    }
    impl Worker for CountingWorker<'_> {
        type Records = ();
        fn process(&mut self, _: &ChunkInput<'_>) -> Result<Output<()>, Error> {
            Ok(Output::default())
        }
    }

    /// Calls `f` with a [`Run`] of `job` on `threads` threads.
    fn with_run<'c, R>(
        job: &&'c Counting,
        threads: usize,
        f: impl FnOnce(&Run<'_, &'c Counting>, &Cancel<'_>) -> R,
    ) -> R {
        let workers = Workers::default();
        let opts = Options { threads, chunk_size: 1 };
        let run = Run { name: &"t".into(), job, workers: &workers, opts: &opts, observer: &NoProgress };
        let cancel = Cancel::new(&NoProgress);
        f(&run, &cancel)
    }

    const READINGS: [Reading; 3] = [Reading::OnDemand, Reading::Thread, Reading::Releaser];

    /// Runs `n` items (item `fail_at` a read error) and returns what was released, in order.
    fn run(
        n: u64,
        fail_at: Option<u64>,
        reading: Reading,
        threads: usize,
        stop_after: Option<usize>,
    ) -> (Vec<u64>, Result<(), PipelineError>, usize) {
        let job = Counting(AtomicUsize::new(0));
        let items =
            (0..n).map(move |i| if Some(i) == fail_at { Err(std::io::Error::other("bad")) } else { Ok(i) });
        let mut released = Vec::new();
        let r = with_run(&&job, threads, |run, cancel| {
            threaded(
                items,
                reading,
                run,
                threads,
                cancel,
                |w: &mut CountingWorker<'_>, seq, &item: &u64| {
                    w.0.fetch_add(1, Ordering::Relaxed);
                    // Uneven work, so outputs arrive out of order.
                    std::thread::sleep(std::time::Duration::from_micros((seq * 7919 % 5) * 100));
                    item * 10
                },
                |seq, item, out| {
                    assert_eq!((item, out), (seq, seq * 10), "item and output travel together");
                    released.push(seq);
                    match stop_after {
                        Some(k) if released.len() == k => {
                            Err(PipelineError::Release(Error::Internal("full")))
                        }
                        _ => Ok(()),
                    }
                },
            )
        });
        (released, r, job.0.load(Ordering::Relaxed))
    }

    #[test]
    fn everything_released_in_order() {
        for reading in READINGS {
            for threads in [1, 2, 3, 8] {
                let (released, r, worked) = run(300, None, reading, threads, None);
                assert!(r.is_ok(), "{r:?}");
                assert_eq!(released, (0..300).collect::<Vec<_>>(), "t{threads} {reading:?}");
                assert_eq!(worked, 300);
            }
        }
    }

    #[test]
    fn a_stream_holds_at_most_the_unreleased_limit() {
        for reading in [Reading::Thread, Reading::Releaser] {
            for threads in [1, 2, 3] {
                let read = AtomicUsize::new(0);
                let items = (0..400u64).map(|i| {
                    read.fetch_add(1, Ordering::Relaxed);
                    Ok(i)
                });
                let (job, mut released) = (Counting(AtomicUsize::new(0)), 0usize);
                let r = with_run(&&job, threads, |run, cancel| {
                    threaded(
                        items,
                        reading,
                        run,
                        threads,
                        cancel,
                        // Every 50th item slow, so the others and the reading run ahead as far as
                        // they may while it is worked on.
                        |_: &mut CountingWorker<'_>, seq, _: &u64| {
                            if seq % 50 == 0 {
                                std::thread::sleep(std::time::Duration::from_millis(10))
                            }
                        },
                        |_, _, ()| {
                            let held = read.load(Ordering::Relaxed) - released;
                            assert!(held <= unreleased_limit(threads), "{held} held, t{threads} {reading:?}");
                            released += 1;
                            Ok(())
                        },
                    )
                });
                assert!(r.is_ok() && released == 400, "{r:?}");
            }
        }
    }

    #[test]
    fn read_error_ends_the_run_after_the_items_before_it() {
        for reading in READINGS {
            for threads in [1, 2, 4] {
                let (released, r, _) = run(300, Some(120), reading, threads, None);
                assert!(matches!(r, Err(PipelineError::Read(_))), "{r:?}");
                assert_eq!(released, (0..120).collect::<Vec<_>>(), "t{threads} {reading:?}");
            }
        }
    }

    #[test]
    fn release_failure_stops_the_workers() {
        for reading in READINGS {
            for threads in [1, 2, 4] {
                let (released, r, worked) = run(10_000, None, reading, threads, Some(5));
                assert!(matches!(r, Err(PipelineError::Release(Error::Internal("full")))), "{r:?}");
                assert_eq!(released, (0..5).collect::<Vec<_>>());
                // The gate lets at most in_flight_limit(threads) items past the last release.
                assert!(worked <= 5 + in_flight_limit(threads), "{worked} items worked on");
            }
        }
    }

    #[test]
    fn a_stream_is_read_by_the_releasing_thread_when_every_core_works() {
        let cores = crate::pipeline::cores();
        assert_eq!(Reading::choose(false, cores.max(2)), Reading::OnDemand);
        let busy = cores.max(2);
        let expected = if busy <= 4 { Reading::Releaser } else { Reading::Thread };
        assert_eq!(Reading::choose(true, busy), expected);
        assert_eq!(Reading::choose(true, busy.max(5)), Reading::Thread, "too many workers to feed");
        if cores > 2 {
            assert_eq!(Reading::choose(true, 2), Reading::Thread, "a core to spare");
        }
    }

    /// One worker with a core to spare: the stream is read on another thread, so decoding
    /// overlaps the work; on one core, everything runs on the calling thread.
    #[test]
    fn one_worker_reads_a_stream_on_another_thread_when_a_core_is_free() {
        let caller = std::thread::current().id();
        let readers = Mutex::new(Vec::new());
        let items = (0..50u64).map(|i| {
            readers.lock().unwrap().push(std::thread::current().id());
            Ok(i)
        });
        let (job, mut released) = (Counting(AtomicUsize::new(0)), Vec::new());
        let r = with_run(&&job, 1, |run, cancel| {
            drive(
                items,
                true,
                run,
                cancel,
                |_: &mut CountingWorker<'_>, _, &i: &u64| i,
                |seq, _, out| {
                    released.push((seq, out));
                    Ok(())
                },
            )
        });
        assert!(r.is_ok(), "{r:?}");
        assert_eq!(released, (0..50).map(|i| (i, i)).collect::<Vec<_>>());
        let readers = readers.into_inner().unwrap();
        let elsewhere = readers.iter().all(|&t| t != caller);
        assert_eq!(elsewhere, crate::pipeline::cores() > 1, "read on the caller: {}", !elsewhere);
    }

    /// A helper moved off the releasing thread's CPU ends with the mask it started with, on a
    /// CPU that mask allows (one other than `home` when the mask has one).
    #[cfg(target_os = "linux")]
    #[test]
    fn spread_moves_a_helper_and_restores_its_mask() {
        use nix::sched::{sched_getaffinity, sched_getcpu};
        use nix::unistd::Pid;
        let home = placement::current_cpu();
        assert!(home.is_some(), "sched_getcpu works on Linux");
        let before = sched_getaffinity(Pid::from_raw(0)).expect("mask");
        std::thread::spawn(move || {
            placement::spread(home, 1);
            let after = sched_getaffinity(Pid::from_raw(0)).expect("mask");
            assert_eq!(after, before, "mask restored");
            let cpu = sched_getcpu().expect("cpu");
            assert!(after.is_set(cpu).expect("in range"), "runs on an allowed CPU");
        })
        .join()
        .expect("helper");
        // With no CPU to choose, it does nothing.
        placement::spread(None, 1);
        assert_eq!(sched_getaffinity(Pid::from_raw(0)).expect("mask"), before);
    }
}
