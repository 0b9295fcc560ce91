//! `webtensor demo` and `webtensor devices`: list the devices, run the same small network
//! (matmul, GELU, softmax, reductions) on each, and show that every device agrees with the CPU.

use std::time::Instant;

use webtensor::{Device, Tensor};

/// Prints the device table (with key limits) and the best device with its reason.
pub fn print_devices() {
    let mib = |i: &webtensor::DeviceInfo, k: &str| {
        i.limits.iter().find(|(n, _)| n == k).map_or("-".to_string(), |(_, v)| format!("{}", v >> 20))
    };
    println!(
        "{:<10} {:<7} {:<10} {:<3} {:>9} {:>9}  name [features]",
        "device", "backend", "type", "sw", "bind MiB", "buf MiB"
    );
    let default = webtensor::default_device();
    for i in webtensor::devices() {
        println!(
            "{:<10} {:<7} {:<10} {:<3} {:>9} {:>9}  {}{}{}",
            i.device.to_string(),
            i.backend,
            i.device_type,
            if i.software { "yes" } else { "no" },
            mib(&i, "max_storage_buffer_binding_size"),
            mib(&i, "max_buffer_size"),
            i.name,
            if i.features.is_empty() { String::new() } else { format!(" [{}]", i.features.join(", ")) },
            if i.device == default { "  (default)" } else { "" }
        );
    }
    let (best, why) = webtensor::best_device_with_reason();
    println!(
        "
best device: {best} ({why})"
    );
    println!("default device (where tensors go without one): {default}");
}

/// Devices for a tour: every device except software OpenGL adapters (llvmpipe through GL, which
/// duplicates lavapipe and whose shader compiler takes minutes). Skipped ones come back with the
/// reason; `--device` still reaches them.
pub fn tour_devices() -> (Vec<Device>, Vec<String>) {
    let mut run = Vec::new();
    let mut skipped = Vec::new();
    for i in webtensor::devices() {
        if i.backend == "gl" && i.software {
            skipped.push(format!(
                "{} ({}, OpenGL) skipped: a software GL adapter compiles shaders for minutes; pass --device {} to run it",
                i.device, i.name, i.device
            ));
        } else {
            run.push(i.device);
        }
    }
    (run, skipped)
}

/// The workload: a two-layer perceptron over a batch, then class probabilities and statistics.
fn workload(device: Device) -> webtensor::Result<Tensor> {
    let x = Tensor::randn(&[512, 768], Some(1), device)?;
    let w1 = Tensor::randn(&[768, 1024], Some(2), device)?.mul_scalar(1.0 / 768f64.sqrt())?;
    let w2 = Tensor::randn(&[1024, 10], Some(3), device)?.mul_scalar(1.0 / 1024f64.sqrt())?;
    let h = x.matmul(&w1)?.gelu()?;
    let p = h.matmul(&w2)?.softmax(-1)?;
    let stats = Tensor::stack(&[p.mean(&[0], false)?, p.max(&[0], false)?, p.std(&[0], 1, false)?], 0)?;
    Ok(stats)
}

/// Runs the workload on `device` (or every device) and compares with the CPU.
pub fn run(device: Option<Device>) -> Result<(), String> {
    print_devices();
    let devices: Vec<Device> = match device {
        Some(d) if d == Device::CPU => vec![d],
        Some(d) => vec![Device::CPU, d],
        None => {
            let (run, skipped) = tour_devices();
            skipped.iter().for_each(|s| println!("{s}"));
            run
        }
    };
    let (best, _) = webtensor::best_device_with_reason();
    if best == Device::CPU && device.is_none() {
        let others = devices.iter().any(|d| *d != Device::CPU);
        println!(
            "(no hardware GPU: the CPU is the main device{})",
            if others { "; software adapters run for comparison" } else { "" }
        );
    }
    println!("\nworkload: [512x768] @ [768x1024] -> gelu -> @ [1024x10] -> softmax -> mean/max/std\n");
    println!("{:<10} {:>12} {:>12} {:>16}  result", "device", "first (ms)", "warm (ms)", "max |diff| cpu");
    let reference = workload(Device::CPU).and_then(|t| t.to_vec_blocking::<f32>()).map_err(|e| e.to_string())?;
    let mut failures = 0;
    for d in devices {
        let timed = || -> webtensor::Result<(f64, Vec<f32>)> {
            let t0 = Instant::now();
            let out = workload(d)?;
            webtensor::synchronize_blocking(d)?;
            let v = out.to_vec_blocking::<f32>()?;
            Ok((t0.elapsed().as_secs_f64() * 1e3, v))
        };
        match timed().and_then(|(first, _)| timed().map(|(warm, v)| (first, warm, v))) {
            Ok((first, warm, v)) => {
                let diff = v.iter().zip(&reference).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
                let ok = diff < 1e-4;
                failures += (!ok) as usize;
                println!(
                    "{:<10} {:>12.1} {:>12.1} {:>16.2e}  {}",
                    d.to_string(),
                    first,
                    warm,
                    diff,
                    if ok { "agrees" } else { "DIFFERS" }
                );
            }
            Err(e) => {
                failures += 1;
                println!("{:<10} failed: {e}", d.to_string());
            }
        }
    }
    let class = |i: usize| reference[i];
    println!("\nmean probability of class 0..3 (cpu): {:.4} {:.4} {:.4} {:.4}", class(0), class(1), class(2), class(3));
    println!("\n{}", webtensor::memory_summary(best).map_err(|e| e.to_string())?);
    if failures > 0 {
        return Err(format!("{failures} device(s) failed or disagreed with the cpu"));
    }
    Ok(())
}
