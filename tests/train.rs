//! Modules, losses and optimizers against PyTorch (`tests/fixtures/train.json`, made by
//! `scripts/gen_train_fixtures.py`): every loss with its gradient for each reduction and option,
//! and 200-step training runs of an MLP from PyTorch's initial weights whose loss must match
//! PyTorch's at every step within 1e-4 relative, with SGD (momentum; Nesterov with weight decay),
//! Adam and AdamW. Plus the module semantics: `to` moves parameters and registered buffers (a
//! plain field stays), state_dict keys, mismatch errors. (Memory flat over 1000 steps is in
//! training_memory.rs, alone on the device.)
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

use serde_json::Value;
use webtensor::nn::{self, ClassLossOptions, Linear, LinearOptions, Module, ModuleCore, Reduction, Sequential};
use webtensor::optim::{Adam, AdamOptions, AdamW, Optimizer, SgdOptions, SGD};
use webtensor::{BackwardOptions, Device, Tensor};

device_main!(losses_match_pytorch, mlp_training_matches_pytorch_step_by_step; gpu: to_moves_parameters_and_buffers_not_plain_fields, a_refused_step_changes_nothing; plain: load_state_dict_is_strict_and_all_or_nothing, a_training_step_runs_on_meta, frozen_parameters_stay_frozen);

fn losses_match_pytorch(d: Device) {
    let f = fixture_json("train.json");
    for c in f["losses"].as_array().expect("losses") {
        let name = c["name"].as_str().expect("name");
        let a = &c["args"];
        let ins: Vec<Tensor> =
            c["inputs"].as_array().expect("inputs").iter().map(|i| fixture_tensor(i, d, true)).collect();
        let reduction: Reduction = a["reduction"].as_str().expect("reduction").parse().unwrap();
        let class = ClassLossOptions {
            reduction,
            ignore_index: Some(a["ignore_index"].as_i64().unwrap_or(nn::DEFAULT_IGNORE_INDEX)),
            label_smoothing: a["label_smoothing"].as_f64().unwrap_or(0.0),
        };
        let y = match a["loss"].as_str().expect("loss") {
            "cross_entropy" => nn::cross_entropy(&ins[0], &ins[1], class),
            "nll_loss_of_log_softmax" => nn::nll_loss(&ins[0].log_softmax(1).unwrap(), &ins[1], class),
            "mse_loss" => nn::mse_loss(&ins[0], &ins[1], reduction),
            "l1_loss" => nn::l1_loss(&ins[0], &ins[1], reduction),
            "binary_cross_entropy_with_logits" => nn::binary_cross_entropy_with_logits(&ins[0], &ins[1], reduction),
            other => panic!("unknown loss {other}"),
        }
        .unwrap_or_else(|e| panic!("{name} on {d}: {e}"));
        assert_eq!(y.shape(), usizes(&c["out_shape"]).as_slice(), "{name}: shape");
        assert_close(&f32s(&y), &floats(&c["out"]), 1e-4, &format!("{name} on {d}"));
        let g = t(&floats(&c["out_grad"]), y.shape(), d);
        y.backward_with(Some(&g), BackwardOptions::default()).unwrap();
        for (k, want) in c["grads"].as_array().expect("grads").iter().enumerate() {
            if let Value::Array(_) = want {
                assert_close(&f32s(&ins[k].grad().unwrap()), &floats(want), 1e-4, &format!("{name} on {d}: grad {k}"));
            }
        }
    }
}

/// The fixture's MLP (Linear(8,16), ReLU, Linear(16,4)) with PyTorch's initial weights.
fn mlp(run: &Value, d: Device) -> Sequential {
    let model = relu_mlp(8, 16, 4, Some(0), d);
    let dict: Vec<(String, Tensor)> = run["state_dict"]
        .as_object()
        .expect("state_dict")
        .iter()
        .map(|(k, v)| (k.clone(), t(&floats(&v["data"]), &usizes(&v["shape"]), Device::CPU)))
        .collect();
    model.load_state_dict_blocking(&dict).unwrap();
    model
}

