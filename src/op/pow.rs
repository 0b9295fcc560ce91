//! `pow` over f32: C's `powf` (PyTorch's) special cases laid over a table-driven core,
//! `2^(b log2|a|)` in f64, within 1 ulp of the correctly rounded result. The portable form here
//! is what native builds, tails and the tests use; the npm package's wasm SIMD form
//! (`device/cpu/wasm_pow.rs`) is the same arithmetic, operation for operation, on four lanes.
//!
//! Why tables: the previous core (an `atanh` series for `ln` after a division, Taylor's series
//! for `e^r`) was a long dependency chain per f64x2 half. V8 since version 12 (Chrome, Node
//! 22+) compiles wasm in the order it arrives, with no instruction scheduling, and LLVM emits
//! each half as one expression tree, so the two halves' chains ran one after the other: the same
//! `.wasm` took 13.7 ms over 1M pairs in Node 24 against 9.4 in Node 20 (tfjs-wasm: 11-12).
//! Sixteen subintervals for `log2` and 32 for `exp2` cut the division and half the terms.

/// The tables and coefficients, fitted for this module (scripts/fit_pow.py regenerates them),
/// shared with the wasm SIMD form.
pub(crate) mod consts {
    /// `x = 2^k z` with `z`'s bits in `[OFF, OFF + 2^23)`: z in [0.699, 1.398), around 1.
    pub(crate) const OFF: u32 = 0x3f33_0000;
    /// Per subinterval of `z` (the top 4 bits of `z - OFF`'s significand): `1/c` for `c` near
    /// its middle, rounded to 24 bits so that `z / c - 1 = z (1/c) - 1` is exact in f64, and
    /// `log2 c` (the subinterval holding 1 has `c = 1`, so `log2` near 1 keeps its relative
    /// accuracy). Stored as f64 bits, `[1/c, log2 c]` side by side for one 16-byte load.
    pub(crate) const LOG2: [[u64; 2]; 16] = [
        [0x3ff6_61ec_6000_0000, 0xbfde_fec5_f071_e3d9],
        [0x3ff5_71ed_4000_0000, 0xbfdb_0b68_04d3_0924],
        [0x3ff4_9539_e000_0000, 0xbfd7_418a_be24_a63d],
        [0x3ff3_c995_a000_0000, 0xbfd3_9de8_cc6a_56b9],
        [0x3ff3_0d19_0000_0000, 0xbfd0_1d9b_b735_0ffb],
        [0x3ff2_5e22_8000_0000, 0xbfc9_7c1d_4d0c_206a],
        [0x3ff1_bb4a_4000_0000, 0xbfc2_f9e3_2a79_54e4],
        [0x3ff1_2358_e000_0000, 0xbfb9_60ca_5af9_6cd0],
        [0x3ff0_953f_4000_0000, 0xbfaa_6f9d_6f1d_16af],
        [0x3ff0_0000_0000_0000, 0x0000_0000_0000_0000],
        [0x3fee_573a_c000_0000, 0x3fb3_aa30_4acd_04f4],
        [0x3fec_a4b3_0000_0000, 0x3fc4_76aa_1c23_e268],
        [0x3feb_2036_4000_0000, 0x3fce_840b_ea31_1339],
        [0x3fe9_c2d1_4000_0000, 0x3fd4_0646_707c_3973],
        [0x3fe8_86e6_0000_0000, 0x3fd8_8e9c_392b_7fbb],
        [0x3fe7_67dc_e000_0000, 0x3fdc_e0a4_a2d1_a3cf],
    ];
    /// `log2(1 + r) ~ r (Q[0] + Q[1] r + ... + Q[5] r^5)` on |r| <= 0.0297, near-minimax in
    /// relative error (Lawson's algorithm).
    pub(crate) const Q: [u64; 6] = [
        0x3ff7_1547_652b_cfbf,
        0xbfe7_1547_652e_a8e3,
        0x3fde_c709_7c2e_999d,
        0xbfd7_1546_b3be_3d99,
        0x3fd2_7bdf_9840_72c3,
        0xbfce_d16c_7c87_1801,
    ];
    /// `2^r ~ 1 + r (E[0] + E[1] r + E[2] r^2)` on |r| <= 1/64.
    pub(crate) const E: [u64; 3] = [0x3fe6_2e42_fef7_7f0f, 0x3fce_bfcc_c593_83a8, 0x3fac_6b16_7dfd_1366];
    /// `2^(j/32)`'s bits minus `j << 47`: adding `n << 47` for `n = 32 i + j` then also adds
    /// `i` to the exponent field, so one integer add builds `2^(n/32)`.
    pub(crate) const EXP2: [u64; 32] = [
        0x3ff0_0000_0000_0000,
        0x3fef_d9b0_d315_8574,
        0x3fef_b558_6cf9_890f,
        0x3fef_9301_d012_5b51,
        0x3fef_72b8_3c7d_517b,
        0x3fef_5487_3168_b9aa,
        0x3fef_387a_6e75_6238,
        0x3fef_1e9d_f51f_dee1,
        0x3fef_06fe_0a31_b715,
        0x3fee_f1a7_373a_a9cb,
        0x3fee_dea6_4c12_3422,
        0x3fee_ce08_6061_892d,
        0x3fee_bfda_d536_2a27,
        0x3fee_b42b_569d_4f82,
        0x3fee_ab07_dd48_5429,
        0x3fee_a47e_b03a_5585,
        0x3fee_a09e_667f_3bcd,
        0x3fee_9f75_e8ec_5f74,
        0x3fee_a114_73eb_0187,
        0x3fee_a589_994c_ce13,
        0x3fee_ace5_422a_a0db,
        0x3fee_b737_b0cd_c5e5,
        0x3fee_c491_82a3_f090,
        0x3fee_d503_b23e_255d,
        0x3fee_e89f_995a_d3ad,
        0x3fee_ff76_f2fb_5e47,
        0x3fef_199b_dd85_529c,
        0x3fef_3720_dcef_9069,
        0x3fef_5818_dcfb_a487,
        0x3fef_7c97_337b_9b5f,
        0x3fef_a4af_a2a4_90da,
        0x3fef_d076_5b6e_4540,
    ];
    /// 1.5 * 2^47: adding it to |y| < 2^46 rounds y to a multiple of 1/32 whose 32nds sit in the
    /// low bits.
    pub(crate) const SHIFT: f64 = 211_106_232_532_992.0;
    /// `y = b log2|a|` is clamped here: past these `2^y` is 0 or inf in f32, and inside them
    /// `2^(n/32)` stays a normal f64.
    pub(crate) const Y_MIN: f64 = -160.0;
    /// See [`Y_MIN`].
    pub(crate) const Y_MAX: f64 = 130.0;

