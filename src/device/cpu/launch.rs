//! The CPU's entry point: a [`KernelCall`] dispatched to its kernel family. The CPU has no
//! scalar kernel: a scalar operand is a one-element fill broadcast through the binary kernel,
//! which costs it no more.

use super::{optim, CpuBackend, CpuStorage};
use crate::device::backend::{KernelCall, Kernels};
use crate::dtype::CpuData;
use crate::error::Result;
use crate::layout::Layout;
use crate::op::fill::Fill;
use crate::op::optim::OptimStep;

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
            KernelCall::BinaryScalar { op, a, value, dtype } => {
                let s = self.fill(1, Fill::Value(*value), *dtype)?;
                self.binary(*op, a.s, &a.l, &s, &Layout::contiguous(&[]), a.l.shape())
            }
            KernelCall::Where { c, a, b, shape, .. } => self.where_(c, a, b, shape),
            KernelCall::Reduce { op, src, m, k, .. } => self.reduce(*op, src.s, &src.l, *m, *k),
            KernelCall::Softmax { src, m, k, log, .. } => self.softmax(src.s, &src.l, *m, *k, *log),
            KernelCall::Argsort { src, m, k, descending, keep, .. } => {
                self.argsort_keep(src.s, &src.l, (*m, *k), *descending, *keep)
            }
            KernelCall::Matmul { a, b, args, .. } => self.matmul(a, b, args),
            KernelCall::Index { mode, src, idx, dim, shape, .. } => self.index(*mode, src, idx, *dim, shape),
            KernelCall::IndexAdd { mode, src, idx, dim, shape, assign, .. } => {
                super::scatter::index_add((*mode, *assign), src, idx, *dim, shape)
            }
            KernelCall::Cat { parts, dim, shape, dtype } => self.cat(parts, *dim, shape, *dtype),
            KernelCall::Attention { q, k, v, mask, grad, args } => self.attention(q, k, v, *mask, *grad, args),
            KernelCall::Fused { call, inputs } => self.fused(call, inputs),
        }
    }

    fn optim(&self, step: &OptimStep, inputs: &[(&CpuStorage, usize)], n: usize) -> Result<Vec<CpuStorage>> {
        optim::optim(step, inputs, n)
    }
}
