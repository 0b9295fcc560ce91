//! WGSL helper functions for the elementwise kernels: special values decided on the bits, and
//! the transcendental functions implemented here rather than taken from the driver. WGSL holds
//! drivers' `sin`, `tanh`, `atan` and friends to loose bounds (`atan` to 4096 ulp, `log` to 2^-21
//! absolute near 1) and lets compilers assume no NaN; SwiftShader and lavapipe use that freedom.
//! Each helper here is held to PyTorch's answer by tests/special_values.rs on every device.

/// The WGSL twin of [`crate::op::unary::erf`].
pub(crate) const WGSL_ERF: &str = "fn erf_approx(x: f32) -> f32 {
    if (abs(x) < 0.5) {
        let z = x * x;
        let p = (((((z / 9360.0 - 1.0 / 1320.0) * z + 1.0 / 216.0) * z - 1.0 / 42.0) * z + 0.1) * z - 1.0 / 3.0) * z + 1.0;
        return 1.1283791670955126 * x * p;
    }
    let t = 1.0 / (1.0 + 0.3275911 * abs(x));
    let y = 1.0 - (((((1.0614054 * t - 1.4531521) * t) + 1.4214138) * t - 0.28449674) * t + 0.2548296) * t * exp(-x * x);
    return select(-y, y, x >= 0.0);
}
";

/// Bit-level tests and constants for special values: WGSL compilers may assume floats are
/// never NaN or infinite, and reject infinite constants, so these are built from bits at run
/// time (`& 0u` keeps them out of constant evaluation). Needs `is_nan`.
pub(crate) const WGSL_SPECIAL: &str = "fn is_zero(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0u; }
fn neg_nonzero(x: f32) -> bool { return bitcast<u32>(x) > 0x80000000u && !is_nan(x); }
fn nan_like(x: f32) -> f32 { return bitcast<f32>(0x7fc00000u | (bitcast<u32>(x) & 0u)); }
fn inf_like(x: f32) -> f32 { return bitcast<f32>(0x7f800000u | (bitcast<u32>(x) & 0u)); }
// Zero, or a subnormal on a device that flushes subnormals (SwiftShader does): the bits say
// nonzero, the arithmetic treats it as zero.
fn flushed_zero(x: f32) -> bool {
    return is_zero(x) || ((bitcast<u32>(x) & 0x7fffffffu) < 0x00800000u && is_zero(x * 16777216.0));
}
fn log_acc(x: f32) -> f32 {
    let b = bitcast<u32>(x);
    if (b == 0x7f800000u) { return x; }
    if (is_zero(x)) { return -inf_like(x); }
    if (neg_nonzero(x)) { return nan_like(x); }
    // Drivers take a subnormal's exponent as the smallest normal one: scale it into range (a
    // driver that flushes subnormals makes it 0, whose log is -inf).
    if (b < 0x00800000u) {
        let y = x * 8388608.0;
        if (is_zero(y)) { return -inf_like(x); }
        return log(y) - 15.942385152878742;
    }
    return log(x);
}
";

/// sin and cos accurate to about 1e-7 absolute for |x| <= 8192 (Cephes' sinf/cosf: reduction by
/// pi/4 in three parts, then minimax polynomials), where drivers may give only 2^-11 (WGSL's
/// bound, and SwiftShader's accuracy). Beyond 8192 the driver's own (f32 arguments that large
/// carry no phase). Infinities give NaN.
pub(crate) const WGSL_SINCOS: &str = "fn sin_acc(x: f32, want_cos: bool) -> f32 {
    if ((bitcast<u32>(x) & 0x7f800000u) == 0x7f800000u) { return nan_like(x); }
    let ax = abs(x);
    if (ax > 8192.0) { return select(sin(x), cos(x), want_cos); }
    var j = u32(floor(ax * 1.27323954473516));
    j = j + (j & 1u);
    let y = f32(j);
    let z = ((ax - y * 0.78515625) - y * 2.4187564849853515625e-4) - y * 3.77489497744594108e-8;
    let zz = z * z;
    let s = ((-1.9515295891e-4 * zz + 8.3321608736e-3) * zz - 1.6666654611e-1) * zz * z + z;
    let c = ((2.443315711809948e-5 * zz - 1.388731625493765e-3) * zz + 4.166664568298827e-2) * zz * zz - 0.5 * zz + 1.0;
    let q = (j >> 1u) & 3u;
    if (want_cos) {
        return select(select(select(s, -c, q == 2u), -s, q == 1u), c, q == 0u);
    }
    let r = select(select(select(-c, -s, q == 2u), c, q == 1u), s, q == 0u);
    return select(r, -r, bitcast<u32>(x) >= 0x80000000u);
}
";

