//! Result buffers for the CPU kernels. A large fresh buffer costs a page fault per 4 KiB page on
//! first write, which dominated elementwise ops (a 64 MiB result took 16k faults; the arithmetic
//! was the smaller part). On Linux, buffers of 4 MiB and more are advised onto transparent huge
//! pages first, as NumPy does for its arrays, so they fault once per 2 MiB instead.

/// Buffers at least this large are advised onto huge pages (NumPy's threshold).
#[cfg(target_os = "linux")]
const HUGE_FROM: usize = 4 << 20;

/// An empty vector with room for `n` values, on huge pages when large.
pub(crate) fn with_capacity<U>(n: usize) -> Vec<U> {
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
