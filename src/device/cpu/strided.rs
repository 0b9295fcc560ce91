//! f32 reductions of a strided view (`Tensor::reduce` passes [kept.., reduced..] permuted, not
//! copied) without gathering it first, for the two patterns models make:
//! - columns: the kept innermost dim is contiguous, as in `x.sum(0)` over [n, c] (the bias
//!   gradient of every linear layer): each reduced row is folded into a block of per-column
//!   accumulators, a loop the compiler vectorises (sum(0) over 1024x1024 in wasm: 3.85 ms with
//!   the copy, 0.52 ms);
//! - runs: the reduced innermost dim is contiguous, as in BatchNorm's statistics over (N, H, W)
//!   of NCHW: each run of H*W is reduced as a row part, parts combined in order
//!   (`reduce::runs`);
//! - taps: a small reduced block (at most 16 elements) of any strides, as in pooling's windows
//!   (`x.windows(..).amax([kh, kw])`) or short contiguous rows: the block's offsets are the same
//!   for every output, so each output folds its few taps straight from the view (max-pooling
//!   [8, 32, 64, 64] by 2x2 in wasm: a 4.8 ms window copy plus 7.9 ms over rows of 4 before).
//!
//! Other views, and other dtypes, are gathered into rows by the caller.

use super::{par, reduce};
use crate::dtype::CpuData;
use crate::layout::{split_reduce, Layout, StridedOffsets};
use crate::op::reduce::ReduceOp;

/// Columns per accumulator block: 256 f64 (2 KiB) stay in L1 while the reduced rows stream by.
const BLOCK: usize = 256;
/// Kept rows (columns) or reduced runs shorter than this gain little over the gathered copy.
const MIN_RUN: usize = 16;
/// Reduced blocks up to this many elements fold tap by tap (the rows kernel's per-row setup
/// costs more than such a row's work).
const MAX_TAPS: usize = 16;

/// `op` over the trailing dims of `l` (its leading dims hold the `m` kept elements) for f32
/// data `v`: the values (i32 positions in the reduced dims' row-major order for the arg forms),
/// or `None` when the view is not one of the patterns. A contiguous `l` is only taken for
/// short rows (taps); the rows kernel reads longer ones better.
pub(super) fn reduce_f32(op: ReduceOp, v: &[f32], l: &Layout, m: usize) -> Option<CpuData> {
    let (kept, ks, red, rs) = split_reduce(l, m)?;
    let (&cols, &len) = (kept.last()?, red.last()?);
    let k = l.numel() / m;
    if l.is_contiguous() {
        (k <= MAX_TAPS).then(|| taps(op, v, l, (&kept, &ks), (&red, &rs)))
    } else if ks.last() == Some(&1) && cols >= MIN_RUN {
        Some(columns(op, v, l, m, (&kept, &ks), (&red, &rs)))
    } else if rs.last() == Some(&1) && len >= MIN_RUN {
        let bases: Vec<usize> = StridedOffsets::new(&kept, &ks, l.offset()).collect();
        let r = red.len() - 1;
        let runs: Vec<usize> = StridedOffsets::new(&red[..r], &rs[..r], 0).collect();
        Some(reduce::runs(op, v, &bases, &runs, len))
    } else if k <= MAX_TAPS {
        Some(taps(op, v, l, (&kept, &ks), (&red, &rs)))
    } else {
        None
    }
}

