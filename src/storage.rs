//! `Storage`: a tensor's elements on one backend, and the kernel families as ops call them:
//! each builds one [`KernelCall`] and [`Storage::launch`] (launch.rs) runs it on the backend
//! the operands live on.

mod launch;
pub(crate) mod lazy;
mod widen;

use std::borrow::Cow;
use std::sync::Arc;

use crate::device::backend::{KernelCall, Kernels, Operand, OptimChunk, OptimTensor};
use crate::device::cpu::{CpuBackend, CpuStorage, MetaStorage};
use crate::device::cuda::CudaStorage;
use crate::device::wgpu::WgpuStorage;
use crate::device::{Backend, Device};
use crate::dtype::{CpuData, DType};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::op::binary::BinaryOp;
use crate::op::fill::Fill;
use crate::op::fused::Fused;
use crate::op::optim::OptimStep;
use crate::op::reduce::ReduceOp;
use crate::op::{MapOp, MatmulArgs};

/// A tensor's elements, on one backend.
pub(crate) enum Storage {
    Cpu(CpuStorage),
    Wgpu(WgpuStorage),
    Cuda(CudaStorage),
    /// Held for its byte count, which `Drop` returns to the meta device's accounting.
    Meta(#[allow(dead_code)] MetaStorage),
    /// A recorded elementwise result of the lazy tier (lazy.rs), realized where it is used.
    Lazy(lazy::Lazy),
}

impl Storage {
    /// The bytes this storage holds on its device (a pooled block's size class on GPUs): what
    /// a view of part of it keeps alive.
    pub(crate) fn held_bytes(&self) -> u64 {
        match self {
            Storage::Cpu(s) => s.held_bytes(),
            Storage::Wgpu(s) => s.held_bytes(),
            Storage::Cuda(s) => s.held_bytes(),
            Storage::Meta(s) => s.held_bytes(),
            Storage::Lazy(s) => s.held_bytes(),
        }
    }

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
            Backend::Meta => launch::meta(&[data.len()], data.dtype())?,
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
        Storage::launch(KernelCall::Fill { n, value: Fill::Value(value), dtype }, Some(device))
    }

    /// `n` uniform f32 samples in [0, 1) of the counter-based generator under `seed`
    /// ([`crate::op::fill`]), generated on `device`: the same bits on every device.
    pub(crate) fn rand(n: usize, seed: u64, device: Device) -> Result<Storage> {
        Storage::launch(KernelCall::Fill { n, value: Fill::Uniform { seed }, dtype: DType::F32 }, Some(device))
    }

    /// `n` standard normal f32 samples of the counter-based generator under `seed`
    /// ([`crate::op::fill::normal`]), generated on `device`.
    pub(crate) fn randn(n: usize, seed: u64, device: Device) -> Result<Storage> {
        Storage::launch(KernelCall::Fill { n, value: Fill::Normal { seed }, dtype: DType::F32 }, Some(device))
    }

    /// The dtype of the elements, where the backend keeps it (not the meta device's).
    fn dtype_or(&self, default: DType) -> DType {
        match self {
            Storage::Cpu(s) => s.data().dtype(),
            Storage::Wgpu(s) => s.dtype(),
            Storage::Cuda(s) => s.dtype(),
            Storage::Meta(_) => default,
            Storage::Lazy(_) => DType::F32,
        }
    }

    /// This storage as the backends see it: a lazy result realized first (lazy.rs), anything
    /// else as it is.
    pub(crate) fn resolve(&self) -> Result<&Storage> {
        match self {
            Storage::Lazy(l) => l.resolve(),
            s => Ok(s),
        }
    }

    /// Unary op, cast or copy of `l` to a contiguous result of `dst` (recorded by the lazy tier
    /// where it applies).
    pub(crate) fn map(self: &Arc<Self>, l: &Layout, op: MapOp, dst: DType) -> Result<Storage> {
        let from = self.dtype_or(dst);
        if from == DType::F32 && dst == DType::F32 {
            let op = match op {
                MapOp::Unary(u) if crate::op::expr::records_unary(u) => Some(lazy::Op::Unary(u)),
                MapOp::Cast => Some(lazy::Op::Copy),
                MapOp::Unary(_) => None,
            };
            if let Some(s) = op.and_then(|op| lazy::record(op, &[lazy::Arg::Tensor(self, l)], l.shape())) {
                return Ok(s);
            }
        }
        Storage::launch(KernelCall::Map { src: Operand::new(self.as_ref(), l), op, from, dst }, None)
    }

