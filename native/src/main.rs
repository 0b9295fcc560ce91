//! `webtensor`: the desktop binary. `demo` (the README's main job: k-means colour quantisation on
//! the best device, checked against the CPU), `devices`, `bench`, `bench-train` and `info`.

mod bench;
mod demo;
mod digits;
mod dist;
#[cfg(test)]
mod doc_commands;
mod gpt;
mod kmeans;
mod loader_bench;
mod train;
mod train_bench;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use webtensor::Device;

/// Tensors with PyTorch's device model on WebGPU (Vulkan, Metal, DX12, GL) and the CPU.
#[derive(Parser)]
#[command(name = "webtensor", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

fn device(s: &str) -> Result<Device, String> {
    Device::parse(s).map_err(|e| e.to_string())
}

/// A dropout probability: a number in [0, 1).
fn probability(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..1.0).contains(&v) => Ok(v),
        _ => Err(format!("must be a probability in [0, 1), such as 0.2; got '{s}'")),
    }
}

/// A learning rate: a finite number above 0 (clap's own float parser accepts `nan`, `inf`, and
/// `1e400` as a 309-digit f64::MAX).
fn learning_rate(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("must be a finite number above 0, such as 0.01; got '{s}'")),
    }
}

/// What `train` and `bench-train` run.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Model {
    /// The digits MLP
    Mlp,
    /// nanoGPT's GPT on Shakespeare
    Gpt,
}

