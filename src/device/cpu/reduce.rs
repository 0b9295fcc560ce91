//! Row reductions and softmax for the CPU backend, split across cores: by rows when there are
//! several, and within the row when there is one (partial results then combine in order).
//!
//! Float sums and products accumulate in f64, so the CPU reference is at least as accurate as
//! any GPU tree reduction; sums keep eight independent f64 lanes so the adds pipeline (one
//! running total waits on every add: 4 GB/s here, against NumPy's 15). Integers accumulate in
//! wrapping i64 and truncate, which equals wrapping 32-bit arithmetic.

use std::mem::MaybeUninit;

use super::{par, Scalar};
use crate::dtype::CpuData;
use crate::op::math::exp_nonpositive;
use crate::op::reduce::ReduceOp;

/// Elements per block when a single row is split.
const BLOCK: usize = 1 << 16;

/// A reduction over part of a row; parts of one row combine left to right.
#[derive(Clone, Copy)]
enum Part<T> {
    /// Float sum or product so far.
    Float(f64),
    /// Integer sum or product so far (wrapping).
    Int(i64),
    /// The best value so far and its index in the row (max, min and the arg forms).
    Best(T, usize),
}

/// Sum of `xs` in f64 over eight lanes: element `i` into lane `i % 8`, in order (the tail
/// too, as a last short block), then the lanes as a tree, `((l0 + l2) + (l4 + l6)) + ((l1 +
/// l3) + (l5 + l7))`: the order in which four two-lane vectors fold, so that wasm SIMD
/// (`wasm_rows::sum_rows`) gives the same bits without taking the lanes apart one by one
/// (summing them in order, and then the tail, cost a row of 20 half its time there).
#[inline]
pub(super) fn sum_f64<T: Scalar>(xs: &[T]) -> f64 {
    let mut lanes = [0.0f64; 8];
    let chunks = xs.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for (acc, x) in lanes.iter_mut().zip(c) {
            *acc += x.to_f32() as f64;
        }
    }
    // The tail as a block of 8 padded with +0, which leaves a lane as it is (lanes start at +0
    // and so never hold -0): a fixed-width add. Adding the tail by a loop over its length made
    // the native row sums slower (sum(1) over 1024x1024 0.07 -> 0.10 ms, and rows of 4 and 10,
    // which take the tap folds, 1.6 -> 2.2 and 0.32 -> 0.52: code around it compiled worse).
    let mut tail = [0.0f64; 8];
    for (t, x) in tail.iter_mut().zip(rest) {
        *t = x.to_f32() as f64;
    }
    for (acc, t) in lanes.iter_mut().zip(tail) {
        *acc += t;
    }
    let [l0, l1, l2, l3, l4, l5, l6, l7] = lanes;
    ((l0 + l2) + (l4 + l6)) + ((l1 + l3) + (l5 + l7))
}

/// Product of `xs` in f64 over eight lanes (one running product was a chain of dependent
/// multiplies: prod(1) over 1024x1024 in wasm at tfjs-wasm's time). Unless every lane and
/// every step combining them stays a normal float, one lane may have overflowed, underflowed
/// or lost bits as a subnormal where the in-order product would not (and a row holding a 0,
/// an infinity or a NaN ends there too): then the product is taken again in order, as it was
/// before.
fn prod_f64<T: Scalar>(xs: &[T]) -> f64 {
    let mut lanes = [1.0f64; 8];
    let chunks = xs.chunks_exact(8);
    let rest: f64 = chunks.remainder().iter().fold(1.0, |acc, x| acc * x.to_f32() as f64);
    for c in chunks {
        for (acc, x) in lanes.iter_mut().zip(c) {
            *acc *= x.to_f32() as f64;
        }
    }
    let combined = lanes.iter().chain([&rest]).try_fold(1.0f64, |p, &l| {
        let q = p * l;
        (l.is_normal() && q.is_normal()).then_some(q)
    });
    combined.unwrap_or_else(|| xs.iter().fold(1.0f64, |acc, x| acc * x.to_f32() as f64))
}

