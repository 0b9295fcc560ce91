//! Indexing ops: `index_select` and `gather`, their adjoints `index_add` and `scatter_add`
//! (which are also their gradients), and `scatter`. Indices are i32 or u32. The CPU backend
//! rejects an out-of-range index with an error at the op; on GPUs a kernel cannot fail
//! mid-dispatch, so the op queues a check of its index (`tensor/checks.rs`) that the next
//! readback or `synchronize` reports, as PyTorch's device-side assert (the kernel reads an
//! out-of-range index as 0). Gradient rules reuse indices already checked and skip the check.

use crate::device::backend::KernelCall;
use crate::device::DeviceKind;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::op::IndexMode;
use crate::shape::normalize_dim;
use crate::storage::Storage;
use crate::tensor::checks::check_index;
use crate::tensor::Tensor;

/// An error of the CPU's index check, named after the op the user called.
fn named(op: &'static str) -> impl Fn(Error) -> Error {
    move |e| match e {
        Error::IndexOutOfRange { index, dim, size, .. } => Error::IndexOutOfRange { op, index, dim, size },
        e => e.in_op(op),
    }
}

/// Queues the device-side check of `index` against `0..size` where the kernel cannot check it
/// (every device but the CPU, whose kernels fail at the op).
fn check_on_device(op: &'static str, index: &Tensor, dim: usize, size: usize) -> Result<()> {
    if index.device().kind() == DeviceKind::Cpu {
        return Ok(());
    }
    check_index(op, index, dim, size)
}

impl Tensor {
    fn check_index(&self, index: &Tensor, op: &'static str) -> Result<()> {
        self.same_device(index, op)?;
        if !matches!(index.dtype(), DType::I32 | DType::U32) {
            return Err(Error::DTypeMismatch { op, expected: crate::DType::I32, got: index.dtype() });
        }
        Ok(())
    }

    /// Picks the slices `index[i]` of dimension `dim` (PyTorch's `index_select`).
    pub fn index_select(&self, dim: isize, index: &Tensor) -> Result<Tensor> {
        self.index_select_as(dim, index, "index_select")
    }

    /// [`Tensor::index_select`] whose errors name `op` (embedding, a loss).
    pub(crate) fn index_select_as(&self, dim: isize, index: &Tensor, op: &'static str) -> Result<Tensor> {
        self.check_index(index, op)?;
        let d = normalize_dim(op, dim, self.rank())?;
        if index.rank() != 1 {
            return Err(Error::invalid(op, format!("index must be 1-D, got shape {:?}", index.shape())));
        }
        let mut shape = self.shape().to_vec();
        shape[d] = index.numel();
        self.index_op(IndexMode::Select, d, index, &shape, op, true)
    }

    /// Gathers `self[.., index[i, j, ..], ..]` along `dim` (PyTorch's `gather`): the output has
    /// the index's shape.
    pub fn gather(&self, dim: isize, index: &Tensor) -> Result<Tensor> {
        self.gather_as(dim, index, "gather")
    }

    /// [`Tensor::gather`] whose errors name `op` (a loss).
    pub(crate) fn gather_as(&self, dim: isize, index: &Tensor, op: &'static str) -> Result<Tensor> {
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
        self.index_op(IndexMode::Gather, d, index, index.shape(), op, true)
    }

    /// The index kernel; `checked` queues the device-side index check (gradient rules pass
    /// false: their indices were checked by the forward op).
    fn index_op(
        &self,
        mode: IndexMode,
        dim: usize,
        index: &Tensor,
        shape: &[usize],
        op: &'static str,
        checked: bool,
    ) -> Result<Tensor> {
        crate::device::placement::record(op, &[self.device(), index.device()], self.device());
        let index = index.contiguous()?;
        if checked {
            check_on_device(op, &index, dim, self.shape()[dim])?;
        }
        let call = KernelCall::Index {
            mode,
            src: self.operand(),
            idx: index.operand(),
            dim,
            shape: shape.into(),
            dtype: self.dtype(),
        };
        let storage = Storage::launch(call, None).map_err(named(op))?;
        // The gradient adds each output's gradient back at the source position it came from.
        let src_shape = self.shape().to_vec();
        let idx = index.clone();
        Ok(Tensor::from_op(storage, shape, self.dtype(), self.device(), op, &[self, &index], |_| {
            Box::new(move |g, _| Ok(vec![Some(g.index_add_into(mode, dim, &idx, &src_shape)?), None]))
        }))
    }
}

