//! The CPU kernels' worker threads (native only): `threads() - 1` workers, each handed at most
//! one part of a split, that keep spinning for a while after their part before they park. A
//! training step runs hundreds of kernels of tens to hundreds of microseconds each, with a few
//! microseconds of bookkeeping between them; rayon's workers (the pool before this one) fell
//! asleep in those gaps, and waking one cost 10-35 us on this 2-core VM, as much as many of the
//! parts (an add over [768, 512] took 45 us on two threads and 33 on one; a LayerNorm run right
//! after a matmul 34 us more than alone). OpenMP's threads, which PyTorch's CPU kernels run on,
//! spin too (GOMP_SPINCOUNT). Callers that find the workers busy (another thread's split, or a
//! split inside a part) run their parts themselves, in order.

use std::any::Any;
use std::cell::UnsafeCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::{Mutex, OnceLock, TryLockError};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// How long a worker spins for its next part before it parks: `WEBTENSOR_CPU_SPIN_US`
/// microseconds when set (0: park at once, as a machine shared with other busy processes may
/// prefer), else 500 us, which covers the gaps between the kernels of a training step.
fn spin() -> Duration {
    static SPIN: OnceLock<Duration> = OnceLock::new();
    *SPIN.get_or_init(|| {
        let us = std::env::var("WEBTENSOR_CPU_SPIN_US").ok().and_then(|v| v.trim().parse::<u64>().ok());
        Duration::from_micros(us.unwrap_or(500))
    })
}

/// A part handed to a worker: the call to make with the part's index.
struct Job<'a> {
    run: &'a (dyn Fn(usize) + Sync),
    index: usize,
}

/// One worker's mailbox.
struct Slot {
    /// The job to run (a `Job` on the caller's stack, alive until `done`), or null.
    job: AtomicPtr<Job<'static>>,
    /// Set by the worker once the job ran (or panicked); cleared by the caller.
    done: AtomicBool,
    /// Whether the worker is parked or about to park (the caller then unparks it).
    parked: AtomicBool,
    /// A panic of the job, handed back to the caller.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// The worker's thread, to unpark.
    thread: OnceLock<Thread>,
}

/// The workers and the lock a split holds while it uses them.
struct Pool {
    slots: Vec<&'static Slot>,
    busy: Mutex<()>,
}

fn pool(workers: usize) -> Option<&'static Pool> {
    static POOL: OnceLock<Option<Pool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let mut slots = Vec::with_capacity(workers);
        for i in 0..workers {
            let slot: &'static Slot = Box::leak(Box::new(Slot {
                job: AtomicPtr::new(std::ptr::null_mut()),
                done: AtomicBool::new(false),
                parked: AtomicBool::new(false),
                panic: Mutex::new(None),
                thread: OnceLock::new(),
            }));
            let handle =
                std::thread::Builder::new().name(format!("webtensor-cpu-{i}")).spawn(move || work(slot)).ok()?;
            slot.thread.get_or_init(|| handle.thread().clone());
            slots.push(slot);
        }
        Some(Pool { slots, busy: Mutex::new(()) })
    })
    .as_ref()
}

/// A worker's loop: spin for a job, park when none came for [`spin`]'s time, run it, repeat.
fn work(slot: &'static Slot) {
    let spin = spin();
    loop {
        let started = Instant::now();
        let job = loop {
            let job = slot.job.load(Ordering::Acquire);
            if !job.is_null() {
                break job;
            }
            if started.elapsed() < spin {
                for _ in 0..64 {
                    std::hint::spin_loop();
                }
                continue;
            }
            // About to park: a caller that stores a job from now on sees `parked` and unparks
            // (and an unpark before the park makes the park return at once).
            slot.parked.store(true, Ordering::SeqCst);
            if slot.job.load(Ordering::SeqCst).is_null() {
                std::thread::park();
            }
            slot.parked.store(false, Ordering::SeqCst);
        };
        // SAFETY: the caller keeps the job alive until it sees `done`, and hands it to this
        // worker alone.
        let job = unsafe { &*job };
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| (job.run)(job.index))) {
            *crate::device::policy::lock(&slot.panic) = Some(p);
        }
        slot.job.store(std::ptr::null_mut(), Ordering::Relaxed);
        slot.done.store(true, Ordering::Release);
    }
}

