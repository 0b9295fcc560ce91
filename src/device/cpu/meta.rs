//! The meta device's storage: a byte count and nothing else, so a computation run on meta
//! reports the memory it would need (and a memory limit there answers whether it would fit).

use crate::device::memory::MemoryStats;
use crate::error::Result;

static META_STATS: MemoryStats = MemoryStats::new();

/// The meta device counts the bytes its tensors would take, so a computation run there reports
/// the memory it needs.
pub(crate) fn meta_stats() -> &'static MemoryStats {
    &META_STATS
}

/// Meta storage: only a byte count, for memory planning.
pub(crate) struct MetaStorage {
    bytes: u64,
}

impl MetaStorage {
    /// Accounts for `bytes`; on meta a memory limit answers "would this computation fit?".
    pub(crate) fn new(bytes: u64) -> Result<Self> {
        if !META_STATS.try_reserve(bytes) {
            return Err(META_STATS.oom(
                "meta".into(),
                bytes,
                "the memory limit set with set_memory_limit would be passed",
            ));
        }
        META_STATS.on_alloc(bytes, false);
        Ok(MetaStorage { bytes })
    }

    /// The bytes it stands for.
    pub(crate) fn held_bytes(&self) -> u64 {
        self.bytes
    }
}

impl Drop for MetaStorage {
    fn drop(&mut self) {
        META_STATS.on_free(self.bytes, true);
    }
}
