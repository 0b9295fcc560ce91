//! The fused cross-entropy family (see `op::fused`), its geometry shared by every backend: `rows` contiguous rows of
//! `classes` f32 scores and one i32 class index per row (PyTorch's `F.cross_entropy` with class
//! indices, after the class dim is moved last and flattened). Per row, with
//! `lse = max + log(sum(exp(x - max)))` (the composed `log_softmax`'s steps):
//!
//! `loss = lse - (1 - eps) * x[t] - eps * mean(x)` (label smoothing `eps`; without it the last
//! term is left out, so a row of `-inf` scores stays NaN rather than becoming `0 * -inf`), and 0
//! for a row whose target is `ignore` or outside `0..classes` (the op checks the range and reports
//! it, on GPUs at the next readback; the kernels read nothing outside the row).
//!
//! The gradient of the scores is `g * (softmax(x) - (1 - eps) * onehot(t) - eps / classes)` for
//! the counted rows and 0 for the others: computed again from the scores and the saved `lse`, so
//! the forward keeps one value per row where the composed path keeps the `[rows, classes]`
//! log-probabilities.
//!
//! One output per call: the forward writes each row's loss, then each row's `lse` (`rows` each);
//! the backward writes the scores' gradient (`rows * classes`).

use super::{Grid, Pass, Target};
use crate::op::math::exp_f32;
use crate::op::param_layout::{kernel_params, KernelParams};

kernel_params! {
    /// cross_entropy.wgsl / cross_entropy.cu: one pass of the fused cross-entropy.
    struct CrossEntropyParams {
        threads,
        rows,
        classes,
        x_offset,
        t_offset,
        /// 1 with an ignored target value, and the value (i32 bits).
        has_ignore,
        ignore,
        /// Label smoothing, f32 bits.
        smoothing,
        g_offset,
    }
}

/// The geometry and options of one fused cross-entropy call. Offsets are in elements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CrossEntropyArgs {
    pub rows: usize,
    pub classes: usize,
    /// Where the scores' (contiguous) rows start.
    pub x_offset: usize,
    /// Where the (contiguous) targets start.
    pub t_offset: usize,
    /// A target value that counts for nothing.
    pub ignore: Option<i32>,
    /// Label smoothing in [0, 1].
    pub smoothing: f32,
    /// The scores' gradient (inputs: scores, targets, the forward's output, the per-row loss
    /// gradient) rather than the forward (scores, targets).
    pub backward: bool,
    /// Where the per-row gradient (contiguous) starts (backward only).
    pub g_offset: usize,
}

impl CrossEntropyArgs {
    /// The pass: a thread per row on software adapters (parts 0 and 1, forward and gradient), a
    /// workgroup per row elsewhere (2 and 3).
    pub(crate) fn passes(&self, target: Target) -> Vec<Pass> {
        let (part, grid) = match target.software {
            true => (0, Grid::Threads(self.rows)),
            false => (2, Grid::Groups(self.rows)),
        };
        vec![Pass { part: part + self.backward as u8, words: self.params().words(), grid }]
    }

    /// The GPU programs' parameters.
    fn params(&self) -> CrossEntropyParams {
        CrossEntropyParams {
            threads: self.rows,
            rows: self.rows,
            classes: self.classes,
            x_offset: self.x_offset,
            t_offset: self.t_offset,
            has_ignore: self.ignore.is_some() as usize,
            ignore: self.ignore.unwrap_or(0) as u32 as usize,
            smoothing: self.smoothing.to_bits() as usize,
            g_offset: self.g_offset,
        }
    }

    /// Elements of the forward output: the losses, then the `lse`s.
    pub(crate) fn forward_len(&self) -> usize {
        2 * self.rows
    }

    /// Elements of the backward output: the scores' gradient.
    pub(crate) fn backward_len(&self) -> usize {
        self.rows * self.classes
    }

    /// Whether row target `t` counts (in range and not ignored).
    #[inline]
    pub(crate) fn counts(&self, t: i32) -> bool {
        t >= 0 && (t as usize) < self.classes && Some(t) != self.ignore
    }

    /// The loss and `lse` of one row of scores `x` with target `t` (the CPU's kernel; the GPU
    /// programs follow the same steps).
    /// The maximum and the sum of exponentials run in eight lanes with the vectorising `exp_f32`
    /// (a serial f32 chain of libm calls took 20 ms for [4096, 1000], PyTorch 1.2). Inlined
    /// into the CPU's AVX2 copy of its loop.
    #[inline(always)]
    pub(crate) fn row_forward(&self, x: &[f32], t: i32) -> (f32, f32) {
        const LANES: usize = 8;
        let mut m = [f32::NEG_INFINITY; LANES];
        let chunks = x.chunks_exact(LANES);
        let tail = chunks.remainder();
        for c in chunks {
            for (m, &v) in m.iter_mut().zip(c) {
                *m = if v > *m || v.is_nan() { v } else { *m };
            }
        }
        let max = tail.iter().chain(&m).fold(f32::NEG_INFINITY, |m, &v| if v > m || v.is_nan() { v } else { m });
        let mut s = [0.0f32; LANES];
        let chunks = x.chunks_exact(LANES);
        let tail = chunks.remainder();
        for c in chunks {
            for (s, &v) in s.iter_mut().zip(c) {
                *s += exp_f32(v - max);
            }
        }
        let sum = tail.iter().map(|&v| exp_f32(v - max)).sum::<f32>() + s.iter().sum::<f32>();
        let lse = max + sum.ln();
        if !self.counts(t) {
            return (0.0, lse);
        }
        let mut loss = lse - (1.0 - self.smoothing) * x[t as usize];
        if self.smoothing > 0.0 {
            loss -= self.smoothing * (x.iter().sum::<f32>() / self.classes as f32);
        }
        (loss, lse)
    }

    /// The gradient of one row of scores `x` (target `t`, saved `lse`, the row's loss gradient
    /// `g`), element `j` handed to `write(j, value)` (the CPU's kernel).
    #[inline]
    pub(crate) fn row_backward(&self, x: &[f32], t: i32, lse: f32, g: f32, mut write: impl FnMut(usize, f32)) {
        if !self.counts(t) {
            (0..x.len()).for_each(|j| write(j, 0.0));
            return;
        }
        let uniform = self.smoothing / self.classes as f32;
        let d = |v: f32| g * (exp_f32(v - lse) - uniform);
        // Every element as softmax's, then the target's with its one-hot part (one loop that
        // vectorises, where a branch on the target inside kept it scalar).
        for (j, &v) in x.iter().enumerate() {
            write(j, d(v));
        }
        let t = t as usize;
        write(t, d(x[t]) - g * (1.0 - self.smoothing));
    }
}
