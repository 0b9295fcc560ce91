//! `Storage`: a tensor's elements on one backend. One forwarding match per kernel family; the
//! meta arm only computes how many bytes the result would take.

mod one_pass;

use std::sync::Arc;

use crate::device::backend::Kernels;
use crate::device::cpu::{CpuBackend, CpuStorage, MetaStorage};
use crate::device::cuda::CudaStorage;
use crate::device::wgpu::{or_cpu, WgpuDevice, WgpuStorage};
use crate::device::{Backend, Device};
use crate::dtype::{CpuData, DType};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::op::binary::BinaryOp;
use crate::op::fill::Fill;
use crate::op::optim::OptimStep;
use crate::op::reduce::ReduceOp;
use crate::op::{IndexMode, MapOp, MatmulArgs};
use crate::shape::numel;

/// A tensor's elements, on one backend.
pub(crate) enum Storage {
    Cpu(CpuStorage),
    Wgpu(WgpuStorage),
    Cuda(CudaStorage),
    /// Held for its byte count, which `Drop` returns to the meta device's accounting.
    Meta(#[allow(dead_code)] MetaStorage),
}

fn mixed(op: &'static str) -> Error {
    // Ops check devices before they reach storage; this is a guard, not a user-facing path.
    Error::invalid(op, "internal: operands on different backends reached the kernel layer")
}

/// GPU operands of one op must share one wgpu device instance: after a loss and `recover`, an
/// old tensor and a new one have the same device name but not the same device.
fn same_gpu(op: &'static str, storages: &[&WgpuStorage]) -> Result<()> {
    let first: &Arc<WgpuDevice> = storages[0].device();
    for s in storages {
        if !Arc::ptr_eq(first, s.device()) {
            first.ensure_alive()?;
            s.device().ensure_alive()?;
            return Err(Error::invalid(op, "the operands belong to two openings of the same device"));
        }
    }
    Ok(())
}

/// CUDA operands of one op must share one device (ops check device names first; this guards
/// the kernel layer's pointers).
fn same_cuda(op: &'static str, storages: &[&CudaStorage]) -> Result<()> {
    let first = storages[0].device();
    if storages.iter().all(|s| Arc::ptr_eq(first, s.device())) {
        Ok(())
    } else {
        Err(mixed(op))
    }
}

fn meta(shape: &[usize], dtype: DType) -> Result<Storage> {
    let bytes = crate::shape::checked_numel("meta", shape)? * dtype.size_in_bytes();
    Ok(Storage::Meta(MetaStorage::new(bytes as u64)?))
}

/// u8 and i8 are stored, moved, filled and cast by every backend, but computed on their i32
/// widening: the other kernel families never see them. Each family below widens its 8-bit
/// operands here (one place for every backend), runs the i32 kernel, and narrows the result back
/// where the op keeps the dtype (keeping the low 8 bits, so arithmetic wraps as PyTorch's).
impl Storage {
    /// The elements of `l`, widened to i32, with their (contiguous) layout.
    fn widen(&self, l: &Layout) -> Result<(Storage, Layout)> {
        Ok((self.map(l, MapOp::Cast, DType::I32)?, Layout::contiguous(l.shape())))
    }

    /// This contiguous i32 result of `shape`, narrowed back to `dtype`.
    fn narrow(&self, shape: &[usize], dtype: DType) -> Result<Storage> {
        self.map(&Layout::contiguous(shape), MapOp::Cast, dtype)
    }
}

impl Storage {
    /// Host data placed on `device`.
    pub(crate) fn from_cpu(data: CpuData, device: Device) -> Result<Storage> {
        Storage::from_cpu_with(data, device, false)
    }

