//! DistributedDataParallel across processes, checked: run it under `mpirun -np N` (cargo
//! feature `mpi`) and it trains a small MLP on a fixed data set in global batches split over the
//! ranks, then prints (rank 0) one JSON line with the global loss of every step, the final
//! weights, and whether every rank ended with the same weights. The suite
//! (`tests/distributed_mpi.rs`) compares 2 and 3 ranks with 1.
//!
//! ```text
//! mpirun -np 2 target/debug/examples/ddp_check --device cpu --optim sgd
//! ```
//!
//! Flags: `--backend mpi|nccl` (NCCL runs on `cuda:{local rank}`, whatever `--device` says),
//! `--device cpu|webgpu|cuda:N`, `--optim sgd|adamw`, `--accumulate K` (K micro-batches per
//! step, the first K-1 under `no_sync`), `--bucket-mb X`, `--branchy` (a branch some steps skip), `--find-unused`, `--collectives`
//! (checks every collective's result instead of training), `--stall-rank R` (rank R stops
//! taking part at step 1 but stays alive: the others must time out with an error) and
//! `--die-rank R` (rank R aborts at step 1).

use std::sync::Arc;

use webtensor::distributed::{
    init_process_group, Backend, DdpOptions, DistributedDataParallel, Init, ProcessGroup, ReduceOp,
};
use webtensor::nn::{self, Linear, LinearOptions, Module, ReLU, Reduction, Sequential};
use webtensor::optim::{AdamOptions, AdamW, Optimizer, SgdOptions, SGD};
use webtensor::parallel::split_sizes;
use webtensor::{Device, Tensor};

const SAMPLES: usize = 23;
const BATCH: usize = 6;
const EPOCHS: usize = 2;

struct Args {
    backend: Backend,
    device: Device,
    optim: String,
    accumulate: usize,
    bucket_mb: f64,
    find_unused: bool,
    branchy: bool,
    collectives: bool,
    stall_rank: Option<usize>,
    die_rank: Option<usize>,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        backend: Backend::Mpi,
        device: Device::CPU,
        optim: "sgd".into(),
        accumulate: 1,
        bucket_mb: 25.0,
        find_unused: false,
        branchy: false,
        collectives: false,
        stall_rank: None,
        die_rank: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--device" => a.device = value()?.parse().map_err(|e| format!("{e}"))?,
            "--backend" => {
                a.backend = match value()?.as_str() {
                    "mpi" => Backend::Mpi,
                    "nccl" => Backend::Nccl,
                    other => return Err(format!("--backend {other}: give mpi or nccl")),
                }
            }
            "--optim" => a.optim = value()?,
            "--accumulate" => a.accumulate = value()?.parse().map_err(|e| format!("--accumulate: {e}"))?,
            "--bucket-mb" => a.bucket_mb = value()?.parse().map_err(|e| format!("--bucket-mb: {e}"))?,
            "--stall-rank" => a.stall_rank = Some(value()?.parse().map_err(|e| format!("--stall-rank: {e}"))?),
            "--die-rank" => a.die_rank = Some(value()?.parse().map_err(|e| format!("--die-rank: {e}"))?),
            "--find-unused" => a.find_unused = true,
            "--branchy" => a.branchy = true,
            "--collectives" => a.collectives = true,
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(a)
}

/// An MLP with a side branch that, with `branchy`, joins only when the batch's first feature
/// sums to a positive value: parameters some steps (and some ranks) do not use.
struct Net {
    core: nn::ModuleCore,
    body: Arc<Sequential>,
    side: Arc<Linear>,
    branchy: bool,
}

impl Module for Net {
    fn core(&self) -> &nn::ModuleCore {
        &self.core
    }
    fn forward(&self, x: &Tensor) -> webtensor::Result<Tensor> {
        let y = self.body.forward(x)?;
        let join = !self.branchy || x.narrow(1, 0, 1)?.sum_all()?.item_blocking::<f32>()? > 0.0;
        if join {
            y.add(&self.side.forward(x)?)
        } else {
            Ok(y)
        }
    }
}

