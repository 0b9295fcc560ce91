//! Matrix products for the CPU backend: f32 natively through the `gemm` crate (strided,
//! packed, runtime-dispatched AVX2/AVX-512/NEON kernels, threaded on the CPU pool), in wasm
//! through `wasm_gemm`'s 4x8 kernel; integers through a plain triple loop.

use crate::op::{MatOperand, MatmulArgs};

/// `a @ b` over `g`'s batches, plus `bias` (`n` values) on every output row: the rows start as
/// the bias and the products accumulate onto them.
pub(crate) fn sgemm_batched(a: &[f32], b: &[f32], g: &MatmulArgs, bias: Option<&[f32]>) -> Vec<f32> {
    let mut c = match bias {
        Some(row) if g.n > 0 => {
            let mut c = super::alloc::with_capacity(g.batch * g.m * g.n);
            (0..g.batch * g.m).for_each(|_| c.extend_from_slice(row));
            c
        }
        _ => super::alloc::zeroed(g.batch * g.m * g.n),
    };
    if g.m == 0 || g.n == 0 || g.k == 0 {
        return c;
    }
    #[cfg(target_arch = "wasm32")]
    for (bi, cb) in c.chunks_exact_mut(g.m * g.n).enumerate() {
        super::wasm_gemm::sgemm(a, b, g, bi, cb);
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let accumulate = bias.is_some();
        let (mn, threads) = (g.m * g.n, super::par::threads());
        let worth_threads = |work: usize| work >= MIN_THREADED_WORK;
        if g.batch >= threads && threads > 1 && worth_threads(g.batch * mn * g.k) {
            // Whole products per thread (attention heads, batched im2col): no product is cut,
            // so each gemm call keeps its full panels.
            let out = super::par::Disjoint::new(&mut c);
            super::par::split(threads, g.batch, |r| {
                for bi in r {
                    // SAFETY: product bi's block of c, which only this part writes; c holds
                    // batch * m * n elements and outlives the split.
                    native_block_split(a, b, g, bi, unsafe { out.slice(bi * mn..(bi + 1) * mn) }, (1, accumulate));
                }
            });
        } else {
            let parts = if worth_threads(mn * g.k) { threads } else { 1 };
            for (bi, cb) in c.chunks_exact_mut(mn).enumerate() {
                native_block_split(a, b, g, bi, cb, (parts, accumulate));
            }
        }
    }
    c
}

/// Multiply-adds below which a matmul is not worth handing to another thread: a part handed
/// to the pool waits 20-50 µs for a thread to wake on the 2-core VM, about what 4M
/// multiply-adds take on one core. At 64^3, the earlier threshold, batched [64, 32, 32]
/// products ran 0.054 ms on one thread and 0.07-0.08 split across two.
#[cfg(not(target_arch = "wasm32"))]
const MIN_THREADED_WORK: usize = 1 << 22;

/// Product `bi` of `g` into `cb` (m x n, row-major; added to what `cb` holds with
/// `accumulate`): C cut along its longer side into up to
/// `parts` blocks (of at least 16 rows or columns), each block one single-threaded
/// `gemm` call, the first on the calling thread. gemm's own threading ran every call inside
/// the pool while the caller waited, which cost half the time at 256^3 (0.34 ms against
/// NumPy's 0.18); each block packs its own panels, a copy of O(k * (m + n) / parts) beside
/// O(m * n * k / parts) multiply-adds.
#[cfg(not(target_arch = "wasm32"))]
fn native_block_split(
    a: &[f32],
    b: &[f32],
    g: &MatmulArgs,
    bi: usize,
    cb: &mut [f32],
    (parts, accumulate): (usize, bool),
) {
    let (ao, bo) = (g.a.offset + bi * g.a.batch_stride, g.b.offset + bi * g.b.batch_stride);
    let along_rows = g.m >= g.n;
    let long = if along_rows { g.m } else { g.n };
    // Blocks of at least 16 rows or columns, so each keeps whole microkernel tiles.
    let parts = parts.min(long / 16);
    let out = super::par::Disjoint::new(cb);
    super::par::split(parts, long, |r| {
        let (m, n, a_at, b_at, c_at) = if along_rows {
            (r.len(), g.n, ao + r.start * g.a.row_stride, bo, r.start * g.n)
        } else {
            (g.m, r.len(), ao, bo + r.start * g.b.col_stride, r.start)
        };
        // SAFETY: the layouts come from tensors whose every element (offset + sum of index *
        // stride) lies inside its storage, which `a` and `b` are, so rows `r` of A (or columns
        // `r` of B) do too; `cb` holds g.m rows of g.n, and this part writes only its block
        // (rows or columns `r`) of it, starting at `c_at` with row stride g.n. gemm computes
        // dst = alpha*dst + beta*lhs*rhs; read_dst=false ignores dst (alpha 1 with it).
        unsafe {
            gemm::gemm(
                m,
                n,
                g.k,
                out.at(c_at),
                1,
                g.n as isize,
                accumulate,
                a.as_ptr().add(a_at),
                g.a.col_stride as isize,
                g.a.row_stride as isize,
                b.as_ptr().add(b_at),
                g.b.col_stride as isize,
                g.b.row_stride as isize,
                if accumulate { 1.0 } else { 0.0 },
                1.0,
                false,
                false,
                false,
                gemm::Parallelism::None,
            )
        }
    });
}

