//! Reductions (sum, mean, max, min, prod, argmax, argmin, var, std) over one or more dims or
//! everything, the numerically stable softmax / log_softmax, and their backward rules. The
//! kernel descriptors live in `crate::op::reduce`.

use crate::dtype::DType;
use crate::error::{Error, Result};
pub use crate::op::reduce::ReduceOp;
use crate::ops::grad::unary_rule;
use crate::shape::{normalize_dim, normalize_dims};
use crate::tensor::node::BackwardFn;
use crate::tensor::Tensor;

impl Tensor {
    /// Runs a reduction kernel over `dims` (all dims when `None`).
    pub fn reduce(&self, op: ReduceOp, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        self.reduce_impl(op, dims, keepdim, None)
    }

    /// The sum over `dims` divided by `divisor` (a mean; average pooling's windows): for f32 one
    /// call (`KernelCall::SumDiv`: one kernel on the CPU, a sum and a scalar division on GPUs),
    /// else the sum divided by a scalar op. Either way the result is the sum rounded to the
    /// dtype, then divided.
    pub(crate) fn sum_div(&self, dims: Option<&[isize]>, keepdim: bool, divisor: f64) -> Result<Tensor> {
        self.reduce_impl(ReduceOp::Sum, dims, keepdim, Some(divisor))
    }

    fn reduce_impl(
        &self,
        op: ReduceOp,
        given: Option<&[isize]>,
        keepdim: bool,
        divisor: Option<f64>,
    ) -> Result<Tensor> {
        let name = if divisor.is_some() { "mean" } else { op.name() };
        let rank = self.rank();
        let dims = match given {
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
        // A view: the CPU folds strided columns in place (sum(0) needs no transposing copy);
        // `Storage::reduce` gathers it for the GPU kernels.
        let x = x.permute(&perm)?;
        let out_dtype = op.output_dtype(x.dtype());
        let record = || crate::device::placement::record(name, &[self.device()], self.device());
        let storage = match divisor {
            None => {
                record();
                x.storage().reduce(op, x.layout(), m, k, x.dtype(), out_dtype)
            }
            // f32 sums divided in one call (how is the backend's choice); other dtypes compose.
            Some(d) if out_dtype == DType::F32 && x.dtype() == DType::F32 => {
                record();
                x.storage().sum_div(x.layout(), m, k, d as f32)
            }
            Some(d) => return self.reduce_impl(op, given, keepdim, None)?.div_scalar(d),
        }
        .map_err(|e| e.in_op(name))?;
        let shape: Vec<usize> = if keepdim {
            (0..rank).map(|d| if dims.contains(&d) { 1 } else { self.shape()[d] }).collect()
        } else {
            kept.iter().map(|&d| self.shape()[d]).collect()
        };
        if op.is_arg() {
            return Ok(Tensor::from_op_nondiff(storage, &shape, out_dtype, self.device(), name, &[&x]));
        }
        // `x` is [kept.., reduced..]; each output is broadcast back over its reduced block.
        let block: Vec<isize> = kept.iter().map(|&d| self.shape()[d] as isize).chain(dims.iter().map(|_| 1)).collect();
        let reduced: Vec<isize> = (kept.len()..rank).map(|d| d as isize).collect();
        Ok(Tensor::from_op(storage, &shape, out_dtype, self.device(), name, &[&x], |y| {
            backward(op, &x, y, block, reduced, divisor)
        }))
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
        x.sum_div(Some(dims), keepdim, n as f64)
    }
    /// Mean of every element.
    pub fn mean_all(&self) -> Result<Tensor> {
        let x = self.float_input()?;
        x.sum_div(None, false, self.numel() as f64)
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
        let mean = x.sum_div(Some(dims), true, n as f64)?;
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
        // Along the last dim: softmax' = y (g - sum(g y)); log_softmax' = g - e^y sum(g).
        let y = Tensor::from_op(storage, x.shape(), x.dtype(), self.device(), op, &[&x], |y| {
            let y = y.clone();
            unary_rule(move |g| {
                if log {
                    g.sub(&y.exp()?.mul(&g.sum(&[-1], true)?)?)
                } else {
                    y.mul(&g.sub(&g.mul(&y)?.sum(&[-1], true)?)?)
                }
            })
        });
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

/// The backward rule of reduction `op` from `x` ([kept.., reduced..], a view) to `y`:
/// `block` is the output's shape with the reduced dims kept as 1, `reduced` the trailing dims;
/// a sum with a `divisor` (a mean) divides the gradient before spreading it.
fn backward(
    op: ReduceOp,
    x: &Tensor,
    y: &Tensor,
    block: Vec<isize>,
    reduced: Vec<isize>,
    divisor: Option<f64>,
) -> BackwardFn {
    let (x, y) = (x.clone(), y.clone());
    let full: Vec<isize> = x.shape().iter().map(|&s| s as isize).collect();
    let full2 = full.clone();
    let spread = move |t: &Tensor| t.reshape(&block)?.expand(&full);
    match op {
        ReduceOp::Sum => unary_rule(move |g| match divisor {
            Some(d) => spread(&g.div_scalar(d)?),
            None => spread(g),
        }),
        // The product of the others: y / x where x != 0; where x == 0, the product of the
        // nonzero others if that is the only zero in the block, else 0 (as PyTorch's
        // prod_backward does).
        ReduceOp::Prod => unary_rule(move |g| {
            let zero = x.eq_scalar(0.0)?;
            let others = spread(&y)?.div(&x)?;
            let nonzero = zero.where_(&x.ones_like()?, &x)?;
            let nonzero_prod = nonzero.prod(&reduced, true)?;
            let zeros = zero.to_dtype(DType::I32)?.sum(&reduced, true)?;
            let at_zero = zeros.eq_scalar(1.0)?.where_(&nonzero_prod, &nonzero_prod.zeros_like()?)?;
            let d = zero.where_(&at_zero.expand(&full2)?, &others)?;
            spread(g)?.mul(&d)
        }),
        // Like PyTorch's amax/amin: ties share the gradient evenly.
        ReduceOp::Max | ReduceOp::Min => unary_rule(move |g| {
            let hit = x.eq(&spread(&y)?)?.to_dtype(g.dtype())?;
            let count = hit.sum(&reduced, true)?;
            spread(g)?.mul(&hit)?.div(&count)
        }),
        ReduceOp::ArgMax | ReduceOp::ArgMin => unary_rule(|g| g.zeros_like()),
    }
}