/// [`reduce_f32`] for a reduced block of at most [`MAX_TAPS`] elements (and at least one):
/// each output folds the block's taps, in the block's row-major order as the rows kernel reads
/// a gathered row, from its own base offset.
fn taps(
    op: ReduceOp,
    v: &[f32],
    l: &Layout,
    (kept, ks): (&[usize], &[usize]),
    (red, rs): (&[usize], &[usize]),
) -> CpuData {
    let taps: Vec<usize> = StridedOffsets::new(red, rs, 0).collect();
    let (first, rest) = (taps[0], &taps[1..]);
    let last = kept.len() - 1;
    let (inner, step) = (kept[last], ks[last]);
    let bases: Vec<usize> = StridedOffsets::new(&kept[..last], &ks[..last], l.offset()).collect();
    let n = taps.len();
    match op {
        ReduceOp::Sum => CpuData::F32(tap_rows(&bases, inner, step, taps.len(), |b, o| sum_row(v, b, step, &taps, o))),
        ReduceOp::Prod => CpuData::F32(outputs(&bases, inner, step, n, |b| {
            rest.iter().fold(v[b + first] as f64, |a, &t| a * v[b + t] as f64) as f32
        })),
        ReduceOp::Max => CpuData::F32(tap_extremes::<true>(v, &bases, inner, step, &taps)),
        ReduceOp::Min => CpuData::F32(tap_extremes::<false>(v, &bases, inner, step, &taps)),
        ReduceOp::ArgMax => CpuData::I32(outputs(&bases, inner, step, n, |b| best::<true>(v, b, &taps).1)),
        ReduceOp::ArgMin => CpuData::I32(outputs(&bases, inner, step, n, |b| best::<false>(v, b, &taps).1)),
    }
}

/// The maximum (`MAX`) or minimum of `taps` from base `b`, and its tap: the first of equals,
/// NaN over everything (as [`ReduceOp::better`]). Compared as integers whose order is the
/// floats' (sign-magnitude to two's complement, -0 equal to +0, NaN at the far end): V8 turns
/// an f32 select into a branch, which random data mispredicts half the time (4x slower for 2x2
/// max pooling), and an i32 select into a conditional move. The value is read back at the tap.
#[inline(always)]
fn best<const MAX: bool>(v: &[f32], b: usize, taps: &[usize]) -> (f32, i32) {
    // NaN's key; numbers map strictly between the two ends.
    let nan_key = if MAX { i32::MAX } else { i32::MIN };
    let key = |x: f32| {
        let bits = x.to_bits() as i32;
        // Negative floats count down from -1 for -0; one up makes -0 the same as +0.
        let ordered = bits ^ ((bits >> 31) & i32::MAX);
        #[allow(clippy::eq_op)]
        let nan = x != x;
        if nan {
            nan_key
        } else {
            ordered - (ordered >> 31)
        }
    };
    let (mut k, mut at) = (key(v[b + taps[0]]), 0);
    for (j, &t) in taps.iter().enumerate().skip(1) {
        let kx = key(v[b + t]);
        let take = if MAX { kx > k } else { kx < k };
        k = if take { kx } else { k };
        at = if take { j } else { at };
    }
    (v[b + taps[at]], at as i32)
}

/// The maximum (`MAX`) or minimum over `taps` of each output, a row of `inner` outputs `step`
/// apart from each of `bases` at a time: the values of [`best`] (NaN over everything, -0 and +0
/// the first of them), tap by tap across the row, which wasm SIMD runs four outputs at once
/// (loads for steps 1 and 2, pooling with stride 1 or 2; lane-by-lane gathers for longer steps):
/// 2x2 max pooling of [8, 32, 64, 64] in wasm took 2.3-2.6 ms output by output, tfjs-wasm's
/// 0.7-1.2.
fn tap_extremes<const MAX: bool>(v: &[f32], bases: &[usize], inner: usize, step: usize, taps: &[usize]) -> Vec<f32> {
    tap_rows(bases, inner, step, taps.len(), |b, o| extreme_row::<MAX>(v, b, step, taps, o))
}

/// The outputs of `row(base, out)` for each of `bases` (`inner` each, `step` apart, `work`
/// elements read per output), in output order, split across threads by outputs: a part may
/// start or end inside a row, whose outputs from `i` on are a row of their own from base
/// `b + i * step`. (Split by rows, contiguous short rows, one base of `m` outputs, ran on one
/// thread: `sum(1)` over [104857, 10] natively 0.31 ms, PyTorch's 0.18 on two.)
fn tap_rows(
    bases: &[usize],
    inner: usize,
    step: usize,
    work: usize,
    row: impl Fn(usize, &mut [f32]) + Sync,
) -> Vec<f32> {
    let mut parts = par::ranges(bases.len() * inner, work, |outs| {
        let mut out = super::alloc::zeroed::<f32>(outs.len());
        let mut rest = &mut out[..];
        for (r, i, n) in pieces(outs, inner) {
            let (piece, tail) = rest.split_at_mut(n);
            row(bases[r] + i * step, piece);
            rest = tail;
        }
        out
    });
    match parts.len() {
        1 => parts.pop().unwrap_or_default(),
        _ => parts.concat(),
    }
}

