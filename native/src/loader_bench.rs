//! `webtensor bench-loader`: what prefetching buys. An epoch of training on augmented digits
//! (each 8x8 image turned, scaled and shifted into 28x28 with noise, on the CPU, per sample: the
//! work a real pipeline's decoding and augmentation does), logging the loss every step as loops
//! do, once with the plain loader (batch, `to(device)`, step) and once with
//! `DataLoader::prefetch` and `pin_memory` (a worker thread prepares, pins and uploads the next
//! batches meanwhile),
//! alternating, in one run. Prints the epoch times and the speed-up.

use std::time::Instant;

use webtensor::data::{DataLoader, DataLoaderOptions, Dataset};
use webtensor::nn::{self, ClassLossOptions, Linear, LinearOptions, Module, ReLU, Sequential};
use webtensor::optim::{Adam, AdamOptions, Optimizer};
use webtensor::{Device, Tensor, ToOptions};

/// Errors of this command: the library's, or a message of its own.
type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// The digits with a random affine warp and noise per sample, drawn from the sample's index
/// (the same variant every epoch: the work, not the variety, is what is measured).
#[derive(Clone)]
struct Augmented {
    images: std::sync::Arc<Vec<f32>>,
    labels: std::sync::Arc<Vec<i32>>,
}

/// SplitMix64: a few random numbers per sample.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Augmented {
    fn load() -> Res<Augmented> {
        let (images, labels) = crate::digits::load()?;
        Ok(Augmented {
            images: std::sync::Arc::new(images.to_vec_blocking::<f32>()?),
            labels: std::sync::Arc::new(labels.to_vec_blocking::<i32>()?),
        })
    }

    /// Image `i` warped into 28x28: rotation up to 15 degrees, scale 0.9-1.1, shift up to 2
    /// pixels, bilinear sampling, then noise.
    fn warp(&self, i: usize, out: &mut [f32]) {
        let r = |k: u64| (mix(i as u64 * 8 + k) >> 11) as f32 / (1u64 << 53) as f32;
        let angle = (r(0) - 0.5) * 0.52;
        let scale = 0.9 + 0.2 * r(1);
        let (dx, dy) = ((r(2) - 0.5) * 4.0, (r(3) - 0.5) * 4.0);
        let (c, s) = (angle.cos() / scale, angle.sin() / scale);
        let src = &self.images[i * 64..(i + 1) * 64];
        let at =
            |x: i32, y: i32| if (0..8).contains(&x) && (0..8).contains(&y) { src[(y * 8 + x) as usize] } else { 0.0 };
        for oy in 0..28 {
            for ox in 0..28 {
                // Output pixel -> source coordinates (8x8 image centred in the 28x28 frame).
                let (u, v) = (ox as f32 - 13.5 - dx, oy as f32 - 13.5 - dy);
                let (sx, sy) = ((c * u + s * v) * 8.0 / 24.0 + 3.5, (-s * u + c * v) * 8.0 / 24.0 + 3.5);
                let (x0, y0) = (sx.floor() as i32, sy.floor() as i32);
                let (fx, fy) = (sx - x0 as f32, sy - y0 as f32);
                let v = at(x0, y0) * (1.0 - fx) * (1.0 - fy)
                    + at(x0 + 1, y0) * fx * (1.0 - fy)
                    + at(x0, y0 + 1) * (1.0 - fx) * fy
                    + at(x0 + 1, y0 + 1) * fx * fy;
                let noise = ((mix((i * 784 + oy * 28 + ox) as u64) >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.1;
                out[oy * 28 + ox] = (v + noise).clamp(0.0, 1.0);
            }
        }
    }
}

impl Dataset for Augmented {
    fn len(&self) -> usize {
        self.labels.len()
    }

    fn get(&self, index: usize) -> webtensor::Result<Vec<Tensor>> {
        let mut px = vec![0.0f32; 784];
        self.warp(index, &mut px);
        Ok(vec![
            Tensor::from_slice(&px, &[784], Device::CPU)?,
            Tensor::from_slice(&[self.labels[index]], &[], Device::CPU)?,
        ])
    }

    /// One buffer per batch rather than a stack of samples.
    fn get_batch(&self, indices: &[usize]) -> webtensor::Result<Vec<Tensor>> {
        let mut px = vec![0.0f32; indices.len() * 784];
        for (k, &i) in indices.iter().enumerate() {
            self.warp(i, &mut px[k * 784..(k + 1) * 784]);
        }
        let labels: Vec<i32> = indices.iter().map(|&i| self.labels[i]).collect();
        Ok(vec![
            Tensor::from_slice(&px, &[indices.len(), 784], Device::CPU)?,
            Tensor::from_slice(&labels, &[indices.len()], Device::CPU)?,
        ])
    }
}

/// One epoch; returns seconds and the mean loss.
fn epoch(
    d: Device,
    loader: &mut DataLoader<Augmented>,
    model: &Sequential,
    opt: &mut Adam,
    prefetch: bool,
) -> webtensor::Result<(f64, f32)> {
    let t0 = Instant::now();
    let mut step = |x: &Tensor, y: &Tensor| -> webtensor::Result<f32> {
        opt.zero_grad();
        let loss = nn::cross_entropy(&model.forward(x)?, y, ClassLossOptions::default())?;
        loss.backward()?;
        opt.step()?;
        loss.item_blocking::<f32>() // logged every step, as training loops do
    };
    let (mut sum, mut n) = (0.0f32, 0);
    if prefetch {
        for batch in loader.prefetch(d, 2)? {
            let b = batch?;
            sum += step(&b[0], &b[1])?;
            n += 1;
        }
    } else {
        for batch in loader.iter() {
            let b = batch?;
            let opts = ToOptions { non_blocking: true };
            let (x, y) = (b[0].to_with_blocking(d, opts)?, b[1].to_with_blocking(d, opts)?);
            sum += step(&x, &y)?;
            n += 1;
        }
    }
    webtensor::synchronize_blocking(d)?;
    Ok((t0.elapsed().as_secs_f64(), sum / n.max(1) as f32))
}

/// Runs `epochs` epochs each way, alternating, and prints a table or JSON.
pub fn run(device: Option<Device>, epochs: usize, batch_size: usize, json: bool) -> Res<()> {
    let d = device.unwrap_or_else(webtensor::best_device);
    let data = Augmented::load()?;
    let opts = |s| LinearOptions { seed: Some(s), device: Some(d), ..Default::default() };
    let model = Sequential::new().push(Linear::new(784, 256, opts(1))?)?.push(ReLU::new())?.push(Linear::new(
        256,
        10,
        opts(2),
    )?)?;
    let mut opt = Adam::new(model.parameters(), AdamOptions { lr: 1e-3, ..Default::default() })?;
    let plain_opts =
        DataLoaderOptions { batch_size, shuffle: true, seed: Some(0), drop_last: false, pin_memory: false };
    let mut loader = DataLoader::new(data.clone(), plain_opts)?;
    // The prefetching loader also pins its batches (page-locked host memory where a CUDA
    // device exists), as PyTorch's pin_memory=True with non_blocking copies.
    let mut pinned = DataLoader::new(data, DataLoaderOptions { pin_memory: true, ..plain_opts })?;
    // A warm-up epoch of each (pipelines compiled, caches filled).
    epoch(d, &mut loader, &model, &mut opt, false)?;
    epoch(d, &mut pinned, &model, &mut opt, true)?;
    let (mut plain, mut ahead) = (Vec::new(), Vec::new());
    for _ in 0..epochs {
        plain.push(epoch(d, &mut loader, &model, &mut opt, false)?);
        ahead.push(epoch(d, &mut pinned, &model, &mut opt, true)?);
    }
    let median = |v: &[(f64, f32)]| {
        let mut s: Vec<f64> = v.iter().map(|e| e.0).collect();
        s.sort_by(|a, b| a.total_cmp(b));
        s[s.len() / 2]
    };
    let (mp, ma) = (median(&plain), median(&ahead));
    let n = loader.dataset().len();
    if json {
        let out = serde_json::json!({
            "device": d.to_string(), "batch_size": batch_size, "images": n, "epochs": epochs,
            "plain_seconds": plain.iter().map(|e| e.0).collect::<Vec<_>>(),
            "prefetch_seconds": ahead.iter().map(|e| e.0).collect::<Vec<_>>(),
            "speedup": mp / ma,
        });
        println!("{out}");
    } else {
        println!("# {d}: {n} digits warped to 28x28 per sample on the CPU, MLP 784-256-10, batch {batch_size}, loss read every step");
        println!("{:<22} {:>14} {:>12} {:>10}", "loader", "epoch s (med)", "samples/s", "last loss");
        for (name, v, m) in [("plain (to, step)", &plain, mp), ("prefetch + pin_memory", &ahead, ma)] {
            let last = v.last().map(|e| e.1).unwrap_or(f32::NAN);
            println!("{name:<22} {m:>14.3} {:>12.0} {last:>10.4}", n as f64 / m);
        }
        println!("prefetch speed-up: {:.2}x (epochs alternate; {epochs} of each after one warm-up each)", mp / ma);
    }
    Ok(())
}
