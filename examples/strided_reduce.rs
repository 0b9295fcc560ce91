//! Times reductions of strided views on GPU devices, to set when a hardware GPU reduces a view in
//! place (one thread per output) rather than gathering it and reducing rows. Run it once per
//! path and compare the columns:
//!
//! ```text
//! WEBTENSOR_STRIDED_REDUCE=0,0 cargo run --release --example strided_reduce  # in place
//! WEBTENSOR_STRIDED_REDUCE=18446744073709551615,0 cargo run --release --example strided_reduce  # gathered
//! ```
//!
//! Arguments: devices (default: every webgpu and cuda device), `--max-elems N` (default 2^26)
//! and `--runs N` (default 15). Prints one line per case: device, case, outputs, elements folded
//! per output, and the median wall-clock milliseconds of a synchronized run.

use std::time::Instant;

use webtensor::{Device, DeviceKind, Result, Tensor};

/// Median milliseconds of `runs` synchronized runs of `f` after one warm-up.
fn median_ms(device: Device, runs: usize, f: &dyn Fn() -> Result<Tensor>) -> Result<f64> {
    drop(f()?);
    webtensor::synchronize_blocking(device)?;
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let t0 = Instant::now();
            let _out = f()?;
            webtensor::synchronize_blocking(device)?;
            Ok(t0.elapsed().as_secs_f64() * 1e3)
        })
        .collect::<Result<_>>()?;
    t.sort_by(f64::total_cmp);
    Ok(t[t.len() / 2])
}

fn main() -> Result<()> {
    let mut devices = Vec::new();
    let (mut max_elems, mut runs) = (1usize << 26, 15usize);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut num = |name: &str| {
            args.next().and_then(|v| v.parse::<usize>().ok()).unwrap_or_else(|| {
                eprintln!("{name} takes a number");
                std::process::exit(2)
            })
        };
        match a.as_str() {
            "--max-elems" => max_elems = num("--max-elems"),
            "--runs" => runs = num("--runs").max(1),
            d => devices.push(Device::parse(d)?),
        }
    }
    if devices.is_empty() {
        devices = webtensor::devices()
            .iter()
            .map(|i| i.device)
            .filter(|d| matches!(d.kind(), DeviceKind::WebGpu | DeviceKind::Cuda))
            // Listed adapters that cannot open a device (NVIDIA's GL one) are left out.
            .filter(|&d| Tensor::zeros(&[1], webtensor::DType::F32, d).is_ok())
            .collect();
    }
    let mode = std::env::var("WEBTENSOR_STRIDED_REDUCE").unwrap_or_else(|_| "default".into());
    println!("# WEBTENSOR_STRIDED_REDUCE={mode}");
    for &d in &devices {
        // Column sums of [k, m]: m outputs, each folding k elements m apart.
        for m in [64usize, 256, 1024, 4096, 8192, 16384, 65536, 262144] {
            for k in [256usize, 1024, 4096, 65536] {
                if m * k > max_elems {
                    continue;
                }
                let x = Tensor::rand(&[k, m], Some(1), d)?;
                let ms = median_ms(d, runs, &|| x.sum(&[0], false))?;
                println!("{d}\tcolumns [{k},{m}].sum(0)\t{m}\t{k}\t{ms:.3}");
            }
        }
        // A middle dim of [a, k, b]: two kept dims.
        for (a, k, b) in [(64usize, 1024usize, 64usize), (16, 256, 1024), (256, 4096, 16), (64, 1024, 256)] {
            if a * k * b > max_elems {
                continue;
            }
            let x = Tensor::rand(&[a, k, b], Some(2), d)?;
            let ms = median_ms(d, runs, &|| x.sum(&[1], false))?;
            println!("{d}\tmiddle [{a},{k},{b}].sum(1)\t{}\t{k}\t{ms:.3}", a * b);
        }
        // BatchNorm's statistics of [n, c, h, w] over (0, 2, 3): two reduced dims.
        for (n, c, h) in [(32usize, 64usize, 32usize), (8, 256, 16), (64, 16, 8)] {
            if n * c * h * h > max_elems {
                continue;
            }
            let x = Tensor::rand(&[n, c, h, h], Some(3), d)?;
            let ms = median_ms(d, runs, &|| x.sum(&[0, 2, 3], false))?;
            println!("{d}\tbatchnorm [{n},{c},{h},{h}].sum(0,2,3)\t{c}\t{}\t{ms:.3}", n * h * h);
        }
    }
    Ok(())
}
