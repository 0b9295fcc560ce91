//! Elementwise ops on the GPU against the CPU: unary and binary families, broadcasts, the
//! vec4 and scalar-operand kernels, clamp's one pass.

use super::{check, randn};
use crate::common::*;
use webtensor::{BinaryOp, DType, Device, Tensor, UnaryOp};

/// (Runs where there is an accelerator: `check` compares each with the CPU.)
pub(crate) fn unary_ops_match_cpu(_gpu: Device) {
    for op in UnaryOp::ALL.into_iter().chain(UnaryOp::INTERNAL) {
        for shape in [&[0usize][..], &[1], &[257], &[3, 1000], &[7, 13, 11]] {
            // Positive inputs for the ops with restricted domains.
            let domain = |d| {
                let x = randn(shape, 1, d);
                match op {
                    UnaryOp::Log | UnaryOp::Sqrt | UnaryOp::Rsqrt => x.abs().unwrap().add_scalar(0.1).unwrap(),
                    UnaryOp::Reciprocal => x.abs().unwrap().add_scalar(0.5).unwrap(),
                    _ => x.mul_scalar(3.0).unwrap(),
                }
            };
            check(&format!("{} {shape:?}", op.name()), 2e-5, |d| domain(d).unary(op).unwrap());
        }
        // Through a transposed view.
        check(&format!("{} of a transposed view", op.name()), 2e-5, |d| {
            randn(&[33, 65], 2, d).abs().unwrap().add_scalar(0.5).unwrap().t().unwrap().unary(op).unwrap()
        });
    }
    check("int abs/neg/square/sign", 0.0, |d| {
        let i = randn(&[1001], 3, d).mul_scalar(100.0).unwrap().to_dtype(DType::I32).unwrap();
        Tensor::cat(&[i.abs().unwrap(), i.neg().unwrap(), i.square().unwrap(), i.sign().unwrap(), i.relu().unwrap()], 0)
            .unwrap()
    });
}

