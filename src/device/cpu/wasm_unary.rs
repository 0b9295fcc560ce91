//! Unary f32 kernels in wasm SIMD whose autovectorised forms V8 12+ (Chrome, Node 22+) runs
//! slowly: exp, log, tanh, SiLU, GELU and ELU, each [`crate::op::math`]'s (or `op::unary`'s) scalar
//! formula on four lanes, operation for operation (the JS suite checks lanes against the
//! one-by-one form bit for bit). LLVM's wasm backend puts every vector constant where it is
//! used, as a `v128.const` inside the loop; V8 up to 11 hoisted those out of loops, V8 12+
//! builds each anew per iteration (a 64-bit immediate moved to the vector unit and shuffled),
//! which made exp over 1M 2.4 ms in Node 24 against 1.5 in Node 20 for the same module.
//! Constants here are opaque values made before the loop, so V8 keeps them in registers.

use core::arch::wasm32::*;
use std::hint::black_box;
use std::mem::MaybeUninit;

use crate::op::math::{exp_f32, exp_nonpositive_consts as k, expm1_nonpositive, log_f32, tanh_f32};
use crate::op::unary::erf;

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
            lo: splat(-104.0),
            hi: splat(89.0),
            log2e: splat(std::f32::consts::LOG2_E),
            round: splat(crate::op::math::ROUND),
            ln2_hi: splat(0.693_359_4),
            ln2_lo: splat(-2.121_944_4e-4),
            c: [
                splat(1.987_569_1e-4),
                splat(1.398_199_9e-3),
                splat(8.333_452e-3),
                splat(4.166_579_6e-2),
                splat(1.666_666_5e-1),
            ],
            half: splat(0.5),
            one: splat(1.0),
            round_bits: black_box(u32x4_splat(crate::op::math::ROUND.to_bits())),
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
        let [c0, c1, c2, c3, c4] = self.c;
        let p = f32x4_add(f32x4_mul(c0, r), c1);
        let p = f32x4_add(f32x4_mul(p, r), c2);
        let p = f32x4_add(f32x4_mul(p, r), c3);
        let p = f32x4_add(f32x4_mul(p, r), c4);
        let p = f32x4_add(f32x4_mul(p, r), self.half);
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
    let (two, one, edge) = (splat(2.0), splat(1.0), splat(0.625));
    let c = [
        splat(-5.704_988_7e-3),
        splat(2.063_909e-2),
        splat(5.373_971_6e-2),
        splat(1.333_144_2e-1),
        splat(3.333_328e-1),
    ];
    let tanh4 = |x: v128| {
        let z = v128_and(x, abs);
        let big = f32x4_sub(one, f32x4_div(two, f32x4_add(e.exp4(f32x4_mul(two, z)), one)));
        let big = copysign(big, x, sign);
        let s = f32x4_mul(x, x);
        let p = f32x4_add(f32x4_mul(c[0], s), c[1]);
        let p = f32x4_sub(f32x4_mul(p, s), c[2]);
        let p = f32x4_add(f32x4_mul(p, s), c[3]);
        let p = f32x4_sub(f32x4_mul(p, s), c[4]);
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
    let c = [
        7.037_683_6e-2,
        1.151_461e-1,
        1.167_699_9e-1,
        1.242_014_1e-1,
        1.424_932_3e-1,
        1.666_805_8e-1,
        2.000_071_4e-1,
        2.499_999_4e-1,
        3.333_333e-1,
    ]
    .map(splat);
    let (ln2_lo, ln2_hi, half, one) = (splat(2.121_944_4e-4), splat(0.693_359_4), splat(0.5), splat(1.0));
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
        let p = f32x4_sub(f32x4_mul(c[0], m), c[1]);
        let p = f32x4_add(f32x4_mul(p, m), c[2]);
        let p = f32x4_sub(f32x4_mul(p, m), c[3]);
        let p = f32x4_add(f32x4_mul(p, m), c[4]);
        let p = f32x4_sub(f32x4_mul(p, m), c[5]);
        let p = f32x4_add(f32x4_mul(p, m), c[6]);
        let p = f32x4_sub(f32x4_mul(p, m), c[7]);
        let p = f32x4_add(f32x4_mul(p, m), c[8]);
        let y = f32x4_sub(f32x4_sub(f32x4_mul(f32x4_mul(m, z), p), f32x4_mul(ln2_lo, e)), f32x4_mul(half, z));
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
    let (cutoff, log2e, biased_round) = (splat(-17.328_68), splat(k::LOG2E), splat(k::BIASED_ROUND));
    let (lo, hi, one, zero) = (splat(k::MINUS_LN2_LO), splat(k::MINUS_LN2_HI), splat(1.0), splat(0.0));
    let c = [0x3ab5_b99c, 0x3c09_13c7, 0x3d2a_ab8b, 0x3e2a_aa58, 0x3eff_ffff].map(|b| splat(f32::from_bits(b)));
    let elu4 = |x: v128| {
        // `if x < CUTOFF { CUTOFF } else { x }` is pmax(x, CUTOFF), NaN kept.
        let z = f32x4_pmax(x, cutoff);
        let biased = f32x4_add(f32x4_mul(z, log2e), biased_round);
        let s = i32x4_shl(biased, 23);
        let n = f32x4_sub(biased, biased_round);
        let r = f32x4_add(f32x4_mul(n, lo), f32x4_add(f32x4_mul(n, hi), z));
        let p = f32x4_add(f32x4_mul(c[0], r), c[1]);
        let p = f32x4_add(f32x4_mul(p, r), c[2]);
        let p = f32x4_add(f32x4_mul(p, r), c[3]);
        let p = f32x4_mul(f32x4_add(f32x4_mul(p, r), c[4]), r);
        let rs = f32x4_mul(r, s);
        let e = f32x4_add(f32x4_add(f32x4_mul(p, rs), rs), f32x4_sub(s, one));
        v128_bitselect(x, e, f32x4_ge(x, zero))
    };
    map4(xs, out, elu4, |x| if x >= 0.0 { x } else { expm1_nonpositive(x) });
}

