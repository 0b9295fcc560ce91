//! A training loop as PyTorch users write one, with a checkpoint: a small MLP learns which side
//! of a line a point is on (synthetic, seeded data), batches come from a `DataLoader`, Adam
//! steps on cross-entropy, then the weights go to a `.safetensors` file (PyTorch's keys) and
//! load into a fresh model that must predict the same. Fails unless test accuracy passes 95%.
//!
//! `cargo run --example train [device]`
use webtensor::data::{DataLoader, DataLoaderOptions, TensorDataset};
use webtensor::nn::{
    self, load_safetensors, save_safetensors_blocking, Linear, LinearOptions, Module, ReLU, Sequential,
};
use webtensor::optim::{Adam, AdamOptions, Optimizer};
use webtensor::{DType, Device, Tensor};

/// Points in the plane and their class: 1 where `x + 2y > 0.5`.
fn points(n: usize, seed: u64) -> webtensor::Result<(Tensor, Tensor)> {
    let x = Tensor::randn(&[n, 2], Some(seed), None)?;
    let w = Tensor::from_slice(&[1.0f32, 2.0], &[2, 1], Device::CPU)?;
    let y = x.matmul(&w)?.gt_scalar(0.5)?.to_dtype(DType::I32)?.reshape(&[-1])?;
    Ok((x, y))
}

fn mlp(seed: u64) -> webtensor::Result<Sequential> {
    let lin = |i, o, s| Linear::new(i, o, LinearOptions { seed: Some(s), ..Default::default() });
    Sequential::new().push(lin(2, 32, seed)?)?.push(ReLU::new())?.push(lin(32, 2, seed + 1)?)
}

/// The fraction of `x` that `model` classifies as `y`.
fn accuracy(model: &Sequential, x: &Tensor, y: &Tensor) -> webtensor::Result<f32> {
    let _g = webtensor::no_grad();
    let hits = model.forward(x)?.argmax(Some(1), false)?.eq(y)?.to_dtype(DType::F32)?.mean_all()?;
    hits.to_blocking(Device::CPU)?.item_blocking()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dev = match std::env::args().nth(1) {
        Some(name) => Device::parse(&name)?,
        None => webtensor::best_device(),
    };
    let (x, y) = points(2048, 0)?;
    let (x_test, y_test) = points(512, 1)?;
    let (x_test, y_test) = (x_test.to_blocking(dev)?, y_test.to_blocking(dev)?);
    let model = mlp(7)?;
    model.to_blocking(dev)?;
    let mut opt = Adam::new(model.parameters(), AdamOptions { lr: 1e-2, ..Default::default() })?;
    let opts = DataLoaderOptions { batch_size: 128, shuffle: true, seed: Some(0), ..Default::default() };
    let mut loader = DataLoader::new(TensorDataset::new(vec![x, y])?, opts)?;
    println!("training on {dev}");
    for epoch in 0..8 {
        let mut total = 0.0;
        let mut batches = 0;
        for batch in loader.iter() {
            let b = batch?;
            let (xb, yb) = (b[0].to_blocking(dev)?, b[1].to_blocking(dev)?);
            opt.zero_grad();
            let loss = nn::cross_entropy(&model.forward(&xb)?, &yb, Default::default())?;
            loss.backward()?;
            opt.step()?;
            total += loss.to_blocking(Device::CPU)?.item_blocking::<f32>()?;
            batches += 1;
        }
        let acc = accuracy(&model, &x_test, &y_test)?;
        println!("epoch {epoch}: loss {:.4}, test accuracy {:.1}%", total / batches as f32, 100.0 * acc);
    }
    let acc = accuracy(&model, &x_test, &y_test)?;
    if acc < 0.95 {
        return Err(format!("test accuracy {acc} after training; expected above 0.95").into());
    }

    // A checkpoint: PyTorch's keys ("0.weight", "0.bias", "2.weight", ...) in a .safetensors file.
    let path = std::env::temp_dir().join(format!("webtensor-example-{}.safetensors", std::process::id()));
    std::fs::write(&path, save_safetensors_blocking(&model.state_dict(), &[("epochs".into(), "8".into())])?)?;
    let restored = mlp(99)?; // other initial weights, replaced by the file's
    restored.to_blocking(dev)?; // load_state_dict copies into the parameters where they are
    restored.load_state_dict_blocking(&load_safetensors(&std::fs::read(&path)?, Some(dev))?)?;
    std::fs::remove_file(&path)?;
    let again = accuracy(&restored, &x_test, &y_test)?;
    println!("checkpoint {} reloaded: test accuracy {:.1}%", path.display(), 100.0 * again);
    if again != acc {
        return Err(format!("the reloaded model scores {again}, the trained one {acc}").into());
    }
    Ok(())
}