fn optimizer(run: &Value, model: &Sequential, fused: bool) -> Box<dyn Optimizer> {
    let h = &run["hyper"];
    let lr = h["lr"].as_f64().expect("lr");
    let wd = h["weight_decay"].as_f64().unwrap_or(0.0);
    match run["optimizer"].as_str().expect("optimizer") {
        "sgd" | "sgd_nesterov_wd" => Box::new(
            SGD::new(
                model.parameters(),
                SgdOptions {
                    lr,
                    momentum: h["momentum"].as_f64().unwrap_or(0.0),
                    nesterov: h["nesterov"].as_bool().unwrap_or(false),
                    weight_decay: wd,
                    fused,
                    ..Default::default()
                },
            )
            .unwrap(),
        ),
        "adam" => Box::new(
            Adam::new(model.parameters(), AdamOptions { lr, weight_decay: wd, fused, ..Default::default() }).unwrap(),
        ),
        "adamw" => Box::new(
            AdamW::new(model.parameters(), AdamOptions { lr, weight_decay: wd, fused, ..Default::default() }).unwrap(),
        ),
        other => panic!("unknown optimizer {other}"),
    }
}

fn mlp_training_matches_pytorch_step_by_step(d: Device) {
    let f = fixture_json("train.json");
    for run in f["mlp"].as_array().expect("mlp") {
        // The fused kernels (the default) and the same update as separate ops.
        for fused in [true, false] {
            let name = format!("{} (fused {fused})", run["optimizer"].as_str().expect("optimizer"));
            let model = mlp(run, d);
            assert_eq!(
                model.state_dict().iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
                ["0.weight", "0.bias", "2.weight", "2.bias"],
                "PyTorch's state_dict keys"
            );
            let x = t(&floats(&run["x"]["data"]), &usizes(&run["x"]["shape"]), d);
            let y: Vec<i32> = run["y"].as_array().expect("y").iter().map(|v| v.as_i64().expect("int") as i32).collect();
            let y = Tensor::from_slice(&y, &[y.len()], d).unwrap();
            let mut opt = optimizer(run, &model, fused);
            let want = floats(&run["losses"]);
            let mut got = Vec::with_capacity(want.len());
            for _ in 0..want.len() {
                opt.zero_grad();
                let loss = nn::cross_entropy(&model.forward(&x).unwrap(), &y, ClassLossOptions::default()).unwrap();
                loss.backward().unwrap();
                opt.step().unwrap();
                got.push(loss.item_blocking::<f32>().unwrap());
            }
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!((g - w).abs() <= 1e-4 * w.abs().max(1e-3), "{name} on {d}: step {i}: loss {g}, PyTorch {w}");
            }
            for (k, v) in model.state_dict() {
                let want = floats(&run["final_state_dict"][&k]);
                assert_close(&f32s(&v), &want, 1e-3, &format!("{name} on {d}: final {k}"));
            }
        }
    }
}

/// A module with a registered buffer and a plain tensor field.
struct Scaled {
    core: ModuleCore,
    fc: std::sync::Arc<Linear>,
    scale: nn::Buffer,
    plain: Tensor,
}

impl Module for Scaled {
    fn core(&self) -> &ModuleCore {
        &self.core
    }
    fn forward(&self, x: &Tensor) -> webtensor::Result<Tensor> {
        self.fc.forward(x)?.mul(&self.scale.tensor())
    }
}

