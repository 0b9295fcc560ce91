//! The `mpi` backend (cargo feature `mpi`): one rank per process, started by `mpirun` (Open MPI
//! or MPICH), collectives through MPI's non-blocking calls on host copies of the tensors, so
//! tensors of any device take part (a GPU tensor is read back, reduced, and uploaded again).
//!
//! MPI is initialised with `MPI_THREAD_SERIALIZED` and every call goes through one lock, so the
//! group may be used from any thread. A wait polls `MPI_Test` until the request completes or
//! the group's timeout passes (`WEBTENSOR_DIST_TIMEOUT` seconds, 600 by default): a rank that
//! died or stopped calling collectives then becomes an error on the others rather than a hang.
//! (`mpirun` itself also ends the job when a rank exits early or is killed.)

use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mpi::ffi;

use crate::device::policy::lock;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use crate::DType;

use super::group::{check_rank, check_reduce, check_scatter_inputs, ProcessGroup, ReduceOp, Work};
use super::mpi_progress::{Pending, Progress};
use super::Backend;

/// MPI may be initialised once per process, and never again after it is finalised.
static STARTED: AtomicBool = AtomicBool::new(false);

/// The world communicator of this process's MPI job.
pub struct MpiGroup {
    rank: usize,
    world: usize,
    local_rank: usize,
    timeout: Duration,
    /// Serialises every MPI call (`MPI_THREAD_SERIALIZED`).
    calls: Arc<Mutex<()>>,
    /// Tests pending collectives so they advance while the caller computes.
    progress: Option<Progress>,
}

/// Host buffers in a dtype MPI reduces natively: floats as f32, the signed integer and boolean
/// types as i32 (their sums wrap back when cast), u32 as itself; or, to send only, a CPU
/// tensor's own elements, held alive with the tensor (no copy).
enum Host {
    F32(Vec<f32>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    Held { _tensor: Tensor, ptr: usize, len: usize, datatype: ffi::MPI_Datatype },
}

// SAFETY: `Held`'s pointer is into the held tensor's immutable storage, and MPI reads it only
// under the group's call lock.
unsafe impl Send for Host {}

impl Host {
    fn transport(d: DType) -> DType {
        match d {
            DType::F32 | DType::F16 => DType::F32,
            DType::U32 => DType::U32,
            DType::I32 | DType::Bool | DType::U8 | DType::I8 => DType::I32,
        }
    }

    /// Reads `t` back to the host in its transport dtype.
    fn read(t: &Tensor) -> Result<Host> {
        let moved = t.to_dtype(Host::transport(t.dtype()))?;
        Ok(match moved.dtype() {
            DType::F32 => Host::F32(moved.to_vec_blocking()?),
            DType::U32 => Host::U32(moved.to_vec_blocking()?),
            _ => Host::I32(moved.to_vec_blocking()?),
        })
    }

    /// `t`'s elements for MPI to read: a contiguous CPU tensor of a dtype MPI takes as it is
    /// lends its own memory (a copy into a fresh buffer was a quarter of the CPU time of a large
    /// all-reduce, in page faults); anything else is read back as [`Host::read`] does.
    fn send(t: &Tensor) -> Result<Host> {
        use crate::dtype::CpuData;
        if let crate::storage::Storage::Cpu(s) = t.storage().as_ref() {
            if t.layout().is_contiguous() {
                let (start, len) = (t.layout().offset(), t.numel());
                // SAFETY (the handles): constants of rsmpi's shim, valid after MPI_Init.
                let lent = unsafe {
                    match s.data() {
                        CpuData::F32(v) => Some((v[start..start + len].as_ptr() as usize, ffi::RSMPI_FLOAT)),
                        CpuData::I32(v) => Some((v[start..start + len].as_ptr() as usize, ffi::RSMPI_INT32_T)),
                        CpuData::U32(v) => Some((v[start..start + len].as_ptr() as usize, ffi::RSMPI_UINT32_T)),
                        _ => None,
                    }
                };
                if let Some((ptr, datatype)) = lent {
                    return Ok(Host::Held { _tensor: t.clone(), ptr, len, datatype });
                }
            }
        }
        Host::read(t)
    }

    /// A zeroed buffer of `n` elements in `d`'s transport dtype: a block the CPU backend cached
    /// where one fits (a fresh one faulted in its pages on every call, which bounded large
    /// all-reduces; the result tensors' blocks come back to that cache when they drop).
    fn zeros(d: DType, n: usize) -> Host {
        use crate::device::cpu::alloc::zeroed;
        match Host::transport(d) {
            DType::F32 => Host::F32(zeroed(n)),
            DType::U32 => Host::U32(zeroed(n)),
            _ => Host::I32(zeroed(n)),
        }
    }