    /// `self op value` over `l` (`value` in `dtype`): a scalar kernel where the backend has
    /// one, else the value filled and broadcast (recorded by the lazy tier where it applies).
    pub(crate) fn binary_scalar(
        self: &Arc<Self>,
        op: BinaryOp,
        l: &Layout,
        value: f64,
        dtype: DType,
    ) -> Result<Storage> {
        if dtype == DType::F32 && crate::op::expr::records_binary(op) {
            let args = [lazy::Arg::Tensor(self, l), lazy::Arg::Scalar(value as f32)];
            if let Some(s) = lazy::record(lazy::Op::Binary(op), &args, l.shape()) {
                return Ok(s);
            }
        }
        Storage::launch(KernelCall::BinaryScalar { op, a: Operand::new(self.as_ref(), l), value, dtype }, None)
    }

    /// Broadcast `self op b` into `shape`; both operands of `dtype` (recorded by the lazy tier
    /// where it applies).
    pub(crate) fn binary(
        self: &Arc<Self>,
        op: BinaryOp,
        la: &Layout,
        b: &Arc<Storage>,
        lb: &Layout,
        shape: &[usize],
        dtype: DType,
    ) -> Result<Storage> {
        if dtype == DType::F32 && crate::op::expr::records_binary(op) {
            let args = [lazy::Arg::Tensor(self, la), lazy::Arg::Tensor(b, lb)];
            if let Some(s) = lazy::record(lazy::Op::Binary(op), &args, shape) {
                return Ok(s);
            }
        }
        let (a, b) = (Operand::new(self.as_ref(), la), Operand::new(b.as_ref(), lb));
        Storage::launch(KernelCall::Binary { op, a, b, shape: shape.into(), dtype }, None)
    }

    /// `c ? a : b` with broadcasting into `shape` (`c` bool, `a` and `b` of `dtype`; recorded by
    /// the lazy tier where it applies).
    pub(crate) fn where_(
        (c, lc): (&Arc<Storage>, &Layout),
        (a, la): (&Arc<Storage>, &Layout),
        (b, lb): (&Arc<Storage>, &Layout),
        shape: &[usize],
        dtype: DType,
    ) -> Result<Storage> {
        if dtype == DType::F32 {
            let args = [lazy::Arg::Cond(c, lc), lazy::Arg::Tensor(a, la), lazy::Arg::Tensor(b, lb)];
            if let Some(s) = lazy::record(lazy::Op::Where, &args, shape) {
                return Ok(s);
            }
        }
        let (c, a, b) = (Operand::new(c.as_ref(), lc), Operand::new(a.as_ref(), la), Operand::new(b.as_ref(), lb));
        Storage::launch(KernelCall::Where { c, a, b, shape: shape.into(), dtype }, None)
    }

    /// Each row of the `[m, k]` view `l` (of `src`) reduced to one value of `out`; `l` may be
    /// a strided view ([kept.., reduced..]), which each backend reduces in place where it
    /// knows the pattern and gathers otherwise.
    pub(crate) fn reduce(
        &self,
        op: ReduceOp,
        l: &Layout,
        m: usize,
        k: usize,
        src: DType,
        out: DType,
    ) -> Result<Storage> {
        Storage::launch(KernelCall::Reduce { op, src: Operand::new(self, l), m, k, dtype: src, out }, None)
    }

    /// A call of a fused family (`op::fused`) over `inputs`, in the order the family names them.
    pub(crate) fn fused(call: Fused, inputs: &[&Storage]) -> Result<Storage> {
        Storage::launch(KernelCall::Fused { call, inputs: inputs.to_vec() }, None)
    }

    /// The f32 sums of each row of the `[m, k]` view `l` divided by `d` (means, average
    /// pooling; how is the backend's choice).
    pub(crate) fn sum_div(&self, l: &Layout, m: usize, k: usize, d: f32) -> Result<Storage> {
        Storage::launch(KernelCall::SumDiv { src: Operand::new(self, l), m, k, d }, None)
    }

    /// f32 `l` padded with `value` into `shape`, `before[d]` entries ahead of it in each dim (how
    /// is the backend's choice).
    pub(crate) fn pad(&self, l: &Layout, before: &[usize], shape: &[usize], value: f32) -> Result<Storage> {
        let (before, shape) = (Cow::Borrowed(before), Cow::Borrowed(shape));
        Storage::launch(KernelCall::Pad { src: Operand::new(self, l), before, shape, value }, None)
    }

    /// f32 `l` clamped to `[lo, hi]` (how is the backend's choice; recorded by the lazy tier
    /// where it applies).
    pub(crate) fn clamp(self: &Arc<Self>, l: &Layout, lo: f32, hi: f32) -> Result<Storage> {
        let args = [lazy::Arg::Tensor(self, l), lazy::Arg::Scalar(lo), lazy::Arg::Scalar(hi)];
        if let Some(s) = lazy::record(lazy::Op::Clamp, &args, l.shape()) {
            return Ok(s);
        }
        Storage::launch(KernelCall::Clamp { src: Operand::new(self.as_ref(), l), lo, hi }, None)
    }