fn to_moves_parameters_and_buffers_not_plain_fields(g: Device) {
    let core = ModuleCore::new();
    let fc = core
        .register_module("fc", Linear::new(4, 2, LinearOptions { seed: Some(1), ..Default::default() }).unwrap())
        .unwrap();
    let scale = core.register_buffer("scale", &Tensor::ones(&[2], webtensor::DType::F32, None).unwrap()).unwrap();
    let m = Scaled { core, fc, scale, plain: Tensor::zeros(&[3], webtensor::DType::F32, None).unwrap() };
    assert_eq!(m.state_dict().iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), ["scale", "fc.weight", "fc.bias"]);
    assert_eq!(m.fc.weight().shape(), vec![2, 4], "PyTorch's [out, in]");
    let x = Tensor::ones(&[5, 4], webtensor::DType::F32, g).unwrap();
    let e = m.forward(&x).unwrap_err().to_string();
    assert!(e.contains("cpu") && e.contains(&g.to_string()) && e.contains("matmul"), "{e}");
    let held = m.parameters()[0].clone();
    let mut opt = SGD::new(m.parameters(), SgdOptions { lr: 0.1, momentum: 0.9, ..Default::default() }).unwrap();
    // A first step on the cpu makes momentum state there.
    m.forward(&x.to_blocking(Device::CPU).unwrap()).unwrap().sum_all().unwrap().backward().unwrap();
    opt.step().unwrap();
    m.to_blocking(g).unwrap();
    assert_eq!(m.parameters()[0].device(), g);
    assert_eq!(held.device(), g, "handles held elsewhere see the move");
    assert_eq!(m.buffers()[0].tensor().device(), g, "registered buffers move");
    assert_eq!(m.plain.device(), Device::CPU, "a plain field stays");
    assert_eq!(m.parameters()[0].grad().unwrap().device(), g, "gradients move with their parameters");
    m.forward(&x).unwrap().sum_all().unwrap().backward().unwrap();
    let e = opt.step().unwrap_err().to_string();
    assert!(e.contains("after model.to"), "{e}");
    // An optimizer made after `to` works there.
    let mut opt = SGD::new(m.parameters(), SgdOptions { lr: 0.1, momentum: 0.9, ..Default::default() }).unwrap();
    opt.step().unwrap();
    assert_eq!(m.parameters()[0].device(), g);
}

fn load_state_dict_is_strict_and_all_or_nothing() {
    let m = Linear::new(3, 2, LinearOptions { seed: Some(4), ..Default::default() }).unwrap();
    let before = f32s(&m.weight().tensor());
    let bad_shape = vec![
        ("weight".to_string(), Tensor::zeros(&[3, 2], webtensor::DType::F32, None).unwrap()),
        ("bias".to_string(), Tensor::zeros(&[2], webtensor::DType::F32, None).unwrap()),
    ];
    assert!(m.load_state_dict_blocking(&bad_shape).unwrap_err().to_string().contains("shape"));
    let missing = vec![("weight".to_string(), Tensor::zeros(&[2, 3], webtensor::DType::F32, None).unwrap())];
    let e = m.load_state_dict_blocking(&missing).unwrap_err().to_string();
    assert!(e.contains("missing keys [\"bias\"]"), "{e}");
    assert_eq!(f32s(&m.weight().tensor()), before, "nothing changed");
}

/// A training step on the meta device: shapes, dtypes and devices flow through the forward
/// pass, the losses, backward and the fused optimizer update without any data (PyTorch's meta
/// tensors), so a model's training memory can be planned before it is allocated.
fn a_training_step_runs_on_meta() {
    let d = Device::META;
    let lin = LinearOptions { device: Some(d), seed: Some(0), ..Default::default() };
    let model = Sequential::new()
        .push(Linear::new(8, 16, lin).unwrap())
        .unwrap()
        .push(nn::BatchNorm1d::new(16, nn::BatchNormOptions { device: Some(d), ..Default::default() }).unwrap())
        .unwrap()
        .push(nn::GELU::new())
        .unwrap()
        .push(nn::LayerNorm::new(&[16], nn::NormOptions { device: Some(d), ..Default::default() }).unwrap())
        .unwrap()
        .push(nn::Dropout::new(0.1, Some(1)).unwrap())
        .unwrap()
        .push(Linear::new(16, 4, lin).unwrap())
        .unwrap();
    let x = Tensor::zeros(&[32, 8], webtensor::DType::F32, d).unwrap();
    let y = Tensor::zeros(&[32], webtensor::DType::I32, d).unwrap();
    let mut opt = AdamW::new(model.parameters(), AdamOptions { weight_decay: 0.01, ..Default::default() }).unwrap();
    for _ in 0..3 {
        opt.zero_grad();
        let loss = nn::cross_entropy(&model.forward(&x).unwrap(), &y, ClassLossOptions::default()).unwrap();
        assert_eq!((loss.device(), loss.shape()), (d, &[][..]));
        loss.backward().unwrap();
        opt.step().unwrap();
    }
    for (name, p) in model.named_parameters() {
        assert_eq!(p.device(), d, "{name}");
        assert_eq!(p.grad().expect("a gradient").shape(), p.shape().as_slice(), "{name}: gradient shape");
    }
    let dict = model.state_dict();
    assert!(dict.iter().all(|(_, t)| t.device() == d), "parameters and buffers stay on meta");
    assert!(model.forward(&x).unwrap().to_vec_blocking::<f32>().is_err(), "meta tensors have no data to read");
}

