//! All-reduce bandwidth of a process group, as nccl-tests reports it: for each size, the
//! median time of an f32 `all_reduce(Sum)` over `--iters` runs, the algorithm bandwidth
//! (bytes / time) and the bus bandwidth (algorithm bandwidth × 2(n-1)/n, what each link
//! carries in a ring). Run under mpirun (cargo feature `mpi`; `--backend nccl` with `nccl`):
//!
//! ```text
//! mpirun -np 2 target/release/examples/allreduce_bench --backend mpi --device cpu
//! ```
//!
//! Rank 0 prints one JSON line per size.

use std::time::Instant;

use webtensor::distributed::{init_process_group, local_device, Backend, Init, ReduceOp};
use webtensor::{Device, Tensor};

fn main() {
    if let Err(e) = run() {
        eprintln!("allreduce_bench: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut backend = Backend::Mpi;
    let mut device = Device::CPU;
    let mut iters = 10usize;
    let mut max_mb = 64usize;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--backend" => backend = if value == "nccl" { Backend::Nccl } else { Backend::Mpi },
            "--device" => device = value.parse()?,
            "--iters" => iters = value.parse()?,
            "--max-mb" => max_mb = value.parse()?,
            other => return Err(format!("unknown flag {other}").into()),
        }
    }
    let pg = init_process_group(backend, Init::Env)?;
    if backend == Backend::Nccl {
        device = local_device(pg.as_ref());
    }
    let n = pg.world_size();
    let mut bytes = 1usize << 12;
    while bytes <= max_mb << 20 {
        let x = Tensor::ones(&[bytes / 4], webtensor::DType::F32, device)?;
        // Warm up (NCCL builds its rings on the first call), then time each call to completion.
        let mut times = Vec::with_capacity(iters);
        for k in 0..iters + 2 {
            pg.barrier()?.wait_blocking()?;
            let t = Instant::now();
            let out = pg.all_reduce(&x, ReduceOp::Sum)?.wait_one_blocking()?;
            webtensor::synchronize_blocking(out.device())?;
            if k >= 2 {
                times.push(t.elapsed().as_secs_f64());
            }
        }
        times.sort_by(f64::total_cmp);
        let s = times[times.len() / 2];
        let alg = bytes as f64 / s / 1e9;
        let bus = alg * 2.0 * (n as f64 - 1.0) / n as f64;
        if pg.rank() == 0 {
            println!(
                "{{\"backend\":\"{backend}\",\"device\":\"{device}\",\"world_size\":{n},\"bytes\":{bytes},\"us\":{:.1},\"algbw_gbs\":{alg:.3},\"busbw_gbs\":{bus:.3}}}",
                s * 1e6
            );
        }
        bytes *= 4;
    }
    Ok(())
}
