//! Splitting CPU kernels across cores. Natively the work is cut into one contiguous range per
//! thread and run by the caller and the spinning workers of `spin.rs` (`WEBTENSOR_CPU_THREADS`
//! threads in all, by default one per core); work is split only into parts of at least
//! `MIN_PER_THREAD` elements.
//! wasm32 has no threads; there everything runs on the calling thread, as it does natively
//! when the pool cannot be built.

use std::mem::MaybeUninit;
use std::ops::Range;

use super::alloc;

/// Parts smaller than this many elements are not worth handing to another thread.
const MIN_PER_THREAD: usize = 1 << 16;

/// How many threads kernels may use: `WEBTENSOR_CPU_THREADS` when set to a positive number,
/// else the cores available; 1 on wasm32.
pub(crate) fn threads() -> usize {
    #[cfg(not(target_arch = "wasm32"))]
    {
        static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        *THREADS.get_or_init(|| {
            let set = std::env::var("WEBTENSOR_CPU_THREADS").ok().and_then(|v| v.trim().parse::<usize>().ok());
            set.filter(|&n| n > 0).unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        })
    }
    #[cfg(target_arch = "wasm32")]
    {
        1
    }
}

/// How many parts `units` units of `unit_len` elements each are split into.
fn parts(units: usize, unit_len: usize) -> usize {
    let elems = units.saturating_mul(unit_len.max(1));
    threads().min(elems / MIN_PER_THREAD).min(units).max(1)
}

/// `f` over consecutive ranges covering `0..units` (one per thread when the `units * unit_len`
/// elements are many enough), with the results in range order.
pub(crate) fn ranges<R: Send>(units: usize, unit_len: usize, f: impl Fn(Range<usize>) -> R + Sync) -> Vec<R> {
    split(parts(units, unit_len), units, f)
}

/// `f` over `p` consecutive ranges (about equal) covering `0..units`, with the results in range
/// order: the first on the calling thread, the rest on the pool.
pub(crate) fn split<R: Send>(p: usize, units: usize, f: impl Fn(Range<usize>) -> R + Sync) -> Vec<R> {
    let p = p.min(units).max(1);
    if p == 1 {
        return vec![f(0..units)];
    }
    let step = units.div_ceil(p);
    let bounds: Vec<Range<usize>> = (0..units).step_by(step).map(|s| s..(s + step).min(units)).collect();
    run(bounds, &f)
}

/// A slice's start that parts of one split may write through from other threads, each only
/// at its own indices (what `chunks_mut` gives when the parts are contiguous runs, for parts
/// that are not, or that write several outputs).
#[derive(Clone, Copy)]
pub(crate) struct Disjoint<T>(*mut T);

// SAFETY: a `Disjoint` only hands out pointers and slices under its methods' contracts (each
// index written by one part at a time, inside the slice it was made from), so sharing it across
// threads is sharing `&mut [T]` in disjoint pieces, which is sound for `T: Send`.
unsafe impl<T: Send> Send for Disjoint<T> {}
// SAFETY: as for Send.
unsafe impl<T: Send> Sync for Disjoint<T> {}

impl<T> Disjoint<T> {
    /// The start of `v`, which must outlive every use of the result.
    pub(crate) fn new(v: &mut [T]) -> Self {
        Disjoint(v.as_mut_ptr())
    }

    /// Where element `i` is.
    ///
    /// # Safety
    /// `i` must lie inside (or one past) the slice this was made from.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) unsafe fn at(self, i: usize) -> *mut T {
        // SAFETY: the caller keeps `i` inside the slice.
        unsafe { self.0.add(i) }
    }

    /// Elements `r` as a slice.
    ///
    /// # Safety
    /// `r` must lie inside the slice this was made from, which must outlive the result, and no
    /// other reference to those elements may be used while the result lives.
    pub(crate) unsafe fn slice<'a>(self, r: Range<usize>) -> &'a mut [T] {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.0.add(r.start), r.len()) }
    }
}

/// A vector of `units * unit_len` elements written by `write(first_unit, chunk)` over consecutive
/// chunks of whole units, one per thread when there are enough elements. `write` is called
/// through a reference, so the allocation and splitting are compiled once per element type
/// rather than once per kernel (123 copies in the wasm build: 20 KB of the gzipped module with
/// the same change to `Tensor::record` and the GPU fallback), for one indirect call per chunk.
///
/// # Safety
/// `write` must initialise every element of each chunk it is given.
pub(crate) unsafe fn fill<U: Send>(
    units: usize,
    unit_len: usize,
    write: impl Fn(usize, &mut [MaybeUninit<U>]) + Sync,
) -> Vec<U> {
    let write: &(dyn Fn(usize, &mut [MaybeUninit<U>]) + Sync) = &write;
    // SAFETY: the caller's contract, passed on.
    unsafe { fill_inline(units, unit_len, write) }
}

