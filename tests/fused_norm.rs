//! The fused LayerNorm kernel (op::layer_norm) against the composed formula it replaces,
//! written out here with tensor ops, on every device: output and the gradients of the input,
//! the weight and the bias, with and without an affine, over one and two normalised dims, a
//! strided input and rows of one element. PyTorch's own values are in tests/nn_fixtures.rs and
//! the GPT fixtures, which now run the fused kernel.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

use webtensor::nn;
use webtensor::{Device, Tensor};

device_main!(fused_layer_norm_matches_the_composed_formula);

fn randn(shape: &[usize], seed: u64, d: Device) -> Tensor {
    Tensor::randn(shape, Some(seed), Device::CPU).unwrap().to_blocking(d).unwrap()
}

/// `(x - mean) / sqrt(var + eps) * w + b` over the last `k` dims, by separate ops.
fn composed(x: &Tensor, k: usize, w: Option<&Tensor>, b: Option<&Tensor>, eps: f64) -> Tensor {
    let dims: Vec<isize> = (-(k as isize)..0).collect();
    let mean = x.mean(&dims, true).unwrap();
    let c = x.sub(&mean).unwrap();
    let var = c.square().unwrap().mean(&dims, true).unwrap();
    let mut y = c.mul(&var.add_scalar(eps).unwrap().rsqrt().unwrap()).unwrap();
    if let Some(w) = w {
        y = y.mul(w).unwrap();
    }
    if let Some(b) = b {
        y = y.add(b).unwrap();
    }
    y
}

/// Output and gradients of `(f(x, w, b) * r).sum()`.
fn grads(
    x: &Tensor,
    w: Option<&Tensor>,
    b: Option<&Tensor>,
    f: impl Fn(&Tensor, Option<&Tensor>, Option<&Tensor>) -> Tensor,
) -> Vec<Vec<f32>> {
    let leaf = |t: &Tensor| t.detach().requires_grad_(true).unwrap();
    let (x, w, b) = (leaf(x), w.map(leaf), b.map(leaf));
    let y = f(&x, w.as_ref(), b.as_ref());
    let r = randn(y.shape(), 42, y.device());
    y.mul(&r).unwrap().sum_all().unwrap().backward().unwrap();
    let mut out = vec![f32s(&y), f32s(&x.grad().unwrap())];
    out.extend([w, b].iter().flatten().map(|t| f32s(&t.grad().unwrap())));
    out
}

fn fused_layer_norm_matches_the_composed_formula(d: Device) {
    if d.kind() != webtensor::DeviceKind::WebGpu {
        return check(d);
    }
    // wgpu has a form for software adapters (a thread per row) and one for hardware GPUs (a
    // workgroup per row): both run on whichever adapter is under test.
    for software in [true, false] {
        webtensor::__set_software_kernels(d, Some(software)).unwrap();
        check(d);
    }
    webtensor::__set_software_kernels(d, None).unwrap();
}

fn check(d: Device) {
    let eps = 1e-5;
    // (input shape, normalised dims, weight, bias): rows past one chunk of the GPU programs'
    // weight-gradient partials (64) and rows longer than a workgroup (256) among them.
    let cases: [(&[usize], usize, bool, bool); 7] = [
        (&[4, 7, 48], 1, true, true),
        (&[3, 130], 1, true, false),
        (&[2, 5, 6, 8], 2, true, true),
        (&[9, 33], 1, false, false),
        (&[6, 1], 1, true, true),
        (&[3, 100, 40], 1, true, true),
        (&[130, 520], 1, true, true),
    ];
    for (i, &(shape, k, has_w, has_b)) in cases.iter().enumerate() {
        let what = format!("{shape:?} over {k} dims, weight {has_w}, bias {has_b} on {d}");
        let x = randn(shape, i as u64, d).mul_scalar(3.0).unwrap().add_scalar(1.5).unwrap();
        let norm = &shape[shape.len() - k..];
        let w = has_w.then(|| randn(norm, 100 + i as u64, d));
        let b = has_b.then(|| randn(norm, 200 + i as u64, d));
        let fused = grads(&x, w.as_ref(), b.as_ref(), |x, w, b| {
            let y = nn::layer_norm(x, norm, w, b, eps).unwrap();
            assert_eq!(y.grad_fn(), Some("layer_norm"), "{what}: the fused kernel ran");
            y
        });
        let reference = grads(&x, w.as_ref(), b.as_ref(), |x, w, b| composed(x, k, w, b, eps));
        for (j, (f, r)) in fused.iter().zip(&reference).enumerate() {
            assert_close(f, r, 2e-4, &format!("{what}: result {j}"));
        }
    }
    // A strided input (a transposed view) normalises its logical rows.
    let x = randn(&[16, 10], 7, d).transpose(0, 1).unwrap();
    let w = randn(&[16], 8, d);
    let got = f32s(&nn::layer_norm(&x, &[16], Some(&w), None, eps).unwrap());
    assert_close(&got, &f32s(&composed(&x, 1, Some(&w), None, eps)), 2e-4, "strided input");
}
