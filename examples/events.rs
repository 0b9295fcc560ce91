//! Times GPU work with `Event` (GPU timestamps where available) next to wall-clock time.
use std::time::Instant;
use webtensor::{Device, Event, Tensor};

fn main() -> webtensor::Result<()> {
    let g = Device::parse(&std::env::args().nth(1).unwrap_or_else(|| "webgpu".into()))?;
    let x = Tensor::randn(&[512, 512], Some(1), g)?;
    webtensor::synchronize_blocking(g)?;
    for _ in 0..3 {
        let t0 = Instant::now();
        let start = Event::record_blocking(g)?;
        let y = x.matmul(&x)?;
        let end = Event::record_blocking(g)?;
        webtensor::synchronize_blocking(g)?;
        let wall = t0.elapsed().as_secs_f64() * 1e3;
        println!(
            "{g}: matmul 512^3 {:?}: {:.2} ms, wall-clock {:.2} ms",
            start.method(),
            start.elapsed_ms_blocking(&end)?,
            wall
        );
        drop(y);
    }
    Ok(())
}
