//! The same answer on every device, and PyTorch's, on special values: zeros of both signs,
//! subnormals, tiny, huge, infinities and NaN (`tests/fixtures/special.json`, made by
//! `scripts/gen_special_fixtures.py` with PyTorch on the CPU). Integers, bools and comparisons
//! must match bit for bit; floats within each op's stated bound (see [`bound`]), with NaN where
//! PyTorch gives NaN and the same infinity where it gives one. Casts of out-of-range floats to
//! integers follow webtensor's documented rule (truncate, saturate, NaN to 0), which PyTorch
//! leaves undefined. Failures name the device, the op and the input.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

use serde_json::Value;
use webtensor::{BinaryOp, DType, Device, Tensor, UnaryOp};

device_main!(
    unary_ops_match_pytorch,
    binary_ops_match_pytorch,
    pow_scalars_match_pytorch,
    shifts_match_pytorch,
    logical_ops_match_pytorch,
    casts_where_and_clamp_match,
    division_ops_match_pytorch_bit_for_bit
);

// (`isnan`, `isinf`, `isfinite` are checked with the casts: bool answers, bit for bit.)

fn f32_bits(v: &Value) -> Vec<f32> {
    v.as_array().expect("array").iter().map(|x| f32::from_bits(x.as_u64().expect("bits") as u32)).collect()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array().expect("array").iter().map(|x| x.as_i64().expect("integer")).collect()
}

/// The largest error allowed for `op` at input `x` when PyTorch gives `want`: the op's
/// tolerance in the manifest (`webtensor::op::manifest`), which the JS suite reads too. The
/// ops outside its tables checked here (`where`, `clamp`) are exact.
fn bound(op: &str, x: f32, want: f32) -> Option<f32> {
    use webtensor::op::manifest::{binary_tolerance, unary_tolerance};
    let tolerance = match (UnaryOp::from_name(op), BinaryOp::from_name(op)) {
        (Some(u), _) => unary_tolerance(u),
        (None, Some(b)) => binary_tolerance(b),
        (None, None) => return Some(0.0),
    };
    tolerance.bound(x, want)
}

/// Whether `got` is PyTorch's `want` within `tol`: NaN for NaN, the same infinity, a subnormal
/// result flushed to zero, and subnormal or zero results within 1e-40 of each other.
fn agrees(got: f32, want: f32, tol: f32) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    // A subnormal result may be flushed to zero, or carry less precision (f32 subnormals hold
    // fewer bits, and PyTorch's own may come through subnormal intermediates); a subnormal
    // input may give a zero where PyTorch flushes it.
    let tiny = |v: f32| v != 0.0 && v.abs() < f32::MIN_POSITIVE;
    (got - want).abs() <= tol
        || (tiny(want) && got == 0.0)
        || ((tiny(want) || want == 0.0) && (tiny(got) || got == 0.0) && (got - want).abs() <= 1e-40)
}

fn is_subnormal(x: f32) -> bool {
    x != 0.0 && x.abs() < f32::MIN_POSITIVE
}

/// `v` with subnormals flushed to zeros of their sign, as a GPU may read them.
fn flushed(v: &[f32]) -> Vec<f32> {
    v.iter().map(|&x| if is_subnormal(x) { 0.0f32.copysign(x) } else { x }).collect()
}

/// Runs `op` over `inputs` on `d` and checks it against PyTorch's `want`. GPUs may flush
/// subnormal inputs to zero (WGSL and CUDA allow it; SwiftShader does), so where an input is
/// subnormal a GPU may instead give what the CPU gives for the flushed inputs.
fn check_floats(
    d: Device,
    name: &str,
    inputs: &[Vec<f32>],
    want: &[f32],
    op: impl Fn(&[Tensor]) -> Tensor,
    errors: &mut Vec<String>,
) {
    let on = |dev: Device, vals: &[Vec<f32>]| {
        let ts: Vec<Tensor> = vals.iter().map(|v| Tensor::from_slice(v, &[v.len()], dev).unwrap()).collect();
        f32s(&op(&ts))
    };
    let got = on(d, inputs);
    let alt = (d != Device::CPU).then(|| on(Device::CPU, &inputs.iter().map(|v| flushed(v)).collect::<Vec<_>>()));
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let xs: Vec<f32> = inputs.iter().map(|v| v[i]).collect();
        let Some(tol) = bound(name, xs[0], w) else { continue };
        let flush_ok = || {
            alt.as_ref().is_some_and(|a| {
                xs.iter().any(|&x| is_subnormal(x)) && agrees(g, a[i], bound(name, 0.0, a[i]).unwrap_or(0.0))
            })
        };
        if !agrees(g, w, tol) && !flush_ok() {
            errors.push(format!(
                "{d}: {name}{xs:?} = {g:e} (bits {:#010x}), PyTorch gives {w:e} (bound {tol:e})",
                g.to_bits()
            ));
        }
    }
}

