//! A watchdog for collectives the host does not wait for. NCCL enqueues a collective on the
//! device's stream and returns at once; when a peer rank dies, the collective never completes
//! and whatever next waits on the stream (a readback, `synchronize`) would wait forever. As
//! PyTorch's NCCL watchdog does, a thread here polls the collectives in flight (each through a
//! completion probe, such as a CUDA event recorded after it) and the backend's own error state
//! (`ncclCommGetAsyncError`, which reports a peer whose connection broke), and when one has been
//! pending longer than the group's timeout (`WEBTENSOR_DIST_TIMEOUT`) or the backend reports an
//! error, it stops the group through the backend's failure action, once, with a message that
//! says which collective on which rank and why. The NCCL backend's action aborts the
//! communicator, so kernels blocked in it return, and ends the process, as PyTorch does by
//! default: the tensors the collective was writing hold no result to go on with.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// Whether a watched collective has completed (`Ok(true)`), is still running (`Ok(false)`), or
/// failed (`Err` with the backend's account).
pub(crate) type Probe = Box<dyn FnMut() -> std::result::Result<bool, String> + Send>;

/// An error the backend reports by itself, polled every tick (`None` while healthy).
pub(crate) type Health = Box<dyn FnMut() -> Option<String> + Send>;

/// What the group does when the watchdog gives up, given the message.
pub(crate) type Failure = Box<dyn FnOnce(&str) + Send>;

/// How the watchdog is set up.
pub(crate) struct WatchdogOptions {
    /// Names the rank and the backend in messages ("rank 1 of 2 (nccl)").
    pub label: String,
    /// How long a collective may be pending.
    pub timeout: Duration,
    /// How often the thread looks.
    pub poll: Duration,
}

struct Watched {
    op: &'static str,
    since: Instant,
    done: Probe,
}

#[derive(Default)]
struct State {
    pending: VecDeque<Watched>,
    stop: bool,
    failed: Option<String>,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A probe that panicked leaves the queue as it was: go on with it.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The watchdog of one process group: its thread runs until the group drops it.
pub(crate) struct Watchdog {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    /// Starts the thread: every `options.poll` it drops the completed collectives, then fails
    /// the group if the oldest one still pending is older than `options.timeout`, a probe
    /// reports an error, or `health` does.
    pub(crate) fn start(options: WatchdogOptions, health: Health, fail: Failure) -> Result<Watchdog> {
        let shared = Arc::new(Shared { state: Mutex::new(State::default()), wake: Condvar::new() });
        let inner = shared.clone();
        let thread = std::thread::Builder::new()
            .name("webtensor-watchdog".into())
            .spawn(move || run(&inner, &options, health, fail))
            .map_err(|e| Error::invalid("init_process_group", format!("could not start the watchdog thread: {e}")))?;
        Ok(Watchdog { shared, thread: Some(thread) })
    }

    /// Watches collective `op`, just enqueued, until `done` reports it complete. Refused once
    /// the watchdog has failed the group (the message says why).
    pub(crate) fn watch(&self, op: &'static str, done: Probe) -> Result<()> {
        let mut s = self.shared.lock();
        if let Some(why) = &s.failed {
            return Err(Error::invalid(op, why.clone()));
        }
        s.pending.push_back(Watched { op, since: Instant::now(), done });
        Ok(())
    }

    /// Why the watchdog failed the group, if it has.
    pub(crate) fn failure(&self) -> Option<String> {
        self.shared.lock().failed.clone()
    }