/// (Runs where there is an accelerator: `check` compares each with the CPU.)
pub(crate) fn binary_ops_match_cpu(_gpu: Device) {
    // [300, 8] + [300, 1] and [1, 5] + [257, 1] coalesce to [rows, few cols]: one thread per row
    // (where the columns are not a multiple of 4). Where they are, a vec4 of each row per
    // thread (binary_rows4.wgsl): a bias [64, 36] + [36], [4, 6, 32] + [6, 1] over three dims
    // (runs of 8 vec4s), [5, 48] + [48] (runs of 4) and [17, 1] + [1, 300] with the first
    // operand constant along the rows.
    let shapes: [(&[usize], &[usize]); 10] = [
        (&[64, 36], &[36]),
        (&[4, 6, 32], &[6, 1]),
        (&[5, 48], &[48]),
        (&[1000], &[1000]),
        (&[3, 1, 5], &[4, 1]),
        (&[17, 1], &[1, 300]),
        (&[0, 3], &[3]),
        (&[], &[2, 2]),
        (&[300, 8], &[300, 1]),
        (&[1, 5], &[257, 1]),
    ];
    for op in BinaryOp::ALL {
        // Bitwise ops take integers only.
        for (sa, sb) in shapes.into_iter().filter(|_| !op.int_only()) {
            check(&format!("{} {sa:?} {sb:?}", op.name()), 2e-5, |d| {
                let a = randn(sa, 4, d);
                let b = randn(sb, 5, d);
                let (a, b) = if op == BinaryOp::Pow { (a.abs().unwrap().add_scalar(0.1).unwrap(), b) } else { (a, b) };
                a.binary(&b, op).unwrap()
            });
        }
        for dtype in [DType::I32, DType::U32] {
            check(&format!("{} {dtype}", op.name()), 2e-5, |d| {
                let a = randn(&[513], 6, d).abs().unwrap().mul_scalar(50.0).unwrap().to_dtype(dtype).unwrap();
                let b = randn(&[513], 7, d)
                    .abs()
                    .unwrap()
                    .mul_scalar(50.0)
                    .unwrap()
                    .add_scalar(1.0)
                    .unwrap()
                    .to_dtype(dtype)
                    .unwrap();
                a.binary(&b, op).unwrap()
            });
        }
    }
    // Row broadcasts over strided and offset views: columns step by the view's strides.
    check("row broadcast of a transposed view and an offset vector", 2e-5, |d| {
        let a = randn(&[8, 300], 41, d).t().unwrap();
        a.binary(&randn(&[9], 42, d).narrow(0, 1, 8).unwrap(), BinaryOp::Add).unwrap()
    });
    check("vec4 row broadcast of offset views", 2e-5, |d| {
        // Rows 40 apart from element 4, and a vector from element 4: both aligned to vec4s.
        let a = randn(&[64, 40], 44, d).narrow(1, 4, 32).unwrap();
        a.binary(&randn(&[36], 45, d).narrow(0, 4, 32).unwrap(), BinaryOp::Mul).unwrap()
    });
    // clamp in one pass (clamp4.wgsl: contiguous, vec4-aligned f32) with NaNs in the data (log
    // of negatives), bounds crossed (every element becomes the upper one), an aligned view
    // and an unaligned one (composed from maximum and minimum instead).
    // (The log's values may differ by an ulp between devices: the tolerance is for those.)
    check("clamp", 1e-6, |d| {
        let x = randn(&[4, 250], 50, d).mul_scalar(3.0).unwrap();
        let nan = x.log().unwrap();
        let flat = x.flatten().unwrap();
        let parts = [
            x.clamp(Some(-1.0), Some(2.0)).unwrap(),
            nan.clamp(Some(0.5), Some(1.0)).unwrap(),
            x.clamp(Some(2.0), Some(-1.0)).unwrap(),
            flat.narrow(0, 4, 996).unwrap().clamp(Some(-0.5), Some(0.5)).unwrap(),
            flat.narrow(0, 1, 996).unwrap().clamp(Some(-0.5), Some(0.5)).unwrap(),
        ];
        Tensor::cat(&parts.iter().map(|t| t.flatten().unwrap()).collect::<Vec<_>>(), 0).unwrap()
    });
    check("row broadcast comparison [n, 1] == [8]", 0.0, |d| {
        let ids = Tensor::arange(0.0, 8.0, 1.0, DType::I32, d).unwrap();
        let am = randn(&[1000, 8], 43, d).argmin(Some(1), false).unwrap().unsqueeze(1).unwrap();
        am.binary(&ids, BinaryOp::Eq).unwrap()
    });
    check("where", 0.0, |d| {
        let c = randn(&[40, 1], 8, d).gt_scalar(0.0).unwrap();
        c.where_(&randn(&[40, 70], 9, d), &randn(&[70], 10, d)).unwrap()
    });
    // Rows of a multiple of 4 (where_rows4.wgsl): a [n, 1] mask over rows of 64 (runs of eight
    // vec4s) and a [n, 1] value in rows of 36 (runs of one).
    check("where in vec4 runs", 0.0, |d| {
        let c = randn(&[40, 1], 14, d).gt_scalar(0.0).unwrap();
        let a = c.where_(&randn(&[40, 64], 15, d), &randn(&[64], 16, d)).unwrap();
        let m = randn(&[40, 36], 17, d).gt_scalar(0.0).unwrap();
        let b = m.where_(&randn(&[40, 1], 18, d), &randn(&[40, 36], 19, d)).unwrap();
        Tensor::cat(&[a.flatten().unwrap(), b.flatten().unwrap()], 0).unwrap()
    });
    // All three contiguous with the output's shape (the GPUs' fast path), at offsets (views
    // of a larger tensor), and a transposed operand (coalesced, not flat).
    check("where, same shapes", 0.0, |d| {
        let x = randn(&[3, 50, 60], 11, d);
        let (c, a, b) = (x.gt_scalar(0.0).unwrap(), randn(&[50, 60], 12, d), randn(&[50, 60], 13, d));
        let flat = c.where_(&x, &x.neg().unwrap()).unwrap();
        let views =
            c.narrow(0, 1, 1).unwrap().where_(&x.narrow(0, 2, 1).unwrap(), &x.narrow(0, 1, 1).unwrap()).unwrap();
        let t = c
            .narrow(0, 0, 1)
            .unwrap()
            .squeeze(Some(0))
            .unwrap()
            .where_(&a, &b.t().unwrap().contiguous().unwrap().t().unwrap())
            .unwrap();
        Tensor::cat(&[flat.flatten().unwrap(), views.flatten().unwrap(), t.flatten().unwrap()], 0).unwrap()
    });
}

