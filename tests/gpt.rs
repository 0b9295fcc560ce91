//! The GPT (`webtensor::models::gpt`) against nanoGPT's model in PyTorch
//! (`tests/fixtures/gpt.json`, by `scripts/gen_gpt_fixtures.py`), on every device: nanoGPT's
//! state-dict keys load both ways (the tied `transformer.wte.weight` / `lm_head.weight` too);
//! the logits, loss and every parameter's gradient; 20 training steps as nanoGPT's train.py takes
//! them (AdamW over decay / no-decay groups, clipping at 1.0, warmup then cosine) with the loss,
//! gradient norm and learning rate of each; greedy generation (KV cache, cropping past the
//! block size) token for token. A nanoGPT checkpoint saved by PyTorch with
//! `safetensors.torch.save_model` (`tests/fixtures/nanogpt.safetensors`, by
//! `scripts/check_gpt_checkpoints.py`, which also checks the other direction with PyTorch) loads
//! and gives PyTorch's logits.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

use serde_json::Value;
use webtensor::models::gpt::{GenerateOptions, Gpt, GptConfig};
use webtensor::nn::utils::{clip_grad_norm_, ClipGradNormOptions};
use webtensor::nn::Module;
use webtensor::optim::lr_scheduler::{CosineAnnealingLR, LinearLR, LrScheduler, SequentialLR};
use webtensor::optim::Optimizer;
use webtensor::{DType, Device, Tensor};

device_main!(gpt_matches_nanogpt, nanogpt_checkpoint_loads);

fn config(f: &Value) -> GptConfig {
    let c = &f["config"];
    let n = |k: &str| c[k].as_u64().unwrap_or_else(|| panic!("{k}")) as usize;
    GptConfig {
        vocab_size: n("vocab_size"),
        block_size: n("block_size"),
        n_layer: n("n_layer"),
        n_head: n("n_head"),
        n_embd: n("n_embd"),
        dropout: c["dropout"].as_f64().unwrap(),
        bias: c["bias"].as_bool().unwrap(),
    }
}

fn ints(v: &Value, shape: &[usize], d: Device) -> Tensor {
    let data: Vec<i32> = v.as_array().expect("ints").iter().map(|x| x.as_i64().unwrap() as i32).collect();
    Tensor::from_slice(&data, shape, d).unwrap()
}

