//! The fused attention family on the CPU (semantics in `op::fused::attention`): heads split across
//! threads, each head taken in blocks of query rows whose scores live in two scratch blocks of
//! at most [`BLOCK`] floats (L2-sized), never a `[heads, L, S]` tensor; the block products go
//! through `gemm_block` (the `gemm` crate natively, wasm_gemm in wasm). A causal block computes
//! only the keys up to its last row. The output and the gradients go where the call's views put
//! them (`AttentionArgs::out`, `grads`): a head's rows straight into place where they are
//! contiguous, else through a scratch block copied row by row (heads split from a `[B, T, C]`
//! projection, whose rows interleave with the other heads').

use super::gemm::gemm_block;
use super::{par, wide};
use crate::op::fused::attention::{AttentionArgs, RowsView};
use crate::op::math::exp_nonpositive;
use crate::op::MatOperand;

/// The operands' elements (each viewed through its `RowsView` in the call's args).
pub(super) struct Inputs<'a> {
    pub q: &'a [f32],
    pub k: &'a [f32],
    pub v: &'a [f32],
    pub mask: Option<&'a [f32]>,
    /// The output's gradient (backward).
    pub dout: Option<&'a [f32]>,
}

/// Scores per scratch block (256 KB of f32): a block holds `BLOCK / S` query rows.
const BLOCK: usize = 1 << 16;

/// The `[rows, cols]` matrix of head `n` starting at row `row0` of `view`, as a product operand
/// (or transposed: `[cols, rows]`).
fn mat(view: &RowsView, a: &AttentionArgs, n: usize, row0: usize, transposed: bool) -> MatOperand {
    let offset = view.row(n, a.n2, row0);
    let (row_stride, col_stride) = if transposed { (1, view.s2) } else { (view.s2, 1) };
    MatOperand { offset, batch_stride: 0, row_stride, col_stride }
}

/// A contiguous block of `cols` columns as a product operand (or transposed).
fn block(cols: usize, transposed: bool) -> MatOperand {
    let (row_stride, col_stride) = if transposed { (1, cols) } else { (cols, 1) };
    MatOperand { offset: 0, batch_stride: 0, row_stride, col_stride }
}

/// Query rows per block.
fn block_rows(a: &AttentionArgs) -> usize {
    (BLOCK / a.s.max(1)).clamp(1, a.l.max(1))
}

/// The scores of query rows `i0..i0 + rows` of head `n` against keys `0..kend` into `x`
/// (row-major, `kend` columns): `scale * q . k + mask`, `-inf` past the causal diagonal.
fn scores(t: &Inputs, a: &AttentionArgs, n: usize, (i0, rows, kend): (usize, usize, usize), x: &mut [f32]) {
    let q = mat(&a.q, a, n, i0, false);
    let kt = mat(&a.k, a, n, 0, true);
    gemm_block(t.q, q, t.k, kt, (rows, kend, a.e), x, false);
    for (r, row) in x.chunks_exact_mut(kend).take(rows).enumerate() {
        let i = i0 + r;
        row.iter_mut().for_each(|s| *s *= a.scale);
        if let (Some((m, col)), Some(mv)) = (a.mask, t.mask) {
            let at = m.row(n, a.n2, i);
            for (j, s) in row.iter_mut().enumerate() {
                *s += mv[at + j * col];
            }
        }
        if a.causal {
            row.iter_mut().skip(i + 1).for_each(|s| *s = f32::NEG_INFINITY);
        }
    }
}

/// Lanes of the row loops: eight independent accumulators, which the compiler keeps in one
/// vector register (a single f32 accumulator is a serial chain it may not reorder).
const LANES: usize = 8;

/// The largest score of a row (`-inf` when every score is masked).
fn row_max(row: &[f32]) -> f32 {
    let mut acc = [f32::NEG_INFINITY; LANES];
    let chunks = row.chunks_exact(LANES);
    let tail = chunks.remainder();
    for c in chunks {
        for (a, &x) in acc.iter_mut().zip(c) {
            *a = if x > *a { x } else { *a };
        }
    }
    tail.iter().chain(&acc).fold(f32::NEG_INFINITY, |m, &x| if x > m { x } else { m })
}