    /// An f64 from its bits (the tables are stored as bits: Rust has no hexadecimal floats).
    #[inline(always)]
    pub(crate) fn f(bits: u64) -> f64 {
        f64::from_bits(bits)
    }
}

use consts::{f, E, EXP2, LOG2, OFF, Q, SHIFT, Y_MAX, Y_MIN};

/// `a^b` in f32 as C's `powf` (and PyTorch) defines it, without libm's per-element call (50 ns
/// an element in wasm). The IEEE special cases are selected after [`pow_core`], so a loop over
/// it stays branch-free: `b = 0` or `a = 1` give 1 (even with NaN), other NaNs NaN; zero and
/// infinite bases give 0 or inf by the sign of `b`, negated for a negative base and an odd
/// integer `b`; a negative finite base with a non-integer `b` NaN; infinite `b` 1 for |a| = 1,
/// else 0 or inf as |a| and `b` sit either side of 1 and 0.
#[inline(always)]
pub(crate) fn pow_f32(a: f32, b: f32) -> f32 {
    let ab = a.abs();
    let mag = pow_core(ab, b);
    let b_inf = b.is_infinite();
    let b_int = b.trunc() == b && !b_inf;
    let b_odd = b_int && (b * 0.5).trunc() != b * 0.5;
    let negative = a.is_sign_negative();
    let edge = ab == 0.0 || ab == f32::INFINITY;
    // 0 and inf as bases: which of 0 and inf is their power.
    let mag = if edge {
        if (ab == 0.0) == (b > 0.0) {
            0.0
        } else {
            f32::INFINITY
        }
    } else {
        mag
    };
    let signed = if negative && b_odd { -mag } else { mag };
    let r = if negative && !b_int && !edge && !b_inf { f32::NAN } else { signed };
    let r = if b_inf {
        if ab == 1.0 {
            1.0
        } else if (ab > 1.0) == (b > 0.0) {
            f32::INFINITY
        } else {
            0.0
        }
    } else {
        r
    };
    #[allow(clippy::eq_op)]
    let r = if a != a || b != b { a + b } else { r };
    if b == 0.0 || a == 1.0 {
        1.0
    } else {
        r
    }
}