/// Cells written by one thread each (item `i` by whoever runs part `i`).
struct Cells<T>(Vec<UnsafeCell<Option<T>>>);
// SAFETY: each cell is taken or written by the one thread that runs its part, and read by the
// caller only after every part finished (the `done` flags' release/acquire order the writes).
unsafe impl<T: Send> Sync for Cells<T> {}

impl<T> Cells<T> {
    /// Cell `i`.
    fn at(&self, i: usize) -> *mut Option<T> {
        self.0[i].get()
    }
}

/// `f` on every item, the first on the calling thread and one each on the workers; the results
/// in item order. `None` when there are no workers or they are busy: the caller then runs the
/// items itself.
pub(super) fn run<I: Send, R: Send>(
    items: Vec<I>,
    f: &(impl Fn(I) -> R + Sync),
    workers: usize,
) -> Result<Vec<R>, Vec<I>> {
    let Some(pool) = pool(workers) else { return Err(items) };
    if items.len() > pool.slots.len() + 1 {
        return Err(items);
    }
    // A part that panicked (the panic is handed back while this guard is held) poisons the lock;
    // the workers are fine, so a poisoned lock is taken as a free one.
    let _guard = match pool.busy.try_lock() {
        Ok(guard) => guard,
        Err(TryLockError::Poisoned(p)) => p.into_inner(),
        Err(TryLockError::WouldBlock) => return Err(items),
    };
    let n = items.len();
    let inputs = Cells(items.into_iter().map(|i| UnsafeCell::new(Some(i))).collect());
    let outputs: Cells<R> = Cells((0..n).map(|_| UnsafeCell::new(None)).collect());
    let (ins, outs) = (&inputs, &outputs);
    let part = move |i: usize| {
        // SAFETY: part i is run once, by one thread (see `Cells`).
        let item = unsafe { (*ins.at(i)).take() };
        if let Some(item) = item {
            let r = f(item);
            // SAFETY: as above.
            unsafe { *outs.at(i) = Some(r) };
        }
    };
    let jobs: Vec<Job<'_>> = (1..n).map(|index| Job { run: &part, index }).collect();
    for (slot, job) in pool.slots.iter().zip(&jobs) {
        slot.done.store(false, Ordering::Relaxed);
        // The worker sees the job only until it sets `done`, and this frame waits for that
        // below, also when its own part panics: the lifetime is erased for the mailbox alone.
        let ptr = job as *const Job<'_> as *mut Job<'static>;
        slot.job.store(ptr, Ordering::SeqCst);
        if slot.parked.load(Ordering::SeqCst) {
            if let Some(t) = slot.thread.get() {
                t.unpark();
            }
        }
    }
    let mine = catch_unwind(AssertUnwindSafe(|| part(0)));
    let mut panic = mine.err();
    for slot in pool.slots.iter().take(jobs.len()) {
        while !slot.done.load(Ordering::Acquire) {
            std::hint::spin_loop();
        }
        if let Some(p) = crate::device::policy::lock(&slot.panic).take() {
            panic.get_or_insert(p);
        }
    }
    if let Some(p) = panic {
        resume_unwind(p);
    }
    Ok(outputs.0.into_iter().filter_map(UnsafeCell::into_inner).collect())
}

#[cfg(test)]
mod tests {
    use super::run;

    /// `run`, or the items here when the workers are busy (other tests split too), as
    /// `par::run` does.
    fn go<R: Send>(items: Vec<usize>, f: &(impl Fn(usize) -> R + Sync), workers: usize) -> Vec<R> {
        run(items, f, workers).unwrap_or_else(|items| items.into_iter().map(f).collect())
    }

    /// Results come back in item order; a panic in any part reaches the caller once every part
    /// has finished; the workers serve the next split as before.
    #[test]
    fn parts_run_and_panics_come_back() {
        let workers = super::super::par::threads().saturating_sub(1).max(1);
        let items: Vec<usize> = (0..=workers).collect();
        assert_eq!(go(items.clone(), &|i| i * 10, workers), items.iter().map(|i| i * 10).collect::<Vec<_>>());
        let last = items.len() - 1;
        let caught = std::panic::catch_unwind(|| {
            go(items.clone(), &|i| if i == last { panic!("part {i}") } else { i }, workers)
        });
        assert!(caught.is_err(), "the part's panic reaches the caller");
        assert_eq!(go(items.clone(), &|i| i + 1, workers), items.iter().map(|i| i + 1).collect::<Vec<_>>());
    }
}
