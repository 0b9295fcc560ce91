//! Caching-allocator accounting shared by every backend, and the public memory API
//! (`memory_allocated`, `memory_reserved`, `max_memory_allocated`, `empty_cache`, ...).

use std::sync::atomic::{AtomicU64, Ordering};

use crate::device::{Backend, Device};
use crate::error::{Error, Result};

/// The block size that serves a request: powers of two up to 1 MiB (at most 2x waste on small
/// tensors, which are many), then whole MiB (at most 1 MiB waste on large ones).
pub(crate) fn size_class(bytes: u64) -> u64 {
    const MIB: u64 = 1 << 20;
    let b = bytes.max(256);
    if b <= MIB {
        b.next_power_of_two()
    } else {
        b.div_ceil(MIB) * MIB
    }
}

/// `limit` value meaning "no limit".
const NO_LIMIT: u64 = u64::MAX;

/// Byte counters of one device. `allocated` counts blocks held by live tensors, `reserved` counts
/// blocks held by the allocator (live + cached), `peak` the highest `allocated` since the last
/// reset.
#[derive(Debug)]
pub(crate) struct MemoryStats {
    allocated: AtomicU64,
    reserved: AtomicU64,
    peak: AtomicU64,
    allocations: AtomicU64,
    limit: AtomicU64,
}

impl MemoryStats {
    pub(crate) const fn new() -> Self {
        MemoryStats {
            allocated: AtomicU64::new(0),
            reserved: AtomicU64::new(0),
            peak: AtomicU64::new(0),
            allocations: AtomicU64::new(0),
            limit: AtomicU64::new(NO_LIMIT),
        }
    }

    pub(crate) fn set_limit(&self, bytes: Option<u64>) {
        self.limit.store(bytes.unwrap_or(NO_LIMIT), Ordering::Relaxed);
    }

    /// The memory limit, if one is set.
    pub(crate) fn limit(&self) -> Option<u64> {
        Some(self.limit.load(Ordering::Relaxed)).filter(|&l| l != NO_LIMIT)
    }

    /// Whether reserving `bytes` more stays within the limit (advisory; `try_reserve` decides).
    pub(crate) fn fits(&self, bytes: u64) -> bool {
        self.limit().is_none_or(|l| self.reserved.load(Ordering::Relaxed).saturating_add(bytes) <= l)
    }

    /// Whether `bytes` more of live tensors stay within the limit (cached blocks would be
    /// released for them): what the lazy tier asks before it records a result, so an op that
    /// would pass the limit fails at once, as eager ops do.
    pub(crate) fn fits_live(&self, bytes: u64) -> bool {
        self.limit().is_none_or(|l| self.allocated.load(Ordering::Relaxed).saturating_add(bytes) <= l)
    }

