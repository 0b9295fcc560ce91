//! Sorting: `argsort`, `sort` and `topk`, in PyTorch's order (NaN above everything, `-0` equal to
//! `+0`) and always stable (equal values keep their order, PyTorch's `stable=True`). One kernel
//! family gives the positions (a bitonic network on GPUs, a stable sort on the CPU); values are
//! a `gather` at those positions, so their gradient is gather's (added back at the positions),
//! as in PyTorch. Indices are i32 where PyTorch gives int64, as for `argmax`.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::normalize_dim;
use crate::tensor::Tensor;

impl Tensor {
    /// The positions that sort `self` along `dim`, ascending or `descending` (PyTorch's
    /// `argsort(stable=True)`): i32, of `self`'s shape.
    pub fn argsort(&self, dim: isize, descending: bool) -> Result<Tensor> {
        if self.rank() == 0 {
            normalize_dim("argsort", dim, 1)?;
            return self.reshape(&[1])?.argsort(0, descending)?.reshape(&[]);
        }
        self.sorted_positions(dim, descending, usize::MAX)
    }

    /// The first `keep` (at most the dim's size) of [`Tensor::argsort`]'s positions along
    /// `dim`, of a tensor of rank 1 or more.
    fn sorted_positions(&self, dim: isize, descending: bool, keep: usize) -> Result<Tensor> {
        let op = "argsort";
        let d = normalize_dim(op, dim, self.rank())? as isize;
        let x = self.detach().transpose(d, -1)?.contiguous()?;
        let k = *x.shape().last().unwrap_or(&1);
        if k > i32::MAX as usize {
            return Err(Error::invalid(op, format!("{k} elements along dim {d} is more than i32 positions can name")));
        }
        let m = x.numel().checked_div(k).unwrap_or(0);
        crate::device::placement::record(op, &[self.device()], self.device());
        let keep = keep.min(k);
        let storage = x.storage().argsort(x.layout(), (m, k), descending, x.dtype(), keep).map_err(|e| e.in_op(op))?;
        let mut shape = x.shape().to_vec();
        if let Some(last) = shape.last_mut() {
            *last = keep;
        }
        let idx = Tensor::from_op_nondiff(storage, &shape, DType::I32, self.device(), op, &[&x]);
        idx.transpose(d, -1)
    }

    /// `self` sorted along `dim` and the positions the values came from (PyTorch's
    /// `sort(stable=True)`); the values carry gradients back to those positions.
    pub fn sort(&self, dim: isize, descending: bool) -> Result<(Tensor, Tensor)> {
        let idx = self.argsort(dim, descending)?;
        Ok((self.take_along(dim, &idx)?, idx))
    }

    /// The `k` largest (or, with `largest = false`, smallest) elements along `dim` and their
    /// positions (PyTorch's `topk`), always in sorted order (PyTorch's `sorted=True`; with
    /// `sorted=False` PyTorch leaves the order unspecified, which sorted order satisfies too);
    /// among equal values the earlier position comes first. NaN counts as the largest value.
    pub fn topk(&self, k: usize, dim: isize, largest: bool) -> Result<(Tensor, Tensor)> {
        let op = "topk";
        if self.rank() == 0 {
            normalize_dim(op, dim, 1)?;
            let (v, i) = self.reshape(&[1])?.topk(k, 0, largest)?;
            return if k == 1 { Ok((v.reshape(&[])?, i.reshape(&[])?)) } else { Ok((v, i)) };
        }
        let d = normalize_dim(op, dim, self.rank())?;
        let size = self.shape()[d];
        if k > size {
            return Err(Error::invalid(
                op,
                format!("k = {k} is out of range: dim {d} has {size} elements; k must be in 0..={size}"),
            ));
        }
        let idx = self.sorted_positions(dim, largest, k)?;
        Ok((self.gather(dim, &idx)?, idx))
    }

    /// `gather` along `dim` that also accepts a 0-d tensor (whose only position is 0).
    fn take_along(&self, dim: isize, idx: &Tensor) -> Result<Tensor> {
        if self.rank() == 0 {
            return self.reshape(&[1])?.gather(0, &idx.reshape(&[1])?)?.reshape(&[]);
        }
        self.gather(dim, idx)
    }
}