fn gpt_matches_nanogpt(d: Device) {
    let f = fixture_json("gpt.json");
    let c = config(&f);
    let model = Gpt::new(c, 1, d).unwrap();
    let keys: Vec<String> = model.state_dict().into_iter().map(|(k, _)| k).collect();
    let want_keys: Vec<String> =
        f["keys"].as_array().unwrap().iter().map(|k| k.as_str().unwrap().to_string()).collect();
    assert_eq!(keys, want_keys, "nanoGPT's state_dict keys, in its order");
    let dict: Vec<(String, Tensor)> = f["state_dict"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), t(&floats(&v["data"]), &usizes(&v["shape"]), Device::CPU)))
        .collect();
    model.load_state_dict_blocking(&dict).unwrap();
    assert_eq!(model.parameters().len(), want_keys.len() - 1, "the tied weight once");

    // Forward and backward.
    let shape = usizes(&f["shape"]);
    let (idx, targets) = (ints(&f["idx"], &shape, d), ints(&f["targets"], &shape, d));
    let (logits, loss) = model.forward_with_targets(&idx, Some(&targets)).unwrap();
    let loss = loss.unwrap();
    assert_close(&f32s(&logits), &floats(&f["logits"]), 1e-4, &format!("logits on {d}"));
    assert_close(&f32s(&loss), &[f["loss"].as_f64().unwrap() as f32], 1e-5, &format!("loss on {d}"));
    loss.backward().unwrap();
    for (name, p) in model.named_parameters() {
        let want = floats(&f["grads"][&name]);
        assert_close(&f32s(&p.grad().unwrap()), &want, 1e-4, &format!("grad of {name} on {d}"));
    }
    model.zero_grad();

    // nanoGPT's training steps.
    let mut opt = model.configure_optimizers(0.1, 1e-2, (0.9, 0.99)).unwrap();
    let warm = LinearLR::new(&mut opt, 0.01, 1.0, 5).unwrap();
    let cos = CosineAnnealingLR::new(&mut opt, 15, 1e-4).unwrap();
    let mut sched = SequentialLR::new(&mut opt, vec![Box::new(warm), Box::new(cos)], &[5]).unwrap();
    for (i, s) in f["steps"].as_array().unwrap().iter().enumerate() {
        let (x, y) = (ints(&s["x"], &[4, c.block_size], d), ints(&s["y"], &[4, c.block_size], d));
        let (_, l) = model.forward_with_targets(&x, Some(&y)).unwrap();
        let l = l.unwrap();
        opt.zero_grad();
        l.backward().unwrap();
        let norm = clip_grad_norm_(&model.parameters(), 1.0, ClipGradNormOptions::default()).unwrap();
        opt.step().unwrap();
        sched.step(&mut opt).unwrap();
        assert_close(&f32s(&l), &[s["loss"].as_f64().unwrap() as f32], 1e-4, &format!("step {i} loss on {d}"));
        assert_close(
            &f32s(&norm),
            &[s["grad_norm"].as_f64().unwrap() as f32],
            1e-4,
            &format!("step {i} grad norm on {d}"),
        );
        let lr = opt.group_lr(0).unwrap();
        assert!((lr - s["lr"].as_f64().unwrap()).abs() < 1e-12, "step {i} lr {lr}");
    }
    for (k, v) in model.state_dict() {
        assert_close(&f32s(&v), &floats(&f["final_state_dict"][&k]), 2e-4, &format!("{k} after training on {d}"));
    }

    // Greedy generation with the KV cache, cropped past the block size.
    model.eval();
    let prompt = ints(&f["prompt"], &[2, 2], d);
    let out = model.generate(&prompt, 10, GenerateOptions { greedy: true, ..Default::default() }).unwrap();
    let want: Vec<i32> = f["greedy"].as_array().unwrap().iter().map(|x| x.as_i64().unwrap() as i32).collect();
    assert_eq!(i32s(&out), want, "greedy tokens on {d}");
    // Sampling is seeded and stays in the vocabulary.
    let a = model
        .generate(&prompt, 5, GenerateOptions { temperature: 0.8, top_k: Some(3), seed: Some(1), greedy: false })
        .unwrap();
    let b = model
        .generate(&prompt, 5, GenerateOptions { temperature: 0.8, top_k: Some(3), seed: Some(1), greedy: false })
        .unwrap();
    assert_eq!(i32s(&a), i32s(&b));
    assert!(i32s(&a).iter().all(|&t| t >= 0 && (t as usize) < c.vocab_size));
    assert_eq!(a.dtype(), DType::I32);
}

fn nanogpt_checkpoint_loads(d: Device) {
    let f = fixture_json("nanogpt.json");
    let path = format!("{}/tests/fixtures/nanogpt.safetensors", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(path).expect("the checkpoint fixture");
    let dict = webtensor::nn::load_safetensors(&bytes, Some(d)).unwrap();
    let names: Vec<&str> = dict.iter().map(|(k, _)| k.as_str()).collect();
    assert!(
        names.contains(&"lm_head.weight") && !names.contains(&"transformer.wte.weight"),
        "one name of the tied pair"
    );
    let model = Gpt::new(config(&f), 0, d).unwrap();
    model.load_state_dict_blocking(&dict).unwrap();
    model.eval();
    let wte = model.state_dict().into_iter().find(|(k, _)| k == "transformer.wte.weight").unwrap().1;
    let head = dict.iter().find(|(k, _)| k == "lm_head.weight").unwrap().1.clone();
    assert_eq!(f32s(&wte), f32s(&head), "the tied embedding took the head's values");
    let idx = ints(&f["idx"], &[2, 10], d);
    let (logits, _) = model.forward_with_targets(&idx, None).unwrap();
    assert_close(&f32s(&logits), &floats(&f["logits"]), 1e-4, &format!("PyTorch's logits on {d}"));
    // Without the tied name either, a key is missing.
    let partial: Vec<(String, Tensor)> = dict.iter().filter(|(k, _)| k != "lm_head.weight").cloned().collect();
    let err = model.load_state_dict_blocking(&partial).unwrap_err().to_string();
    assert!(err.contains(r#"missing keys ["transformer.wte.weight", "lm_head.weight"]"#), "{err}");
}
