//! The fused attention family (see `op::fused`), its geometry and semantics shared by every
//! backend: scaled
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
//! generator ([`crate::op::fill::uniform`], as `rand` over `[n1, n2, L, S]` gives it) is at least
//! `p`, scaled by `1 / (1 - p)`: the same mask as the composed path's `dropout` with that seed.

use super::{Grid, Pass};
use crate::op::param_layout::{kernel_params, KernelParams};

kernel_params! {
    /// attention.wgsl / attention_tiled.wgsl and their CUDA twins: one pass of the fused
    /// attention, a thread per (row, chunk of CHUNK output columns) or a workgroup per tile of
    /// rows. Rows are numbered head-major (`n * L + i` or `n * S + j`).
    struct AttentionParams {
        /// Threads of this pass (rows times chunks; tiles in a tiled pass) and chunks per row.
        threads,
        chunks,
        n2,
        l,
        s,
        e,
        ev,
        /// Each operand's offset and strides over (n1, n2, row).
        q[4],
        k[4],
        v[4],
        /// The mask's (and its column stride); `masked` is 1 when there is one.
        m[5],
        masked,
        /// The output gradient's.
        g[4],
        /// The output's rows in the forward's output (offset and strides, as the operands').
        o[4],
        /// f32 bits of the scale; 1 for causal.
        scale,
        causal,
        /// 1 with dropout: its probability and kept multiplier (f32 bits) and the seed's words.
        dropout,
        drop_p,
        drop_scale,
        key_lo,
        key_hi,
        /// Where the log-sum-exps start in the forward's output.
        lse_at,
        /// The gradients' rows in the backward's output (offset and strides, as the operands').
        dq[4],
        dk[4],
        dv[4],
        /// Where `D` starts in the backward's output.
        d_at,
    }
}

/// The passes of the thread-per-row programs (attention.wgsl, attention.cu): the forward is
/// `Lse` then `Out`, the backward `Delta`, then `GradQ`, `GradK` and `GradV`, all writing
/// regions of one output buffer. Their program parts are their places in [`Self::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum AttentionPass {
    /// Each query row's log-sum-exp.
    Lse,
    /// The output, from the log-sum-exps.
    Out,
    /// `D_i = dO_i . O_i` per query row.
    Delta,
    GradQ,
    GradK,
    GradV,
}

impl AttentionPass {
    /// Every pass, in the order of their `PART` numbers.
    pub(crate) const ALL: [AttentionPass; 6] = [
        AttentionPass::Lse,
        AttentionPass::Out,
        AttentionPass::Delta,
        AttentionPass::GradQ,
        AttentionPass::GradK,
        AttentionPass::GradV,
    ];
}

/// The passes of the tiled programs (attention_tiled.wgsl, attention_tiled.cu;
/// [`AttentionArgs::tiled_width`]): the forward is one pass, the backward
/// `AttentionPass::Delta` then the three gradients.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum TiledPass {
    /// The output and the log-sum-exps.
    Forward,
    GradQ,
    GradK,
    GradV,
}

impl TiledPass {
    /// Every pass, in the order of their `PART` numbers in the tiled programs.
    pub(crate) const ALL: [TiledPass; 4] = [TiledPass::Forward, TiledPass::GradQ, TiledPass::GradK, TiledPass::GradV];
}

/// The first program part of the tiled programs: part `TILED_PART + 4 * w + t` is tiled pass `t`
/// for rows of `TILED_WIDTHS[w]`; parts below it are the thread-per-row passes.
const TILED_PART: u8 = 16;

/// The program part of tiled pass `t` for rows of `width`.
fn tiled_part(t: TiledPass, width: u8) -> u8 {
    let w = TILED_WIDTHS.iter().position(|&x| x == width).unwrap_or(0) as u8;
    TILED_PART + 4 * w + t as u8
}

/// What program part `part` is: a thread-per-row pass (its `PART`), or a tiled pass (its `PART`
/// and row width).
pub(crate) fn decode(part: u8) -> (u8, Option<u8>) {
    match part.checked_sub(TILED_PART) {
        Some(t) => (t % 4, TILED_WIDTHS.get((t / 4) as usize).copied()),
        None => (part, None),
    }
}

/// Every program part the family has.
pub(crate) fn parts() -> Vec<u8> {
    let rows = (0..AttentionPass::ALL.len() as u8).collect::<Vec<_>>();
    let tiled = TILED_WIDTHS.iter().flat_map(|&w| TiledPass::ALL.map(move |t| tiled_part(t, w)));
    rows.into_iter().chain(tiled).collect()
}

/// The tiled programs' constants for rows of `width` elements: `V` vec4s a row, `BC` rows a
/// tile, (`TILE` = `V * BC` vec4s a tile: 8 KiB for both tiles, which every adapter has).
pub(crate) fn tile(width: u8) -> (u32, u32) {
    let v = (width as u32).div_ceil(4).max(1);
    (v, 256 / v)
}

/// Output columns one GPU thread accumulates (attention.wgsl's and attention.cu's CHUNK).
pub(crate) const CHUNK: usize = 32;

/// Rows (threads) a workgroup or block of the tiled programs takes (attention_tiled.wgsl's and
/// attention_tiled.cu's BR).
pub(crate) const TILE_ROWS: usize = 64;

