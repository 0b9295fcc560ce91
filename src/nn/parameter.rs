//! `Parameter` and `Buffer`: named slots a module owns whose tensor can be swapped in place
//! (`model.to(dev)`, optimizer steps, `load_state_dict`), so every holder of the slot (the
//! module, an optimizer) sees the new value. Tensors themselves stay immutable.

use std::sync::{Arc, Mutex};

use crate::device::policy::lock;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// A learnable tensor: a floating-point leaf that requires grad, unless frozen with
/// [`Parameter::requires_grad_`] (as PyTorch's `p.requires_grad_(False)`: a frozen parameter gets
/// no new gradient, and optimizers skip parameters without one). Clones share the slot.
#[derive(Clone)]
pub struct Parameter(Arc<Mutex<Tensor>>);

impl Parameter {
    /// Wraps `t` (detached from any graph) as a leaf that requires grad.
    pub fn new(t: &Tensor) -> Result<Parameter> {
        Ok(Parameter(Arc::new(Mutex::new(t.detach().requires_grad_(true)?))))
    }

    /// A slot over `t` itself rather than a detached copy: the JS modules own their tensors and
    /// hand the optimizer the very leaves that collect gradients. `t` must be a floating-point
    /// leaf (frozen or not).
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn adopt(op: &'static str, t: &Tensor) -> Result<Parameter> {
        check_leaf(op, t)?;
        Ok(Parameter(Arc::new(Mutex::new(t.clone()))))
    }

    /// Points the slot at `t` itself (see [`Parameter::adopt`]); a no-op when it already is.
    pub(crate) fn adopt_value(&self, op: &'static str, t: &Tensor) -> Result<()> {
        if lock(&self.0).id() != t.id() {
            check_leaf(op, t)?;
            *lock(&self.0) = t.clone();
        }
        Ok(())
    }

    /// The current value: a leaf (that requires grad unless frozen), for use in a forward pass.
    pub fn tensor(&self) -> Tensor {
        lock(&self.0).clone()
    }

    /// Freezes (`false`) or unfreezes (`true`) the parameter; the setting survives `to`,
    /// optimizer steps and `load_state_dict`.
    pub fn requires_grad_(&self, on: bool) -> Result<()> {
        self.tensor().requires_grad_(on).map(|_| ())
    }

    /// Whether the parameter collects gradients (false when frozen).
    pub fn requires_grad(&self) -> bool {
        self.tensor().requires_grad()
    }

    /// The gradient accumulated since the last `zero_grad`, if any.
    pub fn grad(&self) -> Option<Tensor> {
        self.tensor().grad()
    }

    /// Clears the gradient (what `zero_grad` does, as PyTorch 2's `set_to_none`).
    pub fn zero_grad(&self) {
        // A gradient of None always fits.
        let _ = self.tensor().set_grad(None);
    }

    /// The device the parameter lives on.
    pub fn device(&self) -> Device {
        self.tensor().device()
    }

    /// The shape.
    pub fn shape(&self) -> Vec<usize> {
        self.tensor().shape().to_vec()
    }

    /// Whether two handles are the same slot.
    pub fn same_as(&self, other: &Parameter) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Swaps in a new value of the same shape and dtype (on any device) that keeps the slot's
    /// `requires_grad`; the accumulated gradient comes along (moved to the new value's device by
    /// the caller when needed).
    pub(crate) fn replace(&self, value: Tensor, grad: Option<Tensor>) -> Result<()> {
        let on = self.requires_grad();
        // A parameter lives across steps: an update the lazy tier recorded runs now.
        value.realize()?;
        let value = value.detach().requires_grad_(on)?;
        value.set_grad(grad)?;
        *lock(&self.0) = value;
        Ok(())
    }
}

fn check_leaf(op: &'static str, t: &Tensor) -> Result<()> {
    if !t.dtype().is_float() || !t.is_leaf() {
        return Err(Error::invalid(
            op,
            format!(
                "a parameter must be a floating-point leaf, got a {:?} tensor that is{} a leaf (pass t.detach() for \
                 a leaf over the same data)",
                t.dtype(),
                if t.is_leaf() { "" } else { " not" },
            ),
        ));
    }
    Ok(())
}

/// `t` as a leaf on `device` with `t`'s `requires_grad` (frozen parameters stay frozen), its
/// gradient moved along: what `model.to` does to each parameter (`t` itself when it is already
/// there).
pub(crate) async fn moved_leaf(t: &Tensor, device: Device) -> Result<Tensor> {
    if t.device() == device {
        return Ok(t.clone());
    }
    let grad = match t.grad() {
        Some(g) => Some(g.to(device).await?),
        None => None,
    };
    let moved = t.to(device).await?.detach().requires_grad_(t.requires_grad())?;
    moved.set_grad(grad)?;
    Ok(moved)
}

impl std::fmt::Debug for Parameter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Parameter({:?})", self.tensor())
    }
}

/// State a module keeps that is not learned (BatchNorm's running statistics): it moves with
/// `model.to(dev)` and is saved in the `state_dict`, but has no gradient.
#[derive(Clone)]
pub struct Buffer(Arc<Mutex<Tensor>>);

impl Buffer {
    /// Wraps `t` (detached from any graph).
    pub fn new(t: &Tensor) -> Buffer {
        Buffer(Arc::new(Mutex::new(t.detach())))
    }

    /// The current value.
    pub fn tensor(&self) -> Tensor {
        lock(&self.0).clone()
    }

    /// Replaces the value (same shape; a module updating its running statistics).
    pub fn set(&self, value: &Tensor) -> Result<()> {
        let current = self.tensor();
        if value.shape() != current.shape() {
            return Err(Error::ShapeMismatch {
                op: "Buffer::set",
                lhs: current.shape().to_vec(),
                rhs: value.shape().to_vec(),
                msg: "a buffer keeps its shape".into(),
            });
        }
        *lock(&self.0) = value.detach();
        Ok(())
    }

    pub(crate) fn replace(&self, value: Tensor) {
        *lock(&self.0) = value.detach();
    }

    /// Whether two handles are the same buffer (one registered under two names).
    pub fn same_as(&self, other: &Buffer) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The dtype.
    pub fn dtype(&self) -> DType {
        self.tensor().dtype()
    }
}