/// (Runs where there is an accelerator: `check` compares each with the CPU.)
pub(crate) fn vec4_and_scalar_elementwise_paths_agree(_gpu: Device) {
    // Offsets 0..4 and lengths around multiples of 4 switch between the vec4 kernels (aligned)
    // and the scalar ones; both must match the CPU.
    for off in 0..4 {
        for len in [992, 993, 996] {
            check(&format!("exp/add/cast at offset {off}, len {len}"), 2e-5, |d| {
                let x = randn(&[1003], 30, d).narrow(0, off, len).unwrap();
                let y = randn(&[1003], 31, d).narrow(0, 3 - off, len).unwrap();
                Tensor::cat(
                    &[
                        x.exp().unwrap(),
                        x.add(&y).unwrap(),
                        x.gt(&y).unwrap().to_dtype(DType::F32).unwrap(),
                        x.to_dtype(DType::I32).unwrap().to_dtype(DType::F32).unwrap(),
                    ],
                    0,
                )
                .unwrap()
            });
        }
    }
}

/// `t op scalar` on every device (the GPU backends keep the scalar in the kernel's uniform, the
/// CPU broadcasts it) against the CPU: every op and dtype, vec4 and scalar kernel paths (offsets
/// and lengths around multiples of 4), values that promote an integer tensor to f32, and the
/// gradient through the scalar form.
/// (Runs where there is an accelerator: `check` compares each with the CPU.)
pub(crate) fn scalar_operand_kernels_match_cpu(_gpu: Device) {
    let run = |d: Device, op: BinaryOp, dtype: DType, off: usize, len: usize, value: f64| {
        let x = randn(&[1003], 40, d).mul_scalar(20.0).unwrap();
        let x = if dtype.is_float() { x } else { x.abs().unwrap().add_scalar(1.0).unwrap() };
        let x = x.to_dtype(dtype).unwrap().narrow(0, off, len).unwrap();
        let x = if op == BinaryOp::Pow && dtype.is_float() { x.abs().unwrap() } else { x };
        x.binary_scalar(value, op).unwrap()
    };
    for d in devices().into_iter().filter(|d| *d != Device::CPU) {
        for op in BinaryOp::ALL {
            let cases: &[(DType, f64)] = if op.int_only() {
                &[(DType::I32, 3.0), (DType::U32, 5.0), (DType::Bool, 1.0)]
            } else {
                &[
                    (DType::F32, 0.5),
                    (DType::F32, -3.0),
                    (DType::F32, 0.0),
                    (DType::I32, 7.0),
                    (DType::I32, 2.5),
                    (DType::U32, 3.0),
                ]
            };
            for &(dtype, value) in cases {
                for (off, len) in [(0, 992), (1, 992), (0, 993), (3, 996)] {
                    let what = format!("{} {dtype} by {value} at offset {off}, len {len} on {d}", op.name());
                    let got = run(d, op, dtype, off, len, value);
                    let want = run(Device::CPU, op, dtype, off, len, value);
                    assert_eq!(got.device(), d, "{what}: device");
                    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
                    assert_close(&f32s(&got), &f32s(&want), 2e-5, &what);
                }
            }
        }
        if has_f16(d) {
            let f = |d: Device| {
                randn(&[517], 41, d).to_dtype(DType::F16).unwrap().mul_scalar(0.3).unwrap().add_scalar(1.0).unwrap()
            };
            assert_close(&f32s(&f(d)), &f32s(&f(Device::CPU)), 1e-3, &format!("f16 scalar ops on {d}"));
        }
        // The gradient of the scalar form is the tensor rule's.
        let grad = |d: Device| {
            let x = randn(&[257], 42, d).abs().unwrap().add_scalar(0.5).unwrap().requires_grad_(true).unwrap();
            let y =
                x.mul_scalar(3.0).unwrap().div_scalar(2.0).unwrap().pow_scalar(1.5).unwrap().sub_scalar(1.0).unwrap();
            y.sum_all().unwrap().backward().unwrap();
            x.grad().expect("a gradient")
        };
        assert_close(&f32s(&grad(d)), &f32s(&grad(Device::CPU)), 1e-5, &format!("grad through scalar ops on {d}"));
    }
}

