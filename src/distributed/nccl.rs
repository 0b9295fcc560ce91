//! The `nccl` backend (cargo feature `nccl`): CUDA tensors reduced by NCCL, one GPU per rank.
//! Collectives are enqueued on the device's one stream, after the kernels that produced their
//! input and before the ones that read their output, so a `Work` is complete in stream order as
//! soon as it is returned: nothing waits on the host. The unique id that ties the ranks'
//! communicators together is made by rank 0 and sent to the others through a bootstrap group
//! (MPI under `mpirun`) or PyTorch's `env://` rendezvous; a world of one needs none. Because
//! nothing waits on the host, a world of several has a watchdog (`watchdog.rs`): each collective
//! is followed by a CUDA event it polls, and a collective pending past the group's timeout, or
//! an error NCCL reports (a peer's connection broke), aborts the communicator and ends the
//! process with a message saying which, rather than leaving the next readback waiting forever.

use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use cudarc::nccl::result;
use cudarc::nccl::sys::{self, ncclDataType_t, ncclRedOp_t};

use crate::device::cuda::CudaDevice;
use crate::device::policy::lock;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::storage::Storage;
use crate::tensor::Tensor;
use crate::DType;

use super::group::{check_rank, check_reduce, check_scatter_inputs, ProcessGroup, ReduceOp, Work};
use super::watchdog::{Failure, Health, Watchdog, WatchdogOptions};
use super::Backend;

/// How the ranks share NCCL's unique id.
pub enum Bootstrap {
    /// A world of one: nothing to share.
    None,
    /// Broadcast from rank 0 through another group (MPI under mpirun), kept alive beside NCCL.
    Group(Arc<dyn ProcessGroup>),
    /// PyTorch's `env://`: rank 0 serves it at `MASTER_ADDR:MASTER_PORT`.
    Store(super::Rendezvous),
}

/// A communicator over one CUDA device per rank.
pub struct NcclGroup {
    comm: sys::ncclComm_t,
    rank: usize,
    world: usize,
    local_rank: usize,
    device: Device,
    dev: Arc<CudaDevice>,
    /// Serialises calls on the communicator (NCCL communicators are not thread-safe).
    calls: Mutex<()>,
    /// The group that carried the unique id; kept so MPI outlives the communicator.
    bootstrap: Option<Arc<dyn ProcessGroup>>,
    /// Watches the collectives in flight (a world of more than one rank).
    watchdog: Option<Watchdog>,
}

/// The communicator's handle, for the watchdog's thread.
#[derive(Clone, Copy)]
struct Comm(sys::ncclComm_t);
// SAFETY: the watchdog only asks NCCL for the communicator's asynchronous error and aborts it,
// the two calls NCCL documents for use from another thread than the one issuing collectives.
unsafe impl Send for Comm {}

// SAFETY: the communicator handle is only used under `calls`.
unsafe impl Send for NcclGroup {}
// SAFETY: as above.
unsafe impl Sync for NcclGroup {}

fn nccl_err(what: &str, e: result::NcclError) -> Error {
    Error::invalid("nccl", format!("{what} failed: {e:?} (set NCCL_DEBUG=INFO for NCCL's own account)"))
}

