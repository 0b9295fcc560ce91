//! Hand-written wasm SIMD (simd128) forms of the CPU loops where LLVM's autovectoriser leaves
//! speed behind in the npm package: softmax's exponential-and-sum and row maximum, pooling's
//! maximum and minimum over window taps, and sigmoid (row reductions: `wasm_rows.rs`). Written with
//! `core::arch::wasm32` so the vector code does not depend on what the vectoriser makes of a
//! scalar loop (the degree-5 exponential written as scalar code came out 35% slower than the
//! degree-7 one it replaced). Each function has a portable twin (in `reduce.rs`, `strided.rs`,
//! and `op::math::sigmoid_f32`) that native builds use and the tests compare against.

use core::arch::wasm32::*;
use std::mem::MaybeUninit;

use crate::op::math::{exp_nonpositive, exp_nonpositive_consts as k};

/// Writes `exp(x - max)` for each `x` of `xs` into `out` (as long) and returns their sum in f32
/// (callers keep blocks short, as `reduce::exp_sum` does with 256, so the f32 sum stays
/// accurate): a vector of 4 a step (8 a step in two accumulators measured the same: the
/// exponential's ~25 vector ops per 4 elements, not the loop, set the speed).
pub(super) fn exp_sum_block(xs: &[f32], out: &mut [MaybeUninit<f32>], max: f32) -> f32 {
    let vmax = f32x4_splat(max);
    let c = ExpConsts::new();
    let mut acc = f32x4_splat(0.0);
    let (mut xc, mut oc) = (xs.chunks_exact(4), out.chunks_exact_mut(4));
    for (x4, o4) in (&mut xc).zip(&mut oc) {
        // SAFETY: `x4` and `o4` hold 4 f32 each (a v128, which wasm loads and stores
        // unaligned); MaybeUninit<f32> has f32's layout.
        unsafe {
            let y = c.exp4(f32x4_sub(v128_load(x4.as_ptr() as *const v128), vmax));
            v128_store(o4.as_mut_ptr() as *mut v128, y);
            acc = f32x4_add(acc, y);
        }
    }
    let mut sum = (f32x4_extract_lane::<0>(acc) + f32x4_extract_lane::<1>(acc))
        + (f32x4_extract_lane::<2>(acc) + f32x4_extract_lane::<3>(acc));
    for (o, &x) in oc.into_remainder().iter_mut().zip(xc.remainder()) {
        let y = exp_nonpositive(x - max);
        o.write(y);
        sum += y;
    }
    sum
}

/// [`exp_nonpositive`]'s constants as vectors, made opaque to LLVM: left as constants, the
/// wasm backend rematerialises every `v128.const` inside the loop and V8 builds each of them
/// anew per iteration (a scalar move, a move to the vector unit and a shuffle: about as many
/// instructions as the arithmetic); opaque values are loaded once and stay in registers.
pub(super) struct ExpConsts {
    log2e: v128,
    biased_round: v128,
    minus_ln2_hi: v128,
    minus_ln2_lo: v128,
    c: [v128; 5],
    normal_from: v128,
}

impl ExpConsts {
    /// The constants, made opaque.
    pub(super) fn new() -> Self {
        let v = |x: f32| std::hint::black_box(f32x4_splat(x));
        ExpConsts {
            log2e: v(k::LOG2E),
            biased_round: v(k::BIASED_ROUND),
            minus_ln2_hi: v(k::MINUS_LN2_HI),
            minus_ln2_lo: v(k::MINUS_LN2_LO),
            c: [v(k::C1), v(k::C2), v(k::C3), v(k::C4), v(k::C5)],
            normal_from: v(k::NORMAL_FROM),
        }
    }