/// The rows that outputs `outs` (numbered row-major over rows of `inner`) fall in: each
/// piece as (row, first output in the row, outputs), in order. One division for the first
/// piece; the rest start their rows (pooling has a piece per row of a few dozen outputs).
fn pieces(outs: std::ops::Range<usize>, inner: usize) -> impl Iterator<Item = (usize, usize, usize)> {
    let end = outs.end;
    let first = (outs.start < end).then(|| (outs.start / inner, outs.start % inner, outs.start));
    std::iter::successors(first, move |&(r, i, at)| {
        let next = at + (inner - i);
        (next < end).then_some((r + 1, 0, next))
    })
    .map(move |(r, i, at)| (r, i, (inner - i).min(end - at)))
}

/// One row of tap sums (average pooling's windows): `out[i]` adds `taps` from `b + i * step` in
/// f64, rounded once, as the rows kernel does; wasm SIMD runs four outputs at once (2x2 average
/// pooling of [8, 32, 64, 64] in wasm: output by output 1.0 ms, tfjs-wasm's 0.7; `sum(1)` over
/// rows of 4, 1M elements, 0.55 -> 0.32 ms with gathers for steps past 2).
fn sum_row(v: &[f32], b: usize, step: usize, taps: &[usize], out: &mut [f32]) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let done = super::wasm_simd::sum_row(v, b, step, taps, out);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let done = 0;
    for (i, o) in out.iter_mut().enumerate().skip(done) {
        let at = b + i * step;
        // From +0, as the rows kernel and PyTorch sum: a window of -0 sums to +0.
        *o = taps.iter().fold(0.0f64, |a, &t| a + v[at + t] as f64) as f32;
    }
}

/// One row of [`tap_extremes`]: `out[i]` folds `taps` from `b + i * step`.
fn extreme_row<const MAX: bool>(v: &[f32], b: usize, step: usize, taps: &[usize], out: &mut [f32]) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let done = super::wasm_simd::extreme_row::<MAX>(v, b, step, taps, out);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let done = 0;
    for (i, o) in out.iter_mut().enumerate().skip(done) {
        // Integer keys, not an f32 compare that V8 makes a branch: `amax(1)` over rows of 4
        // took 3.4 ms per 1M elements in wasm as a float fold.
        *o = best::<MAX>(v, b + i * step, taps).0;
    }
}

/// `f` of each output's base offset, in output order: `inner` outputs `step` apart from each
/// of `bases`, split across threads by outputs (`work` elements read per output), as
/// [`tap_rows`].
fn outputs<R: Send + Copy>(
    bases: &[usize],
    inner: usize,
    step: usize,
    work: usize,
    f: impl Fn(usize) -> R + Sync,
) -> Vec<R> {
    let mut parts = par::ranges(bases.len() * inner, work, |outs| {
        let mut out = Vec::with_capacity(outs.len());
        for (r, i, n) in pieces(outs, inner) {
            let b = bases[r] + i * step;
            out.extend((0..n).map(|j| f(b + j * step)));
        }
        out
    });
    match parts.len() {
        1 => parts.pop().unwrap_or_default(),
        _ => parts.concat(),
    }
}

