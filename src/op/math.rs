//! Elementary functions for the CPU's op semantics and kernels' hot loops, written so the
//! compiler vectorises them (wasm SIMD in the npm package, SSE/AVX natively). `f32::exp` is a
//! call into libm per element that no loop around it can vectorise: softmax over 1024x1024
//! spent ~85% of its time there inside wasm (9 ms against tfjs-wasm's 1.5 ms, whose XNNPACK
//! kernels use a polynomial exp).

/// 1.5 * 2^23: adding it to a float of magnitude below 2^22 rounds it to an integer held in the
/// low mantissa bits (round to nearest even), with no float-to-int conversion.
pub(crate) const ROUND: f32 = 12_582_912.0;

// The formulas' constants are named here once: the wasm SIMD forms of these functions
// (`device/cpu/wasm_unary.rs`) read the same ones. Polynomials are Horner's rule over the
// coefficients in order, each added with its sign (`p r - c` and `p r + (-c)` are the same
// IEEE operation).

/// [`exp_f32`]'s range: past these e^x is 0 or +inf in f32 whatever the polynomial says.
pub(crate) const EXP_MIN: f32 = -104.0;
/// See [`EXP_MIN`].
pub(crate) const EXP_MAX: f32 = 89.0;
/// ln 2 split so n * LN2_HI is exact for |n| <= 2^9 (Cephes' reduction).
pub(crate) const LN2_HI: f32 = 0.693_359_4;
/// See [`LN2_HI`].
pub(crate) const LN2_LO: f32 = -2.121_944_4e-4;
/// Cephes' `expf`: `e^r = 1 + r + r^2 (1/2 + r p(r))`, `p` of these coefficients.
pub(crate) const EXP_POLY: [f32; 5] = [1.987_569_1e-4, 1.398_199_9e-3, 8.333_452e-3, 4.166_579_6e-2, 1.666_666_5e-1];
/// Cephes' `tanhf` below [`TANH_SMALL`]: `x + x s p(s)` with `s = x^2`.
pub(crate) const TANH_POLY: [f32; 5] = [-5.704_988_7e-3, 2.063_909e-2, -5.373_971_6e-2, 1.333_144_2e-1, -3.333_328e-1];
/// Where [`tanh_f32`] switches from its polynomial to its exponential form.
pub(crate) const TANH_SMALL: f32 = 0.625;
/// Cephes' `logf`: the polynomial in `m - 1`.
pub(crate) const LOG_POLY: [f32; 9] = [
    7.037_683_6e-2,
    -1.151_461e-1,
    1.167_699_9e-1,
    -1.242_014_1e-1,
    1.424_932_3e-1,
    -1.666_805_8e-1,
    2.000_071_4e-1,
    -2.499_999_4e-1,
    3.333_333e-1,
];
/// [`expm1_nonpositive`]'s input floor: below it f32's e^x - 1 rounds to -1.
pub(crate) const EXPM1_NP_CUTOFF: f32 = -17.328_68;
/// [`expm1_nonpositive`]'s `e^r - 1 = r + r^2 (c2 + c3 r + ... + c6 r^4)`, highest first
/// (XNNPACK's `rr2_p6` minimax coefficients).
pub(crate) const EXPM1_NP_POLY: [f32; 5] = [
    f32::from_bits(0x3ab5_b99c),
    f32::from_bits(0x3c09_13c7),
    f32::from_bits(0x3d2a_ab8b),
    f32::from_bits(0x3e2a_aa58),
    f32::from_bits(0x3eff_ffff),
];

/// Inputs up to this size take [`sin_cos_reduced`]'s reduction (three-part pi/4, exact enough
/// there); larger ones, libm's (Payne-Hanek).
pub(crate) const SIN_COS_REDUCED_MAX: f32 = 8192.0;