impl NcclGroup {
    /// Joins rank `rank` of `world` on `cuda:{local_rank}` (modulo the CUDA devices there
    /// are), getting rank 0's unique id through `bootstrap` when `world > 1`.
    pub fn init(rank: usize, world: usize, local_rank: usize, bootstrap: Bootstrap) -> Result<NcclGroup> {
        const OP: &str = "init_process_group(nccl)";
        let count = crate::device::cuda::count();
        if count == 0 {
            return Err(Error::invalid(
                OP,
                format!("NCCL needs a CUDA device and there is none: {}", crate::device::cuda::unavailable_reason(0)),
            ));
        }
        let ordinal = local_rank % count;
        let dev = crate::device::cuda::get(ordinal).map_err(|e| Error::invalid(OP, e))?;
        let mut id =
            if rank == 0 { result::get_uniqueid().map_err(|e| nccl_err("ncclGetUniqueId", e))? } else { zero_id() };
        let mine: Vec<u8> = id.internal.iter().map(|&c| c as u8).collect();
        let shared: Vec<u8> = match (&bootstrap, world) {
            (_, 1) => mine,
            (Bootstrap::Group(b), _) => {
                let words: Vec<i32> = mine.chunks(4).map(|c| i32::from_ne_bytes([c[0], c[1], c[2], c[3]])).collect();
                let t = Tensor::from_slice(&words, &[words.len()], Device::CPU)?;
                let got: Vec<i32> = b.broadcast(&t, 0)?.wait_one_blocking()?.to_vec_blocking()?;
                got.iter().flat_map(|w| w.to_ne_bytes()).collect()
            }
            (Bootstrap::Store(rv), _) if rank == 0 => {
                rv.serve(world, &mine, super::timeout())?;
                mine
            }
            (Bootstrap::Store(rv), _) => rv.fetch(rank, super::timeout())?,
            (Bootstrap::None, _) => {
                return Err(Error::invalid(
                    OP,
                    "more than one rank needs NCCL's unique id shared: set MASTER_ADDR and MASTER_PORT (torchrun \
                     does), or build with the `mpi` feature too and launch with mpirun",
                ))
            }
        };
        if shared.len() != id.internal.len() {
            return Err(Error::invalid(OP, format!("the unique id arrived with {} bytes, not 128", shared.len())));
        }
        for (dst, &b) in id.internal.iter_mut().zip(&shared) {
            *dst = b as std::ffi::c_char;
        }
        let bootstrap = match bootstrap {
            Bootstrap::Group(b) => Some(b),
            _ => None,
        };
        dev.bind()?;
        let mut comm = std::mem::MaybeUninit::uninit();
        let (w, r) = (c_int(OP, world)?, c_int(OP, rank)?);
        // SAFETY: initialising one communicator with the id every rank shares, on the bound
        // context of this rank's device.
        let comm = unsafe {
            result::comm_init_rank(comm.as_mut_ptr(), w, id, r).map_err(|e| nccl_err("ncclCommInitRank", e))?;
            comm.assume_init()
        };
        let watchdog = if world > 1 { Some(watchdog(Comm(comm), rank, world, bootstrap.clone())?) } else { None };
        Ok(NcclGroup {
            comm,
            rank,
            world,
            local_rank,
            device: Device::cuda(ordinal),
            dev,
            calls: Mutex::new(()),
            bootstrap,
            watchdog,
        })
    }

    /// The CUDA device this rank's communicator runs on.
    pub fn device(&self) -> Device {
        self.device
    }

    /// `t` as a contiguous tensor on this group's device, or an error naming the device.
    fn operand(&self, op: &'static str, t: &Tensor) -> Result<Tensor> {
        if t.device() != self.device {
            return Err(Error::invalid(
                op,
                format!(
                    "NCCL on this rank reduces tensors on {}, this one is on {}; move it with .to({}) or use the mpi \
                     backend",
                    self.device,
                    t.device(),
                    self.device
                ),
            ));
        }
        t.detach().contiguous()
    }

    /// A fresh tensor of `n` elements on this device, and its address.
    fn output(&self, n: usize, dtype: DType) -> Result<(Tensor, u64)> {
        let s = self.dev.alloc(n, dtype)?;
        let ptr = s.ptr(0);
        Ok((Tensor::from_parts(Storage::Cuda(s), &[n], dtype, self.device), ptr))
    }

    /// Runs one NCCL call on the device's stream.
    fn call(
        &self,
        what: &'static str,
        f: impl FnOnce(sys::cudaStream_t) -> std::result::Result<result::NcclStatus, result::NcclError>,
    ) -> Result<()> {
        self.dev.bind()?;
        let _serial = lock(&self.calls);
        if let Some(why) = self.watchdog.as_ref().and_then(Watchdog::failure) {
            return Err(Error::invalid("nccl", why));
        }
        f(self.dev.raw_stream() as sys::cudaStream_t).map(|_| ()).map_err(|e| nccl_err(what, e))?;
        let Some(w) = &self.watchdog else { return Ok(()) };
        // An event after the collective: complete once the collective is.
        let event = self.dev.record_event()?;
        w.watch(
            what,
            Box::new(move || {
                event.context().bind_to_thread().map_err(|e| e.to_string())?;
                event.try_is_complete().map_err(|e| e.to_string())
            }),
        )
    }
}