    fn len(&self) -> usize {
        match self {
            Host::F32(v) => v.len(),
            Host::I32(v) => v.len(),
            Host::U32(v) => v.len(),
            Host::Held { len, .. } => *len,
        }
    }

    /// The buffer's address. MPI only reads a `Held` buffer (it is never a receive buffer).
    fn ptr(&mut self) -> *mut c_void {
        match self {
            Host::F32(v) => v.as_mut_ptr().cast(),
            Host::I32(v) => v.as_mut_ptr().cast(),
            Host::U32(v) => v.as_mut_ptr().cast(),
            Host::Held { ptr, .. } => *ptr as *mut c_void,
        }
    }

    fn datatype(&self) -> ffi::MPI_Datatype {
        // SAFETY: reading the handles rsmpi's C shim exports (constants after MPI_Init).
        unsafe {
            match self {
                Host::F32(_) => ffi::RSMPI_FLOAT,
                Host::I32(_) => ffi::RSMPI_INT32_T,
                Host::U32(_) => ffi::RSMPI_UINT32_T,
                Host::Held { datatype, .. } => *datatype,
            }
        }
    }

    /// The whole buffer as a tensor of `shape` and `dtype` on `device`, without a copy on the
    /// CPU.
    fn into_tensor(self, shape: &[usize], dtype: DType, device: crate::Device) -> Result<Tensor> {
        let t = match self {
            Host::F32(v) => Tensor::from_vec(v, shape, device)?,
            Host::I32(v) => Tensor::from_vec(v, shape, device)?,
            Host::U32(v) => Tensor::from_vec(v, shape, device)?,
            Host::Held { .. } => return Err(Error::invalid("mpi", "internal: a send-only buffer read as a result")),
        };
        if t.dtype() == dtype {
            Ok(t)
        } else {
            t.to_dtype(dtype)
        }
    }

    /// The elements `start..start + n` as a tensor of `shape` and `dtype` on `device`.
    fn tensor(&self, start: usize, n: usize, shape: &[usize], dtype: DType, device: crate::Device) -> Result<Tensor> {
        let t = match self {
            Host::F32(v) => Tensor::from_slice(&v[start..start + n], shape, device)?,
            Host::I32(v) => Tensor::from_slice(&v[start..start + n], shape, device)?,
            Host::U32(v) => Tensor::from_slice(&v[start..start + n], shape, device)?,
            Host::Held { .. } => return Err(Error::invalid("mpi", "internal: a send-only buffer read as a result")),
        };
        if t.dtype() == dtype {
            Ok(t)
        } else {
            t.to_dtype(dtype)
        }
    }
}

/// One started non-blocking collective and the buffers MPI reads and writes until it ends.
struct Request {
    pending: Arc<Pending>,
    _send: Option<Host>,
    recv: Option<Host>,
    calls: Arc<Mutex<()>>,
}

impl Request {
    /// Polls until the request completes or `timeout` passes. MPI progresses a non-blocking
    /// collective only inside MPI calls, and a large one is many fragments, so the first
    /// stretch polls back to back (yielding the core): sleeping between polls made a 16 MB
    /// all-reduce take 740 ms instead of 20 where the shared-memory transport copies in
    /// fragments. Only a wait that lasts (a rank far behind) backs off to sleeps.
    fn wait(&mut self, op_name: &'static str, rank: usize, timeout: Duration) -> Result<()> {
        const SPIN: Duration = Duration::from_millis(50);
        let start = Instant::now();
        while !self.test()? {
            if start.elapsed() > timeout {
                return Err(Error::invalid(
                    op_name,
                    format!(
                        "rank {rank}: the collective did not complete within {} s: another rank has stopped, died, \
                         or is not making the same collectives in the same order (set WEBTENSOR_DIST_TIMEOUT to \
                         wait longer)",
                        timeout.as_secs()
                    ),
                ));
            }
            if start.elapsed() < SPIN {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
        Ok(())
    }

    fn test(&mut self) -> Result<bool> {
        self.pending.test(&self.calls)
    }
}

impl Drop for Request {
    /// A request still running when its `Work` is dropped keeps its buffers: MPI may write them
    /// later, so they are leaked rather than freed under it.
    fn drop(&mut self) {
        if !matches!(self.test(), Ok(true)) {
            std::mem::forget(self._send.take());
            std::mem::forget(self.recv.take());
        }
    }
}

fn check_rc(what: &str, rc: c_int) -> Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(Error::invalid("mpi", format!("{what} failed with MPI error code {rc}")))
    }
}

fn count(op_name: &'static str, n: usize) -> Result<c_int> {
    c_int::try_from(n).map_err(|_| {
        Error::invalid(
            op_name,
            format!("{n} elements is more than one MPI call carries ({}); split the tensor", c_int::MAX),
        )
    })
}

impl MpiGroup {
    /// Initialises MPI (once per process) and joins its world communicator.
    pub fn init() -> Result<MpiGroup> {
        const OP: &str = "init_process_group(mpi)";
        if STARTED.swap(true, Ordering::SeqCst) {
            return Err(Error::invalid(OP, "MPI was already initialised in this process; create one process group"));
        }
        let mut provided: c_int = 0;
        // SAFETY: MPI_Init_thread with no arguments (allowed since MPI-2), called once.
        let rc = unsafe {
            ffi::MPI_Init_thread(
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                ffi::RSMPI_THREAD_SERIALIZED,
                &mut provided,
            )
        };
        check_rc("MPI_Init_thread", rc)?;
        // SAFETY: reading the level constant.
        if provided < unsafe { ffi::RSMPI_THREAD_SERIALIZED } {
            return Err(Error::invalid(OP, "this MPI library does not support MPI_THREAD_SERIALIZED"));
        }
        let (mut rank, mut size, mut local): (c_int, c_int, c_int) = (0, 0, 0);
        // SAFETY: queries on the world communicator after a successful init; the shared-memory
        // split gives this rank's index among the ranks on its node.
        unsafe {
            let world = ffi::RSMPI_COMM_WORLD;
            check_rc("MPI_Comm_rank", ffi::MPI_Comm_rank(world, &mut rank))?;
            check_rc("MPI_Comm_size", ffi::MPI_Comm_size(world, &mut size))?;
            let mut node: ffi::MPI_Comm = ffi::RSMPI_COMM_NULL;
            let info = ffi::RSMPI_INFO_NULL;
            check_rc(
                "MPI_Comm_split_type",
                ffi::MPI_Comm_split_type(world, ffi::RSMPI_COMM_TYPE_SHARED, rank, info, &mut node),
            )?;
            check_rc("MPI_Comm_rank", ffi::MPI_Comm_rank(node, &mut local))?;
            check_rc("MPI_Comm_free", ffi::MPI_Comm_free(&mut node))?;
        }
        let calls = Arc::new(Mutex::new(()));
        Ok(MpiGroup {
            rank: rank as usize,
            world: size as usize,
            local_rank: local as usize,
            timeout: super::timeout(),
            progress: Some(Progress::start(calls.clone())),
            calls,
        })
    }

