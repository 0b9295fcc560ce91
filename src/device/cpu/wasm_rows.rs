//! Reductions of several contiguous f32 rows in hand-written wasm SIMD (simd128), for the npm
//! package's CPU device: max, min and their first positions a row at a time, sums four rows at
//! a time up to 16 columns and a row at a time beyond, each giving the native kernels' results
//! to the bit (`reduce.rs`, `strided.rs`, which the JS suite's `rows.mjs` checks it against).

use core::arch::wasm32::*;

use super::elementwise::outlined;
use crate::dtype::CpuData;
use crate::op::reduce::ReduceOp;

/// The maximum, minimum, their first positions or the sum (`op`) of each of the `m` contiguous
/// rows of `k` f32 in `v`, or `None` for products and rows shorter than 4. The extremes go a
/// row at a time in vectors of 4: the rows kernel's 8 scalar lanes ended each row in a fold of
/// f32 selects that V8 compiles to branches, which random data mispredicts (`amax(1)` over
/// [50000, 20] took 1.9 ms and `argmax(1)` 2.3, tfjs-wasm 1.6 and 1.8). The values are those
/// of `reduce::rows`: NaN where a row holds one (the first, for its payload), of -0 and +0 the
/// first, and the arg forms give the first position of the extreme (of the first NaN). The
/// sums are the native kernels' to the bit ([`sum_short_rows`], [`sum_rows`]).
pub(super) fn reduce_rows(op: ReduceOp, v: &[f32], m: usize, k: usize) -> Option<CpuData> {
    if k < 4 || v.len() < m * k {
        return None;
    }
    let v = &v[..m * k];
    // Each kernel in a function of its own (`outlined`, which the npm build keeps out of line;
    // binaryen inlines single-call functions, which put all six into `reduce_data`, one huge
    // function whose registers V8 11 (Node 20) allocates with its cheaper allocator: up to
    // 2.9x slower).
    Some(match op {
        ReduceOp::Max => CpuData::F32(outlined(|| extreme_rows::<true>(v, k))),
        ReduceOp::Min => CpuData::F32(outlined(|| extreme_rows::<false>(v, k))),
        ReduceOp::ArgMax => CpuData::I32(outlined(|| arg_rows::<true>(v, k))),
        ReduceOp::ArgMin => CpuData::I32(outlined(|| arg_rows::<false>(v, k))),
        ReduceOp::Sum if k > SUM_ROWS_FROM => CpuData::F32(outlined(|| sum_rows(v, k))),
        ReduceOp::Sum => CpuData::F32(outlined(|| sum_short_rows(v, k))),
        ReduceOp::Prod => return None,
    })
}

/// Rows up to this long sum in order from the first element ([`sum_short_rows`], the tap
/// folds' order, which native builds run for them); longer ones in `reduce::sum_f64`'s lanes
/// ([`sum_rows`]).
const SUM_ROWS_FROM: usize = 16;

