//! Memory that must come back to its baseline after backward passes and over 1,000 training
//! steps, and the launches an optimizer step costs (a fused kernel per eight parameters on wgpu
//! on a GPU, per parameter on CUDA and the CPU adapters). The
//! counters are per device, so the trials run one at a time (in parallel they would allocate and
//! launch on the same device meanwhile).
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::*;

use webtensor::nn::{self, ClassLossOptions, Linear, LinearOptions, Module, Sequential};
use webtensor::optim::{Adam, AdamOptions, AdamW, Optimizer, SgdOptions, SGD};
use webtensor::{Device, Tensor};

/// One trial per measurement and device (an absent GPU's reported ignored), one at a time.
fn main() {
    use common::trials::{device_trials, run_in_order};
    let mut t = device_trials("memory_returns_after_backward", memory_returns_after_backward);
    t.extend(device_trials("memory_is_flat_over_1000_steps", memory_is_flat_over_1000_steps));
    t.extend(device_trials("a_parameter_gradient_holds_only_itself", a_parameter_gradient_holds_only_itself));
    t.extend(device_trials("a_linear_after_gelu_keeps_no_activation", a_linear_after_gelu_keeps_no_activation));
    t.extend(device_trials(
        "a_fused_step_is_one_launch_per_eight_parameters",
        a_fused_step_is_one_launch_per_eight_parameters,
    ));
    run_in_order(t)
}

fn leaf(data: &[f32], shape: &[usize], d: Device) -> Tensor {
    t(data, shape, d).requires_grad_(true).unwrap()
}

fn memory_returns_after_backward(d: Device) {
    let x = leaf(&vec![0.5; 4096], &[64, 64], d);
    let w = leaf(&vec![0.25; 4096], &[64, 64], d);
    let run = || {
        let y = x.matmul(&w).unwrap().relu().unwrap().softmax(-1).unwrap().sum_all().unwrap();
        y.backward().unwrap();
        x.set_grad(None).unwrap();
        w.set_grad(None).unwrap();
    };
    run();
    webtensor::synchronize_blocking(d).unwrap();
    let before = webtensor::memory_allocated(d).unwrap();
    for _ in 0..20 {
        run();
    }
    webtensor::synchronize_blocking(d).unwrap();
    assert_eq!(webtensor::memory_allocated(d).unwrap(), before, "graphs and their saved tensors are freed on {d}");
}

/// LayerNorm's fused backward writes dx, dw and db into one result; the weight's and bias's
/// `.grad`, held until the next zero_grad, must not keep the input's gradient (4 MiB here)
/// alive with them.
fn a_parameter_gradient_holds_only_itself(d: Device) {
    let (rows, n) = (4096, 256);
    webtensor::synchronize_blocking(d).unwrap();
    let base = webtensor::memory_allocated(d).unwrap();
    let w = leaf(&vec![1.5; n], &[n], d);
    let b = leaf(&vec![0.5; n], &[n], d);
    {
        let x = Tensor::randn(&[rows, n], Some(2), d).unwrap().requires_grad_(true).unwrap();
        let y = nn::layer_norm(&x, &[n], Some(&w), Some(&b), 1e-5).unwrap();
        y.mul(&y).unwrap().sum_all().unwrap().backward().unwrap();
        assert!(x.grad().is_some() && w.grad().is_some() && b.grad().is_some());
    }
    webtensor::synchronize_blocking(d).unwrap();
    let held = webtensor::memory_allocated(d).unwrap() - base;
    // w, b and their gradients: four blocks of 1 KiB (a few size classes on GPUs), not 4 MiB.
    assert!(held < 64 << 10, "{held} bytes held on {d} by two [{n}] parameters and their gradients");
    let gw = w.grad().unwrap().to_vec_blocking::<f32>().unwrap();
    assert!(gw.iter().all(|v| v.is_finite()) && gw.iter().any(|&v| v != 0.0), "the gradient still reads on {d}");
}

/// Linear -> GELU -> Linear, as nanoGPT's MLP: the second Linear's weight gradient needs the
/// GELU's output, which it recomputes from the GELU's input (kept by the GELU's rule anyway)
/// instead of keeping the output through the forward. The gradients are those of a product
/// that keeps its operand (the same GELU, made a different tensor by `* 1`).
fn a_linear_after_gelu_keeps_no_activation(d: Device) {
    let opts = LinearOptions { device: Some(d), seed: Some(5), ..Default::default() };
    let (fc, proj) = (Linear::new(16, 1024, opts).unwrap(), Linear::new(1024, 16, opts).unwrap());
    let x = Tensor::randn(&[4, 128, 16], Some(6), d).unwrap();
    let hidden_bytes = 4 * 128 * 1024 * 4;
    let run = |keep: bool| {
        webtensor::synchronize_blocking(d).unwrap();
        let base = webtensor::memory_allocated(d).unwrap();
        let g = fc.forward(&x).unwrap().gelu().unwrap();
        let g = if keep { g.mul_scalar(1.0).unwrap() } else { g };
        let loss = proj.forward(&g).unwrap().square().unwrap().sum_all().unwrap();
        drop(g);
        webtensor::synchronize_blocking(d).unwrap();
        let held = webtensor::memory_allocated(d).unwrap() - base;
        loss.backward().unwrap();
        let grads: Vec<Vec<f32>> = [fc.weight(), proj.weight()]
            .iter()
            .map(|p| {
                let g = p.tensor().grad().unwrap().to_vec_blocking::<f32>().unwrap();
                p.tensor().set_grad(None).unwrap();
                g
            })
            .collect();
        (held, grads)
    };
    let (held, grads) = run(false);
    let (held_kept, kept) = run(true);
    assert!(held_kept >= 2 * hidden_bytes, "the reference keeps both [512, 1024] tensors on {d}: {held_kept}");
    assert!(
        held < hidden_bytes + hidden_bytes / 2,
        "{held} bytes held after the forward on {d}: the GELU's input ({hidden_bytes}) and not its output"
    );
    for (a, b) in grads.iter().zip(&kept) {
        assert_close(a, b, 1e-5, &format!("the weights' gradients with the GELU recomputed on {d}"));
    }
}