fn report(errors: Vec<String>) {
    assert!(errors.is_empty(), "{} disagreements:\n{}", errors.len(), errors.join("\n"));
}

fn unary_op(name: &str) -> UnaryOp {
    *UnaryOp::ALL.iter().find(|u| u.name() == name).unwrap_or_else(|| panic!("no unary op {name}"))
}

fn binary_op(name: &str) -> BinaryOp {
    *BinaryOp::ALL.iter().find(|b| b.name() == name).unwrap_or_else(|| panic!("no binary op {name}"))
}

fn unary_ops_match_pytorch(d: Device) {
    let fx = fixture_json("special.json");
    let grid = f32_bits(&fx["grid"]);
    let mut errors = vec![];
    for (name, want) in fx["unary"].as_object().expect("unary") {
        let op = unary_op(name);
        check_floats(d, name, std::slice::from_ref(&grid), &f32_bits(want), |t| t[0].unary(op).unwrap(), &mut errors);
    }
    let igrid: Vec<i32> = ints(&fx["int_grid"]).into_iter().map(|v| v as i32).collect();
    let xi = Tensor::from_slice(&igrid, &[igrid.len()], d).unwrap();
    for (name, want) in fx["int_unary"].as_object().expect("int_unary") {
        let got = i32s(&xi.unary(unary_op(name)).unwrap());
        let want: Vec<i32> = ints(want).into_iter().map(|v| v as i32).collect();
        for ((x, g), w) in igrid.iter().zip(&got).zip(&want) {
            if g != w {
                errors.push(format!("{d}: int32 {name}({x}) = {g}, PyTorch gives {w}"));
            }
        }
    }
    report(errors);
}

fn binary_ops_match_pytorch(d: Device) {
    let fx = fixture_json("special.json");
    let (a, b) = (f32_bits(&fx["pairs"][0]), f32_bits(&fx["pairs"][1]));
    let (ta, tb) = (Tensor::from_slice(&a, &[a.len()], d).unwrap(), Tensor::from_slice(&b, &[b.len()], d).unwrap());
    let mut errors = vec![];
    for (name, want) in fx["binary"].as_object().expect("binary") {
        let out = ta.binary(&tb, binary_op(name)).unwrap();
        if out.dtype() == DType::Bool {
            let got = out.to_vec_blocking::<bool>().unwrap();
            for (i, (&g, w)) in got.iter().zip(ints(want)).enumerate() {
                if g != (w != 0) {
                    errors.push(format!("{d}: {name}({:e}, {:e}) = {g}, PyTorch gives {}", a[i], b[i], w != 0));
                }
            }
        } else {
            let op = binary_op(name);
            check_floats(
                d,
                name,
                &[a.clone(), b.clone()],
                &f32_bits(want),
                |t| t[0].binary(&t[1], op).unwrap(),
                &mut errors,
            );
        }
    }
    let ia: Vec<i32> = ints(&fx["int_pairs"][0]).into_iter().map(|v| v as i32).collect();
    let ib: Vec<i32> = ints(&fx["int_pairs"][1]).into_iter().map(|v| v as i32).collect();
    let (ta, tb) = (Tensor::from_slice(&ia, &[ia.len()], d).unwrap(), Tensor::from_slice(&ib, &[ib.len()], d).unwrap());
    for (name, want) in fx["int_binary"].as_object().expect("int_binary") {
        let out = ta.binary(&tb, binary_op(name)).unwrap();
        let got: Vec<i64> =
            if out.dtype() == DType::Bool { bools_of(&out) } else { i32s(&out).into_iter().map(i64::from).collect() };
        check_exact(d, &format!("int32 {name}"), |i| format!("{}, {}", ia[i], ib[i]), &got, &ints(want), &mut errors);
    }
    report(errors);
}

