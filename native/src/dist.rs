//! Data parallel training for `train`, in one process or across several: [`Parallel`] is
//! `DataParallel` over the devices of this process, or, when `mpirun` (or torchrun's
//! variables) launched several processes, `DistributedDataParallel` over a process group with
//! one device per process. Both train on the same global batches to the weights one device
//! reaches; rank 0 alone prints and writes checkpoints.

use std::sync::Arc;

use webtensor::distributed::{self, Backend, DdpOptions, DistributedDataParallel, Init, ProcessGroup, ReduceOp};
use webtensor::nn::{Module, Parameter};
use webtensor::optim::Optimizer;
use webtensor::parallel::DataParallel;
use webtensor::{Device, DeviceKind, Tensor};

/// The process group this run belongs to, when it was launched as one of several processes.
/// `backend` forces `mpi` or `nccl`; by default NCCL where the device is CUDA and NCCL is built
/// in, MPI otherwise. NCCL's ranks meet at `MASTER_ADDR:MASTER_PORT` when set (torchrun's
/// launch), else through MPI.
pub fn group_from_env(backend: Option<&str>, device: Option<Device>) -> Result<Option<Arc<dyn ProcessGroup>>, String> {
    let env = distributed::env_rank().map_err(|e| e.to_string())?;
    if env.world_size == 1 && backend.is_none() {
        return Ok(None);
    }
    let cuda = device.map_or(webtensor::is_available(DeviceKind::Cuda), |d| d.kind() == DeviceKind::Cuda);
    let backend = match backend {
        Some("mpi") => Backend::Mpi,
        Some("nccl") => Backend::Nccl,
        Some(other) => return Err(format!("--dist-backend {other}: give mpi or nccl")),
        None if cuda && cfg!(feature = "nccl") => Backend::Nccl,
        None => Backend::Mpi,
    };
    let built = match backend {
        Backend::Nccl => cfg!(feature = "nccl"),
        _ => cfg!(feature = "mpi"),
    };
    if !built {
        return Err(format!(
            "this process is rank {} of {}, but the binary was built without {backend}; build it with \
             `cargo build --release -p webtensor-native --features {backend}`",
            env.rank, env.world_size
        ));
    }
    distributed::init_process_group(backend, Init::Env).map(Some).map_err(|e| e.to_string())
}

/// Data parallel over this process's devices, or across processes.
pub enum Parallel<M: Module> {
    /// Replicas on the devices of this process (one device: plain training).
    Local(DataParallel<M>),
    /// One replica per process, gradients averaged over the group.
    Procs(DistributedDataParallel<M>),
}

impl<M: Module> Parallel<M> {
    /// Builds the model with `build(device)` on each device (local), or on this rank's device.
    pub fn new(
        devices: &[Device],
        group: Option<Arc<dyn ProcessGroup>>,
        bucket_cap_mb: f64,
        mut build: impl FnMut(Device) -> webtensor::Result<M>,
    ) -> Result<Self, String> {
        match group {
            None => DataParallel::new_blocking(devices, build).map(Parallel::Local).map_err(|e| e.to_string()),
            Some(pg) => {
                if devices.len() > 1 {
                    return Err(format!(
                        "{} devices for one process: under mpirun each process trains on one device (its local \
                         rank's by default); give at most one --device",
                        devices.len()
                    ));
                }
                let device = devices.first().copied().unwrap_or_else(|| distributed::local_device(pg.as_ref()));
                let model = build(device).map_err(|e| e.to_string())?;
                let options = DdpOptions { bucket_cap_mb, ..Default::default() };
                DistributedDataParallel::new_blocking(model, pg, options)
                    .map(Parallel::Procs)
                    .map_err(|e| e.to_string())
            }
        }
    }

    /// The module to evaluate and save (the first replica, or this rank's).
    pub fn module(&self) -> &M {
        match self {
            Parallel::Local(dp) => dp.module(),
            Parallel::Procs(ddp) => ddp.module(),
        }
    }

