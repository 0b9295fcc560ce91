//! Unary f32 kernels in wasm SIMD whose autovectorised forms V8 12+ (Chrome, Node 22+) runs
//! slowly: exp, log, tanh, SiLU, GELU, ELU and clamp, each [`crate::op::math`]'s (or `op::unary`'s) scalar
//! formula on four lanes, operation for operation (the JS suite checks lanes against the
//! one-by-one form bit for bit). LLVM's wasm backend puts every vector constant where it is
//! used, as a `v128.const` inside the loop; V8 up to 11 hoisted those out of loops, V8 12+
//! builds each anew per iteration (a 64-bit immediate moved to the vector unit and shuffled),
//! which made exp over 1M 2.4 ms in Node 24 against 1.5 in Node 20 for the same module.
//! Constants here are opaque values made before the loop, so V8 keeps them in registers.

use core::arch::wasm32::*;
use std::hint::black_box;
use std::mem::MaybeUninit;

use crate::op::math::{
    exp_f32, exp_nonpositive_consts as k, expm1_nonpositive, log_f32, tanh_f32, EXPM1_NP_CUTOFF, EXPM1_NP_POLY,
    EXP_MAX, EXP_MIN, EXP_POLY, LN2_HI, LN2_LO, LOG_POLY, ROUND, TANH_POLY, TANH_SMALL,
};
use crate::op::unary::{erf, ERF_AS, ERF_SERIES, ERF_SERIES_DIVISOR, ERF_SMALL, ERF_T};

/// `f4` over `xs` four lanes at a time into `out` (as long), `f1` over the rest.
#[inline(always)]
fn map4(xs: &[f32], out: &mut [MaybeUninit<f32>], f4: impl Fn(v128) -> v128, f1: impl Fn(f32) -> f32) {
    let n = out.len();
    let xs = &xs[..n];
    let (mut xc, mut oc) = (xs.chunks_exact(4), out.chunks_exact_mut(4));
    for (x4, o4) in (&mut xc).zip(&mut oc) {
        // SAFETY: `x4` and `o4` hold 4 f32 each (a v128, loaded and stored unaligned);
        // MaybeUninit<f32> has f32's layout.
        unsafe { v128_store(o4.as_mut_ptr() as *mut v128, f4(v128_load(x4.as_ptr() as *const v128))) };
    }
    for (o, &x) in oc.into_remainder().iter_mut().zip(xc.remainder()) {
        o.write(f1(x));
    }
}

/// An f32 constant on four lanes, opaque to LLVM (see the module doc).
fn splat(x: f32) -> v128 {
    black_box(f32x4_splat(x))
}

/// `src/op/math.rs`'s `copysign` on lanes: `v`'s magnitude with `x`'s sign.
#[inline(always)]
fn copysign(v: v128, x: v128, sign: v128) -> v128 {
    v128_bitselect(x, v, sign)
}

/// Horner's rule on lanes, `((c[0] x + c[1]) x + c[2]) ...`, as the scalar formulas write it out.
#[inline(always)]
fn horner<const N: usize>(x: v128, c: &[v128; N]) -> v128 {
    c[1..].iter().fold(c[0], |p, &ci| f32x4_add(f32x4_mul(p, x), ci))
}

/// [`exp_f32`]'s constants and its formula on four lanes.
struct Exp {
    lo: v128,
    hi: v128,
    log2e: v128,
    round: v128,
    ln2_hi: v128,
    ln2_lo: v128,
    c: [v128; 5],
    half: v128,
    one: v128,
    round_bits: v128,
    bias: v128,
}

impl Exp {
    fn new() -> Self {
        Exp {
            lo: splat(EXP_MIN),
            hi: splat(EXP_MAX),
            log2e: splat(std::f32::consts::LOG2_E),
            round: splat(ROUND),
            ln2_hi: splat(LN2_HI),
            ln2_lo: splat(LN2_LO),
            c: EXP_POLY.map(splat),
            half: splat(0.5),
            one: splat(1.0),
            round_bits: black_box(u32x4_splat(ROUND.to_bits())),
            bias: black_box(i32x4_splat(127)),
        }
    }

    #[inline(always)]
    fn exp4(&self, x: v128) -> v128 {
        // f32::clamp keeps NaN; so do pmax(x, lo) and pmin(_, hi).
        let x = f32x4_pmin(f32x4_pmax(x, self.lo), self.hi);
        let t = f32x4_add(f32x4_mul(x, self.log2e), self.round);
        let n = f32x4_sub(t, self.round);
        let r = f32x4_sub(f32x4_sub(x, f32x4_mul(n, self.ln2_hi)), f32x4_mul(n, self.ln2_lo));
        let p = f32x4_add(f32x4_mul(horner(r, &self.c), r), self.half);
        let p = f32x4_add(f32x4_add(f32x4_mul(f32x4_mul(p, r), r), r), self.one);
        let ni = i32x4_sub(t, self.round_bits);
        let n1 = i32x4_shr(ni, 1);
        let n2 = i32x4_sub(ni, n1);
        let s1 = i32x4_shl(i32x4_add(n1, self.bias), 23);
        let s2 = i32x4_shl(i32x4_add(n2, self.bias), 23);
        f32x4_mul(f32x4_mul(p, s1), s2)
    }
}

