//! `webtensor::parallel::DataParallel`: replicas on several devices train to the weights one
//! device reaches on the same global batches (two logical devices on one adapter; the CPU beside
//! them with an uneven split; `cuda:0` beside a GPU where there is one), and its errors. Its own
//! binary: the logical split must come before any GPU is used.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

use std::sync::OnceLock;

use webtensor::nn::{self, BatchNorm1d, BatchNormOptions, ClassLossOptions, Linear, LinearOptions, Module, Sequential};
use webtensor::optim::{Adam, AdamOptions, Optimizer, SgdOptions, SGD};
use webtensor::parallel::{split_sizes, DataParallel};
use webtensor::{Device, LogicalDeviceConfig, Tensor};

/// The adapter under test split into two logical devices (once per process), or `None`
/// without a GPU.
fn logical_pair() -> Option<(Device, Device)> {
    static PAIR: OnceLock<Option<(Device, Device)>> = OnceLock::new();
    *PAIR.get_or_init(|| {
        let g = gpu()?;
        let cfg = [LogicalDeviceConfig { memory_limit: None }, LogicalDeviceConfig { memory_limit: None }];
        webtensor::set_logical_device_configuration(g, &cfg).expect("split the adapter in two");
        Some((Device::webgpu(g.ordinal()), Device::webgpu(g.ordinal() + 1)))
    })
}

/// A fixed data set: 60 rows of 6 features, 3 classes.
fn data() -> (Tensor, Tensor) {
    let x = Tensor::randn(&[60, 6], Some(11), Device::CPU).unwrap();
    let labels: Vec<i32> = (0..60).map(|i| i * 7 % 3).collect();
    (x, Tensor::from_slice(&labels, &[60], Device::CPU).unwrap())
}

fn loss_fn(out: &Tensor, y: &Tensor) -> webtensor::Result<Tensor> {
    nn::cross_entropy(out, y, ClassLossOptions::default())
}

fn weights(m: &impl Module) -> Vec<Vec<f32>> {
    m.parameters().iter().map(|p| f32s(&p.tensor().to_blocking(Device::CPU).unwrap())).collect()
}

fn assert_weights_close(got: &[Vec<f32>], want: &[Vec<f32>], tol: f32, what: &str) {
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert_close(g, w, tol, &format!("{what}: parameter {k}"));
    }
}

/// Trains `steps` steps on global batches of `batch` rows on `devices` (data parallel) and on
/// `devices[0]` alone, from the same initial weights; returns both final weights and losses.
/// Odd step counts use SGD with momentum, whose update scales with the gradient (a wrong loss
/// weighting shows), even ones Adam (state per replica).
fn train_both(devices: &[Device], batch: usize, steps: usize) -> [(Vec<Vec<f32>>, Vec<f32>); 2] {
    let (x, y) = data();
    let make = |p| -> webtensor::Result<Box<dyn Optimizer>> {
        Ok(if steps % 2 == 1 {
            Box::new(SGD::new(p, SgdOptions { lr: 0.2, momentum: 0.9, ..Default::default() })?)
        } else {
            Box::new(Adam::new(p, AdamOptions { lr: 0.05, ..Default::default() })?)
        })
    };
    let dp = DataParallel::new_blocking(devices, |d| Ok(relu_mlp(6, 16, 3, Some(5), d))).unwrap();
    let mut opt = dp.optimizer(make).unwrap();
    let single = relu_mlp(6, 16, 3, Some(5), devices[0]);
    let mut single_opt = make(single.parameters()).unwrap();
    let (mut dp_losses, mut single_losses) = (Vec::new(), Vec::new());
    for s in 0..steps {
        let start = (s * batch) % (60 - batch + 1);
        let (xb, yb) = (x.narrow(0, start, batch).unwrap(), y.narrow(0, start, batch).unwrap());
        opt.zero_grad();
        let loss = dp.forward_backward_blocking(&xb, &yb, loss_fn).unwrap();
        assert_eq!(loss.device(), devices[0]);
        dp_losses.push(loss.item_blocking::<f32>().unwrap());
        opt.step().unwrap();

        single_opt.zero_grad();
        let (xd, yd) = (xb.to_blocking(devices[0]).unwrap(), yb.to_blocking(devices[0]).unwrap());
        let loss = loss_fn(&single.forward(&xd).unwrap(), &yd).unwrap();
        loss.backward().unwrap();
        single_opt.step().unwrap();
        single_losses.push(loss.item_blocking::<f32>().unwrap());
    }
    // Every replica holds the same weights as the first.
    let first = weights(dp.module());
    for (r, d) in dp.replicas().iter().zip(devices).skip(1) {
        assert_weights_close(&weights(*r), &first, 1e-6, &format!("replica on {d} against the first"));
    }
    [(first, dp_losses), (weights(&single), single_losses)]
}

