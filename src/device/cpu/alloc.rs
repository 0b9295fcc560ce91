//! Result buffers for the CPU kernels. A large fresh buffer costs a page fault per 4 KiB page on
//! first write, which dominated elementwise ops (a 64 MiB result took 16k faults; the arithmetic
//! was the smaller part). On Linux, buffers of 4 MiB and more are advised onto transparent huge
//! pages first, as NumPy does for its arrays, so they fault once per 2 MiB instead. And natively,
//! buffers of 1 MiB and more that tensors give back are cached and handed to the next result of
//! a size they fit, as PyTorch's CUDA allocator does for device memory: the system allocator
//! returns such blocks to the OS at once (mmap'd) or when the top of its heap is free, so a
//! loop making results of one size paid the faults again every time (a 16M copy 53 ms where the
//! copying takes 2; an 8 MiB product and bias add 15 ms where 9). The cache holds at most
//! `WEBTENSOR_CPU_CACHE_MB` (1024 by default, 0 turns it off), counts in `memory_reserved`
//! (not `memory_allocated`), and `empty_cache(cpu)` or a memory limit that needs the room
//! releases it.

use crate::dtype::{CpuData, DType};

/// Buffers at least this large are advised onto huge pages (NumPy's threshold).
#[cfg(target_os = "linux")]
const HUGE_FROM: usize = 4 << 20;

/// An empty vector with room for `n` values: a cached buffer it fits, else a new one, on huge
/// pages when large.
pub(crate) fn with_capacity<U>(n: usize) -> Vec<U> {
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(v) = cache::take(n) {
        return v;
    }
    #[allow(unused_mut)]
    let mut out = Vec::with_capacity(n);
    #[cfg(target_os = "linux")]
    advise_huge(&mut out);
    out
}