/// clamp's one-pass kernel takes the CPU's rule (`x > lo ? x : lo`, then `y < hi ? y : hi`):
/// zeros of either sign as data and bounds, NaN data giving NaN, NaN bounds (the composed path)
/// making every element NaN. A zero's sign is the driver's where the two zeros meet (the CPU
/// takes the second; NVIDIA's Vulkan gave +0 for clamp(+0, -0, 1); IEEE's maxNum leaves it open):
/// zeros compare equal here, everything else bit for bit.
pub(crate) fn clamp_keeps_the_cpus_zeros_and_nans(g: Device) {
    let data = [-0.0f32, 0.0, -1.0, 1.0, f32::NAN, 3.0, -0.0, 0.0, 7.0, -7.0, 0.5, -0.5];
    let bounds = [(0.0, 6.0), (-0.0, 1.0), (-1.0, -0.0), (2.0, -1.0), (f64::NAN, 1.0), (0.0, f64::NAN)];
    for (lo, hi) in bounds {
        let run = |d| f32s(&Tensor::from_slice(&data, &[data.len()], d).unwrap().clamp(Some(lo), Some(hi)).unwrap());
        let (want, got) = (run(Device::CPU), run(g));
        for ((w, v), x) in want.iter().zip(&got).zip(&data) {
            let same = if w.is_nan() { v.is_nan() } else { w.to_bits() == v.to_bits() || (*w == 0.0 && *v == 0.0) };
            assert!(same, "clamp({x}, {lo}, {hi}) on {g}: {v:?}, the cpu gives {w:?}");
        }
    }
}

/// Division by a scalar power of two runs as the product by its reciprocal: on every device it
/// must be the true quotient, bit for bit, through subnormal results, infinities, NaN and
/// signed zeros (a GPU may flush a subnormal input or result to zero). On the CPU also the
/// divisors that keep the division: a reciprocal that is not a normal f32 (2^127), no power of
/// two (3, 0). `mean` and average pooling divide by counts this way; their values are checked
/// against PyTorch in the fixtures.
/// (Runs where there is an accelerator: `check` compares each with the CPU.)
pub(crate) fn division_by_a_power_of_two_is_the_quotient_bit_for_bit(_gpu: Device) {
    let mut xs: Vec<f32> = (0..1000).map(|i| ((i as f32) * 0.731).sin() * 10f32.powi(i % 30 - 15)).collect();
    xs.extend([
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        f32::MIN_POSITIVE * 3.0,
        1e-45,
        f32::MAX,
        -f32::MAX,
        3.0e38,
        1.5,
    ]);
    for d in devices() {
        let x = Tensor::from_slice(&xs, &[xs.len()], d).unwrap();
        let divisors: &[f64] = match d {
            Device::CPU => &[2.0, 4.0, 0.5, 1024.0, -8.0, 2f64.powi(-126), 2f64.powi(126), 2f64.powi(127), 3.0, 0.0],
            _ => &[2.0, 4.0, 0.5, 1024.0, -8.0, 2f64.powi(-126), 2f64.powi(126)],
        };
        let subnormal = |v: f32| v != 0.0 && v.abs() < f32::MIN_POSITIVE;
        for &s in divisors {
            let got = f32s(&x.div_scalar(s).unwrap());
            for (&a, &g) in xs.iter().zip(&got) {
                let want = a / s as f32;
                let flushed = d != Device::CPU && (subnormal(a) || subnormal(want)) && g == 0.0;
                let same = g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()) || flushed;
                assert!(same, "{a:e} / {s:e} on {d}: got {g:e}, want {want:e}");
            }
        }
    }
}
