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

impl LayerNormArgs {
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
