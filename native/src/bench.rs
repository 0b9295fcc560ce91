//! `webtensor bench`: f32 matmul GFLOP/s at 256..2048 and elementwise add GB/s at 16M elements,
//! per device. Each figure is the median of several synchronized runs after a warm-up.

use std::time::Instant;

use webtensor::{DType, Device, Tensor};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median seconds of `f` over `runs` synchronized runs, after one warm-up run.
fn time(device: Device, runs: usize, f: &dyn Fn() -> webtensor::Result<Tensor>) -> webtensor::Result<f64> {
    drop(f()?);
    webtensor::synchronize_blocking(device)?;
    let mut secs = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t0 = Instant::now();
        let out = f()?;
        webtensor::synchronize_blocking(device)?;
        secs.push(t0.elapsed().as_secs_f64());
        drop(out);
    }
    Ok(median(secs))
}

fn bench_device(d: Device, quick: bool) -> webtensor::Result<()> {
    let sizes: &[usize] = if quick { &[256, 512] } else { &[256, 512, 1024, 2048] };
    for &n in sizes {
        let a = Tensor::randn(&[n, n], Some(1), d)?;
        let b = Tensor::randn(&[n, n], Some(2), d)?;
        let runs = if n >= 2048 { 3 } else { 5 };
        let s = time(d, runs, &|| a.matmul(&b))?;
        println!(
            "{:<10} matmul f32 {:>5}^3      {:>9.2} GFLOP/s   ({:.2} ms)",
            d.to_string(),
            n,
            2.0 * (n as f64).powi(3) / s / 1e9,
            s * 1e3
        );
    }
    let n = if quick { 1 << 20 } else { 16 << 20 };
    let a = Tensor::ones(&[n], DType::F32, d)?;
    let b = Tensor::ones(&[n], DType::F32, d)?;
    let s = time(d, 5, &|| a.add(&b))?;
    println!(
        "{:<10} add f32 {:>6}M elements {:>9.2} GB/s      ({:.2} ms)",
        d.to_string(),
        n >> 20,
        3.0 * 4.0 * n as f64 / s / 1e9,
        s * 1e3
    );
    Ok(())
}

/// Benchmarks `device`, or every device.
pub fn run(device: Option<Device>, quick: bool) -> Result<(), String> {
    let devices: Vec<Device> = match device {
        Some(d) => vec![d],
        None => {
            let (run, skipped) = crate::demo::tour_devices();
            skipped.iter().for_each(|s| println!("{s}"));
            run
        }
    };
    for i in webtensor::devices().iter().filter(|i| devices.contains(&i.device)) {
        println!("# {}: {} ({}, {})", i.device, i.name, i.backend, i.device_type);
    }
    for d in devices {
        if let Err(e) = bench_device(d, quick) {
            println!("{:<10} failed: {e}", d.to_string());
        }
    }
    Ok(())
}
