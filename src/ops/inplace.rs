//! In-place ops with PyTorch's names and rules (`add_`, `mul_`, `clamp_`, `zero_`, `fill_`,
//! `copy_`, and `apply_` for any op). Tensors are immutable values behind an `Arc`, so an
//! in-place op computes its result out of place and makes `self` that result: every later use of
//! `self` sees the new value, autograd records the op as any other (what earlier ops saved for
//! backward keeps the old value, so PyTorch's version-counter error never arises), and the
//! one difference from PyTorch goes both ways: views taken before the call keep the old value,
//! and an in-place op on a view changes that view, not the tensor it was taken from.
//!
//! PyTorch's rules hold: an in-place op on a leaf that requires grad is refused while grad mode
//! is on (under `no_grad` it is how a hand-written update changes a parameter, which stays a leaf
//! that requires grad and keeps its gradient); the result keeps `self`'s shape (a broadcast that
//! would grow it is refused) and dtype (cast back where PyTorch casts, refused where it refuses:
//! a floating-point result into an integer tensor, a numeric one into a bool tensor).

use crate::autograd::is_grad_enabled;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Whether an in-place op may write a result of dtype `from` into a tensor of dtype `to`
/// (PyTorch's `can_cast`: no float into an integer, nothing but bool into bool).
fn can_cast(from: DType, to: DType) -> bool {
    if from.is_float() && !to.is_float() {
        return false;
    }
    !(to == DType::Bool && from != DType::Bool)
}

impl Tensor {
    /// Refuses an in-place op on a leaf that requires grad while grad mode is on (PyTorch's
    /// "a leaf Variable that requires grad is being used in an in-place operation").
    pub fn check_inplace(&self, op: &'static str) -> Result<()> {
        if self.is_leaf() && self.requires_grad() && is_grad_enabled() {
            return Err(Error::invalid(
                op,
                "this tensor is a leaf that requires grad, and an in-place op on it would lose what \
                 autograd needs; update it with grad mode off (`no_grad`, `wt.noGrad` in JS), as an optimizer does, or use the \
                 out-of-place op",
            ));
        }
        Ok(())
    }

    /// Makes `self` the value `out` that in-place op `op` computed: `out` must have `self`'s
    /// shape; its dtype is cast to `self`'s where PyTorch casts (`any_cast` for `copy_`, which
    /// casts anything); a leaf that requires grad stays one and keeps its gradient. `self` is
    /// untouched when this fails.
    pub fn assign_(&mut self, op: &'static str, out: Tensor, any_cast: bool) -> Result<&mut Tensor> {
        if out.shape() != self.shape() {
            return Err(Error::invalid(
                op,
                format!(
                    "the result has shape {:?} but this tensor has shape {:?}; an in-place op keeps \
                     the shape (use the out-of-place op to broadcast)",
                    out.shape(),
                    self.shape()
                ),
            ));
        }
        if out.device() != self.device() {
            return Err(Error::invalid(
                op,
                format!("the result is on {} but this tensor is on {}", out.device(), self.device()),
            ));
        }
        let out = if out.dtype() == self.dtype() {
            out
        } else if any_cast || can_cast(out.dtype(), self.dtype()) {
            out.to_dtype(self.dtype())?
        } else {
            return Err(Error::invalid(
                op,
                format!(
                    "the result is {} and cannot be written into this {} tensor in place (PyTorch \
                     refuses the same cast); convert this tensor first with to_dtype, or use the \
                     out-of-place op",
                    out.dtype(),
                    self.dtype()
                ),
            ));
        };
        let out = if self.is_leaf() && self.requires_grad() && out.is_leaf() {
            // Under no_grad: the parameter stays a leaf that collects gradients. A handle of its
            // own (`out` may be `src` itself, for `copy_`), so no other tensor is marked.
            let leaf = out.detach().requires_grad_(true)?;
            leaf.set_grad(self.grad())?;
            leaf
        } else {
            out
        };
        *self = out;
        Ok(self)
    }

    /// Runs `f` on `self` and makes `self` its result (see the module docs for the rules): the
    /// in-place form of any op that keeps the shape, e.g. `t.apply_("relu_", |x| x.relu())`.
    pub fn apply_(&mut self, op: &'static str, f: impl FnOnce(&Tensor) -> Result<Tensor>) -> Result<&mut Tensor> {
        self.check_inplace(op)?;
        let out = f(self)?;
        self.assign_(op, out, false)
    }

    /// `self += other` in place (broadcasting `other` to `self`'s shape).
    pub fn add_(&mut self, other: &Tensor) -> Result<&mut Tensor> {
        self.apply_("add_", |x| x.add(other))
    }

    /// `self -= other` in place.
    pub fn sub_(&mut self, other: &Tensor) -> Result<&mut Tensor> {
        self.apply_("sub_", |x| x.sub(other))
    }

    /// `self *= other` in place.
    pub fn mul_(&mut self, other: &Tensor) -> Result<&mut Tensor> {
        self.apply_("mul_", |x| x.mul(other))
    }

    /// `self /= other` in place (an integer tensor refuses: true division gives floats).
    pub fn div_(&mut self, other: &Tensor) -> Result<&mut Tensor> {
        self.apply_("div_", |x| x.div(other))
    }

    /// `self += value` in place.
    pub fn add_scalar_(&mut self, value: f64) -> Result<&mut Tensor> {
        self.apply_("add_", |x| x.add_scalar(value))
    }

    /// `self *= value` in place.
    pub fn mul_scalar_(&mut self, value: f64) -> Result<&mut Tensor> {
        self.apply_("mul_", |x| x.mul_scalar(value))
    }

    /// Limits the values to `[min, max]` in place (either bound may be absent).
    pub fn clamp_(&mut self, min: Option<f64>, max: Option<f64>) -> Result<&mut Tensor> {
        self.apply_("clamp_", |x| x.clamp(min, max))
    }

    /// Every element set to `value`, in place.
    pub fn fill_(&mut self, value: f64) -> Result<&mut Tensor> {
        self.apply_("fill_", |x| x.full_like(value))
    }

    /// Every element set to zero, in place.
    pub fn zero_(&mut self) -> Result<&mut Tensor> {
        self.apply_("zero_", |x| x.full_like(0.0))
    }

    /// The values of `src` (broadcast to this shape, cast to this dtype) copied into this
    /// tensor; gradients flow to `src`, as PyTorch's `copy_`. `src` must be on this tensor's
    /// device: moving data between devices is `to`, which is async.
    pub fn copy_(&mut self, src: &Tensor) -> Result<&mut Tensor> {
        self.check_inplace("copy_")?;
        if src.device() != self.device() {
            return Err(Error::invalid(
                "copy_",
                format!(
                    "src is on {} but this tensor is on {}; move it first with `to({})`",
                    src.device(),
                    self.device(),
                    self.device()
                ),
            ));
        }
        let shape = self.shape().to_vec();
        let out = src.to_dtype(self.dtype())?.broadcast_to(&shape)?.contiguous()?;
        self.assign_("copy_", out, true)
    }
}
