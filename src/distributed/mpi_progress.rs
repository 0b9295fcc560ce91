//! Progress for the MPI backend's non-blocking collectives. MPI advances a collective only
//! inside MPI calls, so a bucket's all-reduce started during backward would sit still until
//! the next MPI call (the next bucket, or the wait after backward) and the overlap DDP is for
//! would not happen. One thread per group tests the pending requests every few tens of
//! microseconds while any are pending (and sleeps otherwise), as PyTorch's MPI process group
//! runs its collectives on a worker thread.

use std::ffi::c_int;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use mpi::ffi;

use crate::device::policy::lock;
use crate::error::{Error, Result};

/// Set when the group finalises MPI: a request outliving it (a `Work` dropped later) must not
/// be tested any more.
pub(super) static FINALIZED: AtomicBool = AtomicBool::new(false);

/// An MPI request handle (a pointer in Open MPI), touched only under the group's call lock.
struct RawReq(ffi::MPI_Request);

// SAFETY: the handle is only passed to MPI under the call lock (MPI_THREAD_SERIALIZED).
unsafe impl Send for RawReq {}

/// One started collective's request, shared by its `Work` and the progress thread.
pub(super) struct Pending {
    req: Mutex<RawReq>,
    done: AtomicBool,
}

impl Pending {
    /// Whether the collective has completed, testing it (under `calls`) if not known yet. MPI
    /// sets a completed request to `MPI_REQUEST_NULL`, which tests as complete, so either
    /// thread may test it any number of times.
    pub(super) fn test(&self, calls: &Mutex<()>) -> Result<bool> {
        if self.done.load(Ordering::Acquire) {
            return Ok(true);
        }
        let _serial = lock(calls);
        if FINALIZED.load(Ordering::Acquire) {
            return Err(Error::invalid(
                "mpi",
                "the process group was destroyed (MPI finalised) before this collective completed",
            ));
        }
        let mut req = lock(&self.req);
        let mut flag: c_int = 0;
        // SAFETY: the handle came from a started collective and is tested under the lock.
        let rc = unsafe { ffi::MPI_Test(&mut req.0, &mut flag, ffi::RSMPI_STATUS_IGNORE) };
        if rc != 0 {
            return Err(Error::invalid("mpi", format!("MPI_Test failed with MPI error code {rc}")));
        }
        if flag != 0 {
            self.done.store(true, Ordering::Release);
        }
        Ok(flag != 0)
    }
}

/// The progress thread and the requests it tests.
pub(super) struct Progress {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

struct Shared {
    calls: Arc<Mutex<()>>,
    pending: Mutex<Vec<Arc<Pending>>>,
    stop: AtomicBool,
}

impl Progress {
    /// Starts the thread; it stops when the `Progress` is dropped.
    pub(super) fn start(calls: Arc<Mutex<()>>) -> Progress {
        let shared = Arc::new(Shared { calls, pending: Mutex::new(Vec::new()), stop: AtomicBool::new(false) });
        let s = shared.clone();
        let thread = std::thread::Builder::new()
            .name("webtensor-mpi-progress".into())
            .spawn(move || {
                while !s.stop.load(Ordering::Acquire) {
                    let list: Vec<Arc<Pending>> = lock(&s.pending).clone();
                    if list.is_empty() {
                        std::thread::sleep(Duration::from_micros(200));
                        continue;
                    }
                    for p in &list {
                        // An error here is the waiter's to report (it tests the same request).
                        let _ = p.test(&s.calls);
                    }
                    lock(&s.pending).retain(|p| !p.done.load(Ordering::Acquire));
                    std::thread::sleep(Duration::from_micros(20));
                }
            })
            .ok();
        Progress { shared, thread }
    }

    /// Registers a started request (`req` from the `MPI_I*` call) and returns its handle.
    pub(super) fn track(&self, req: ffi::MPI_Request) -> Arc<Pending> {
        let p = Arc::new(Pending { req: Mutex::new(RawReq(req)), done: AtomicBool::new(false) });
        lock(&self.shared.pending).push(p.clone());
        p
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
