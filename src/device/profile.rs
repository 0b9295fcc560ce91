//! An op-level profiler (native only), a small `torch.profiler`: while it is on, every kernel
//! call waits for its device to finish and its wall time is added to the row of its op
//! (`matmul`, `add`, `scaled_dot_product_attention_backward`, `optimizer step`, ...), so a
//! table of where a step's time goes can be read on any backend without vendor tools. The
//! waits serialise the device and add about a launch's latency to each call: the rows say
//! which ops dominate, not what the step costs unprofiled. On with [`set_profiling`] or
//! `WEBTENSOR_PROFILE=1`; read with [`profile_report`], cleared with [`reset_profile`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use crate::device::policy::lock;

/// 0 = not yet read from the environment, 1 = off, 2 = on.
static ON: AtomicU8 = AtomicU8::new(0);
/// Per op: calls and total time.
static ROWS: Mutex<Option<HashMap<&'static str, (u64, Duration)>>> = Mutex::new(None);

/// One op's row of the profile.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileRow {
    /// The op's name, as errors and the placement log give it.
    pub op: &'static str,
    /// Kernel calls made for it.
    pub calls: u64,
    /// Their total wall time, each call waited for, in milliseconds.
    pub ms: f64,
}

/// Turns the profiler on or off (natively also `WEBTENSOR_PROFILE=1`).
pub fn set_profiling(on: bool) {
    ON.store(if on { 2 } else { 1 }, Ordering::Relaxed);
}

/// Whether the profiler is on.
pub fn profiling() -> bool {
    if ON.load(Ordering::Relaxed) == 0 {
        let on = std::env::var("WEBTENSOR_PROFILE").is_ok_and(|v| v.trim() == "1");
        let _ = ON.compare_exchange(0, if on { 2 } else { 1 }, Ordering::Relaxed, Ordering::Relaxed);
    }
    ON.load(Ordering::Relaxed) == 2
}

/// Adds one call of `op` that took `t`.
pub(crate) fn record(op: &'static str, t: Duration) {
    let mut rows = lock(&ROWS);
    let row = rows.get_or_insert_with(HashMap::new).entry(op).or_insert((0, Duration::ZERO));
    row.0 += 1;
    row.1 += t;
}

/// The rows gathered since the last [`reset_profile`], the most time first.
pub fn profile_report() -> Vec<ProfileRow> {
    let rows = lock(&ROWS);
    let mut out: Vec<ProfileRow> =
        rows.iter().flatten().map(|(&op, &(calls, t))| ProfileRow { op, calls, ms: t.as_secs_f64() * 1e3 }).collect();
    out.sort_by(|a, b| b.ms.total_cmp(&a.ms).then(a.op.cmp(b.op)));
    out
}

/// Clears the rows.
pub fn reset_profile() {
    *lock(&ROWS) = None;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_add_up_per_op_and_sort_by_time() {
        reset_profile();
        record("add", Duration::from_millis(2));
        record("matmul", Duration::from_millis(5));
        record("add", Duration::from_millis(1));
        let rows = profile_report();
        assert_eq!(rows.iter().map(|r| (r.op, r.calls)).collect::<Vec<_>>(), [("matmul", 1), ("add", 2)]);
        assert!((rows[1].ms - 3.0).abs() < 1e-9);
        reset_profile();
        assert!(profile_report().is_empty());
    }
}