/// Reduces `xs`, the part of a row that starts at index `start`.
fn part<T: Scalar>(op: ReduceOp, xs: &[T], start: usize) -> Part<T> {
    match op {
        ReduceOp::Sum if T::FLOAT => Part::Float(sum_f64(xs)),
        ReduceOp::Sum => Part::Int(xs.iter().fold(0i64, |acc, x| acc.wrapping_add(x.to_i64()))),
        ReduceOp::Prod if T::FLOAT => Part::Float(prod_f64(xs)),
        ReduceOp::Prod => Part::Int(xs.iter().fold(1i64, |acc, x| acc.wrapping_mul(x.to_i64()))),
        ReduceOp::Max => Part::Best(first_equal(xs, extreme(xs, |c, a| c > a)), start),
        ReduceOp::Min => Part::Best(first_equal(xs, extreme(xs, |c, a| c < a)), start),
        ReduceOp::ArgMax | ReduceOp::ArgMin => {
            // The extreme first, then where it first occurs (the first NaN if there is one, as
            // `ReduceOp::better` ranks them): two passes the compiler vectorises. One pass
            // tracking the index, each element compared against a reloaded best, ran
            // argmax(-1) over 1024x1024 at 2.65 ms in wasm (tfjs-wasm: 1.37).
            let m = if op == ReduceOp::ArgMax { extreme(xs, |c, a| c > a) } else { extreme(xs, |c, a| c < a) };
            #[allow(clippy::eq_op)]
            let at = if m != m { first_index(xs, |x| x != x) } else { first_index(xs, |x| x == m) };
            Part::Best(m, start + at)
        }
    }
}

/// The first index of `xs` whose element satisfies `hit` (0 if none): blocks of 8 tested
/// branch-free, so the test vectorises, then the hit searched within its block.
fn first_index<T: Copy>(xs: &[T], hit: impl Fn(T) -> bool) -> usize {
    let chunks = xs.chunks_exact(8);
    let tail = chunks.remainder();
    for (b, c) in chunks.enumerate() {
        if c.iter().fold(false, |any, &x| any | hit(x)) {
            return b * 8 + c.iter().position(|&x| hit(x)).unwrap_or(0);
        }
    }
    tail.iter().position(|&x| hit(x)).map_or(0, |i| xs.len() - tail.len() + i)
}

/// The maximum (or minimum, by `beats`) of `xs`, NaN if any element is NaN, the default for an
/// empty slice: eight independent lanes the compiler vectorises, where a loop tracking the
/// index ran max(-1) over 1024x1024 at 4.7 ms in wasm. The lanes meet out of order (element
/// 9's lane before element 2's), so which of -0 and +0 (or of NaNs) comes out is not the first:
/// [`first_equal`] finds that where the value is the result.
fn extreme<T: Scalar>(xs: &[T], beats: impl Fn(T, T) -> bool) -> T {
    let Some(&first) = xs.first() else {
        return T::default();
    };
    let pick = |acc: T, x: T| pick(acc, x, &beats);
    let mut lanes = [first; 8];
    let chunks = xs.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for (acc, &x) in lanes.iter_mut().zip(c) {
            *acc = pick(*acc, x);
        }
    }
    lanes.into_iter().chain(rest.iter().copied()).fold(first, pick)
}

/// The first element of `xs` equal to the extreme `m` where that matters: of -0 and +0, and of
/// NaNs, the first in the row, as the tap and column kernels give. Only a zero or NaN is looked
/// up again (a vectorised scan); softmax's row maximum, whose sign of zero does not matter,
/// skips this.
#[allow(clippy::eq_op)]
fn first_equal<T: Scalar>(xs: &[T], m: T) -> T {
    let (nan, zero) = (m != m, m == T::default());
    if !(T::FLOAT && (nan || zero)) {
        return m;
    }
    let at = if nan { first_index(xs, |x| x != x) } else { first_index(xs, |x| x == m) };
    xs.get(at).copied().unwrap_or(m)
}