fn model(device: Device, branchy: bool) -> webtensor::Result<Net> {
    let o = |s| LinearOptions { seed: Some(s), device: Some(device), ..Default::default() };
    let core = nn::ModuleCore::new();
    let body = core.register_module(
        "body",
        Sequential::new().push(Linear::new(8, 16, o(1))?)?.push(ReLU::new())?.push(Linear::new(16, 4, o(2))?)?,
    )?;
    let side = core.register_module("side", Linear::new(8, 4, o(3))?)?;
    Ok(Net { core, body, side, branchy })
}

fn collectives(pg: &dyn ProcessGroup, device: Device) -> Result<(), Box<dyn std::error::Error>> {
    let (r, w) = (pg.rank() as f32, pg.world_size());
    let mine = Tensor::from_slice(&[r, 2.0 * r, -r], &[3], device)?;
    let expect = |got: Vec<f32>, want: &[f32], what: &str| -> Result<(), String> {
        if got.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-6) && got.len() == want.len() {
            Ok(())
        } else {
            Err(format!("{what}: got {got:?}, want {want:?}"))
        }
    };
    let s: f32 = (0..w).map(|k| k as f32).sum();
    let last = (w - 1) as f32;
    let sum = pg.all_reduce(&mine, ReduceOp::Sum)?.wait_one_blocking()?;
    expect(sum.to_vec_blocking()?, &[s, 2.0 * s, -s], "all_reduce sum")?;
    let avg = pg.all_reduce(&mine, ReduceOp::Avg)?.wait_one_blocking()?;
    let m = s / w as f32;
    expect(avg.to_vec_blocking()?, &[m, 2.0 * m, -m], "all_reduce avg")?;
    let max = pg.all_reduce(&mine, ReduceOp::Max)?.wait_one_blocking()?;
    expect(max.to_vec_blocking()?, &[last, 2.0 * last, 0.0], "all_reduce max")?;
    let ints = Tensor::from_slice(&[pg.rank() as i32 + 1], &[1], device)?;
    let isum = pg.all_reduce(&ints, ReduceOp::Min)?.wait_one_blocking()?;
    if isum.to_vec_blocking::<i32>()? != [1] || isum.dtype() != webtensor::DType::I32 {
        return Err("all_reduce min on i32".into());
    }
    let b = pg.broadcast(&mine, w - 1)?.wait_one_blocking()?;
    expect(b.to_vec_blocking()?, &[last, 2.0 * last, -last], "broadcast")?;
    let g = pg.all_gather(&mine)?.wait_blocking()?;
    for (k, t) in g.iter().enumerate() {
        let k = k as f32;
        expect(t.to_vec_blocking()?, &[k, 2.0 * k, -k], "all_gather")?;
    }
    let inputs: Vec<Tensor> =
        (0..w).map(|k| Tensor::from_slice(&[r + k as f32], &[1], device)).collect::<webtensor::Result<_>>()?;
    let rs = pg.reduce_scatter(&inputs, ReduceOp::Sum)?.wait_one_blocking()?;
    expect(rs.to_vec_blocking()?, &[s + (w as f32) * r], "reduce_scatter")?;
    pg.barrier()?.wait_blocking()?;
    if pg.rank() == 0 {
        println!("{{\"collectives\":\"ok\",\"world_size\":{w}}}");
    }
    Ok(())
}

fn data(device: Device) -> webtensor::Result<(Tensor, Tensor)> {
    Ok((Tensor::randn(&[SAMPLES, 8], Some(7), device)?, Tensor::randn(&[SAMPLES, 4], Some(8), device)?))
}