/// The watchdog of rank `rank` of `world`: NCCL's asynchronous error polled beside the
/// collectives; on failure the message goes to stderr, the communicator is aborted (kernels
/// blocked in it return) and the process ends, through the bootstrap group where there is one
/// (MPI_Abort ends every rank) or with exit code 1.
fn watchdog(comm: Comm, rank: usize, world: usize, bootstrap: Option<Arc<dyn ProcessGroup>>) -> Result<Watchdog> {
    let options = WatchdogOptions {
        label: format!("rank {rank} of {world} (nccl)"),
        timeout: super::timeout(),
        poll: std::time::Duration::from_millis(100),
    };
    let health: Health = Box::new(move || {
        let c = comm;
        let mut err = sys::ncclResult_t::ncclSuccess;
        // SAFETY: querying the communicator's asynchronous error from another thread is what
        // the call is for (see `Comm`).
        let r = unsafe { sys::ncclCommGetAsyncError(c.0, &mut err) };
        let ok = |e: sys::ncclResult_t| matches!(e, sys::ncclResult_t::ncclSuccess | sys::ncclResult_t::ncclInProgress);
        (!ok(r) || !ok(err)).then(|| format!("{:?}", if ok(r) { err } else { r }))
    });
    let fail: Failure = Box::new(move |why: &str| {
        let c = comm;
        eprintln!("webtensor: {why}; aborting the NCCL communicator and ending this process");
        // SAFETY: see `Comm`; the process ends right after.
        unsafe {
            let _ = result::comm_abort(c.0);
        }
        match bootstrap {
            Some(b) => b.abort(1),
            None => std::process::exit(1),
        }
    });
    Watchdog::start(options, health, fail)
}

/// A tensor's device address (of its first element).
fn address(t: &Tensor) -> Result<u64> {
    match t.storage().as_ref() {
        Storage::Cuda(s) => Ok(s.ptr(t.layout().offset())),
        _ => Err(Error::invalid("nccl", "internal: a non-CUDA operand")),
    }
}

fn zero_id() -> sys::ncclUniqueId {
    sys::ncclUniqueId { internal: [0; 128] }
}

fn c_int(op: &'static str, n: usize) -> Result<std::ffi::c_int> {
    std::ffi::c_int::try_from(n).map_err(|_| Error::invalid(op, format!("{n} is out of range")))
}

/// NCCL's type for a reduction over `d` (sums of the 8-bit and boolean types, held in 32-bit
/// words on the GPU, would not wrap as their dtype does, so they are refused).
fn reduce_type(op: &'static str, d: DType) -> Result<ncclDataType_t> {
    match d {
        DType::F32 => Ok(ncclDataType_t::ncclFloat32),
        DType::F16 => Ok(ncclDataType_t::ncclFloat16),
        DType::I32 => Ok(ncclDataType_t::ncclInt32),
        DType::U32 => Ok(ncclDataType_t::ncclUint32),
        other => Err(Error::invalid(
            op,
            format!("NCCL reduces f32, f16, i32 and u32 tensors, this one is {other}; convert it with to_dtype"),
        )),
    }
}

/// NCCL's type for moving `d` without arithmetic: its GPU word.
fn copy_type(d: DType) -> ncclDataType_t {
    if d.gpu_size_in_bytes() == 2 {
        ncclDataType_t::ncclFloat16
    } else {
        ncclDataType_t::ncclUint32
    }
}

fn red_op(op: ReduceOp) -> ncclRedOp_t {
    match op {
        ReduceOp::Sum => ncclRedOp_t::ncclSum,
        ReduceOp::Avg => ncclRedOp_t::ncclAvg,
        ReduceOp::Max => ncclRedOp_t::ncclMax,
        ReduceOp::Min => ncclRedOp_t::ncclMin,
    }
}

fn reshaped(t: Tensor, shape: &[usize]) -> Result<Tensor> {
    let s: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
    t.reshape(&s)
}

impl Drop for NcclGroup {
    fn drop(&mut self) {
        // With the watchdog still watching: a collective that never completes ends here.
        let _ = self.dev.synchronize();
        self.watchdog.take();
        // SAFETY: the communicator is not used after this; the stream has drained.
        unsafe {
            let _ = result::comm_destroy(self.comm);
        }
        self.bootstrap.take();
    }
}

impl ProcessGroup for NcclGroup {
    fn backend(&self) -> Backend {
        Backend::Nccl
    }

    fn rank(&self) -> usize {
        self.rank
    }

    fn world_size(&self) -> usize {
        self.world
    }

