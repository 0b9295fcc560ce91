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

use super::params::AttentionParams;
use crate::shaders::{AttentionPass, KernelKey, TiledPass};

/// Output columns one GPU thread accumulates (attention.wgsl's and attention.cu's CHUNK).
pub(crate) const CHUNK: usize = 32;

/// Rows (threads) a workgroup or block of the tiled programs takes (attention_tiled.wgsl's and
/// attention_tiled.cu's BR).
pub(crate) const TILE_ROWS: usize = 64;

/// The row widths the tiled programs are built for: a call's rows are padded to the first that
/// holds both `E` and `Ev`; wider rows take the thread-per-row programs (registers run out).
pub(crate) const TILED_WIDTHS: [u8; 3] = [16, 32, 64];

/// One launch of the attention family: its program, its parameters and how many threads
/// (`tiled`: [`TILE_ROWS`]-thread workgroups, as `params.threads` says) it runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AttentionLaunch {
    pub key: KernelKey,
    pub params: AttentionParams,
    /// `params.threads` counts workgroups of [`TILE_ROWS`] threads, not threads.
    pub tiled: bool,
}

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

/// A view's (offset, s0, s1, s2) as parameter words.
fn words(v: &RowsView) -> [usize; 4] {
    [v.offset, v.s0, v.s1, v.s2]
}

impl AttentionArgs {
    /// The programs' parameters shared by every pass (wgpu and CUDA); [`Self::launches`] sets
    /// each pass's `threads` and `chunks`.
    fn params(&self) -> AttentionParams {
        let (m, mcol) = self.mask.unwrap_or((RowsView { offset: 0, s0: 0, s1: 0, s2: 0 }, 0));
        let (p_drop, drop_scale, seed) = self.dropout.unwrap_or((0.0, 1.0, 0));
        let [dk_at, dv_at, d_at] = self.grad_at();
        AttentionParams {
            threads: 0,
            chunks: 1,
            n2: self.n2,
            l: self.l,
            s: self.s,
            e: self.e,
            ev: self.ev,
            q: words(&self.q),
            k: words(&self.k),
            v: words(&self.v),
            m: [m.offset, m.s0, m.s1, m.s2, mcol],
            masked: self.mask.is_some() as usize,
            g: self.dout.as_ref().map_or([0; 4], words),
            scale: self.scale.to_bits() as usize,
            causal: self.causal as usize,
            dropout: self.dropout.is_some() as usize,
            drop_p: p_drop.to_bits() as usize,
            drop_scale: drop_scale.to_bits() as usize,
            key_lo: seed as u32 as usize,
            key_hi: (seed >> 32) as usize,
            lse_at: self.lse_at(),
            dk_at,
            dv_at,
            d_at,
        }
    }

    /// The row width of the tiled programs for this call, `None` where its rows are too wide.
    pub(crate) fn tiled_width(&self) -> Option<u8> {
        let w = self.e.max(self.ev);
        TILED_WIDTHS.into_iter().find(|&t| w <= t as usize)
    }

    /// The GPU programs' launches in order. Tiled where [`Self::tiled_width`] allows (the
    /// forward one pass; the backward `D`, then dq, dk and dv, each a workgroup per
    /// [`TILE_ROWS`] rows of a head), else a thread per row and chunk of output columns.
    pub(crate) fn launches(&self, backward: bool) -> Vec<AttentionLaunch> {
        let Some(width) = self.tiled_width() else {
            return self
                .row_launches(backward)
                .into_iter()
                .map(|(pass, params)| AttentionLaunch { key: KernelKey::Attention { pass }, params, tiled: false })
                .collect();
        };
        let (ql, kl) = (self.l.div_ceil(TILE_ROWS) * self.heads(), self.s.div_ceil(TILE_ROWS) * self.heads());
        let base = self.params();
        let mut out = Vec::new();
        let passes = if backward {
            // D first, as the thread-per-row backward has it.
            out.extend(self.row_launches(true).into_iter().take(1).map(|(pass, params)| AttentionLaunch {
                key: KernelKey::Attention { pass },
                params,
                tiled: false,
            }));
            vec![(TiledPass::GradQ, ql), (TiledPass::GradK, kl), (TiledPass::GradV, kl)]
        } else {
            vec![(TiledPass::Forward, ql)]
        };
        out.extend(passes.into_iter().filter(|&(_, groups)| groups > 0).map(|(pass, groups)| AttentionLaunch {
            key: KernelKey::AttentionTiled { pass, width },
            params: AttentionParams { threads: groups, ..base },
            tiled: true,
        }));
        out
    }

    /// The thread-per-row programs' passes in order, each with its parameters (a thread per row
    /// and chunk of [`CHUNK`] output columns: `threads`, `chunks`): the forward's log-sum-exps
    /// then output, or the backward's `D`, then dq, dk and dv. Passes with no thread are left out.
    fn row_launches(&self, backward: bool) -> Vec<(AttentionPass, AttentionParams)> {
        let (ql, kl) = (self.heads() * self.l, self.heads() * self.s);
        let passes = if backward {
            vec![
                (AttentionPass::Delta, ql, 1),
                (AttentionPass::GradQ, ql, self.e),
                (AttentionPass::GradK, kl, self.e),
                (AttentionPass::GradV, kl, self.ev),
            ]
        } else {
            vec![(AttentionPass::Lse, ql, 1), (AttentionPass::Out, ql, self.ev)]
        };
        let base = self.params();
        passes
            .into_iter()
            .filter_map(|(pass, rows, cols)| {
                let chunks = cols.div_ceil(CHUNK).max(1);
                let threads = rows * chunks;
                (threads > 0).then_some((pass, AttentionParams { threads, chunks, ..base }))
            })
            .collect()
    }

    /// An error unless the GPU programs' u32 counters (dropout's, the row numbers) cover this
    /// call on `device`.
    pub(crate) fn check_counters(&self, device: impl FnOnce() -> String) -> crate::error::Result<()> {
        if self.heads().saturating_mul(self.l).saturating_mul(self.s) <= u32::MAX as usize {
            return Ok(());
        }
        Err(crate::error::Error::TooLarge {
            op: "scaled_dot_product_attention",
            device: device(),
            bytes: (self.heads() * self.l * self.s) as u64,
            limit_name: "heads * L * S (u32 counters of the attention programs)",
            limit: u32::MAX as u64,
        })
    }

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

    /// The multipliers dropout applies to `p_ij` of head `n` for keys `0..out.len()` of query
    /// row `i`: `1 / (1 - p)` where kept, 0 where dropped, 1 without dropout. A row at a time, so
    /// the samples are drawn eight at a time ([`super::fill::uniform_run`]).
    #[inline(always)]
    pub(crate) fn keep_row(&self, n: usize, i: usize, out: &mut [f32]) {
        match self.dropout {
            None => out.fill(1.0),
            Some((p, scale, seed)) => {
                super::fill::uniform_run(seed, ((n * self.l + i) * self.s) as u64, out);
                out.iter_mut().for_each(|u| *u = if *u >= p { scale } else { 0.0 });
            }
        }
    }
}
