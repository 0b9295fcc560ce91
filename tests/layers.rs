//! Layers against PyTorch (`tests/fixtures/train.json`, made by `scripts/gen_train_fixtures.py`):
//! layer/group/batch norm and embedding with every input's gradient; BatchNorm1d's running
//! statistics over training steps (momentum 0.1 and cumulative) and its eval output; a 200-step
//! Adam run of a token model (Embedding with padding, BatchNorm1d, GELU, LayerNorm) whose loss
//! must match PyTorch's at every step; and Dropout's semantics (no PyTorch fixture: its masks
//! come from PyTorch's generator).
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

use serde_json::Value;
use std::sync::Arc;
use webtensor::nn::{
    self, BatchNorm1d, BatchNormOptions, ClassLossOptions, Dropout, Embedding, EmbeddingOptions, LayerNorm, Linear,
    LinearOptions, Module, ModuleCore, NormOptions, PReLU,
};
use webtensor::optim::{Adam, AdamOptions, Optimizer};
use webtensor::{BackwardOptions, DType, Device, Tensor};

device_main!(layers_match_pytorch, batch_norm_running_statistics_match_pytorch, token_model_training_matches_pytorch, dropout_semantics, prelu_module_learns_a_slope_per_channel; plain: layer_errors_say_what_was_expected);

fn layers_match_pytorch(d: Device) {
    let f = fixture_json("train.json");
    for c in f["layers"].as_array().expect("layers") {
        let name = c["name"].as_str().expect("name");
        let a = &c["args"];
        let ins: Vec<Tensor> =
            c["inputs"].as_array().expect("inputs").iter().map(|i| fixture_tensor(i, d, true)).collect();
        let eps = a["eps"].as_f64().unwrap_or(1e-5);
        let y = match a["op"].as_str().expect("op") {
            "layer_norm" => nn::layer_norm(&ins[0], &usizes(&a["shape"]), ins.get(1), ins.get(2), eps),
            "group_norm" => {
                nn::group_norm(&ins[0], a["groups"].as_u64().expect("groups") as usize, ins.get(1), ins.get(2), eps)
            }
            "batch_norm" => {
                let running: Vec<Tensor> = ["running_mean", "running_var"]
                    .iter()
                    .filter(|k| a[**k].is_array())
                    .map(|k| t(&floats(&a[*k]), &[ins[0].shape()[1]], d))
                    .collect();
                let training = a["training"].as_bool().expect("training");
                nn::batch_norm(&ins[0], running.first(), running.get(1), ins.get(1), ins.get(2), training, eps)
            }
            "embedding" => nn::embedding(&ins[0], &ins[1], a["padding_idx"].as_u64().map(|p| p as usize)),
            other => panic!("unknown op {other}"),
        }
        .unwrap_or_else(|e| panic!("{name} on {d}: {e}"));
        assert_eq!(y.shape(), usizes(&c["out_shape"]).as_slice(), "{name}: shape");
        assert_close(&f32s(&y), &floats(&c["out"]), 1e-4, &format!("{name} on {d}"));
        let g = t(&floats(&c["out_grad"]), y.shape(), d);
        y.backward_with(Some(&g), BackwardOptions::default()).unwrap();
        for (k, want) in c["grads"].as_array().expect("grads").iter().enumerate() {
            if let Value::Array(_) = want {
                let got = ins[k].grad().unwrap_or_else(|| panic!("{name} on {d}: input {k} has no gradient"));
                assert_close(&f32s(&got), &floats(want), 2e-4, &format!("{name} on {d}: grad {k}"));
            }
        }
    }
}