    /// Softmax (or log-softmax) of each row of the contiguous `[m, k]` view `l`.
    pub(crate) fn softmax(&self, l: &Layout, m: usize, k: usize, log: bool, dtype: DType) -> Result<Storage> {
        Storage::launch(KernelCall::Softmax { src: Operand::new(self, l), m, k, log, dtype }, None)
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
        let call = KernelCall::Argsort { src: Operand::new(self, l), m, k, descending, keep, dtype: src };
        Storage::launch(call, None)
    }

    /// Batched matmul of `self` and `b` (of `dtype`) over strided operands, plus `bias` (from
    /// `args.bias_offset`) on every output row when given.
    pub(crate) fn matmul(
        &self,
        b: &Storage,
        bias: Option<&Storage>,
        args: &MatmulArgs,
        dtype: DType,
    ) -> Result<Storage> {
        Storage::launch(KernelCall::Matmul { a: self, b, bias, args: *args, dtype }, None)
    }

    /// The fused update of several tensors (see [`Kernels::optim_multi`]): each tensor's inputs
    /// as for [`Storage::optim`] and its length. Returns the chunks the backend launched.
    pub(crate) fn optim_multi(
        step: &OptimStep,
        tensors: &[OptimTensor<'_, Arc<Storage>>],
    ) -> Result<Vec<OptimChunk<Storage>>> {
        #[cfg(not(target_arch = "wasm32"))]
        if crate::device::profile::profiling() {
            let t0 = std::time::Instant::now();
            let out = Storage::optim_multi_now(step, tensors)?;
            if let Some(s) = out.last().and_then(|c| c.outs.first()) {
                s.finish()?;
            }
            crate::device::profile::record("optimizer step", t0.elapsed());
            return Ok(out);
        }
        Storage::optim_multi_now(step, tensors)
    }

    fn optim_multi_now(
        step: &OptimStep,
        tensors: &[OptimTensor<'_, Arc<Storage>>],
    ) -> Result<Vec<OptimChunk<Storage>>> {
        const OP: &str = "optimizer step";
        macro_rules! run {
            ($variant:ident, $backend:expr, $check:expr) => {{
                let mut ins = Vec::with_capacity(tensors.len());
                for t in tensors {
                    let inputs = t
                        .inputs
                        .iter()
                        .map(|(s, off)| match s.resolve()? {
                            Storage::$variant(s) => Ok((s, *off)),
                            _ => Err(launch::mixed(OP)),
                        })
                        .collect::<Result<Vec<_>>>()?;
                    ins.push(OptimTensor { inputs, n: t.n });
                }
                let all: Vec<_> = ins.iter().flat_map(|t| t.inputs.iter().map(|i| i.0)).collect();
                $check(&all)?;
                $backend
                    .optim_multi(step, &ins)?
                    .into_iter()
                    .map(|c| OptimChunk { outs: c.outs.into_iter().map(Storage::$variant).collect(), count: c.count })
                    .collect()
            }};
        }
        let Some((first, _)) = tensors.first().and_then(|t| t.inputs.first()) else {
            return Ok(Vec::new());
        };
        let ok = |_: &[_]| Ok(());
        Ok(match first.resolve()? {
            Storage::Lazy(_) => return Err(Error::invalid(OP, "internal: a lazy result stayed lazy")),
            Storage::Cpu(_) => run!(Cpu, CpuBackend, ok),
            Storage::Wgpu(d) => run!(Wgpu, d.device(), |all: &[_]| launch::same_gpu(OP, all)),
            Storage::Cuda(d) => run!(Cuda, d.device(), |all: &[_]| launch::same_cuda(OP, all)),
            Storage::Meta(_) => {
                let total = tensors.iter().map(|t| t.n).sum::<usize>();
                let outs =
                    (0..=step.kind.states()).map(|_| launch::meta(&[total], DType::F32)).collect::<Result<_>>()?;
                vec![OptimChunk { outs, count: tensors.len() }]
            }
        })
    }

    /// Concatenation of `parts` along `dim` into a new contiguous tensor of `shape` on `device`.
    pub(crate) fn cat(
        parts: &[(&Arc<Storage>, &Layout)],
        dim: usize,
        shape: &[usize],
        dtype: DType,
        device: Device,
    ) -> Result<Storage> {
        let parts = parts.iter().map(|(s, l)| Operand::new(s.as_ref(), l)).collect();
        Storage::launch(KernelCall::Cat { parts, dim, shape: shape.into(), dtype }, Some(device))
    }

    /// The elements of `l`, in row-major order, on the host.
    pub(crate) async fn read(&self, l: &Layout, op: &'static str) -> Result<CpuData> {
        match self.resolve()? {
            Storage::Lazy(_) => Err(Error::invalid(op, "internal: a lazy result stayed lazy")),
            Storage::Cpu(s) => Ok(CpuBackend.map(s, l, MapOp::Cast, s.data().dtype())?.into_data()),
            Storage::Wgpu(s) => s.device().read(s, l).await,
            Storage::Cuda(s) => s.read(l),
            Storage::Meta(_) => Err(Error::MetaReadback { op }),
        }
    }
}