impl Tensor {
    /// `self` plus `source` added at the slices `index` names along `dim` (PyTorch's
    /// `index_add`): slice `i` of `source` adds into slice `index[i]`; repeated indices add up.
    pub fn index_add(&self, dim: isize, index: &Tensor, source: &Tensor) -> Result<Tensor> {
        let op = "index_add";
        self.check_index(index, op)?;
        self.same_device(source, op)?;
        let d = normalize_dim(op, dim, self.rank())?;
        let mut expected = self.shape().to_vec();
        if index.rank() != 1 || source.rank() != self.rank() || {
            expected[d] = index.numel();
            source.shape() != expected
        } {
            return Err(Error::ShapeMismatch {
                op,
                lhs: self.shape().to_vec(),
                rhs: source.shape().to_vec(),
                msg: format!("expected a 1-D index and a source of shape {expected:?}, got index {:?}", index.shape()),
            });
        }
        check_on_device(op, index, d, self.shape()[d])?;
        let added = source.to_dtype(self.dtype())?.index_add_into(IndexMode::Select, d, index, self.shape())?;
        self.add(&added)
    }

    /// `self` plus `src` added at the positions `index` names along `dim` (PyTorch's
    /// `scatter_add`): `src[.., i, ..]` adds into `out[.., index[.., i, ..], ..]`.
    pub fn scatter_add(&self, dim: isize, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        let (d, part) = self.scatter_source("scatter_add", dim, index, src)?;
        self.add(&part.index_add_into(IndexMode::Gather, d, index, self.shape())?)
    }

    /// `self` with `src[.., i, ..]` written at `out[.., index[.., i, ..], ..]` along `dim`
    /// (PyTorch's `scatter`). Where several elements name one position, the last in row-major
    /// order of the index wins, on every device (PyTorch leaves that unspecified). Gradients:
    /// `self` gets the output's gradient where nothing was written, `src` the gradient at the
    /// position each element went to, as in PyTorch.
    pub fn scatter(&self, dim: isize, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        let (d, part) = self.scatter_source("scatter", dim, index, src)?;
        let placed = part.put_into(IndexMode::Gather, d, index, self.shape(), true)?;
        // Which positions were written: the same kernel over a bool of ones.
        let ones = Tensor::ones(index.shape(), DType::Bool, self.device())?;
        let written = ones.put_into(IndexMode::Gather, d, index, self.shape(), true)?;
        written.where_(&placed, self)
    }

    /// [`Tensor::scatter`] of one value (PyTorch's `scatter(dim, index, value)`).
    pub fn scatter_value(&self, dim: isize, index: &Tensor, value: f64) -> Result<Tensor> {
        let src = Tensor::full(index.shape(), value, self.dtype(), self.device())?;
        self.scatter(dim, index, &src)
    }

    /// Checks a scatter's index and source against `self` and returns the normalised dim and the
    /// part of `src` the index covers (only that part takes part, as in PyTorch), in `self`'s
    /// dtype.
    fn scatter_source(&self, op: &'static str, dim: isize, index: &Tensor, src: &Tensor) -> Result<(usize, Tensor)> {
        self.check_index(index, op)?;
        self.same_device(src, op)?;
        let d = normalize_dim(op, dim, self.rank())?;
        let fits = index.rank() == self.rank()
            && src.rank() == self.rank()
            && (0..self.rank())
                .all(|i| index.shape()[i] <= src.shape()[i] && (i == d || index.shape()[i] <= self.shape()[i]));
        if !fits {
            return Err(Error::ShapeMismatch {
                op,
                lhs: self.shape().to_vec(),
                rhs: index.shape().to_vec(),
                msg: format!(
                    "index must have the input's rank, be no larger than src {:?}, and no larger than the input outside dim {d}",
                    src.shape()
                ),
            });
        }
        check_on_device(op, index, d, self.shape()[d])?;
        let mut part = src.clone();
        for (i, &n) in index.shape().iter().enumerate() {
            part = part.narrow(i as isize, 0, n)?;
        }
        Ok((d, part.to_dtype(self.dtype())?))
    }

