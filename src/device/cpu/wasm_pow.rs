//! `pow` over f32 in wasm SIMD: [`crate::op::pow::pow_f32`] on four lanes, operation for
//! operation (the JS suite checks the two agree bit for bit), its f64 core as two f64x2 halves
//! with the tables read by lane. The table reads are gathers, which wasm SIMD has no instruction
//! for: spelled out, each lane's log2 row is one 16-byte load, and the shipped kernel does not
//! depend on what the vectoriser makes of the portable loop.

use core::arch::wasm32::*;
use std::mem::MaybeUninit;

use crate::op::pow::consts::{f, E, EXP2, LOG2, OFF, Q, SHIFT, Y_MAX, Y_MIN};
use crate::op::pow::pow_f32;

/// Where the exponents come from: a slice as long as the bases, or one value for all.
#[derive(Clone, Copy)]
pub(super) enum Exponent<'a> {
    /// One exponent per base.
    Each(&'a [f32]),
    /// The same exponent for every base.
    All(f32),
}

/// `a[i]^b[i]` (or `a[i]^b`) into `out`, four lanes at a time. Every element of `out` is
/// written: `a` (and `b` when it is a slice) must be at least as long, which the caller's chunks
/// guarantee (shorter inputs panic at the slicing below rather than leave `out` unwritten).
pub(super) fn pow_block(a: &[f32], b: Exponent, out: &mut [MaybeUninit<f32>]) {
    let n = out.len();
    let a = &a[..n];
    let b = match b {
        Exponent::Each(b) => Exponent::Each(&b[..n]),
        all => all,
    };
    let c = Consts::new();
    let mut i = 0;
    while i + 4 <= n {
        // SAFETY: i + 4 <= n: four f32 of `a`, of `b` when it is a slice (both n long) and of
        // `out`, loaded and stored unaligned.
        unsafe {
            let x = v128_load(a.as_ptr().add(i) as *const v128);
            let y = match b {
                Exponent::Each(b) => v128_load(b.as_ptr().add(i) as *const v128),
                Exponent::All(b) => f32x4_splat(b),
            };
            v128_store(out.as_mut_ptr().add(i) as *mut v128, c.pow4(x, y));
        }
        i += 4;
    }
    for j in i..n {
        let y = match b {
            Exponent::Each(b) => b[j],
            Exponent::All(b) => b,
        };
        out[j].write(pow_f32(a[j], y));
    }
}

/// The constants as vectors, made opaque to LLVM so they stay in locals (V8 12+ rebuilds a
/// `v128.const` at each use inside a loop).
struct Consts {
    abs: v128,
    min_normal: v128,
    two24: v128,
    off: v128,
    top: v128,
    fifteen: v128,
    twenty_four: v128,
    one_d: v128,
    q: [v128; 6],
    e: [v128; 3],
    y_min: v128,
    y_max: v128,
    shift: v128,
    thirty_one: v128,
    half: v128,
    sign: v128,
    inf: v128,
    one: v128,
    nan: v128,
    zero: v128,
}

impl Consts {
    fn new() -> Self {
        use std::hint::black_box as opaque;
        let d = |x: f64| opaque(f64x2_splat(x));
        let s = |x: f32| opaque(f32x4_splat(x));
        let i = |x: u32| opaque(u32x4_splat(x));
        Consts {
            abs: i(0x7fff_ffff),
            min_normal: s(f32::MIN_POSITIVE),
            two24: s(16_777_216.0),
            off: i(OFF),
            top: i(0xff80_0000),
            fifteen: i(15),
            twenty_four: i(24),
            one_d: d(1.0),
            q: Q.map(|x| d(f(x))),
            e: E.map(|x| d(f(x))),
            y_min: d(Y_MIN),
            y_max: d(Y_MAX),
            shift: d(SHIFT),
            thirty_one: opaque(u64x2_splat(31)),
            half: s(0.5),
            sign: i(0x8000_0000),
            inf: s(f32::INFINITY),
            one: s(1.0),
            nan: s(f32::NAN),
            zero: s(0.0),
        }
    }