fn batch_norm_running_statistics_match_pytorch(d: Device) {
    let f = fixture_json("train.json");
    for run in f["batch_norm_running"].as_array().expect("runs") {
        let momentum = run["momentum"].as_f64();
        let what = format!("BatchNorm1d momentum {momentum:?} on {d}");
        let bn = BatchNorm1d::new(5, BatchNormOptions { momentum, device: Some(d), ..Default::default() }).unwrap();
        for x in run["inputs"].as_array().expect("inputs") {
            bn.forward(&fixture_tensor(x, d, false)).unwrap();
        }
        let keys: Vec<String> = bn.state_dict().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"], "{what}");
        for (k, v) in bn.state_dict() {
            assert_eq!(v.device(), d, "{what}: {k} stays on the module's device");
            assert_close(&f32s(&v), &floats(&run["state_dict"][&k]), 1e-5, &format!("{what}: {k}"));
        }
        bn.eval();
        let before = f32s(&bn.state_dict()[2].1);
        let y = bn.forward(&fixture_tensor(&run["probe"], d, false)).unwrap();
        assert_close(&f32s(&y), &floats(&run["eval_out"]), 1e-4, &format!("{what}: eval output"));
        assert_eq!(f32s(&bn.state_dict()[2].1), before, "{what}: eval does not update the running mean");
    }
    // Errors name the shape that was wrong and leave the module usable.
    let bn = BatchNorm1d::new(3, BatchNormOptions { device: Some(d), ..Default::default() }).unwrap();
    let e = bn.forward(&Tensor::zeros(&[2, 3, 4, 5], DType::F32, d).unwrap()).unwrap_err().to_string();
    assert!(e.contains("2-d or 3-d") && e.contains("[2, 3, 4, 5]"), "{e}");
    let e = bn.forward(&Tensor::zeros(&[1, 3], DType::F32, d).unwrap()).unwrap_err().to_string();
    assert!(e.contains("more than 1 value per channel"), "{e}");
    assert_eq!(i32s(&bn.state_dict()[4].1), [0], "a failed forward tracked no batch");
    bn.forward(&Tensor::randn(&[4, 3], Some(1), d).unwrap()).unwrap();
    assert_eq!(i32s(&bn.state_dict()[4].1), [1]);
}

/// PyTorch's TokenNet: Embedding -> mean over the sequence -> Linear (no bias) -> BatchNorm1d ->
/// GELU -> LayerNorm -> Linear.
struct TokenNet {
    core: ModuleCore,
    emb: Arc<Embedding>,
    fc1: Arc<Linear>,
    bn: Arc<BatchNorm1d>,
    norm: Arc<LayerNorm>,
    fc2: Arc<Linear>,
}

impl TokenNet {
    fn new(d: Device) -> TokenNet {
        let core = ModuleCore::new();
        let lin = LinearOptions { device: Some(d), ..Default::default() };
        let emb =
            Embedding::new(20, 8, EmbeddingOptions { padding_idx: Some(0), device: Some(d), ..Default::default() });
        let bn = BatchNorm1d::new(16, BatchNormOptions { device: Some(d), ..Default::default() });
        let norm = LayerNorm::new(&[16], NormOptions { device: Some(d), ..Default::default() });
        TokenNet {
            emb: core.register_module("emb", emb.unwrap()).unwrap(),
            fc1: core
                .register_module("fc1", Linear::new(8, 16, LinearOptions { bias: false, ..lin }).unwrap())
                .unwrap(),
            bn: core.register_module("bn", bn.unwrap()).unwrap(),
            norm: core.register_module("norm", norm.unwrap()).unwrap(),
            fc2: core.register_module("fc2", Linear::new(16, 4, lin).unwrap()).unwrap(),
            core,
        }
    }
}

impl Module for TokenNet {
    fn core(&self) -> &ModuleCore {
        &self.core
    }
    fn forward(&self, tokens: &Tensor) -> webtensor::Result<Tensor> {
        let h = self.bn.forward(&self.fc1.forward(&self.emb.forward(tokens)?.mean(&[1], false)?)?)?;
        self.fc2.forward(&self.norm.forward(&h.gelu()?)?)
    }
}