/// Frozen parameters (PyTorch's `p.requires_grad_(False)`): an optimizer accepts and skips
/// them, and `to` and `load_state_dict` keep them frozen; `load_state_dict` keeps the other
/// parameters' gradients, as PyTorch's in-place copy does.
fn frozen_parameters_stay_frozen() {
    let d = gpu().unwrap_or(Device::CPU);
    let m = relu_mlp(3, 4, 2, Some(7), Device::CPU);
    let params = m.named_parameters();
    let (frozen, live) = (&params[0].1, &params[2].1);
    frozen.requires_grad_(false).unwrap();
    let before = f32s(&frozen.tensor());
    let mut opt = SGD::new(m.parameters(), SgdOptions { lr: 0.5, momentum: 0.9, ..Default::default() }).unwrap();
    let x = Tensor::randn(&[5, 3], Some(3), None).unwrap();
    m.forward(&x).unwrap().sum_all().unwrap().backward().unwrap();
    assert!(frozen.grad().is_none(), "a frozen parameter gets no gradient");
    assert!(f32s(&live.grad().expect("a gradient")).iter().any(|&v| v != 0.0));
    let live_before = f32s(&live.tensor());
    opt.step().unwrap();
    assert_eq!(f32s(&frozen.tensor()), before, "the step skipped the frozen weight");
    assert_ne!(f32s(&live.tensor()), live_before, "and updated the others");
    assert!(!frozen.requires_grad() && live.requires_grad(), "a step keeps requires_grad");
    let grad = f32s(&live.grad().expect("a gradient"));
    m.to_blocking(d).unwrap();
    assert!(!frozen.requires_grad() && live.requires_grad(), "to keeps requires_grad");
    let dict = m.state_dict();
    m.load_state_dict_blocking(&dict).unwrap();
    assert!(!frozen.requires_grad() && live.requires_grad(), "load_state_dict keeps requires_grad");
    assert_eq!(f32s(&live.grad().expect("the gradient stays")), grad, "load_state_dict keeps gradients");
    frozen.requires_grad_(true).unwrap();
    m.forward(&x.to_blocking(d).unwrap()).unwrap().sum_all().unwrap().backward().unwrap();
    assert!(frozen.grad().is_some(), "an unfrozen parameter collects gradients again");
}

/// A step the optimizer refuses (state on one device, a parameter since moved to another)
/// changes nothing: the parameters before the refused one keep their values and state.
fn a_refused_step_changes_nothing(g: Device) {
    let a = Linear::new(3, 2, LinearOptions { seed: Some(1), ..Default::default() }).unwrap();
    let b = Linear::new(2, 1, LinearOptions { seed: Some(2), ..Default::default() }).unwrap();
    let mut opt = Adam::new([a.parameters(), b.parameters()].concat(), AdamOptions::default()).unwrap();
    let x = Tensor::ones(&[4, 3], webtensor::DType::F32, None).unwrap();
    let loss = |on: Device| {
        let h = a.forward(&x).unwrap().to_blocking(on).unwrap();
        b.forward(&h).unwrap().sum_all().unwrap().backward().unwrap();
    };
    loss(Device::CPU);
    opt.step().unwrap();
    b.to_blocking(g).unwrap();
    loss(g);
    let first = f32s(&a.weight().tensor());
    let e = opt.step().unwrap_err().to_string();
    assert!(e.contains("after model.to"), "{e}");
    assert_eq!(f32s(&a.weight().tensor()), first, "the parameters before the refused one did not move");
    // Moving `b` back makes the same optimizer usable again, its state intact.
    b.to_blocking(Device::CPU).unwrap();
    opt.step().unwrap();
    assert_ne!(f32s(&a.weight().tensor()), first);
}