/// `pow` with a scalar exponent, PyTorch's special ones (3, 0.5, -0.5, -1, -2, 2) included: their
/// values on -0, infinities and negative bases are those of the kernels PyTorch runs for them.
fn pow_scalars_match_pytorch(d: Device) {
    let fx = fixture_json("special.json");
    let grid = f32_bits(&fx["grid"]);
    let mut errors = vec![];
    for (e, want) in fx["pow_scalar"].as_object().expect("pow_scalar") {
        let e: f64 = e.parse().expect("an exponent");
        check_floats(
            d,
            "pow",
            std::slice::from_ref(&grid),
            &f32_bits(want),
            |t| t[0].pow_scalar(e).unwrap(),
            &mut errors,
        );
    }
    report(errors);
}

fn shifts_match_pytorch(d: Device) {
    let fx = fixture_json("special.json");
    let a: Vec<i32> = ints(&fx["shift_pairs"][0]).into_iter().map(|v| v as i32).collect();
    let b: Vec<i32> = ints(&fx["shift_pairs"][1]).into_iter().map(|v| v as i32).collect();
    let (ta, tb) = (Tensor::from_slice(&a, &[a.len()], d).unwrap(), Tensor::from_slice(&b, &[b.len()], d).unwrap());
    let mut errors = vec![];
    for (name, want) in fx["shifts"].as_object().expect("shifts") {
        let got: Vec<i64> = i32s(&ta.binary(&tb, binary_op(name)).unwrap()).into_iter().map(i64::from).collect();
        check_exact(d, &format!("int32 {name}"), |i| format!("{}, {}", a[i], b[i]), &got, &ints(want), &mut errors);
    }
    // u32 shifts by the same counts (as u32: negative counts are huge) follow PyTorch's rule for
    // unsigned types: a shift of 32 or more gives 0 both ways.
    let (ua, ub): (Vec<u32>, Vec<u32>) = (a.iter().map(|&v| v as u32).collect(), b.iter().map(|&v| v as u32).collect());
    let (tua, tub) =
        (Tensor::from_slice(&ua, &[ua.len()], d).unwrap(), Tensor::from_slice(&ub, &[ub.len()], d).unwrap());
    for (op, f) in [
        (BinaryOp::BitwiseLeftShift, (|x: u32, s: u32| if s < 32 { x << s } else { 0 }) as fn(u32, u32) -> u32),
        (BinaryOp::BitwiseRightShift, |x, s| if s < 32 { x >> s } else { 0 }),
    ] {
        let got = tua.binary(&tub, op).unwrap().to_vec_blocking::<u32>().unwrap();
        for (i, g) in got.iter().enumerate() {
            if *g != f(ua[i], ub[i]) {
                errors.push(format!("{d}: u32 {}({}, {}) = {g}, want {}", op.name(), ua[i], ub[i], f(ua[i], ub[i])));
            }
        }
    }
    report(errors);
}

/// `got` against PyTorch's exact `want` (bools as 0/1), one error per differing element.
fn check_exact(
    d: Device,
    name: &str,
    input: impl Fn(usize) -> String,
    got: &[i64],
    want: &[i64],
    errors: &mut Vec<String>,
) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if g != w {
            errors.push(format!("{d}: {name}({}) = {g}, PyTorch gives {w}", input(i)));
        }
    }
}

fn bools_of(t: &Tensor) -> Vec<i64> {
    t.to_vec_blocking::<bool>().unwrap().into_iter().map(i64::from).collect()
}