    /// Adds `bytes` to the reserve if that stays within the limit, in one atomic step, so
    /// concurrent allocations cannot pass the limit together. Pair with `on_alloc(.., false)`,
    /// or `unreserve` if the allocation then fails.
    pub(crate) fn try_reserve(&self, bytes: u64) -> bool {
        let limit = self.limit.load(Ordering::Relaxed);
        self.reserved
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| r.checked_add(bytes).filter(|&n| n <= limit))
            .is_ok()
    }

    /// Takes back a reservation whose allocation failed (natively: the web reports device
    /// out-of-memory asynchronously).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub(crate) fn unreserve(&self, bytes: u64) {
        self.reserved.fetch_sub(bytes, Ordering::Relaxed);
    }

    /// The `OutOfMemory` error for a request of `bytes` on `device`.
    pub(crate) fn oom(&self, device: String, bytes: u64, cause: &str) -> Error {
        let s = self.snapshot();
        Error::OutOfMemory {
            device,
            requested: bytes,
            allocated: s.allocated,
            reserved: s.reserved,
            limit: self.limit(),
            cause: cause.to_string(),
        }
    }

    /// A block of `bytes` went to a tensor; `fresh` when the allocator had to reserve it anew.
    pub(crate) fn on_alloc(&self, bytes: u64, fresh: bool) {
        let now = self.allocated.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(now, Ordering::Relaxed);
        self.allocations.fetch_add(1, Ordering::Relaxed);
        if fresh {
            self.reserved.fetch_add(bytes, Ordering::Relaxed);
        }
    }

    /// A tensor gave its block back; `released` when it also left the reserve (no cache).
    pub(crate) fn on_free(&self, bytes: u64, released: bool) {
        self.allocated.fetch_sub(bytes, Ordering::Relaxed);
        if released {
            self.reserved.fetch_sub(bytes, Ordering::Relaxed);
        }
    }

    /// A freed block went into the allocator's cache (still reserved, no longer allocated).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub(crate) fn on_cache(&self, bytes: u64) {
        self.reserved.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Cached blocks were returned to the driver.
    pub(crate) fn on_release(&self, bytes: u64) {
        self.reserved.fetch_sub(bytes, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self) -> MemorySnapshot {
        MemorySnapshot {
            allocated: self.allocated.load(Ordering::Relaxed),
            reserved: self.reserved.load(Ordering::Relaxed),
            peak: self.peak.load(Ordering::Relaxed),
            allocations: self.allocations.load(Ordering::Relaxed),
        }
    }

    pub(crate) fn reset_peak(&self) {
        self.peak.store(self.allocated.load(Ordering::Relaxed), Ordering::Relaxed);
    }
}

/// A point-in-time copy of a device's memory counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemorySnapshot {
    /// Bytes in blocks held by live tensors.
    pub allocated: u64,
    /// Bytes held by the allocator: live blocks plus cached ones.
    pub reserved: u64,
    /// Highest `allocated` since the last [`reset_peak_memory_stats`].
    pub peak: u64,
    /// Number of allocations served since the device opened.
    pub allocations: u64,
}

fn with_stats<T>(device: Device, f: impl FnOnce(&MemoryStats) -> T) -> Result<T> {
    match Backend::of(device)? {
        Backend::Cpu => Ok(f(crate::device::cpu::stats())),
        Backend::Wgpu(d) => Ok(f(d.stats())),
        Backend::Cuda(d) => Ok(f(d.stats())),
        Backend::Meta => Ok(f(crate::device::cpu::meta_stats())),
    }
}

/// Caps the bytes the allocator may hold on `device` (TensorFlow's hard memory limit; `None`
/// removes it). An allocation that would pass it first empties the cache, then fails with
/// [`Error::OutOfMemory`]; other tensors and the device stay usable. A limit below what is
/// already allocated only affects later allocations.
pub fn set_memory_limit(device: Device, bytes: Option<u64>) -> Result<()> {
    with_stats(device, |s| s.set_limit(bytes))
}

/// Makes wgpu refuse buffer creation with an out-of-memory error once the driver's reported
/// memory usage plus the request would pass `percent` of the driver's memory budget (wgpu's
/// `MemoryBudgetThresholds::for_resource_creation`; `None`, the default, turns it off). The
/// refusal becomes [`Error::OutOfMemory`] like any driver OOM, after the cache is emptied and
/// the request retried, so a process stops short of paging or device loss instead of running
/// into them (TensorFlow's `per_process_gpu_memory_fraction` plays a similar role). It applies
/// where the driver reports a budget: Vulkan with `VK_EXT_memory_budget` and DX12; elsewhere
/// (Metal, GL) it has no effect. Native only, and only before any GPU device is used: it
/// configures the wgpu instance the devices open on. Unlike [`set_memory_limit`], which counts
/// this allocator's own bytes on one device, it follows the driver's view of the whole heap.
/// wgpu applies it to every buffer, including the small ones webtensor makes outside the pool
/// (kernel parameters, readback staging): at the threshold those fail too, and that comes back
/// as [`Error::Gpu`] from the next `synchronize` or readback rather than as `OutOfMemory`.
#[cfg(not(target_arch = "wasm32"))]
pub fn set_memory_budget_threshold(percent: Option<u8>) -> Result<()> {
    crate::device::wgpu::set_budget_threshold(percent)
}

