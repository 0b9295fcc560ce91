//! Indexing ops: `index_select` and `gather`. Indices are i32 or u32. The CPU backend rejects an
//! out-of-range index with an error; GPU kernels cannot raise one mid-dispatch, so there an
//! out-of-range index reads as 0 (as in TensorFlow.js) — validate indices on the CPU when unsure.

use crate::error::{Error, Result};
use crate::ops::IndexMode;
use crate::shape::normalize_dim;
use crate::tensor::Tensor;

impl Tensor {
    fn check_index(&self, index: &Tensor, op: &'static str) -> Result<()> {
        self.same_device(index, op)?;
        if !index.dtype().is_int() {
            return Err(Error::DTypeMismatch { op, expected: crate::DType::I32, got: index.dtype() });
        }
        Ok(())
    }

    /// Picks the slices `index[i]` of dimension `dim` (PyTorch's `index_select`).
    pub fn index_select(&self, dim: isize, index: &Tensor) -> Result<Tensor> {
        let op = "index_select";
        self.check_index(index, op)?;
        let d = normalize_dim(op, dim, self.rank())?;
        if index.rank() != 1 {
            return Err(Error::invalid(op, format!("index must be 1-D, got shape {:?}", index.shape())));
        }
        let mut shape = self.shape().to_vec();
        shape[d] = index.numel();
        self.index_op(IndexMode::Select, d, index, &shape, op)
    }

    /// Gathers `self[.., index[i, j, ..], ..]` along `dim` (PyTorch's `gather`): the output has
    /// the index's shape.
    pub fn gather(&self, dim: isize, index: &Tensor) -> Result<Tensor> {
        let op = "gather";
        self.check_index(index, op)?;
        let d = normalize_dim(op, dim, self.rank())?;
        if index.rank() != self.rank() || (0..self.rank()).any(|i| i != d && index.shape()[i] > self.shape()[i]) {
            return Err(Error::ShapeMismatch {
                op,
                lhs: self.shape().to_vec(),
                rhs: index.shape().to_vec(),
                msg: format!("index must have the input's rank and no larger size outside dim {d}"),
            });
        }
        self.index_op(IndexMode::Gather, d, index, index.shape(), op)
    }

    fn index_op(
        &self,
        mode: IndexMode,
        dim: usize,
        index: &Tensor,
        shape: &[usize],
        op: &'static str,
    ) -> Result<Tensor> {
        crate::device::placement::record(op, &[self.device(), index.device()], self.device());
        let index = index.contiguous()?;
        let storage = self
            .storage()
            .index(mode, self.layout(), index.storage(), index.layout(), dim, shape, self.dtype())
            .map_err(|e| e.in_op(op))?;
        Ok(Tensor::from_parts(storage, shape, self.dtype(), self.device()))
    }
}