fn two_logical_devices_train_to_the_weights_of_one(_gpu: Device) {
    let Some((l0, l1)) = logical_pair() else { return };
    let [(dp_w, dp_l), (one_w, one_l)] = train_both(&[l0, l1], 20, 25);
    let [(adam_w, _), (adam_one, _)] = train_both(&[l0, l1], 20, 10);
    assert_weights_close(&adam_w, &adam_one, 2e-4, "Adam on two logical devices against one device");
    assert_close(&dp_l, &one_l, 1e-4, "losses per step");
    assert_weights_close(&dp_w, &one_w, 2e-4, "data parallel on two logical devices against one device");
    assert!(dp_l[24] < dp_l[0] * 0.7, "the model learns: {dp_l:?}");
}

fn cpu_beside_two_logical_devices_with_an_uneven_split(_gpu: Device) {
    let Some((l0, l1)) = logical_pair() else { return };
    // 10 rows over three replicas: 4, 3, 3.
    let [(dp_w, dp_l), (one_w, one_l)] = train_both(&[Device::CPU, l0, l1], 10, 21);
    assert_close(&dp_l, &one_l, 1e-4, "losses per step");
    assert_weights_close(&dp_w, &one_w, 2e-4, "cpu + two logical devices against the cpu");
}

fn more_replicas_than_rows_and_the_cpu_alone() {
    // One replica: the same as plain training, on any machine.
    let [(dp_w, _), (one_w, _)] = train_both(&[Device::CPU], 12, 5);
    assert_weights_close(&dp_w, &one_w, 1e-6, "one cpu replica against the cpu");
    let Some((l0, l1)) = logical_pair() else { return };
    // Two rows over three replicas: the last replica sits the step out and still ends equal.
    let [(dp_w, _), (one_w, _)] = train_both(&[l0, Device::CPU, l1], 2, 6);
    assert_weights_close(&dp_w, &one_w, 2e-4, "a replica without rows");
}

fn cuda_beside_a_gpu(c: Device) {
    let Some((l0, _)) = logical_pair() else { return };
    let [(dp_w, dp_l), (one_w, one_l)] = train_both(&[c, l0], 16, 15);
    let [(adam_w, _), (adam_one, _)] = train_both(&[c, l0], 16, 10);
    assert_weights_close(&adam_w, &adam_one, 2e-4, "Adam on cuda:0 + webgpu against cuda:0");
    assert_close(&dp_l, &one_l, 1e-4, "losses per step");
    assert_weights_close(&dp_w, &one_w, 2e-4, "cuda:0 + webgpu against cuda:0");
}

fn split_sizes_follow_tensor_split() {
    assert_eq!(split_sizes(10, 3), vec![4, 3, 3]);
    assert_eq!(split_sizes(2, 3), vec![1, 1, 0]);
    assert_eq!(split_sizes(64, 2), vec![32, 32]);
    assert_eq!(split_sizes(5, 0), Vec::<usize>::new());
}

fn buffers_come_from_the_first_replica() {
    let devs = match logical_pair() {
        Some((l0, l1)) => vec![l0, l1],
        None => vec![Device::CPU],
    };
    let build = |d: Device| -> webtensor::Result<Sequential> {
        Sequential::new()
            .push(Linear::new(6, 4, LinearOptions { device: Some(d), seed: Some(3), ..Default::default() })?)?
            .push(BatchNorm1d::new(4, BatchNormOptions { device: Some(d), ..Default::default() })?)?
            .push(Linear::new(4, 3, LinearOptions { device: Some(d), seed: Some(4), ..Default::default() })?)
    };
    let dp = DataParallel::new_blocking(&devs, build).unwrap();
    let mut opt = dp.optimizer(|p| SGD::new(p, SgdOptions { lr: 0.1, ..Default::default() })).unwrap();
    let (x, y) = data();
    for _ in 0..3 {
        opt.zero_grad();
        dp.forward_backward_blocking(&x.narrow(0, 0, 20).unwrap(), &y.narrow(0, 0, 20).unwrap(), loss_fn).unwrap();
        opt.step().unwrap();
    }
    let stats = |m: &Sequential| -> Vec<Vec<f32>> {
        m.buffers()
            .iter()
            .filter(|b| b.dtype().is_float())
            .map(|b| f32s(&b.tensor().to_blocking(Device::CPU).unwrap()))
            .collect()
    };
    let first = stats(dp.module());
    assert!(first[0].iter().any(|&v| v != 0.0), "running means moved: {first:?}");
    dp.broadcast_buffers_blocking().unwrap();
    for r in &dp.replicas()[1..] {
        assert_eq!(stats(r), first, "broadcast copies the first replica's running statistics");
    }
}

