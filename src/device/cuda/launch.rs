//! CUDA's entry point: a [`KernelCall`] dispatched to its kernel family, with the routing that
//! is CUDA's own: a scalar operand rides in the parameters of a contiguous operand (else it is
//! filled and broadcast), clamp is a maximum and a minimum, a mean a sum and a scalar division, and top-k selects its few positions per row (select.cu) up to
//! `op::sort::SELECT_MAX_KEEP`, beyond which it narrows a full sort.

use std::sync::Arc;

use super::{CudaDevice, CudaStorage};
use crate::device::backend::{KernelCall, Kernels, OptimChunk, OptimTensor};
use crate::dtype::{CpuData, DType};
use crate::error::Result;
use crate::layout::Layout;
use crate::op::binary::{scalar_division, BinaryOp};
use crate::op::fill::Fill;
use crate::op::optim::OptimStep;
use crate::op::reduce::ReduceOp;
use crate::op::sort::SELECT_MAX_KEEP;
use crate::op::MapOp;
use crate::shape::numel;

impl Kernels for Arc<CudaDevice> {
    type Storage = CudaStorage;

    fn upload(&self, data: &CpuData) -> Result<CudaStorage> {
        CudaDevice::upload(self, data)
    }

    fn launch(&self, call: &KernelCall<'_, &CudaStorage>) -> Result<CudaStorage> {
        match call {
            KernelCall::Fill { n, value, dtype } => self.fill(*n, *value, *dtype),
            KernelCall::Map { src, op, dst, .. } => self.map(src.s, &src.l, *op, *dst),
            KernelCall::Binary { op, a, b, shape, .. } => self.binary(*op, a.s, &a.l, b.s, &b.l, shape),
            KernelCall::BinaryScalar { op, a, value, dtype } => self.scalar(*op, a.s, &a.l, *value, *dtype),
            KernelCall::Where { c, a, b, shape, .. } => self.where_(c, a, b, shape),
            KernelCall::Reduce { op, src, m, k, .. } => self.reduce(*op, src.s, &src.l, *m, *k),
            KernelCall::SumDiv { src, m, k, d } => {
                let sum = self.reduce(ReduceOp::Sum, src.s, &src.l, *m, *k)?;
                let (op, v) = scalar_division(f64::from(*d));
                self.scalar(op, &sum, &Layout::contiguous(&[*m]), v, DType::F32)
            }
            KernelCall::Clamp { src, lo, hi } => self.clamp(src.s, &src.l, *lo, *hi),
            KernelCall::Pad { src, before, shape, value } => {
                // The padding value everywhere, then the data copied into the interior.
                let out = self.fill(numel(shape), Fill::Value(f64::from(*value)), DType::F32)?;
                let interior = Layout::interior(shape, before, src.l.shape());
                self.launch_map(MapOp::Cast, src.s, &src.l, &out, &interior)?;
                Ok(out)
            }
            KernelCall::Softmax { src, m, k, log, .. } => self.softmax(src.s, &src.l, *m, *k, *log),
            KernelCall::Argsort { src, m, k, descending, keep, .. } => {
                if keep < k && *keep <= SELECT_MAX_KEEP {
                    return self.select_top(src.s, &src.l, (*m, *k), *descending, *keep);
                }
                let full = self.argsort(src.s, &src.l, *m, *k, *descending)?;
                match keep < k {
                    true => self.map(&full, &Layout::strided(&[*m, *keep], &[*k, 1], 0), MapOp::Cast, DType::I32),
                    false => Ok(full),
                }
            }
            KernelCall::Matmul { a, b, bias, args, .. } => self.matmul(a, b, *bias, args),
            KernelCall::Index { mode, src, idx, dim, shape, .. } => self.index(*mode, src, idx, *dim, shape),
            KernelCall::IndexAdd { mode, src, idx, dim, shape, assign, .. } => {
                self.index_add((*mode, *assign), src, idx, *dim, shape)
            }
            KernelCall::Cat { parts, dim, shape, dtype } => self.cat(parts, *dim, shape, *dtype),
            KernelCall::Fused { call, inputs } => self.fused(call, inputs),
            KernelCall::Elementwise { program, leaves, shape, scalars } => {
                self.elementwise(program, leaves, shape, scalars)
            }
        }
    }

    /// A kernel per tensor: a launch costs microseconds here (a pointer-table kernel, as
    /// wgpu's `optim_multi.wgsl`, waits for a GPU to measure it on).
    fn optim_multi(
        &self,
        step: &OptimStep,
        tensors: &[OptimTensor<'_, CudaStorage>],
    ) -> Result<Vec<OptimChunk<CudaStorage>>> {
        tensors.iter().map(|t| Ok(OptimChunk { outs: self.fused_optim(step, &t.inputs, t.n)?, count: 1 })).collect()
    }
}

impl CudaDevice {
    /// `a op value`: the value in the parameters of a contiguous operand, else filled once and
    /// broadcast.
    fn scalar(
        self: &Arc<Self>,
        op: BinaryOp,
        a: &CudaStorage,
        l: &Layout,
        value: f64,
        dtype: DType,
    ) -> Result<CudaStorage> {
        match self.binary_scalar(op, a, l, value)? {
            Some(out) => Ok(out),
            None => {
                let s = self.fill(1, Fill::Value(value), dtype)?;
                self.binary(op, a, l, &s, &Layout::contiguous(&[]), l.shape())
            }
        }
    }

    /// f32 clamped to `[lo, hi]`: a maximum and a minimum, each a scalar kernel.
    fn clamp(self: &Arc<Self>, src: &CudaStorage, l: &Layout, lo: f32, hi: f32) -> Result<CudaStorage> {
        let t = self.scalar(BinaryOp::Maximum, src, l, f64::from(lo), DType::F32)?;
        self.scalar(BinaryOp::Minimum, &t, &Layout::contiguous(l.shape()), f64::from(hi), DType::F32)
    }
}
