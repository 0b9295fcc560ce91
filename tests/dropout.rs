//! Fused dropout (`op::fill::DropoutArgs`: one kernel each way) against the composed formula it
//! replaces, written out here with tensor ops, on every device: the same elements kept and the
//! same values, forward and gradient, over contiguous, transposed and offset inputs, non-finite
//! values and f16 where the device has it; what it keeps alive for backward (nothing but its
//! output); and the launches it costs. The counters are per device, so the trials run one at a time.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::*;

use webtensor::{nn, DType, Device, DeviceKind, Tensor};

fn main() {
    use common::trials::{device_trials, run_in_order};
    let mut t = device_trials("fused_dropout_matches_the_composed_formula", fused_dropout_matches_the_composed_formula);
    t.extend(device_trials("dropout_keeps_nothing_for_backward", dropout_keeps_nothing_for_backward));
    run_in_order(t)
}

fn randn(shape: &[usize], seed: u64, d: Device) -> Tensor {
    Tensor::randn(shape, Some(seed), Device::CPU).unwrap().to_blocking(d).unwrap()
}

/// `x * ((rand(shape, seed) >= p) / (1 - p))` by separate ops: the formula the fused kernel
/// replaces (samples compared with p as f32, as the kernel and fused attention compare them).
fn composed(x: &Tensor, p: f64, seed: u64) -> Tensor {
    let keep = Tensor::rand(x.shape(), Some(seed), x.device()).unwrap().ge_scalar(f64::from(p as f32)).unwrap();
    x.mul(&keep.to_dtype(x.dtype()).unwrap().mul_scalar(1.0 / (1.0 - p)).unwrap()).unwrap()
}

/// Output and input gradient of `(f(x) * r).sum()` as f32.
fn grads(x: &Tensor, f: impl Fn(&Tensor) -> Tensor) -> (Vec<f32>, Vec<f32>) {
    let x = x.detach().requires_grad_(true).unwrap();
    let y = f(&x);
    let r = randn(y.shape(), 42, y.device()).to_dtype(y.dtype()).unwrap();
    y.mul(&r).unwrap().sum_all().unwrap().backward().unwrap();
    let g = x.grad().unwrap().to_dtype(DType::F32).unwrap();
    (f32s(&y.to_dtype(DType::F32).unwrap()), f32s(&g))
}

fn fused_dropout_matches_the_composed_formula(d: Device) {
    let base = randn(&[37, 65], 1, d);
    let big = randn(&[4099], 2, d);
    let cases: Vec<(&str, Tensor)> = vec![
        ("contiguous", base.clone()),
        ("transposed", base.t().unwrap()),
        ("offset view", big.narrow(0, 7, 4000).unwrap()),
        ("one element", big.narrow(0, 3, 1).unwrap()),
        ("empty", big.narrow(0, 0, 0).unwrap()),
    ];
    for (what, x) in &cases {
        for (p, seed) in [(0.1, 3u64), (0.5, 11), (0.9, 0xDEAD_BEEF_0123)] {
            let (y, gx) = grads(x, |x| nn::dropout(x, p, true, Some(seed)).unwrap());
            let (want_y, want_gx) = grads(x, |x| composed(x, p, seed));
            assert_eq!(y, want_y, "{what}, p {p}, on {d}: the same elements kept, the same values");
            assert_eq!(gx, want_gx, "{what}, p {p}, on {d}: the gradient is the same mask and scale");
        }
    }
    // Non-finite inputs are multiplied by 0 where dropped, as PyTorch's kernels and the
    // composed formula do: a dropped infinity or NaN is NaN.
    let special = Tensor::from_slice(&[f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1.0].repeat(64), &[256], d).unwrap();
    let bits = |v: Vec<f32>| v.into_iter().map(|e| if e.is_nan() { u32::MAX } else { e.to_bits() }).collect::<Vec<_>>();
    let y = nn::dropout(&special, 0.5, true, Some(2)).unwrap();
    assert_eq!(bits(f32s(&y)), bits(f32s(&composed(&special, 0.5, 2))), "non-finite inputs on {d}");
    // The same seed drops the same elements on every device.
    let on_cpu = nn::dropout(&base.to_blocking(Device::CPU).unwrap(), 0.3, true, Some(5)).unwrap();
    assert_eq!(f32s(&nn::dropout(&base, 0.3, true, Some(5)).unwrap()), f32s(&on_cpu), "{d} and the cpu");
    // f16 computes in f32 and rounds once, where the composed formula rounds the scale first.
    if d.kind() == DeviceKind::Cpu || has_f16(d) {
        let h = base.to_dtype(DType::F16).unwrap();
        let (y, gx) = grads(&h, |x| nn::dropout(x, 0.25, true, Some(7)).unwrap());
        let (want_y, want_gx) = grads(&h, |x| composed(x, 0.25, 7));
        assert_close(&y, &want_y, 2e-3, &format!("f16 dropout on {d}"));
        assert_close(&gx, &want_gx, 2e-3, &format!("f16 dropout's gradient on {d}"));
        let zeros = |v: &[f32]| v.iter().map(|&e| e == 0.0).collect::<Vec<_>>();
        assert_eq!(zeros(&y), zeros(&want_y), "f16 on {d}: the same elements dropped");
    }
    // Errors leave the input usable.
    let e = nn::dropout(&Tensor::ones(&[3], DType::I32, d).unwrap(), 0.5, true, None).unwrap_err().to_string();
    assert!(e.contains("floating-point"), "{e}");
    let e = nn::dropout(&base, 1.5, true, None).unwrap_err().to_string();
    assert!(e.contains("[0, 1]"), "{e}");
    assert_eq!(f32s(&base).len(), 37 * 65);
}

fn dropout_keeps_nothing_for_backward(d: Device) {
    let x = randn(&[256, 256], 3, d).requires_grad_(true).unwrap();
    let bytes = (256 * 256 * 4) as u64;
    webtensor::synchronize_blocking(d).unwrap();
    let before = webtensor::memory_allocated(d).unwrap();
    let launches = webtensor::kernel_launches(d).unwrap();
    let y = nn::dropout(&x, 0.2, true, Some(1)).unwrap();
    webtensor::synchronize_blocking(d).unwrap();
    // The output, and no mask or multiplier tensor held by the graph (the composed formula
    // kept an f32 multiplier per element).
    assert_eq!(webtensor::memory_allocated(d).unwrap() - before, bytes, "dropout's forward on {d}");
    if d.kind() != DeviceKind::Cpu {
        assert_eq!(webtensor::kernel_launches(d).unwrap() - launches, 1, "one launch forward on {d}");
    }
    let launches = webtensor::kernel_launches(d).unwrap();
    let ones = Tensor::ones(&[256, 256], DType::F32, d).unwrap();
    let launches_after_ones = webtensor::kernel_launches(d).unwrap();
    y.backward_with(Some(&ones), Default::default()).unwrap();
    let grad = f32s(&x.grad().unwrap());
    if d.kind() != DeviceKind::Cpu {
        // One dropout launch for the gradient.
        assert_eq!(webtensor::kernel_launches(d).unwrap() - launches_after_ones, 1, "one launch backward on {d}");
        assert!(launches_after_ones >= launches);
    }
    let kept = f32s(&y).iter().map(|&v| v != 0.0).collect::<Vec<_>>();
    assert!(grad.iter().zip(&kept).all(|(&g, &k)| if k { (g - 1.25).abs() < 1e-6 } else { g == 0.0 }));
}