/// `sin(x)` (or `cos(x)` with `want_cos`) for |x| <= [`SIN_COS_REDUCED_MAX`], branch-free so that
/// loops over it vectorise: Cephes' `sinf`/`cosf` (the reduction by pi/4 in three parts, degree-7
/// and degree-8 polynomials), as the WGSL kernels compute it (`WGSL_SINCOS`). Outside that range
/// the value is meaningless: [`sin_f32`] and the CPU's kernel take libm's there.
#[inline(always)]
pub(crate) fn sin_cos_reduced(x: f32, want_cos: bool) -> f32 {
    let ax = x.abs();
    // i32, not u32: SSE2 and wasm convert floats to i32 a vector at a time.
    let mut j = (ax * 1.273_239_5).min(16384.0) as i32;
    j += j & 1;
    let y = j as f32;
    let z = ((ax - y * 0.785_156_25) - y * 2.418_756_5e-4) - y * 3.774_895e-8;
    let zz = z * z;
    let s = ((-1.951_529_6e-4 * zz + 8.332_161e-3) * zz - 1.666_665_5e-1) * zz * z + z;
    let c = ((2.443_315_7e-5 * zz - 1.388_731_6e-3) * zz + 4.166_664_6e-2) * zz * zz - 0.5 * zz + 1.0;
    // The octant: sin is s, c, -s, -c for q = 0..3 (odd in x), cos is c, -s, -c, s (even):
    // selects and a sign bit, no branch.
    let q = (j >> 1) & 3;
    let r = if (q & 1 == 1) != want_cos { c } else { s };
    let flip = if want_cos { (q + 1) & 2 } else { q & 2 };
    let odd = if want_cos { 0 } else { x.to_bits() & 0x8000_0000 };
    f32::from_bits(r.to_bits() ^ ((flip as u32) << 30) ^ odd)
}

/// `sin(x)` (`cos(x)` with `want_cos`) in f32: [`sin_cos_reduced`] up to
/// [`SIN_COS_REDUCED_MAX`], libm beyond it and for non-finite inputs (NaN).
#[inline]
pub(crate) fn sin_f32(x: f32, want_cos: bool) -> f32 {
    if x.abs() <= SIN_COS_REDUCED_MAX {
        sin_cos_reduced(x, want_cos)
    } else if want_cos {
        x.cos()
    } else {
        x.sin()
    }
}

/// `e^x` in f32, within 2 ulp of `f32::exp` over the whole range: 0 below about -103.97, +inf
/// above about 88.72, NaN for NaN. Cephes' `expf`: `x = n ln2 + r` with |r| <= ln2/2, a degree-7
/// polynomial for `e^r`, and `2^n` from the exponent bits in two halves so results that are
/// subnormal (n down to -150) come out right instead of flushing to 0.
#[inline(always)]
pub(crate) fn exp_f32(x: f32) -> f32 {
    // Past these e^x is 0 or +inf in f32 whatever the polynomial says; clamping keeps n small.
    // `clamp` keeps NaN, which then flows through the arithmetic.
    let (t, r) = split_ln2(x.clamp(EXP_MIN, EXP_MAX));
    let [c0, c1, c2, c3, c4] = EXP_POLY;
    let p = ((((((c0 * r + c1) * r + c2) * r + c3) * r + c4) * r + 0.5) * r * r) + r + 1.0;
    // n (in [-150, 129]) sits in t's low mantissa bits, offset by ROUND's own.
    let ni = (t.to_bits() as i32).wrapping_sub(ROUND.to_bits() as i32);
    let n1 = ni >> 1;
    let n2 = ni - n1;
    let s1 = f32::from_bits(((n1 + 127) as u32) << 23);
    let s2 = f32::from_bits(((n2 + 127) as u32) << 23);
    p * s1 * s2
}

/// `x = n ln2 + r` with |r| <= ln2/2 (Cephes' reduction, for |x| below about 2^9 ln2): `t`
/// holds n in its low mantissa bits, offset by [`ROUND`]'s own, and `r`.
#[inline(always)]
fn split_ln2(x: f32) -> (f32, f32) {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    let t = x * LOG2E + ROUND;
    let n = t - ROUND;
    (t, x - n * LN2_HI - n * LN2_LO)
}