/// The sum of each row of `k` (4 to 16) in `v`: four rows at a time, each block of four
/// columns turned into lanes by shuffles and added in f64 in column order from +0, which is
/// `strided::sum_row`'s order bit for bit; rows left over the same way one at a time. The
/// tap folds gathered each column's four values lane by lane (`sum(1)` over rows of 10:
/// 0.25 ms per 1M elements, tfjs-wasm's f32 sums 0.19; rows of 4: 0.31 and 0.26).
fn sum_short_rows(v: &[f32], k: usize) -> Vec<f32> {
    let m = v.len() / k;
    let mut out: Vec<f32> = Vec::with_capacity(m);
    // Column blocks: from 0 in steps of 4, then the last 4 columns, of which the ones not yet
    // added (a load that overlaps the block before it).
    let (full, tail) = (k / 4, k % 4);
    let mut groups = v.chunks_exact(4 * k);
    let mut at = 0;
    for g in &mut groups {
        // Rows 0 and 1 in `a`, 2 and 3 in `b`.
        let (mut a, mut b) = (f64x2_splat(0.0), f64x2_splat(0.0));
        let mut block = |c: usize, from: usize| {
            // SAFETY: c + 4 <= k, so each row's 16 bytes lie inside `g` (4 rows of k).
            let row = |r: usize| unsafe { v128_load(g.as_ptr().add(r * k + c) as *const v128) };
            let (r0, r1, r2, r3) = (row(0), row(1), row(2), row(3));
            // Columns c and c + 1 of rows 0-1 (then of rows 2-3), columns c + 2 and c + 3.
            let cols = [
                (i32x4_shuffle::<0, 4, 1, 5>(r0, r1), i32x4_shuffle::<0, 4, 1, 5>(r2, r3)),
                (i32x4_shuffle::<2, 6, 3, 7>(r0, r1), i32x4_shuffle::<2, 6, 3, 7>(r2, r3)),
            ];
            for (j, &(p, q)) in cols.iter().enumerate() {
                if 2 * j >= from {
                    a = f64x2_add(a, f64x2_promote_low_f32x4(p));
                    b = f64x2_add(b, f64x2_promote_low_f32x4(q));
                }
                if 2 * j + 1 >= from {
                    a = f64x2_add(a, f64x2_promote_low_f32x4(i32x4_shuffle::<2, 3, 0, 1>(p, p)));
                    b = f64x2_add(b, f64x2_promote_low_f32x4(i32x4_shuffle::<2, 3, 0, 1>(q, q)));
                }
            }
        };
        for c in 0..full {
            block(4 * c, 0);
        }
        if tail > 0 {
            block(k - 4, 4 - tail);
        }
        let sums = i32x4_shuffle::<0, 1, 4, 5>(f32x4_demote_f64x2_zero(a), f32x4_demote_f64x2_zero(b));
        // SAFETY: `out` has room for m >= at + 4 floats (one per row, four rows a group); the
        // length is set once they are written, below.
        unsafe { v128_store(out.as_mut_ptr().add(at) as *mut v128, sums) };
        at += 4;
    }
    // SAFETY: the groups wrote the first `at` elements (at <= m, the capacity).
    unsafe { out.set_len(at) };
    for r in groups.remainder().chunks_exact(k) {
        out.push(r.iter().fold(0.0f64, |a, &x| a + x as f64) as f32);
    }
    out
}

/// The sum of each row of `k` in `v`, bit for bit `reduce::sum_f64`'s (the portable rows
/// kernel, which native builds run): eight f64 lanes as four f64x2 (element `i` into lane
/// `i % 8`, the tail as a last short block), folded as a tree of vector adds. The rows
/// kernel's per-row bookkeeping (a part, a finished pair, a second pass for the values) cost
/// more than the adds: `sum(1)` over [50000, 20] took 0.5-0.75 ms, tfjs-wasm's f32 sums 0.17.
fn sum_rows(v: &[f32], k: usize) -> Vec<f32> {
    let zero = f64x2_splat(0.0);
    v.chunks_exact(k)
        .map(|r| {
            // Four named accumulators (lanes 0-1, 2-3, 4-5, 6-7): an array of them stayed in
            // memory in V8.
            let (mut l0, mut l1, mut l2, mut l3) = (zero, zero, zero, zero);
            let blocks = r.chunks_exact(8);
            let rest = blocks.remainder();
            for b in blocks {
                // Each pair of lanes loaded as 8 bytes and widened: no shuffles.
                // SAFETY: `b` holds 8 f32; each load reads 8 bytes at 0, 2, 4 and 6 of them.
                let pair =
                    |j: usize| unsafe { f64x2_promote_low_f32x4(v128_load64_zero(b.as_ptr().add(j) as *const u64)) };
                l0 = f64x2_add(l0, pair(0));
                l1 = f64x2_add(l1, pair(2));
                l2 = f64x2_add(l2, pair(4));
                l3 = f64x2_add(l3, pair(6));
            }
            // The tail's elements into the first lanes; the others add +0, which leaves them
            // as they are (lanes start at +0 and so never hold -0). The same tail length every
            // row: the branches predict.
            let n = rest.len();
            let part = |j: usize| match n.saturating_sub(j) {
                0 => zero,
                1 => f64x2_replace_lane::<0>(zero, rest[j] as f64),
                // SAFETY: j + 2 <= n: the 8 bytes lie inside `rest`.
                _ => unsafe { f64x2_promote_low_f32x4(v128_load64_zero(rest.as_ptr().add(j) as *const u64)) },
            };
            if n > 0 {
                l0 = f64x2_add(l0, part(0));
                l1 = f64x2_add(l1, part(2));
                l2 = f64x2_add(l2, part(4));
                l3 = f64x2_add(l3, part(6));
            }
            let s = f64x2_add(f64x2_add(l0, l1), f64x2_add(l2, l3));
            (f64x2_extract_lane::<0>(s) + f64x2_extract_lane::<1>(s)) as f32
        })
        .collect()
}