    /// Host data placed on `device`; with `non_blocking`, an upload may return before it lands
    /// (CUDA; wgpu uploads are always queued, and ordered before later ops).
    pub(crate) fn from_cpu_with(data: CpuData, device: Device, non_blocking: bool) -> Result<Storage> {
        Ok(match Backend::of(device)? {
            Backend::Cpu => Storage::Cpu(CpuStorage::new(data)?),
            Backend::Wgpu(d) => Storage::Wgpu(d.upload(&data)?),
            Backend::Cuda(d) => Storage::Cuda(d.upload_with(&data, non_blocking)?),
            Backend::Meta => meta(&[data.len()], data.dtype())?,
        })
    }

    /// CPU storage over `data` with a pinned copy for `for_device` attached (page-locked memory
    /// on CUDA, a mapped staging buffer on wgpu); plain CPU storage for the CPU or a device
    /// that is not open. What `Tensor::pin_memory` makes.
    pub(crate) fn pinned_cpu(data: CpuData, for_device: Option<Device>) -> Result<Storage> {
        let s = CpuStorage::new(data)?;
        // A device that cannot be opened (yet) gets nothing pinned; the tensor is still valid.
        Ok(match for_device.and_then(|d| Backend::of(d).ok()) {
            Some(Backend::Cuda(d)) => {
                let p = d.pin_host(s.data())?;
                Storage::Cpu(s.with_pinned(p))
            }
            Some(Backend::Wgpu(d)) => {
                let p = d.pin_host(s.data())?;
                Storage::Cpu(s.with_pinned(p))
            }
            _ => Storage::Cpu(s),
        })
    }

    /// A CPU storage's elements under `l`, in order (a copy); `None` for other devices.
    pub(crate) fn cpu_contiguous(&self, l: &Layout) -> Option<Result<CpuData>> {
        match self {
            Storage::Cpu(s) => Some(CpuBackend.map(s, l, MapOp::Cast, s.data().dtype()).map(CpuStorage::into_data)),
            _ => None,
        }
    }

    /// Whether this is CPU storage with a page-locked copy.
    pub(crate) fn is_pinned(&self) -> bool {
        matches!(self, Storage::Cpu(s) if s.pinned().is_some())
    }

    /// The upload of a pinned CPU tensor, viewed whole through `l`, to the device its block
    /// serves: one DMA from the block. `None` when that does not apply (not pinned, another
    /// device, a view of part of it), and the caller takes the ordinary path.
    pub(crate) fn upload_pinned(&self, l: &Layout, device: Device, non_blocking: bool) -> Option<Result<Storage>> {
        let Storage::Cpu(s) = self else { return None };
        let p = s.pinned()?;
        let whole = l.is_contiguous() && l.offset() == 0 && l.numel() == s.data().len();
        if p.device() != device || !whole {
            return None;
        }
        let (n, dtype) = (s.data().len(), s.data().dtype());
        match Backend::of(device) {
            Ok(Backend::Cuda(d)) => Some(d.upload_pinned(p, n, dtype, non_blocking).map(Storage::Cuda)),
            // A copy on the queue: asynchronous whether or not `non_blocking` was asked.
            Ok(Backend::Wgpu(d)) => Some(d.upload_pinned(p, n, dtype).map(Storage::Wgpu)),
            _ => None,
        }
    }

    /// `n` copies of `value` on `device`.
    pub(crate) fn fill(n: usize, value: f64, dtype: DType, device: Device) -> Result<Storage> {
        Storage::fill_with("full", n, Fill::Value(value), dtype, device)
    }

    /// `n` uniform f32 samples in [0, 1) of the counter-based generator under `seed`
    /// ([`crate::op::fill`]), generated on `device`: the same bits on every device.
    pub(crate) fn rand(n: usize, seed: u64, device: Device) -> Result<Storage> {
        Storage::fill_with("rand", n, Fill::Uniform { seed }, DType::F32, device)
    }

    fn fill_with(op: &'static str, n: usize, value: Fill, dtype: DType, device: Device) -> Result<Storage> {
        Ok(match Backend::of(device)? {
            Backend::Cpu => Storage::Cpu(CpuBackend.fill(n, value, dtype)?),
            Backend::Wgpu(d) => {
                let r = d.fill(n, value, dtype);
                Storage::Wgpu(or_cpu(op, &d, &[], (n, dtype), r, || move |_| CpuBackend.fill(n, value, dtype))?)
            }
            Backend::Cuda(d) => Storage::Cuda(d.fill(n, value, dtype)?),
            Backend::Meta => meta(&[n], dtype)?,
        })
    }

