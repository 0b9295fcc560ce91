//! `mpirun -np N webtensor train ...` (feature `mpi`): the digits MLP and the GPT trained by 2
//! processes reach one process's losses, rank 0 alone prints the JSON (with `world_size` and
//! the backend) and writes the checkpoint, and a binary run as one rank of several without the
//! feature would say so (checked by `dist.rs`'s error, not here).
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(feature = "mpi")]

use std::process::Command;

fn run(ranks: usize, args: &[&str]) -> serde_json::Value {
    let out = Command::new("mpirun")
        .args(["--oversubscribe", "--bind-to", "none", "-np", &ranks.to_string()])
        .arg(env!("CARGO_BIN_EXE_webtensor"))
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .output()
        .expect("run mpirun (apt-get install openmpi-bin)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{ranks} ranks {args:?}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with('{')).collect();
    assert_eq!(lines.len(), 1, "rank 0 alone prints: {stdout}");
    serde_json::from_str(lines[0]).expect("JSON")
}

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() <= 1e-5, "{what}: {a} vs {b}");
}

#[test]
fn digits_over_two_processes_match_one() {
    let dir = std::env::temp_dir().join(format!("wt-mpirun-digits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ckpt = dir.join("d.safetensors");
    let c = ckpt.to_str().expect("utf-8 path");
    let args = ["train", "--device", "cpu", "--epochs", "2", "--json", "--checkpoint", c];
    let one = run(1, &args);
    std::fs::remove_file(&ckpt).expect("rank 0 of one wrote the checkpoint");
    let two = run(2, &args);
    assert!(ckpt.exists(), "rank 0 of two wrote the checkpoint");
    assert_eq!((two["world_size"].as_u64(), two["processes"].as_u64()), (Some(2), Some(2)));
    assert_eq!(two["backend"], "mpi");
    for (a, b) in one["epochs"].as_array().expect("epochs").iter().zip(two["epochs"].as_array().expect("epochs")) {
        close(a["loss"].as_f64().expect("loss"), b["loss"].as_f64().expect("loss"), "epoch loss");
        close(a["test_accuracy"].as_f64().expect("acc"), b["test_accuracy"].as_f64().expect("acc"), "accuracy");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gpt_over_two_processes_matches_one() {
    let dir = std::env::temp_dir().join(format!("wt-mpirun-gpt-{}", std::process::id()));
    let out = dir.to_str().expect("utf-8 path");
    let args = [
        "train",
        "--model",
        "gpt",
        "--config",
        "tiny",
        "--iters",
        "12",
        "--eval-interval",
        "6",
        "--eval-iters",
        "2",
        "--device",
        "cpu",
        "--json",
        "--out",
        out,
    ];
    let one = run(1, &args);
    let two = run(2, &args);
    assert_eq!(two["processes"].as_u64(), Some(2));
    for (a, b) in one["evals"].as_array().expect("evals").iter().zip(two["evals"].as_array().expect("evals")) {
        close(a["val_loss"].as_f64().expect("val"), b["val_loss"].as_f64().expect("val"), "val loss");
    }
    close(one["last_loss"].as_f64().expect("loss"), two["last_loss"].as_f64().expect("loss"), "last loss");
    let _ = std::fs::remove_dir_all(&dir);
}