/// `tanh(x)` in f32, within 3 ulp of the f64 result rounded, without a libm call so loops over
/// it vectorise (libm's `tanhf` took 21 ns an element in wasm): Cephes' `tanhf`, an odd
/// polynomial below |x| = 0.625 and `1 - 2 / (e^{2|x|} + 1)` with the sign put back above.
/// Both are computed and one selected, as a vector loop would. NaN stays NaN, ±inf gives ±1.
#[inline(always)]
pub(crate) fn tanh_f32(x: f32) -> f32 {
    let z = x.abs();
    let big = (1.0 - 2.0 / (exp_f32(2.0 * z) + 1.0)).copysign(x);
    let s = x * x;
    let [c0, c1, c2, c3, c4] = TANH_POLY;
    let small = ((((c0 * s + c1) * s + c2) * s + c3) * s + c4) * s * x + x;
    // x + x*(...) gives +0 for -0; tanh is odd, so x's sign is the answer's.
    let small = small.copysign(x);
    if z >= TANH_SMALL {
        big
    } else {
        small
    }
}

/// `e^x` for `x <= 0` (softmax's `y - max`), cheaper than [`exp_f32`] by a third of its
/// operations: the exponent bias rides in the rounding constant so `2^n` is one shift, the
/// polynomial is degree 5 (a minimax fit on |r| <= ln2/2, as XNNPACK's `rr2_p5` kernels use),
/// and there is no overflow side to guard. Within 3 ulp of `f32::exp` where the result is normal;
/// results that would be subnormal (x below about -87.34) are 0, an absolute error under 1.2e-38.
/// NaN stays NaN. Softmax over 1024x1024 in wasm spent most of its time in the exponential.
#[inline(always)]
pub(crate) fn exp_nonpositive(x: f32) -> f32 {
    use exp_nonpositive_consts::*;
    let biased = x * LOG2E + BIASED_ROUND;
    let s = f32::from_bits(biased.to_bits() << 23);
    let n = biased - BIASED_ROUND;
    let r = n * MINUS_LN2_LO + (n * MINUS_LN2_HI + x);
    let p = (((C5 * r + C4) * r + C3) * r + C2) * r + C1;
    let e = (r * s) * p + s;
    if x < NORMAL_FROM {
        0.0
    } else {
        e
    }
}

/// `e^x - 1` for `x <= 0` (ELU's negative side), with [`exp_nonpositive`]'s reduction:
/// `e^x - 1 = (2^n - 1) + 2^n (e^r - 1)`, so near 0 (n = 0) the result is `e^r - 1` from a
/// polynomial with relative accuracy there, no cancellation. -1 below -25 ln 2 (where
/// f32's e^x - 1 rounds to -1), so 2^n stays normal; NaN stays NaN. About two thirds of
/// [`expm1_f32`]'s operations (no overflow side, the exponent bias in the rounding constant,
/// a degree-5 polynomial): ELU over 1M in wasm was 0.64-0.77x tfjs-wasm. Within 4 ulp of the
/// f64 result rounded (see the test); the sign of -0 is the caller's to keep.
#[inline(always)]
pub(crate) fn expm1_nonpositive(x: f32) -> f32 {
    use exp_nonpositive_consts::*;
    let z = if x < EXPM1_NP_CUTOFF { EXPM1_NP_CUTOFF } else { x };
    let biased = z * LOG2E + BIASED_ROUND;
    let s = f32::from_bits(biased.to_bits() << 23);
    let n = biased - BIASED_ROUND;
    let r = n * MINUS_LN2_LO + (n * MINUS_LN2_HI + z);
    // e^r - 1 = r + r^2 (c2 + c3 r + ... + c6 r^4), the linear term exact: exp_nonpositive's
    // polynomial, whose r term is 1 - 3e-7, would make that the relative error near 0.
    let [c6, c5, c4, c3, c2] = EXPM1_NP_POLY;
    let p = ((((c6 * r + c5) * r + c4) * r + c3) * r + c2) * r;
    let rs = r * s;
    (p * rs + rs) + (s - 1.0)
}