/// tanh accurate over the whole range (drivers' `tanh` goes through `exp` and loses relative
/// accuracy near 0, about 1e-2 at 1e-6 on some): Cephes' odd polynomial below |x| = 0.625 (within
/// 1 ulp there), `1 - 2 / (e^2|x| + 1)` above, saturating at |x| = 20 where tanh rounds to 1.
pub(crate) const WGSL_TANH: &str = "fn tanh_acc(x: f32) -> f32 {
    if (is_nan(x)) { return x; }
    let a = abs(x);
    if (a < 0.625) {
        let s = x * x;
        return ((((-5.70498872745e-3 * s + 2.06390887954e-2) * s - 5.37397155531e-2) * s + 1.33314422036e-1) * s - 3.33332819422e-1) * s * x + x;
    }
    let r = 1.0 - 2.0 / (exp(2.0 * min(a, 20.0)) + 1.0);
    return select(r, -r, x < 0.0);
}
";

/// log1p and an accurate log, built on Cephes' logf polynomial for log(1 + t) on
/// [sqrt(1/2) - 1, sqrt(2) - 1] (about 1 ulp): drivers' `log` is only held to 2^-21 absolute near
/// 1 (WGSL's bound), which is no relative accuracy at all for log(1 + 1e-6). `log_pos` takes a
/// positive normal finite x apart on its bits (`log_split`: x = m 2^e, m in [sqrt(1/2),
/// sqrt(2))) and puts the series and e log 2 together (`log_join`).
/// `log1p_acc` corrects the rounding of 1 + x to first order. Needs WGSL_SPECIAL.
pub(crate) const WGSL_LOG1P: &str = "fn log1p_small(t: f32) -> f32 {
    let z = t * t;
    let p = ((((((((7.0376836292e-2 * t - 1.1514610310e-1) * t + 1.1676998740e-1) * t - 1.2420140846e-1) * t + 1.4249322787e-1) * t - 1.6668057665e-1) * t + 2.0000714765e-1) * t - 2.4999993993e-1) * t + 3.3333331174e-1) * t * z;
    return t + (p - 0.5 * z);
}
fn log_split(x: f32) -> vec2<f32> {
    // (m - 1, e) for x = m 2^e, m in [sqrt(1/2), sqrt(2)), from the bits.
    let b = bitcast<u32>(x);
    let m = bitcast<f32>((b & 0x007fffffu) | 0x3f800000u);
    let up = m > 1.4142135;
    return vec2<f32>(select(m, m * 0.5, up) - 1.0, f32(i32(b >> 23u) - select(127, 126, up)));
}
fn log_join(p: f32, e: f32) -> f32 {
    // log1p_small(m - 1) + e log 2, log 2 in two parts.
    return (p - e * 2.12194440e-4) + e * 0.693359375;
}
fn log_pos(x: f32) -> f32 {
    let s = log_split(x);
    return log_join(log1p_small(s.x), s.y);
}
fn log1p_acc(x: f32) -> f32 {
    // Near 0 the series of x itself; else log_pos(1 + x) with the rounding of 1 + x corrected.
    // One series for both, its argument selected: software adapters run every branch, and two
    // copies made softplus on SwiftShader 0.88x TF.js's.
    let small = x > -0.29289323 && x < 0.41421357;
    let u = 1.0 + x;
    let s = log_split(u);
    let p = log1p_small(select(s.x, x, small));
    var r = select(log_join(p, s.y) + (x - (u - 1.0)) / u, p, small);
    r = select(r, -inf_like(x), x == -1.0);
    r = select(r, nan_like(x), x < -1.0);
    return select(r, x, bitcast<u32>(x) == 0x7f800000u);
}
";