    pub(crate) fn map(&self, l: &Layout, op: MapOp, dst: DType) -> Result<Storage> {
        if let (MapOp::Unary(_), true) = (op, dst.is_narrow()) {
            let (w, lw) = self.widen(l)?;
            return w.map(&lw, op, DType::I32)?.narrow(l.shape(), dst);
        }
        Ok(match self {
            Storage::Cpu(s) => Storage::Cpu(CpuBackend.map(s, l, op, dst)?),
            Storage::Wgpu(s) => {
                let name = match op {
                    MapOp::Unary(u) => u.name(),
                    MapOp::Cast if s.dtype() == dst => "contiguous",
                    MapOp::Cast => "to_dtype",
                };
                let d = s.device();
                let r = d.map(s, l, op, dst);
                Storage::Wgpu(or_cpu(name, d, &[s], (l.numel(), dst), r, || {
                    let l = l.clone();
                    move |h| CpuBackend.map(&h[0], &l, op, dst)
                })?)
            }
            Storage::Cuda(s) => Storage::Cuda(s.device().map(s, l, op, dst)?),
            Storage::Meta(_) => meta(l.shape(), dst)?,
        })
    }

    /// Whether [`Storage::binary_scalar`] can run here (before converting operands for it).
    pub(crate) fn has_scalar_kernels(&self) -> bool {
        matches!(self, Storage::Wgpu(_) | Storage::Cuda(_))
    }

    /// `self op value` (contiguous `l`, `value` in `dtype`) by a backend's scalar kernel, or
    /// None where the caller should broadcast a filled 0-d tensor through [`Storage::binary`]
    /// (see `Kernels::binary_scalar`). A failed attempt also gives None: the broadcast path
    /// then runs with its soft placement and reports any error in full.
    pub(crate) fn binary_scalar(&self, op: BinaryOp, l: &Layout, value: f64, dtype: DType) -> Option<Storage> {
        match self {
            Storage::Wgpu(a) if !dtype.is_narrow() => {
                a.device().binary_scalar(op, a, l, value).ok().flatten().map(Storage::Wgpu)
            }
            Storage::Cuda(a) if !dtype.is_narrow() => {
                a.device().binary_scalar(op, a, l, value).ok().flatten().map(Storage::Cuda)
            }
            _ => None,
        }
    }