    /// [`exp_nonpositive`] on four lanes, operation for operation.
    #[inline(always)]
    pub(super) fn exp4(&self, x: v128) -> v128 {
        let biased = f32x4_add(f32x4_mul(x, self.log2e), self.biased_round);
        let s = i32x4_shl(biased, 23);
        let n = f32x4_sub(biased, self.biased_round);
        let r = f32x4_add(f32x4_mul(n, self.minus_ln2_hi), x);
        let r = f32x4_add(f32x4_mul(n, self.minus_ln2_lo), r);
        let [c1, c2, c3, c4, c5] = self.c;
        let p = f32x4_add(f32x4_mul(c5, r), c4);
        let p = f32x4_add(f32x4_mul(p, r), c3);
        let p = f32x4_add(f32x4_mul(p, r), c2);
        let p = f32x4_add(f32x4_mul(p, r), c1);
        let e = f32x4_add(f32x4_mul(f32x4_mul(r, s), p), s);
        // Lanes below the normal range become 0; NaN compares false and stays NaN.
        v128_andnot(e, f32x4_lt(x, self.normal_from))
    }
}

/// The maximum of `xs` (-inf when empty) for softmax's rows. The vector part uses
/// `f32x4.pmax`, which passes over a NaN (the tail takes one): a row with a NaN may get the
/// maximum of its numbers, but its softmax is NaN throughout either way (`exp(NaN - max)` makes
/// the sum NaN), as PyTorch's and the GPU kernels' are.
pub(super) fn max(xs: &[f32]) -> f32 {
    let (mut m0, mut m1) = (f32x4_splat(f32::NEG_INFINITY), f32x4_splat(f32::NEG_INFINITY));
    let chunks = xs.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        let p = c.as_ptr() as *const v128;
        // SAFETY: `c` holds 8 f32.
        unsafe {
            m0 = f32x4_pmax(m0, v128_load(p));
            m1 = f32x4_pmax(m1, v128_load(p.add(1)));
        }
    }
    let m = f32x4_max(m0, m1);
    let lanes = [
        f32x4_extract_lane::<0>(m),
        f32x4_extract_lane::<1>(m),
        f32x4_extract_lane::<2>(m),
        f32x4_extract_lane::<3>(m),
    ];
    // NaN, once in `a`, stays: `x > NaN` is false.
    lanes
        .into_iter()
        .chain(rest.iter().copied())
        .fold(f32::NEG_INFINITY, |a, x| if x > a || x.is_nan() { x } else { a })
}

/// The first outputs (a multiple of 4) of `strided::extreme_row`, four at a time; the caller
/// finishes the rest. With step 2 four outputs' values of a tap are the even lanes of eight
/// adjacent floats, with longer steps gathered lane by lane. Each lane takes `x` where `x`
/// beats it strictly, and is NaN if any tap is, as `strided::best` (wasm's `f32x4.max` would
/// make +0 the larger of -0 and +0, not the first; its pseudo-maximum keeps the first).
pub(super) fn extreme_row<const MAX: bool>(v: &[f32], b: usize, step: usize, taps: &[usize], out: &mut [f32]) -> usize {
    // Made once, opaque: V8 12+ rebuilds a `v128.const` inside a loop every iteration.
    let default_nan = std::hint::black_box(f32x4_splat(f32::NAN));
    let fold = |xs: &mut dyn Iterator<Item = v128>| {
        let mut m = xs.next().unwrap_or(default_nan);
        let mut nan = f32x4_ne(m, m);
        for x in xs {
            // pmax(m, x) is `m < x ? x : m`: x only when strictly larger, so the first of
            // equals stays; a NaN x never wins there and is remembered instead.
            m = if MAX { f32x4_pmax(m, x) } else { f32x4_pmin(m, x) };
            nan = v128_or(nan, f32x4_ne(x, x));
        }
        // The default NaN where any tap is NaN (its payload is not kept, as on GPUs).
        v128_bitselect(default_nan, m, nan)
    };
    tap_row(v, b, step, taps, out, fold)
}

