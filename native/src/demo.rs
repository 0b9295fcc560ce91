//! `webtensor demo` and `webtensor devices`: list the devices, run the k-means demo on the main
//! device and the others of the tour, and show that every device agrees with the CPU.

use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use webtensor::Device;

use crate::kmeans;

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
    println!("{}", cuda_status());
    let (best, why) = webtensor::best_device_with_reason();
    println!(
        "
best device: {best} ({why})"
    );
    println!("default device (where tensors go without one): {default}");
}

/// One line on CUDA, as `torch.cuda.is_available()` answers: not built in, built in with N
/// devices, or built in but unavailable and why (no driver, no NVRTC, ...).
pub fn cuda_status() -> String {
    if !webtensor::cuda_compiled() {
        return "cuda: not built into this version (build with --features cuda)".into();
    }
    let n = webtensor::device_count(webtensor::DeviceKind::Cuda);
    if n > 0 {
        return format!("cuda: built in; {n} device(s); TF32 for f32 matmul: {}", webtensor::allow_tf32());
    }
    match webtensor::Tensor::zeros(&[1], webtensor::DType::F32, Device::cuda(0)) {
        Err(e) => format!("cuda: built in, but no CUDA device is available ({e})"),
        Ok(_) => "cuda: built in; a device answered but is not listed".into(),
    }
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

/// Runs the k-means demo on the main device (`device`, else the best device) and, for comparison,
/// on the other tour devices: per-device timings, agreement with the cpu, memory stats, and the
/// image written to `output`.
pub fn run(device: Option<Device>, output: &std::path::Path, iterations: usize) -> Result<(), String> {
    print_devices();
    let (best, why) = webtensor::best_device_with_reason();
    let main = device.unwrap_or(best);
    let mut order = vec![main];
    if device.is_none() {
        let (tour, skipped) = tour_devices();
        skipped.iter().for_each(|s| println!("{s}"));
        order.extend(tour.into_iter().filter(|d| *d != main));
    } else if main != Device::CPU {
        order.push(Device::CPU);
    }
    println!(
        "
main device: {main}{}",
        if device.is_none() { format!(" ({why})") } else { String::new() }
    );
    println!(
        "workload: k-means colour quantisation of a {}x{} image to {} colours, {iterations} iterations\n",
        kmeans::WIDTH,
        kmeans::HEIGHT,
        kmeans::COLOURS
    );
    let pixels = kmeans::draw();
    let mut results = Vec::new();
    for d in &order {
        let bar = ProgressBar::new(iterations as u64);
        bar.set_style(
            ProgressStyle::with_template("{prefix:>10} [{bar:30}] {pos}/{len} iterations")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_prefix(d.to_string());
        let t0 = Instant::now();
        let r = kmeans::run(*d, &pixels, iterations, &|_| bar.inc(1)).and_then(|q| {
            webtensor::synchronize_blocking(*d)?;
            Ok(q)
        });
        bar.finish_and_clear();
        results.push((*d, t0.elapsed().as_secs_f64() * 1e3, r));
    }
    let cpu = results.iter().find(|(d, _, r)| *d == Device::CPU && r.is_ok()).and_then(|(_, _, r)| r.as_ref().ok());
    println!("{:<10} {:>10} {:>19} {:>16}  result", "device", "time (ms)", "max |centroid diff|", "same label");
    let mut failures = 0;
    for (d, ms, r) in &results {
        match (r, cpu) {
            (Ok(q), Some(c)) => {
                let diff = q.centroids.iter().zip(&c.centroids).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
                let same =
                    q.labels.iter().zip(&c.labels).filter(|(a, b)| a == b).count() as f64 / q.labels.len() as f64;
                // Ties between equally near colours may break differently in float arithmetic.
                let ok = diff < 1e-3 && same > 0.999;
                failures += (!ok) as usize;
                println!(
                    "{:<10} {:>10.1} {:>19.2e} {:>15.3}%  {}",
                    d.to_string(),
                    ms,
                    diff,
                    same * 100.0,
                    if ok { "agrees with cpu" } else { "DIFFERS from cpu" }
                );
            }
            (Ok(_), None) => println!("{:<10} {:>10.1}  (no cpu result to compare)", d.to_string(), ms),
            (Err(e), _) => {
                failures += 1;
                println!("{:<10} failed: {e}", d.to_string());
            }
        }
    }
    if let Some((_, _, Ok(q))) = results.first() {
        kmeans::write_png(output, &pixels, q)?;
        println!(
            "\nwrote {} (left: the original, right: {} colours computed on {main})",
            output.display(),
            kmeans::COLOURS
        );
        let palette: Vec<String> = q
            .centroids
            .chunks(3)
            .map(|c| {
                let b = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
                format!("#{:02x}{:02x}{:02x}", b(c[0]), b(c[1]), b(c[2]))
            })
            .collect();
        println!("palette: {}", palette.join(" "));
    }
    println!("\n{}", webtensor::memory_summary(main).map_err(|e| e.to_string())?);
    if failures > 0 {
        return Err(format!("{failures} device(s) failed or disagreed with the cpu"));
    }
    Ok(())
}