/// Asks the kernel to back `v`'s spare capacity with transparent huge pages (advisory: failures,
/// e.g. with huge pages off, change nothing).
#[cfg(target_os = "linux")]
fn advise_huge<U>(v: &mut Vec<U>) {
    let bytes = v.capacity() * std::mem::size_of::<U>();
    if bytes < HUGE_FROM {
        return;
    }
    const PAGE: usize = 4096;
    let start = v.as_mut_ptr() as usize;
    let aligned = start.next_multiple_of(PAGE);
    let len = (start + bytes).saturating_sub(aligned) / PAGE * PAGE;
    // SAFETY: the range lies inside the vector's own allocation, and MADV_HUGEPAGE only changes
    // how the kernel backs those pages, never their contents or validity.
    unsafe {
        libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

/// `n` zeros, in a cached buffer where one fits.
pub(crate) fn zeroed<U: Copy + Default>(n: usize) -> Vec<U> {
    let mut v = with_capacity(n);
    v.resize(n, U::default());
    v
}

#[cfg(not(target_arch = "wasm32"))]
pub(crate) use cache::{empty, recycle};

/// `n` copies of `v` as `dtype` (converted as `CpuData::from_f64` does), in a cached buffer
/// where one fits.
pub(crate) fn filled(dtype: DType, v: f64, n: usize) -> CpuData {
    fn rep<T: Copy>(one: &[T], n: usize) -> Vec<T> {
        let mut out = with_capacity(n);
        out.resize(n, one[0]);
        out
    }
    match CpuData::from_f64(dtype, std::iter::once(v)) {
        CpuData::F32(x) => CpuData::F32(rep(&x, n)),
        CpuData::F16(x) => CpuData::F16(rep(&x, n)),
        CpuData::I32(x) => CpuData::I32(rep(&x, n)),
        CpuData::U32(x) => CpuData::U32(rep(&x, n)),
        CpuData::Bool(x) => CpuData::Bool(rep(&x, n)),
        CpuData::U8(x) => CpuData::U8(rep(&x, n)),
        CpuData::I8(x) => CpuData::I8(rep(&x, n)),
    }
}

/// Frees the cached result buffers, so that a memory limit they count against has room;
/// whether there were any.
pub(crate) fn release_cache() -> bool {
    #[cfg(not(target_arch = "wasm32"))]
    return cache::empty() > 0;
    #[cfg(target_arch = "wasm32")]
    false
}

/// The cache of freed result buffers (see the module's docs). Buffers are kept as raw blocks
/// keyed by byte size and alignment, so a block an f32 result freed can serve an i32 one: a
/// `Vec<U>` rebuilt over a block of exactly its layout (`capacity * size_of::<U>()` bytes at
/// `U`'s alignment) deallocates as the original would.
#[cfg(not(target_arch = "wasm32"))]
mod cache {
    use std::sync::{Mutex, OnceLock};

    use crate::device::policy::lock;
    use crate::dtype::CpuData;

    /// Blocks smaller than this are left to the system allocator, which keeps them itself.
    const FROM: usize = 1 << 20;

    struct Block {
        ptr: *mut u8,
        bytes: usize,
        align: usize,
    }

    // SAFETY: a cached block is memory no Vec owns any more; whoever takes it out of the cache
    // owns it alone.
    unsafe impl Send for Block {}

    /// Cached blocks, oldest first, and their bytes.
    static CACHE: Mutex<(Vec<Block>, usize)> = Mutex::new((Vec::new(), 0));

    /// The most bytes the cache holds.
    fn limit() -> usize {
        static LIMIT: OnceLock<usize> = OnceLock::new();
        *LIMIT.get_or_init(|| {
            let mb = std::env::var("WEBTENSOR_CPU_CACHE_MB").ok().and_then(|v| v.trim().parse::<usize>().ok());
            mb.unwrap_or(1024).saturating_mul(1 << 20)
        })
    }

    /// A cached block for `n` values of `U` (the smallest that holds them, at most twice their
    /// size), as an empty vector.
    pub(super) fn take<U>(n: usize) -> Option<Vec<U>> {
        let (size, align) = (std::mem::size_of::<U>(), std::mem::align_of::<U>());
        let want = n.checked_mul(size)?;
        if want < FROM {
            return None;
        }
        let mut c = lock(&CACHE);
        let fits =
            |b: &Block| b.align == align && b.bytes.is_multiple_of(size) && b.bytes >= want && b.bytes / 2 <= want;
        let at = c.0.iter().enumerate().filter(|(_, b)| fits(b)).min_by_key(|(_, b)| b.bytes)?.0;
        let block = c.0.remove(at);
        c.1 -= block.bytes;
        drop(c);
        super::super::stats().on_release(block.bytes as u64);
        // SAFETY: the block was a Vec's allocation of `block.bytes` bytes at `align`, which is
        // `U`'s, so a Vec<U> of capacity bytes / size has exactly its layout; length 0 reads
        // nothing from it.
        Some(unsafe { Vec::from_raw_parts(block.ptr.cast::<U>(), 0, block.bytes / size) })
    }

    /// Keeps `data`'s buffer if it is large enough and fits the cache (the oldest blocks make
    /// room), else frees it.
    pub(crate) fn recycle(data: CpuData) {
        match data {
            CpuData::F32(v) => keep(v),
            CpuData::F16(v) => keep(v),
            CpuData::I32(v) => keep(v),
            CpuData::U32(v) => keep(v),
            CpuData::Bool(v) | CpuData::U8(v) => keep(v),
            CpuData::I8(v) => keep(v),
        }
    }

    fn keep<U>(v: Vec<U>) {
        let bytes = v.capacity() * std::mem::size_of::<U>();
        if bytes < FROM || bytes > limit() {
            return;
        }
        let mut v = std::mem::ManuallyDrop::new(v);
        let block = Block { ptr: v.as_mut_ptr().cast::<u8>(), bytes, align: std::mem::align_of::<U>() };
        // Counted before another thread can take it (and release the count) from the cache.
        let stats = super::super::stats();
        stats.on_cache(bytes as u64);
        let mut c = lock(&CACHE);
        let mut evicted = Vec::new();
        while c.1 + bytes > limit() && !c.0.is_empty() {
            let old = c.0.remove(0);
            c.1 -= old.bytes;
            evicted.push(old);
        }
        c.0.push(block);
        c.1 += bytes;
        drop(c);
        for b in evicted {
            free(b);
        }
    }

    /// Frees every cached block; the bytes released.
    pub(crate) fn empty() -> u64 {
        let blocks = {
            let mut c = lock(&CACHE);
            c.1 = 0;
            std::mem::take(&mut c.0)
        };
        blocks.into_iter().map(free).sum()
    }

    fn free(b: Block) -> u64 {
        super::super::stats().on_release(b.bytes as u64);
        // SAFETY: the block was allocated (as a Vec's buffer) with exactly this size and
        // alignment, and nothing else owns it.
        unsafe {
            std::alloc::dealloc(b.ptr, std::alloc::Layout::from_size_align_unchecked(b.bytes, b.align));
        }
        b.bytes as u64
    }
}

#[cfg(test)]
mod tests {
    use super::with_capacity;

    /// Small and huge (advised) buffers hold what is written to them.
    fn collect_n<U>(n: usize, iter: impl Iterator<Item = U>) -> Vec<U> {
        let mut out = with_capacity(n);
        out.extend(iter);
        out
    }

    #[test]
    fn collects_every_value_small_and_huge() {
        assert_eq!(collect_n(3, [1u8, 2, 3].into_iter()), vec![1, 2, 3]);
        // 8 MiB of f32: past the huge-page threshold.
        let n = 2 << 20;
        let v = collect_n(n, (0..n).map(|i| i as f32));
        assert_eq!(v.len(), n);
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as f32));
        assert!(collect_n(0, std::iter::empty::<f32>()).is_empty());
    }
}