    /// Collectives still pending (as of the last look).
    #[cfg(test)]
    fn pending(&self) -> usize {
        self.shared.lock().pending.len()
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.thread.take() {
            // The thread only ends; a panic in a probe has nothing left to report here.
            let _ = t.join();
        }
    }
}

/// The thread's loop (see [`Watchdog::start`]).
fn run(shared: &Shared, o: &WatchdogOptions, mut health: Health, fail: Failure) {
    let mut s = shared.lock();
    let why = loop {
        s = shared.wake.wait_timeout(s, o.poll).unwrap_or_else(PoisonError::into_inner).0;
        if s.stop {
            return;
        }
        if let Some(why) = look(&mut s.pending, o, &mut health) {
            s.failed = Some(why.clone());
            break why;
        }
    };
    drop(s);
    fail(&why);
}

/// One look: drops completed collectives, and says why the group fails if it does.
fn look(pending: &mut VecDeque<Watched>, o: &WatchdogOptions, health: &mut Health) -> Option<String> {
    let mut error = None;
    pending.retain_mut(|w| match (w.done)() {
        Ok(done) => !done,
        Err(e) => {
            error.get_or_insert_with(|| format!("{}: {} failed: {e}", o.label, w.op));
            false
        }
    });
    if let Some(e) = error {
        return Some(e);
    }
    if let Some(e) = health() {
        return Some(format!("{}: the communicator reported an error: {e} (another rank may have died)", o.label));
    }
    let oldest = pending.front()?;
    (oldest.since.elapsed() > o.timeout).then(|| {
        format!(
            "{}: {} has not completed after {:.0} s (WEBTENSOR_DIST_TIMEOUT, seconds): another rank may have died, \
             or stopped calling the same collectives in the same order",
            o.label,
            oldest.op,
            o.timeout.as_secs_f64()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::mpsc;

    fn options(timeout_ms: u64) -> WatchdogOptions {
        WatchdogOptions {
            label: "rank 1 of 2 (test)".into(),
            timeout: Duration::from_millis(timeout_ms),
            poll: Duration::from_millis(10),
        }
    }

    /// A watchdog whose failure action sends its message on the returned channel.
    fn started(timeout_ms: u64, health: Health) -> (Watchdog, mpsc::Receiver<String>) {
        let (tx, rx) = mpsc::channel();
        let fail: Failure = Box::new(move |why: &str| {
            let _ = tx.send(why.to_string());
        });
        (Watchdog::start(options(timeout_ms), health, fail).unwrap(), rx)
    }

    #[test]
    fn completed_collectives_are_dropped_and_nothing_fails() {
        let (w, rx) = started(100, Box::new(|| None));
        let done = Arc::new(AtomicBool::new(false));
        let d = done.clone();
        w.watch("all_reduce", Box::new(move || Ok(d.load(Ordering::SeqCst)))).unwrap();
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(w.pending(), 1);
        done.store(true, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(w.pending(), 0);
        assert!(rx.try_recv().is_err(), "no failure past the timeout once the collective completed");
        assert!(w.failure().is_none());
    }

    #[test]
    fn a_collective_pending_past_the_timeout_fails_the_group_once() {
        let (w, rx) = started(150, Box::new(|| None));
        let t0 = Instant::now();
        w.watch("broadcast", Box::new(|| Ok(true))).unwrap();
        w.watch("all_reduce", Box::new(|| Ok(false))).unwrap();
        let why = rx.recv_timeout(Duration::from_secs(5)).expect("the watchdog fails the group");
        let waited = t0.elapsed();
        assert!(waited >= Duration::from_millis(150) && waited < Duration::from_secs(2), "failed after {waited:?}");
        assert!(
            why.contains("rank 1 of 2 (test)") && why.contains("all_reduce") && why.contains("WEBTENSOR_DIST_TIMEOUT"),
            "{why}"
        );
        assert!(rx.recv_timeout(Duration::from_millis(100)).is_err(), "the failure action runs once");
        assert_eq!(w.failure().as_deref(), Some(why.as_str()));
        let refused = w.watch("barrier", Box::new(|| Ok(true))).unwrap_err().to_string();
        assert!(refused.contains("barrier") && refused.contains("all_reduce"), "{refused}");
    }

    #[test]
    fn the_backends_own_error_fails_the_group_before_the_timeout() {
        let calls = Arc::new(Mutex::new(0));
        let c = calls.clone();
        let health: Health = Box::new(move || {
            let mut n = c.lock().unwrap();
            *n += 1;
            (*n >= 3).then(|| "ncclRemoteError".to_string())
        });
        let (w, rx) = started(60_000, health);
        w.watch("all_gather", Box::new(|| Ok(false))).unwrap();
        let why = rx.recv_timeout(Duration::from_secs(5)).expect("the error fails the group");
        assert!(why.contains("ncclRemoteError") && why.contains("rank 1 of 2"), "{why}");
    }

    #[test]
    fn a_probe_error_names_the_collective() {
        let (_w, rx) = started(60_000, Box::new(|| None));
        _w.watch("reduce_scatter", Box::new(|| Err("an illegal memory access".into()))).unwrap();
        let why = rx.recv_timeout(Duration::from_secs(5)).expect("the probe's error fails the group");
        assert!(why.contains("reduce_scatter failed: an illegal memory access"), "{why}");
    }

    #[test]
    fn dropping_the_watchdog_stops_its_thread_without_failing() {
        let (w, rx) = started(50, Box::new(|| None));
        w.watch("all_reduce", Box::new(|| Ok(false))).unwrap();
        let t0 = Instant::now();
        drop(w);
        assert!(t0.elapsed() < Duration::from_secs(1));
        // The timeout had not passed when it was dropped.
        assert!(rx.recv_timeout(Duration::from_millis(100)).is_err());
    }
}
