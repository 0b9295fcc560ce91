//! Matrix products for the CPU backend: f32 natively through the `gemm` crate (strided,
//! packed, runtime-dispatched AVX2/AVX-512/NEON kernels, threaded on the CPU pool), in wasm
//! through `wasm_gemm`'s 4x8 kernel; integers through a plain triple loop.

use crate::op::MatmulArgs;

pub(crate) fn sgemm_batched(a: &[f32], b: &[f32], g: &MatmulArgs) -> Vec<f32> {
    let mut c = vec![0.0f32; g.batch * g.m * g.n];
    if g.m == 0 || g.n == 0 {
        return c;
    }
    #[cfg(target_arch = "wasm32")]
    for (bi, cb) in c.chunks_exact_mut(g.m * g.n).enumerate() {
        super::wasm_gemm::sgemm(a, b, g, bi, cb);
    }
    #[cfg(not(target_arch = "wasm32"))]
    for (bi, cb) in c.chunks_exact_mut(g.m * g.n).enumerate() {
        native_block_split(a, b, g, bi, cb);
    }
    c
}

/// Product `bi` of `g` into `cb` (m x n, row-major): C cut along its longer side into one block
/// per thread (when there are at least 64^3 multiply-adds), each block one single-threaded
/// `gemm` call, the first on the calling thread. gemm's own threading ran every call inside
/// the pool while the caller waited, which cost half the time at 256^3 (0.34 ms against
/// NumPy's 0.18); each block packs its own panels, a copy of O(k * (m + n) / parts) beside
/// O(m * n * k / parts) multiply-adds.
#[cfg(not(target_arch = "wasm32"))]
fn native_block_split(a: &[f32], b: &[f32], g: &MatmulArgs, bi: usize, cb: &mut [f32]) {
    let (ao, bo) = (g.a.offset + bi * g.a.batch_stride, g.b.offset + bi * g.b.batch_stride);
    let along_rows = g.m >= g.n;
    let long = if along_rows { g.m } else { g.n };
    // Blocks of at least 16 rows or columns, so each keeps whole microkernel tiles.
    let parts = if g.m * g.n * g.k >= 64 * 64 * 64 { super::par::threads().min(long / 16) } else { 1 };
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
        // dst = alpha*dst + beta*lhs*rhs; read_dst=false ignores dst.
        unsafe {
            gemm::gemm(
                m,
                n,
                g.k,
                out.at(c_at),
                1,
                g.n as isize,
                false,
                a.as_ptr().add(a_at),
                g.a.col_stride as isize,
                g.a.row_stride as isize,
                b.as_ptr().add(b_at),
                g.b.col_stride as isize,
                g.b.row_stride as isize,
                0.0,
                1.0,
                false,
                false,
                false,
                gemm::Parallelism::None,
            )
        }
    });
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
        // and products big enough to be split across threads (along columns, along rows).
        for (batch, m, k, n) in [
            (1, 1, 1, 1),
            (1, 7, 5, 9),
            (2, 33, 70, 17),
            (3, 65, 257, 9),
            (1, 1, 300, 1),
            (2, 70, 80, 90),
            (1, 100, 70, 40),
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
                let g = MatmulArgs { batch, m, k, n, a, b };
                let got = sgemm_batched(&data, &data, &g);
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