/// `2^(b log2 x)` in f64 for a positive finite f32 `x` (any result for other `x`: [`pow_f32`]
/// selects past it; every table index is masked, so none reads outside its table), rounded to
/// f32 once. `log2 x = k + log2 c + log2(1 + r)` with `r = z/c - 1` exact (|r| <= 0.0297) and
/// [`consts::Q`]'s polynomial; then `2^y = 2^(n/32) 2^r'` with |r'| <= 1/64 and
/// [`consts::E`]'s. Fitted and checked (scripts/fit_pow.py) against correctly rounded powf over
/// 7.3M pairs, the hard ones included (bases in every subinterval under exponents that make |y|
/// near 127): within 1 ulp, off by one in 0.06% of them.
#[inline(always)]
pub(crate) fn pow_core(x: f32, b: f32) -> f32 {
    // A subnormal x is scaled by 2^24 (exact) so its bits hold a normal significand.
    let sub = x < f32::MIN_POSITIVE;
    let xs = if sub { x * 16_777_216.0 } else { x };
    let ix = xs.to_bits();
    let tmp = ix.wrapping_sub(OFF);
    let i = ((tmp >> 19) & 15) as usize;
    let top = tmp & 0xff80_0000;
    let z = f32::from_bits(ix.wrapping_sub(top)) as f64;
    let k = ((tmp as i32) >> 23) - if sub { 24 } else { 0 };
    let [invc, logc] = LOG2[i];
    let r = z * f(invc) - 1.0;
    let y0 = f(logc) + k as f64;
    // Estrin's scheme: a dependency chain of three steps instead of Horner's five.
    let r2 = r * r;
    let q = (f(Q[0]) + f(Q[1]) * r) + r2 * ((f(Q[2]) + f(Q[3]) * r) + r2 * (f(Q[4]) + f(Q[5]) * r));
    let l2 = y0 + r * q;
    // NaN flows through the clamp (then the specials replace it).
    let y = (b as f64 * l2).clamp(Y_MIN, Y_MAX);
    let kd = y + SHIFT;
    let ki = kd.to_bits();
    let rr = y - (kd - SHIFT);
    let s = f64::from_bits(EXP2[(ki & 31) as usize].wrapping_add(ki << 47));
    let p = 1.0 + rr * (f(E[0]) + rr * (f(E[1]) + rr * f(E[2])));
    (p * s) as f32
}

#[cfg(test)]
mod tests {
    use super::pow_f32;
    use crate::op::math::tests::ulps;