/// GELU (erf form) of each of `xs` into `out` (as long): `op::unary`'s `0.5 x (1 + erf(x /
/// sqrt 2))` with its [`erf`], both of erf's forms and a select.
pub(super) fn gelu_block(xs: &[f32], out: &mut [MaybeUninit<f32>]) {
    let (abs, sign) = (black_box(u32x4_splat(0x7fff_ffff)), black_box(u32x4_splat(0x8000_0000)));
    let (half, one, rsqrt2, two_rsqrt_pi) =
        (splat(0.5), splat(1.0), splat(std::f32::consts::FRAC_1_SQRT_2), splat(std::f32::consts::FRAC_2_SQRT_PI));
    let small_c =
        [splat(9360.0), splat(1.0 / 1320.0), splat(1.0 / 216.0), splat(1.0 / 42.0), splat(0.1), splat(1.0 / 3.0)];
    let big_c = [
        splat(0.3275911),
        splat(1.061_405_4),
        splat(1.453_152_1),
        splat(1.421_413_8),
        splat(0.284_496_74),
        splat(0.254_829_6),
    ];
    // `exp_nonpositive`, as softmax runs it.
    let en = super::wasm_simd::ExpConsts::new();
    let erf4 = |x: v128| {
        let z = f32x4_mul(x, x);
        let [d, c1, c2, c3, c4, c5] = small_c;
        let p = f32x4_sub(f32x4_div(z, d), c1);
        let p = f32x4_add(f32x4_mul(p, z), c2);
        let p = f32x4_sub(f32x4_mul(p, z), c3);
        let p = f32x4_add(f32x4_mul(p, z), c4);
        let p = f32x4_sub(f32x4_mul(p, z), c5);
        let p = f32x4_add(f32x4_mul(p, z), one);
        let small = f32x4_mul(f32x4_mul(two_rsqrt_pi, x), p);
        let ax = v128_and(x, abs);
        let t = f32x4_div(one, f32x4_add(one, f32x4_mul(big_c[0], ax)));
        let q = f32x4_sub(f32x4_mul(big_c[1], t), big_c[2]);
        let q = f32x4_add(f32x4_mul(q, t), big_c[3]);
        let q = f32x4_sub(f32x4_mul(q, t), big_c[4]);
        let q = f32x4_add(f32x4_mul(q, t), big_c[5]);
        let big = f32x4_sub(one, f32x4_mul(f32x4_mul(q, t), en.exp4(f32x4_neg(z))));
        v128_bitselect(small, copysign(big, x, sign), f32x4_lt(ax, half))
    };
    let gelu4 = |x: v128| f32x4_mul(f32x4_mul(half, x), f32x4_add(one, erf4(f32x4_mul(x, rsqrt2))));
    map4(xs, out, gelu4, |x| 0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2)));
}
