//! `webtensor bench`: f32 matmul, a device copy, elementwise add, a chain of eight elementwise
//! ops (GELU's tanh form written out) recorded by the lazy tier and run op by op, a whole-tensor
//! reduction, softmax over rows, and host-to-device / device-to-host transfers, per device. Each case runs once to warm up,
//! then `runs` synchronized times; the table gives the median and the spread (min-max).

use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use webtensor::{DType, Device, Tensor};

/// One benchmark case on one device.
struct Case {
    name: &'static str,
    size: String,
    /// Work per run: FLOPs (unit GFLOP/s) or bytes (unit GB/s).
    work: f64,
    unit: &'static str,
}

/// Seconds of each timed run.
fn time(device: Device, runs: usize, f: &dyn Fn() -> webtensor::Result<Tensor>) -> webtensor::Result<Vec<f64>> {
    drop(f()?);
    webtensor::synchronize_blocking(device)?;
    (0..runs)
        .map(|_| {
            let t0 = Instant::now();
            let _out = f()?; // alive until the work is measured
            webtensor::synchronize_blocking(device)?;
            Ok(t0.elapsed().as_secs_f64())
        })
        .collect()
}

/// The cases for one device, each with the closure that runs it.
#[allow(clippy::type_complexity)]
fn cases(
    d: Device,
    quick: bool,
    matmul_sizes: &[usize],
) -> webtensor::Result<Vec<(Case, Box<dyn Fn() -> webtensor::Result<Tensor>>)>> {
    let mut out: Vec<(Case, Box<dyn Fn() -> webtensor::Result<Tensor>>)> = Vec::new();
    // CUDA gets the sizes where cuBLAS is compared with PyTorch (1024 to 4096).
    let sizes: &[usize] = match (quick, d.kind()) {
        _ if !matmul_sizes.is_empty() => matmul_sizes,
        (true, _) => &[256, 512],
        (false, webtensor::DeviceKind::Cuda) => &[1024, 2048, 4096],
        (false, _) => &[256, 512, 1024, 2048],
    };
    for &n in sizes {
        let a = Tensor::randn(&[n, n], Some(1), d)?;
        let b = Tensor::randn(&[n, n], Some(2), d)?;
        let case = Case { name: "matmul f32", size: format!("{n}^3"), work: 2.0 * (n as f64).powi(3), unit: "GFLOP/s" };
        out.push((case, Box::new(move || a.matmul(&b))));
    }
    let n = if quick { 1 << 20 } else { 16 << 20 };
    let x = Tensor::ones(&[n], DType::F32, d)?;
    let y = Tensor::ones(&[n], DType::F32, d)?;
    let (x2, x3, sm) = (x.clone(), x.clone(), Tensor::randn(&[n / 1024, 1024], Some(3), d)?);
    let mb = format!("{}M", n >> 20);
    // The device's own copy rate: the ceiling elementwise ops are measured against.
    out.push((
        Case { name: "copy f32", size: mb.clone(), work: 8.0 * n as f64, unit: "GB/s" },
        Box::new(move || x3.deep_copy()),
    ));
    out.push((
        Case { name: "add f32", size: mb.clone(), work: 12.0 * n as f64, unit: "GB/s" },
        Box::new(move || x.add(&y)),
    ));
    // GELU's tanh form as eight ops: one generated kernel under the lazy tier (WebGPU), eight
    // launches op by op; the rate counts one read and one write of the tensor.
    let gelu = |x: &Tensor| -> webtensor::Result<Tensor> {
        let inner = x.add(&x.pow_scalar(3.0)?.mul_scalar(0.044715)?)?.mul_scalar(0.797_884_560_8)?;
        x.mul_scalar(0.5)?.mul(&inner.tanh()?.add_scalar(1.0)?)
    };
    let (x4, x5) = (Tensor::randn(&[n], Some(5), d)?, Tensor::randn(&[n], Some(5), d)?);
    out.push((
        Case { name: "gelu chain", size: mb.clone(), work: 8.0 * n as f64, unit: "GB/s" },
        Box::new(move || gelu(&x4)),
    ));
    out.push((
        Case { name: "gelu op-by-op", size: mb.clone(), work: 8.0 * n as f64, unit: "GB/s" },
        Box::new(move || {
            let was = webtensor::lazy_elementwise();
            webtensor::set_lazy_elementwise(false);
            let r = gelu(&x5);
            webtensor::set_lazy_elementwise(was);
            r
        }),
    ));
    // A scale and shift per column, then tanh: broadcasts over [rows, 1024] (a LayerNorm's
    // affine tail with an activation), one program against three kernels.
    let affine = |x: &Tensor, s: &Tensor, b: &Tensor| -> webtensor::Result<Tensor> { x.mul(s)?.add(b)?.tanh() };
    let (x6, s6, b6) = (
        Tensor::randn(&[n / 1024, 1024], Some(6), d)?,
        Tensor::randn(&[1024], Some(7), d)?,
        Tensor::randn(&[1024], Some(8), d)?,
    );
    let (x7, s7, b7) = (x6.clone(), s6.clone(), b6.clone());
    out.push((
        Case { name: "affine chain", size: mb.clone(), work: 8.0 * n as f64, unit: "GB/s" },
        Box::new(move || affine(&x6, &s6, &b6)),
    ));
    out.push((
        Case { name: "affine op-by-op", size: mb.clone(), work: 8.0 * n as f64, unit: "GB/s" },
        Box::new(move || {
            let was = webtensor::lazy_elementwise();
            webtensor::set_lazy_elementwise(false);
            let r = affine(&x7, &s7, &b7);
            webtensor::set_lazy_elementwise(was);
            r
        }),
    ));
    out.push((
        Case { name: "sum f32", size: mb.clone(), work: 4.0 * n as f64, unit: "GB/s" },
        Box::new(move || x2.sum_all()),
    ));
    let rows = format!("{}x1024", n / 1024);
    out.push((
        Case { name: "softmax rows", size: rows, work: 8.0 * n as f64, unit: "GB/s" },
        Box::new(move || sm.softmax(-1)),
    ));
    if d != Device::CPU {
        let host = Tensor::randn(&[n], Some(4), Device::CPU)?;
        let dev = host.to_blocking(d)?;
        let up = Case { name: "to device", size: mb.clone(), work: 4.0 * n as f64, unit: "GB/s" };
        out.push((up, Box::new(move || host.to_blocking(d))));
        let down = Case { name: "to cpu", size: mb, work: 4.0 * n as f64, unit: "GB/s" };
        out.push((down, Box::new(move || dev.to_blocking(Device::CPU))));
    }
    Ok(out)
}