/// The threshold set with `set_memory_budget_threshold` (native), if any.
pub fn memory_budget_threshold() -> Option<u8> {
    crate::device::wgpu::budget_threshold()
}

/// The memory limit of `device`, if one is set.
pub fn memory_limit(device: Device) -> Result<Option<u64>> {
    with_stats(device, |s| s.limit())
}

/// What realizes the lazy tier's pending results (set by `storage::lazy` when it records one;
/// the layer above registers it so this one needs no import of it).
static FLUSH_PENDING: std::sync::OnceLock<fn() -> Result<()>> = std::sync::OnceLock::new();

/// Registers what a memory query runs first: the lazy tier's realization of pending results, so
/// the counts hold every live tensor's bytes, as eager ops would have allocated them.
pub(crate) fn set_flush_pending(f: fn() -> Result<()>) {
    let _ = FLUSH_PENDING.set(f);
}

/// Realizes pending lazy results before a query. A result that fails keeps its error, which
/// its first use reports; the query still answers.
fn flush_pending() {
    if let Some(f) = FLUSH_PENDING.get() {
        let _ = f();
    }
}

/// Counters of a device, all at once.
pub fn memory_stats(device: Device) -> Result<MemorySnapshot> {
    flush_pending();
    with_stats(device, |s| s.snapshot())
}

/// Bytes held by live tensors on `device` (PyTorch's `memory_allocated`).
pub fn memory_allocated(device: Device) -> Result<u64> {
    Ok(memory_stats(device)?.allocated)
}

/// Bytes held by the caching allocator on `device`, live and cached.
pub fn memory_reserved(device: Device) -> Result<u64> {
    Ok(memory_stats(device)?.reserved)
}

/// Highest `memory_allocated` since the device opened or the last reset.
pub fn max_memory_allocated(device: Device) -> Result<u64> {
    Ok(memory_stats(device)?.peak)
}

/// Restarts peak tracking from the current allocation.
pub fn reset_peak_memory_stats(device: Device) -> Result<()> {
    with_stats(device, |s| s.reset_peak())
}

/// Returns cached (unused) blocks to the driver (the CPU's: to the system allocator); never
/// touches live tensors. The meta device caches nothing.
pub fn empty_cache(device: Device) -> Result<()> {
    flush_pending();
    match Backend::of(device)? {
        Backend::Wgpu(d) => d.empty_cache(),
        Backend::Cuda(d) => d.empty_cache(),
        #[cfg(not(target_arch = "wasm32"))]
        Backend::Cpu => {
            crate::device::cpu::alloc::empty();
        }
        #[cfg(target_arch = "wasm32")]
        Backend::Cpu => {}
        Backend::Meta => {}
    }
    Ok(())
}

/// A human-readable summary of a device's memory, like PyTorch's `memory_summary`.
pub fn memory_summary(device: Device) -> Result<String> {
    let s = memory_stats(device)?;
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    Ok(format!(
        "memory on {device}\n  allocated      {:>12.3} MiB\n  reserved       {:>12.3} MiB\n  cached (free)  {:>12.3} MiB\n  peak allocated {:>12.3} MiB\n  allocations    {:>12}\n",
        mib(s.allocated),
        mib(s.reserved),
        mib(s.reserved.saturating_sub(s.allocated)),
        mib(s.peak),
        s.allocations
    ))
}

#[cfg(test)]
mod tests {
    use super::size_class;

    #[test]
    fn classes() {
        assert_eq!(size_class(1), 256);
        assert_eq!(size_class(1000), 1024);
        assert_eq!(size_class((1 << 20) + 1), 2 << 20);
        assert_eq!(size_class(3 << 20), 3 << 20);
    }
}