#[derive(Subcommand)]
enum Command {
    /// Quantise an image to 8 colours with k-means on the best device (falling back to the
    /// cpu), compare every device with the cpu, and write the image
    Demo {
        /// Run on this device (cpu, webgpu[:N], vulkan[:N], gl[:N]) and the cpu only
        #[arg(long, short, value_parser = device)]
        device: Option<Device>,
        /// Where to write the image (original and quantised side by side)
        #[arg(long, short, default_value = "webtensor-demo.png")]
        output: std::path::PathBuf,
        /// k-means iterations
        #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=1000))]
        iterations: u32,
    },
    /// List devices with backend, type, limits and features, and which one is best and why
    Devices,
    /// Benchmarks: matmul, device copy, elementwise add, reduction, softmax and transfers, per device
    Bench {
        /// Benchmark only this device
        #[arg(long, short, value_parser = device)]
        device: Option<Device>,
        /// Smaller sizes, for a quick look
        #[arg(long)]
        quick: bool,
        /// Timed runs per case (after one warm-up run)
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
        runs: u32,
        /// Print results as JSON instead of a table
        #[arg(long)]
        json: bool,
        /// Square f32 matmul sizes, comma-separated (default 256,512,1024,2048; 1024,2048,4096 on CUDA)
        #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=32768))]
        matmul_sizes: Vec<u32>,
        /// Also allow TF32 for f32 matmul on CUDA (off by default: strict f32)
        #[arg(long)]
        tf32: bool,
    },
    /// One training step (MLP forward, cross-entropy, backward, Adam) per device: time,
    /// kernel launches per step, and whether memory stayed flat
    BenchTrain {
        /// What to time: the digits MLP (default) or a GPT step of a recipe (--config)
        #[arg(long, value_enum, default_value_t = Model::Mlp)]
        model: Model,
        /// The GPT recipe (with --model gpt): cpu, shakespeare-char or tiny
        #[arg(long, default_value = "cpu")]
        config: String,
        /// Benchmark only this device
        #[arg(long, short, value_parser = device)]
        device: Option<Device>,
        /// Samples per step
        #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65536))]
        batch: u32,
        /// Width of the two hidden layers
        #[arg(long, default_value_t = 512, value_parser = clap::value_parser!(u32).range(1..=16384))]
        hidden: u32,
        /// Timed steps (after 5 warm-up steps)
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=100000))]
        steps: u32,
        /// GPT: dropout probability in [0, 1) (default: the recipe's, 0.2 or 0)
        #[arg(long, value_parser = probability)]
        dropout: Option<f64>,
        /// GPT: AdamW as separate ops (PyTorch's for-loop form) instead of one kernel per
        /// parameter
        #[arg(long)]
        separate_optimizer: bool,
        /// Print results as JSON instead of a table
        #[arg(long)]
        json: bool,
    },
    /// Train an MLP on the UCI handwritten digits (8x8, vendored), or with --model gpt nanoGPT's
    /// GPT on the vendored Shakespeare, on the best device, a chosen one, or several in data
    /// parallel; writes a .safetensors checkpoint
    Train {
        /// What to train: the digits MLP (default) or nanoGPT's GPT on Shakespeare
        #[arg(long, value_enum, default_value_t = Model::Mlp)]
        model: Model,
        /// The GPT recipe: cpu (nanoGPT's CPU run), shakespeare-char (the full one) or tiny (a smoke run)
        #[arg(long, default_value = "cpu")]
        config: String,
        /// GPT: training iterations (default: the recipe's, 2,000 or 5,000)
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        iters: Option<u32>,
        /// GPT: steps between estimates of the train and validation loss (default 250)
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        eval_interval: Option<u32>,
        /// GPT: batches per split in each loss estimate (default: the recipe's, 20 or 200)
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        eval_iters: Option<u32>,
        /// GPT: dropout probability in [0, 1) (default: the recipe's, 0.2 or 0)
        #[arg(long, value_parser = probability)]
        dropout: Option<f64>,
        /// GPT: the folder for ckpt.safetensors
        #[arg(long, default_value = "out-shakespeare-char")]
        out: std::path::PathBuf,
        /// Train on this device (default: the best one)
        #[arg(long, short, value_parser = device, conflicts_with = "devices")]
        device: Option<Device>,
        /// Data parallel over these devices, comma-separated (e.g. cpu,webgpu:0)
        #[arg(long, value_delimiter = ',', value_parser = device)]
        devices: Vec<Device>,
        /// Split the GPU (--device, or the first adapter) into N logical devices and train data
        /// parallel over them
        #[arg(long, conflicts_with = "devices", value_parser = clap::value_parser!(u32).range(2..=16))]
        logical: Option<u32>,
        /// Passes over the training images
        #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=10000))]
        epochs: u32,
        /// Images per step (the global batch under data parallel)
        #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=1437))]
        batch_size: u32,
        /// Width of the hidden layer
        #[arg(long, default_value_t = 128, value_parser = clap::value_parser!(u32).range(1..=65536))]
        hidden: u32,
        /// Adam's learning rate (a finite number above 0)
        #[arg(long, default_value_t = 0.01, value_parser = learning_rate)]
        lr: f64,
        /// Seed of the weights, the train/test split and the shuffle
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print results as JSON instead of a table
        #[arg(long)]
        json: bool,
        /// Where to write the trained weights (digits; the GPT writes to --out)
        #[arg(long, default_value = "webtensor-digits.safetensors")]
        checkpoint: std::path::PathBuf,
        /// Across processes (`mpirun -np N webtensor train ...`, built with the `mpi` feature):
        /// the collectives' engine, mpi or nccl (default: nccl for CUDA devices when built with
        /// `nccl`, else mpi)
        #[arg(long, value_parser = ["mpi", "nccl"])]
        dist_backend: Option<String>,
        /// Across processes: DistributedDataParallel's gradient bucket size in MiB (PyTorch's
        /// bucket_cap_mb, 25); a size past the model's gradients makes one all-reduce after
        /// backward instead of buckets overlapped with it
        #[arg(long, default_value_t = 25.0, value_parser = learning_rate)]
        bucket_cap_mb: f64,
    },
    /// Text sampled from a `train --model gpt` checkpoint after a prompt
    Sample {
        /// The checkpoint (out-shakespeare-char/ckpt.safetensors by default)
        #[arg(long, default_value = "out-shakespeare-char/ckpt.safetensors")]
        checkpoint: std::path::PathBuf,
        /// Text to continue (characters of the corpus)
        #[arg(long, default_value = "\n")]
        prompt: String,
        /// Characters to generate
        #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        tokens: u32,
        /// Below 1 sharper, above 1 flatter (a finite number above 0)
        #[arg(long, default_value_t = 0.8, value_parser = learning_rate)]
        temperature: f64,
        /// Sample among the k likeliest characters only
        #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        top_k: u32,
        /// Seed of the sampling (default: a fresh one)
        #[arg(long)]
        seed: Option<u64>,
        /// Run on this device (default: the best one)
        #[arg(long, short, value_parser = device)]
        device: Option<Device>,
    },
    /// Epoch time with and without DataLoader::prefetch (a worker thread preparing and uploading
    /// the next batches) on digits augmented per sample on the CPU, alternating in one run
    BenchLoader {
        /// Run on this device (default: the best one)
        #[arg(long, short, value_parser = device)]
        device: Option<Device>,
        /// Timed epochs of each kind (after one warm-up epoch of each)
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
        epochs: u32,
        /// Images per step
        #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=1797))]
        batch_size: u32,
        /// Print results as JSON instead of a table
        #[arg(long)]
        json: bool,
    },
    /// Versions, compiled-in backends and the environment variables webtensor honours
    Info,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo { device, output, iterations } => demo::run(device, &output, iterations as usize),
        Command::Devices => {
            demo::print_devices();
            Ok(())
        }
        Command::Bench { device, quick, runs, json, matmul_sizes, tf32 } => {
            if let Err(e) = bench::check_tf32(tf32, device) {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
            webtensor::set_allow_tf32(tf32);
            let sizes: Vec<usize> = matmul_sizes.into_iter().map(|n| n as usize).collect();
            bench::run(device, quick, runs as usize, json, &sizes)
        }
        Command::BenchTrain { model: Model::Gpt, config, device, steps, dropout, separate_optimizer, json, .. } => {
            let d = device.unwrap_or_else(webtensor::best_device);
            gpt::bench(&config, d, steps as usize, dropout, separate_optimizer).map_err(|e| e.to_string()).map(|v| {
                if json {
                    println!("{v}");
                } else {
                    println!(
                        "GPT ({}) training step on {d}: median {:.1} ms ({:.0} tokens/s), {} kernel launches, peak {:.1} MB",
                        v["config"],
                        v["ms_per_step"].as_f64().unwrap_or(f64::NAN),
                        v["tokens_per_s"].as_f64().unwrap_or(f64::NAN),
                        v["launches_per_step"],
                        v["peak_bytes"].as_f64().unwrap_or(f64::NAN) / 1e6
                    );
                }
            })
        }
        Command::BenchTrain { device, batch, hidden, steps, json, .. } => {
            let shape = train_bench::Shape { batch: batch as usize, hidden: hidden as usize, steps: steps as usize };
            train_bench::run(device, &shape, json).map_err(|e| e.to_string())
        }
        Command::Train {
            model: Model::Gpt,
            config,
            iters,
            eval_interval,
            eval_iters,
            dropout,
            out,
            device,
            devices,
            seed,
            json,
            dist_backend,
            bucket_cap_mb,
            ..
        } => {
            let options = gpt::TrainOptions {
                dist_backend,
                bucket_cap_mb,
                recipe: config,
                devices: device.map(|d| vec![d]).unwrap_or(devices),
                iters: iters.map(|n| n as usize),
                eval_interval: eval_interval.map(|n| n as usize),
                eval_iters: eval_iters.map(|n| n as usize),
                dropout,
                out,
                json,
                seed,
            };
            gpt::train(&options)
        }
        Command::Sample { checkpoint, prompt, tokens, temperature, top_k, seed, device } => {
            let prompt = prompt.replace("\\n", "\n");
            let options = gpt::SampleOptions {
                checkpoint,
                prompt,
                tokens: tokens as usize,
                temperature,
                top_k: Some(top_k as usize),
                seed,
                device,
            };
            gpt::sample(&options)
        }
        Command::Train {
            device,
            devices,
            logical,
            epochs,
            batch_size,
            hidden,
            lr,
            seed,
            json,
            checkpoint,
            dist_backend,
            bucket_cap_mb,
            ..
        } => {
            let options = train::Options {
                dist_backend,
                bucket_cap_mb,
                devices: device.map(|d| vec![d]).unwrap_or(devices),
                logical: logical.map(|n| n as usize),
                epochs: epochs as usize,
                batch_size: batch_size as usize,
                hidden: hidden as usize,
                lr,
                seed,
                json,
                checkpoint,
            };
            train::run(&options)
        }
        Command::BenchLoader { device, epochs, batch_size, json } => {
            loader_bench::run(device, epochs as usize, batch_size as usize, json).map_err(|e| e.to_string())
        }
        Command::Info => {
            info();
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn info() {
    println!("webtensor {} (binary {})", webtensor::VERSION, env!("CARGO_PKG_VERSION"));
    println!("wgpu backends compiled in: {}", webtensor::compiled_backends().join(", "));
    println!("{}", demo::cuda_status());
    println!("devices: {}", webtensor::devices().iter().map(|i| i.device.to_string()).collect::<Vec<_>>().join(", "));
    let (best, why) = webtensor::best_device_with_reason();
    println!("best device: {best} ({why})");
    println!("\nenvironment variables honoured:");
    for (var, what) in [
        ("WGPU_BACKEND", "restrict the wgpu backends searched (e.g. vulkan, gl)"),
        ("WEBTENSOR_LAUNCH_BLOCKING", "1: submit and check every op before the next (debugging)"),
        (
            "WEBTENSOR_PROFILE",
            "1: wait for every kernel call and add its time to its op's row (bench-train --model gpt prints them)",
        ),
        (
            "WEBTENSOR_FUSED_KERNELS",
            "1: fused attention/LayerNorm wherever they apply; 0: every op composed; unset: where they pay",
        ),
        (
            "WEBTENSOR_LAZY",
            "0: run every f32 elementwise op as it comes (default: WebGPU records chains into one kernel)",
        ),
        ("WEBTENSOR_LAZY_CUDA", "1: the lazy elementwise tier on CUDA devices too (its kernels are new to hardware)"),
        ("WEBTENSOR_CPU_THREADS", "threads for the cpu kernels, matmul included (default: the cores available)"),
        ("WEBTENSOR_CPU_SPIN_US", "how long cpu workers spin for the next kernel before they sleep (default 500)"),
        ("WEBTENSOR_STRIDED_REDUCE", "min outputs,outputs per folded element: when GPUs reduce strided views in place"),
        ("WEBTENSOR_MATMUL_REGISTER_TILES", "128x128 tiles from which hardware GPUs run the register-tiled matmul"),
        ("WEBTENSOR_REQUIRE_GPU", "1: the test suites fail instead of skipping without a GPU adapter"),
        ("WEBTENSOR_REQUIRE_CUDA", "1: the test suites fail instead of skipping without a CUDA device"),
        ("LD_LIBRARY_PATH", "where the cuda feature finds libcuda, libnvrtc and libcublas"),
    ] {
        let now = std::env::var(var).map(|v| format!(" (now: {v})")).unwrap_or_default();
        println!("  {var:<26} {what}{now}");
    }
}