    /// A xorshift64 stream from `seed` (nonzero).
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    #[test]
    fn pow_matches_libm() {
        // Bases over every binade (subnormal to huge, both signs), exponents from small
        // fractions to large integers: within 1 ulp of f64's powf rounded, libm's specials.
        let mut worst = 0;
        let mut a = f32::from_bits(1);
        while a.is_finite() {
            for b in [0.5f32, -0.5, 1.0, -1.0, 2.0, 3.0, -3.0, 0.3, 1.7, -2.5, 7.0, 12.25, -20.0, 1e-3, 100.0] {
                for a in [a, a * 1.37, -a] {
                    let want = (a as f64).powf(b as f64) as f32;
                    let got = pow_f32(a, b);
                    if want.is_nan() {
                        assert!(got.is_nan(), "pow({a}, {b}) = {got}, want NaN");
                    } else if want.is_infinite() || want == 0.0 {
                        assert_eq!(got, want, "pow({a}, {b})");
                    } else {
                        worst = worst.max(ulps(got, want));
                    }
                }
            }
            a *= 2.0;
        }
        assert!(worst <= 1, "pow: worst error {worst} ulp");
        // Bases near sqrt(2) and sqrt(1/2) (the series' worst case) under exponents of 200-300,
        // where that error is multiplied most, bases near 1 under large exponents, and random
        // pairs over the range whose powers are finite normal floats.
        let mut bits = xorshift(0x2545_f491_4f6c_dd1d);
        let mut next = || (bits() >> 40) as f32 / (1u64 << 24) as f32;
        for i in 0..300_000 {
            let (a, b) = match i % 3 {
                0 => {
                    let a = if next() < 0.5 { std::f32::consts::SQRT_2 } else { std::f32::consts::FRAC_1_SQRT_2 };
                    let b = 200.0 + 100.0 * next();
                    (a * (1.0 + 1e-3 * (next() - 0.5)), if next() < 0.5 { b } else { -b })
                }
                1 => (0.9 + 0.2 * next(), 600.0 * next() - 300.0),
                _ => (1e-30 + 1e3 * next(), 40.0 * next() - 20.0),
            };
            let want = (a as f64).powf(b as f64) as f32;
            if want.is_normal() {
                let e = ulps(pow_f32(a, b), want);
                assert!(e <= 1, "pow({a}, {b}) = {}, want {want}: {e} ulp", pow_f32(a, b));
            }
        }
        let (inf, nan) = (f32::INFINITY, f32::NAN);
        let specials = [0.0f32, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, inf, -inf, nan];
        for &a in &specials {
            for &b in &specials {
                let (got, want) = (pow_f32(a, b), a.powf(b));
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "pow({a}, {b}): {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn pow_is_within_one_ulp_where_the_table_is_hardest() {
        // Bases from each of log2's 16 subintervals (k = 0, where log2 is smallest beside its
        // error) under exponents that put |b log2 a| near 127, where that error is multiplied
        // most; then powers whose 2^(n/32) wraps the exponent field (negative n) and results at
        // the subnormal boundary.
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let mut worst = 0;
        for i in 0..16u32 {
            for _ in 0..20_000 {
                let a = f32::from_bits(super::consts::OFF + (i << 19) + (next() as u32 & 0x7_ffff));
                let l2 = (a as f64).log2();
                if l2.abs() < 1e-6 {
                    continue;
                }
                let y = 100.0 + 27.0 * (next() >> 11) as f64 / (1u64 << 53) as f64;
                let b = (y / l2.abs()) as f32 * if next() & 1 == 0 { 1.0 } else { -1.0 };
                let want = (a as f64).powf(b as f64) as f32;
                if want.is_normal() {
                    worst = worst.max(ulps(pow_f32(a, b), want));
                }
            }
        }
        assert!(worst <= 1, "worst error {worst} ulp");
        for (a, b) in [(2.0f32, -126.0f32), (2.0, -149.0), (2.0, -150.0), (0.5, 149.0), (3.0, -80.5), (10.0, -38.0)] {
            let want = (a as f64).powf(b as f64) as f32;
            assert!(ulps(pow_f32(a, b), want) <= 1, "pow({a}, {b}) = {}, want {want}", pow_f32(a, b));
        }
    }
}
