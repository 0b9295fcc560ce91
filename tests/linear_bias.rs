//! Issue 44's matmul epilogue: `F.linear` with a bias runs the bias inside the product's kernel
//! (`addmm`), on every matmul program by shape (tiled, the blocked programs of the software
//! adapters, naive, dot, split-K, an empty inner dim, batch dims folded into rows, f16), with a
//! bias that is a view at an offset. Each is checked against the same product and add composed
//! (itself checked against PyTorch by the nn fixtures), forward and gradients; and that on
//! WebGPU the bias costs no launch of its own.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::*;

use webtensor::nn::linear;
use webtensor::{kernel_launches, set_lazy_elementwise, DType, Device, Tensor};

fn main() {
    use common::trials::{device_trials, gpu_trial, no_f16_trial, run_in_order};
    let mut t = device_trials("epilogue_matches_product_and_add", epilogue_matches_product_and_add);
    t.push(no_f16_trial("epilogue_matches_product_and_add", epilogue_matches_product_and_add));
    t.push(gpu_trial("the_bias_costs_no_launch_of_its_own", the_bias_costs_no_launch_of_its_own));
    // Launch counts are per device: one trial at a time.
    run_in_order(t)
}

fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n).map(|i| (((i * 37 + seed * 101) % 211) as f32 / 105.0 - 1.0) * 0.5).collect()
}

fn leaf(shape: &[usize], seed: usize, d: Device) -> Tensor {
    let n = shape.iter().product();
    Tensor::from_vec(values(n, seed), shape, d).unwrap().requires_grad_(true).unwrap()
}

/// `x [.., k]`, `w [n, k]` and a bias of `n` taken at an offset of a longer vector.
fn operands(x: &[usize], n: usize, d: Device, dtype: DType) -> (Tensor, Tensor, Tensor) {
    let k = *x.last().unwrap();
    let cast = |t: Tensor| {
        if dtype == DType::F32 {
            t
        } else {
            t.to_dtype(dtype).unwrap().detach().requires_grad_(true).unwrap()
        }
    };
    let long = Tensor::from_vec(values(n + 5, 3), &[n + 5], d).unwrap();
    let bias = cast(long.narrow(0, 3, n).unwrap().detach().requires_grad_(true).unwrap());
    (cast(leaf(x, 1, d)), cast(leaf(&[n, k], 2, d)), bias)
}

/// Forward and every gradient (of a weighted sum) of the epilogue against product + add.
fn compare(what: &str, x: &[usize], n: usize, d: Device, dtype: DType, tol: f32) {
    let run = |fused: bool| {
        let (x, w, b) = operands(x, n, d, dtype);
        let y =
            if fused { linear(&x, &w, Some(&b)).unwrap() } else { x.matmul(&w.t().unwrap()).unwrap().add(&b).unwrap() };
        let r = Tensor::from_vec(values(y.numel(), 4), y.shape(), d).unwrap().to_dtype(dtype).unwrap();
        y.mul(&r).unwrap().sum_all().unwrap().backward().unwrap();
        [y, x.grad().unwrap(), w.grad().unwrap(), b.grad().unwrap()].map(|t| f32s(&t))
    };
    let (got, want) = (run(true), run(false));
    for (name, (g, w)) in
        ["output", "x's gradient", "weight's gradient", "bias's gradient"].iter().zip(got.iter().zip(&want))
    {
        assert_close(g, w, tol, &format!("{what} on {d}: {name}"));
    }
}

fn epilogue_matches_product_and_add(d: Device) {
    // Tiled (Blocked/Blocked4 on software adapters, Register on hardware past its tile count).
    compare("[70, 130] @ [130, 257]^T", &[70, 130], 257, d, DType::F32, 1e-5);
    compare("[3, 20, 40] (batch folded) @ [40, 64]^T", &[3, 20, 40], 64, d, DType::F32, 1e-5);
    compare("[300, 256] @ [256, 256]^T", &[300, 256], 256, d, DType::F32, 1e-5);
    // Naive: a short inner dim, and a thin output.
    compare("k = 3", &[1000, 3], 8, d, DType::F32, 1e-5);
    compare("n = 1", &[300, 50], 1, d, DType::F32, 1e-5);
    // Dot: few outputs over a long inner dim.
    compare("[4, 5000] @ [5000, 2]", &[4, 5000], 2, d, DType::F32, 1e-5);
    // Split-K on GPUs: few tiles, a long inner dim.
    compare("[40, 4200] @ [4200, 70]", &[40, 4200], 70, d, DType::F32, 1e-4);
    // Nothing to sum: the output is the bias.
    compare("k = 0", &[5, 0], 6, d, DType::F32, 0.0);
    compare("no rows", &[0, 7], 6, d, DType::F32, 0.0);
    if d == Device::CPU || has_f16(d) {
        compare("f16 [33, 40] @ [40, 20]^T", &[33, 40], 20, d, DType::F16, 2e-3);
    }
    // What stays composed: an integer product, a bias of another shape (broadcast as add does).
    let xi = Tensor::from_vec(vec![1i32, 2, 3, 4], &[2, 2], d).unwrap();
    let got = linear(&xi, &xi, Some(&Tensor::from_vec(vec![10i32, 20], &[2], d).unwrap())).unwrap();
    assert_eq!(i32s(&got), vec![15, 31, 21, 45], "integers on {d}");
    let x = t(&[1.0, 2.0, 3.0, 4.0], &[2, 2], d);
    let column = t(&[10.0, 20.0], &[2, 1], d);
    assert_eq!(f32s(&linear(&x, &x, Some(&column)).unwrap()), vec![15.0, 21.0, 31.0, 45.0], "a [2, 1] bias on {d}");
}

fn the_bias_costs_no_launch_of_its_own(d: Device) {
    // Op by op, so that the add is not left pending by the lazy tier.
    set_lazy_elementwise(false);
    let (x, w, b) = operands(&[64, 96], 48, d, DType::F32);
    let (x, w, b) = (x.detach(), w.detach(), b.detach());
    let launches = |f: &dyn Fn() -> Tensor| {
        let before = kernel_launches(d).unwrap();
        let y = f();
        webtensor::synchronize_blocking(d).unwrap();
        (kernel_launches(d).unwrap() - before, y)
    };
    let (fused, y1) = launches(&|| linear(&x, &w, Some(&b)).unwrap());
    let (plain, y2) = launches(&|| x.matmul(&w.t().unwrap()).unwrap());
    let (composed, y3) = launches(&|| x.matmul(&w.t().unwrap()).unwrap().add(&b).unwrap());
    set_lazy_elementwise(true);
    assert_eq!(fused, plain, "linear with a bias launches what the product alone does on {d}");
    assert_eq!(composed, plain + 1, "the composed add is a launch of its own on {d}");
    assert_close(&f32s(&y1), &f32s(&y3), 1e-6, "fused vs composed");
    assert_ne!(f32s(&y1), f32s(&y2), "the bias was added");
}