    /// Starts a collective through `start(send, recv, request)` and returns its request.
    fn start(
        &self,
        mut send: Option<Host>,
        mut recv: Option<Host>,
        start: impl FnOnce(*mut c_void, *mut c_void, *mut ffi::MPI_Request) -> c_int,
    ) -> Result<Request> {
        // SAFETY: a null request handle, overwritten by the start call.
        let mut req: ffi::MPI_Request = unsafe { ffi::RSMPI_REQUEST_NULL };
        let sp = send.as_mut().map_or(std::ptr::null_mut(), Host::ptr);
        let rp = recv.as_mut().map_or(std::ptr::null_mut(), Host::ptr);
        let rc = {
            let _serial = lock(&self.calls);
            start(sp, rp, &mut req)
        };
        check_rc("starting a collective", rc)?;
        let pending = match &self.progress {
            Some(p) => p.track(req),
            None => return Err(Error::invalid("mpi", "internal: the group is shutting down")),
        };
        Ok(Request { pending, _send: send, recv, calls: self.calls.clone() })
    }

    fn mpi_op(op: ReduceOp) -> ffi::MPI_Op {
        // SAFETY: reading the op handles rsmpi's shim exports.
        unsafe {
            match op {
                ReduceOp::Sum | ReduceOp::Avg => ffi::RSMPI_SUM,
                ReduceOp::Max => ffi::RSMPI_MAX,
                ReduceOp::Min => ffi::RSMPI_MIN,
            }
        }
    }