/// Runs `fold` over each group of four outputs of a tap row (`out[i]` from `b + i * step`),
/// giving it the taps' vectors in tap order, read the cheapest way the step allows: loads for
/// step 1, two loads per window row for 2x2 windows at step 2, even lanes for other step-2
/// taps, lane-by-lane gathers beyond. Returns how many outputs were done (a multiple of 4).
fn tap_row(
    v: &[f32],
    b: usize,
    step: usize,
    taps: &[usize],
    out: &mut [f32],
    fold: impl Fn(&mut dyn Iterator<Item = v128>) -> v128,
) -> usize {
    let taps_of = |load: &dyn Fn(usize) -> v128| fold(&mut taps.iter().map(|&t| load(t)));
    match step {
        1 => tap_groups::<1>(v, b, taps, out, taps_of),
        2 => window_2x2(v, b, taps, out, |x| fold(&mut x.into_iter()))
            .unwrap_or_else(|| tap_groups::<2>(v, b, taps, out, taps_of)),
        s => gather_groups(v, b, s, taps, out, taps_of),
    }
}

/// 2x2 windows at stride 2 (taps `[t, t + 1, u, u + 1]`, the pooling CNNs use most), four
/// outputs at a time: two loads of a window row hold both of its taps (the even and the odd
/// lanes), half the loads of the tap loop and none of its bookkeeping. `fold` gets the four
/// taps' vectors in tap order. None for other windows.
#[inline(never)]
fn window_2x2(v: &[f32], b: usize, taps: &[usize], out: &mut [f32], fold: impl Fn([v128; 4]) -> v128) -> Option<usize> {
    let &[t, t1, u, u1] = taps else { return None };
    if t1 != t + 1 || u1 != u + 1 {
        return None;
    }
    let reach = t.max(u);
    Some(each_group(
        out,
        |i| b + reach + 2 * i + 8 <= v.len(),
        |i| {
            let at = b + 2 * i;
            // SAFETY: at + max(t, u) + 8 <= v.len() (`fits`): the two 16-byte loads from each row
            // start lie inside `v`; wasm loads are unaligned.
            let r = |o: usize| unsafe {
                let p = v.as_ptr().add(at + o) as *const v128;
                (v128_load(p), v128_load(p.add(1)))
            };
            let ((r0, r1), (r2, r3)) = (r(t), r(u));
            fold([
                i32x4_shuffle::<0, 2, 4, 6>(r0, r1),
                i32x4_shuffle::<1, 3, 5, 7>(r0, r1),
                i32x4_shuffle::<0, 2, 4, 6>(r2, r3),
                i32x4_shuffle::<1, 3, 5, 7>(r2, r3),
            ])
        },
    ))
}

/// Stores `group(i)` as outputs `i..i + 4` of `out` for i = 0, 4, 8, .. while a whole group
/// remains and `fits(i)` (its loads lie inside the input), and returns how many outputs were
/// done: the loop of the tap-row readers, which differ in how a group's taps are loaded.
#[inline(always)]
fn each_group(out: &mut [f32], fits: impl Fn(usize) -> bool, group: impl Fn(usize) -> v128) -> usize {
    let mut i = 0;
    while i + 4 <= out.len() && fits(i) {
        let r = group(i);
        // SAFETY: i + 4 <= out.len(): four f32, stored unaligned.
        unsafe { v128_store(out.as_mut_ptr().add(i) as *mut v128, r) };
        i += 4;
    }
    i
}

/// The first outputs (a multiple of 4) of `strided::sum_row`, four at a time: each tap's four
/// values widened to f64 and added there, the sum rounded once to f32 (the
/// same answer as the scalar loop, bit for bit).
pub(super) fn sum_row(v: &[f32], b: usize, step: usize, taps: &[usize], out: &mut [f32]) -> usize {
    let sum = |xs: &mut dyn Iterator<Item = v128>| {
        let (mut lo, mut hi) = (f64x2_splat(0.0), f64x2_splat(0.0));
        for x in xs {
            lo = f64x2_add(lo, f64x2_promote_low_f32x4(x));
            hi = f64x2_add(hi, f64x2_promote_low_f32x4(i32x4_shuffle::<2, 3, 0, 1>(x, x)));
        }
        i32x4_shuffle::<0, 1, 4, 5>(f32x4_demote_f64x2_zero(lo), f32x4_demote_f64x2_zero(hi))
    };
    tap_row(v, b, step, taps, out, sum)
}

