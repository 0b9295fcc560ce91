//! The CPU's entry point: a [`KernelCall`] dispatched to its kernel family. The CPU has no
//! scalar kernel: a scalar operand is a one-element fill broadcast through the binary kernel,
//! which costs it no more. Clamp and means run in one pass (clamp composes a maximum and a
//! minimum only where its one-pass kernel declines).

use super::{optim, CpuBackend, CpuStorage};
use crate::device::backend::{KernelCall, Kernels, OptimChunk, OptimTensor};
use crate::dtype::{CpuData, DType};
use crate::error::Result;
use crate::layout::Layout;
use crate::op::binary::{scalar_division, BinaryOp};
use crate::op::fill::Fill;
use crate::op::optim::OptimStep;
use crate::op::reduce::ReduceOp;

impl Kernels for CpuBackend {
    type Storage = CpuStorage;

    fn upload(&self, data: &CpuData) -> Result<CpuStorage> {
        CpuStorage::new(data.clone())
    }

    fn launch(&self, call: &KernelCall<'_, &CpuStorage>) -> Result<CpuStorage> {
        match call {
            KernelCall::Fill { n, value, dtype } => self.fill(*n, *value, *dtype),
            KernelCall::Map { src, op, dst, .. } => self.map(src.s, &src.l, *op, *dst),
            KernelCall::Binary { op, a, b, shape, .. } => self.binary(*op, a.s, &a.l, b.s, &b.l, shape),
            KernelCall::BinaryScalar { op, a, value, dtype } => self.scalar(*op, a.s, &a.l, *value, *dtype),
            KernelCall::Where { c, a, b, shape, .. } => self.where_(c, a, b, shape),
            KernelCall::Reduce { op, src, m, k, .. } => self.reduce(*op, src.s, &src.l, *m, *k),
            KernelCall::SumDiv { src, m, k, d } => match self.sum_div_f32(src.s, &src.l, *m, *k, *d)? {
                Some(s) => Ok(s),
                None => {
                    let sum = self.reduce(ReduceOp::Sum, src.s, &src.l, *m, *k)?;
                    let (op, v) = scalar_division(f64::from(*d));
                    self.scalar(op, &sum, &Layout::contiguous(&[*m]), v, DType::F32)
                }
            },
            KernelCall::Pad { src, before, shape, value } => {
                match self.pad_f32(src.s, &src.l, before, shape, *value)? {
                    Some(s) => Ok(s),
                    None => Err(crate::error::Error::UnsupportedDType {
                        op: "pad",
                        dtype: src.s.data().dtype(),
                        reason: "internal: the one-pass pad takes f32".into(),
                    }),
                }
            }
            KernelCall::Clamp { src, lo, hi } => match self.clamp_f32(src.s, &src.l, *lo, *hi)? {
                Some(s) => Ok(s),
                None => {
                    let t = self.scalar(BinaryOp::Maximum, src.s, &src.l, f64::from(*lo), DType::F32)?;
                    self.scalar(BinaryOp::Minimum, &t, &Layout::contiguous(src.l.shape()), f64::from(*hi), DType::F32)
                }
            },
            KernelCall::Softmax { src, m, k, log, .. } => self.softmax(src.s, &src.l, *m, *k, *log),
            KernelCall::Argsort { src, m, k, descending, keep, .. } => {
                self.argsort_keep(src.s, &src.l, (*m, *k), *descending, *keep)
            }
            KernelCall::Matmul { a, b, bias, args, .. } => self.matmul(a, b, *bias, args),
            KernelCall::Index { mode, src, idx, dim, shape, .. } => self.index(*mode, src, idx, *dim, shape),
            KernelCall::IndexAdd { mode, src, idx, dim, shape, assign, .. } => {
                super::scatter::index_add((*mode, *assign), src, idx, *dim, shape)
            }
            KernelCall::Cat { parts, dim, shape, dtype } => self.cat(parts, *dim, shape, *dtype),
            KernelCall::Fused { call, inputs } => self.fused(call, inputs),
            KernelCall::Elementwise { program, leaves, shape, scalars } => {
                super::expr::elementwise(program, leaves, shape, scalars)
            }
        }
    }

    fn optim_multi(
        &self,
        step: &OptimStep,
        tensors: &[OptimTensor<'_, CpuStorage>],
    ) -> Result<Vec<OptimChunk<CpuStorage>>> {
        optim::optim_multi(step, tensors)
    }
}

impl CpuBackend {
    /// `a op value`: the value filled once and broadcast through the binary kernel.
    fn scalar(&self, op: BinaryOp, a: &CpuStorage, l: &Layout, value: f64, dtype: DType) -> Result<CpuStorage> {
        let s = self.fill(1, Fill::Value(value), dtype)?;
        self.binary(op, a, l, &s, &Layout::contiguous(&[]), l.shape())
    }
}
