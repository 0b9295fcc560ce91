//! Reductions (sum, mean, max, min, prod, argmax, argmin, var, std) over one or more dims or
//! everything, and the numerically stable softmax / log_softmax.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::{normalize_dim, normalize_dims};
use crate::tensor::Tensor;

/// A reduction kernel. Mean, var and std are built from these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Sum (integers accumulate wrapping in 32 bits).
    Sum,
    /// Product.
    Prod,
    /// Maximum.
    Max,
    /// Minimum.
    Min,
    /// Index of the first maximum (i32 result).
    ArgMax,
    /// Index of the first minimum (i32 result).
    ArgMin,
}

impl ReduceOp {
    /// Every reduction kernel.
    pub const ALL: [ReduceOp; 6] =
        [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min, ReduceOp::ArgMax, ReduceOp::ArgMin];

    /// The op's name.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::ArgMax => "argmax",
            ReduceOp::ArgMin => "argmin",
        }
    }

    /// Whether the result is an index.
    pub(crate) fn is_arg(self) -> bool {
        matches!(self, ReduceOp::ArgMax | ReduceOp::ArgMin)
    }

    /// Whether an empty reduction has a value (the identity) or is an error.
    pub(crate) fn has_identity(self) -> bool {
        matches!(self, ReduceOp::Sum | ReduceOp::Prod)
    }

    /// The dtype the kernel reads and accumulates in (bool sums and products count in i32).
    pub(crate) fn input_dtype(self, dtype: DType) -> DType {
        match (self, dtype) {
            (ReduceOp::Sum | ReduceOp::Prod, DType::Bool) => DType::I32,
            (_, d) => d,
        }
    }

    /// The output dtype for an input of `dtype`.
    pub(crate) fn output_dtype(self, dtype: DType) -> DType {
        if self.is_arg() {
            DType::I32
        } else {
            self.input_dtype(dtype)
        }
    }

    /// Whether `candidate` replaces `current`: strictly better (so the first of equals wins),
    /// and NaN beats everything and is never replaced, so max/min propagate NaN as in PyTorch.
    /// (`x != x` is the NaN test that works for every `PartialOrd` element type.)
    #[allow(clippy::eq_op)]
    pub(crate) fn better<T: PartialOrd>(self, candidate: T, current: T) -> bool {
        let nan = |x: &T| x != x;
        if nan(&current) {
            return false;
        }
        nan(&candidate)
            || match self {
                ReduceOp::Max | ReduceOp::ArgMax => candidate > current,
                _ => candidate < current,
            }
    }

    /// WGSL: how accumulator `acc` absorbs value `v` (sum and prod; the others compare with
    /// [`ReduceOp::wgsl_better`]).
    pub(crate) fn wgsl_combine(self) -> &'static str {
        match self {
            ReduceOp::Sum => "acc + v",
            ReduceOp::Prod => "acc * v",
            _ => "select(acc, v, better(v, acc))",
        }
    }

    /// WGSL comparison `better(v, acc)`, with the same NaN rule as [`ReduceOp::better`] for
    /// float accumulators.
    pub(crate) fn wgsl_better(self, float: bool) -> &'static str {
        match (self, float) {
            (ReduceOp::Max | ReduceOp::ArgMax, true) => "!is_nan(acc) && (is_nan(v) || v > acc)",
            (_, true) => "!is_nan(acc) && (is_nan(v) || v < acc)",
            (ReduceOp::Max | ReduceOp::ArgMax, false) => "v > acc",
            (_, false) => "v < acc",
        }
    }
}

impl ReduceOp {
    /// CUDA C: how accumulator `acc` absorbs `v` for sum and prod (integers wrap through
    /// unsigned); the selecting ops compare with [`ReduceOp::cuda_better`].
    pub(crate) fn cuda_combine(self, float: bool) -> &'static str {
        match (self, float) {
            (ReduceOp::Sum, true) => "acc + v",
            (ReduceOp::Prod, true) => "acc * v",
            (ReduceOp::Sum, false) => "(A)((unsigned)acc + (unsigned)v)",
            (ReduceOp::Prod, false) => "(A)((unsigned)acc * (unsigned)v)",
            _ => "(better(v, acc) ? v : acc)",
        }
    }

    /// CUDA C comparison `better(v, acc)`, with the NaN rule of [`ReduceOp::better`].
    pub(crate) fn cuda_better(self, float: bool) -> &'static str {
        match (self, float) {
            (ReduceOp::Max | ReduceOp::ArgMax, true) => "!is_nan(acc) && (is_nan(v) || v > acc)",
            (_, true) => "!is_nan(acc) && (is_nan(v) || v < acc)",
            (ReduceOp::Max | ReduceOp::ArgMax, false) => "v > acc",
            (_, false) => "v < acc",
        }
    }
}