fn logical_ops_match_pytorch(d: Device) {
    let fx = fixture_json("special.json");
    let (a, b) = (f32_bits(&fx["pairs"][0]), f32_bits(&fx["pairs"][1]));
    let (ta, tb) = (Tensor::from_slice(&a, &[a.len()], d).unwrap(), Tensor::from_slice(&b, &[b.len()], d).unwrap());
    let mut errors = vec![];
    let pair = |i: usize| format!("{:e}, {:e}", a[i], b[i]);
    for (name, want) in fx["logical"].as_object().expect("logical") {
        let got = match name.as_str() {
            "logical_and" => ta.logical_and(&tb),
            "logical_or" => ta.logical_or(&tb),
            "logical_xor" => ta.logical_xor(&tb),
            other => panic!("no logical op {other}"),
        };
        check_exact(d, name, pair, &bools_of(&got.unwrap()), &ints(want), &mut errors);
    }
    let grid = f32_bits(&fx["grid"]);
    let x = Tensor::from_slice(&grid, &[grid.len()], d).unwrap();
    let not = bools_of(&x.logical_not().unwrap());
    check_exact(d, "logical_not", |i| format!("{:e}", grid[i]), &not, &ints(&fx["logical_not"]), &mut errors);
    let igrid: Vec<i32> = ints(&fx["int_grid"]).into_iter().map(|v| v as i32).collect();
    let xi = Tensor::from_slice(&igrid, &[igrid.len()], d).unwrap();
    let inv: Vec<i64> = i32s(&xi.bitwise_not().unwrap()).into_iter().map(i64::from).collect();
    check_exact(d, "bitwise_not", |i| igrid[i].to_string(), &inv, &ints(&fx["bitwise_not"]), &mut errors);
    let n = (a.len() as f64).sqrt() as usize;
    let sums: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    let rows = Tensor::from_slice(&sums, &[n, n], d).unwrap();
    let row = |i: usize| format!("{:?}", &sums[i * n..(i + 1) * n]);
    check_exact(d, "all", row, &bools_of(&rows.all(&[1], false).unwrap()), &ints(&fx["all_rows"]), &mut errors);
    check_exact(d, "any", row, &bools_of(&rows.any(&[1], false).unwrap()), &ints(&fx["any_rows"]), &mut errors);
    report(errors);
}

fn casts_where_and_clamp_match(d: Device) {
    let fx = fixture_json("special.json");
    let grid = f32_bits(&fx["grid"]);
    let x = Tensor::from_slice(&grid, &[grid.len()], d).unwrap();
    let mut errors = vec![];
    let to_bool = x.to_dtype(DType::Bool).unwrap().to_vec_blocking::<bool>().unwrap();
    for ((v, g), w) in grid.iter().zip(&to_bool).zip(ints(&fx["to_bool"])) {
        if *g != (w != 0) {
            errors.push(format!("{d}: bool({v:e}) = {g}, PyTorch gives {}", w != 0));
        }
    }
    let xi = Tensor::from_slice(&[0i32, -5, i32::MAX], &[3], d).unwrap();
    for (name, f) in
        [("isnan", Tensor::isnan as fn(&Tensor) -> _), ("isinf", Tensor::isinf), ("isfinite", Tensor::isfinite)]
    {
        let got = f(&x).unwrap().to_vec_blocking::<bool>().unwrap();
        for ((v, g), w) in grid.iter().zip(&got).zip(ints(&fx[name])) {
            if *g != (w != 0) {
                errors.push(format!("{d}: {name}({v:e}) = {g}, PyTorch gives {}", w != 0));
            }
        }
        let ints_got = f(&xi).unwrap().to_vec_blocking::<bool>().unwrap();
        if ints_got != [name == "isfinite"; 3] {
            errors.push(format!("{d}: {name} of integers = {ints_got:?}"));
        }
    }
    // Truncation toward zero, saturation at the bounds, NaN to 0: Rust's `as`, the guide's rule (docs/guide/tensors.md).
    let to_i32 = i32s(&x.to_dtype(DType::I32).unwrap());
    let to_u32 = x.to_dtype(DType::U32).unwrap().to_vec_blocking::<u32>().unwrap();
    for (i, &v) in grid.iter().enumerate() {
        if to_i32[i] != v as i32 {
            errors.push(format!("{d}: int32({v:e}) = {}, want {}", to_i32[i], v as i32));
        }
        if to_u32[i] != v as u32 {
            errors.push(format!("{d}: uint32({v:e}) = {}, want {}", to_u32[i], v as u32));
        }
    }
    let where_ = |t: &[Tensor]| {
        let dev = t[0].device();
        let (one, zero) =
            (Tensor::scalar(1.0, DType::F32, dev).unwrap(), Tensor::scalar(0.0, DType::F32, dev).unwrap());
        t[0].where_(&one, &zero).unwrap()
    };
    check_floats(d, "where", std::slice::from_ref(&grid), &f32_bits(&fx["where"]), where_, &mut errors);
    let clamps =
        [("clamp_1_2", Some(1.0), Some(2.0)), ("clamp_2_1", Some(2.0), Some(1.0)), ("clamp_min_0", Some(0.0), None)];
    for (key, lo, hi) in clamps {
        check_floats(
            d,
            key,
            std::slice::from_ref(&grid),
            &f32_bits(&fx[key]),
            |t| t[0].clamp(lo, hi).unwrap(),
            &mut errors,
        );
    }
    report(errors);
}

