//! What to do when a training step runs out of memory: catch `Error::OutOfMemory`, clear the
//! gradients, and take the same step as several smaller micro-batches whose gradients
//! accumulate before one optimizer step (each mean loss weighted by its share). The model,
//! optimizer and data are intact after the failure, so the retry reaches the update the full
//! batch would have made.
//!
//! `cargo run --example oom_retry [device]` sets a memory limit that a full batch passes.

use webtensor::nn::{self, ClassLossOptions, Linear, LinearOptions, Module, ReLU, Sequential};
use webtensor::optim::{Optimizer, SgdOptions, SGD};
use webtensor::{Device, Error, Tensor};

/// One optimizer step over `x`/`y`, split into `parts` micro-batches; on out-of-memory, twice
/// as many, down to one row per micro-batch. Returns the number of parts that fit.
fn step_with_retry(model: &Sequential, opt: &mut SGD, x: &Tensor, y: &Tensor) -> webtensor::Result<usize> {
    let rows = x.shape()[0];
    let mut parts = 1;
    loop {
        match accumulated_step(model, opt, x, y, parts) {
            Ok(()) => return Ok(parts),
            Err(e @ Error::OutOfMemory { .. }) if parts < rows => {
                let first = e.to_string().split(';').next().unwrap_or_default().to_string();
                println!("  {parts} part(s): {first}; retrying with {}", parts * 2);
                parts *= 2;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Zeroes the gradients, accumulates the gradient of the batch's mean loss over `parts`
/// micro-batches, then steps once. A failure before `step` changes no weight.
fn accumulated_step(model: &Sequential, opt: &mut SGD, x: &Tensor, y: &Tensor, parts: usize) -> webtensor::Result<()> {
    opt.zero_grad();
    let rows = x.shape()[0] as f64;
    for (xs, ys) in x.chunk(parts, 0)?.iter().zip(y.chunk(parts, 0)?) {
        let loss = nn::cross_entropy(&model.forward(xs)?, &ys, ClassLossOptions::default())?;
        loss.mul_scalar(xs.shape()[0] as f64 / rows)?.backward()?;
    }
    opt.step()
}

fn main() -> webtensor::Result<()> {
    let d = match std::env::args().nth(1) {
        Some(s) => Device::parse(&s)?,
        None => webtensor::best_device(),
    };
    let o = |seed| LinearOptions { seed: Some(seed), device: Some(d), ..Default::default() };
    let model =
        Sequential::new().push(Linear::new(256, 2048, o(1))?)?.push(ReLU::new())?.push(Linear::new(2048, 10, o(2))?)?;
    let mut opt = SGD::new(model.parameters(), SgdOptions { lr: 0.1, ..Default::default() })?;
    let x = Tensor::randn(&[1024, 256], Some(3), d)?;
    let labels: Vec<i32> = (0..1024).map(|i| i % 10).collect();
    let y = Tensor::from_slice(&labels, &[1024], d)?;

    // Leave room for the model and data plus about a quarter of what a full batch's
    // activations need (a [1024, 2048] f32 activation is 8 MiB).
    let base = webtensor::memory_allocated(d)?;
    webtensor::set_memory_limit(d, Some(base + (12 << 20)))?;
    println!("{d}: {} MiB in use, limit {} MiB", base >> 20, (base + (12 << 20)) >> 20);
    for step in 0..3 {
        let parts = step_with_retry(&model, &mut opt, &x, &y)?;
        println!("step {step}: done in {parts} micro-batch(es) of {} rows", 1024 / parts);
    }
    webtensor::set_memory_limit(d, None)?;
    Ok(())
}
