//! `webtensor train`: trains an MLP on the UCI handwritten digits (the 1,797 8×8 images that
//! scikit-learn ships, vendored in `data/digits/` under CC BY 4.0) on the best device, a chosen
//! one, or several in data parallel; a progress bar per epoch, loss and accuracy per epoch as a
//! table or JSON, time per epoch and samples/s, and a `.safetensors` checkpoint with PyTorch's
//! keys at the end (`torch.nn.Sequential(Linear(64, H), ReLU(), Linear(H, 10))` loads it).

use std::path::PathBuf;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use webtensor::data::{permutation, DataLoader, DataLoaderOptions, TensorDataset};
use webtensor::nn::{self, ClassLossOptions, Linear, LinearOptions, Module, ReLU, Sequential};
use webtensor::optim::{Adam, AdamOptions, Optimizer};
use webtensor::{DType, Device, DeviceKind, LogicalDeviceConfig, Tensor};

use crate::dist::{group_from_env, Parallel};

/// Errors of this command: the library's, or a message of its own.
type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// A mean cross-entropy past this means the run diverged (a sane one starts near 2.3).
const DIVERGED: f32 = 1e4;

/// Images held out for testing (a seeded 80/20 split).
const TEST_ROWS: usize = 360;

/// What to train and where.
pub struct Options {
    /// One device, or several for data parallel; empty: the best device.
    pub devices: Vec<Device>,
    /// Split the (chosen or best) GPU into this many logical devices and train on all of them.
    pub logical: Option<usize>,
    pub epochs: usize,
    pub batch_size: usize,
    pub hidden: usize,
    pub lr: f64,
    pub seed: u64,
    pub json: bool,
    pub checkpoint: PathBuf,
    /// `mpi` or `nccl` across processes (default: chosen by the device).
    pub dist_backend: Option<String>,
    /// DDP's gradient bucket size in MiB across processes.
    pub bucket_cap_mb: f64,
}

/// One epoch's figures.
struct Epoch {
    epoch: usize,
    loss: f32,
    train_accuracy: f32,
    test_accuracy: f32,
    seconds: f64,
    samples_per_s: f64,
}

/// The data set as f32 pixels scaled to [0, 1] (`[1797, 64]`) and i32 labels, split into
/// training and test rows by a seeded permutation.
fn load(seed: u64) -> Res<[(Tensor, Tensor); 2]> {
    let (images, labels) = crate::digits::load()?;
    let n = labels.shape()[0];
    let order: Vec<i32> = permutation(n, seed, 0).into_iter().map(|i| i as i32).collect();
    let split = |rows: &[i32]| -> webtensor::Result<(Tensor, Tensor)> {
        let idx = Tensor::from_slice(rows, &[rows.len()], Device::CPU)?;
        Ok((images.index_select(0, &idx)?, labels.index_select(0, &idx)?))
    };
    Ok([split(&order[..n - TEST_ROWS])?, split(&order[n - TEST_ROWS..])?])
}

fn mlp(hidden: usize, seed: u64, d: Device) -> webtensor::Result<Sequential> {
    let o = |s| LinearOptions { seed: Some(s), device: Some(d), ..Default::default() };
    Sequential::new().push(Linear::new(64, hidden, o(seed))?)?.push(ReLU::new())?.push(Linear::new(
        hidden,
        10,
        o(seed + 1),
    )?)
}

/// The fraction of rows of `x` that `model` classifies as `y` (evaluation mode, no graph).
fn accuracy(model: &Sequential, x: &Tensor, y: &Tensor) -> webtensor::Result<f32> {
    let _no_grad = webtensor::no_grad();
    model.eval();
    let pred = model.forward(x)?.argmax(Some(1), false)?;
    let correct = pred.eq(y)?.to_dtype(DType::I32)?.sum_all()?.item_blocking::<i32>()?;
    model.train();
    Ok(correct as f32 / y.shape()[0] as f32)
}

