//! The binary as a user runs it: `webtensor devices` and `webtensor info` answer the CUDA
//! question in one line, whatever the build and the machine (like `torch.cuda.is_available()`).
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_webtensor")).args(args).output().expect("the binary runs");
    assert!(out.status.success(), "webtensor {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8 output")
}

#[test]
fn devices_and_info_say_where_cuda_stands_in_one_line() {
    for cmd in ["devices", "info"] {
        let out = run(&[cmd]);
        // The status line ("cuda: ..."), not the device rows ("cuda:0 ...").
        let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("cuda: ")).collect();
        assert_eq!(lines.len(), 1, "`webtensor {cmd}` should have one cuda line:\n{out}");
        let line = lines[0];
        if webtensor::cuda_compiled() {
            let n = webtensor::device_count(webtensor::DeviceKind::Cuda);
            if n == 0 {
                assert!(line.starts_with("cuda: built in, but no CUDA device is available ("), "{line}");
            } else {
                assert!(line.starts_with(&format!("cuda: built in; {n} device(s)")), "{line}");
            }
        } else {
            assert!(line.contains("not built into this version"), "{line}");
        }
        assert!(out.contains("cpu"), "{out}");
    }
}

/// `webtensor train` learns the digits on the cpu: the JSON has every epoch, the loss falls, the
/// test accuracy passes 90%, and the checkpoint loads back with PyTorch's keys and shapes.
#[test]
fn train_learns_the_digits_and_writes_a_checkpoint() {
    let dir = std::env::temp_dir().join(format!("webtensor-cli-train-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ckpt = dir.join("digits.safetensors");
    let ckpt_arg = ckpt.to_str().expect("utf-8 path");
    let out = run(&["train", "--device", "cpu", "--epochs", "6", "--hidden", "32", "--json", "--checkpoint", ckpt_arg]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    let epochs = v["epochs"].as_array().expect("epochs");
    assert_eq!(epochs.len(), 6);
    let loss = |i: usize| epochs[i]["loss"].as_f64().expect("loss");
    assert!(loss(5) < loss(0) * 0.5, "the loss falls: {out}");
    assert!(v["test_accuracy"].as_f64().expect("accuracy") > 0.9, "{out}");
    assert_eq!((v["train_images"].as_u64(), v["test_images"].as_u64()), (Some(1437), Some(360)));
    assert!(epochs.iter().all(|e| e["samples_per_s"].as_f64().is_some_and(|s| s > 0.0)));

    let bytes = std::fs::read(&ckpt).expect("the checkpoint was written");
    let dict = webtensor::nn::load_safetensors(&bytes, Some(webtensor::Device::CPU)).expect("it loads");
    let shapes: Vec<(String, Vec<usize>)> = dict.iter().map(|(k, t)| (k.clone(), t.shape().to_vec())).collect();
    assert_eq!(
        shapes,
        vec![
            ("0.bias".to_string(), vec![32]),
            ("0.weight".to_string(), vec![32, 64]),
            ("2.bias".to_string(), vec![10]),
            ("2.weight".to_string(), vec![10, 32]),
        ],
        "the file lists keys sorted, as PyTorch's safetensors writes them"
    );
    let meta = webtensor::nn::safetensors_metadata(&bytes).expect("metadata");
    assert!(meta.iter().any(|(k, v)| k == "data" && v.contains("CC BY 4.0")), "{meta:?}");

    // The same run as a table, with a bad argument refused by name.
    let table = run(&["train", "--device", "cpu", "--epochs", "1", "--hidden", "8", "--checkpoint", ckpt_arg]);
    assert!(table.contains("epoch") && table.contains("test accuracy"), "{table}");
    let bad =
        Command::new(env!("CARGO_BIN_EXE_webtensor")).args(["train", "--batch-size", "0"]).output().expect("runs");
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--batch-size"));
    std::fs::remove_dir_all(&dir).ok();
}

/// Data parallel from the command line: `--devices cpu,webgpu:0` reaches the losses of the cpu
/// alone (same seed, same batches) within f32 rounding.
#[test]
fn train_data_parallel_matches_one_device() {
    if !webtensor::devices().iter().any(|i| i.device == webtensor::Device::webgpu(0)) {
        assert!(std::env::var("WEBTENSOR_REQUIRE_GPU").as_deref() != Ok("1"), "no webgpu:0");
        return;
    }
    let ckpt = std::env::temp_dir().join(format!("webtensor-cli-dp-{}.safetensors", std::process::id()));
    let c = ckpt.to_str().expect("utf-8 path");
    let losses = |args: &[&str]| -> Vec<f64> {
        let mut all = vec!["train", "--epochs", "3", "--hidden", "16", "--json", "--checkpoint", c];
        all.extend_from_slice(args);
        let v: serde_json::Value = serde_json::from_str(run(&all).trim()).expect("JSON");
        v["epochs"].as_array().expect("epochs").iter().map(|e| e["loss"].as_f64().expect("loss")).collect()
    };
    let one = losses(&["--device", "cpu"]);
    let two = losses(&["--devices", "cpu,webgpu:0"]);
    for (a, b) in one.iter().zip(&two) {
        assert!((a - b).abs() < 1e-4 * a.abs().max(1.0), "one device {one:?}, two {two:?}");
    }
    std::fs::remove_file(&ckpt).ok();
}

/// `webtensor bench-loader` times plain and prefetched epochs in one run (no timing asserted).
#[test]
fn bench_loader_reports_both_loaders() {
    let out = run(&["bench-loader", "--device", "cpu", "--epochs", "1", "--json"]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(v["images"].as_u64(), Some(1797));
    for key in ["plain_seconds", "prefetch_seconds"] {
        let s = v[key].as_array().expect(key);
        assert!(s.len() == 1 && s[0].as_f64().is_some_and(|t| t > 0.0), "{out}");
    }
    assert!(v["speedup"].as_f64().is_some_and(|x| x > 0.0), "{out}");
}

/// Runs the binary expecting failure; returns (exit code, stderr).
fn refused(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_webtensor")).args(args).output().expect("the binary runs");
    assert!(!out.status.success(), "webtensor {args:?} should have failed:\n{}", String::from_utf8_lossy(&out.stdout));
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Issue 41's CLI nits: numbers and paths are checked before any training, with readable
/// bounds; a run that diverges exits non-zero and writes no checkpoint; `--tf32` is refused
/// where it changes nothing.
#[test]
fn bad_numbers_paths_divergence_and_tf32_are_refused() {
    for lr in ["nan", "inf", "-1", "0", "1e400", "x"] {
        let (_, err) = refused(&["train", "--device", "cpu", &format!("--lr={lr}")]);
        assert!(err.contains("a finite number above 0") && !err.contains("17976931348623157"), "--lr {lr}: {err}");
    }
    let dir = std::env::temp_dir().join(format!("webtensor-cli-nits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let t0 = std::time::Instant::now();
    let missing = dir.join("no/such/folder/x.safetensors");
    let (_, err) = refused(&["train", "--device", "cpu", "--checkpoint", missing.to_str().expect("utf-8")]);
    assert!(err.contains("cannot write the checkpoint"), "{err}");
    let (_, err) = refused(&["train", "--device", "cpu", "--checkpoint", dir.to_str().expect("utf-8")]);
    assert!(err.contains("is a folder"), "{err}");
    assert!(t0.elapsed().as_secs() < 20, "the paths were checked only after training");
    let ckpt = dir.join("diverged.safetensors");
    let (code, err) = refused(&[
        "train",
        "--device",
        "cpu",
        "--epochs",
        "2",
        "--lr",
        "1e9",
        "--checkpoint",
        ckpt.to_str().expect("utf-8"),
    ]);
    assert!(code != 0 && err.contains("training diverged") && err.contains("--lr"), "{code}: {err}");
    assert!(!ckpt.exists(), "a diverged run wrote a checkpoint");
    let (code, err) = refused(&["bench", "--device", "cpu", "--tf32", "--quick"]);
    assert!(code == 2 && err.contains("--tf32 applies to CUDA matmuls only"), "{code}: {err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `webtensor train --model gpt` (the tiny recipe) learns from the vendored Shakespeare, writes a
/// checkpoint with nanoGPT's keys and its config, and `webtensor sample` continues a prompt with
/// characters of the corpus; `bench-train --model gpt` reports the median step.
#[test]
fn gpt_trains_samples_and_benchmarks() {
    let dir = std::env::temp_dir().join(format!("webtensor-cli-gpt-{}", std::process::id()));
    let out = run(&[
        "train",
        "--model",
        "gpt",
        "--config",
        "tiny",
        "--device",
        "cpu",
        "--iters",
        "30",
        "--eval-interval",
        "15",
        "--json",
        "--out",
        dir.to_str().expect("utf-8"),
    ]);
    let v: serde_json::Value = serde_json::from_str(out.lines().last().expect("json")).expect("json");
    let evals = v["evals"].as_array().expect("evals");
    assert_eq!(evals.len(), 3, "evaluations at 0, 15 and 30: {v}");
    let (first, last) = (evals[0]["val_loss"].as_f64().unwrap(), v["val_loss"].as_f64().unwrap());
    assert!(last < first - 0.3, "the validation loss fell: {first} -> {last}");
    assert!(v["ms_per_step"].as_f64().unwrap() > 0.0 && v["world_size"] == 1);
    let ckpt = dir.join("ckpt.safetensors");
    let bytes = std::fs::read(&ckpt).expect("checkpoint");
    let dict = webtensor::nn::load_safetensors(&bytes, Some(webtensor::Device::CPU)).expect("safetensors");
    for key in
        ["transformer.wte.weight", "transformer.h.1.attn.c_attn.weight", "transformer.ln_f.weight", "lm_head.weight"]
    {
        assert!(dict.iter().any(|(k, _)| k == key), "{key} in the checkpoint");
    }
    let text = run(&[
        "sample",
        "--checkpoint",
        ckpt.to_str().unwrap(),
        "--prompt",
        "ROMEO:",
        "--tokens",
        "40",
        "--seed",
        "1",
        "--device",
        "cpu",
    ]);
    assert!(text.starts_with("ROMEO:") && text.chars().count() >= 46, "{text:?}");
    assert_eq!(
        text,
        run(&[
            "sample",
            "--checkpoint",
            ckpt.to_str().unwrap(),
            "--prompt",
            "ROMEO:",
            "--tokens",
            "40",
            "--seed",
            "1",
            "--device",
            "cpu"
        ]),
        "seeded"
    );
    let (_, err) =
        refused(&["sample", "--checkpoint", ckpt.to_str().unwrap(), "--prompt", "\u{e9}", "--device", "cpu"]);
    assert!(err.contains("not in the vocabulary"), "{err}");
    let bench =
        run(&["bench-train", "--model", "gpt", "--config", "tiny", "--device", "cpu", "--steps", "3", "--json"]);
    let b: serde_json::Value = serde_json::from_str(bench.trim()).expect("json");
    assert!(b["ms_per_step"].as_f64().unwrap() > 0.0, "{b}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Launched as one rank of several (torchrun's variables) asking for a backend this binary was
/// built without: the error says which feature to build with, before any training.
#[cfg(not(feature = "nccl"))]
#[test]
fn a_rank_of_a_job_without_the_backend_built_in_says_how_to_build_it() {
    let out = Command::new(env!("CARGO_BIN_EXE_webtensor"))
        .args(["train", "--dist-backend", "nccl", "--epochs", "1"])
        .env("RANK", "0")
        .env("WORLD_SIZE", "2")
        .output()
        .expect("the binary runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("built without nccl") && err.contains("--features nccl"), "{err}");
}