fn memory_is_flat_over_1000_steps(d: Device) {
    let opts = LinearOptions { device: Some(d), seed: Some(3), ..Default::default() };
    let model = Sequential::new()
        .push(Linear::new(16, 32, opts).unwrap())
        .unwrap()
        .push(nn::GELU::new())
        .unwrap()
        .push(Linear::new(32, 4, opts).unwrap())
        .unwrap();
    let x = Tensor::randn(&[64, 16], Some(1), d).unwrap();
    let y = Tensor::from_slice(&(0..64).map(|i| i % 4).collect::<Vec<i32>>(), &[64], d).unwrap();
    let mut opt = Adam::new(model.parameters(), AdamOptions { lr: 1e-3, ..Default::default() }).unwrap();
    let mut step = || {
        opt.zero_grad();
        let loss = nn::cross_entropy(&model.forward(&x).unwrap(), &y, ClassLossOptions::default()).unwrap();
        loss.backward().unwrap();
        opt.step().unwrap();
    };
    for _ in 0..5 {
        step();
    }
    webtensor::synchronize_blocking(d).unwrap();
    let base = webtensor::memory_allocated(d).unwrap();
    for _ in 0..1000 {
        step();
    }
    webtensor::synchronize_blocking(d).unwrap();
    assert_eq!(webtensor::memory_allocated(d).unwrap(), base, "memory after 1000 steps on {d}");
}

fn software(d: Device) -> bool {
    webtensor::devices().iter().any(|i| i.device == d && i.software)
}

fn a_fused_step_is_one_launch_per_eight_parameters(d: Device) {
    let model = relu_mlp(8, 16, 4, Some(4), d);
    let x = Tensor::randn(&[32, 8], Some(2), d).unwrap();
    let n = model.parameters().len() as u64;
    let sgd = |fused, momentum| SgdOptions { lr: 0.1, momentum, weight_decay: 1e-3, fused, ..Default::default() };
    let adam = |fused| AdamOptions { lr: 1e-3, weight_decay: 0.01, fused, ..Default::default() };
    let cases: Vec<(&str, bool, Box<dyn Optimizer>)> = vec![
        ("SGD", true, Box::new(SGD::new(model.parameters(), sgd(true, 0.0)).unwrap())),
        ("SGD momentum", true, Box::new(SGD::new(model.parameters(), sgd(true, 0.9)).unwrap())),
        ("Adam", true, Box::new(Adam::new(model.parameters(), adam(true)).unwrap())),
        ("AdamW", true, Box::new(AdamW::new(model.parameters(), adam(true)).unwrap())),
        ("Adam, separate ops", false, Box::new(Adam::new(model.parameters(), adam(false)).unwrap())),
    ];
    for (name, fused, mut opt) in cases {
        for step in 0..3 {
            opt.zero_grad();
            model.forward(&x).unwrap().square().unwrap().mean_all().unwrap().backward().unwrap();
            // The backward pass's recorded elementwise results run first (lazy tier).
            webtensor::synchronize_blocking(d).unwrap();
            let before = webtensor::kernel_launches(d).unwrap();
            opt.step().unwrap();
            // With what the step recorded run too: the separate ops' chains are recorded by
            // the lazy tier on WebGPU (about ten ops a parameter, three kernels: the moments
            // and the parameter; on the first step two fills of zeros beside them).
            webtensor::synchronize_blocking(d).unwrap();
            let launches = webtensor::kernel_launches(d).unwrap() - before;
            match (d.kind(), fused) {
                (webtensor::DeviceKind::Cpu, _) => assert_eq!(launches, 0, "the cpu launches no kernels"),
                // CUDA launches a kernel per parameter, as wgpu on a CPU adapter (lavapipe,
                // SwiftShader: the multi-tensor kernel measured slower there); wgpu on a GPU
                // up to eight parameters a launch.
                (webtensor::DeviceKind::Cuda, true) => {
                    assert_eq!(launches, n, "{name} step {step} on {d}: one launch per parameter")
                }
                (_, true) if software(d) => assert_eq!(launches, n, "{name} step {step} on {d}: a launch each"),
                (_, true) => assert_eq!(launches, n.div_ceil(8), "{name} step {step} on {d}: one launch"),
                (webtensor::DeviceKind::Cuda, false) => {
                    assert!(launches >= 8 * n, "{name} step {step} on {d}: {launches} launches")
                }
                (_, false) if webtensor::lazy_elementwise() => {
                    let most = if step == 0 { 5 * n } else { 3 * n };
                    assert!(launches <= most && launches >= n, "{name} step {step} on {d}: {launches} launches")
                }
                (_, false) => assert!(launches >= 8 * n, "{name} step {step} on {d}: {launches} launches"),
            }
        }
    }
}
