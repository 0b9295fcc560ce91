//! Elementary functions for the CPU kernels' hot loops, written so the compiler vectorises them
//! (wasm SIMD in the npm package, SSE/AVX natively). `f32::exp` is a call into libm per element
//! that no loop around it can vectorise: softmax over 1024x1024 spent ~85% of its time there
//! inside wasm (9 ms against tfjs-wasm's 1.5 ms, whose XNNPACK kernels use a polynomial exp).

/// 1.5 * 2^23: adding it to a float of magnitude below 2^22 rounds it to an integer held in the
/// low mantissa bits (round to nearest even), with no float-to-int conversion.
const ROUND: f32 = 12_582_912.0;

/// `e^x` in f32, within 2 ulp of `f32::exp` over the whole range: 0 below about -103.97, +inf
/// above about 88.72, NaN for NaN. Cephes' `expf`: `x = n ln2 + r` with |r| <= ln2/2, a degree-7
/// polynomial for `e^r`, and `2^n` from the exponent bits in two halves so results that are
/// subnormal (n down to -150) come out right instead of flushing to 0.
#[inline(always)]
pub(crate) fn exp_f32(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    // ln 2 split so n * LN2_HI is exact for |n| <= 2^9.
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // Past these e^x is 0 or +inf in f32 whatever the polynomial says; clamping keeps n small.
    // `clamp` keeps NaN, which then flows through the arithmetic.
    let x = x.clamp(-104.0, 89.0);
    let t = x * LOG2E + ROUND;
    let n = t - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let p = ((((((1.987_569_1e-4 * r + 1.398_199_9e-3) * r + 8.333_452e-3) * r + 4.166_579_6e-2) * r
        + 1.666_666_5e-1)
        * r
        + 0.5)
        * r
        * r)
        + r
        + 1.0;
    // n (in [-150, 129]) sits in t's low mantissa bits, offset by ROUND's own.
    let ni = (t.to_bits() as i32).wrapping_sub(ROUND.to_bits() as i32);
    let n1 = ni >> 1;
    let n2 = ni - n1;
    let s1 = f32::from_bits(((n1 + 127) as u32) << 23);
    let s2 = f32::from_bits(((n2 + 127) as u32) << 23);
    p * s1 * s2
}

#[cfg(test)]
mod tests {
    use super::exp_f32;

    fn ulps(a: f32, b: f32) -> u32 {
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
    fn exp_limits_and_nan() {
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_f32(-200.0), 0.0);
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(100.0), f32::INFINITY);
        assert_eq!(exp_f32(88.8), f32::INFINITY);
        assert!(exp_f32(f32::NAN).is_nan());
    }
}
