//! Several devices in one program, PyTorch's way and TensorFlow's: the data stays on the CPU,
//! the model on an accelerator (the first GPU adapter, hardware or software, else the CPU),
//! every crossing is an explicit `to`, and the placement log and transfer counters show what
//! ran where and what moved. Then soft placement: asking for a device that does not exist
//! falls back to one that does, and says so in the log.
//!
//! `cargo run --example mixed_devices [device]`
use webtensor::nn::{self, Linear, LinearOptions, Module};
use webtensor::{DType, Device, Tensor};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = match std::env::args().nth(1) {
        Some(name) => Device::parse(&name)?,
        None => webtensor::devices().iter().find(|i| i.backend != "cpu").map(|i| i.device).unwrap_or(Device::CPU),
    };
    println!("data on cpu, model on {gpu}");
    let model = Linear::new(16, 4, LinearOptions { seed: Some(1), ..Default::default() })?;
    model.to_blocking(gpu)?;
    let x = Tensor::randn(&[64, 16], Some(2), Device::CPU)?;
    let y = Tensor::randint(0, 4, &[64], Some(3), DType::I32, Device::CPU)?;

    // Forgetting the move is an error naming both devices, as in PyTorch; nothing is copied behind your back.
    if gpu != Device::CPU {
        let err = model.forward(&x).err().ok_or("a CPU batch ran through a GPU model")?;
        println!("without `to`: {err}");
    }
    webtensor::set_log_device_placement(true);
    webtensor::clear_placement_log();
    let (xg, yg) = (x.to_blocking(gpu)?, y.to_blocking(gpu)?);
    let loss = nn::cross_entropy(&model.forward(&xg)?, &yg, Default::default())?;
    loss.backward()?;
    let value: f32 = loss.to_blocking(Device::CPU)?.item_blocking()?;
    let ops: Vec<String> = webtensor::placement_log().iter().map(|p| format!("{}@{}", p.op, p.output)).collect();
    println!(
        "loss {value:.4}; {} ops logged: {} ...",
        ops.len(),
        ops.iter().take(6).cloned().collect::<Vec<_>>().join(" ")
    );
    let t = webtensor::transfer_stats(gpu)?;
    println!(
        "{gpu}: {} B up in {} copies, {} B down",
        t.host_to_device_bytes, t.host_to_device_copies, t.device_to_host_bytes
    );

    // The same computation on the CPU gives the same loss.
    let cpu_model = Linear::new(16, 4, LinearOptions { seed: Some(1), ..Default::default() })?;
    let cpu_loss: f32 = nn::cross_entropy(&cpu_model.forward(&x)?, &y, Default::default())?.item_blocking()?;
    if (cpu_loss - value).abs() > 1e-5 {
        return Err(format!("{gpu} gave loss {value}, the cpu {cpu_loss}").into());
    }

    // Soft placement (TensorFlow's): a device that does not exist falls back, and the log says so.
    webtensor::set_soft_device_placement(true);
    let z = Tensor::ones(&[3], DType::F32, Device::webgpu(57))?;
    let fallback = webtensor::placement_log().into_iter().rev().find(|p| p.fallback.is_some());
    println!("asked for webgpu:57, got {} ({:?})", z.device(), fallback.and_then(|p| p.fallback));
    webtensor::set_soft_device_placement(false);
    webtensor::set_log_device_placement(false);
    Ok(())
}
