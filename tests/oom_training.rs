//! Out of memory in a training step: a memory limit that a full batch's step passes makes the
//! step fail with `OutOfMemory` naming the device, the bytes asked and in use, and the advice
//! (smaller batch, gradient accumulation); the model, the optimizer and the data are intact; and
//! retrying with half the batch and two accumulation steps reaches the full batch's update.
//! Memory limits and counters are per device, so the devices' trials run one at a time.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::*;

use webtensor::nn::{self, ClassLossOptions, Module, Sequential};
use webtensor::optim::{Optimizer, SgdOptions, SGD};
use webtensor::{Device, Error, Tensor};

/// One trial per device (an absent GPU's reported ignored), one at a time: the memory limit
/// and counters are the device's.
fn main() {
    use common::trials::{device_trials, run_in_order};
    run_in_order(device_trials("a_step_past_the_memory_limit_retries_with_half_batches", retry_with_accumulation))
}

const ROWS: usize = 512;

fn loss_of(model: &Sequential, x: &Tensor, y: &Tensor) -> webtensor::Result<Tensor> {
    nn::cross_entropy(&model.forward(x)?, y, ClassLossOptions::default())
}

/// One step over the whole batch.
fn full_step(model: &Sequential, opt: &mut SGD, x: &Tensor, y: &Tensor) -> webtensor::Result<()> {
    opt.zero_grad();
    loss_of(model, x, y)?.backward()?;
    opt.step()
}

/// The same update from `parts` micro-batches: each mean loss weighted by 1/parts, gradients
/// accumulated by the backward passes, one optimizer step.
fn accumulated_step(model: &Sequential, opt: &mut SGD, x: &Tensor, y: &Tensor, parts: usize) -> webtensor::Result<()> {
    opt.zero_grad();
    for (xs, ys) in x.chunk(parts, 0)?.iter().zip(y.chunk(parts, 0)?) {
        loss_of(model, xs, &ys)?.mul_scalar(1.0 / parts as f64)?.backward()?;
    }
    opt.step()
}

fn weights(m: &Sequential) -> Vec<Vec<f32>> {
    m.parameters().iter().map(|p| f32s(&p.tensor().to_blocking(Device::CPU).unwrap())).collect()
}

/// The peak bytes a step over `x` allocates above what was allocated before it.
fn peak_of(d: Device, run: impl FnOnce()) -> u64 {
    webtensor::synchronize_blocking(d).unwrap();
    webtensor::empty_cache(d).unwrap();
    let base = webtensor::memory_allocated(d).unwrap();
    webtensor::reset_peak_memory_stats(d).unwrap();
    run();
    webtensor::synchronize_blocking(d).unwrap();
    webtensor::max_memory_allocated(d).unwrap() - base
}

fn retry_with_accumulation(d: Device) {
    let x = Tensor::randn(&[ROWS, 64], Some(1), d).unwrap();
    let labels: Vec<i32> = (0..ROWS as i32).map(|i| i * 7 % 10).collect();
    let y = Tensor::from_slice(&labels, &[ROWS], d).unwrap();
    let sgd = SgdOptions { lr: 0.5, momentum: 0.9, ..Default::default() };
    let build = || relu_mlp(64, 1024, 10, Some(2), d);

    // The update to reach: one step over the whole batch, no limit.
    let reference = build();
    let mut ref_opt = SGD::new(reference.parameters(), sgd).unwrap();
    full_step(&reference, &mut ref_opt, &x, &y).unwrap();
    full_step(&reference, &mut ref_opt, &x, &y).unwrap();
    let want = weights(&reference);

    // What a full and a half batch's step need beyond the model, measured on a probe.
    let probe = build();
    let mut probe_opt = SGD::new(probe.parameters(), sgd).unwrap();
    let full = peak_of(d, || full_step(&probe, &mut probe_opt, &x, &y).unwrap());
    let half = peak_of(d, || accumulated_step(&probe, &mut probe_opt, &x, &y, 2).unwrap());
    assert!(half < full, "{d}: half batches need less at their peak ({half} against {full} bytes)");
    drop((probe, probe_opt));

    let model = build();
    let mut opt = SGD::new(model.parameters(), sgd).unwrap();
    // A first step without a limit makes the momentum state, which must survive the failure.
    full_step(&model, &mut opt, &x, &y).unwrap();
    let before = weights(&model);
    webtensor::synchronize_blocking(d).unwrap();
    webtensor::empty_cache(d).unwrap();
    let base = webtensor::memory_allocated(d).unwrap();
    webtensor::set_memory_limit(d, Some(base + (half + full) / 2)).unwrap();

    let e = full_step(&model, &mut opt, &x, &y).unwrap_err();
    assert!(matches!(e, Error::OutOfMemory { .. }), "{d}: {e:?}");
    let msg = e.to_string();
    for part in [d.to_string().as_str(), "tried to allocate", "allocated", "smaller batch", "accumulate gradients"] {
        assert!(msg.contains(part), "{d}: the error should say '{part}': {msg}");
    }
    // Intact: the weights, the data, the device.
    assert_eq!(weights(&model), before, "{d}: a failed step changes no weight");
    assert_eq!(i32s(&y), labels, "{d}: the labels are intact");
    assert_eq!(x.shape(), &[ROWS, 64]);

    // The retry the message suggests: half the batch, two accumulation steps, the same update.
    accumulated_step(&model, &mut opt, &x, &y, 2).unwrap();
    webtensor::set_memory_limit(d, None).unwrap();
    let got = weights(&model);
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_close(g, w, 2e-5, &format!("{d}: parameter {k} after the retried step"));
    }
}
