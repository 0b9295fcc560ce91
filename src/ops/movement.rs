//! Views and data movement: reshape/view (PyTorch's stride rule), permute, transpose, t,
//! narrow/slice, select, squeeze, unsqueeze, expand/broadcast_to, flatten (all without copies
//! where the layout allows), contiguous, cat and stack.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::op::MapOp;
use crate::ops::grad::{sum_to, unary_rule};
use crate::shape::{infer_shape, normalize_dim, normalize_insert_dim};
use crate::tensor::node::Backward;
use crate::tensor::Tensor;

impl Tensor {
    /// A tensor with the same elements in a new shape (one dim may be -1): a view when the
    /// strides allow one (PyTorch's `view` rule), else a contiguous copy, like PyTorch's
    /// `reshape`.
    pub fn reshape(&self, shape: &[isize]) -> Result<Tensor> {
        let shape = infer_shape("reshape", self.shape(), shape)?;
        if let Some(layout) = self.layout().view_as(&shape) {
            return Ok(self.reshaped(layout, "reshape"));
        }
        let base = self.contiguous()?;
        Ok(base.reshaped(base.layout().reshape_contiguous(shape), "reshape"))
    }

    /// The same elements in a new shape without a copy (PyTorch's `view`): any shape whose
    /// strides are compatible with this tensor's (splitting a dim, merging dims that are
    /// contiguous with each other, of any view); the rest is PyTorch's error, which advises
    /// `reshape`.
    pub fn view(&self, shape: &[isize]) -> Result<Tensor> {
        let shape = infer_shape("view", self.shape(), shape)?;
        match self.layout().view_as(&shape) {
            Some(layout) => Ok(self.reshaped(layout, "view")),
            None => Err(Error::invalid(
                "view",
                format!(
                    "view size {shape:?} is not compatible with input tensor's size {:?} and stride {:?} (at least one \
                     dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
                    self.shape(),
                    self.layout().strides()
                ),
            )),
        }
    }

    /// Flattens to one dimension.
    pub fn flatten(&self) -> Result<Tensor> {
        self.reshape(&[-1])
    }

    /// Reorders dimensions (a view).
    pub fn permute(&self, dims: &[isize]) -> Result<Tensor> {
        let layout = self.layout().permute("permute", dims)?;
        // The inverse permutation takes the gradient back.
        let mut inverse = vec![0isize; dims.len()];
        let rank = self.rank() as isize;
        for (i, &d) in dims.iter().enumerate() {
            inverse[(if d < 0 { d + rank } else { d }) as usize] = i as isize;
        }
        Ok(self.view_op(layout, "permute", |_| unary_rule(move |g| g.permute(&inverse))))
    }

    /// Swaps two dimensions (a view).
    pub fn transpose(&self, a: isize, b: isize) -> Result<Tensor> {
        let layout = self.layout().transpose("transpose", a, b)?;
        Ok(self.view_op(layout, "transpose", |_| unary_rule(move |g| g.transpose(a, b))))
    }

    /// Transpose of a matrix (a 1-D or 0-D tensor is returned as is, as in PyTorch).
    pub fn t(&self) -> Result<Tensor> {
        match self.rank() {
            0 | 1 => Ok(self.clone()),
            2 => self.transpose(0, 1),
            r => Err(Error::invalid(
                "t",
                format!("t() expects a tensor with at most 2 dims, got {r}; use transpose(a, b)"),
            )),
        }
    }

    /// `len` entries of `dim` from `start` (a view).
    pub fn narrow(&self, dim: isize, start: usize, len: usize) -> Result<Tensor> {
        let layout = self.layout().narrow("narrow", dim, start, len)?;
        Ok(self.narrowed(layout, normalize_dim("narrow", dim, self.rank())?, start, "narrow"))
    }

    /// Entries `range` of `dim` (a view); `slice(0, 2..5)` is `narrow(0, 2, 3)`.
    pub fn slice(&self, dim: isize, range: std::ops::Range<usize>) -> Result<Tensor> {
        if range.end < range.start {
            return Err(Error::invalid("slice", format!("range {range:?} ends before it starts")));
        }
        let layout = self.layout().narrow("slice", dim, range.start, range.end - range.start)?;
        Ok(self.narrowed(layout, normalize_dim("slice", dim, self.rank())?, range.start, "slice"))
    }

    /// The slice at `index` of `dim`, that dim removed (PyTorch's `select`, `x[:, i]`; a
    /// view). A negative index counts from the end.
    pub fn select(&self, dim: isize, index: isize) -> Result<Tensor> {
        let op = "select";
        let d = normalize_dim(op, dim, self.rank())?;
        let size = self.shape()[d];
        let i = if index < 0 { index + size as isize } else { index };
        if i < 0 || i as usize >= size {
            return Err(Error::IndexOutOfRange { op, index: index as i64, dim: d, size });
        }
        let layout = self.layout().narrow(op, d as isize, i as usize, 1)?;
        self.narrowed(layout, d, i as usize, op).squeeze(Some(d as isize))
    }

    /// Removes size-1 dims: all of them, or `dim` if it has size 1 (a view).
    pub fn squeeze(&self, dim: Option<isize>) -> Result<Tensor> {
        Ok(self.reshaped(self.layout().squeeze("squeeze", dim)?, "squeeze"))
    }

    /// Inserts a size-1 dim at `dim` (a view).
    pub fn unsqueeze(&self, dim: isize) -> Result<Tensor> {
        Ok(self.reshaped(self.layout().unsqueeze("unsqueeze", dim)?, "unsqueeze"))
    }

