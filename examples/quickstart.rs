//! Device choice and `to`, as a PyTorch user does them: list the devices, take the best (or
//! the one named on the command line), compute there, move the result with an explicit `to`,
//! and see the error an op over two devices gives. Checks that the device's answer is the CPU's.
//!
//! `cargo run --example quickstart [device]` (for example `webgpu:0`, `cpu`, `/GPU:0`).
use webtensor::{DType, Device, Tensor};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    for info in webtensor::devices() {
        println!(
            "{:<10} {:<7} {}{}",
            info.device,
            info.backend,
            info.name,
            if info.software { " (software)" } else { "" }
        );
    }
    let (best, why) = webtensor::best_device_with_reason();
    let dev = match std::env::args().nth(1) {
        Some(name) => Device::parse(&name)?,
        None => best,
    };
    println!("using {dev} (best: {best}, because {why})");

    // The same seeded values on every device; the work is queued, nothing waits yet.
    let x = Tensor::randn(&[256, 256], Some(0), dev)?;
    let y = x.matmul(&x.t()?)?.relu()?.mean_all()?;
    let here: f32 = y.to_blocking(Device::CPU)?.item_blocking()?; // an explicit move, then a read
    let xc = x.to_blocking(Device::CPU)?;
    let reference: f32 = xc.matmul(&xc.t()?)?.relu()?.mean_all()?.item_blocking()?;
    println!("mean(relu(x xᵀ)) on {dev}: {here:.6}, on cpu: {reference:.6}");
    if (here - reference).abs() > 1e-4 * reference.abs().max(1.0) {
        return Err(format!("{dev} gave {here}, the cpu {reference}").into());
    }

    // Tensors on two devices never meet silently: `meta` holds shapes only, so it always differs.
    let shapes_only = Tensor::zeros(&[256, 256], DType::F32, Device::META)?;
    match xc.add(&shapes_only) {
        Err(e) => println!("as in PyTorch: {e}"),
        Ok(_) => return Err("an op over two devices ran".into()),
    }
    webtensor::synchronize_blocking(dev)?;
    println!("{}", webtensor::memory_summary(dev)?);
    Ok(())
}
