//! Training across processes and machines, as `torch.distributed` does it: a [`ProcessGroup`]
//! of ranks with collectives (`all_reduce`, `broadcast`, `all_gather`, `reduce_scatter`,
//! `barrier`, each returning a [`Work`] to wait on), [`DistributedDataParallel`] over a group,
//! and [`DistributedSampler`] to shard a data set.
//!
//! Backends (PyTorch's names):
//! - [`Backend::Local`]: every rank in this process ([`LocalGroup`]), what single-process data
//!   parallelism runs on.
//! - [`Backend::Mpi`] (cargo feature `mpi`): one rank per process under `mpirun`, any device
//!   (tensors are staged through the host).
//! - [`Backend::Nccl`] (cargo feature `nccl`): CUDA tensors through NCCL.
//!
//! ```no_run
//! # #[cfg(feature = "mpi")]
//! # fn main() -> webtensor::Result<()> {
//! use webtensor::distributed::{init_process_group, Backend, DdpOptions, DistributedDataParallel, Init};
//! let pg = init_process_group(Backend::Mpi, Init::Env)?;        // under `mpirun -np 2 ...`
//! let dev = pg.local_device()?;                                  // cuda:{local_rank}, a GPU, or the best device
//! # Ok(()) }
//! # #[cfg(not(feature = "mpi"))] fn main() {}
//! ```

mod ddp;
mod group;
pub(crate) mod local;
#[cfg(all(feature = "mpi", not(target_arch = "wasm32")))]
mod mpi;
#[cfg(all(feature = "mpi", not(target_arch = "wasm32")))]
mod mpi_progress;
#[cfg(all(feature = "nccl", not(target_arch = "wasm32")))]
mod nccl;
pub(crate) mod reducer;
mod sampler;
#[cfg(not(target_arch = "wasm32"))]
mod store;
// The NCCL backend's; compiled for the unit tests in every build, since they need no GPU.
#[cfg(all(any(test, feature = "nccl"), not(target_arch = "wasm32")))]
mod watchdog;

use std::sync::Arc;
#[cfg(all(any(feature = "mpi", feature = "nccl"), not(target_arch = "wasm32")))]
use std::time::Duration;

pub use ddp::{DdpOptions, DistributedDataParallel};
pub use group::{ProcessGroup, ReduceOp, Work};
pub use local::{LocalGroup, LocalRank};
#[cfg(all(feature = "mpi", not(target_arch = "wasm32")))]
pub use mpi::MpiGroup;
#[cfg(all(feature = "nccl", not(target_arch = "wasm32")))]
pub use nccl::{Bootstrap, NcclGroup};
pub use reducer::CommStats;
pub use sampler::{DistributedSampler, SamplerOptions};
#[cfg(not(target_arch = "wasm32"))]
pub use store::Rendezvous;

use crate::device::{Device, DeviceKind};
use crate::error::{Error, Result};

/// Which engine runs a group's collectives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// Ranks in this process (no communication library).
    Local,
    /// MPI (Open MPI, MPICH): one rank per process, tensors of any device.
    Mpi,
    /// NCCL: CUDA tensors, one GPU per rank.
    Nccl,
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Backend::Local => "local",
            Backend::Mpi => "mpi",
            Backend::Nccl => "nccl",
        })
    }
}

/// Where a group learns its rank and size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Init {
    /// From the environment: PyTorch's `env://` variables (`RANK`, `WORLD_SIZE`, `LOCAL_RANK`,
    /// as torchrun sets them) or the launcher's own (`mpirun`'s `OMPI_COMM_WORLD_*`, MPICH's
    /// `PMI_*`). With none set, a world of one.
    Env,
}

/// Where this process stands in its job, as the environment says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnvRank {
    /// This process's rank.
    pub rank: usize,
    /// How many processes the job has.
    pub world_size: usize,
    /// This process's index on its machine.
    pub local_rank: usize,
}

/// Reads the rank, world size and local rank from the environment (see [`Init::Env`]).
pub fn env_rank() -> Result<EnvRank> {
    env_rank_from(|k| std::env::var(k).ok())
}

/// [`env_rank`] over any lookup (testable without touching the process's environment).
pub fn env_rank_from(get: impl Fn(&str) -> Option<String>) -> Result<EnvRank> {
    let read = |names: &[&str]| -> Result<Option<usize>> {
        for &n in names {
            if let Some(v) = get(n) {
                return v.trim().parse::<usize>().map(Some).map_err(|_| {
                    Error::invalid("init_process_group", format!("{n}={v:?} is not a non-negative integer"))
                });
            }
        }
        Ok(None)
    };
    let rank = read(&["RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"])?;
    let world = read(&["WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"])?;
    let local = read(&["LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"])?;
    let (rank, world_size) = match (rank, world) {
        (Some(r), Some(w)) => (r, w),
        (None, None) => (0, 1),
        (r, _) => {
            return Err(Error::invalid(
                "init_process_group",
                format!(
                    "the environment sets {} but not {}; set both RANK and WORLD_SIZE (torchrun does) or neither",
                    if r.is_some() { "a rank" } else { "a world size" },
                    if r.is_some() { "a world size" } else { "a rank" }
                ),
            ))
        }
    };
    if world_size == 0 || rank >= world_size {
        return Err(Error::invalid(
            "init_process_group",
            format!("rank {rank} does not exist in a world of {world_size}; need 0 <= RANK < WORLD_SIZE"),
        ));
    }
    Ok(EnvRank { rank, world_size, local_rank: local.unwrap_or(rank) })
}