/// `x` where it beats `acc` (by `beats`: greater for max, less for min) or is NaN, else `acc`:
/// a NaN, once taken, stays, since nothing beats it and `x != x` only takes NaN candidates. One
/// select, which vectorises.
#[inline(always)]
pub(super) fn pick<T: PartialOrd + Copy>(acc: T, x: T, beats: impl Fn(T, T) -> bool) -> T {
    #[allow(clippy::eq_op)]
    let take = (x != x) | beats(x, acc);
    if take {
        x
    } else {
        acc
    }
}

/// `a` followed by `b`. Ties keep `a`, so the first maximum or minimum wins, as in one pass.
fn combine<T: Scalar>(op: ReduceOp, a: Part<T>, b: Part<T>) -> Part<T> {
    match (a, b) {
        (Part::Float(x), Part::Float(y)) => Part::Float(if op == ReduceOp::Sum { x + y } else { x * y }),
        (Part::Int(x), Part::Int(y)) => {
            Part::Int(if op == ReduceOp::Sum { x.wrapping_add(y) } else { x.wrapping_mul(y) })
        }
        (Part::Best(x, _), Part::Best(y, j)) if op.better(y, x) => Part::Best(y, j),
        (a, _) => a,
    }
}

/// The value and index a finished row reduces to.
fn finish<T: Scalar>(p: Part<T>) -> (T, usize) {
    match p {
        Part::Float(x) => (T::from_f64(x), 0),
        Part::Int(x) => (T::from_i64(x), 0),
        Part::Best(x, i) => (x, i),
    }
}

/// Reduces each of the `m` rows of `k` elements in `v` (the arg forms give i32 indices).
pub(super) fn rows<T: Scalar>(op: ReduceOp, v: &[T], m: usize, k: usize) -> CpuData {
    let results: Vec<(T, usize)> = if m == 1 && T::FLOAT && op == ReduceOp::Prod {
        // A float product split in parts could overflow in one and underflow in another where
        // the whole row would not: one pass.
        vec![finish(part(op, &v[..k], 0))]
    } else if m == 1 {
        // Blocks of a fixed size, whatever the thread count, combined left to right: a float
        // sum comes out the same, to the bit, on every machine.
        let row = &v[..k];
        let block = |b: usize| {
            let r = b * BLOCK..((b + 1) * BLOCK).min(k);
            part(op, &row[r.clone()], r.start)
        };
        let parts = par::ranges(k.div_ceil(BLOCK), BLOCK, |bs| bs.map(block).collect::<Vec<_>>());
        let whole = parts.into_iter().flatten().reduce(|a, b| combine(op, a, b)).unwrap_or_else(|| part(op, row, 0));
        vec![finish(whole)]
    } else {
        let chunks =
            par::ranges(m, k, |rs| rs.map(|r| finish(part(op, &v[r * k..(r + 1) * k], 0))).collect::<Vec<_>>());
        chunks.into_iter().flatten().collect()
    };
    output(op, results)
}

/// The values of finished rows (their indices for the arg forms).
fn output<T: Scalar>(op: ReduceOp, results: Vec<(T, usize)>) -> CpuData {
    if op.is_arg() {
        CpuData::I32(results.into_iter().map(|(_, i)| i as i32).collect())
    } else {
        T::wrap(results.into_iter().map(|(x, _)| x).collect())
    }
}

/// Reduces the rows of a strided view in place: row `i` is the runs of `len` contiguous
/// elements starting at `bases[i] + r` for each `r` of `runs` (in the row's order), each folded
/// as a row part and combined in order as one contiguous row's parts are; the arg forms count
/// positions over the whole row. BatchNorm's statistics over (N, H, W) of NCHW are runs of H*W.
pub(super) fn runs<T: Scalar>(op: ReduceOp, v: &[T], bases: &[usize], runs: &[usize], len: usize) -> CpuData {
    let chunks = par::ranges(bases.len(), runs.len() * len, |rows| {
        rows.map(|i| {
            let parts = runs.iter().enumerate().map(|(j, &r)| part(op, &v[bases[i] + r..bases[i] + r + len], j * len));
            finish(parts.reduce(|a, b| combine(op, a, b)).unwrap_or_else(|| part(op, &[], 0)))
        })
        .collect::<Vec<_>>()
    });
    output(op, chunks.into_iter().flatten().collect())
}