impl Tensor {
    /// Runs a reduction kernel over `dims` (all dims when `None`).
    pub fn reduce(&self, op: ReduceOp, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        let name = op.name();
        let rank = self.rank();
        let dims = match dims {
            Some(d) => normalize_dims(name, d, rank)?,
            None => (0..rank).collect(),
        };
        let kept: Vec<usize> = (0..rank).filter(|d| !dims.contains(d)).collect();
        let m: usize = kept.iter().map(|&d| self.shape()[d]).product();
        let k: usize = dims.iter().map(|&d| self.shape()[d]).product();
        if k == 0 && !op.has_identity() {
            return Err(Error::invalid(
                name,
                format!(
                    "cannot reduce over an empty dimension (shape {:?}); {name} has no identity value",
                    self.shape()
                ),
            ));
        }
        let x = self.to_dtype(op.input_dtype(self.dtype()))?;
        let perm: Vec<isize> = kept.iter().chain(&dims).map(|&d| d as isize).collect();
        let x = x.permute(&perm)?.contiguous()?;
        let out_dtype = op.output_dtype(x.dtype());
        crate::device::placement::record(name, &[self.device()], self.device());
        let storage = x.storage().reduce(op, x.layout(), m, k, out_dtype).map_err(|e| e.in_op(name))?;
        let shape: Vec<usize> = if keepdim {
            (0..rank).map(|d| if dims.contains(&d) { 1 } else { self.shape()[d] }).collect()
        } else {
            kept.iter().map(|&d| self.shape()[d]).collect()
        };
        Ok(Tensor::from_parts(storage, &shape, out_dtype, self.device()))
    }

    /// Sum over `dims`.
    pub fn sum(&self, dims: &[isize], keepdim: bool) -> Result<Tensor> {
        self.reduce(ReduceOp::Sum, Some(dims), keepdim)
    }
    /// Sum of every element (a 0-d tensor).
    pub fn sum_all(&self) -> Result<Tensor> {
        self.reduce(ReduceOp::Sum, None, false)
    }
    /// Product over `dims`.
    pub fn prod(&self, dims: &[isize], keepdim: bool) -> Result<Tensor> {
        self.reduce(ReduceOp::Prod, Some(dims), keepdim)
    }
    /// Product of every element.
    pub fn prod_all(&self) -> Result<Tensor> {
        self.reduce(ReduceOp::Prod, None, false)
    }
    /// Maximum over `dims`.
    pub fn max(&self, dims: &[isize], keepdim: bool) -> Result<Tensor> {
        self.reduce(ReduceOp::Max, Some(dims), keepdim)
    }
    /// Maximum of every element.
    pub fn max_all(&self) -> Result<Tensor> {
        self.reduce(ReduceOp::Max, None, false)
    }
    /// Minimum over `dims`.
    pub fn min(&self, dims: &[isize], keepdim: bool) -> Result<Tensor> {
        self.reduce(ReduceOp::Min, Some(dims), keepdim)
    }
    /// Minimum of every element.
    pub fn min_all(&self) -> Result<Tensor> {
        self.reduce(ReduceOp::Min, None, false)
    }
    /// Index of the maximum along `dim`, or in the flattened tensor when `dim` is `None`.
    pub fn argmax(&self, dim: Option<isize>, keepdim: bool) -> Result<Tensor> {
        self.arg_reduce(ReduceOp::ArgMax, dim, keepdim)
    }
    /// Index of the minimum along `dim`, or in the flattened tensor when `dim` is `None`.
    pub fn argmin(&self, dim: Option<isize>, keepdim: bool) -> Result<Tensor> {
        self.arg_reduce(ReduceOp::ArgMin, dim, keepdim)
    }