fn token_model_training_matches_pytorch(d: Device) {
    let f = fixture_json("train.json");
    let run = &f["token_net"];
    let model = TokenNet::new(d);
    let dict: Vec<(String, Tensor)> = run["state_dict"]
        .as_object()
        .expect("state_dict")
        .iter()
        .map(|(k, v)| (k.clone(), fixture_tensor(v, Device::CPU, false)))
        .collect();
    model.load_state_dict_blocking(&dict).unwrap();
    let tokens = fixture_tensor(&run["tokens"], d, false);
    let y: Vec<i32> = run["y"].as_array().expect("y").iter().map(|v| v.as_i64().expect("int") as i32).collect();
    let y = Tensor::from_slice(&y, &[y.len()], d).unwrap();
    let lr = run["hyper"]["lr"].as_f64().expect("lr");
    let mut opt = Adam::new(model.parameters(), AdamOptions { lr, ..Default::default() }).unwrap();
    let want = floats(&run["losses"]);
    for (i, w) in want.iter().enumerate() {
        opt.zero_grad();
        let loss = nn::cross_entropy(&model.forward(&tokens).unwrap(), &y, ClassLossOptions::default()).unwrap();
        loss.backward().unwrap();
        opt.step().unwrap();
        let g = loss.item_blocking::<f32>().unwrap();
        assert!((g - w).abs() <= 1e-4 * w.abs().max(1e-3), "token model on {d}: step {i}: loss {g}, PyTorch {w}");
    }
    for (k, v) in model.state_dict() {
        let want = floats(&run["final_state_dict"][&k]);
        assert_close(&f32s(&v), &want, 2e-3, &format!("token model on {d}: final {k}"));
    }
    model.eval();
    assert_close(&f32s(&model.forward(&tokens).unwrap()), &floats(&run["eval_out"]), 2e-3, &format!("eval on {d}"));
    let pad = model.emb.weight().tensor();
    assert_eq!(&f32s(&pad)[..8], &[0.0; 8], "the padding row stays zero through training");
}

fn dropout_semantics(d: Device) {
    let x = Tensor::ones(&[64, 64], DType::F32, d).unwrap().requires_grad_(true).unwrap();
    let drop = Dropout::new(0.25, Some(3)).unwrap();
    let y = drop.forward(&x).unwrap();
    let v = f32s(&y);
    let zeros = v.iter().filter(|&&e| e == 0.0).count() as f64 / v.len() as f64;
    assert!((zeros - 0.25).abs() < 0.03, "on {d}: {zeros} of the elements were dropped, want about 0.25");
    assert!(v.iter().all(|&e| e == 0.0 || (e - 1.0 / 0.75).abs() < 1e-6), "on {d}: kept elements scale by 1/(1-p)");
    y.sum_all().unwrap().backward().unwrap();
    assert_eq!(f32s(&x.grad().unwrap()), v, "on {d}: the gradient is the same mask and scale");
    let again = Dropout::new(0.25, Some(3)).unwrap();
    assert_eq!(f32s(&again.forward(&x).unwrap()), v, "on {d}: the same seed gives the same first mask");
    assert_ne!(f32s(&again.forward(&x).unwrap()), v, "on {d}: the next call draws a new mask");
    drop.eval();
    assert_eq!(f32s(&drop.forward(&x).unwrap()), vec![1.0; 64 * 64], "on {d}: eval is the identity");
    assert!(Dropout::new(1.5, None).err().map(|e| e.to_string()).unwrap_or_default().contains("[0, 1]"));
    let e = nn::dropout(&Tensor::ones(&[2], DType::I32, d).unwrap(), 0.5, true, None).unwrap_err().to_string();
    assert!(e.contains("floating-point"), "{e}");
}