/// The devices to train on: `--logical N` splits one GPU first (before any GPU is used).
fn resolve_devices(o: &Options) -> Result<Vec<Device>, String> {
    if let Some(n) = o.logical {
        if o.devices.len() > 1 {
            return Err("--logical splits one GPU; give at most one --device with it".into());
        }
        let g = match o.devices.first() {
            Some(&d) => d,
            None => webtensor::devices()
                .into_iter()
                .map(|i| i.device)
                .find(|d| d.kind() == DeviceKind::WebGpu)
                .ok_or("--logical needs a GPU adapter and there is none (see `webtensor devices`)")?,
        };
        let configs = vec![LogicalDeviceConfig { memory_limit: None }; n];
        webtensor::set_logical_device_configuration(g, &configs).map_err(|e| e.to_string())?;
        return Ok((0..n).map(|k| Device::webgpu(g.ordinal() + k)).collect());
    }
    Ok(if o.devices.is_empty() { vec![webtensor::best_device()] } else { o.devices.clone() })
}

/// Trains and prints the table (or JSON), then writes the checkpoint.
pub fn run(o: &Options) -> Result<(), String> {
    let group = group_from_env(o.dist_backend.as_deref(), o.devices.first().copied())?;
    let main = group.as_ref().is_none_or(|g| g.rank() == 0);
    if main {
        check_writable(&o.checkpoint)?;
    }
    let devices = match &group {
        None => resolve_devices(o)?,
        Some(_) if o.logical.is_some() => {
            return Err("--logical is for one process; under mpirun each process \
            trains on one device"
                .into())
        }
        Some(_) => o.devices.clone(),
    };
    let dp = Parallel::new(&devices, group, o.bucket_cap_mb, |d| mlp(o.hidden, o.seed, d))?;
    dp.settle(train(o, &dp).map_err(|e| e.to_string()))
}

/// Fails before any training when the checkpoint could not be written afterwards: a folder, a
/// missing or read-only folder. The check leaves no file behind.
fn check_writable(path: &std::path::Path) -> Result<(), String> {
    let show = path.display();
    if path.is_dir() {
        return Err(format!("--checkpoint {show} is a folder; name a file such as {show}/digits.safetensors"));
    }
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| format!("cannot write the checkpoint to {show}: {e} (choose another --checkpoint path)"))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