/// expm1: the Taylor series to x^10 for |x| < 0.5 (relative error under 1e-10 there; `exp(x) -
/// 1` would lose all of it near 0), `exp(x) - 1` beyond, exactly -1 below -20.
pub(crate) const WGSL_EXPM1: &str = "fn expm1_acc(x: f32) -> f32 {
    if (abs(x) < 0.5) {
        return x * (1.0 + x / 2.0 * (1.0 + x / 3.0 * (1.0 + x / 4.0 * (1.0 + x / 5.0 * (1.0 + x / 6.0 * (1.0 + x / 7.0 * (1.0 + x / 8.0 * (1.0 + x / 9.0 * (1.0 + x / 10.0)))))))));
    }
    if (x < -20.0) { return -1.0; }
    return exp(x) - 1.0;
}
";

/// sinh and cosh: the odd Taylor series below |x| = 0.5 for sinh (relative accuracy near 0),
/// `(e^x -+ e^-x) / 2` up to 9, and `(e^(x/2) / 2) e^(x/2)` beyond, which stays finite as far as
/// the result does (e^89 overflows f32, sinh(89) does not).
pub(crate) const WGSL_HYPER: &str = "fn hyper_acc(x: f32, want_cosh: bool) -> f32 {
    let a = abs(x);
    var r: f32;
    if (a < 0.5 && !want_cosh) {
        let z = x * x;
        return x + x * z * (1.0 / 6.0 + z * (1.0 / 120.0 + z * (1.0 / 5040.0 + z / 362880.0)));
    }
    if (a < 9.0) {
        let e = exp(a);
        r = select(0.5 * (e - 1.0 / e), 0.5 * (e + 1.0 / e), want_cosh);
    } else {
        // ldexp rather than 0.5 * h: NVIDIA's Vulkan compiler reassociates (0.5 * h) * h into
        // 0.5 * (h * h), which overflows from 88.7 on.
        let h = exp(0.5 * a);
        r = ldexp(h, -1) * h;
    }
    return select(select(r, -r, bitcast<u32>(x) >= 0x80000000u), r, want_cosh);
}
";