/// `e^x` of each of `xs` into `out` (as long): [`exp_f32`].
pub(super) fn exp_block(xs: &[f32], out: &mut [MaybeUninit<f32>]) {
    let e = Exp::new();
    map4(xs, out, |x| e.exp4(x), exp_f32);
}

/// `tanh` of each of `xs` into `out` (as long): [`tanh_f32`], both of its forms and a select.
pub(super) fn tanh_block(xs: &[f32], out: &mut [MaybeUninit<f32>]) {
    let e = Exp::new();
    let (abs, sign) = (black_box(u32x4_splat(0x7fff_ffff)), black_box(u32x4_splat(0x8000_0000)));
    let (two, one, edge) = (splat(2.0), splat(1.0), splat(TANH_SMALL));
    let c = TANH_POLY.map(splat);
    let tanh4 = |x: v128| {
        let z = v128_and(x, abs);
        let big = f32x4_sub(one, f32x4_div(two, f32x4_add(e.exp4(f32x4_mul(two, z)), one)));
        let big = copysign(big, x, sign);
        let s = f32x4_mul(x, x);
        let p = horner(s, &c);
        let small = f32x4_add(f32x4_mul(f32x4_mul(p, s), x), x);
        let small = copysign(small, x, sign);
        v128_bitselect(big, small, f32x4_ge(z, edge))
    };
    map4(xs, out, tanh4, tanh_f32);
}

/// `ln x` of each of `xs` into `out` (as long): [`log_f32`] (Cephes' `logf`), its selects for
/// 0, +inf and negative inputs included.
pub(super) fn log_block(xs: &[f32], out: &mut [MaybeUninit<f32>]) {
    let (min_normal, two23, sqrt_half) =
        (splat(f32::MIN_POSITIVE), splat(8_388_608.0), splat(std::f32::consts::FRAC_1_SQRT_2));
    let (exp_bits, bias, bias_sub) =
        (black_box(u32x4_splat(0xff)), black_box(i32x4_splat(126)), black_box(i32x4_splat(126 + 23)));
    let (keep, half_bits) = (black_box(u32x4_splat(0x807f_ffff)), black_box(u32x4_splat(0x3f00_0000)));
    let c = LOG_POLY.map(splat);
    let (ln2_lo, ln2_hi, half, one) = (splat(LN2_LO), splat(LN2_HI), splat(0.5), splat(1.0));
    let (zero, inf, neg_inf, nan) = (splat(0.0), splat(f32::INFINITY), splat(f32::NEG_INFINITY), splat(f32::NAN));
    let log4 = |x: v128| {
        let sub = f32x4_lt(x, min_normal);
        let xs = v128_bitselect(f32x4_mul(x, two23), x, sub);
        let e = i32x4_sub(v128_and(u32x4_shr(xs, 23), exp_bits), v128_bitselect(bias_sub, bias, sub));
        let m = v128_or(v128_and(xs, keep), half_bits);
        let low = f32x4_lt(m, sqrt_half);
        // `low` is -1 where set: adding it subtracts 1.
        let e = f32x4_convert_i32x4(i32x4_add(e, low));
        let m = f32x4_sub(v128_bitselect(f32x4_add(m, m), m, low), one);
        let z = f32x4_mul(m, m);
        let p = horner(m, &c);
        let y = f32x4_sub(f32x4_add(f32x4_mul(f32x4_mul(m, z), p), f32x4_mul(ln2_lo, e)), f32x4_mul(half, z));
        let r = f32x4_add(f32x4_add(m, y), f32x4_mul(ln2_hi, e));
        let r = v128_bitselect(r, nan, f32x4_gt(x, zero));
        let r = v128_bitselect(x, r, f32x4_eq(x, inf));
        v128_bitselect(neg_inf, r, f32x4_eq(x, zero))
    };
    map4(xs, out, log4, log_f32);
}

/// SiLU of each of `xs` into `out` (as long): `x / (1 + e^-x)` with [`exp_f32`].
pub(super) fn silu_block(xs: &[f32], out: &mut [MaybeUninit<f32>]) {
    let e = Exp::new();
    let one = splat(1.0);
    map4(xs, out, |x| f32x4_div(x, f32x4_add(one, e.exp4(f32x4_neg(x)))), |x| x / (1.0 + exp_f32(-x)));
}