/// `exp(x - max)` of each score in place (masked `-inf` scores become 0), and their sum.
fn exp_in_place(row: &mut [f32], max: f32) -> f32 {
    let mut acc = [0.0f32; LANES];
    let mut chunks = row.chunks_exact_mut(LANES);
    for c in &mut chunks {
        for (a, x) in acc.iter_mut().zip(c.iter_mut()) {
            *x = exp_nonpositive(*x - max);
            *a += *x;
        }
    }
    let mut sum: f32 = acc.iter().sum();
    for x in chunks.into_remainder() {
        *x = exp_nonpositive(*x - max);
        sum += *x;
    }
    sum
}

/// The keys a block of rows ending before `i1` reads.
fn keys_for(a: &AttentionArgs, i1: usize) -> usize {
    if a.causal {
        i1.min(a.s)
    } else {
        a.s
    }
}

/// Rows `i0..i0 + rows` (`width` wide) of head `n` under `view`, from `src` (row-major): one
/// copy where the head's rows are contiguous, else row by row.
///
/// # Safety
/// Those rows must lie inside `dst`'s slice and be written by this part alone.
unsafe fn put_rows(
    dst: par::Disjoint<f32>,
    view: &RowsView,
    a: &AttentionArgs,
    (n, i0, rows, width): (usize, usize, usize, usize),
    src: &[f32],
) {
    let runs = if view.s2 == width { 1 } else { rows };
    let len = rows * width / runs;
    for r in 0..runs {
        let at = view.row(n, a.n2, i0 + r);
        // SAFETY: the caller's contract.
        unsafe { dst.slice(at..at + len) }.copy_from_slice(&src[r * len..(r + 1) * len]);
    }
}

/// The forward: `[output, log-sum-exps]` as `AttentionArgs::forward_len` lays them out, the
/// output's rows where [`AttentionArgs::out_view`] puts them.
pub(super) fn forward(t: &Inputs, a: &AttentionArgs) -> Vec<f32> {
    let mut out = super::alloc::zeroed::<f32>(a.forward_len());
    let (heads, lse_at, ov) = (a.heads(), a.lse_at(), a.out_view());
    let dst = par::Disjoint::new(&mut out);
    let rows_per = block_rows(a);
    par::split(par::threads(), heads, |hs| {
        let mut x = vec![0.0f32; rows_per * a.s];
        // A block of output rows before they go into place.
        let mut ob = vec![0.0f32; rows_per * a.ev];
        // Dropout's multipliers of one row.
        let mut keep = vec![0.0f32; if a.dropout.is_some() { a.s } else { 0 }];
        for n in hs {
            // SAFETY: head n's log-sum-exps, written by this part alone.
            let lse = unsafe { dst.slice(lse_at + n * a.l..lse_at + (n + 1) * a.l) };
            for i0 in (0..a.l).step_by(rows_per) {
                let rows = rows_per.min(a.l - i0);
                let kend = keys_for(a, i0 + rows);
                if kend == 0 {
                    // No keys: nothing to attend to, a zero output.
                    lse[i0..i0 + rows].fill(f32::NEG_INFINITY);
                    continue;
                }
                scores(t, a, n, (i0, rows, kend), &mut x);
                for (r, row) in x.chunks_exact_mut(kend).take(rows).enumerate() {
                    let i = i0 + r;
                    let max = row_max(row);
                    if max == f32::NEG_INFINITY {
                        lse[i] = f32::NEG_INFINITY;
                        row.fill(0.0);
                        continue;
                    }
                    let sum = exp_in_place(row, max);
                    lse[i] = max + sum.ln();
                    let inv = 1.0 / sum;
                    if a.dropout.is_some() {
                        let keep = &mut keep[..row.len()];
                        wide(|| a.keep_row(n, i, keep));
                        row.iter_mut().zip(keep.iter()).for_each(|(s, k)| *s *= inv * k);
                    } else {
                        row.iter_mut().for_each(|s| *s *= inv);
                    }
                }
                let vm = mat(&a.v, a, n, 0, false);
                gemm_block(&x, block(kend, false), t.v, vm, (rows, a.ev, kend), &mut ob, false);
                // SAFETY: head n's output rows are this part's alone, inside `out`.
                unsafe { put_rows(dst, &ov, a, (n, i0, rows, a.ev), &ob) };
            }
        }
    });
    out
}