/// Runs `fold` for each group of four outputs of a tap row (`out[i]` from `b + i * STEP`)
/// while every tap's load stays inside `v`, stores each result, and returns how many outputs
/// were done. `fold` gets a loader of a tap's four values: with STEP 2 the even lanes of eight
/// adjacent floats.
#[inline(always)]
fn tap_groups<const STEP: usize>(
    v: &[f32],
    b: usize,
    taps: &[usize],
    out: &mut [f32],
    fold: impl Fn(&dyn Fn(usize) -> v128) -> v128,
) -> usize {
    let Some(&reach) = taps.iter().max() else { return 0 };
    each_group(
        out,
        |i| b + reach + STEP * i + 4 * STEP <= v.len(),
        |i| {
            let at = b + STEP * i;
            let load = |t: usize| {
                // SAFETY: at + t + 4 * STEP <= v.len() (t is at most `reach`, checked by `fits`),
                // so both 16-byte loads lie inside `v`; wasm loads are unaligned.
                unsafe {
                    let p = v.as_ptr().add(at + t) as *const v128;
                    if STEP == 1 {
                        v128_load(p)
                    } else {
                        i32x4_shuffle::<0, 2, 4, 6>(v128_load(p), v128_load(p.add(1)))
                    }
                }
            };
            fold(&load)
        },
    )
}

/// [`tap_groups`] for steps past 2: short contiguous rows (`amax(-1)` over rows of 4 took
/// 1.5 ms per 1M elements one output at a time) and windows at wide strides. Each tap's four
/// values are gathered lane by lane.
#[inline(never)]
fn gather_groups(
    v: &[f32],
    b: usize,
    step: usize,
    taps: &[usize],
    out: &mut [f32],
    fold: impl Fn(&dyn Fn(usize) -> v128) -> v128,
) -> usize {
    let Some(&reach) = taps.iter().max() else { return 0 };
    each_group(
        out,
        |i| b + reach + step * (i + 3) < v.len(),
        |i| {
            let at = b + step * i;
            let load = |t: usize| {
                let p = at + t;
                // SAFETY: p + 3 * step <= b + reach + step * (i + 3) < v.len() (t is at most
                // `reach`, checked by `fits`).
                unsafe {
                    f32x4(
                        *v.get_unchecked(p),
                        *v.get_unchecked(p + step),
                        *v.get_unchecked(p + 2 * step),
                        *v.get_unchecked(p + 3 * step),
                    )
                }
            };
            fold(&load)
        },
    )
}

/// Sigmoid of each of `xs` into `out` (as long): [`crate::op::math::sigmoid_f32`] four lanes
/// at a time, with `-|x|` as one `or` of the sign bit and the side chosen by the sign bit
/// itself (V8 rebuilt `abs`'s mask and reloaded a zero vector for `x >= 0` every iteration).
pub(super) fn sigmoid_block(xs: &[f32], out: &mut [MaybeUninit<f32>]) {
    let c = ExpConsts::new();
    let one = std::hint::black_box(f32x4_splat(1.0));
    let sign = std::hint::black_box(u32x4_splat(0x8000_0000));
    let (mut xc, mut oc) = (xs.chunks_exact(4), out.chunks_exact_mut(4));
    for (x4, o4) in (&mut xc).zip(&mut oc) {
        // SAFETY: `x4` and `o4` hold 4 f32 each (one v128, loaded and stored unaligned).
        unsafe {
            let x = v128_load(x4.as_ptr() as *const v128);
            let z = c.exp4(v128_or(x, sign));
            let r = f32x4_div(one, f32x4_add(one, z));
            // Lanes with the sign bit set (x < 0, and -0) take z r.
            let neg = i32x4_shr(x, 31);
            v128_store(o4.as_mut_ptr() as *mut v128, v128_bitselect(f32x4_mul(z, r), r, neg));
        }
    }
    for (o, &x) in oc.into_remainder().iter_mut().zip(xc.remainder()) {
        o.write(crate::op::math::sigmoid_f32(x));
    }
}