/// ELU (alpha 1) of each of `xs` into `out` (as long): `x` for `x >= 0`, else
/// [`expm1_nonpositive`].
pub(super) fn elu_block(xs: &[f32], out: &mut [MaybeUninit<f32>]) {
    let (cutoff, log2e, biased_round) = (splat(EXPM1_NP_CUTOFF), splat(k::LOG2E), splat(k::BIASED_ROUND));
    let (lo, hi, one, zero) = (splat(k::MINUS_LN2_LO), splat(k::MINUS_LN2_HI), splat(1.0), splat(0.0));
    let c = EXPM1_NP_POLY.map(splat);
    let elu4 = |x: v128| {
        // `if x < CUTOFF { CUTOFF } else { x }` is pmax(x, CUTOFF), NaN kept.
        let z = f32x4_pmax(x, cutoff);
        let biased = f32x4_add(f32x4_mul(z, log2e), biased_round);
        let s = i32x4_shl(biased, 23);
        let n = f32x4_sub(biased, biased_round);
        let r = f32x4_add(f32x4_mul(n, lo), f32x4_add(f32x4_mul(n, hi), z));
        let p = f32x4_mul(horner(r, &c), r);
        let rs = f32x4_mul(r, s);
        let e = f32x4_add(f32x4_add(f32x4_mul(p, rs), rs), f32x4_sub(s, one));
        v128_bitselect(x, e, f32x4_ge(x, zero))
    };
    map4(xs, out, elu4, |x| if x >= 0.0 { x } else { expm1_nonpositive(x) });
}

/// `clamp(x, lo, hi)` of each of `xs` into `out` (as long), as the scalar
/// `minimum(maximum(x, lo), hi)` (`op::binary`): `x > lo ? x : lo` is pmax(lo, x) and
/// `y < hi ? y : hi` is pmin(hi, y), each one instruction, the second of two equal values (zeros)
/// taken as there; a NaN `x` gives NaN. Bounds are not NaN (the caller's scalar path has them).
/// LLVM's autovectorised loop took 0.33 ms over 1M in Node 24 (tfjs-wasm 0.25, `abs` 0.13).
pub(super) fn clamp_block(xs: &[f32], out: &mut [MaybeUninit<f32>], lo: f32, hi: f32) {
    let (lo4, hi4, nan) = (splat(lo), splat(hi), splat(f32::NAN));
    let clamp4 = |x: v128| v128_bitselect(nan, f32x4_pmin(hi4, f32x4_pmax(lo4, x)), f32x4_ne(x, x));
    let (max, min) = (crate::op::binary::BinaryOp::Maximum, crate::op::binary::BinaryOp::Minimum);
    map4(xs, out, clamp4, |x| min.f32(max.f32(x, lo), hi));
}

/// GELU (erf form) of each of `xs` into `out` (as long): `op::unary`'s `0.5 x (1 + erf(x /
/// sqrt 2))` with its [`erf`], both of erf's forms and a select.
pub(super) fn gelu_block(xs: &[f32], out: &mut [MaybeUninit<f32>]) {
    let (abs, sign) = (black_box(u32x4_splat(0x7fff_ffff)), black_box(u32x4_splat(0x8000_0000)));
    let (half, one, rsqrt2, two_rsqrt_pi) =
        (splat(0.5), splat(1.0), splat(std::f32::consts::FRAC_1_SQRT_2), splat(std::f32::consts::FRAC_2_SQRT_PI));
    let (series, divisor, small_edge) = (ERF_SERIES.map(splat), splat(ERF_SERIES_DIVISOR), splat(ERF_SMALL));
    let (t_scale, a) = (splat(ERF_T), ERF_AS.map(splat));
    // `exp_nonpositive`, as softmax runs it.
    let en = super::wasm_simd::ExpConsts::new();
    let erf4 = |x: v128| {
        let z = f32x4_mul(x, x);
        // ((z / d + c1) z + c2) ... as horner from z / d.
        let p = series.iter().fold(f32x4_div(z, divisor), |p, &c| f32x4_mul(f32x4_add(p, c), z));
        let p = f32x4_add(p, one);
        let small = f32x4_mul(f32x4_mul(two_rsqrt_pi, x), p);
        let ax = v128_and(x, abs);
        let t = f32x4_div(one, f32x4_add(one, f32x4_mul(t_scale, ax)));
        let big = f32x4_sub(one, f32x4_mul(f32x4_mul(horner(t, &a), t), en.exp4(f32x4_neg(z))));
        v128_bitselect(small, copysign(big, x, sign), f32x4_lt(ax, small_edge))
    };
    let gelu4 = |x: v128| f32x4_mul(f32x4_mul(half, x), f32x4_add(one, erf4(f32x4_mul(x, rsqrt2))));
    map4(xs, out, gelu4, |x| 0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2)));
}
