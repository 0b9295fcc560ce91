//! The fused cross-entropy (`op::cross_entropy`: one kernel each way) against the composed
//! formula (`set_fused_kernels(Never)`: log-softmax, gather and masking), on every device:
//! losses and the scores' gradient for every reduction, ignored targets, label smoothing, class
//! dims in the middle (`[N, C, d]`), rows wider than a workgroup, one class, rows of `-inf`,
//! a batch whose targets are all ignored; out-of-range targets fail as before; and what the
//! forward keeps for backward. The mode is process-wide, so the trials run one at a time.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::*;

use webtensor::nn::{self, ClassLossOptions, Reduction};
use webtensor::{set_fused_kernels, DType, Device, DeviceKind, FusedKernels, Tensor};

fn main() {
    use common::trials::{device_trials, run_in_order};
    let mut t = device_trials("fused_cross_entropy_matches_the_composed_formula", |d| {
        both_forms(d, matches_the_composed_formula)
    });
    t.extend(device_trials("fused_cross_entropy_edges", |d| both_forms(d, edges)));
    t.extend(device_trials("fused_cross_entropy_keeps_one_value_per_row", keeps_one_value_per_row));
    run_in_order(t)
}

/// `f` on `d`; on wgpu once per form of the kernel (a thread per row for software adapters, a
/// workgroup per row for hardware GPUs), both on whichever adapter is under test.
fn both_forms(d: Device, f: fn(Device)) {
    if d.kind() != DeviceKind::WebGpu {
        return f(d);
    }
    for software in [true, false] {
        webtensor::__set_software_kernels(d, Some(software)).unwrap();
        f(d);
    }
    webtensor::__set_software_kernels(d, None).unwrap();
}

fn randn(shape: &[usize], seed: u64, d: Device) -> Tensor {
    Tensor::randn(shape, Some(seed), Device::CPU).unwrap().to_blocking(d).unwrap()
}

fn targets(values: &[i32], shape: &[usize], d: Device) -> Tensor {
    Tensor::from_slice(values, shape, d).unwrap()
}

/// The loss and the scores' gradient (of `loss * r` summed, `r` random) under `mode`.
fn run(mode: FusedKernels, x: &Tensor, t: &Tensor, o: ClassLossOptions) -> (Vec<f32>, Vec<f32>) {
    set_fused_kernels(mode);
    let x = x.detach().requires_grad_(true).unwrap();
    let loss = nn::cross_entropy(&x, t, o).unwrap();
    let r = randn(loss.shape(), 9, loss.device());
    loss.mul(&r).unwrap().sum_all().unwrap().backward().unwrap();
    let out = (f32s(&loss), f32s(&x.grad().unwrap()));
    set_fused_kernels(FusedKernels::Auto);
    out
}

fn check(what: &str, x: &Tensor, t: &Tensor, o: ClassLossOptions) {
    let (loss, grad) = run(FusedKernels::Auto, x, t, o);
    let (want_loss, want_grad) = run(FusedKernels::Never, x, t, o);
    let d = x.device();
    assert_close(&loss, &want_loss, 2e-5, &format!("{what}: loss on {d}"));
    assert_close(&grad, &want_grad, 2e-5, &format!("{what}: gradient on {d}"));
}

fn matches_the_composed_formula(d: Device) {
    let x = randn(&[37, 11], 1, d);
    let labels: Vec<i32> = (0..37).map(|i| i * 7 % 11).collect();
    let mut holes = labels.clone();
    holes[3] = -100;
    holes[20] = -100;
    let t = targets(&labels, &[37], d);
    let th = targets(&holes, &[37], d);
    for reduction in [Reduction::Mean, Reduction::Sum, Reduction::None] {
        for label_smoothing in [0.0, 0.1] {
            let o = ClassLossOptions { reduction, label_smoothing, ..Default::default() };
            check(&format!("{reduction:?}, smoothing {label_smoothing}"), &x, &t, o);
            check(&format!("{reduction:?}, smoothing {label_smoothing}, two ignored"), &x, &th, o);
        }
    }
    let none = ClassLossOptions { ignore_index: None, ..Default::default() };
    check("no ignore_index", &x, &t, none);
    let custom = ClassLossOptions { ignore_index: Some(4), ..Default::default() };
    check("ignore_index 4", &x, &t, custom);
    // Classes in dim 1 of [N, C, d]: moved last, then rows.
    let x3 = randn(&[3, 5, 4], 2, d);
    let t3 = targets(&[0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1], &[3, 4], d);
    check("[N, C, d]", &x3, &t3, ClassLossOptions { reduction: Reduction::None, ..Default::default() });
    // Rows wider than a workgroup (a GPT-2 vocabulary's rows stride over 256 lanes too).
    let wide = randn(&[5, 1000], 3, d).mul_scalar(4.0).unwrap();
    let tw = targets(&[0, 999, 500, 256, 255], &[5], d);
    check("1000 classes", &wide, &tw, ClassLossOptions { label_smoothing: 0.2, ..Default::default() });
    // An unbatched [C] input and a u32 target.
    let tu = Tensor::from_slice(&[3u32], &[], d).unwrap();
    check("[C] with a u32 target", &x.narrow(0, 0, 1).unwrap().reshape(&[11]).unwrap(), &tu, Default::default());
}