fn train(pg: Arc<dyn ProcessGroup>, a: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let (rank, world) = (pg.rank(), pg.world_size());
    let options =
        DdpOptions { bucket_cap_mb: a.bucket_mb, find_unused_parameters: a.find_unused, ..Default::default() };
    let ddp = DistributedDataParallel::new_blocking(model(a.device, a.branchy)?, pg.clone(), options)?;
    let params = ddp.module().parameters();
    let mut opt: Box<dyn Optimizer> = match a.optim.as_str() {
        "sgd" => Box::new(SGD::new(params, SgdOptions { lr: 0.05, momentum: 0.9, ..Default::default() })?),
        "adamw" => Box::new(AdamW::new(params, AdamOptions { lr: 0.01, weight_decay: 0.1, ..Default::default() })?),
        o => return Err(format!("--optim {o}: give sgd or adamw").into()),
    };
    let (x, y) = data(a.device)?;
    let mut losses = Vec::new();
    let mut step = 0;
    for _ in 0..EPOCHS {
        let starts: Vec<usize> = (0..SAMPLES).step_by(BATCH).collect();
        for chunk in starts.chunks(a.accumulate) {
            step += 1;
            if step == 2 && a.die_rank == Some(rank) {
                std::process::abort();
            }
            if step == 2 && a.stall_rank == Some(rank) {
                std::thread::sleep(std::time::Duration::from_secs(120));
            }
            opt.zero_grad();
            let total_rows: usize = chunk.iter().map(|&s| BATCH.min(SAMPLES - s)).sum();
            let mut step_loss = 0.0f64;
            for (k, &s) in chunk.iter().enumerate() {
                let m = BATCH.min(SAMPLES - s);
                let sizes = split_sizes(m, world);
                let start = s + sizes[..rank].iter().sum::<usize>();
                let rows = sizes[rank];
                // This rank's share of the global batch, weighted so that the average over
                // ranks is the global batch's mean loss (and over micro-batches, the step's).
                let weight = (rows * world) as f64 / total_rows as f64;
                let run = || -> webtensor::Result<f64> {
                    if rows == 0 {
                        return Ok(0.0);
                    }
                    let out = ddp.forward(&x.narrow(0, start, rows)?)?;
                    let loss = nn::mse_loss(&out, &y.narrow(0, start, rows)?, Reduction::Mean)?.mul_scalar(weight)?;
                    loss.backward()?;
                    loss.item_blocking::<f32>().map(f64::from)
                };
                step_loss += if k + 1 < chunk.len() { ddp.no_sync(run)? } else { run()? };
            }
            opt.step()?;
            losses.push(step_loss as f32);
        }
    }
    // Every rank's weighted share, averaged: the global batch's mean loss per step. One
    // collective at the end, so that training makes only the gradients' collectives.
    let mine = Tensor::from_slice(&losses, &[losses.len()], a.device)?;
    let losses: Vec<f32> = pg.all_reduce(&mine, ReduceOp::Avg)?.wait_one_blocking()?.to_vec_blocking()?;
    let flat: Vec<f32> = {
        let parts: Vec<Tensor> =
            ddp.module().parameters().iter().map(|p| p.tensor().flatten()).collect::<webtensor::Result<_>>()?;
        Tensor::cat(&parts, 0)?.to_vec_blocking()?
    };
    let mine = Tensor::from_slice(&flat, &[flat.len()], a.device)?;
    let all = pg.all_gather(&mine)?.wait_blocking()?;
    let mut equal = true;
    for t in &all {
        equal &= t.to_vec_blocking::<f32>()? == flat;
    }
    if rank == 0 {
        let fmt = |v: &[f32]| v.iter().map(|x| format!("{x:e}")).collect::<Vec<_>>().join(",");
        println!(
            "{{\"world_size\":{world},\"buckets\":{},\"losses\":[{}],\"weights\":[{}],\"replicas_equal\":{equal}}}",
            ddp.buckets().len(),
            fmt(&losses),
            fmt(&flat)
        );
    }
    Ok(())
}

fn main() {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("ddp_check: {e}");
            std::process::exit(2);
        }
    };
    let pg = match init_process_group(args.backend, Init::Env) {
        Ok(pg) => pg,
        Err(e) => {
            eprintln!("ddp_check: {e}");
            std::process::exit(1);
        }
    };
    let mut args = args;
    if args.backend == Backend::Nccl {
        args.device = webtensor::distributed::local_device(pg.as_ref());
    }
    let result = if args.collectives { collectives(pg.as_ref(), args.device) } else { train(pg.clone(), &args) };
    if let Err(e) = result {
        eprintln!("ddp_check rank {}: {e}", pg.rank());
        pg.abort(1);
    }
}