fn train(o: &Options, dp: &Parallel<Sequential>) -> Res<()> {
    let devices = &dp.devices()[..];
    let main = dp.is_main();
    let [(x_train, y_train), (x_test, y_test)] = load(o.seed)?;
    let home = devices[0];
    let (x_train_d, y_train_d) = (x_train.to_blocking(home)?, y_train.to_blocking(home)?);
    let (x_test_d, y_test_d) = (x_test.to_blocking(home)?, y_test.to_blocking(home)?);
    let n_train = y_train.shape()[0];
    let mut opt = dp.optimizer(|p| Adam::new(p, AdamOptions { lr: o.lr, ..Default::default() }))?;
    let loader_opts = DataLoaderOptions {
        batch_size: o.batch_size,
        shuffle: true,
        seed: Some(o.seed),
        drop_last: false,
        pin_memory: false,
    };
    let mut loader = DataLoader::new(TensorDataset::new(vec![x_train, y_train])?, loader_opts)?;
    let loss_fn = |out: &Tensor, y: &Tensor| nn::cross_entropy(out, y, ClassLossOptions::default());

    let names: Vec<String> = devices.iter().map(|d| d.to_string()).collect();
    let across = match dp.backend() {
        Some(b) => format!(", data parallel over {} processes ({b})", dp.world_size()),
        None => String::new(),
    };
    if !o.json && main {
        for i in webtensor::devices().iter().filter(|i| devices.contains(&i.device)) {
            println!("# {}: {} ({}, {})", i.device, i.name, i.backend, i.device_type);
        }
        println!(
            "# UCI digits: {n_train} training and {} test images of 8x8; MLP 64-{}-10, Adam lr {}, batch {}{}{across}",
            y_test.shape()[0],
            o.hidden,
            o.lr,
            o.batch_size,
            if devices.len() > 1 { format!(", data parallel over {}", names.join(" + ")) } else { String::new() }
        );
        println!(
            "{:>5} {:>9} {:>10} {:>9} {:>9} {:>10}",
            "epoch", "loss", "train acc", "test acc", "time s", "samples/s"
        );
    }
    let mut epochs = Vec::new();
    for epoch in 1..=o.epochs {
        let bar = if o.json || !main { ProgressBar::hidden() } else { ProgressBar::new(loader.len() as u64) };
        bar.set_style(
            ProgressStyle::with_template("epoch {prefix:>3} [{bar:30}] {pos}/{len} batches {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_prefix(epoch.to_string());
        let t0 = Instant::now();
        let mut loss_sum: Option<Tensor> = None;
        for batch in loader.iter() {
            let batch = batch?;
            opt.zero_grad();
            let loss = dp.forward_backward(&batch[0], &batch[1], loss_fn)?;
            opt.step()?;
            // Summed on the device and read once per epoch: no readback stalls the steps.
            let weighted = loss.mul_scalar(batch[1].shape()[0] as f64)?;
            loss_sum = Some(match loss_sum {
                Some(s) => s.add(&weighted)?,
                None => weighted,
            });
            bar.inc(1);
        }
        for &d in devices {
            webtensor::synchronize_blocking(d)?;
        }
        let seconds = t0.elapsed().as_secs_f64();
        bar.finish_and_clear();
        // A collective across processes: every rank reads the epoch's loss here.
        let loss = match loss_sum {
            Some(s) => dp.global(&s)? / n_train as f32,
            None => f32::NAN,
        };
        // Cross-entropy over 10 classes starts near ln(10) = 2.3; past DIVERGED (or NaN or
        // infinity) the weights have blown up and nothing later recovers them.
        if !loss.is_finite() || loss > DIVERGED {
            return Err(format!(
                "training diverged: the mean loss of epoch {epoch} is {loss:e} (Adam lr {}); no checkpoint was written. \
                 Lower --lr (the default is 0.01)",
                o.lr
            )
            .into());
        }
        if !main {
            continue;
        }
        let row = Epoch {
            epoch,
            loss,
            train_accuracy: accuracy(dp.module(), &x_train_d, &y_train_d)?,
            test_accuracy: accuracy(dp.module(), &x_test_d, &y_test_d)?,
            seconds,
            samples_per_s: n_train as f64 / seconds,
        };
        if !o.json {
            println!(
                "{:>5} {:>9.4} {:>9.1}% {:>8.1}% {:>9.3} {:>10.0}",
                row.epoch,
                row.loss,
                100.0 * row.train_accuracy,
                100.0 * row.test_accuracy,
                row.seconds,
                row.samples_per_s
            );
        }
        epochs.push(row);
    }

    if !main {
        return Ok(());
    }
    let final_acc = epochs.last().map(|e| e.test_accuracy).unwrap_or(f32::NAN);
    let metadata = vec![
        ("data".to_string(), "UCI handwritten digits 8x8 (CC BY 4.0), pixels / 16".to_string()),
        ("model".to_string(), format!("Sequential(Linear(64, {}), ReLU(), Linear({}, 10))", o.hidden, o.hidden)),
        ("epochs".to_string(), o.epochs.to_string()),
        ("test_accuracy".to_string(), format!("{final_acc:.4}")),
    ];
    let bytes = nn::save_safetensors_blocking(&dp.module().state_dict(), &metadata)?;
    std::fs::write(&o.checkpoint, &bytes)
        .map_err(|e| format!("cannot write the checkpoint to {}: {e}", o.checkpoint.display()))?;

    if o.json {
        let rows: Vec<serde_json::Value> = epochs
            .iter()
            .map(|e| {
                serde_json::json!({
                    "epoch": e.epoch, "loss": e.loss, "train_accuracy": e.train_accuracy,
                    "test_accuracy": e.test_accuracy, "seconds": e.seconds, "samples_per_s": e.samples_per_s,
                })
            })
            .collect();
        let out = serde_json::json!({
            "data": "UCI handwritten digits (8x8, scikit-learn's copy, CC BY 4.0)",
            "train_images": n_train, "test_images": y_test.shape()[0],
            "model": format!("MLP 64-{}-10", o.hidden), "optimizer": "Adam", "lr": o.lr,
            "batch_size": o.batch_size, "devices": names, "epochs": rows,
            "world_size": dp.world_size() * devices.len(), "processes": dp.world_size(),
            "backend": dp.backend().map(|b| b.to_string()),
            "communication": dp.comm_json(epochs.iter().map(|e| e.seconds).sum()),
            "test_accuracy": final_acc, "checkpoint": o.checkpoint.display().to_string(),
            "checkpoint_bytes": bytes.len(),
        });
        println!("{out}");
    } else {
        println!(
            "test accuracy {:.1}%; checkpoint {} ({} bytes; keys 0.weight, 0.bias, 2.weight, 2.bias as PyTorch's \
             Sequential)",
            100.0 * final_acc,
            o.checkpoint.display(),
            bytes.len()
        );
    }
    Ok(())
}