/// `nn::PReLU` (its values and gradients are the `prelu` op's, held to PyTorch by the grad
/// fixtures): PyTorch's parameter name, shape and initial slope, a slope per channel of dim 1,
/// the weight's gradient summed per channel, and the shapes it refuses.
fn prelu_module_learns_a_slope_per_channel(d: Device) {
    let m = PReLU::new(2, 0.25, Some(d)).unwrap();
    let names: Vec<String> = m.named_parameters().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["weight"]);
    assert_eq!(f32s(&m.weight().tensor()), [0.25, 0.25]);
    // [N=2, C=2, 3]: channel 0 of each sample is [-4, 2, -1], channel 1 is [1, -2, 0].
    let x = Tensor::from_slice(&[-4.0f32, 2.0, -1.0, 1.0, -2.0, 0.0, -4.0, 2.0, -1.0, 1.0, -2.0, 0.0], &[2, 2, 3], d)
        .unwrap()
        .requires_grad_(true)
        .unwrap();
    let y = m.forward(&x).unwrap();
    assert_eq!(f32s(&y), [-1.0, 2.0, -0.25, 1.0, -0.5, 0.0, -1.0, 2.0, -0.25, 1.0, -0.5, 0.0], "on {d}");
    y.sum_all().unwrap().backward().unwrap();
    // d/dw: the sum of x where x <= 0, per channel: 2 * (-4 - 1) and 2 * (-2 + 0).
    assert_eq!(f32s(&m.weight().tensor().grad().expect("weight grad")), [-10.0, -4.0], "on {d}");
    assert_eq!(f32s(&x.grad().unwrap()), [0.25, 1.0, 0.25, 1.0, 0.25, 0.25, 0.25, 1.0, 0.25, 1.0, 0.25, 0.25]);
    let e = m.forward(&Tensor::zeros(&[2, 3, 4], DType::F32, d).unwrap()).unwrap_err().to_string();
    assert!(e.contains("2 elements") && e.contains("3 channel"), "{e}");
    let e = x.prelu(&Tensor::zeros(&[2, 1], DType::F32, d).unwrap()).unwrap_err().to_string();
    assert!(e.contains("1-D"), "{e}");
    let ints = Tensor::zeros(&[2, 2], DType::I32, d).unwrap();
    assert!(ints.prelu(&m.weight().tensor()).is_err(), "integers are refused, as in PyTorch");
    // One slope shared by every channel, and a 1-D input (one channel).
    let one = PReLU::new(1, 0.5, Some(d)).unwrap();
    assert_eq!(f32s(&one.forward(&x.detach()).unwrap())[..3], [-2.0, 2.0, -0.5]);
    let v = Tensor::from_slice(&[-2.0f32, 3.0], &[2], d).unwrap();
    assert_eq!(f32s(&one.forward(&v).unwrap()), [-1.0, 3.0]);
}

fn layer_errors_say_what_was_expected() {
    let x = Tensor::zeros(&[2, 5], DType::F32, None).unwrap();
    let e = nn::layer_norm(&x, &[4], None, None, 1e-5).unwrap_err().to_string();
    assert!(e.contains("[4]") && e.contains("[2, 5]"), "{e}");
    let e = nn::batch_norm(&x, None, None, None, None, false, 1e-5).unwrap_err().to_string();
    assert!(e.contains("running_mean"), "evaluation needs running statistics: {e}");
    let e = nn::group_norm(&Tensor::zeros(&[2, 6, 3], DType::F32, None).unwrap(), 4, None, None, 1e-5)
        .unwrap_err()
        .to_string();
    assert!(e.contains("6 channels") && e.contains("4"), "{e}");
    assert!(Embedding::new(4, 2, EmbeddingOptions { padding_idx: Some(4), ..Default::default() }).is_err());
    let emb = Embedding::new(4, 2, EmbeddingOptions { seed: Some(1), ..Default::default() }).unwrap();
    let e = emb.forward(&x).unwrap_err().to_string();
    assert!(e.contains("integer"), "{e}");
    let e = emb.forward(&Tensor::from_slice(&[0i32, 4], &[2], None).unwrap()).unwrap_err().to_string();
    assert!(e.contains('4'), "an index past the table is an error: {e}");
    assert_eq!(emb.forward(&Tensor::from_slice(&[3i32, 0], &[1, 2], None).unwrap()).unwrap().shape(), [1, 2, 2]);
}
