//! `webtensor`: the desktop binary. `demo` (the README's main job: k-means colour quantisation on
//! the best device, checked against the CPU), `devices`, `bench` and `info`.

mod bench;
mod demo;
mod kmeans;

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
    /// Benchmarks: matmul, elementwise add, reduction, softmax and transfers, per device
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
        Command::Bench { device, quick, runs, json } => bench::run(device, quick, runs as usize, json),
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
    println!("cuda: not built into this version");
    println!("devices: {}", webtensor::devices().iter().map(|i| i.device.to_string()).collect::<Vec<_>>().join(", "));
    let (best, why) = webtensor::best_device_with_reason();
    println!("best device: {best} ({why})");
    println!("\nenvironment variables honoured:");
    for (var, what) in [
        ("WGPU_BACKEND", "restrict the wgpu backends searched (e.g. vulkan, gl)"),
        ("WEBTENSOR_LAUNCH_BLOCKING", "1: submit and check every op before the next (debugging)"),
        ("MATMUL_NUM_THREADS", "threads for the cpu matmul (default: physical cores, at most 4)"),
        ("WEBTENSOR_REQUIRE_GPU", "1: the test suites fail instead of skipping without a GPU adapter"),
    ] {
        let now = std::env::var(var).map(|v| format!(" (now: {v})")).unwrap_or_default();
        println!("  {var:<26} {what}{now}");
    }
}
