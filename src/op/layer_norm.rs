//! The fused LayerNorm family's geometry, shared by every backend: `rows` contiguous rows of
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
    /// Where the output gradient's (contiguous) rows start (backward only).
    pub dy_offset: usize,
}

use super::params::LayerNormParams;

/// Rows per chunk of the GPU programs' first dw/db stage (layer_norm.wgsl's and .cu's LN_ROWS).
pub(crate) const LN_ROWS: usize = 64;

impl LayerNormArgs {
    /// The GPU programs' parameters, `threads` left for the pass to set.
    pub(crate) fn params(&self) -> LayerNormParams {
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