/// `ln(x)` in f32, within 2 ulp of the f64 result rounded, without a libm call so loops over it
/// vectorise (libm's `logf` took 6.9 ms per 1M elements in wasm): Cephes' `logf`, `x = m 2^e`
/// with m in [sqrt(1/2), sqrt(2)), a degree-9 polynomial in `m - 1`, and `e ln 2` added in two
/// parts. Subnormal inputs are scaled by 2^23 first; 0 gives -inf, negative inputs and NaN give
/// NaN, +inf gives +inf, as `f32::ln`. Branch-free apart from selects.
#[inline(always)]
pub(crate) fn log_f32(x: f32) -> f32 {
    const SQRT_HALF: f32 = std::f32::consts::FRAC_1_SQRT_2;
    let sub = x < f32::MIN_POSITIVE;
    let xs = if sub { x * 8_388_608.0 } else { x };
    let bits = xs.to_bits();
    // frexp: xs = m 2^e with m in [0.5, 1).
    let e = ((bits >> 23) & 0xff) as i32 - 126 - if sub { 23 } else { 0 };
    let m = f32::from_bits((bits & 0x807f_ffff) | 0x3f00_0000);
    let low = m < SQRT_HALF;
    let e = (e - low as i32) as f32;
    let m = if low { m + m - 1.0 } else { m - 1.0 };
    let z = m * m;
    // Horner's rule written out: a loop over the coefficients, unless unrolled, would keep the
    // loop around the caller's elements from vectorising.
    let c = LOG_POLY;
    let p = c[0] * m + c[1];
    let p = p * m + c[2];
    let p = p * m + c[3];
    let p = p * m + c[4];
    let p = p * m + c[5];
    let p = p * m + c[6];
    let p = p * m + c[7];
    let p = p * m + c[8];
    let y = m * z * p + LN2_LO * e - 0.5 * z;
    let r = m + y + LN2_HI * e;
    if x == 0.0 {
        f32::NEG_INFINITY
    } else if x == f32::INFINITY {
        x
    } else if x > 0.0 {
        r
    } else {
        f32::NAN
    }
}

/// `e^x - 1` in f32 without the cancellation near 0 and without libm, so loops over it
/// vectorise (`expm1` in f64 took 25 ns an element in wasm, ELU 0.17x tfjs-wasm): as Cephes'
/// `expm1`, `x = n ln2 + r` with |r| <= ln2/2, `e^x - 1 = 2^n (e^r - 1) + (2^n - 1)` with a
/// degree-7 Taylor polynomial for `e^r - 1` (its remainder is under 0.3 ulp) and `2^n - 1`
/// exact. Within 4 ulp of the f64 result rounded (see the test); -0 stays -0, -1 below about
/// -17, +inf above about 88.7, NaN for NaN.
#[inline(always)]
pub(crate) fn expm1_f32(x: f32) -> f32 {
    // Past these the answer is -1 or +inf; the clamp keeps 2^n a normal float (or +inf) and
    // NaN flowing.
    let (t, r) = split_ln2(x.clamp(-88.0, 89.0));
    let p =
        ((((((1.0 / 5040.0) * r + 1.0 / 720.0) * r + 1.0 / 120.0) * r + 1.0 / 24.0) * r + 1.0 / 6.0) * r + 0.5) * r * r
            + r;
    let ni = (t.to_bits() as i32).wrapping_sub(ROUND.to_bits() as i32);
    let s = f32::from_bits(((ni + 127).max(0) as u32) << 23);
    let e = s * p + (s - 1.0);
    if x == 0.0 {
        x
    } else {
        e
    }
}

/// `ln(1 + x)` in f32 without the cancellation near 0 and without libm (see [`expm1_f32`]):
/// Kahan's `ln(u) x / (u - 1)` for `u = 1 + x`, within 4 ulp of the f64 result rounded (2
/// measured);
/// `x` where `u` rounds to 1, -inf at -1, NaN below -1 and for NaN, +inf for +inf.
#[inline(always)]
pub(crate) fn log1p_f32(x: f32) -> f32 {
    let u = 1.0 + x;
    let r = log_f32(u) * (x / (u - 1.0));
    if u == 1.0 {
        x
    } else if u == f32::INFINITY {
        u
    } else {
        r
    }
}