/// One single-threaded product `c (+)= a . b` of an `m x k` and a `k x n` operand (each at its
/// `MatOperand`'s offset and strides; batch strides unused) into row-major `c` of `n` columns:
/// the fused kernels' block products. With `accumulate` the product is added to `c`.
pub(super) fn gemm_block(
    a: &[f32],
    ao: MatOperand,
    b: &[f32],
    bo: MatOperand,
    (m, n, k): (usize, usize, usize),
    c: &mut [f32],
    accumulate: bool,
) {
    if m == 0 || n == 0 {
        return;
    }
    let c = &mut c[..m * n];
    let g = MatmulArgs { batch: 1, m, n, k, a: ao, b: bo, bias_offset: 0 };
    #[cfg(target_arch = "wasm32")]
    {
        // wasm_gemm adds its product to c.
        if !accumulate {
            c.fill(0.0);
        }
        super::wasm_gemm::sgemm(a, b, &g, 0, c);
    }
    #[cfg(not(target_arch = "wasm32"))]
    // SAFETY: the operands' offsets and strides address elements of `a` and `b` (the callers
    // build them from views of those buffers), and `c` holds m rows of n.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            1,
            n as isize,
            accumulate,
            a.as_ptr().add(g.a.offset),
            g.a.col_stride as isize,
            g.a.row_stride as isize,
            b.as_ptr().add(g.b.offset),
            g.b.col_stride as isize,
            g.b.row_stride as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        )
    }
}

pub(crate) fn naive_matmul<T: Copy>(a: &[T], b: &[T], g: &MatmulArgs, zero: T, fma: impl Fn(T, T, T) -> T) -> Vec<T> {
    let mut c = Vec::with_capacity(g.batch * g.m * g.n);
    for bi in 0..g.batch {
        let (ao, bo) = (g.a.offset + bi * g.a.batch_stride, g.b.offset + bi * g.b.batch_stride);
        for i in 0..g.m {
            for j in 0..g.n {
                let mut acc = zero;
                for p in 0..g.k {
                    acc = fma(
                        acc,
                        a[ao + i * g.a.row_stride + p * g.a.col_stride],
                        b[bo + p * g.b.row_stride + j * g.b.col_stride],
                    );
                }
                c.push(acc);
            }
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::MatOperand;

    #[test]
    fn sgemm_matches_the_triple_loop_for_strided_and_batched_operands() {
        let data: Vec<f32> = (0..60_000).map(|i| ((i * 7919) % 1000) as f32 / 500.0 - 1.0).collect();
        // Sizes off every kernel tile, both layouts of each operand, offsets, a broadcast batch,
        // and products big enough to be split across threads (past MIN_THREADED_WORK: along rows,
        // along columns, whole products of a batch where there are at least as many as threads).
        for (batch, m, k, n) in [
            (1, 1, 1, 1),
            (1, 7, 5, 9),
            (2, 33, 70, 17),
            (3, 65, 257, 9),
            (1, 1, 300, 1),
            (2, 70, 80, 90),
            (1, 200, 150, 150),
            (1, 150, 150, 200),
            (3, 100, 150, 100),
        ] {
            for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
                let a = MatOperand {
                    offset: 3,
                    batch_stride: m * k,
                    row_stride: if ta { 1 } else { k },
                    col_stride: if ta { m } else { 1 },
                };
                // The second operand is shared across the batch (stride 0), as a broadcast is.
                let b = MatOperand {
                    offset: 11,
                    batch_stride: 0,
                    row_stride: if tb { 1 } else { n },
                    col_stride: if tb { k } else { 1 },
                };
                let g = MatmulArgs { batch, m, k, n, a, b, bias_offset: 0 };
                let got = sgemm_batched(&data, &data, &g, None);
                let want = naive_matmul(&data, &data, &g, 0.0, |acc, x, y| acc + x * y);
                assert_eq!(got.len(), want.len());
                for (i, (x, y)) in got.iter().zip(&want).enumerate() {
                    assert!(
                        (x - y).abs() <= 1e-4 * (1.0 + y.abs()),
                        "{batch}x{m}x{k}x{n} {ta} {tb} at {i}: {x} vs {y}"
                    );
                }
            }
        }
    }
}
