//! The fused attention family's geometry and semantics, shared by every backend: scaled
//! dot-product attention over `[n1, n2, L, E]` queries, `[n1, n2, S, E]` keys and `[n1, n2, S,
//! Ev]` values, computed row by row from each row's log-sum-exp, so no `[n1, n2, L, S]` tensor
//! of scores or probabilities is ever stored (the idea of FlashAttention, Dao et al. 2022: the
//! backward recomputes the probabilities from the saved log-sum-exp).
//!
//! A call's single output holds several results side by side, each a contiguous region that
//! the op views as its own tensor:
//! - forward: the output `[n1, n2, L, Ev]`, then the log-sum-exp of each query row `[n1 * n2 *
//!   L]` (what the backward needs; `-inf` for a row that may attend to nothing, whose output is
//!   zeros as PyTorch's);
//! - backward: the gradients of the query, the key and the value, then `D_i = dO_i . O_i` per
//!   query row (scratch the GPU programs share between their passes).
//!
//! Probabilities: `p_ij = exp(scale * q_i . k_j + mask_ij - lse_i)`, 0 where masked (`-inf`),
//! past the causal diagonal (`j > i`, PyTorch's top-left alignment) or in a row with nothing to
//! attend to. Dropout keeps `p_ij` when sample `(n * L + i) * S + j` of the seed's counter-based
//! generator ([`super::fill::uniform`], as `rand` over `[n1, n2, L, S]` gives it) is at least
//! `p`, scaled by `1 / (1 - p)`: the same mask as the composed path's `dropout` with that seed.

/// Where one operand's rows are: element `(a, b, row, col)` of a `[n1, n2, rows, cols]` view
/// is at `offset + a * s0 + b * s1 + row * s2 + col` (the last stride is 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RowsView {
    pub offset: usize,
    pub s0: usize,
    pub s1: usize,
    pub s2: usize,
}

impl RowsView {
    /// The first element of row `row` of head `n` (heads numbered `a * n2 + b`).
    #[inline]
    pub(crate) fn row(&self, n: usize, n2: usize, row: usize) -> usize {
        self.offset + (n / n2) * self.s0 + (n % n2) * self.s1 + row * self.s2
    }
}

/// The geometry and options of one fused attention call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct AttentionArgs {
    /// Leading dims: heads are numbered `a * n2 + b`.
    pub n1: usize,
    pub n2: usize,
    /// Query rows (L), key and value rows (S).
    pub l: usize,
    pub s: usize,
    /// Query and key width (E), value width (Ev).
    pub e: usize,
    pub ev: usize,
    /// Multiplies `q . k`.
    pub scale: f32,
    /// Row `i` attends to keys `j <= i` only.
    pub causal: bool,
    /// Dropout on the probabilities: (p, the kept values' multiplier `1 / (1 - p)` rounded
    /// once from f64 as the composed path's, seed), with 0 < p < 1.
    pub dropout: Option<(f32, f32, u64)>,
    /// Where the operands' rows are, in the order q, k, v, and the mask (`[n1, n2, L, S]`,
    /// broadcast strides allowed; its last stride is `mask_col`).
    pub q: RowsView,
    pub k: RowsView,
    pub v: RowsView,
    pub mask: Option<(RowsView, usize)>,
    /// The output gradient's rows (backward only).
    pub dout: Option<RowsView>,
}

impl AttentionArgs {
    /// Heads (`n1 * n2`).
    pub(crate) fn heads(&self) -> usize {
        self.n1 * self.n2
    }

    /// Elements of the forward output: the output, then one log-sum-exp per query row.
    pub(crate) fn forward_len(&self) -> usize {
        self.lse_at() + self.heads() * self.l
    }

    /// Where the log-sum-exps start in the forward output.
    pub(crate) fn lse_at(&self) -> usize {
        self.heads() * self.l * self.ev
    }

    /// Where the key's and the value's gradients and the `D` scratch start in the backward
    /// output (the query's is first).
    pub(crate) fn grad_at(&self) -> [usize; 3] {
        let h = self.heads();
        let dk = h * self.l * self.e;
        let dv = dk + h * self.s * self.e;
        [dk, dv, dv + h * self.s * self.ev]
    }

    /// Elements of the backward output.
    pub(crate) fn backward_len(&self) -> usize {
        self.grad_at()[2] + self.heads() * self.l
    }

    /// The multiplier dropout applies to `p_ij` of head `n`: `1 / (1 - p)` where kept, 0 where
    /// dropped, 1 without dropout.
    #[inline]
    pub(crate) fn keep(&self, n: usize, i: usize, j: usize) -> f32 {
        match self.dropout {
            None => 1.0,
            Some((p, scale, seed)) => {
                let at = ((n * self.l + i) * self.s + j) as u64;
                if super::fill::uniform(seed, at) >= p {
                    scale
                } else {
                    0.0
                }
            }
        }
    }
}