/// `1 / (1 + e^-x)` in f32 from `z = e^-|x|`, which [`exp_nonpositive`] computes with a third
/// fewer operations than [`exp_f32`]: `1 / (1 + z)` for x >= 0, `z / (1 + z)` below (sigmoid
/// over 1M in wasm: 0.82x tfjs-wasm with `exp_f32`). Within 4 ulp where the result is normal;
/// 0 below about -87.3, where the result is subnormal (an absolute error under 1.2e-38). NaN
/// stays NaN.
#[inline(always)]
pub(crate) fn sigmoid_f32(x: f32) -> f32 {
    let z = exp_nonpositive(-x.abs());
    let r = 1.0 / (1.0 + z);
    if x >= 0.0 {
        r
    } else {
        z * r
    }
}

/// PyTorch's `softplus` (beta 1, threshold 20): `x` above 20, else `ln(1 + e^x)` by
/// [`log1p_f32`] of [`exp_f32`], each within 2 ulp, so within about 5 of the f64 result.
#[inline(always)]
pub(crate) fn softplus_f32(x: f32) -> f32 {
    let s = log1p_f32(exp_f32(x));
    if x > 20.0 {
        x
    } else {
        s
    }
}

/// [`exp_nonpositive`]'s constants, shared with its wasm SIMD form (`device/cpu/wasm_simd.rs`).
pub(crate) mod exp_nonpositive_consts {
    /// 1.5 * 2^23 + 127: adding it rounds x*log2(e) to an integer n whose low bits then hold
    /// n + 127, the biased exponent of 2^n, ready to shift into place.
    pub(crate) const BIASED_ROUND: f32 = f32::from_bits(0x4b40_007f);
    pub(crate) const LOG2E: f32 = f32::from_bits(0x3fb8_aa3b);
    /// -ln 2 in two parts (Cody-Waite), the first exact when multiplied by n.
    pub(crate) const MINUS_LN2_HI: f32 = f32::from_bits(0xbf31_7200);
    pub(crate) const MINUS_LN2_LO: f32 = f32::from_bits(0xb5bf_be8e);
    /// e^r ~ 1 + r (C1 + r (C2 + r (C3 + r (C4 + r C5)))), minimax on |r| <= ln2/2.
    pub(crate) const C5: f32 = f32::from_bits(0x3c07_cfce);
    pub(crate) const C4: f32 = f32::from_bits(0x3d2b_9d0d);
    pub(crate) const C3: f32 = f32::from_bits(0x3e2a_ad40);
    pub(crate) const C2: f32 = f32::from_bits(0x3eff_fee3);
    pub(crate) const C1: f32 = f32::from_bits(0x3f7f_fffb);
    /// Below this e^x is subnormal, which the shift cannot build as 2^n: the result is 0.
    pub(crate) const NORMAL_FROM: f32 = f32::from_bits(0xc2ae_ac4f);
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{
        exp_f32, exp_nonpositive, expm1_f32, expm1_nonpositive, log1p_f32, log_f32, sigmoid_f32, sin_f32, tanh_f32,
    };

    /// How many f32 steps apart `a` and `b` are.
    pub(crate) fn ulps(a: f32, b: f32) -> u32 {
        (a.to_bits() as i32).abs_diff(b.to_bits() as i32)
    }

    #[test]
    fn exp_matches_libm_within_two_ulp() {
        let mut worst = 0;
        let mut x = -103.0f32;
        while x < 88.7 {
            let (got, want) = (exp_f32(x), x.exp());
            if want.is_normal() {
                worst = worst.max(ulps(got, want));
            } else {
                // Subnormal results: absolute error below the smallest normal's ulp.
                assert!((got - want).abs() <= f32::MIN_POSITIVE * f32::EPSILON * 2.0, "{x}: {got} vs {want}");
            }
            x += 0.000_913;
        }
        assert!(worst <= 2, "worst error {worst} ulp");
        for x in [0.0f32, -0.0, 1.0, -1.0, 1e-8, -1e-8, 0.5, 10.0, -10.0] {
            assert!(ulps(exp_f32(x), x.exp()) <= 2, "{x}");
        }
        assert_eq!(exp_f32(0.0), 1.0);
    }