    fn arg_reduce(&self, op: ReduceOp, dim: Option<isize>, keepdim: bool) -> Result<Tensor> {
        match dim {
            Some(d) => self.reduce(op, Some(&[d]), keepdim),
            None => {
                let flat = self.reshape(&[-1])?;
                let r = flat.reduce(op, Some(&[0]), false)?;
                if keepdim {
                    r.reshape(&vec![1; self.rank()].iter().map(|&x| x as isize).collect::<Vec<_>>())
                } else {
                    Ok(r)
                }
            }
        }
    }

    fn float_input(&self) -> Result<Tensor> {
        if self.dtype().is_float() {
            Ok(self.clone())
        } else {
            self.to_dtype(DType::F32)
        }
    }

    /// Mean over `dims` (integers promote to f32).
    pub fn mean(&self, dims: &[isize], keepdim: bool) -> Result<Tensor> {
        let x = self.float_input()?;
        let n = reduced_count(self, Some(dims))?;
        x.sum(dims, keepdim)?.div_scalar(n as f64)
    }
    /// Mean of every element.
    pub fn mean_all(&self) -> Result<Tensor> {
        let x = self.float_input()?;
        x.sum_all()?.div_scalar(self.numel() as f64)
    }

    /// Variance over `dims` with `correction` (1 = unbiased, PyTorch's default), two-pass for
    /// accuracy.
    pub fn var(&self, dims: &[isize], correction: usize, keepdim: bool) -> Result<Tensor> {
        self.var_impl(Some(dims), correction, keepdim)
    }
    /// Variance of every element.
    pub fn var_all(&self, correction: usize) -> Result<Tensor> {
        self.var_impl(None, correction, false)
    }
    /// Standard deviation over `dims` with `correction`.
    pub fn std(&self, dims: &[isize], correction: usize, keepdim: bool) -> Result<Tensor> {
        self.var(dims, correction, keepdim)?.sqrt()
    }
    /// Standard deviation of every element.
    pub fn std_all(&self, correction: usize) -> Result<Tensor> {
        self.var_all(correction)?.sqrt()
    }

    fn var_impl(&self, dims: Option<&[isize]>, correction: usize, keepdim: bool) -> Result<Tensor> {
        let x = self.float_input()?;
        let n = reduced_count(self, dims)?;
        let all: Vec<isize> = (0..self.rank() as isize).collect();
        let dims = dims.unwrap_or(&all);
        let mean = x.sum(dims, true)?.div_scalar(n as f64)?;
        let sq = x.sub(&mean)?.square()?.sum(dims, keepdim)?;
        // Like PyTorch: the divisor is max(0, n - correction), so too few elements give inf or
        // nan rather than an error (or a negative variance).
        sq.div_scalar((n as f64 - correction as f64).max(0.0))
    }

    /// Softmax along `dim`, computed as `exp(x - max) / sum` so large inputs do not overflow.
    pub fn softmax(&self, dim: isize) -> Result<Tensor> {
        self.softmax_impl(dim, false, "softmax")
    }

    /// Log-softmax along `dim`, computed as `x - max - log(sum(exp(x - max)))`.
    pub fn log_softmax(&self, dim: isize) -> Result<Tensor> {
        self.softmax_impl(dim, true, "log_softmax")
    }

    fn softmax_impl(&self, dim: isize, log: bool, op: &'static str) -> Result<Tensor> {
        if self.rank() == 0 {
            return self.reshape(&[1])?.softmax_impl(0, log, op)?.reshape(&[]);
        }
        let d = normalize_dim(op, dim, self.rank())? as isize;
        let x = self.float_input()?.transpose(d, -1)?.contiguous()?;
        let k = *x.shape().last().unwrap_or(&1);
        let m = x.numel().checked_div(k).unwrap_or(0);
        let storage = x.storage().softmax(x.layout(), m, k, log, x.dtype()).map_err(|e| e.in_op(op))?;
        crate::device::placement::record(op, &[self.device()], self.device());
        let y = Tensor::from_parts(storage, x.shape(), x.dtype(), self.device());
        y.transpose(d, -1)
    }
}

/// Number of elements folded into each output of a reduction over `dims`.
fn reduced_count(t: &Tensor, dims: Option<&[isize]>) -> Result<usize> {
    Ok(match dims {
        None => t.numel(),
        Some(d) => normalize_dims("reduce", d, t.rank())?.iter().map(|&d| t.shape()[d]).product(),
    })
}