/// floor_divide, fmod and remainder where a driver's division some ulp off changes the answer
/// (NVIDIA's Vulkan division gave 3e38 // 3 = 1.0000001e38, and 5.6e-32 // -2.2e-38 one less
/// than PyTorch): the GPU kernels divide the significands exactly. 20,000 seeded pairs over
/// exponent gaps from 10 to 148 (both signs, divisors down to 2^-140, overflow to infinity) and
/// 20,000 over gaps from 0 to 9 (the quotients models meet, where a subnormal remainder is
/// common near the bottom of the range) must equal PyTorch's formulas bit for bit: C's exact
/// fmod (here in f64, where it is exact too) and c10's `div_floor_floating` and remainder over
/// it, transcribed below independently of the crate's kernels, so the CPU is checked as well.
fn division_ops_match_pytorch_bit_for_bit(d: Device) {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for i in 0..40_000 {
        let r = next();
        let gap = if i < 20_000 { 10 + (r % 139) as i32 } else { (r % 10) as i32 };
        let eb = -140 + ((r >> 8) % 150) as i32;
        let ea = (eb + gap).min(127);
        let mant = |bits: u64| 1.0 + (bits & 0x7f_ffff) as f32 / 8_388_608.0;
        // 2^e exactly, subnormal powers included (powi(-140) is 1 / 2^140 = 0).
        let pow2 =
            |e: i32| if e >= -126 { f32::from_bits(((e + 127) as u32) << 23) } else { f32::from_bits(1 << (e + 149)) };
        let sign = |bit: u64| if bit & 1 == 1 { -1.0f32 } else { 1.0 };
        a.push(sign(r >> 40) * mant(r >> 16) * pow2(ea));
        b.push(sign(r >> 41) * mant(next()) * pow2(eb));
        if i % 1000 == 0 {
            a.extend([3e38, 5.611697e-32]);
            b.extend([if i % 2000 == 0 { 3.0 } else { -7.0 }, -2.1566662e-38]);
        }
    }
    let n = a.len();
    let mut bad = vec![];
    for op in [BinaryOp::FloorDivide, BinaryOp::Fmod, BinaryOp::Remainder] {
        let run = |dev: Device| {
            let x = Tensor::from_slice(&a, &[n], dev).unwrap();
            let y = Tensor::from_slice(&b, &[n], dev).unwrap();
            f32s(&x.binary(&y, op).unwrap())
        };
        let got = run(d);
        let want: Vec<f32> = a.iter().zip(&b).map(|(&x, &y)| pytorch_division(op, x, y)).collect();
        bad.extend(
            (0..n)
                .filter(|&i| got[i].to_bits() != want[i].to_bits() && !(got[i].is_nan() && want[i].is_nan()))
                .filter(|&i| !(d != Device::CPU && (is_subnormal(a[i]) || is_subnormal(b[i]))))
                .take(10)
                .map(|i| {
                    format!("{d}: {}({:e}, {:e}) = {:e}, PyTorch gives {:e}", op.name(), a[i], b[i], got[i], want[i])
                }),
        );
    }
    report(bad);
}

/// PyTorch's float `fmod`, `remainder` and `floor_divide` (ATen's CPU kernels: C's fmod, the
/// remainder taking the divisor's sign, and c10::div_floor_floating), in f32 as PyTorch
/// computes them; the exact fmod through f64.
fn pytorch_division(op: BinaryOp, a: f32, b: f32) -> f32 {
    let fmod = (a as f64 % b as f64) as f32;
    match op {
        BinaryOp::Fmod => fmod,
        BinaryOp::Remainder if fmod != 0.0 && ((b < 0.0) != (fmod < 0.0)) => fmod + b,
        BinaryOp::Remainder => fmod,
        BinaryOp::FloorDivide if b == 0.0 => a / b,
        BinaryOp::FloorDivide => {
            let mut div = (a - fmod) / b;
            if fmod != 0.0 && ((b < 0.0) != (fmod < 0.0)) {
                div -= 1.0;
            }
            if div == 0.0 {
                return 0.0f32.copysign(a / b);
            }
            let floor = div.floor();
            if div - floor > 0.5 {
                floor + 1.0
            } else {
                floor
            }
        }
        other => panic!("{} is not a division", other.name()),
    }
}