/// Softmax (or log-softmax) of each of the `m` rows of `k` elements in `v`, computed in f32 with
/// the row's maximum subtracted first and the sum of exponentials in f64: [`exp_row`] into a
/// row of scratch, then the scaled (or shifted) values into the result. f32 rows are read in
/// place; other float types are converted to f32 a row at a time first.
pub(super) fn softmax<T: Scalar>(v: &[T], m: usize, k: usize, log: bool) -> Vec<T> {
    let write = |first: usize, out: &mut [MaybeUninit<T>]| {
        let (mut x, mut e) = (vec![0.0f32; k], vec![MaybeUninit::<f32>::uninit(); k]);
        for (r, orow) in out.chunks_exact_mut(k).enumerate() {
            for (xi, v) in x.iter_mut().zip(&v[(first + r) * k..(first + r + 1) * k]) {
                *xi = v.to_f32();
            }
            let (e, max, sum) = exp_row(&x, &mut e);
            finish_row(orow, &x, e, max, sum, log, |y| T::from_f64(y as f64));
        }
    };
    // SAFETY: fill hands out whole rows of k elements, and finish_row writes all of each.
    unsafe { par::fill(m, k, write) }
}

/// [`softmax`] for f32, without the conversion pass.
pub(super) fn softmax_f32(v: &[f32], m: usize, k: usize, log: bool) -> Vec<f32> {
    let write = |first: usize, out: &mut [MaybeUninit<f32>]| {
        let mut e = vec![MaybeUninit::<f32>::uninit(); k];
        for (r, orow) in out.chunks_exact_mut(k).enumerate() {
            let x = &v[(first + r) * k..(first + r + 1) * k];
            let (e, max, sum) = exp_row(x, &mut e);
            finish_row(orow, x, e, max, sum, log, |y| y);
        }
    };
    // SAFETY: fill hands out whole rows of k elements, and finish_row writes all of each.
    unsafe { par::fill(m, k, write) }
}

/// The maximum of row `x` and `exp(x - max)` of each element written to `e` (as long), which
/// is returned initialised, with the maximum and the sum. The exponential is
/// [`exp_nonpositive`] (every `x - max` is at most 0), not libm's. Writing the exponentials to
/// the result row and scaling them there in place measured 15% slower in wasm than this
/// scratch row, which stays in L1.
fn exp_row<'a>(x: &[f32], e: &'a mut [MaybeUninit<f32>]) -> (&'a [f32], f32, f32) {
    let max = max_f32(x);
    let sum = exp_sum(x, e, max) as f32;
    // SAFETY: exp_sum wrote every element of `e` (as long as `x`); MaybeUninit<f32> and f32
    // have the same layout.
    (unsafe { &*(e as *const [MaybeUninit<f32>] as *const [f32]) }, max, sum)
}

/// Writes a softmax row from [`exp_row`]'s results: `e / sum`, or for log-softmax
/// `x - max - ln(sum)`, each through `to`.
fn finish_row<T>(
    out: &mut [MaybeUninit<T>],
    x: &[f32],
    e: &[f32],
    max: f32,
    sum: f32,
    log: bool,
    to: impl Fn(f32) -> T,
) {
    if log {
        // x - max first: folding max into the shift loses lse's digits when |max| is large.
        let lse = sum.ln();
        for (o, &xi) in out.iter_mut().zip(x) {
            o.write(to(xi - max - lse));
        }
    } else {
        let scale = 1.0 / sum;
        for (o, &y) in out.iter_mut().zip(e) {
            o.write(to(y * scale));
        }
    }
}

/// Writes `exp(x - max)` for each `x` of `xs` into `out` (as long) and returns their sum: one
/// pass in blocks of 256, each summed in f32 lanes (at most 32 adds per lane) and then into an
/// f64 total, where a separate f64 sum pass cost a third of softmax's time in wasm.
fn exp_sum(xs: &[f32], out: &mut [MaybeUninit<f32>], max: f32) -> f64 {
    let mut total = 0.0f64;
    for (x, o) in xs.chunks(256).zip(out.chunks_mut(256)) {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        {
            total += super::wasm_simd::exp_sum_block(x, o, max) as f64;
        }
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            total += exp_sum_block(x, o, max) as f64;
        }
    }
    total
}

