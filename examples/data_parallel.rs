//! Data parallel training as PyTorch's `DataParallel` does it: one replica per device, each
//! global batch split across them, gradients averaged, every replica stepped identically. The
//! devices are the CPU and the first GPU adapter (or those named on the command line); the
//! weights after training must equal those of the same training on one device.
//!
//! `cargo run --example data_parallel [device,device,...]`
use webtensor::nn::{self, Linear, LinearOptions, Module};
use webtensor::optim::{Optimizer, SgdOptions, SGD};
use webtensor::parallel::DataParallel;
use webtensor::{DType, Device, Tensor};

fn model(device: Device) -> webtensor::Result<Linear> {
    let m = Linear::new(8, 3, LinearOptions { seed: Some(1), ..Default::default() })?;
    m.to_blocking(device)?;
    Ok(m)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let devices: Vec<Device> = match std::env::args().nth(1) {
        Some(list) => list.split(',').map(Device::parse).collect::<webtensor::Result<_>>()?,
        None => {
            let gpu = webtensor::devices().iter().find(|i| i.backend != "cpu").map(|i| i.device);
            std::iter::once(Device::CPU).chain(gpu).collect()
        }
    };
    let names: Vec<String> = devices.iter().map(|d| d.to_string()).collect();
    println!("replicas on {}", names.join(", "));
    let dp = DataParallel::new_blocking(&devices, model)?;
    let sgd = || SgdOptions { lr: 0.1, momentum: 0.9, ..Default::default() };
    let mut opt = dp.optimizer(|params| SGD::new(params, sgd()))?;
    let single = model(Device::CPU)?;
    let mut single_opt = SGD::new(single.parameters(), sgd())?;
    let ce = |out: &Tensor, y: &Tensor| nn::cross_entropy(out, y, Default::default());
    for step in 0..20u64 {
        // The global batch, on the CPU; forward_backward splits it across the replicas.
        let x = Tensor::randn(&[30, 8], Some(100 + step), Device::CPU)?;
        let y = Tensor::randint(0, 3, &[30], Some(200 + step), DType::I32, Device::CPU)?;
        opt.zero_grad();
        let loss: f32 = dp.forward_backward_blocking(&x, &y, ce)?.to_blocking(Device::CPU)?.item_blocking()?;
        opt.step()?;
        single_opt.zero_grad();
        ce(&single.forward(&x)?, &y)?.backward()?;
        single_opt.step()?;
        if step % 5 == 0 {
            println!("step {step}: loss {loss:.4}");
        }
    }
    // Every replica holds the weights one device reaches on the same batches, within f32 rounding.
    let mut worst = 0.0f32;
    for replica in dp.replicas() {
        for ((name, a), (_, b)) in replica.state_dict().iter().zip(single.state_dict()) {
            let a: Vec<f32> = a.to_blocking(Device::CPU)?.to_vec_blocking()?;
            let b: Vec<f32> = b.to_vec_blocking()?;
            let diff = a.iter().zip(&b).map(|(p, q)| (p - q).abs()).fold(0.0, f32::max);
            worst = worst.max(diff);
            if diff > 2e-4 {
                return Err(format!("{name} differs from one device's by {diff}").into());
            }
        }
    }
    println!("{} replicas agree with one device's training (largest difference {worst:.1e})", dp.replicas().len());
    Ok(())
}
