//! Matrix products for the CPU backend: f32 through `matrixmultiply`'s strided, cache-blocked
//! SGEMM (threaded natively; in wasm, `wasm_gemm`'s 4x8 kernel), integers through a plain
//! triple loop.

use crate::op::MatmulArgs;

pub(crate) fn sgemm_batched(a: &[f32], b: &[f32], g: &MatmulArgs) -> Vec<f32> {
    let mut c = vec![0.0f32; g.batch * g.m * g.n];
    if g.m == 0 || g.n == 0 {
        return c;
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    for (bi, cb) in c.chunks_exact_mut(g.m * g.n).enumerate() {
        super::wasm_gemm::sgemm(a, b, g, bi, cb);
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    for bi in 0..g.batch {
        let (ao, bo) = (g.a.offset + bi * g.a.batch_stride, g.b.offset + bi * g.b.batch_stride);
        let co = bi * g.m * g.n;
        // SAFETY: the layouts come from tensors whose every element (offset + sum of index *
        // stride) lies inside its storage, which `a` and `b` are; `c` is sized batch*m*n.
        unsafe {
            matrixmultiply::sgemm(
                g.m,
                g.k,
                g.n,
                1.0,
                a.as_ptr().add(ao),
                g.a.row_stride as isize,
                g.a.col_stride as isize,
                b.as_ptr().add(bo),
                g.b.row_stride as isize,
                g.b.col_stride as isize,
                0.0,
                c.as_mut_ptr().add(co),
                g.n as isize,
                1,
            );
        }
    }
    c
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
