//! f32 reductions of a strided view (`Tensor::reduce` passes [kept.., reduced..] permuted, not
//! copied) without gathering it first, for the two patterns models make:
//! - columns: the kept innermost dim is contiguous, as in `x.sum(0)` over [n, c] (the bias
//!   gradient of every linear layer): each reduced row is folded into a block of per-column
//!   accumulators, a loop the compiler vectorises (sum(0) over 1024x1024 in wasm: 3.85 ms with
//!   the copy, 0.52 ms);
//! - runs: the reduced innermost dim is contiguous, as in BatchNorm's statistics over (N, H, W)
//!   of NCHW: each run of H*W is reduced as a row part, parts combined in order
//!   (`reduce::runs`).
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

/// `op` over the trailing dims of `l` (its leading dims hold the `m` kept elements) for f32
/// data `v`: the values (i32 positions in the reduced dims' row-major order for the arg forms),
/// or `None` when the view is not that pattern.
pub(super) fn reduce_f32(op: ReduceOp, v: &[f32], l: &Layout, m: usize) -> Option<CpuData> {
    let (kept, ks, red, rs) = split_reduce(l, m)?;
    let (&cols, &len) = (kept.last()?, red.last()?);
    if ks.last() == Some(&1) && cols >= MIN_RUN {
        Some(columns(op, v, l, m, (&kept, &ks), (&red, &rs)))
    } else if rs.last() == Some(&1) && len >= MIN_RUN {
        let bases: Vec<usize> = StridedOffsets::new(&kept, &ks, l.offset()).collect();
        let r = red.len() - 1;
        let runs: Vec<usize> = StridedOffsets::new(&red[..r], &rs[..r], 0).collect();
        Some(reduce::runs(op, v, &bases, &runs, len))
    } else {
        None
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
                        let acc = acc[..w].iter_mut().zip(row(r));
                        if sum {
                            acc.for_each(|(a, &x)| *a += x as f64);
                        } else {
                            acc.for_each(|(a, &x)| *a *= x as f64);
                        }
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
        let c = |s: &[usize]| Layout::contiguous(s);
        // (layout permuted to [kept.., reduced..], m)
        let cases = vec![
            (c(&[40, 300]).permute("p", &[1, 0]).unwrap(), 300),
            (c(&[7, 20]).permute("p", &[1, 0]).unwrap(), 20),
            (c(&[3, 10, 4, 32]).permute("p", &[0, 3, 1, 2]).unwrap(), 96),
            (c(&[5, 6, 40]).narrow("n", 0, 1, 3).unwrap().permute("p", &[0, 2, 1]).unwrap(), 120),
            (c(&[2, 600]).permute("p", &[1, 0]).unwrap(), 600),
            // Runs: BatchNorm's (N, H, W) of NCHW, a middle dim, and runs across blocks of rows.
            (c(&[4, 3, 5, 6]).permute("p", &[1, 0, 2, 3]).unwrap(), 3),
            (c(&[5, 6, 32]).permute("p", &[1, 0, 2]).unwrap(), 6),
            (c(&[3, 2, 5, 40]).permute("p", &[1, 0, 2, 3]).unwrap().narrow("n", 1, 1, 2).unwrap(), 2),
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
                            assert!(x.to_bits() == y.to_bits() || (x - y).abs() <= 1e-6 * y.abs(), "{op:?} {l:?}");
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
        assert!(reduce_f32(ReduceOp::Sum, &v, &c(&[64, 64]), 64).is_some());
        assert!(reduce_f32(
            ReduceOp::Sum,
            &v,
            &c(&[64, 32]).permute("p", &[1, 0]).unwrap().narrow("n", 0, 0, 16).unwrap().unsqueeze("u", 1).unwrap(),
            16
        )
        .is_some());
    }
}