    /// `pow_core` on two lanes: `z` and `k` as f64x2, the table rows `t0`, `t1` of the lanes.
    #[inline(always)]
    fn core2(&self, z: v128, k: v128, t0: &[u64; 2], t1: &[u64; 2], b: v128) -> v128 {
        // SAFETY: each table row is two u64 (16 bytes), loaded unaligned.
        let (r0, r1) = unsafe { (v128_load(t0.as_ptr() as *const v128), v128_load(t1.as_ptr() as *const v128)) };
        let invc = i64x2_shuffle::<0, 2>(r0, r1);
        let logc = i64x2_shuffle::<1, 3>(r0, r1);
        let r = f64x2_sub(f64x2_mul(z, invc), self.one_d);
        let y0 = f64x2_add(logc, k);
        let r2 = f64x2_mul(r, r);
        let [q0, q1, q2, q3, q4, q5] = self.q;
        let lo = f64x2_add(q0, f64x2_mul(q1, r));
        let mid = f64x2_add(q2, f64x2_mul(q3, r));
        let hi = f64x2_add(q4, f64x2_mul(q5, r));
        let q = f64x2_add(lo, f64x2_mul(r2, f64x2_add(mid, f64x2_mul(r2, hi))));
        let l2 = f64x2_add(y0, f64x2_mul(r, q));
        // f64::clamp: pmax(y, min) and pmin(y, max) keep NaN, as it does.
        let y = f64x2_pmin(f64x2_pmax(f64x2_mul(b, l2), self.y_min), self.y_max);
        let kd = f64x2_add(y, self.shift);
        let rr = f64x2_sub(y, f64x2_sub(kd, self.shift));
        let j = v128_and(kd, self.thirty_one);
        let t = u64x2(EXP2[u64x2_extract_lane::<0>(j) as usize & 31], EXP2[u64x2_extract_lane::<1>(j) as usize & 31]);
        let s = i64x2_add(t, i64x2_shl(kd, 47));
        let [e0, e1, e2] = self.e;
        let p = f64x2_add(e1, f64x2_mul(rr, e2));
        let p = f64x2_add(e0, f64x2_mul(rr, p));
        let p = f64x2_add(self.one_d, f64x2_mul(rr, p));
        f64x2_mul(p, s)
    }

    /// [`pow_f32`] on four lanes.
    #[inline(always)]
    fn pow4(&self, a: v128, b: v128) -> v128 {
        let x = v128_and(a, self.abs);
        // pow_core's reduction: x = 2^k z.
        let sub = f32x4_lt(x, self.min_normal);
        let xs = v128_bitselect(f32x4_mul(x, self.two24), x, sub);
        let tmp = i32x4_sub(xs, self.off);
        let idx = v128_and(u32x4_shr(tmp, 19), self.fifteen);
        let z = i32x4_sub(xs, v128_and(tmp, self.top));
        let k = i32x4_sub(i32x4_shr(tmp, 23), v128_and(sub, self.twenty_four));
        let row = |lane: u32| &LOG2[lane as usize & 15];
        let lo = self.core2(
            f64x2_promote_low_f32x4(z),
            f64x2_convert_low_i32x4(k),
            row(u32x4_extract_lane::<0>(idx)),
            row(u32x4_extract_lane::<1>(idx)),
            f64x2_promote_low_f32x4(b),
        );
        let hi = self.core2(
            f64x2_promote_low_f32x4(i64x2_shuffle::<1, 1>(z, z)),
            f64x2_convert_low_i32x4(i64x2_shuffle::<1, 1>(k, k)),
            row(u32x4_extract_lane::<2>(idx)),
            row(u32x4_extract_lane::<3>(idx)),
            f64x2_promote_low_f32x4(i64x2_shuffle::<1, 1>(b, b)),
        );
        let mag = i64x2_shuffle::<0, 2>(f32x4_demote_f64x2_zero(lo), f32x4_demote_f64x2_zero(hi));
        // pow_f32's special cases, select by select.
        let b_inf = f32x4_eq(v128_and(b, self.abs), self.inf);
        let b_int = v128_andnot(f32x4_eq(f32x4_trunc(b), b), b_inf);
        let hb = f32x4_mul(b, self.half);
        let b_odd = v128_and(b_int, f32x4_ne(f32x4_trunc(hb), hb));
        let negative = i32x4_shr(a, 31);
        let a_zero = f32x4_eq(x, self.zero);
        let edge = v128_or(a_zero, f32x4_eq(x, self.inf));
        let b_pos = f32x4_gt(b, self.zero);
        let edge_val = v128_bitselect(self.zero, self.inf, v128_not(v128_xor(a_zero, b_pos)));
        let mag = v128_bitselect(edge_val, mag, edge);
        let signed = v128_xor(mag, v128_and(v128_and(negative, b_odd), self.sign));
        let bad = v128_andnot(v128_andnot(v128_andnot(negative, b_int), edge), b_inf);
        let r = v128_bitselect(self.nan, signed, bad);
        let above = v128_not(v128_xor(f32x4_gt(x, self.one), b_pos));
        let inf_val = v128_bitselect(self.one, v128_bitselect(self.inf, self.zero, above), f32x4_eq(x, self.one));
        let r = v128_bitselect(inf_val, r, b_inf);
        let any_nan = v128_or(f32x4_ne(a, a), f32x4_ne(b, b));
        let r = v128_bitselect(f32x4_add(a, b), r, any_nan);
        let one = v128_or(f32x4_eq(b, self.zero), f32x4_eq(a, self.one));
        v128_bitselect(self.one, r, one)
    }
}