/// [`reduce_f32`] for views whose kept innermost dim (of `cols` >= 16) has stride 1.
fn columns(
    op: ReduceOp,
    v: &[f32],
    l: &Layout,
    m: usize,
    (kept, ks): (&[usize], &[usize]),
    (red, rs): (&[usize], &[usize]),
) -> CpuData {
    let (cols, last) = (kept[kept.len() - 1], kept.len() - 1);
    let bases: Vec<usize> = StridedOffsets::new(&kept[..last], &ks[..last], l.offset()).collect();
    let blocks = cols.div_ceil(BLOCK);
    let k = l.numel() / m;
    if matches!(op, ReduceOp::Sum | ReduceOp::Prod)
        && bases.len() * blocks < 4 * par::threads().max(2)
        && k >= ROW_PARTS * 64
    {
        return CpuData::F32(row_parts(op, v, &bases, cols, (red, rs)));
    }
    let rows = || StridedOffsets::new(red, rs, 0);
    // Unit u is block u % blocks of outer row u / blocks: units in order are outputs in order.
    let parts = par::ranges(bases.len() * blocks, BLOCK * (l.numel() / m), |units| {
        let (mut vals, mut idx) = (Vec::new(), Vec::new());
        for u in units {
            let c0 = (u % blocks) * BLOCK;
            let (base, w) = (bases[u / blocks] + c0, BLOCK.min(cols - c0));
            let row = |r: usize| &v[base + r..base + r + w];
            match op {
                ReduceOp::Sum | ReduceOp::Prod => {
                    let sum = op == ReduceOp::Sum;
                    let mut acc = [if sum { 0.0f64 } else { 1.0 }; BLOCK];
                    for r in rows() {
                        fold(op, &mut acc[..w], row(r));
                    }
                    vals.extend(acc[..w].iter().map(|&a| a as f32));
                }
                ReduceOp::Max => vals.extend(extremes(rows().map(row), |x, a| x > a)),
                ReduceOp::Min => vals.extend(extremes(rows().map(row), |x, a| x < a)),
                ReduceOp::ArgMax | ReduceOp::ArgMin => {
                    let mut best = row(0).to_vec();
                    let mut at = vec![0i32; w];
                    for (i, r) in rows().enumerate().skip(1) {
                        for ((b, a), &x) in best.iter_mut().zip(&mut at).zip(row(r)) {
                            if op.better(x, *b) {
                                (*b, *a) = (x, i as i32);
                            }
                        }
                    }
                    idx.extend(at);
                }
            }
        }
        (vals, idx)
    });
    if op.is_arg() {
        CpuData::I32(parts.into_iter().flat_map(|p| p.1).collect())
    } else {
        CpuData::F32(parts.into_iter().flat_map(|p| p.0).collect())
    }
}

/// One reduced row folded into per-column accumulators (sum or product, in f64).
#[inline(always)]
fn fold(op: ReduceOp, acc: &mut [f64], row: &[f32]) {
    if op == ReduceOp::Sum {
        acc.iter_mut().zip(row).for_each(|(a, &x)| *a += x as f64);
    } else {
        acc.iter_mut().zip(row).for_each(|(a, &x)| *a *= x as f64);
    }
}

/// Parts of the reduced rows for [`row_parts`]: a fixed count, so the order the partials are
/// combined in (and so the bits) does not depend on the thread count.
const ROW_PARTS: usize = 8;

/// [`columns`]' sums and products when the outputs are few (a bias gradient: `sum(0)` over
/// [16384, 1024] has one outer row of four blocks, two per thread): the reduced rows are cut
/// into [`ROW_PARTS`] runs instead, each folded whole row after whole row (the memory streams
/// in order, where a column block read 1 KiB of every 4 KiB row: 7.1 -> 1.5 ms, and 13.0 ->
/// 2.9 on one thread), and the parts' f64 partials combined in order.
fn row_parts(op: ReduceOp, v: &[f32], bases: &[usize], cols: usize, (red, rs): (&[usize], &[usize])) -> Vec<f32> {
    let rows: Vec<usize> = StridedOffsets::new(red, rs, 0).collect();
    let per = rows.len().div_ceil(ROW_PARTS);
    let init = if op == ReduceOp::Sum { 0.0f64 } else { 1.0 };
    let partials = par::ranges(ROW_PARTS, per * cols * bases.len(), |parts| {
        parts
            .map(|p| {
                let mine = &rows[(p * per).min(rows.len())..((p + 1) * per).min(rows.len())];
                let mut acc = vec![init; bases.len() * cols];
                super::wide(|| {
                    for (acc, &base) in acc.chunks_exact_mut(cols).zip(bases) {
                        for &r in mine {
                            fold(op, acc, &v[base + r..base + r + cols]);
                        }
                    }
                });
                acc
            })
            .collect::<Vec<_>>()
    });
    let mut total = vec![init; bases.len() * cols];
    for part in partials.iter().flatten() {
        if op == ReduceOp::Sum {
            total.iter_mut().zip(part).for_each(|(t, &x)| *t += x);
        } else {
            total.iter_mut().zip(part).for_each(|(t, &x)| *t *= x);
        }
    }
    total.into_iter().map(|t| t as f32).collect()
}