/// The maximum (`MAX`) or minimum of each row of `k` in `v`.
fn extreme_rows<const MAX: bool>(v: &[f32], k: usize) -> Vec<f32> {
    v.chunks_exact(k)
        .map(|r| match row_extreme::<MAX>(r) {
            // Which zero, or which NaN: the first.
            (best, nan) if nan || best == 0.0 => r[first_found(r, best, nan)],
            (best, _) => best,
        })
        .collect()
}

/// The first position of the maximum (`MAX`) or minimum of each row of `k` in `v` (of the
/// first NaN where a row holds one).
fn arg_rows<const MAX: bool>(v: &[f32], k: usize) -> Vec<i32> {
    v.chunks_exact(k)
        .map(|r| {
            let (best, nan) = row_extreme::<MAX>(r);
            first_lane(r, best, nan) as i32
        })
        .collect()
}

/// The maximum (`MAX`) or minimum of the numbers of `xs` (at least 4 long) and whether it
/// holds a NaN: pseudo-max lanes (`m < x ? x : m`, so a NaN never wins a lane; it is
/// remembered apart), folded across lanes by shuffles. Two loads a step, the last load
/// overlapping the one before where the length is not a multiple of 4 (reading some elements
/// twice leaves the extreme of a set as it is).
#[inline(always)]
fn row_extreme<const MAX: bool>(xs: &[f32]) -> (f32, bool) {
    let n = xs.len();
    // SAFETY (every use): i + 4 <= n, so the 16 bytes loaded lie inside `xs`; wasm loads are
    // unaligned.
    let load = |i: usize| unsafe { v128_load(xs.as_ptr().add(i) as *const v128) };
    let pick = |m: v128, x: v128| if MAX { f32x4_pmax(m, x) } else { f32x4_pmin(m, x) };
    let (mut m0, mut m1) = (load(0), load(n - 4));
    let mut nan = v128_or(f32x4_ne(m0, m0), f32x4_ne(m1, m1));
    let mut i = 4;
    while i + 8 <= n {
        let (x0, x1) = (load(i), load(i + 4));
        (m0, m1) = (pick(m0, x0), pick(m1, x1));
        nan = v128_or(nan, v128_or(f32x4_ne(x0, x0), f32x4_ne(x1, x1)));
        i += 8;
    }
    if i + 4 <= n {
        let x = load(i);
        m0 = pick(m0, x);
        nan = v128_or(nan, f32x4_ne(x, x));
    }
    let m = pick(m0, m1);
    let m = pick(m, i32x4_shuffle::<2, 3, 0, 1>(m, m));
    let m = pick(m, i32x4_shuffle::<1, 0, 3, 2>(m, m));
    (f32x4_extract_lane::<0>(m), v128_any_true(nan))
}

/// [`first_lane`] out of line, for the rare rows that need it.
#[inline(never)]
fn first_found(xs: &[f32], best: f32, nan: bool) -> usize {
    first_lane(xs, best, nan)
}

/// The first position in `xs` (at least 4 long) that holds `best` (a NaN if `nan`), 0 if none:
/// four lanes a step, the last step overlapping where the length is not a multiple of 4
/// (positions before it held none). Rows of up to 32 are tested whole, last step first, each
/// find taking the place of a later one by an integer select: the early exit's branch, taken
/// at a random step, was mispredicted about once a row (`argmax(1)` over rows of 10: 1.0 ms
/// per 1M elements, 0.3 without).
#[inline(always)]
fn first_lane(xs: &[f32], best: f32, nan: bool) -> usize {
    let n = xs.len();
    let (b, want_nan) = (f32x4_splat(best), i32x4_splat(-(nan as i32)));
    let lanes = |at: usize| {
        // SAFETY: callers pass at + 4 <= n; wasm loads are unaligned.
        let x = unsafe { v128_load(xs.as_ptr().add(at) as *const v128) };
        i32x4_bitmask(v128_bitselect(f32x4_ne(x, x), f32x4_eq(x, b), want_nan))
    };
    if n <= 32 {
        let mut found = 0;
        let mut at = n - 4;
        loop {
            let l = lanes(at);
            found = if l != 0 { at + l.trailing_zeros() as usize } else { found };
            if at == 0 {
                return found;
            }
            at = (at - 1) & !3;
        }
    }
    let mut i = 0;
    loop {
        let at = i.min(n - 4);
        let l = lanes(at);
        if l != 0 {
            return at + l.trailing_zeros() as usize;
        }
        if at + 4 >= n {
            return 0;
        }
        i += 4;
    }
}
