//! A copy of the unary elementwise loop compiled for AVX2 (x86-64-v3), picked at run time:
//! native builds target baseline x86-64 (SSE2, 4 f32 lanes), so a loop such as GELU's polynomial
//! erf ran half as wide as the machine allows (matmul already dispatches inside `gemm`). The
//! same scalar code is compiled twice; no FMA contraction or reassociation is enabled, so both
//! copies give the same bits. A GPT training step on a 2-core EPYC spent 1.92 ms in GELU and
//! 1.74 in its backward with SSE2, 1.15 and 0.9 through this copy. Binary ops, which are bound by
//! memory rather than arithmetic, got slower through the same treatment (add 1.0 -> 1.6 ms a
//! step, mul 0.7 -> 1.1), so they keep the baseline loop.

use std::mem::MaybeUninit;

/// Whether this CPU runs AVX2 (checked once; `is_x86_feature_detected!` caches it).
#[inline]
pub(super) fn has_avx2() -> bool {
    std::is_x86_feature_detected!("avx2")
}

/// `out[i] = f(a[i])` over `out` (no longer than `a`), compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2 ([`has_avx2`]).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn map_avx2<T: Copy, U>(a: &[T], out: &mut [MaybeUninit<U>], f: &impl Fn(T) -> U) {
    for (o, &x) in out.iter_mut().zip(a) {
        o.write(f(x));
    }
}

/// Runs `f` compiled for AVX2: its body (and what it inlines) is generated inside this frame.
/// For loops bound by arithmetic over rows (LayerNorm's statistics and its backward), whose
/// fixed summation order gives the baseline's bits.
///
/// # Safety
/// The CPU must support AVX2 ([`has_avx2`]).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn run_avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// `f()`, through [`run_avx2`] where the CPU has AVX2.
#[inline(always)]
pub(super) fn wide<R>(f: impl FnOnce() -> R) -> R {
    if has_avx2() {
        // SAFETY: AVX2 was detected.
        unsafe { run_avx2(f) }
    } else {
        f()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::unary::UnaryOp;

    /// The AVX2 copy gives the baseline loop's bits for the polynomial ops it speeds up.
    #[test]
    fn the_avx2_copy_gives_the_same_bits() {
        if !has_avx2() {
            return;
        }
        let xs: Vec<f32> = (0..20_000).map(|i| (i as f32 - 10_000.0) * 0.0013).chain([f32::NAN, 0.0, -0.0]).collect();
        for op in [UnaryOp::Gelu, UnaryOp::GeluGrad, UnaryOp::Exp, UnaryOp::Tanh, UnaryOp::Erf, UnaryOp::Sigmoid] {
            let want: Vec<u32> = xs.iter().map(|&x| op.f32(x).to_bits()).collect();
            let mut out = vec![MaybeUninit::<f32>::uninit(); xs.len()];
            // SAFETY: AVX2 was detected above.
            unsafe { map_avx2(&xs, &mut out, &|x| op.f32(x)) };
            // SAFETY: map_avx2 wrote every element.
            let got: Vec<u32> = out.iter().map(|o| unsafe { o.assume_init() }.to_bits()).collect();
            assert_eq!(got, want, "{op:?}");
        }
    }
}