/// Refuses `--tf32` where it would change nothing: TF32 is a CUDA matmul mode, so it needs a
/// CUDA device, named or found.
pub fn check_tf32(tf32: bool, device: Option<Device>) -> Result<(), String> {
    if !tf32 {
        return Ok(());
    }
    match device {
        Some(d) if d.kind() != webtensor::DeviceKind::Cuda => {
            Err(format!("--tf32 applies to CUDA matmuls only; {d} computes f32 matmuls in f32 (drop --tf32, or pass --device cuda:0)"))
        }
        None if !webtensor::is_available(webtensor::DeviceKind::Cuda) => {
            Err("--tf32 applies to CUDA matmuls only, and no CUDA device is available here (drop --tf32)".into())
        }
        _ => Ok(()),
    }
}

/// Benchmarks `device`, or every device of the tour.
pub fn run(device: Option<Device>, quick: bool, runs: usize, json: bool, matmul_sizes: &[usize]) -> Result<(), String> {
    let devices: Vec<Device> = match device {
        Some(d) => vec![d],
        None => {
            let (run, skipped) = crate::demo::tour_devices();
            if !json {
                skipped.iter().for_each(|s| println!("{s}"));
            }
            run
        }
    };
    let mut records = Vec::new();
    if !json {
        for i in webtensor::devices().iter().filter(|i| devices.contains(&i.device)) {
            println!("# {}: {} ({}, {})", i.device, i.name, i.backend, i.device_type);
        }
        println!(
            "{:<10} {:<13} {:>10} {:>12} {:>10} {:>19}",
            "device", "case", "size", "rate", "median ms", "spread (min-max) ms"
        );
    }
    let mut failures = Vec::new();
    for d in devices {
        let list = match cases(d, quick, matmul_sizes) {
            Ok(l) => l,
            Err(e) => {
                failures.push(format!("{d}: {e}"));
                continue;
            }
        };
        let bar = if json { ProgressBar::hidden() } else { ProgressBar::new(list.len() as u64) };
        bar.set_style(
            ProgressStyle::with_template("{prefix:>10} [{bar:30}] {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_prefix(d.to_string());
        for (case, f) in &list {
            bar.set_message(format!("{} {}", case.name, case.size));
            match time(d, runs, f.as_ref()) {
                Ok(mut secs) => {
                    secs.sort_by(|a, b| a.total_cmp(b));
                    let median = secs[secs.len() / 2];
                    let rate = case.work / median / 1e9;
                    bar.suspend(|| {
                        if !json {
                            println!(
                                "{:<10} {:<13} {:>10} {:>6.2} {:<7} {:>8.2} {:>9.2}-{:<9.2}",
                                d.to_string(),
                                case.name,
                                case.size,
                                rate,
                                case.unit,
                                median * 1e3,
                                secs[0] * 1e3,
                                secs[secs.len() - 1] * 1e3
                            );
                        }
                    });
                    records.push(serde_json::json!({
                        "device": d.to_string(), "case": case.name, "size": case.size, "rate": rate, "unit": case.unit,
                        "median_ms": median * 1e3, "min_ms": secs[0] * 1e3, "max_ms": secs[secs.len() - 1] * 1e3, "runs": runs,
                    }));
                }
                Err(e) => failures.push(format!("{d} {} {}: {e}", case.name, case.size)),
            }
            bar.inc(1);
        }
        bar.finish_and_clear();
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&records).map_err(|e| e.to_string())?);
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("{} case(s) failed:\n  {}", failures.len(), failures.join("\n  ")))
    }
}