/// [`exp_sum`] over one block, in eight f32 lanes (the portable form of
/// `wasm_simd::exp_sum_block`).
#[cfg_attr(all(target_arch = "wasm32", target_feature = "simd128"), allow(dead_code))]
fn exp_sum_block(xs: &[f32], out: &mut [MaybeUninit<f32>], max: f32) -> f32 {
    let mut lanes = [0.0f32; 8];
    let (mut xc, mut oc) = (xs.chunks_exact(8), out.chunks_exact_mut(8));
    for (x8, o8) in (&mut xc).zip(&mut oc) {
        for ((acc, o), &x) in lanes.iter_mut().zip(o8).zip(x8) {
            let y = exp_nonpositive(x - max);
            o.write(y);
            *acc += y;
        }
    }
    let mut rest = 0.0f32;
    for (o, &x) in oc.into_remainder().iter_mut().zip(xc.remainder()) {
        let y = exp_nonpositive(x - max);
        o.write(y);
        rest += y;
    }
    lanes.iter().sum::<f32>() + rest
}

/// The maximum of `xs` (-inf when empty), NaN when any element is NaN (as the GPU kernels and
/// PyTorch give for a softmax row holding one).
fn max_f32(xs: &[f32]) -> f32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        super::wasm_simd::max(xs)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        max_lanes(xs)
    }
}