    /// This process's devices, in replica order.
    pub fn devices(&self) -> Vec<Device> {
        match self {
            Parallel::Local(dp) => dp.devices().to_vec(),
            Parallel::Procs(ddp) => ddp.module().parameters().first().map(|p| vec![p.device()]).unwrap_or_default(),
        }
    }

    /// How many processes train together.
    pub fn world_size(&self) -> usize {
        match self {
            Parallel::Local(_) => 1,
            Parallel::Procs(ddp) => ddp.group().world_size(),
        }
    }

    /// Whether this process prints and writes checkpoints (rank 0).
    pub fn is_main(&self) -> bool {
        match self {
            Parallel::Local(_) => true,
            Parallel::Procs(ddp) => ddp.group().rank() == 0,
        }
    }

    /// The process group's backend, when across processes.
    pub fn backend(&self) -> Option<Backend> {
        match self {
            Parallel::Local(_) => None,
            Parallel::Procs(ddp) => Some(ddp.group().backend()),
        }
    }

    /// One optimizer (per replica, locally) made by `make` from a parameter list.
    pub fn optimizer<O: Optimizer + 'static>(
        &self,
        make: impl FnMut(Vec<Parameter>) -> webtensor::Result<O>,
    ) -> webtensor::Result<Box<dyn Optimizer>> {
        let mut make = make;
        Ok(match self {
            Parallel::Local(dp) => Box::new(dp.optimizer(make)?),
            Parallel::Procs(ddp) => Box::new(make(ddp.module().parameters())?),
        })
    }

    /// The parameters of every replica this process holds (what gradient clipping runs over).
    pub fn parameter_sets(&self) -> Vec<Vec<Parameter>> {
        match self {
            Parallel::Local(dp) => dp.replicas().iter().map(|m| m.parameters()).collect(),
            Parallel::Procs(ddp) => vec![ddp.module().parameters()],
        }
    }

    /// Forward and backward over a global batch; returns this process's part of the global
    /// mean loss (all of it locally): [`Parallel::global`] sums the parts.
    pub fn forward_backward(
        &self,
        x: &Tensor,
        y: &Tensor,
        loss: impl Fn(&Tensor, &Tensor) -> webtensor::Result<Tensor>,
    ) -> webtensor::Result<Tensor> {
        match self {
            Parallel::Local(dp) => dp.forward_backward_blocking(x, y, loss),
            Parallel::Procs(ddp) => ddp.forward_backward_shard_blocking(x, y, loss),
        }
    }

    /// The sum over processes of a one-element value (a collective: every rank calls it at the
    /// same point), read back.
    pub fn global(&self, part: &Tensor) -> webtensor::Result<f32> {
        match self {
            Parallel::Local(_) => part.item_blocking::<f32>(),
            Parallel::Procs(ddp) => {
                ddp.group().all_reduce(&part.reshape(&[1])?, ReduceOp::Sum)?.wait_one_blocking()?.item_blocking::<f32>()
            }
        }
    }

    /// This rank's gradient communication so far, as JSON (null in one process): buckets,
    /// bytes, seconds starting all-reduces inside backward and waiting after it, and their share
    /// of `seconds` of training.
    pub fn comm_json(&self, seconds: f64) -> serde_json::Value {
        match self {
            Parallel::Local(_) => serde_json::Value::Null,
            Parallel::Procs(ddp) => {
                let c = ddp.comm_stats();
                serde_json::json!({
                    "iterations": c.iterations, "buckets": c.buckets, "bytes": c.bytes,
                    "launch_s": c.launch_s, "wait_s": c.wait_s,
                    "share": (c.launch_s + c.wait_s) / seconds.max(1e-9),
                })
            }
        }
    }

    /// Passes a training run's result on; a failure on one of several processes is printed and
    /// ends the whole group (the others would wait for this one in their next all-reduce).
    pub fn settle<T, E: std::fmt::Display>(&self, result: Result<T, E>) -> Result<T, E> {
        if let (Err(e), Parallel::Procs(ddp)) = (&result, self) {
            if ddp.group().world_size() > 1 {
                eprintln!("error: {e}");
                ddp.group().abort(1);
            }
        }
        result
    }
}