/// Creates this process's group (PyTorch's `init_process_group`). `Local` gives a world of
/// one (use [`LocalGroup::ranks`] for several ranks in one process); `Mpi` needs the `mpi`
/// feature and, for more than one rank, a launch by `mpirun`; `Nccl` needs the `nccl` feature.
pub fn init_process_group(backend: Backend, init: Init) -> Result<Arc<dyn ProcessGroup>> {
    let Init::Env = init;
    let env = env_rank()?;
    match backend {
        Backend::Local => {
            if env.world_size > 1 {
                return Err(Error::invalid(
                    "init_process_group",
                    format!(
                        "the environment describes {} processes, but the local backend joins none across processes; \
                         use Backend::Mpi (feature `mpi`) or Backend::Nccl (feature `nccl`)",
                        env.world_size
                    ),
                ));
            }
            let mut ranks = LocalGroup::ranks(1)?;
            Ok(ranks.remove(0))
        }
        Backend::Mpi => init_mpi(env),
        Backend::Nccl => init_nccl(env),
    }
}

/// NCCL: a world of one alone; more ranks share the unique id through `MASTER_ADDR` and
/// `MASTER_PORT` when set (torchrun's launch), else through MPI (mpirun's, with `mpi` built in).
#[cfg(all(feature = "nccl", not(target_arch = "wasm32")))]
fn init_nccl(env: EnvRank) -> Result<Arc<dyn ProcessGroup>> {
    if env.world_size == 1 {
        return Ok(Arc::new(NcclGroup::init(0, 1, env.local_rank, Bootstrap::None)?));
    }
    if let Some(rv) = Rendezvous::from_env(|k| std::env::var(k).ok())? {
        return Ok(Arc::new(NcclGroup::init(env.rank, env.world_size, env.local_rank, Bootstrap::Store(rv))?));
    }
    #[cfg(feature = "mpi")]
    {
        let boot = init_mpi(env)?;
        let (rank, world, local) = (boot.rank(), boot.world_size(), boot.local_rank());
        Ok(Arc::new(NcclGroup::init(rank, world, local, Bootstrap::Group(boot))?))
    }
    #[cfg(not(feature = "mpi"))]
    NcclGroup::init(env.rank, env.world_size, env.local_rank, Bootstrap::None).map(|g| Arc::new(g) as _)
}

#[cfg(not(all(feature = "nccl", not(target_arch = "wasm32"))))]
fn init_nccl(_env: EnvRank) -> Result<Arc<dyn ProcessGroup>> {
    Err(Error::invalid(
        "init_process_group",
        "the NCCL backend is not in this build; build natively with the cargo feature `nccl` (and launch one process \
         per GPU)",
    ))
}

#[cfg(all(feature = "mpi", not(target_arch = "wasm32")))]
fn init_mpi(env: EnvRank) -> Result<Arc<dyn ProcessGroup>> {
    let g = MpiGroup::init()?;
    if (g.rank(), g.world_size()) != (env.rank, env.world_size) && env.world_size > 1 {
        return Err(Error::invalid(
            "init_process_group",
            format!(
                "MPI says rank {} of {}, the environment says rank {} of {}; launch with mpirun, or unset RANK and \
                 WORLD_SIZE",
                g.rank(),
                g.world_size(),
                env.rank,
                env.world_size
            ),
        ));
    }
    Ok(Arc::new(g))
}

#[cfg(not(all(feature = "mpi", not(target_arch = "wasm32"))))]
fn init_mpi(_env: EnvRank) -> Result<Arc<dyn ProcessGroup>> {
    Err(Error::invalid(
        "init_process_group",
        "the MPI backend is not in this build; build natively with the cargo feature `mpi` (it needs an MPI library, \
         e.g. Debian's libopenmpi-dev) and launch with mpirun",
    ))
}

/// The device this rank should use: `cuda:{local_rank}` when CUDA devices exist, else the
/// `local_rank`-th hardware GPU adapter, else the best device (round robin when there are more
/// ranks on the machine than devices). The same as `group.local_device()`.
pub fn local_device(group: &dyn ProcessGroup) -> Device {
    device_for_local_rank(group.local_rank())
}

/// [`local_device`] for a local rank.
pub(crate) fn device_for_local_rank(local_rank: usize) -> Device {
    let all = crate::devices();
    let pick = |kind: DeviceKind, hardware_only: bool| -> Option<Device> {
        let list: Vec<Device> = all
            .iter()
            .filter(|i| i.device.kind() == kind && (!hardware_only || !i.software))
            .map(|i| i.device)
            .collect();
        (!list.is_empty()).then(|| list[local_rank % list.len()])
    };
    pick(DeviceKind::Cuda, false).or_else(|| pick(DeviceKind::WebGpu, true)).unwrap_or_else(crate::best_device)
}

/// How long a rank waits for a collective (or the rendezvous) before failing:
/// `WEBTENSOR_DIST_TIMEOUT` seconds, 600 by default (PyTorch's NCCL default is ten minutes too).
#[cfg(all(any(feature = "mpi", feature = "nccl"), not(target_arch = "wasm32")))]
pub(crate) fn timeout() -> Duration {
    let secs = std::env::var("WEBTENSOR_DIST_TIMEOUT").ok().and_then(|v| v.trim().parse::<f64>().ok());
    Duration::from_secs_f64(secs.filter(|s| *s > 0.0).unwrap_or(600.0))
}
