//! `Parameter` and `Buffer`: named slots a module owns whose tensor can be swapped in place
//! (`model.to(dev)`, optimizer steps, `load_state_dict`), so every holder of the slot (the
//! module, an optimizer) sees the new value. Tensors themselves stay immutable.

use std::sync::{Arc, Mutex};

use crate::device::policy::lock;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// A learnable tensor: always a floating-point leaf that requires grad. Clones share the slot.
#[derive(Clone)]
pub struct Parameter(Arc<Mutex<Tensor>>);

impl Parameter {
    /// Wraps `t` (detached from any graph) as a leaf that requires grad.
    pub fn new(t: &Tensor) -> Result<Parameter> {
        Ok(Parameter(Arc::new(Mutex::new(t.detach().requires_grad_(true)?))))
    }

    /// The current value: a leaf that requires grad, for use in a forward pass.
    pub fn tensor(&self) -> Tensor {
        lock(&self.0).clone()
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

    /// Swaps in a new value of the same shape and dtype (on any device); the accumulated
    /// gradient comes along (moved to the new value's device by the caller when needed).
    pub(crate) fn replace(&self, value: Tensor, grad: Option<Tensor>) -> Result<()> {
        let value = value.detach().requires_grad_(true)?;
        value.set_grad(grad)?;
        *lock(&self.0) = value;
        Ok(())
    }
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

    /// The dtype.
    pub fn dtype(&self) -> DType {
        self.tensor().dtype()
    }
}