/// [`fill`] compiled into each caller, for the hot elementwise loops ([`map`], [`zip`], the
/// broadcast patterns of the common binary ops): behind the reference, wasm's `neg` and `relu`
/// over 1M took 0.13 ms instead of 0.09 and a row broadcast add 0.126 instead of 0.111 (V8
/// compiled the same loop slower in the small function of its own), for one copy of this
/// scaffolding per op.
///
/// # Safety
/// As [`fill`].
pub(crate) unsafe fn fill_inline<U: Send>(
    units: usize,
    unit_len: usize,
    write: impl Fn(usize, &mut [MaybeUninit<U>]) + Sync,
) -> Vec<U> {
    let n = units * unit_len;
    let mut out = alloc::with_capacity(n);
    if n == 0 {
        return out;
    }
    let p = parts(units, unit_len);
    let step = units.div_ceil(p);
    let chunks: Vec<(usize, &mut [MaybeUninit<U>])> =
        out.spare_capacity_mut()[..n].chunks_mut(step * unit_len).enumerate().map(|(i, c)| (i * step, c)).collect();
    run(chunks, &|(first, chunk)| write(first, chunk));
    // SAFETY: the chunks cover the first n elements, `run` calls `write` on every chunk (or
    // unwinds), and `write` initialised each element.
    unsafe { out.set_len(n) };
    out
}

/// `f` over `a`'s elements, in order.
pub(crate) fn map<T: Copy + Sync, U: Send>(a: &[T], f: impl Fn(T) -> U + Sync) -> Vec<U> {
    #[cfg(target_arch = "x86_64")]
    if super::simd_x86::has_avx2() {
        // SAFETY: AVX2 is present; each chunk is no longer than `a[start..]` (as below).
        let write =
            |start: usize, out: &mut [MaybeUninit<U>]| unsafe { super::simd_x86::map_avx2(&a[start..], out, &f) };
        // SAFETY: map_avx2 writes every element of each chunk.
        return unsafe { fill_inline(a.len(), 1, write) };
    }
    let write = |start: usize, out: &mut [MaybeUninit<U>]| {
        for (o, &x) in out.iter_mut().zip(&a[start..]) {
            o.write(f(x));
        }
    };
    // SAFETY: a chunk starting at `start` is no longer than `a[start..]`, so the zip writes all of it.
    unsafe { fill_inline(a.len(), 1, write) }
}

/// `f` over the pairs of `a`'s and `b`'s elements (as many as the shorter has), in order.
pub(crate) fn zip<T: Copy + Sync, U: Send>(a: &[T], b: &[T], f: impl Fn(T, T) -> U + Sync) -> Vec<U> {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);

    let write = |start: usize, out: &mut [MaybeUninit<U>]| {
        for (o, (&x, &y)) in out.iter_mut().zip(a[start..].iter().zip(&b[start..])) {
            o.write(f(x, y));
        }
    };
    // SAFETY: as in `map`: both inputs have n elements, so the zip covers each chunk.
    unsafe { fill_inline(n, 1, write) }
}

/// Runs `f` on every item, the first on the calling thread and the rest on the spinning
/// workers (`spin.rs`), or all here in order for a single item or when the workers are busy;
/// the results come back in item order. The caller works rather than waits: handing everything
/// to a pool made each call wait for a thread to wake and then for it to wake the next, which
/// at 256^3 matmul size (0.2 ms of work) cost as much as the work.
#[cfg(not(target_arch = "wasm32"))]
fn run<I: Send, R: Send>(items: Vec<I>, f: &(impl Fn(I) -> R + Sync)) -> Vec<R> {
    if items.len() <= 1 {
        return items.into_iter().map(f).collect();
    }
    match super::spin::run(items, f, threads().saturating_sub(1)) {
        Ok(results) => results,
        Err(items) => items.into_iter().map(f).collect(),
    }
}

/// wasm32 has no threads: every item runs here, in order.
#[cfg(target_arch = "wasm32")]
fn run<I, R>(items: Vec<I>, f: &impl Fn(I) -> R) -> Vec<R> {
    items.into_iter().map(f).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_everything_in_order() {
        for (units, unit_len) in [(0, 1), (1, 1), (7, 1), (1 << 20, 1), (3, 1 << 20), (1000, 333)] {
            let got = ranges(units, unit_len, |r| r);
            assert_eq!(got.first().map_or(0, |r| r.start), 0);
            assert_eq!(got.last().map_or(0, |r| r.end), units);
            assert!(got.windows(2).all(|w| w[0].end == w[1].start), "{got:?}");
        }
        // Large work is split when there is more than one core.
        assert_eq!(ranges(1 << 20, 1, |r| r).len(), threads().min(16));
    }

    #[test]
    fn map_and_zip_write_every_element() {
        for n in [0, 1, 5, MIN_PER_THREAD * 2 + 3, (1 << 20) + 7] {
            let a: Vec<u32> = (0..n as u32).collect();
            let b: Vec<u32> = (0..n as u32).map(|x| x * 3).collect();
            assert_eq!(map(&a, |x| x + 1), (1..=n as u32).collect::<Vec<_>>());
            let z = zip(&a, &b, |x, y| y - x);
            assert_eq!(z.len(), n);
            assert!(z.iter().enumerate().all(|(i, &v)| v == 2 * i as u32));
        }
        assert_eq!(zip(&[1, 2, 3], &[1], |x, y| x + y), vec![2]);
    }

    #[test]
    fn fill_hands_out_whole_units() {
        let (units, k) = (1000, 300);
        // SAFETY: every element of each chunk is written.
        let v: Vec<usize> = unsafe {
            fill(units, k, |first, chunk| {
                assert_eq!(chunk.len() % k, 0);
                for (i, o) in chunk.iter_mut().enumerate() {
                    o.write(first * k + i);
                }
            })
        };
        assert_eq!(v, (0..units * k).collect::<Vec<_>>());
    }
}