fn errors_say_what_is_wrong() {
    let build = |d: Device| Ok(relu_mlp(6, 8, 3, Some(1), d));
    let e = DataParallel::new_blocking(&[], build).err().expect("no devices").to_string();
    assert!(e.contains("no devices"), "{e}");
    let e = DataParallel::new_blocking(&[Device::CPU, Device::CPU], build).err().expect("twice").to_string();
    assert!(e.contains("listed twice"), "{e}");
    let e = DataParallel::new_blocking(&[Device::CPU, Device::META], |_| Ok(relu_mlp(6, 8, 3, Some(1), Device::CPU)))
        .err()
        .expect("a replica on the wrong device")
        .to_string();
    assert!(e.contains("create it on meta"), "{e}");

    let dp = DataParallel::new_blocking(&[Device::CPU], build).unwrap();
    let (x, y) = data();
    let e = dp.forward_backward_blocking(&x, &y.narrow(0, 0, 10).unwrap(), loss_fn).unwrap_err().to_string();
    assert!(e.contains("input has 60 rows but target has 10"), "{e}");
    let e = dp.forward_backward_blocking(&x, &y, |out, _| out.sum(&[1], false)).unwrap_err().to_string();
    assert!(e.contains("must return one floating-point value"), "{e}");
    let e = dp.forward_backward_blocking(&x.narrow(0, 0, 0).unwrap(), &y.narrow(0, 0, 0).unwrap(), loss_fn);
    assert!(e.unwrap_err().to_string().contains("empty batch"));
    // Nothing was lost: the model still trains.
    assert!(dp.forward_backward_blocking(&x, &y, loss_fn).is_ok());

    // A step that fails on the second replica, after the first has joined the gradients'
    // all-reduces: the next step meets again and averages as before.
    if let Some(g) = gpu() {
        let dp = DataParallel::new_blocking(&[Device::CPU, g], build).unwrap();
        let fail_on_gpu = |out: &Tensor, y: &Tensor| {
            if out.device() == Device::CPU {
                loss_fn(out, y)
            } else {
                out.sum(&[1], false)
            }
        };
        assert!(dp.forward_backward_blocking(&x, &y, fail_on_gpu).is_err());
        dp.replicas().iter().for_each(|r| r.zero_grad());
        dp.forward_backward_blocking(&x, &y, loss_fn).expect("the step after a failed one");
        let grads = |m: &Sequential| m.parameters().iter().map(|p| f32s(&p.grad().unwrap())).collect::<Vec<_>>();
        assert_weights_close(&grads(dp.replicas()[1]), &grads(dp.module()), 1e-5, "grads after a failed step");
    }
}

/// Micro-batches accumulated without zeroing between them (gradient accumulation) give every
/// replica the gradients one device accumulates: the all-reduce sums only each batch's own.
fn accumulated_micro_batches_match_one_device() {
    let devs = match logical_pair() {
        Some((l0, l1)) => vec![l0, Device::CPU, l1],
        None => vec![Device::CPU],
    };
    let (x, y) = data();
    let dp = DataParallel::new_blocking(&devs, |d| Ok(relu_mlp(6, 16, 3, Some(5), d))).unwrap();
    let single = relu_mlp(6, 16, 3, Some(5), Device::CPU);
    dp.replicas().iter().for_each(|r| r.zero_grad());
    for (start, rows) in [(0, 10), (10, 7), (17, 2)] {
        let (xb, yb) = (x.narrow(0, start, rows).unwrap(), y.narrow(0, start, rows).unwrap());
        dp.forward_backward_blocking(&xb, &yb, loss_fn).unwrap();
        loss_fn(&single.forward(&xb).unwrap(), &yb).unwrap().backward().unwrap();
    }
    let grads = |m: &Sequential| -> Vec<Vec<f32>> {
        m.parameters().iter().map(|p| f32s(&p.grad().unwrap().to_blocking(Device::CPU).unwrap())).collect()
    };
    let want = grads(&single);
    for (r, d) in dp.replicas().iter().zip(&devs) {
        assert_weights_close(&grads(r), &want, 1e-5, &format!("accumulated gradients on {d}"));
    }
    // sync_replicas copies the first replica's weights to the others.
    dp.replicas()[1].parameters()[0].tensor().set_grad(None).unwrap();
    dp.sync_replicas_blocking().unwrap();
    for r in &dp.replicas()[1..] {
        assert_weights_close(&weights(*r), &weights(dp.module()), 0.0, "synced");
    }
}

device_main!(; gpu: two_logical_devices_train_to_the_weights_of_one, cpu_beside_two_logical_devices_with_an_uneven_split; cuda: cuda_beside_a_gpu; plain: more_replicas_than_rows_and_the_cpu_alone, split_sizes_follow_tensor_split, buffers_come_from_the_first_replica, errors_say_what_is_wrong, accumulated_micro_batches_match_one_device);