    fn local_rank(&self) -> usize {
        self.local_rank
    }

    fn all_reduce(&self, tensor: &Tensor, op: ReduceOp) -> Result<Work> {
        const OP: &str = "all_reduce";
        check_reduce(OP, tensor, op)?;
        let dt = reduce_type(OP, tensor.dtype())?;
        let x = self.operand(OP, tensor)?;
        let (out, dst) = self.output(x.numel(), x.dtype())?;
        let src = address(&x)?;
        // SAFETY: both addresses hold `numel` elements on this device; stream order keeps `x`
        // alive in the pool until the call has read it (`x` is dropped after the enqueue, and
        // a reuse of its block is ordered after on the same stream).
        self.call("ncclAllReduce", |s| unsafe {
            result::all_reduce(src as *const c_void, dst as *mut c_void, x.numel(), dt, red_op(op), self.comm, s)
        })?;
        let out = reshaped(out, tensor.shape())?;
        Ok(Work::new(async move { Ok(vec![out]) }))
    }

    fn broadcast(&self, tensor: &Tensor, src: usize) -> Result<Work> {
        const OP: &str = "broadcast";
        check_rank(OP, src, self.world)?;
        let x = self.operand(OP, tensor)?;
        let (out, dst) = self.output(x.numel(), x.dtype())?;
        let (from, root) = (address(&x)?, c_int(OP, src)?);
        // SAFETY: as in all_reduce.
        self.call("ncclBroadcast", |s| unsafe {
            result::broadcast(
                from as *const c_void,
                dst as *mut c_void,
                x.numel(),
                copy_type(x.dtype()),
                root,
                self.comm,
                s,
            )
        })?;
        let out = reshaped(out, tensor.shape())?;
        Ok(Work::new(async move { Ok(vec![out]) }))
    }

    fn all_gather(&self, tensor: &Tensor) -> Result<Work> {
        const OP: &str = "all_gather";
        let x = self.operand(OP, tensor)?;
        let n = x.numel();
        let (out, dst) = self.output(n * self.world, x.dtype())?;
        let from = address(&x)?;
        // SAFETY: `n` elements in, `n * world` out, both on this device.
        self.call("ncclAllGather", |s| unsafe {
            result::all_gather(from as *const c_void, dst as *mut c_void, n, copy_type(x.dtype()), self.comm, s)
        })?;
        let parts =
            (0..self.world).map(|r| reshaped(out.narrow(0, r * n, n)?, tensor.shape())).collect::<Result<Vec<_>>>()?;
        Ok(Work::new(async move { Ok(parts) }))
    }

    fn reduce_scatter(&self, inputs: &[Tensor], op: ReduceOp) -> Result<Work> {
        const OP: &str = "reduce_scatter";
        check_scatter_inputs(inputs, self.world)?;
        check_reduce(OP, &inputs[0], op)?;
        let dt = reduce_type(OP, inputs[0].dtype())?;
        let flat = inputs.iter().map(|t| self.operand(OP, t)?.flatten()).collect::<Result<Vec<_>>>()?;
        let x = Tensor::cat(&flat, 0)?;
        let n = inputs[0].numel();
        let (out, dst) = self.output(n, x.dtype())?;
        let from = address(&x)?;
        // SAFETY: `n * world` elements in, `n` out, both on this device.
        self.call("ncclReduceScatter", |s| unsafe {
            result::reduce_scatter(from as *const c_void, dst as *mut c_void, n, dt, red_op(op), self.comm, s)
        })?;
        let out = reshaped(out, inputs[0].shape())?;
        Ok(Work::new(async move { Ok(vec![out]) }))
    }

    /// NCCL has no barrier: an all-reduce of one element, waited for on the host.
    fn barrier(&self) -> Result<Work> {
        let one = Tensor::from_slice(&[1.0f32], &[1], self.device)?;
        let w = self.all_reduce(&one, ReduceOp::Sum)?;
        let done = w.wait_one_blocking()?;
        done.to_vec_blocking::<f32>()?;
        Ok(Work::new(async { Ok(Vec::new()) }))
    }

    fn abort(&self, code: i32) {
        // SAFETY: ending the communicator so that peers blocked in NCCL fail; the process ends.
        unsafe {
            let _ = result::comm_abort(self.comm);
        }
        match &self.bootstrap {
            Some(b) => b.abort(code),
            None => std::process::exit(code),
        }
    }
}