/// The row widths the tiled programs are built for: a call's rows are padded to the first that
/// holds both `E` and `Ev`; wider rows take the thread-per-row programs (registers run out).
pub(crate) const TILED_WIDTHS: [u8; 3] = [16, 32, 64];

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
    /// The output gradient's rows: the backward (inputs q, k, v, the mask, the forward's
    /// output and the output's gradient) rather than the forward (q, k, v, the mask).
    pub dout: Option<RowsView>,
    /// Where the backward writes the query's, key's and value's gradients within the first
    /// `grad_at()[2]` elements of its output, when not each a contiguous region in turn (see
    /// [`Self::grad_views`]): the inputs' own layout when they tile one buffer (a `qkv`
    /// split's heads), so that their gradients join with no copy: the (n1, n2, row) strides
    /// the three share and the step from one gradient's start to the next. wgpu programs only.
    pub grads: Option<([usize; 3], usize)>,
    /// Where the forward writes the output's rows within its first `lse_at()` elements, when
    /// not contiguous (see [`Self::out_view`]): dense in the query's dim order, so that a
    /// `[B, H, T, hs]` result of heads split from `[B, T, C]` is `[B, T, C]` once transposed
    /// back, with no copy. wgpu programs only.
    pub out: Option<[usize; 3]>,
}

/// A view's (offset, s0, s1, s2) as parameter words.
fn words(v: &RowsView) -> [usize; 4] {
    [v.offset, v.s0, v.s1, v.s2]
}

impl AttentionArgs {
    /// The programs' parameters shared by every pass (wgpu and CUDA); [`Self::passes`] sets
    /// each pass's `threads` and `chunks`.
    fn params(&self) -> AttentionParams {
        let (m, mcol) = self.mask.unwrap_or((RowsView { offset: 0, s0: 0, s1: 0, s2: 0 }, 0));
        let (p_drop, drop_scale, seed) = self.dropout.unwrap_or((0.0, 1.0, 0));
        let [_, _, d_at] = self.grad_at();
        let [dq, dk, dv] = self.grad_views();
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
            o: words(&self.out_view()),
            scale: self.scale.to_bits() as usize,
            causal: self.causal as usize,
            dropout: self.dropout.is_some() as usize,
            drop_p: p_drop.to_bits() as usize,
            drop_scale: drop_scale.to_bits() as usize,
            key_lo: seed as u32 as usize,
            key_hi: (seed >> 32) as usize,
            lse_at: self.lse_at(),
            dq: words(&dq),
            dk: words(&dk),
            dv: words(&dv),
            d_at,
        }
    }

    /// Where the forward writes the output's rows: [`Self::out`], else contiguous.
    pub(crate) fn out_view(&self) -> RowsView {
        let (l, ev) = (self.l, self.ev);
        let [s0, s1, s2] = self.out.unwrap_or([self.n2 * l * ev, l * ev, ev]);
        RowsView { offset: 0, s0, s1, s2 }
    }

    /// Where the backward writes each gradient's rows: [`Self::grads`], else contiguous
    /// regions one after the other (`grad_at`).
    pub(crate) fn grad_views(&self) -> [RowsView; 3] {
        if let Some(([s0, s1, s2], step)) = self.grads {
            return [0, step, 2 * step].map(|offset| RowsView { offset, s0, s1, s2 });
        }
        let [dk_at, dv_at, _] = self.grad_at();
        let region = |offset, rows, width| RowsView { offset, s0: self.n2 * rows * width, s1: rows * width, s2: width };
        [region(0, self.l, self.e), region(dk_at, self.s, self.e), region(dv_at, self.s, self.ev)]
    }

    /// The row width of the tiled programs for this call, `None` where its rows are too wide.
    pub(crate) fn tiled_width(&self) -> Option<u8> {
        let w = self.e.max(self.ev);
        TILED_WIDTHS.into_iter().find(|&t| w <= t as usize)
    }

    /// Whether this call is the backward.
    pub(crate) fn backward(&self) -> bool {
        self.dout.is_some()
    }

    /// The GPU programs' passes in order. Tiled where [`Self::tiled_width`] allows (the forward
    /// one pass; the backward `D`, then dq, dk and dv, each a workgroup per [`TILE_ROWS`] rows
    /// of a head), else a thread per row and chunk of output columns.
    pub(crate) fn passes(&self) -> Vec<Pass> {
        let backward = self.backward();
        let row_pass = |(pass, p): (AttentionPass, AttentionParams)| Pass {
            part: pass as u8,
            words: p.words(),
            grid: Grid::Threads(p.threads),
        };
        let Some(width) = self.tiled_width() else {
            return self.row_launches(backward).into_iter().map(row_pass).collect();
        };
        let (ql, kl) = (self.l.div_ceil(TILE_ROWS) * self.heads(), self.s.div_ceil(TILE_ROWS) * self.heads());
        let base = self.params();
        let mut out = Vec::new();
        let passes = if backward {
            // D first, as the thread-per-row backward has it.
            out.extend(self.row_launches(true).into_iter().take(1).map(row_pass));
            vec![(TiledPass::GradQ, ql), (TiledPass::GradK, kl), (TiledPass::GradV, kl)]
        } else {
            vec![(TiledPass::Forward, ql)]
        };
        out.extend(passes.into_iter().filter(|&(_, groups)| groups > 0).map(|(pass, groups)| Pass {
            part: tiled_part(pass, width),
            words: AttentionParams { threads: groups, ..base }.words(),
            grid: Grid::Blocks(groups, TILE_ROWS),
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
    /// the samples are drawn eight at a time ([`crate::op::fill::uniform_run`]).
    #[inline(always)]
    pub(crate) fn keep_row(&self, n: usize, i: usize, out: &mut [f32]) {
        match self.dropout {
            None => out.fill(1.0),
            Some((p, scale, seed)) => {
                crate::op::fill::uniform_run(seed, ((n * self.l + i) * self.s) as u64, out);
                out.iter_mut().for_each(|u| *u = if *u >= p { scale } else { 0.0 });
            }
        }
    }
}