    #[test]
    fn exp_nonpositive_matches_libm_within_three_ulp() {
        let mut worst = 0;
        let mut x = 0.0f32;
        while x > -87.3 {
            let (got, want) = (exp_nonpositive(x), x.exp());
            worst = worst.max(ulps(got, want));
            x -= 0.000_377;
        }
        assert!(worst <= 3, "worst error {worst} ulp");
        for x in [0.0f32, -0.0, -1e-8, -1e-30, -0.5, -1.0, -10.0, -87.0] {
            assert!(ulps(exp_nonpositive(x), x.exp()) <= 3, "{x}");
        }
        assert_eq!(exp_nonpositive(0.0), 1.0);
        // Where e^x is subnormal or 0: 0, off by less than the smallest normal.
        for x in [-87.5f32, -100.0, -104.0, -1e6, f32::NEG_INFINITY] {
            assert_eq!(exp_nonpositive(x), 0.0, "{x}");
            assert!(x.exp() < f32::MIN_POSITIVE);
        }
        assert!(exp_nonpositive(f32::NAN).is_nan());
    }

    #[test]
    fn log_matches_f64_within_two_ulp() {
        let mut worst = 0;
        // Every binade from the smallest subnormal up, 4096 points in each, and around 1.
        let mut x = f32::from_bits(1);
        while x.is_finite() {
            for i in 0..4096u32 {
                let v = f32::from_bits(x.to_bits() + i * ((1 << 23) / 4096));
                worst = worst.max(ulps(log_f32(v), (v as f64).ln() as f32));
            }
            x *= 2.0;
        }
        for i in 1..100_000u32 {
            for v in [
                1.0 + i as f32 * 1e-6,
                1.0 - i as f32 * 1e-7,
                std::f32::consts::FRAC_1_SQRT_2 + (i as f32 - 5e4) * 1e-8,
            ] {
                worst = worst.max(ulps(log_f32(v), (v as f64).ln() as f32));
            }
        }
        assert!(worst <= 2, "worst error {worst} ulp");
        assert_eq!(log_f32(1.0), 0.0);
        assert_eq!(log_f32(0.0), f32::NEG_INFINITY);
        assert_eq!(log_f32(-0.0), f32::NEG_INFINITY);
        assert_eq!(log_f32(f32::INFINITY), f32::INFINITY);
        assert!(log_f32(-1.0).is_nan() && log_f32(f32::NEG_INFINITY).is_nan() && log_f32(f32::NAN).is_nan());
        assert_eq!(log_f32(f32::MAX), f32::MAX.ln());
    }

    #[test]
    fn tanh_matches_f64_within_three_ulp() {
        let mut worst = 0;
        let mut x = -12.0f32;
        while x < 12.0 {
            let want = (x as f64).tanh() as f32;
            worst = worst.max(ulps(tanh_f32(x), want));
            x += 0.000_731;
        }
        for x in [0.0f32, -0.0, 1e-30, -1e-20, 1e-6, 0.624_999, 0.625, -0.625, 0.7, 9.0, 20.0, -50.0] {
            worst = worst.max(ulps(tanh_f32(x), (x as f64).tanh() as f32));
        }
        assert!(worst <= 3, "worst error {worst} ulp");
        assert_eq!(tanh_f32(f32::INFINITY), 1.0);
        assert_eq!(tanh_f32(f32::NEG_INFINITY), -1.0);
        assert!(tanh_f32(f32::NAN).is_nan());
    }

