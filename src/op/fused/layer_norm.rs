//! The fused LayerNorm family (see `op::fused`), its geometry shared by every backend: `rows` contiguous rows of
//! `n` f32 elements normalised over each row (PyTorch's `F.layer_norm` over the trailing dims
//! flattened), with an optional weight and bias of `n`. The composed formula's steps, in its
//! order: `c = x - mean`, `var = mean(c^2)` (biased), `y = c * rsqrt(var + eps) * w + b`, with
//! the means accumulated in f64 as the CPU's reductions are.
//!
//! One output per call, in regions the op views as its tensors:
//! - forward: `y` (`rows * n`), then each row's mean and `rsqrt(var + eps)` (`rows` each),
//!   which the backward reads instead of recomputing them;
//! - backward: `dx` (`rows * n`), then `dw` and `db` (`n` each; zeros without an affine).
//!
//! With `xhat = c * rstd` and `g = dy * w`: `dx = rstd * (g - mean(g) - xhat * mean(g * xhat))`,
//! `dw = sum over rows of dy * xhat`, `db = sum over rows of dy`.

/// The geometry and options of one fused LayerNorm call. Offsets are in elements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LayerNormArgs {
    pub rows: usize,
    pub n: usize,
    pub eps: f32,
    /// Where the input's rows start (they are contiguous).
    pub x_offset: usize,
    /// Where the weight and the bias start, when given (contiguous).
    pub w_offset: Option<usize>,
    pub b_offset: Option<usize>,
    /// The backward (inputs: x, w, b, the forward's output, the output's gradient) rather
    /// than the forward (x, w, b); absent weights and biases are bound as x and not read.
    pub backward: bool,
    /// Where the output gradient's (contiguous) rows start (backward only).
    pub dy_offset: usize,
}

use super::{Grid, Pass, Target};
use crate::op::param_layout::{kernel_params, KernelParams};

kernel_params! {
    /// layer_norm.wgsl / layer_norm.cu: one pass of the fused LayerNorm (`op::layer_norm`).
    struct LayerNormParams {
        threads,
        rows,
        n,
        /// f32 bits.
        eps,
        x_offset,
        /// 1 with a weight (a bias), and where it starts.
        has_w,
        w_offset,
        has_b,
        b_offset,
        dy_offset,
        /// Where the means start in the forward's output (the rstds follow them).
        mean_at,
        /// Chunks of rows whose partial dw and db the first stage writes to scratch.
        chunks,
    }
}

/// Rows per chunk of the GPU programs' first dw/db stage (layer_norm.wgsl's and .cu's LN_ROWS).
pub(crate) const LN_ROWS: usize = 64;

impl LayerNormArgs {
    /// The passes: the forward, or dx, a thread per row on software adapters (parts 0, 1) or
    /// a workgroup per row elsewhere (4, 5); the backward then writes dw and db's partial sums
    /// per chunk of [`LN_ROWS`] rows (2: 32 columns by chunks, the chunks strided past 65535)
    /// and adds the chunks in order (3: a thread per column).
    pub(crate) fn passes(&self, target: Target) -> Vec<Pass> {
        let with = |part: u8, threads: usize, grid: Grid| Pass {
            part,
            words: LayerNormParams { threads, ..self.params() }.words(),
            grid,
        };
        let rows = |part: u8| match target.software {
            true => with(part, self.rows, Grid::Threads(self.rows)),
            false => with(part + 4, self.rows, Grid::Groups(self.rows)),
        };
        if !self.backward {
            return vec![rows(0)];
        }
        let partials = Grid::Fixed(self.n.div_ceil(32), self.wb_chunks().min(65535));
        vec![rows(1), with(2, 0, partials), with(3, self.n, Grid::Threads(self.n))]
    }

    /// Elements of f32 scratch the call binds after its output: the first dw/db stage's
    /// partial sums, [chunks, n] for dw then db (one word forward, where nothing reads it).
    pub(crate) fn scratch(&self) -> usize {
        if self.backward {
            2 * self.wb_chunks() * self.n
        } else {
            1
        }
    }

    /// The GPU programs' parameters, `threads` left for the pass to set.
    fn params(&self) -> LayerNormParams {
        LayerNormParams {
            threads: 0,
            rows: self.rows,
            n: self.n,
            eps: self.eps.to_bits() as usize,
            x_offset: self.x_offset,
            has_w: self.w_offset.is_some() as usize,
            w_offset: self.w_offset.unwrap_or(0),
            has_b: self.b_offset.is_some() as usize,
            b_offset: self.b_offset.unwrap_or(0),
            dy_offset: self.dy_offset,
            mean_at: self.stats_at().0,
            chunks: self.wb_chunks(),
        }
    }

    /// Chunks of [`LN_ROWS`] rows whose partial weight and bias gradients the GPU programs sum
    /// first (then the chunks, in order, per column).
    pub(crate) fn wb_chunks(&self) -> usize {
        self.rows.div_ceil(LN_ROWS)
    }

    /// Elements of the forward output: `y`, then the means, then the `rstd`s.
    pub(crate) fn forward_len(&self) -> usize {
        self.rows * self.n + 2 * self.rows
    }

    /// Where the means and the `rstd`s start in the forward output.
    pub(crate) fn stats_at(&self) -> (usize, usize) {
        let at = self.rows * self.n;
        (at, at + self.rows)
    }

    /// Elements of the backward output: `dx`, then `dw`, then `db`.
    pub(crate) fn backward_len(&self) -> usize {
        self.rows * self.n + 2 * self.n
    }
}
