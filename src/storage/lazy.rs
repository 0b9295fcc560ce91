//! The lazy elementwise tier. On a WebGPU device (and on CUDA where switched on: its generated
//! kernels compile in the suite but have not yet run on a GPU) an f32 unary op, arithmetic with
//! a tensor or a scalar, or a copy returns a [`Lazy`] storage that records the op (`op::expr::Program`)
//! over its leaves instead of dispatching it. An op over lazy operands inlines their programs
//! (the operands stay valid on their own: each keeps its program until it is needed), so a
//! chain becomes one program. Anything else that touches the storage realizes it first
//! (`resolve`): another kind of kernel call (`Storage::launch` resolves its operands), a
//! readback, a move, an optimizer step, a collective; `flush` realizes every pending one
//! (synchronize, memory queries). Realizing launches `KernelCall::Elementwise`, one generated
//! kernel, or the op's own eager call where the chain is a single op (its tuned vec4 and row
//! programs). Tensors never change after they are made (in-place ops make new storage), so a
//! recorded leaf still holds the values it had when the op was recorded.
//!
//! What stays eager: other dtypes, other devices, shapes past one binding or `MAX_RANK` dims,
//! launch-blocking mode and the profiler (both want each op on its own), and the tier switched
//! off (`set_lazy_elementwise`).

use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use super::Storage;
use crate::device::backend::{KernelCall, Operand};
use crate::device::cuda::CudaDevice;
use crate::device::policy::lock;
use crate::device::wgpu::WgpuDevice;
use crate::device::Backend;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::op::binary::BinaryOp;
use crate::op::expr::{Instr, Program, MAX_LEAVES, MAX_RANK, MAX_SCALARS};
use crate::op::unary::UnaryOp;
use crate::op::MapOp;
use crate::shape::numel;

/// A recorded elementwise result: its device and shape, and either its realized storage or
/// what computes it.
pub(crate) struct Lazy(Arc<Node>);

struct Node {
    device: GpuOf,
    shape: Vec<usize>,
    done: OnceLock<Storage>,
    pending: Mutex<Option<Pending>>,
}

/// What a lazy result is computed from: the program, its leaves (each read through a layout
/// of the result's shape) and its scalars.
#[derive(Clone, Default)]
struct Pending {
    program: Program,
    leaves: Vec<(Arc<Storage>, Layout)>,
    scalars: Vec<f32>,
}

/// The op being recorded.
#[derive(Debug, Clone, Copy)]
pub(super) enum Op {
    /// A copy (a strided view made contiguous).
    Copy,
    Unary(UnaryOp),
    Binary(BinaryOp),
    /// `min(max(x, lo), hi)` over `[x, lo, hi]` (clamp's composed form, NaN kept).
    Clamp,
    /// `where` over `[cond, a, b]`.
    Where,
}

/// An operand of the op being recorded.
pub(super) enum Arg<'a> {
    Tensor(&'a Arc<Storage>, &'a Layout),
    /// A bool tensor (`where`'s condition).
    Cond(&'a Arc<Storage>, &'a Layout),
    Scalar(f32),
}

/// Whether ops are recorded now: the switch on, and neither launch-blocking mode nor the
/// profiler asking for each op on its own.
fn recording() -> bool {
    #[cfg(not(target_arch = "wasm32"))]
    if crate::device::profile::profiling() {
        return false;
    }
    crate::device::policy::lazy_elementwise() && !crate::device::policy::launch_blocking()
}

/// The GPU a lazy result lives on.
#[derive(Clone)]
enum GpuOf {
    Wgpu(Arc<WgpuDevice>),
    Cuda(Arc<CudaDevice>),
}