fn edges(d: Device) {
    // One class: the loss is 0 and so is the gradient.
    let one = randn(&[4, 1], 4, d);
    check("one class", &one, &targets(&[0, 0, 0, 0], &[4], d), Default::default());
    // A row of -inf scores is NaN, as PyTorch's (and the composed formula's).
    let mut v = vec![0.5f32; 12];
    v[4..8].fill(f32::NEG_INFINITY);
    let x = Tensor::from_slice(&v, &[3, 4], d).unwrap();
    let per = nn::cross_entropy(
        &x,
        &targets(&[1, 2, 3], &[3], d),
        ClassLossOptions { reduction: Reduction::None, ..Default::default() },
    )
    .unwrap();
    let per = f32s(&per);
    assert!(per[1].is_nan() && (per[0] - 4f32.ln()).abs() < 1e-6, "{per:?} on {d}");
    // Every target ignored: the mean is 0/0 = NaN (PyTorch's), the sum 0, the gradient 0.
    let x = randn(&[3, 4], 5, d).requires_grad_(true).unwrap();
    let t = targets(&[-100, -100, -100], &[3], d);
    let mean = nn::cross_entropy(&x, &t, Default::default()).unwrap();
    assert!(f32s(&mean)[0].is_nan(), "on {d}");
    let sum = nn::cross_entropy(&x, &t, ClassLossOptions { reduction: Reduction::Sum, ..Default::default() }).unwrap();
    sum.backward().unwrap();
    assert_eq!(f32s(&sum), [0.0]);
    assert_eq!(f32s(&x.grad().unwrap()), vec![0.0; 12]);
    // A target out of range is an error (on GPUs at the next readback), naming the op; the
    // device and the other tensors stay usable.
    let bad = targets(&[0, 4, 1], &[3], d);
    let result = nn::cross_entropy(&x, &bad, Default::default()).and_then(|l| l.to_vec_blocking::<f32>());
    let e = result.unwrap_err().to_string();
    assert!(e.contains("cross_entropy") && e.contains('4'), "{e}");
    assert_eq!(f32s(&x).len(), 12);
    let ok = nn::cross_entropy(&x, &targets(&[0, 3, 1], &[3], d), Default::default()).unwrap();
    assert!(f32s(&ok)[0].is_finite());
}

fn keeps_one_value_per_row(d: Device) {
    let (rows, classes) = (512, 256);
    let x = randn(&[rows, classes], 6, d).requires_grad_(true).unwrap();
    let labels: Vec<i32> = (0..rows).map(|i| (i % classes) as i32).collect();
    let t = targets(&labels, &[rows], d);
    webtensor::synchronize_blocking(d).unwrap();
    let before = webtensor::memory_allocated(d).unwrap();
    let per = nn::cross_entropy(&x, &t, ClassLossOptions { reduction: Reduction::None, ..Default::default() }).unwrap();
    webtensor::synchronize_blocking(d).unwrap();
    let held = webtensor::memory_allocated(d).unwrap() - before;
    // The losses and log-sum-exps (2 per row) and the i32 targets' copy at most: nothing of
    // [rows, classes] (the composed path kept the log-probabilities, 512 KB here).
    assert!(held <= (4 * rows * 4) as u64, "{held} bytes held after the forward on {d}");
    per.sum_all().unwrap().backward().unwrap();
    let g = f32s(&x.grad().unwrap());
    assert_eq!(g.len(), rows * classes);
    // Each row's gradient is softmax - onehot: it sums to 0.
    for r in [0, 255, 511] {
        let s: f32 = g[r * classes..(r + 1) * classes].iter().sum();
        assert!(s.abs() < 1e-5, "row {r} on {d}: {s}");
    }
    if d.kind() == DeviceKind::Cpu {
        let e = nn::cross_entropy(&x, &targets(&[1], &[1], d), Default::default()).unwrap_err().to_string();
        assert!(e.contains("shape") || e.contains("expected"), "{e}");
    }
    let h = x.detach().to_dtype(DType::F16);
    if let Ok(h) = h {
        // f16 scores take the composed path (the fused kernel is f32).
        let l = nn::cross_entropy(&h, &t, Default::default()).unwrap();
        assert!(f32s(&l.to_dtype(DType::F32).unwrap())[0].is_finite(), "f16 on {d}");
    }
}