    /// Zeros of `shape` with `self` added at the positions `index` names along `dim`: the
    /// kernel behind `index_add`, `scatter_add` and the gradients of `index_select`/`gather`.
    pub(crate) fn index_add_into(
        &self,
        mode: IndexMode,
        dim: usize,
        index: &Tensor,
        shape: &[usize],
    ) -> Result<Tensor> {
        if self.dtype() == DType::Bool {
            return Err(Error::UnsupportedDType {
                op: if mode == IndexMode::Select { "index_add" } else { "scatter_add" },
                dtype: DType::Bool,
                reason: "adding bool tensors; convert with to_dtype(i32) first".into(),
            });
        }
        self.put_into(mode, dim, index, shape, false)
    }

    /// Zeros of `shape` with `self` added (or, with `assign`, written: the last wins) at the
    /// positions `index` names along `dim`.
    fn put_into(&self, mode: IndexMode, dim: usize, index: &Tensor, shape: &[usize], assign: bool) -> Result<Tensor> {
        let op = match (mode, assign) {
            (_, true) => "scatter",
            (IndexMode::Select, _) => "index_add",
            (IndexMode::Gather, _) => "scatter_add",
        };
        crate::device::placement::record(op, &[self.device(), index.device()], self.device());
        let index = index.contiguous()?;
        let call = KernelCall::IndexAdd {
            mode,
            src: self.operand(),
            idx: index.operand(),
            dim,
            shape: shape.into(),
            dtype: self.dtype(),
            assign,
        };
        let storage = Storage::launch(call, None).map_err(|e| e.in_op(op))?;
        // The adjoint's adjoint: the gradient of what was placed is read back at the same
        // indices (for scatter, every source element gets the gradient of the position it named).
        let idx = index.clone();
        Ok(Tensor::from_op(storage, shape, self.dtype(), self.device(), op, &[self, &index], |_| {
            Box::new(move |g, _| {
                let back = match mode {
                    IndexMode::Select => {
                        let mut shape = g.shape().to_vec();
                        shape[dim] = idx.numel();
                        g.index_op(mode, dim, &idx, &shape, "index_select", false)?
                    }
                    IndexMode::Gather => g.index_op(mode, dim, &idx, idx.shape(), "gather", false)?,
                };
                Ok(vec![Some(back), None])
            })
        }))
    }
}

impl Tensor {
    /// `[.., num_classes]` with a 1 at each index and 0 elsewhere (PyTorch's `F.one_hot`; i32
    /// where PyTorch gives int64). An index outside `0..num_classes` is an error: at once on
    /// the CPU, at the next readback or `synchronize` on GPUs (see `tensor/checks.rs`).
    pub fn one_hot(&self, num_classes: usize) -> Result<Tensor> {
        let op = "one_hot";
        if !self.dtype().is_int() {
            return Err(Error::UnsupportedDType {
                op,
                dtype: self.dtype(),
                reason: "one_hot takes integer class indices; convert with to_dtype(i32) first".into(),
            });
        }
        if num_classes > i32::MAX as usize {
            return Err(Error::invalid(op, format!("{num_classes} classes is more than i32 indices can name")));
        }
        let wide =
            if matches!(self.dtype(), DType::I32 | DType::U32) { self.clone() } else { self.to_dtype(DType::I32)? };
        check_index(op, &wide, self.rank(), num_classes)?;
        let classes = Tensor::arange(0.0, num_classes as f64, 1.0, self.dtype(), self.device())?;
        self.unsqueeze(-1)?.eq(&classes)?.to_dtype(DType::I32)
    }
}
