//! `webtensor bench-train`: the time of one training step (forward, cross-entropy, backward,
//! Adam) of an MLP on random data, per device, with the kernel launches per step and whether
//! memory stayed flat. `scripts/bench-train-vs-torch.sh` runs the same model in PyTorch beside
//! it.

use std::time::Instant;

use webtensor::nn::{self, ClassLossOptions, Linear, LinearOptions, Module, ReLU, Sequential};
use webtensor::optim::{Adam, AdamOptions, Optimizer};
use webtensor::{Device, Tensor};

/// The model and batch: `[batch, 784] -> hidden -> hidden -> 10`.
pub struct Shape {
    pub batch: usize,
    pub hidden: usize,
    pub steps: usize,
}

/// One device's result.
struct Row {
    device: Device,
    ms_per_step: f64,
    launches_per_step: u64,
    flat: bool,
    final_loss: f32,
}

fn bench(d: Device, s: &Shape) -> webtensor::Result<Row> {
    let o = |seed| LinearOptions { seed: Some(seed), device: Some(d), ..Default::default() };
    let model = Sequential::new()
        .push(Linear::new(784, s.hidden, o(1))?)?
        .push(ReLU::new())?
        .push(Linear::new(s.hidden, s.hidden, o(2))?)?
        .push(ReLU::new())?
        .push(Linear::new(s.hidden, 10, o(3))?)?;
    let x = Tensor::randn(&[s.batch, 784], Some(4), d)?;
    let labels: Vec<i32> = (0..s.batch as i32).map(|i| (i * 7) % 10).collect();
    let y = Tensor::from_slice(&labels, &[s.batch], d)?;
    let mut opt = Adam::new(model.parameters(), AdamOptions { lr: 1e-3, ..Default::default() })?;
    let mut step = || -> webtensor::Result<Tensor> {
        opt.zero_grad();
        let loss = nn::cross_entropy(&model.forward(&x)?, &y, ClassLossOptions::default())?;
        loss.backward()?;
        opt.step()?;
        Ok(loss)
    };
    for _ in 0..5 {
        step()?;
    }
    webtensor::synchronize_blocking(d)?;
    let (mem0, launches0) = (webtensor::memory_allocated(d)?, webtensor::kernel_launches(d)?);
    let t0 = Instant::now();
    let mut loss = None;
    for _ in 0..s.steps {
        loss = Some(step()?);
    }
    webtensor::synchronize_blocking(d)?;
    let secs = t0.elapsed().as_secs_f64();
    let launches = webtensor::kernel_launches(d)? - launches0;
    let final_loss = match loss {
        Some(l) => l.item_blocking::<f32>()?,
        None => f32::NAN,
    };
    Ok(Row {
        device: d,
        ms_per_step: secs * 1e3 / s.steps as f64,
        launches_per_step: launches / s.steps as u64,
        flat: webtensor::memory_allocated(d)? == mem0,
        final_loss,
    })
}

/// Runs the benchmark on `device` (or every device) and prints a table or JSON.
pub fn run(device: Option<Device>, s: &Shape, json: bool) -> webtensor::Result<()> {
    let devices: Vec<Device> = match device {
        Some(d) => vec![d],
        None => webtensor::devices().into_iter().map(|i| i.device).collect(),
    };
    let mut rows = Vec::new();
    for d in devices {
        match bench(d, s) {
            Ok(r) => rows.push(r),
            Err(e) => eprintln!("{d}: skipped: {e}"),
        }
    }
    if json {
        let items: Vec<String> = rows
            .iter()
            .map(|r| {
                format!(
                    "{{\"device\":\"{}\",\"ms_per_step\":{:.4},\"launches_per_step\":{},\"memory_flat\":{},\"final_loss\":{}}}",
                    r.device, r.ms_per_step, r.launches_per_step, r.flat, r.final_loss
                )
            })
            .collect();
        println!(
            "{{\"batch\":{},\"hidden\":{},\"steps\":{},\"results\":[{}]}}",
            s.batch,
            s.hidden,
            s.steps,
            items.join(",")
        );
        return Ok(());
    }
    println!(
        "MLP 784-{h}-{h}-10, batch {b}, Adam, {n} timed steps (after 5 warm-up)",
        h = s.hidden,
        b = s.batch,
        n = s.steps
    );
    println!(
        "{:<10} {:>10} {:>12} {:>12} {:>12} {:>11}",
        "device", "ms/step", "samples/s", "launches", "memory", "final loss"
    );
    for r in rows {
        println!(
            "{:<10} {:>10.3} {:>12.0} {:>12} {:>12} {:>11.4}",
            r.device.to_string(),
            r.ms_per_step,
            s.batch as f64 * 1e3 / r.ms_per_step,
            r.launches_per_step,
            if r.flat { "flat" } else { "grew" },
            r.final_loss
        );
    }
    Ok(())
}
