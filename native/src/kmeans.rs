//! The demo's workload: k-means colour quantisation of an image the binary draws itself. Every
//! step is a tensor op on the chosen device: squared distances through one matmul, `argmin` for
//! the assignment, a one-hot matrix from a broadcast `eq`, and the new centroids from another
//! matmul.

use webtensor::{DType, Device, Result, Tensor};

/// Image size and the number of colours.
pub const WIDTH: usize = 480;
pub const HEIGHT: usize = 320;
pub const COLOURS: usize = 8;

/// A landscape at sunset, RGB in [0, 1], row-major `[HEIGHT * WIDTH, 3]`.
pub fn draw() -> Vec<f32> {
    let mut px = Vec::with_capacity(WIDTH * HEIGHT * 3);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let (fx, fy) = (x as f32 / WIDTH as f32, y as f32 / HEIGHT as f32);
            // Sky: a vertical gradient from violet to orange; a sun; two mountain ranges; a lake.
            let mut c = [0.35 + 0.6 * fy, 0.2 + 0.45 * fy * fy, 0.55 - 0.35 * fy];
            let (sx, sy) = (fx - 0.68, fy - 0.42);
            if sx * sx * 2.2 + sy * sy < 0.012 {
                c = [1.0, 0.85, 0.45];
            }
            let far = 0.55 + 0.07 * (fx * 11.0).sin() + 0.04 * (fx * 29.0 + 1.0).sin();
            let near = 0.68 + 0.06 * (fx * 7.0 + 2.0).sin() + 0.03 * (fx * 23.0).cos();
            if fy > far {
                c = [0.32, 0.22, 0.38];
            }
            if fy > near {
                c = [0.12 + 0.1 * fx, 0.16, 0.2];
            }
            if fy > 0.82 {
                let ripple = 0.04 * (fy * 140.0 + (fx * 9.0).sin() * 3.0).sin();
                c = [0.2 + 0.4 * (1.0 - fy) + ripple, 0.18 + ripple, 0.35 + ripple];
            }
            px.extend(c.iter().map(|v| v.clamp(0.0, 1.0)));
        }
    }
    px
}

/// The result of a run: final centroids and each pixel's colour index.
pub struct Quantised {
    pub centroids: Vec<f32>,
    pub labels: Vec<i32>,
}

/// Runs `iterations` k-means steps on `device`, calling `step` after each.
pub fn run(device: Device, pixels: &[f32], iterations: usize, step: &dyn Fn(usize)) -> Result<Quantised> {
    let n = pixels.len() / 3;
    let p = Tensor::from_slice(pixels, &[n, 3], device)?;
    // Start from pixels spread evenly through the image.
    let picks: Vec<i32> = (0..COLOURS).map(|k| ((k * n) / COLOURS + n / (2 * COLOURS)) as i32).collect();
    let mut c = p.index_select(0, &Tensor::from_vec(picks, &[COLOURS], device)?)?;
    let p_sq = p.square()?.sum(&[1], true)?; // [n, 1]
    let ids = Tensor::arange(0.0, COLOURS as f64, 1.0, DType::I32, device)?; // [K]
    let mut labels = Tensor::zeros(&[n], DType::I32, device)?;
    for i in 0..iterations {
        // |p - c|^2 = |p|^2 - 2 p.c + |c|^2, for all pairs at once.
        let cross = p.matmul(&c.t()?)?.mul_scalar(-2.0)?; // [n, K]
        let dist = cross.add(&p_sq)?.add(&c.square()?.sum(&[1], false)?)?;
        labels = dist.argmin(Some(1), false)?; // [n]
        let onehot = labels.unsqueeze(1)?.eq(&ids)?.to_dtype(DType::F32)?; // [n, K]
        let counts = onehot.sum(&[0], false)?; // [K]
        let sums = onehot.t()?.matmul(&p)?; // [K, 3]
        let mean = sums.div(&counts.clamp(Some(1.0), None)?.unsqueeze(1)?)?;
        // A colour that lost all its pixels keeps its place.
        c = counts.gt_scalar(0.0)?.unsqueeze(1)?.where_(&mean, &c)?;
        // Wait for the iteration, so the progress bar shows finished work, not queued work.
        webtensor::synchronize_blocking(device)?;
        step(i);
    }
    Ok(Quantised { centroids: c.to_vec_blocking()?, labels: labels.to_vec_blocking()? })
}

/// Writes the original and the quantised image side by side as a PNG.
pub fn write_png(path: &std::path::Path, pixels: &[f32], q: &Quantised) -> std::result::Result<(), String> {
    let mut rgb = vec![0u8; WIDTH * 2 * HEIGHT * 3];
    let byte = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let i = y * WIDTH + x;
            let k = q.labels[i].clamp(0, COLOURS as i32 - 1) as usize;
            for ch in 0..3 {
                rgb[(y * WIDTH * 2 + x) * 3 + ch] = byte(pixels[i * 3 + ch]);
                rgb[(y * WIDTH * 2 + WIDTH + x) * 3 + ch] = byte(q.centroids[k * 3 + ch]);
            }
        }
    }
    // Encode in memory, then write once, so a failed write (a full disk) is reported.
    let mut bytes = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut bytes, (WIDTH * 2) as u32, HEIGHT as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(|e| e.to_string())?;
        w.write_image_data(&rgb).map_err(|e| e.to_string())?;
        w.finish().map_err(|e| e.to_string())?;
    }
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