    #[test]
    fn exp_limits_and_nan() {
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_f32(-200.0), 0.0);
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(100.0), f32::INFINITY);
        assert_eq!(exp_f32(88.8), f32::INFINITY);
        assert!(exp_f32(f32::NAN).is_nan());
    }

    /// The worst ulp error of `f` against `want` (f64, rounded once) over every binade of both
    /// signs from 2^-40 up to `top`, 2048 points in each, and the values between.
    fn worst_ulps(f: impl Fn(f32) -> f32, want: impl Fn(f64) -> f64, top: f32, bottom: f32) -> u32 {
        let mut worst = 0;
        let mut x = 2f32.powi(-40);
        while x < top.max(-bottom) {
            for i in 0..2048u32 {
                let v = f32::from_bits(x.to_bits() + i * ((1 << 23) / 2048));
                for v in [v, -v] {
                    if v <= top && v >= bottom {
                        let w = want(v as f64) as f32;
                        if w.is_finite() {
                            worst = worst.max(ulps(f(v), w));
                        }
                    }
                }
            }
            x *= 2.0;
        }
        worst
    }

    #[test]
    fn expm1_and_log1p_match_f64_within_four_ulp_measured_two() {
        let e = worst_ulps(expm1_f32, f64::exp_m1, 88.0, -104.0);
        assert!(e <= 4, "expm1: worst error {e} ulp");
        let l = worst_ulps(log1p_f32, f64::ln_1p, 3e38, -0.999_999);
        assert!(l <= 4, "log1p: worst error {l} ulp");
        for (x, want) in [
            (0.0f32, 0.0f32),
            (-0.0, -0.0),
            (f32::INFINITY, f32::INFINITY),
            (f32::NEG_INFINITY, -1.0),
            (-200.0, -1.0),
            (100.0, f32::INFINITY),
            (1e-30, 1e-30),
        ] {
            assert_eq!(expm1_f32(x).to_bits(), want.to_bits(), "expm1({x})");
        }
        for (x, want) in [(0.0f32, 0.0f32), (-0.0, -0.0), (f32::INFINITY, f32::INFINITY), (-1.0, f32::NEG_INFINITY)] {
            assert_eq!(log1p_f32(x).to_bits(), want.to_bits(), "log1p({x})");
        }
        for x in [f32::NAN, -1.5, f32::NEG_INFINITY] {
            assert!(log1p_f32(x).is_nan(), "log1p({x})");
        }
        assert!(expm1_f32(f32::NAN).is_nan());
    }

    #[test]
    fn expm1_nonpositive_matches_f64_within_four_ulp() {
        let e = worst_ulps(expm1_nonpositive, f64::exp_m1, 0.0, -104.0);
        assert!(e <= 4, "worst error {e} ulp");
        for x in [f32::NEG_INFINITY, -200.0, -17.4, -17.33] {
            assert_eq!(expm1_nonpositive(x), -1.0, "{x}");
        }
        assert_eq!(expm1_nonpositive(0.0), 0.0);
        assert_eq!(expm1_nonpositive(-1e-30), -1e-30);
        assert!(expm1_nonpositive(f32::NAN).is_nan());
    }

    #[test]
    fn sigmoid_matches_f64_within_four_ulp() {
        let want = |x: f64| 1.0 / (1.0 + (-x).exp());
        let s = worst_ulps(sigmoid_f32, want, 87.0, -87.0);
        assert!(s <= 4, "sigmoid: worst error {s} ulp");
        assert_eq!(sigmoid_f32(0.0), 0.5);
        assert_eq!(sigmoid_f32(f32::INFINITY), 1.0);
        assert_eq!(sigmoid_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(sigmoid_f32(-100.0), 0.0);
        assert!(sigmoid_f32(f32::NAN).is_nan());
    }

    /// sin and cos within the manifest's bound (2e-6 absolute, what the GPUs' Cephes form is held
    /// to) of f64 over the reduced range, libm's answer past it, and the signs of zero.
    #[test]
    fn sin_and_cos_match_f64_within_the_bound() {
        for want_cos in [false, true] {
            let mut worst = 0.0f64;
            for i in 0..400_001 {
                let x = (i as f32 - 200_000.0) * 0.04096; // -8192 ..= 8192
                let want = if want_cos { (x as f64).cos() } else { (x as f64).sin() };
                worst = worst.max((sin_f32(x, want_cos) as f64 - want).abs());
            }
            assert!(worst <= 2e-6, "cos {want_cos}: worst error {worst:e}");
            for x in [8192.001f32, -1e10, 3.4e38] {
                let libm = if want_cos { x.cos() } else { x.sin() };
                assert_eq!(sin_f32(x, want_cos).to_bits(), libm.to_bits(), "{x} past the reduced range");
            }
            assert!(sin_f32(f32::NAN, want_cos).is_nan() && sin_f32(f32::INFINITY, want_cos).is_nan());
        }
        assert_eq!(sin_f32(-0.0, false).to_bits(), (-0.0f32).to_bits());
        assert_eq!(sin_f32(-0.0, true), 1.0);
    }
}