    /// Broadcasts to `shape` without copying (a view; `-1` keeps a dim's size, as in PyTorch's
    /// `expand`).
    pub fn expand(&self, shape: &[isize]) -> Result<Tensor> {
        let pad = shape.len().saturating_sub(self.rank());
        let target: Vec<usize> = shape
            .iter()
            .enumerate()
            .map(|(i, &s)| if s == -1 && i >= pad { self.shape()[i - pad] as isize } else { s })
            .map(|s| usize::try_from(s).map_err(|_| Error::invalid("expand", format!("invalid size {s} in {shape:?}"))))
            .collect::<Result<_>>()?;
        Ok(self.expanded(self.layout().expand("expand", &target)?, "expand"))
    }

    /// Broadcasts to `shape` without copying (a view).
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Tensor> {
        Ok(self.expanded(self.layout().expand("broadcast_to", shape)?, "broadcast_to"))
    }

    /// A contiguous tensor with the same values: `self` when it already is, else a copy.
    pub fn contiguous(&self) -> Result<Tensor> {
        if self.is_contiguous() {
            return Ok(self.clone());
        }
        self.map(MapOp::Cast, self.dtype(), "contiguous", |_| unary_rule(|g| Ok(g.clone())))
    }

    /// A copy with its own storage on the same device (PyTorch's `clone()`; `Tensor::clone`
    /// only shares the data, as tensors are immutable). Also the device-to-device copy that
    /// elementwise bandwidth is measured against.
    pub fn deep_copy(&self) -> Result<Tensor> {
        self.map(MapOp::Cast, self.dtype(), "deep_copy", |_| unary_rule(|g| Ok(g.clone())))
    }

    /// Concatenates tensors along `dim`. They must share a device and agree in every other dim;
    /// dtypes are promoted.
    pub fn cat(tensors: &[Tensor], dim: isize) -> Result<Tensor> {
        let op = "cat";
        let first = tensors.first().ok_or_else(|| Error::invalid(op, "expected a non-empty list of tensors"))?;
        let d = normalize_dim(op, dim, first.rank().max(1))?;
        let mut dtype = first.dtype();
        let mut total = 0;
        for t in tensors {
            first.same_device(t, op)?;
            dtype = DType::promote(dtype, t.dtype());
            let same_rest =
                t.rank() == first.rank() && (0..t.rank()).all(|i| i == d || t.shape()[i] == first.shape()[i]);
            if !same_rest || t.rank() == 0 {
                return Err(Error::ShapeMismatch {
                    op,
                    lhs: first.shape().to_vec(),
                    rhs: t.shape().to_vec(),
                    msg: format!("tensors must have the same rank (>= 1) and sizes except in dim {d}"),
                });
            }
            total += t.shape()[d];
        }
        let mut shape = first.shape().to_vec();
        shape[d] = total;
        let parts: Vec<Tensor> = tensors.iter().map(|t| t.to_dtype(dtype)).collect::<Result<_>>()?;
        let devices: Vec<_> = tensors.iter().map(|t| t.device()).collect();
        crate::device::placement::record(op, &devices, first.device());
        let refs: Vec<_> = parts.iter().map(|t| (t.storage(), t.layout())).collect();
        let storage = crate::storage::Storage::cat(&refs, d, &shape, dtype, first.device())?;
        // The gradient of each part is its stretch of the output's gradient along `d`.
        let sizes: Vec<usize> = parts.iter().map(|t| t.shape()[d]).collect();
        let inputs: Vec<&Tensor> = parts.iter().collect();
        Ok(Tensor::from_op(storage, &shape, dtype, first.device(), op, &inputs, |_| {
            Box::new(move |g, need| {
                let mut start = 0;
                let mut grads = Vec::with_capacity(sizes.len());
                for (i, &n) in sizes.iter().enumerate() {
                    grads.push(if need[i] { Some(g.narrow(d as isize, start, n)?) } else { None });
                    start += n;
                }
                Ok(grads)
            })
        }))
    }

    /// Stacks equally shaped tensors along a new dim.
    pub fn stack(tensors: &[Tensor], dim: isize) -> Result<Tensor> {
        let first = tensors.first().ok_or_else(|| Error::invalid("stack", "expected a non-empty list of tensors"))?;
        let d = normalize_insert_dim("stack", dim, first.rank())? as isize;
        for t in tensors {
            if t.shape() != first.shape() {
                return Err(Error::ShapeMismatch {
                    op: "stack",
                    lhs: first.shape().to_vec(),
                    rhs: t.shape().to_vec(),
                    msg: "stack needs tensors of equal shape".into(),
                });
            }
        }
        let parts: Vec<Tensor> = tensors.iter().map(|t| t.unsqueeze(d)).collect::<Result<_>>()?;
        Tensor::cat(&parts, d)
    }
}

/// The recorded forms of the view families.
impl Tensor {
    /// A view with the same elements in another shape: the gradient is reshaped back.
    fn reshaped(&self, layout: Layout, op: &'static str) -> Tensor {
        let shape: Vec<isize> = self.shape().iter().map(|&s| s as isize).collect();
        self.view_op(layout, op, |_| unary_rule(move |g| g.reshape(&shape)))
    }

    /// A broadcast view: the gradient is summed over the broadcast dims.
    fn expanded(&self, layout: Layout, op: &'static str) -> Tensor {
        let shape = self.shape().to_vec();
        self.view_op(layout, op, |_| unary_rule(move |g| sum_to(g, &shape)))
    }

    /// A stretch of `dim` from `start`: the gradient is zero-padded back to the full size, by
    /// the backward pass itself, which joins a split's pieces in one concatenation
    /// (`autograd/regions.rs`).
    fn narrowed(&self, layout: Layout, dim: usize, start: usize, op: &'static str) -> Tensor {
        self.view_with(layout, op, Backward::Narrow { dim, start })
    }
}