/// The backward: `[dq, dk, dv, D]` as `AttentionArgs::backward_len` lays them out (the three
/// gradients' rows where [`AttentionArgs::grad_views`] puts them), from the forward's output
/// (`saved`, [`forward`]'s layout) and the output's gradient (`t.dout`).
pub(super) fn backward(t: &Inputs, saved: &[f32], a: &AttentionArgs) -> Vec<f32> {
    let mut out = super::alloc::zeroed::<f32>(a.backward_len());
    let (heads, lse_at, ov) = (a.heads(), a.lse_at(), a.out_view());
    let [qg, kg, vg] = a.grad_views();
    let d_at = a.grad_at()[2];
    let (Some(dout), Some(gv)) = (a.dout, t.dout) else { return out };
    let dst = par::Disjoint::new(&mut out);
    let rows_per = block_rows(a);
    par::split(par::threads(), heads, |hs| {
        let (mut p, mut ds) = (vec![0.0f32; rows_per * a.s], vec![0.0f32; rows_per * a.s]);
        // A head's dK and dV, summed over its blocks of query rows, and a block's dQ, before
        // they go into place.
        let (mut dk, mut dv, mut dq) =
            (vec![0.0f32; a.s * a.e], vec![0.0f32; a.s * a.ev], vec![0.0f32; rows_per * a.e]);
        // Dropout's multipliers of one row.
        let mut keep = vec![0.0f32; if a.dropout.is_some() { a.s } else { 0 }];
        for n in hs {
            // SAFETY: head n's `D` scratch, written by this part alone.
            let dd = unsafe { dst.slice(d_at + n * a.l..d_at + (n + 1) * a.l) };
            dk.fill(0.0);
            dv.fill(0.0);
            for i0 in (0..a.l).step_by(rows_per) {
                let rows = rows_per.min(a.l - i0);
                let kend = keys_for(a, i0 + rows);
                if kend == 0 {
                    continue;
                }
                scores(t, a, n, (i0, rows, kend), &mut p);
                // dP (before dropout's scaling) = dO . V^T.
                let go = mat(&dout, a, n, i0, false);
                gemm_block(gv, go, t.v, mat(&a.v, a, n, 0, true), (rows, kend, a.ev), &mut ds, false);
                for r in 0..rows {
                    let i = i0 + r;
                    let o = &saved[ov.row(n, a.n2, i)..ov.row(n, a.n2, i) + a.ev];
                    let g = &gv[dout.row(n, a.n2, i)..dout.row(n, a.n2, i) + a.ev];
                    let d: f32 = o.iter().zip(g).map(|(x, y)| x * y).sum();
                    dd[i] = d;
                    let l = saved[lse_at + n * a.l + i];
                    let (prow, srow) = (&mut p[r * kend..(r + 1) * kend], &mut ds[r * kend..(r + 1) * kend]);
                    if l == f32::NEG_INFINITY {
                        // Nothing to attend to: no probability, no gradient.
                        prow.fill(0.0);
                        srow.fill(0.0);
                        continue;
                    }
                    let scale = a.scale;
                    if a.dropout.is_some() {
                        let keep = &mut keep[..kend];
                        wide(|| a.keep_row(n, i, keep));
                        for ((pj, sj), &k) in prow.iter_mut().zip(srow.iter_mut()).zip(keep.iter()) {
                            let pr = exp_nonpositive((*pj - l).min(0.0));
                            *sj = pr * (*sj * k - d) * scale;
                            *pj = pr * k;
                        }
                    } else {
                        for (pj, sj) in prow.iter_mut().zip(srow.iter_mut()) {
                            let pr = exp_nonpositive((*pj - l).min(0.0));
                            *sj = pr * (*sj - d) * scale;
                            *pj = pr;
                        }
                    }
                }
                // dV += P_dropped^T dO, dQ = dS K, dK += dS^T Q.
                gemm_block(&p, block(kend, true), gv, go, (kend, a.ev, rows), &mut dv, true);
                let km = mat(&a.k, a, n, 0, false);
                gemm_block(&ds, block(kend, false), t.k, km, (rows, a.e, kend), &mut dq, false);
                gemm_block(&ds, block(kend, true), t.q, mat(&a.q, a, n, i0, false), (kend, a.e, rows), &mut dk, true);
                // SAFETY: head n's gradient rows are this part's alone, inside `out`.
                unsafe { put_rows(dst, &qg, a, (n, i0, rows, a.e), &dq) };
            }
            // SAFETY: as above.
            unsafe {
                put_rows(dst, &kg, a, (n, 0, a.s, a.e), &dk);
                put_rows(dst, &vg, a, (n, 0, a.s, a.ev), &dv);
            }
        }
    });
    out
}