impl GpuOf {
    fn same(&self, other: &GpuOf) -> bool {
        match (self, other) {
            (GpuOf::Wgpu(a), GpuOf::Wgpu(b)) => Arc::ptr_eq(a, b),
            (GpuOf::Cuda(a), GpuOf::Cuda(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// Whether a result of `n` f32 may be recorded here: what fails eagerly fails at once (a
    /// lost device, a result past the memory limit), and wgpu's results fit one binding.
    fn takes(&self, n: usize) -> bool {
        let bytes = n as u64 * 4;
        match self {
            GpuOf::Wgpu(d) => !d.too_big(n, 4) && d.ensure_alive().is_ok() && d.stats().fits_live(bytes),
            GpuOf::Cuda(d) => d.stats().fits_live(bytes),
        }
    }
}

/// The GPU of an f32 storage that the tier can read, if it is one.
fn device_of(s: &Storage) -> Option<GpuOf> {
    match s {
        Storage::Wgpu(w) if w.dtype() == DType::F32 && !w.device().exceeds(&[w.buffer()]) => {
            Some(GpuOf::Wgpu(w.device().clone()))
        }
        Storage::Cuda(c) if c.dtype() == DType::F32 && crate::device::policy::lazy_on_cuda() => {
            Some(GpuOf::Cuda(c.device().clone()))
        }
        Storage::Lazy(l) => Some(l.0.device.clone()),
        _ => None,
    }
}

/// The GPU of a bool storage the tier can read as a condition, if it is one.
fn cond_device_of(s: &Storage) -> Option<GpuOf> {
    match s {
        Storage::Wgpu(w) if w.dtype() == DType::Bool && !w.device().exceeds(&[w.buffer()]) => {
            Some(GpuOf::Wgpu(w.device().clone()))
        }
        Storage::Cuda(c) if c.dtype() == DType::Bool && crate::device::policy::lazy_on_cuda() => {
            Some(GpuOf::Cuda(c.device().clone()))
        }
        _ => None,
    }
}

/// `op` over `args` into a lazy result of `shape`, or `None` where the op runs eagerly (see the
/// module docs). Deciding is all this does: no kernel runs and nothing fails here.
pub(super) fn record(op: Op, args: &[Arg], shape: &[usize]) -> Option<Storage> {
    if !recording() || shape.len() > MAX_RANK || numel(shape) == 0 {
        return None;
    }
    let mut device: Option<GpuOf> = None;
    for a in args {
        let d = match a {
            Arg::Tensor(s, _) => device_of(s)?,
            Arg::Cond(s, _) => cond_device_of(s)?,
            Arg::Scalar(_) => continue,
        };
        match &device {
            Some(first) if !first.same(&d) => return None,
            _ => device = Some(d),
        }
    }
    let device = device?;
    if !device.takes(numel(shape)) {
        return None;
    }
    let pending = Builder::build(op, args, shape, true).or_else(|| Builder::build(op, args, shape, false))?;
    let node =
        Arc::new(Node { device, shape: shape.to_vec(), done: OnceLock::new(), pending: Mutex::new(Some(pending)) });
    register(&node);
    Some(Storage::Lazy(Lazy(node)))
}

/// A program being assembled from an op and its operands.
#[derive(Default)]
struct Builder {
    p: Pending,
}

impl Builder {
    /// The program of `op` over `args`; with `inline`, pending lazy operands' programs are
    /// inlined where their layout allows. `None` past a program's limits.
    fn build(op: Op, args: &[Arg], shape: &[usize], inline: bool) -> Option<Pending> {
        let mut b = Builder::default();
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(match a {
                Arg::Tensor(s, l) => b.tensor(s, l, shape, inline)?,
                Arg::Cond(s, l) => {
                    let k = b.leaf(s, broadcast(l, shape))?;
                    b.p.program.push(Instr::LoadBool(k))?
                }
                Arg::Scalar(v) => b.scalar(*v)?,
            });
        }
        let result = match (op, vals.as_slice()) {
            (Op::Copy, &[x]) => x,
            (Op::Unary(u), &[x]) => b.p.program.push(Instr::Unary(u, x))?,
            (Op::Binary(o), &[x, y]) => b.p.program.push(Instr::Binary(o, x, y))?,
            (Op::Clamp, &[x, lo, hi]) => {
                let m = b.p.program.push(Instr::Binary(BinaryOp::Maximum, x, lo))?;
                b.p.program.push(Instr::Binary(BinaryOp::Minimum, m, hi))?
            }
            (Op::Where, &[c, x, y]) => b.p.program.push(Instr::Select(c, x, y))?,
            _ => return None,
        };
        b.p.program.set_result(result);
        Some(b.p)
    }

    fn scalar(&mut self, v: f32) -> Option<u8> {
        let k = match self.p.scalars.iter().position(|s| s.to_bits() == v.to_bits()) {
            Some(k) => k,
            None if self.p.scalars.len() < MAX_SCALARS => {
                self.p.scalars.push(v);
                self.p.scalars.len() - 1
            }
            None => return None,
        };
        self.p.program.push(Instr::Scalar(k as u8))
    }

    fn leaf(&mut self, s: &Arc<Storage>, l: Layout) -> Option<u8> {
        if let Some(k) = self.p.leaves.iter().position(|(t, m)| Arc::ptr_eq(t, s) && *m == l) {
            return Some(k as u8);
        }
        if self.p.leaves.len() >= MAX_LEAVES {
            return None;
        }
        self.p.leaves.push((s.clone(), l));
        Some(self.p.leaves.len() as u8 - 1)
    }

    /// Storage `s` read through `l`, broadcast into `shape`: its program inlined where it is a
    /// pending lazy result read whole (as itself or reshaped), else a leaf. A pending result
    /// that is not inlined runs now: a pending program never holds another, so what one keeps
    /// alive is its own leaves and a realization never waits on another's.
    fn tensor(&mut self, s: &Arc<Storage>, l: &Layout, shape: &[usize], inline: bool) -> Option<u8> {
        if inline {
            if let Some(r) = self.inline(s, l, shape) {
                return r;
            }
        }
        // (A failure is the eager call's to report, which resolves it again.)
        s.resolve().ok()?;
        let k = self.leaf(s, broadcast(l, shape))?;
        self.p.program.push(Instr::Load(k))
    }

    /// `Some(result)` when `s` is a pending lazy result that `l` reads whole (`Some(None)`: it
    /// is, but the program is full); `None` when it must be a leaf.
    fn inline(&mut self, s: &Arc<Storage>, l: &Layout, shape: &[usize]) -> Option<Option<u8>> {
        let Storage::Lazy(lz) = s.as_ref() else { return None };
        if lz.0.done.get().is_some() || !l.is_contiguous() || l.offset() != 0 || l.numel() != numel(&lz.0.shape) {
            return None;
        }
        let inner = lock(&lz.0.pending).clone()?;
        // Each of its leaves' layouts, over its shape, read as `l` reads it, then broadcast.
        let mut layouts = Vec::with_capacity(inner.leaves.len());
        for (_, m) in &inner.leaves {
            let m = if l.shape() == lz.0.shape.as_slice() { m.clone() } else { m.view_as(l.shape())? };
            layouts.push(broadcast(&m, shape));
        }
        let leaf_map: Option<Vec<u8>> = inner.leaves.iter().zip(layouts).map(|((t, _), m)| self.leaf(t, m)).collect();
        let Some(leaf_map) = leaf_map else { return Some(None) };
        let mut scalar_map = Vec::with_capacity(inner.scalars.len());
        for &v in &inner.scalars {
            let Some(Instr::Scalar(k)) = self.scalar(v).and_then(|i| self.p.program.instrs().get(i as usize).copied())
            else {
                return Some(None);
            };
            scalar_map.push(k);
        }
        Some(self.p.program.inline(&inner.program, &leaf_map, &scalar_map))
    }
}

/// `l` read broadcast into `shape` (right-aligned; size-1 and missing dims repeat).
fn broadcast(l: &Layout, shape: &[usize]) -> Layout {
    Layout::strided(shape, &l.broadcast_strides(shape), l.offset())
}

impl Lazy {
    /// The backend the result lives on.
    pub(super) fn backend(&self) -> Backend {
        match &self.0.device {
            GpuOf::Wgpu(d) => Backend::Wgpu(d.clone()),
            GpuOf::Cuda(d) => Backend::Cuda(d.clone()),
        }
    }

    /// The bytes it holds once realized (its f32 result's, before).
    pub(super) fn held_bytes(&self) -> u64 {
        self.0.done.get().map_or(numel(&self.0.shape) as u64 * 4, Storage::held_bytes)
    }

    /// The realized storage, computing it first if it is pending. An error leaves it pending
    /// (a later use tries again) and names the op that made the result and the chain.
    pub(crate) fn resolve(&self) -> Result<&Storage> {
        if let Some(s) = self.0.done.get() {
            return Ok(s);
        }
        let mut pending = lock(&self.0.pending);
        if let Some(s) = self.0.done.get() {
            return Ok(s);
        }
        let Some(p) = pending.as_ref() else {
            return Err(Error::invalid("elementwise", "internal: a lazy result with neither storage nor program"));
        };
        let s = p.launch(&self.0.shape)?;
        // Only this thread holds the lock, so the cell is empty and takes the value.
        let _ = self.0.done.set(s);
        *pending = None;
        drop(pending);
        self.0.done.get().ok_or_else(|| Error::invalid("elementwise", "internal: a realized result went missing"))
    }
}

impl Pending {
    /// Runs the program: the op's own call where it is one op over leaves and scalars (the
    /// eager kernels' tuned programs), else one generated kernel.
    fn launch(&self, shape: &[usize]) -> Result<Storage> {
        let leaf = |k: u8| -> Operand<'_, &Storage> {
            let (s, l) = &self.leaves[k as usize];
            Operand::new(s.as_ref(), l)
        };
        let instrs = self.program.instrs();
        let at = |i: u8| instrs.get(i as usize).copied();
        let single = match at(self.program.result()) {
            Some(Instr::Load(k)) => {
                Some(KernelCall::Map { src: leaf(k), op: MapOp::Cast, from: DType::F32, dst: DType::F32 })
            }
            Some(Instr::Unary(u, a)) => match at(a) {
                Some(Instr::Load(k)) => {
                    Some(KernelCall::Map { src: leaf(k), op: MapOp::Unary(u), from: DType::F32, dst: DType::F32 })
                }
                _ => None,
            },
            Some(Instr::Binary(op, a, b)) => match (at(a), at(b)) {
                (Some(Instr::Load(x)), Some(Instr::Load(y))) => Some(KernelCall::Binary {
                    op,
                    a: leaf(x),
                    b: leaf(y),
                    shape: Cow::Borrowed(shape),
                    dtype: DType::F32,
                }),
                (Some(Instr::Load(x)), Some(Instr::Scalar(k))) => Some(KernelCall::BinaryScalar {
                    op,
                    a: leaf(x),
                    value: f64::from(self.scalars[k as usize]),
                    dtype: DType::F32,
                }),
                _ => None,
            },
            Some(Instr::Select(c, a, b)) => match (at(c), at(a), at(b)) {
                (Some(Instr::LoadBool(c)), Some(Instr::Load(x)), Some(Instr::Load(y))) => Some(KernelCall::Where {
                    c: leaf(c),
                    a: leaf(x),
                    b: leaf(y),
                    shape: Cow::Borrowed(shape),
                    dtype: DType::F32,
                }),
                _ => None,
            },
            _ => None,
        };
        let call = single.unwrap_or_else(|| KernelCall::Elementwise {
            program: Arc::new(self.program.clone()),
            leaves: (0..self.leaves.len() as u8).map(leaf).collect(),
            shape: Cow::Borrowed(shape),
            scalars: Cow::Borrowed(&self.scalars),
        });
        Storage::launch(call, None).map_err(|e| e.in_op(self.program.name()))
    }
}

/// The pending lazy results, oldest first, for `flush`.
fn registry() -> &'static Mutex<Vec<Weak<Node>>> {
    static PENDING: OnceLock<Mutex<Vec<Weak<Node>>>> = OnceLock::new();
    PENDING.get_or_init(|| Mutex::new(Vec::new()))
}

/// How many pending results may wait before recording one realizes them all: a bound on what
/// the leaves they hold keep alive.
const MAX_PENDING: usize = 1024;

fn register(node: &Arc<Node>) {
    crate::device::memory::set_flush_pending(flush);
    let over = {
        let mut r = lock(registry());
        r.push(Arc::downgrade(node));
        // Pruned (dropped and realized results out) once it doubles the bound, so pruning
        // costs O(1) a record; past the bound after pruning, everything pending runs.
        if r.len() > 2 * MAX_PENDING {
            r.retain(|w| w.upgrade().is_some_and(|n| n.done.get().is_none()));
            r.len() > MAX_PENDING
        } else {
            false
        }
    };
    if over {
        // Errors stay with each result, which reports them when used.
        let _ = flush();
    }
}

/// Realizes the pending lazy results that no thread is realizing now, after an allocation
/// failed: each frees the inputs only it held. Whether any ran (the caller then retries).
pub(super) fn flush_for_memory() -> bool {
    let nodes: Vec<Arc<Node>> = {
        let r = lock(registry());
        r.iter().filter_map(Weak::upgrade).filter(|n| n.done.get().is_none()).collect()
    };
    let mut ran = false;
    for n in nodes {
        // A node being realized (by this thread, whose allocation failed, or another) is
        // skipped: its lock is held.
        let Ok(guard) = n.pending.try_lock() else { continue };
        drop(guard);
        if n.done.get().is_none() && Lazy(n.clone()).resolve().is_ok() {
            ran = true;
        }
    }
    ran
}

/// Realizes every pending lazy result, oldest first (a synchronize, a memory query); the first
/// error, after trying them all.
pub(crate) fn flush() -> Result<()> {
    let nodes: Vec<Arc<Node>> = {
        let mut r = lock(registry());
        let nodes = r.drain(..).filter_map(|w| w.upgrade()).filter(|n| n.done.get().is_none()).collect();
        nodes
    };
    let mut first = Ok(());
    for n in nodes {
        if let Err(e) = Lazy(n.clone()).resolve() {
            // Still pending: kept for the next flush.
            lock(registry()).push(Arc::downgrade(&n));
            if first.is_ok() {
                first = Err(e);
            }
        }
    }
    first
}