/// The column-wise maximum (or minimum, by `beats`) of equally long `rows` (at least one): NaN
/// where a column holds one, as the rows kernel and PyTorch give.
fn extremes<'a>(mut rows: impl Iterator<Item = &'a [f32]>, beats: impl Fn(f32, f32) -> bool) -> Vec<f32> {
    let mut acc = rows.next().map(<[f32]>::to_vec).unwrap_or_default();
    for row in rows {
        for (a, &x) in acc.iter_mut().zip(row) {
            *a = reduce::pick(*a, x, &beats);
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::cpu::reduce;

    /// The rows kernel over a gathered copy: what the column folds must equal.
    fn reference(op: ReduceOp, v: &[f32], l: &Layout, m: usize) -> CpuData {
        let c: Vec<f32> = StridedOffsets::new(l.shape(), l.strides(), l.offset()).map(|o| v[o]).collect();
        reduce::rows(op, &c, m, c.len() / m)
    }

    #[test]
    fn strided_folds_match_the_rows_kernel() {
        // Ties (values repeat every 7), a NaN in one column, and blocks past 256 columns.
        let mut v: Vec<f32> = (0..40_000).map(|i| ((i * 37) % 7) as f32 - 3.0 + (i % 5) as f32 * 0.25).collect();
        v[3 * 300 + 5] = f32::NAN;
        // Signed zeros that tie (the first must win the arg forms), infinities, another NaN.
        for (i, x) in
            [(0, -0.0), (1, 0.0), (8, 0.0), (9, -0.0), (2, f32::INFINITY), (11, f32::NEG_INFINITY), (18, f32::NAN)]
        {
            v[i] = x;
        }
        let c = |s: &[usize]| Layout::contiguous(s);
        // (layout permuted to [kept.., reduced..], m)
        let cases = vec![
            (c(&[40, 300]).permute("p", &[1, 0]).unwrap(), 300),
            (c(&[7, 20]).permute("p", &[1, 0]).unwrap(), 20),
            (c(&[3, 10, 4, 32]).permute("p", &[0, 3, 1, 2]).unwrap(), 96),
            (c(&[5, 6, 40]).narrow("n", 0, 1, 3).unwrap().permute("p", &[0, 2, 1]).unwrap(), 120),
            (c(&[2, 600]).permute("p", &[1, 0]).unwrap(), 600),
            // Few outputs over many reduced rows (`row_parts` for sums and products): one outer
            // row, two, and a row count that the parts do not divide.
            (c(&[600, 60]).permute("p", &[1, 0]).unwrap(), 60),
            (c(&[2, 523, 30]).permute("p", &[0, 2, 1]).unwrap(), 60),
            // Runs: BatchNorm's (N, H, W) of NCHW, a middle dim, and runs across blocks of rows.
            (c(&[4, 3, 5, 6]).permute("p", &[1, 0, 2, 3]).unwrap(), 3),
            (c(&[5, 6, 32]).permute("p", &[1, 0, 2]).unwrap(), 6),
            (c(&[3, 2, 5, 40]).permute("p", &[1, 0, 2, 3]).unwrap().narrow("n", 1, 1, 2).unwrap(), 2),
            // Taps: 2x2 pooling windows of [2, 3, 8, 8] (stride 2), overlapping 3x3 windows
            // (stride 2) of [1, 2, 9, 9] at an offset, a middle dim of 5, short contiguous rows.
            (Layout::strided(&[2, 3, 4, 4, 2, 2], &[192, 64, 16, 2, 8, 1], 0), 96),
            (Layout::strided(&[1, 2, 4, 4, 3, 3], &[162, 81, 18, 2, 9, 1], 7), 32),
            (c(&[30, 5, 7]).permute("p", &[0, 2, 1]).unwrap(), 210),
            (c(&[500, 3]), 500),
            (c(&[40, 16]), 40),
        ];
        for (l, m) in cases {
            for op in [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min, ReduceOp::ArgMax, ReduceOp::ArgMin]
            {
                let got = reduce_f32(op, &v, &l, m).unwrap_or_else(|| panic!("{op:?} {l:?} took the copy"));
                let want = reference(op, &v, &l, m);
                match (got, want) {
                    (CpuData::F32(g), CpuData::F32(w)) => {
                        assert_eq!(g.len(), w.len());
                        for (x, y) in g.iter().zip(&w) {
                            // Which NaN a product keeps depends on operand order, which LLVM
                            // may swap in release builds: any NaN matches a NaN.
                            let same = x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
                            assert!(same || (x - y).abs() <= 1e-6 * y.abs(), "{op:?} {l:?}: got {x} want {y}");
                        }
                    }
                    (g, w) => assert_eq!(g, w, "{op:?} {l:?}"),
                }
            }
        }
    }

    #[test]
    fn tap_folds_split_across_threads_inside_rows() {
        // Past two threads' worth of work (tap_rows and outputs split by outputs): one long
        // row of outputs (contiguous rows of 7: one base) and 2x2 windows over 9 rows of
        // outputs, which two parts split in the middle of the fifth.
        let mut v: Vec<f32> = (0..300_007usize).map(|i| ((i * 7919) % 1013) as f32 * 0.01 - 5.0).collect();
        for i in (0..v.len()).step_by(9973) {
            v[i] = [f32::NAN, -0.0, 0.0, f32::INFINITY][i % 4];
        }
        let cases = [
            (Layout::contiguous(&[40_000, 7]), 40_000),
            (Layout::strided(&[1, 1, 9, 4096, 2, 2], &[0, 0, 2 * 8192, 2, 8192, 1], 3), 9 * 4096),
        ];
        for (l, m) in cases {
            for op in [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min, ReduceOp::ArgMax, ReduceOp::ArgMin]
            {
                let got = reduce_f32(op, &v, &l, m).unwrap_or_else(|| panic!("{op:?} {l:?} took the copy"));
                // Taps fold in order from the first, as one pass does; the rows kernel adds in
                // lanes, so sums match to rounding.
                match (got, reference(op, &v, &l, m)) {
                    (CpuData::F32(g), CpuData::F32(w)) => {
                        assert_eq!(g.len(), w.len());
                        for (i, (x, y)) in g.iter().zip(&w).enumerate() {
                            let same = x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
                            assert!(same || (x - y).abs() <= 1e-6 * y.abs(), "{op:?} {l:?} at {i}: got {x} want {y}");
                        }
                    }
                    (g, w) => assert_eq!(g, w, "{op:?} {l:?}"),
                }
            }
        }
    }

    #[test]
    fn patterns_are_recognised_by_strides() {
        let v = vec![1.0f32; 4096];
        let c = |s: &[usize]| Layout::contiguous(s);
        // Kept rows too narrow with a strided reduced dim, runs too short, then columns and runs.
        assert!(reduce_f32(ReduceOp::Sum, &v, &c(&[64, 8]).permute("p", &[1, 0]).unwrap(), 8).is_none());
        assert!(reduce_f32(ReduceOp::Sum, &v, &c(&[8, 64, 4]).permute("p", &[1, 0, 2]).unwrap(), 64).is_none());
        assert!(reduce_f32(ReduceOp::Sum, &v, &c(&[64, 64]).transpose("t", 0, 1).unwrap(), 64).is_some());
        assert!(reduce_f32(ReduceOp::Sum, &v, &c(&[64, 64]), 64).is_none());
        assert!(reduce_f32(ReduceOp::Sum, &v, &c(&[64, 4]), 64).is_some());
        assert!(reduce_f32(ReduceOp::Sum, &v, &c(&[64, 4, 4]).permute("p", &[2, 0, 1]).unwrap(), 4).is_none());
        assert!(reduce_f32(ReduceOp::Sum, &v, &c(&[64, 4, 4]).permute("p", &[0, 2, 1]).unwrap(), 64).is_some());
        assert!(reduce_f32(
            ReduceOp::Sum,
            &v,
            &c(&[64, 32]).permute("p", &[1, 0]).unwrap().narrow("n", 0, 0, 16).unwrap().unsqueeze("u", 1).unwrap(),
            16
        )
        .is_some());
    }
}