    /// The `Work` that waits for `req` and builds the result from its receive buffer.
    fn work(
        &self,
        op_name: &'static str,
        mut req: Request,
        build: impl FnOnce(Host) -> Result<Vec<Tensor>> + Send + 'static,
    ) -> Work {
        let (rank, timeout) = (self.rank, self.timeout);
        Work::new(async move {
            req.wait(op_name, rank, timeout)?;
            build(req.recv.take().unwrap_or(Host::F32(Vec::new())))
        })
    }
}

impl Drop for MpiGroup {
    fn drop(&mut self) {
        // The progress thread stops before MPI is finalised under it.
        self.progress.take();
        let _serial = lock(&self.calls);
        super::mpi_progress::FINALIZED.store(true, Ordering::Release);
        let mut done: c_int = 0;
        // SAFETY: finalising once, when the only group of this process goes away.
        unsafe {
            ffi::MPI_Finalized(&mut done);
            if done == 0 {
                ffi::MPI_Finalize();
            }
        }
    }
}

impl ProcessGroup for MpiGroup {
    fn backend(&self) -> Backend {
        Backend::Mpi
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
        let send = Host::send(tensor)?;
        let n = count(OP, send.len())?;
        let (dt, mop) = (send.datatype(), Self::mpi_op(op));
        let recv = Host::zeros(tensor.dtype(), send.len());
        // SAFETY: both buffers hold `n` elements of `dt` and live in the request until it ends.
        let req = self.start(Some(send), Some(recv), |s, r, q| unsafe {
            ffi::MPI_Iallreduce(s, r, n, dt, mop, ffi::RSMPI_COMM_WORLD, q)
        })?;
        let (shape, dtype, device, world) = (tensor.shape().to_vec(), tensor.dtype(), tensor.device(), self.world);
        Ok(self.work(OP, req, move |h| {
            let t = h.into_tensor(&shape, dtype, device)?;
            Ok(vec![if op == ReduceOp::Avg { t.div_scalar(world as f64)? } else { t }])
        }))
    }

    fn broadcast(&self, tensor: &Tensor, src: usize) -> Result<Work> {
        const OP: &str = "broadcast";
        check_rank(OP, src, self.world)?;
        let buf = if self.rank == src { Host::read(tensor)? } else { Host::zeros(tensor.dtype(), tensor.numel()) };
        let (n, dt, root) = (count(OP, buf.len())?, buf.datatype(), src as c_int);
        // SAFETY: one buffer of `n` elements, written in place, living in the request.
        let req = self
            .start(None, Some(buf), |_, r, q| unsafe { ffi::MPI_Ibcast(r, n, dt, root, ffi::RSMPI_COMM_WORLD, q) })?;
        let (shape, dtype, device) = (tensor.shape().to_vec(), tensor.dtype(), tensor.device());
        Ok(self.work(OP, req, move |h| Ok(vec![h.into_tensor(&shape, dtype, device)?])))
    }

    fn all_gather(&self, tensor: &Tensor) -> Result<Work> {
        const OP: &str = "all_gather";
        let send = Host::send(tensor)?;
        let each = send.len();
        let (n, dt) = (count(OP, each)?, send.datatype());
        let recv = Host::zeros(tensor.dtype(), each * self.world);
        count(OP, each * self.world)?;
        // SAFETY: `n` elements out, `n` per rank in, both living in the request.
        let req = self.start(Some(send), Some(recv), |s, r, q| unsafe {
            ffi::MPI_Iallgather(s, n, dt, r, n, dt, ffi::RSMPI_COMM_WORLD, q)
        })?;
        let (shape, dtype, device, world) = (tensor.shape().to_vec(), tensor.dtype(), tensor.device(), self.world);
        Ok(self.work(OP, req, move |h| (0..world).map(|r| h.tensor(r * each, each, &shape, dtype, device)).collect()))
    }

    fn reduce_scatter(&self, inputs: &[Tensor], op: ReduceOp) -> Result<Work> {
        const OP: &str = "reduce_scatter";
        check_scatter_inputs(inputs, self.world)?;
        check_reduce(OP, &inputs[0], op)?;
        let send = Host::send(&Tensor::cat(&inputs.iter().map(Tensor::flatten).collect::<Result<Vec<_>>>()?, 0)?)?;
        let each = inputs[0].numel();
        let (n, dt, mop) = (count(OP, each)?, send.datatype(), Self::mpi_op(op));
        let recv = Host::zeros(inputs[0].dtype(), each);
        // SAFETY: `n * world` elements out, `n` in, both living in the request.
        let req = self.start(Some(send), Some(recv), |s, r, q| unsafe {
            ffi::MPI_Ireduce_scatter_block(s, r, n, dt, mop, ffi::RSMPI_COMM_WORLD, q)
        })?;
        let first = &inputs[0];
        let (shape, dtype, device, world) = (first.shape().to_vec(), first.dtype(), first.device(), self.world);
        Ok(self.work(OP, req, move |h| {
            let t = h.into_tensor(&shape, dtype, device)?;
            Ok(vec![if op == ReduceOp::Avg { t.div_scalar(world as f64)? } else { t }])
        }))
    }

    fn barrier(&self) -> Result<Work> {
        // SAFETY: a barrier has no buffers.
        let req = self.start(None, None, |_, _, q| unsafe { ffi::MPI_Ibarrier(ffi::RSMPI_COMM_WORLD, q) })?;
        Ok(self.work("barrier", req, |_| Ok(Vec::new())))
    }

    fn abort(&self, code: i32) {
        // SAFETY: MPI_Abort ends every process of the job; it does not return.
        unsafe {
            ffi::MPI_Abort(ffi::RSMPI_COMM_WORLD, code);
        }
    }
}
