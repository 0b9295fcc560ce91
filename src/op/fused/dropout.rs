//! Fused dropout (`nn::dropout`), a fused family (see `op::fused`): the mask of
//! `rand(shape, seed) >= p` (`op::fill`'s counter-based generator, as fused attention's dropout)
//! applied in one pass, dropout.wgsl and dropout.cu on GPUs, [`DropoutArgs::apply`] on the CPU.
//! The gradient is the same call on the gradient, so nothing but the seed is kept for backward.

use super::{Grid, Pass};
use crate::dtype::DType;
use crate::op::param_layout::{kernel_params, KernelParams};

kernel_params! {
    /// dropout.wgsl / dropout.cu: a contiguous read scaled where the generator keeps it, a
    /// contiguous write.
    struct DropoutParams {
        numel,
        src_offset,
        dst_offset,
        key_lo,
        key_hi,
        /// The counter of the first element (a piece continues its counters): all of it on
        /// CUDA, its low 32 bits on wgpu, which reads the rest from `first_hi`.
        first,
        first_hi,
        /// Kept where the sample's top 24 bits are at least this (`DropoutArgs::threshold`).
        threshold,
        /// The kept elements' scale, `1 / (1 - p)`, as f32 bits.
        scale_bits,
    }
}

/// Fused dropout (`nn::dropout`): element `i` of the input is multiplied by `scale` where
/// sample `i` of `seed` ([`crate::op::fill::uniform`]) is at least `p`, and by 0 elsewhere: the mask of
/// `rand(shape, seed) >= p` (and of fused attention's dropout), applied in one pass. The
/// gradient is the same call on the output's gradient, so nothing is saved for backward.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct DropoutArgs {
    /// Elements.
    pub n: usize,
    /// Where the (contiguous) source starts.
    pub src_offset: usize,
    /// f32, or f16 where the device has it (computed in f32, rounded once).
    pub dtype: DType,
    /// The probability of zeroing an element, in (0, 1), as f32 (what samples compare to).
    pub p: f32,
    /// The kept elements' scale, `1 / (1 - p)`.
    pub scale: f32,
    /// The generator's key.
    pub seed: u64,
}

impl DropoutArgs {
    /// Dropout of `n` elements of `dtype` from `src_offset` on, with probability `p` (in
    /// (0, 1)) under `seed`.
    pub(crate) fn new(n: usize, src_offset: usize, dtype: DType, p: f64, seed: u64) -> DropoutArgs {
        DropoutArgs { n, src_offset, dtype, p: p as f32, scale: (1.0 / (1.0 - p)) as f32, seed }
    }

    /// The kept samples' least 24-bit word: a sample `k * 2^-24` is at least `p` exactly when
    /// `k >= ceil(p * 2^24)` (both sides exact), so the GPU programs compare integers.
    pub(crate) fn threshold(&self) -> u32 {
        (f64::from(self.p) * 16_777_216.0).ceil() as u32
    }

    /// The pass over `n` elements read from `src_offset` and written from `dst_offset`, from
    /// counter `first` on (the whole call, or a piece of it).
    pub(crate) fn pass(&self, n: usize, first: usize, src_offset: usize, dst_offset: usize) -> Pass {
        let p = DropoutParams {
            numel: n,
            src_offset,
            dst_offset,
            key_lo: self.seed as u32 as usize,
            key_hi: (self.seed >> 32) as usize,
            first,
            first_hi: (first as u64 >> 32) as usize,
            threshold: self.threshold() as usize,
            scale_bits: self.scale.to_bits() as usize,
        };
        Pass { part: 0, words: p.words(), grid: Grid::Threads(n) }
    }

    /// Elements `first..first + x.len()` of the fused dropout of `x` into `out` (the CPU's
    /// kernel; samples drawn eight at a time by [`crate::op::fill::uniform_run`]). Each element is multiplied
    /// by its multiplier, `scale` or 0, as PyTorch's kernels and the composed formula do (a
    /// dropped infinity is NaN), which also keeps the loop free of branches for the vectoriser.
    #[inline(always)]
    pub(crate) fn apply(&self, first: u64, x: &[f32], out: &mut [f32]) {
        let (p, scale) = (self.p, self.scale);
        super::super::fill::uniform_run(self.seed, first, out);
        for (o, &v) in out.iter_mut().zip(x) {
            let m = if *o >= p { scale } else { 0.0 };
            *o = v * m;
        }
    }
}