/// [`max_f32`] through [`extreme`]'s eight lanes (the portable form of `wasm_simd::max`).
#[cfg_attr(all(target_arch = "wasm32", target_feature = "simd128"), allow(dead_code))]
fn max_lanes(xs: &[f32]) -> f32 {
    if xs.is_empty() {
        f32::NEG_INFINITY
    } else {
        extreme(xs, |c, a| c > a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extremes_keep_the_first_of_signed_zeros() {
        // Rows long enough for the lanes (and one part per block for m == 1): -0 at 2, +0 at 9.
        for k in [16, 17, 40, 1000] {
            let mut row = vec![-1.0f32; k];
            row[2] = -0.0;
            row[9] = 0.0;
            let max = f32s(rows(ReduceOp::Max, &row, 1, k));
            assert!(max[0] == 0.0 && max[0].is_sign_negative(), "max over {k}: {max:?}");
            let neg: Vec<f32> = row.iter().map(|x| -x).collect();
            let min = f32s(rows(ReduceOp::Min, &neg, 1, k));
            assert!(min[0] == 0.0 && min[0].is_sign_positive(), "min over {k}: {min:?}");
            row.swap(2, 9);
            let max = f32s(rows(ReduceOp::Max, &row, 1, k));
            assert!(max[0] == 0.0 && max[0].is_sign_positive(), "max over {k}, +0 first: {max:?}");
        }
    }

    fn f32s(d: CpuData) -> Vec<f32> {
        match d {
            CpuData::F32(v) => v,
            other => panic!("{:?}", other.dtype()),
        }
    }

    #[test]
    fn one_long_row_splits_and_matches_a_single_pass() {
        // Past the split threshold, with the maximum twice (the first must win) and late.
        let n = 1 << 20;
        let mut v: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.001).collect();
        v[700_000] = 5.0;
        v[900_000] = 5.0;
        assert_eq!(f32s(rows(ReduceOp::Max, &v, 1, n)), vec![5.0]);
        assert!(matches!(rows(ReduceOp::ArgMax, &v, 1, n), CpuData::I32(i) if i == vec![700_000]));
        let want: f64 = v.iter().map(|&x| x as f64).sum();
        assert_eq!(f32s(rows(ReduceOp::Sum, &v, 1, n)), vec![want as f32]);
        // Fixed blocks combined in order, whatever the thread count.
        let blocks: f64 = v.chunks(BLOCK).map(sum_f64).fold(0.0, |a, b| a + b);
        assert_eq!(f32s(rows(ReduceOp::Sum, &v, 1, n)), vec![blocks as f32]);
        // The first half's product underflows f64 and the second's overflows it: split in two
        // that would be 0 * inf = NaN. Spread over the eight lanes neither does, and the row's
        // product comes out as the true one, 1 (to f32 1e-30's rounding; one pass in order
        // stayed at 0 once it underflowed).
        let mut p = vec![1.0f32; 1 << 18];
        p[..11].fill(1e-30);
        p[(1 << 17)..(1 << 17) + 11].fill(1e30);
        let got = f32s(rows(ReduceOp::Prod, &p, 1, 1 << 18))[0];
        assert!((got - 1.0).abs() < 1e-5, "{got}");
        v[800_000] = f32::NAN;
        assert!(matches!(rows(ReduceOp::ArgMax, &v, 1, n), CpuData::I32(i) if i == vec![800_000]));
        let ints: Vec<i32> = (0..n as i32).collect();
        let want = (0..n as i64).sum::<i64>() as i32;
        assert!(matches!(rows(ReduceOp::Sum, &ints, 1, n), CpuData::I32(s) if s == vec![want]));
    }

    #[test]
    fn float_products_in_lanes_match_one_pass() {
        // Rows of lengths around the 8 lanes, values either side of 1 whose long rows' products
        // stay finite in f32: the lanes' product rounds to the in-order one's; one lane
        // overflowing and another underflowing (inf * 0 = NaN) falls back to the in-order
        // product, and so does a lane that went subnormal while another made up the magnitude.
        for k in [1usize, 7, 8, 9, 1000, 1027] {
            let v: Vec<f32> = (0..3 * k).map(|i| 0.95 + ((i * 7919) % 1000) as f32 / 10_000.0).collect();
            let want: Vec<f32> = v.chunks(k).map(|r| r.iter().fold(1.0f64, |a, &x| a * x as f64) as f32).collect();
            assert_eq!(f32s(rows(ReduceOp::Prod, &v, 3, k)), want, "rows of {k}");
        }
        let mut v = vec![1.0f32; 128];
        for i in 0..16 {
            v[i * 8] = 1e38; // lane 0 overflows f64 (1e608)
            v[i * 8 + 1] = 1e-38; // lane 1 underflows
        }
        let want = v.iter().fold(1.0f64, |a, &x| a * x as f64) as f32;
        let got = f32s(rows(ReduceOp::Prod, &v, 1, 128))[0];
        assert!(got.is_finite() && got.to_bits() == want.to_bits(), "{got} vs {want}");
        let mut v: Vec<f32> = [1e-38f32, 1e38, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0].repeat(8);
        v.extend([1e-15f32, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
        let want = v.iter().fold(1.0f64, |a, &x| a * x as f64) as f32;
        assert_eq!(f32s(rows(ReduceOp::Prod, &v, 1, 72)), vec![want], "a subnormal lane");
    }

    #[test]
    fn arg_forms_take_the_first_extreme_or_the_first_nan() {
        // Against the one-pass rule (`ReduceOp::better`), for rows of lengths around the 8-wide
        // blocks: the extreme in each position, ties, signed zeros, NaNs, and integers.
        let one_pass = |op: ReduceOp, xs: &[f32]| {
            let mut best = 0;
            for (i, x) in xs.iter().enumerate() {
                if op.better(*x, xs[best]) {
                    best = i;
                }
            }
            best as i32
        };
        let check = |xs: &[f32]| {
            for op in [ReduceOp::ArgMax, ReduceOp::ArgMin] {
                let CpuData::I32(got) = rows(op, xs, 1, xs.len()) else { panic!("not i32") };
                assert_eq!(got, vec![one_pass(op, xs)], "{op:?} of {xs:?}");
            }
        };
        for n in [1, 7, 8, 9, 16, 23] {
            for at in 0..n {
                let mut xs: Vec<f32> = (0..n).map(|i| ((i * 5) % 7) as f32 - 3.0).collect();
                xs[at] = 9.0;
                check(&xs);
                xs[at] = -9.0;
                check(&xs);
                xs[n - 1 - at] = f32::NAN;
                check(&xs);
                xs[at] = f32::NAN;
                check(&xs);
            }
        }
        check(&[-0.0, 0.0, 0.0, -0.0]);
        check(&[0.0, -0.0, -1.0, 1.0, 1.0]);
        let ints = [3, 9, 1, 9, 1, 0, 0, 9, 1, 1];
        assert!(matches!(rows(ReduceOp::ArgMax, &ints, 1, 10), CpuData::I32(i) if i == vec![1]));
        assert!(matches!(rows(ReduceOp::ArgMin, &ints, 1, 10), CpuData::I32(i) if i == vec![5]));
    }

    #[test]
    fn many_rows_split_by_rows() {
        let (m, k) = (1000, 300);
        let v: Vec<f32> = (0..m * k).map(|i| (i % k) as f32).collect();
        assert_eq!(f32s(rows(ReduceOp::Sum, &v, m, k)), vec![(k * (k - 1) / 2) as f32; m]);
        assert!(matches!(rows(ReduceOp::ArgMin, &v, m, k), CpuData::I32(i) if i == vec![0; m]));
    }

    #[test]
    fn max_and_min_lanes_match_a_plain_fold() {
        // Rows of every length around the 8-lane blocks, the extreme anywhere, NaN anywhere.
        for k in 1..40usize {
            for at in 0..k {
                let row: Vec<f32> = (0..k).map(|j| ((j * 37 + k) % 23) as f32 - 11.0).collect();
                let mut hi = row.clone();
                hi[at] = 100.0;
                assert_eq!(f32s(rows(ReduceOp::Max, &hi, 1, k)), vec![100.0]);
                assert_eq!(f32s(rows(ReduceOp::Min, &hi, 1, k)), vec![hi.iter().fold(f32::INFINITY, |a, &x| a.min(x))]);
                hi[at] = f32::NAN;
                assert!(f32s(rows(ReduceOp::Max, &hi, 1, k))[0].is_nan(), "k={k} at={at}");
                assert!(f32s(rows(ReduceOp::Min, &hi, 1, k))[0].is_nan(), "k={k} at={at}");
            }
        }
        let ints: Vec<i32> = (0..3 * 17).map(|i| (i * 7919) % 101 - 50).collect();
        let want: Vec<i32> = ints.chunks(17).map(|r| *r.iter().max().unwrap()).collect();
        assert!(matches!(rows(ReduceOp::Max, &ints, 3, 17), CpuData::I32(v) if v == want));
    }

    #[test]
    fn softmax_rows_sum_to_one() {
        let (m, k) = (600, 257);
        let v: Vec<f32> = (0..m * k).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
        let s = softmax(&v, m, k, false);
        let l = softmax(&v, m, k, true);
        for r in 0..m {
            let row = &s[r * k..(r + 1) * k];
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            for (x, y) in row.iter().zip(&l[r * k..(r + 1) * k]) {
                assert!((x.ln() - y).abs() < 1e-5, "{x} {y}");
            }
        }
        // The f32 path (input straight to output) agrees with the converting one.
        assert_eq!(softmax_f32(&v, m, k, false), s);
        assert_eq!(softmax_f32(&v, m, k, true), l);
        assert!(softmax(&v, 0, k, false).is_empty());
        assert!(softmax::<f32>(&[], 5, 0, false).is_empty());
        assert!(softmax_f32(&[], 5, 0, true).is_empty());
        // A NaN anywhere in a row makes that row NaN (as PyTorch); -inf entries give 0.
        let mut w = vec![1.0f32; 3 * 19];
        w[19 + 7] = f32::NAN;
        w[2 * 19 + 3] = f32::NEG_INFINITY;
        let got = softmax_f32(&w, 3, 19, false);
        assert!(got[..19].iter().all(|&x| (x - 1.0 / 19.0).abs() < 1e-6));
        assert!(got[19..38].iter().all(|x| x.is_nan()));
        assert_eq!(got[2 * 19 + 3], 0.0);
    }
}