/// atan (Cephes' atanf: reduction by tan(pi/8) and tan(3pi/8), then an odd polynomial; about 2
/// ulp) and atan2 with C99's special cases for zeros of either sign and infinities, which WGSL's
/// `atan2` leaves undefined (and its `atan` is held to 4096 ulp only). Needs `is_nan`, `fdiv`,
/// WGSL_SPECIAL.
pub(crate) const WGSL_ATAN: &str = "fn atan_acc(x: f32) -> f32 {
    let a = abs(x);
    var y0 = 0.0;
    var t = a;
    if (a > 2.4142135623730950) {
        y0 = 1.5707963267948966;
        t = -1.0 / a;
    } else if (a > 0.4142135623730950) {
        y0 = 0.7853981633974483;
        t = (a - 1.0) / (a + 1.0);
    }
    let z = t * t;
    let y = y0 + ((((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z - 3.33329491539e-1) * z * t + t);
    return select(y, -y, bitcast<u32>(x) >= 0x80000000u);
}
fn atan2_acc(y: f32, x: f32) -> f32 {
    if (is_nan(x) || is_nan(y)) { return x + y; }
    let pi = 3.14159265358979;
    let y_neg = bitcast<u32>(y) >= 0x80000000u;
    let x_neg = bitcast<u32>(x) >= 0x80000000u;
    let y_inf = (bitcast<u32>(y) & 0x7fffffffu) == 0x7f800000u;
    let x_inf = (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
    var r: f32;
    if (flushed_zero(y)) {
        r = select(0.0, pi, x_neg);
    } else if (flushed_zero(x)) {
        r = pi / 2.0;
    } else if (y_inf && x_inf) {
        r = select(pi / 4.0, 3.0 * pi / 4.0, x_neg);
    } else if (y_inf) {
        r = pi / 2.0;
    } else if (x_inf) {
        r = select(0.0, pi, x_neg);
    } else {
        r = atan_acc(fdiv(abs(y), abs(x)));
        if (x_neg) { r = pi - r; }
    }
    return select(r, -r, y_neg);
}
";

/// asin and acos (Cephes' asinf/acosf: a polynomial on [0, 0.5], the half-angle identity beyond;
/// about 2 ulp), where WGSL's are inherited from its 4096-ulp `atan2`. |x| > 1 gives NaN.
pub(crate) const WGSL_ASIN: &str = "fn asin_core(a: f32) -> f32 {
    var z: f32;
    var t: f32;
    let big = a > 0.5;
    if (big) { z = 0.5 * (1.0 - a); t = sqrt(z); } else { t = a; z = a * a; }
    var p = ((((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z + 7.4953002686e-2) * z + 1.6666752422e-1) * z * t + t;
    if (big) { p = 1.5707963267948966 - 2.0 * p; }
    return p;
}
fn asin_acc(x: f32) -> f32 {
    let a = abs(x);
    if (a > 1.0) { return nan_like(x); }
    let r = asin_core(a);
    return select(r, -r, bitcast<u32>(x) >= 0x80000000u);
}
fn acos_acc(x: f32) -> f32 {
    // pi - 2 asin(sqrt((1 + x) / 2)) below -0.5, 2 asin(sqrt((1 - x) / 2)) above 0.5, else
    // pi/2 - asin(x): one asin_core on the argument selected (software adapters run every
    // branch, and the three returns each had their own).
    let a = abs(x);
    let c = asin_core(select(a, sqrt(0.5 * (1.0 - a)), a > 0.5));
    var r = select(1.5707963267948966 - select(c, -c, bitcast<u32>(x) >= 0x80000000u), 2.0 * c, x > 0.5);
    r = select(r, 3.14159265358979 - 2.0 * c, x < -0.5);
    return select(r, nan_like(x), a > 1.0);
}
";

/// The inverse hyperbolic functions through `log1p_acc` (relative accuracy near 0 and 1), with
/// `log(x) + log 2` past 1e10 where x^2 would overflow. Needs WGSL_LOG1P.
pub(crate) const WGSL_AHYPER: &str = "fn asinh_acc(x: f32) -> f32 {
    let a = abs(x);
    var r: f32;
    if (bitcast<u32>(a) == 0x7f800000u) {
        r = a;
    } else if (a > 1e10) {
        r = log_pos(a) + 0.6931471805599453;
    } else {
        r = log1p_acc(a + a * a / (1.0 + sqrt(1.0 + a * a)));
    }
    return select(r, -r, bitcast<u32>(x) >= 0x80000000u);
}
fn acosh_acc(x: f32) -> f32 {
    if (x < 1.0) { return nan_like(x); }
    if (bitcast<u32>(x) == 0x7f800000u) { return x; }
    if (x > 1e10) { return log_pos(x) + 0.6931471805599453; }
    let t = x - 1.0;
    return log1p_acc(t + sqrt(2.0 * t + t * t));
}
fn atanh_acc(x: f32) -> f32 {
    let a = abs(x);
    if (a > 1.0) { return nan_like(x); }
    var r: f32;
    if (a == 1.0) { r = inf_like(x); } else { r = 0.5 * log1p_acc(2.0 * a / (1.0 - a)); }
    return select(r, -r, bitcast<u32>(x) >= 0x80000000u);
}
";

/// Exact `fmod` (WGSL's float `%` is `a - b * trunc(a / b)`, wrong once the quotient passes
/// 2^24), and PyTorch's `remainder` and `floor_divide` on top of it. Quotients below 2^9 take a
/// fast path in floats (see `fmod_q`); the rest long division of the significands as integers,
/// `fmod = ((ma 2^(ea-eb)) mod mb) 2^eb`, one shift and conditional subtraction per bit of
/// exponent gap. Every path is computed on lavapipe's SIMD lanes, so the general one costs even
/// when no lane needs it (a loop runs its body at least once there): against the float long
/// division this replaced (a scaled `|b|` subtracted per step, three `ldexp` each), remainder
/// went 6.4-8.6 -> 5.2-7.1 ms and floor_divide 15-17 -> 12 ms over 1M elements (Node, Dawn on
/// lavapipe). Needs `is_nan`, WGSL_SPECIAL and `fdiv`.
pub(crate) const WGSL_FMOD: &str = "fn is_negative(x: f32) -> bool { return bitcast<u32>(x) >= 0x80000000u; }
fn pow2(e: i32) -> f32 { return bitcast<f32>(u32(e + 127) << 23u); }
fn sig_exp(x: f32) -> vec2<i32> {
    // |x| = m 2^e with m in [2^23, 2^24), for finite nonzero x. A subnormal is `bits` 2^-149
    // and its bits converted to a float (exact below 2^24) give its significand and leading
    // bit; float arithmetic on the subnormal itself is flushed to zero by some drivers
    // (NVIDIA's Vulkan, SwiftShader). countLeadingZeros instead made fmod 1.5x slower on
    // lavapipe, which has no vector instruction for it.
    let bits = bitcast<u32>(x) & 0x7fffffffu;
    let sub = bits < 0x00800000u;
    let y = select(bits, bitcast<u32>(f32(i32(bits))), sub);
    return vec2<i32>(i32((y & 0x7fffffu) | 0x800000u), i32(y >> 23u) - select(150, 299, sub));
}
fn subnormal_bits(r: u32, e: i32) -> u32 {
    // The bits of r 2^e where that is below the smallest normal (subnormals are bits 2^-149).
    return select(r << u32(e + 149), r >> u32(-149 - e), e < -149);
}
fn fmod_acc(a: f32, b: f32) -> f32 { return fmod_q(a, b, false).x; }
fn remainder_acc(a: f32, b: f32) -> f32 { return fmod_q(a, b, true).x; }
fn fmod_q(a: f32, b: f32, rem: bool) -> vec2<f32> {
    // (fmod(a, b), |trunc(a / b)| where the fast path below gave it, else -1); with `rem`,
    // PyTorch's remainder: fmod + b where fmod is nonzero and its sign (a's) differs from b's.
    // |b| - |fmod| is exact (both are multiples of b's last bit), so it is worked out here in
    // the exact domain rather than as a float sum: a subnormal fmod is flushed to zero as an
    // operand on drivers without subnormals (NVIDIA's Vulkan), and fmod + b came out as b.
    let flip = rem && (bitcast<u32>(a) ^ bitcast<u32>(b)) >= 0x80000000u;
    let ua = bitcast<u32>(a) & 0x7fffffffu;
    let ub = bitcast<u32>(b) & 0x7fffffffu;
    let x = bitcast<f32>(ua);
    let d = bitcast<f32>(ub);
    // Quotients below 2^9 of a divisor above 2^-102 (what models meet): |a| - q |b| exactly in
    // floats. q is the truncated quotient or one more (the division biased up by 2^-20, far
    // beyond any driver's error at this size); |b| splits into 15 and 9 significant bits, so
    // both products with q are exact, whether or not a compiler fuses them, the first
    // difference is exact by Sterbenz's lemma and the second is the answer or the answer less
    // |b|, exact either way; every value stays a normal float.
    let fast = ua >= ub && ub >= 0x0c800000u && ua < 0x7f800000u && (ua >> 23u) - (ub >> 23u) <= 8u;
    let bh = bitcast<f32>(ub & 0xfffffe00u);
    // fdiv: NVIDIA divides by a reciprocal, which flushes to zero for |b| > 2^126.
    let q = trunc(fdiv(x, d) * 1.00000095);
    let r0 = (x - q * bh) - q * (d - bh);
    var rf = select(r0, r0 + d, r0 < 0.0);
    rf = select(rf, d - rf, flip && rf != 0.0);
    // Otherwise long division of the significands as integers, one bit of the exponent gap a
    // step (at most 276), and the bits of the result put together by hand.
    let fa = sig_exp(a);
    let fb = sig_exp(b);
    let m = u32(fb.x);
    var r = u32(fa.x);
    r = select(r, r - m, r >= m);
    let gap = select(0, fa.y - fb.y, !fast && ua >= ub && ua < 0x7f800000u && ub != 0u);
    for (var k = 0; k < gap; k = k + 1) {
        r = r << 1u;
        r = select(r, r - m, r >= m);
    }
    r = select(r, m - r, flip && r != 0u);
    // |fmod| = r 2^eb exactly (r < 2^24, eb >= -172): scaled in two exact steps; a subnormal
    // result is put together from the bits, exact where a driver flushes subnormal arithmetic.
    let eb = fb.y;
    let e1 = max(eb, -100);
    let v = f32(r) * pow2(e1) * pow2(eb - e1);
    let tiny = subnormal_bits(r, eb);
    var out = select(v, bitcast<f32>(tiny), (bitcast<u32>(v) & 0x7fffffffu) < 0x00800000u);
    out = select(out, rf, fast);
    out = bitcast<f32>(bitcast<u32>(out) | (bitcast<u32>(select(a, b, flip && !is_zero(out))) & 0x80000000u));
    // |a| < |b|: fmod is a itself and remainder a + b, a rounded float sum, but where that
    // difference is subnormal (then exact) it is put together from the significands, for
    // drivers that flush subnormal results: |b| - |a| in units of a's last bit.
    let k = fb.y - fa.y;
    let diff = (u32(fb.x) << u32(clamp(k, 0, 7))) - u32(fa.x);
    let sh = fa.y + 149;
    let dbits = subnormal_bits(diff, fa.y);
    let tiny_sum = k >= 0 && k <= 7 && select(diff < (0x800000u >> u32(min(sh, 24))), dbits < 0x800000u, sh < 0);
    let sum = select(a + b, bitcast<f32>(dbits | (bitcast<u32>(b) & 0x80000000u)), tiny_sum);
    out = select(out, select(a, sum, flip && !is_zero(a)), ua < ub);
    out = select(out, nan_like(a), is_nan(a) || is_nan(b) || ua == 0x7f800000u || flushed_zero(b));
    return vec2<f32>(out, select(-1.0, select(q, q - 1.0, r0 < 0.0), fast));
}
fn div_rn(x: f32, b: f32, approx: f32, run: bool) -> f32 {
    // x / b correctly rounded, by long division of the significands: the drivers' division
    // may be a reciprocal and a product (NVIDIA's is 1 ulp off on 3e38 / 3). Zeros,
    // infinities, NaN and subnormal results keep `approx` (floor_divide's quotients are whole
    // numbers or zero, never subnormal; where a driver flushes subnormals, `x` comes out of
    // a subtraction flushed and a subnormal `b` returned earlier). Its
    // steps are skipped unless `run`, for lanes that know the quotient already.
    let xb = bitcast<u32>(x) & 0x7fffffffu;
    let bb = bitcast<u32>(b) & 0x7fffffffu;
    if (xb == 0u || bb == 0u || xb >= 0x7f800000u || bb >= 0x7f800000u) { return approx; }
    let fx = sig_exp(x);
    let fb = sig_exp(b);
    var mx = u32(fx.x);
    let mb = u32(fb.x);
    var e = fx.y - fb.y;
    if (mx < mb) { mx = mx << 1u; e = e - 1; }
    // 25 quotient bits (24 kept and a guard bit) and the remainder as the sticky bit.
    var q = 1u;
    var r = mx - mb;
    for (var i = 0; i < select(0, 24, run); i = i + 1) {
        r = r << 1u;
        q = q << 1u;
        if (r >= mb) { r = r - mb; q = q | 1u; }
    }
    var sig = q >> 1u;
    if ((q & 1u) == 1u && (r != 0u || (sig & 1u) == 1u)) { sig = sig + 1u; }
    if (sig == 0x1000000u) { sig = sig >> 1u; e = e + 1; }
    let biased = e + 127;
    let sign = (bitcast<u32>(x) ^ bitcast<u32>(b)) & 0x80000000u;
    if (biased >= 255) { return bitcast<f32>(sign | 0x7f800000u); }
    if (biased <= 0) { return approx; }
    return bitcast<f32>(sign | (u32(biased) << 23u) | (sig & 0x7fffffu));
}
fn floordiv_acc(a: f32, b: f32) -> f32 {
    if (is_nan(a) || is_nan(b)) { return nan_like(a); }
    if (flushed_zero(b)) {
        if (flushed_zero(a)) { return nan_like(a); }
        let inf = inf_like(a);
        return select(inf, -inf, is_negative(a) != is_negative(b));
    }
    // Below a divisor of 2^-100 the remainder can be subnormal, which drivers without
    // subnormals (NVIDIA's Vulkan) flush to zero, losing the step below that subtracts 1.
    // Scaling both operands by 2^64 is exact, keeps the remainder normal and leaves the
    // quotient as it was (a larger dividend makes the quotient infinite either way).
    var p = a;
    var q = b;
    if (abs(b) < 7.888609052210118e-31 && abs(a) < 4.611686018427388e18) {
        p = ldexp(a, 64);
        q = ldexp(b, 64);
    }
    let fm = fmod_q(p, q, false);
    let m = fm.x;
    // PyTorch's quotient is IEEE's correctly rounded one. The rounding below would absorb a
    // driver's division some ulp off only while the quotient is small, so the significands
    // are divided exactly, unless fmod's fast path knows the whole quotient already (below
    // 2^9, where IEEE's rounded quotient rounds back to it).
    let x = p - m;
    let fast = fm.y >= 0.0;
    var div = select(div_rn(x, q, fdiv(x, q), !fast), select(fm.y, -fm.y, is_negative(a) != is_negative(b)), fast);
    if (!is_zero(m) && is_negative(b) != is_negative(m)) { div = div - 1.0; }
    // The zero's sign from bits: without SignedZeroInfNanPreserve a Vulkan driver may treat
    // 0.0 and -0.0 as one constant (NVIDIA's gave -0 for 1.5 // 1.9).
    if (is_zero(div)) { return bitcast<f32>((bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u); }
    var f = floor(div);
    if (div - f > 0.5) { f = f + 1.0; }
    return f;
}
";

/// `int_div_op(a, b)` for an integer `op` (remainder, fmod or floor_divide) over `dtype`: a zero
/// divisor gives 0 (as on the CPU), and the divisor -1 is negation, since WGSL leaves
/// `i32::MIN / -1` to the driver.
pub(crate) fn int_div_wgsl(op: crate::op::binary::BinaryOp, dtype: crate::dtype::DType) -> String {
    use crate::op::binary::BinaryOp::*;
    if dtype == crate::dtype::DType::I32 {
        let body = match op {
            Fmod => "return r;",
            Remainder => "return select(r, r + b, r != 0 && ((r < 0) != (b < 0)));",
            _ => "return select(q, q - 1, r != 0 && ((r < 0) != (b < 0)));",
        };
        format!(
            "fn int_div_op(a: i32, b: i32) -> i32 {{
    if (b == 0) {{ return 0; }}
    if (b == -1) {{ return {}; }}
    let q = a / b;
    let r = a - q * b;
    {body}
}}
",
            if op == FloorDivide { "0 - a" } else { "0" }
        )
    } else {
        let body = if op == FloorDivide { "a / b" } else { "a % b" };
        format!("fn int_div_op(a: u32, b: u32) -> u32 {{ if (b == 0u) {{ return 0u; }} return {body}; }}\n")
    }
}