    pub(crate) fn binary(
        &self,
        op: BinaryOp,
        la: &Layout,
        b: &Storage,
        lb: &Layout,
        shape: &[usize],
        dtype: DType,
    ) -> Result<Storage> {
        if dtype.is_narrow() {
            let ((a, la), (b, lb)) = (self.widen(la)?, b.widen(lb)?);
            let out = a.binary(op, &la, &b, &lb, shape, DType::I32)?;
            return if op.is_comparison() { Ok(out) } else { out.narrow(shape, dtype) };
        }
        Ok(match (self, b) {
            (Storage::Cpu(a), Storage::Cpu(b)) => Storage::Cpu(CpuBackend.binary(op, a, la, b, lb, shape)?),
            (Storage::Wgpu(a), Storage::Wgpu(b)) => {
                same_gpu(op.name(), &[a, b])?;
                let d = a.device();
                let r = d.binary(op, a, la, b, lb, shape);
                Storage::Wgpu(or_cpu(op.name(), d, &[a, b], (numel(shape), op.out_dtype(dtype)), r, || {
                    let (la, lb, shape) = (la.clone(), lb.clone(), shape.to_vec());
                    move |h| CpuBackend.binary(op, &h[0], &la, &h[1], &lb, &shape)
                })?)
            }
            (Storage::Cuda(a), Storage::Cuda(b)) => {
                same_cuda(op.name(), &[a, b])?;
                Storage::Cuda(a.device().binary(op, a, la, b, lb, shape)?)
            }
            (Storage::Meta(_), Storage::Meta(_)) => meta(shape, op.out_dtype(dtype))?,
            _ => return Err(mixed(op.name())),
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn where_(
        &self,
        lc: &Layout,
        a: &Storage,
        la: &Layout,
        b: &Storage,
        lb: &Layout,
        shape: &[usize],
        dtype: DType,
    ) -> Result<Storage> {
        if dtype.is_narrow() {
            let ((a, la), (b, lb)) = (a.widen(la)?, b.widen(lb)?);
            return self.where_(lc, &a, &la, &b, &lb, shape, DType::I32)?.narrow(shape, dtype);
        }
        Ok(match (self, a, b) {
            (Storage::Cpu(c), Storage::Cpu(a), Storage::Cpu(b)) => {
                Storage::Cpu(CpuBackend.where_(c, lc, a, la, b, lb, shape)?)
            }
            (Storage::Wgpu(c), Storage::Wgpu(a), Storage::Wgpu(b)) => {
                same_gpu("where", &[c, a, b])?;
                let d = c.device();
                let r = d.where_(c, lc, a, la, b, lb, shape);
                Storage::Wgpu(or_cpu("where", d, &[c, a, b], (numel(shape), dtype), r, || {
                    let (lc, la, lb, shape) = (lc.clone(), la.clone(), lb.clone(), shape.to_vec());
                    move |h| CpuBackend.where_(&h[0], &lc, &h[1], &la, &h[2], &lb, &shape)
                })?)
            }
            (Storage::Cuda(c), Storage::Cuda(a), Storage::Cuda(b)) => {
                same_cuda("where", &[c, a, b])?;
                Storage::Cuda(c.device().where_(c, lc, a, la, b, lb, shape)?)
            }
            (Storage::Meta(_), Storage::Meta(_), Storage::Meta(_)) => meta(shape, dtype)?,
            _ => return Err(mixed("where")),
        })
    }

    pub(crate) fn reduce(
        &self,
        op: ReduceOp,
        l: &Layout,
        m: usize,
        k: usize,
        src: DType,
        out: DType,
    ) -> Result<Storage> {
        if src.is_narrow() {
            let (w, lw) = self.widen(l)?;
            let wide = if out.is_narrow() { DType::I32 } else { out };
            let r = w.reduce(op, &lw, m, k, DType::I32, wide)?;
            return if out.is_narrow() { r.narrow(&[m], out) } else { Ok(r) };
        }
        // `l` may be a strided view ([kept.., reduced..]): each backend reduces it in place
        // where it knows the pattern and gathers it otherwise.
        Ok(match self {
            Storage::Cpu(s) => Storage::Cpu(CpuBackend.reduce(op, s, l, m, k)?),
            Storage::Wgpu(s) => {
                let d = s.device();
                let r = d.reduce(op, s, l, m, k);
                Storage::Wgpu(or_cpu(op.name(), d, &[s], (m, out), r, || {
                    let l = l.clone();
                    move |h| CpuBackend.reduce(op, &h[0], &l, m, k)
                })?)
            }
            Storage::Cuda(s) => Storage::Cuda(s.device().reduce(op, s, l, m, k)?),
            Storage::Meta(_) => meta(&[m], out)?,
        })
    }

    pub(crate) fn softmax(&self, l: &Layout, m: usize, k: usize, log: bool, dtype: DType) -> Result<Storage> {
        Ok(match self {
            Storage::Cpu(s) => Storage::Cpu(CpuBackend.softmax(s, l, m, k, log)?),
            Storage::Wgpu(s) => {
                let d = s.device();
                let name = if log { "log_softmax" } else { "softmax" };
                let r = d.softmax(s, l, m, k, log);
                Storage::Wgpu(or_cpu(name, d, &[s], (m * k, dtype), r, || {
                    let l = l.clone();
                    move |h| CpuBackend.softmax(&h[0], &l, m, k, log)
                })?)
            }
            Storage::Cuda(s) => Storage::Cuda(s.device().softmax(s, l, m, k, log)?),
            Storage::Meta(_) => meta(&[m, k], dtype)?,
        })
    }

    /// The first `keep` of each row's sorting positions (`keep = k`: argsort; fewer: topk, which
    /// the CPU selects without sorting whole rows, the GPUs too for up to
    /// `op::sort::SELECT_MAX_KEEP`, and beyond that narrow from their full sort).
    pub(crate) fn argsort(
        &self,
        l: &Layout,
        (m, k): (usize, usize),
        descending: bool,
        src: DType,
        keep: usize,
    ) -> Result<Storage> {
        if src.is_narrow() {
            let (w, lw) = self.widen(l)?;
            return w.argsort(&lw, (m, k), descending, DType::I32, keep);
        }
        // GPUs select a few of each row (one read of it) rather than sort whole rows.
        let select = keep < k && keep <= crate::op::sort::SELECT_MAX_KEEP;
        let full = match self {
            Storage::Cpu(s) => return Ok(Storage::Cpu(CpuBackend.argsort_keep(s, l, (m, k), descending, keep)?)),
            Storage::Wgpu(s) if select => {
                let d = s.device();
                let r = d.select_top(s, l, (m, k), descending, keep);
                return Ok(Storage::Wgpu(or_cpu("topk", d, &[s], (m * keep, DType::I32), r, || {
                    let l = l.clone();
                    move |h| CpuBackend.argsort_keep(&h[0], &l, (m, k), descending, keep)
                })?));
            }
            Storage::Cuda(s) if select => {
                return Ok(Storage::Cuda(s.device().select_top(s, l, (m, k), descending, keep)?))
            }
            Storage::Wgpu(s) => {
                let d = s.device();
                let r = d.argsort(s, l, m, k, descending);
                Storage::Wgpu(or_cpu("argsort", d, &[s], (m * k, DType::I32), r, || {
                    let l = l.clone();
                    move |h| CpuBackend.argsort(&h[0], &l, m, k, descending)
                })?)
            }
            Storage::Cuda(s) => Storage::Cuda(s.device().argsort(s, l, m, k, descending)?),
            Storage::Meta(_) => return meta(&[m, keep.min(k)], DType::I32),
        };
        match keep < k {
            true => full.map(&Layout::strided(&[m, keep], &[k, 1], 0), MapOp::Cast, DType::I32),
            false => Ok(full),
        }
    }

    pub(crate) fn matmul(&self, b: &Storage, args: &MatmulArgs, dtype: DType) -> Result<Storage> {
        Ok(match (self, b) {
            (Storage::Cpu(a), Storage::Cpu(b)) => Storage::Cpu(CpuBackend.matmul(a, b, args)?),
            (Storage::Wgpu(a), Storage::Wgpu(b)) => {
                same_gpu("matmul", &[a, b])?;
                let d = a.device();
                let (r, args) = (d.matmul(a, b, args), *args);
                let out = (args.batch * args.m * args.n, dtype);
                Storage::Wgpu(or_cpu("matmul", d, &[a, b], out, r, || move |h| CpuBackend.matmul(&h[0], &h[1], &args))?)
            }
            (Storage::Cuda(a), Storage::Cuda(b)) => {
                same_cuda("matmul", &[a, b])?;
                Storage::Cuda(a.device().matmul(a, b, args)?)
            }
            (Storage::Meta(_), Storage::Meta(_)) => meta(&[args.batch, args.m, args.n], dtype)?,
            _ => return Err(mixed("matmul")),
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn index(
        &self,
        mode: IndexMode,
        l: &Layout,
        idx: &Storage,
        li: &Layout,
        dim: usize,
        shape: &[usize],
        dtype: DType,
    ) -> Result<Storage> {
        if dtype.is_narrow() {
            let (w, lw) = self.widen(l)?;
            return w.index(mode, &lw, idx, li, dim, shape, DType::I32)?.narrow(shape, dtype);
        }
        Ok(match (self, idx) {
            (Storage::Cpu(s), Storage::Cpu(i)) => Storage::Cpu(CpuBackend.index(mode, s, l, i, li, dim, shape)?),
            (Storage::Wgpu(s), Storage::Wgpu(i)) => {
                same_gpu("index", &[s, i])?;
                let d = s.device();
                let name = if mode == IndexMode::Select { "index_select" } else { "gather" };
                let r = d.index(mode, s, l, i, li, dim, shape);
                Storage::Wgpu(or_cpu(name, d, &[s, i], (numel(shape), dtype), r, || {
                    let (l, li, shape) = (l.clone(), li.clone(), shape.to_vec());
                    move |h| CpuBackend.index(mode, &h[0], &l, &h[1], &li, dim, &shape)
                })?)
            }
            (Storage::Cuda(s), Storage::Cuda(i)) => {
                same_cuda("index", &[s, i])?;
                Storage::Cuda(s.device().index(mode, s, l, i, li, dim, shape)?)
            }
            (Storage::Meta(_), Storage::Meta(_)) => meta(shape, dtype)?,
            _ => return Err(mixed("index")),
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn index_add(
        &self,
        mode: IndexMode,
        l: &Layout,
        idx: &Storage,
        li: &Layout,
        dim: usize,
        shape: &[usize],
        dtype: DType,
        assign: bool,
    ) -> Result<Storage> {
        if dtype.is_narrow() {
            let (w, lw) = self.widen(l)?;
            return w.index_add(mode, &lw, idx, li, dim, shape, DType::I32, assign)?.narrow(shape, dtype);
        }
        let name = match (mode, assign) {
            (_, true) => "scatter",
            (IndexMode::Select, _) => "index_add",
            (IndexMode::Gather, _) => "scatter_add",
        };
        Ok(match (self, idx) {
            (Storage::Cpu(s), Storage::Cpu(i)) => {
                Storage::Cpu(CpuBackend.index_add(mode, s, l, i, li, dim, shape, assign)?)
            }
            (Storage::Wgpu(s), Storage::Wgpu(i)) => {
                same_gpu(name, &[s, i])?;
                let d = s.device();
                let r = d.index_add(mode, s, l, i, li, dim, shape, assign);
                Storage::Wgpu(or_cpu(name, d, &[s, i], (numel(shape), dtype), r, || {
                    let (l, li, shape) = (l.clone(), li.clone(), shape.to_vec());
                    move |h| CpuBackend.index_add(mode, &h[0], &l, &h[1], &li, dim, &shape, assign)
                })?)
            }
            (Storage::Cuda(s), Storage::Cuda(i)) => {
                same_cuda(name, &[s, i])?;
                Storage::Cuda(s.device().index_add(mode, s, l, i, li, dim, shape, assign)?)
            }
            (Storage::Meta(_), Storage::Meta(_)) => meta(shape, dtype)?,
            _ => return Err(mixed(name)),
        })
    }

    /// One fused optimizer update (see [`Kernels::optim`]) over storages of one device, each
    /// with the element offset its contiguous data starts at. No CPU fallback: a wgpu error
    /// (a tensor past one binding) goes back to the optimizer, which then runs separate ops.
    pub(crate) fn optim(step: &OptimStep, inputs: &[(&Arc<Storage>, usize)], n: usize) -> Result<Vec<Storage>> {
        const OP: &str = "optimizer step";
        macro_rules! collect {
            ($variant:ident) => {
                inputs
                    .iter()
                    .map(|(s, off)| match s.as_ref() {
                        Storage::$variant(s) => Ok((s, *off)),
                        _ => Err(mixed(OP)),
                    })
                    .collect::<Result<Vec<_>>>()?
            };
        }
        let Some((first, _)) = inputs.first() else {
            return Err(Error::invalid(OP, "needs a parameter and its gradient"));
        };
        Ok(match first.as_ref() {
            Storage::Cpu(_) => CpuBackend.optim(step, &collect!(Cpu), n)?.into_iter().map(Storage::Cpu).collect(),
            Storage::Wgpu(d) => {
                let ins = collect!(Wgpu);
                same_gpu(OP, &ins.iter().map(|i| i.0).collect::<Vec<_>>())?;
                d.device().optim(step, &ins, n)?.into_iter().map(Storage::Wgpu).collect()
            }
            Storage::Cuda(d) => {
                let ins = collect!(Cuda);
                same_cuda(OP, &ins.iter().map(|i| i.0).collect::<Vec<_>>())?;
                d.device().optim(step, &ins, n)?.into_iter().map(Storage::Cuda).collect()
            }
            Storage::Meta(_) => (0..=step.kind.states()).map(|_| meta(&[n], DType::F32)).collect::<Result<_>>()?,
        })
    }

    pub(crate) fn cat(
        parts: &[(&Arc<Storage>, &Layout)],
        dim: usize,
        shape: &[usize],
        dtype: DType,
        device: Device,
    ) -> Result<Storage> {
        if dtype.is_narrow() {
            let wide =
                parts.iter().map(|(s, l)| s.widen(l).map(|(w, lw)| (Arc::new(w), lw))).collect::<Result<Vec<_>>>()?;
            let refs: Vec<(&Arc<Storage>, &Layout)> = wide.iter().map(|(s, l)| (s, l)).collect();
            return Storage::cat(&refs, dim, shape, DType::I32, device)?.narrow(shape, dtype);
        }
        macro_rules! collect {
            ($variant:ident) => {
                parts
                    .iter()
                    .map(|(s, l)| match s.as_ref() {
                        Storage::$variant(s) => Ok((s, *l)),
                        _ => Err(mixed("cat")),
                    })
                    .collect::<Result<Vec<_>>>()?
            };
        }
        Ok(match Backend::of(device)? {
            Backend::Cpu => Storage::Cpu(CpuBackend.cat(&collect!(Cpu), dim, shape, dtype)?),
            Backend::Wgpu(d) => {
                let parts = collect!(Wgpu);
                let inputs: Vec<&WgpuStorage> = parts.iter().map(|p| p.0).collect();
                if let Some(first) = inputs.first() {
                    same_gpu("cat", &inputs)?;
                    if !Arc::ptr_eq(&d, first.device()) {
                        first.device().ensure_alive()?;
                    }
                }
                let r = d.cat(&parts, dim, shape, dtype);
                Storage::Wgpu(or_cpu("cat", &d, &inputs, (numel(shape), dtype), r, || {
                    let (layouts, shape): (Vec<Layout>, _) =
                        (parts.iter().map(|p| p.1.clone()).collect(), shape.to_vec());
                    move |h| {
                        let host: Vec<_> = h.iter().zip(&layouts).collect();
                        CpuBackend.cat(&host, dim, &shape, dtype)
                    }
                })?)
            }
            Backend::Cuda(d) => {
                let parts = collect!(Cuda);
                let inputs: Vec<&CudaStorage> = parts.iter().map(|p| p.0).collect();
                if !inputs.is_empty() {
                    same_cuda("cat", &inputs)?;
                }
                Storage::Cuda(d.cat(&parts, dim, shape, dtype)?)
            }
            Backend::Meta => meta(shape, dtype)?,
        })
    }

    /// The elements of `l`, in row-major order, on the host.
    pub(crate) async fn read(&self, l: &Layout, op: &'static str) -> Result<CpuData> {
        match self {
            Storage::Cpu(s) => Ok(CpuBackend.map(s, l, MapOp::Cast, s.data().dtype())?.into_data()),
            Storage::Wgpu(s) => s.device().read(s, l).await,
            Storage::Cuda(s) => s.read(l),
            Storage::Meta(_) => Err(Error::MetaReadback { op }),
        }
    }
}
