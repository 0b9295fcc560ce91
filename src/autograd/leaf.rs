//! The autograd state a user touches on a tensor: `requires_grad_`, `grad`, `set_grad`,
//! `is_leaf`, `grad_fn`.

use std::sync::atomic::Ordering;

use crate::device::policy::lock;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

impl Tensor {
    /// Marks a leaf as needing a gradient (or not), in place, and returns it (PyTorch's
    /// `requires_grad_`). Only floating-point leaves can require grad; an op's output requires
    /// grad exactly when one of its inputs does, and cannot be changed (use `detach`).
    pub fn requires_grad_(&self, on: bool) -> Result<Tensor> {
        const OP: &str = "requires_grad_";
        if let Some(node) = self.node() {
            return Err(Error::invalid(
                OP,
                format!(
                    "this tensor is the output of `{}`, not a leaf; only leaves' requires_grad can be set \
                     (call detach() for a leaf over the same data)",
                    node.name
                ),
            ));
        }
        if on && !self.dtype().is_float() {
            return Err(Error::invalid(
                OP,
                format!(
                    "only floating-point tensors can require gradients, this one is {}; convert it with \
                     to_dtype(f32) first",
                    self.dtype()
                ),
            ));
        }
        self.requires_grad_flag().store(on, Ordering::Relaxed);
        Ok(self.clone())
    }

    /// Whether this tensor is a leaf of the graph: made by the user (or by an op with grad mode
    /// off or no input requiring grad) rather than recorded. Only leaves collect `.grad`.
    pub fn is_leaf(&self) -> bool {
        self.node().is_none()
    }

    /// The name of the op that made this tensor, when it was recorded (PyTorch's `grad_fn`).
    pub fn grad_fn(&self) -> Option<&'static str> {
        self.node().map(|n| n.name)
    }

    /// The gradient accumulated in this leaf by `backward` calls since it was last cleared, on
    /// the leaf's device; `None` before the first backward (or after `set_grad(None)`). Like
    /// PyTorch, non-leaf tensors keep no gradient.
    pub fn grad(&self) -> Option<Tensor> {
        lock(self.grad_slot()).clone()
    }

    /// Replaces (or with `None`, clears) the accumulated gradient: what an optimizer's
    /// `zero_grad` does. The gradient must have this tensor's shape, dtype and device.
    pub fn set_grad(&self, grad: Option<Tensor>) -> Result<()> {
        if let Some(g) = &grad {
            if g.shape() != self.shape() || g.dtype() != self.dtype() || g.device() != self.device() {
                return Err(Error::invalid(
                    "set_grad",
                    format!(
                        "the gradient must match the tensor ({:?}, {}, {}), got ({:?}, {}, {})",
                        self.shape(),
                        self.dtype(),
                        self.device(),
                        g.shape(),
                        g.dtype(),
                        g.device()
                    ),
                ));
            }
        }
        *lock(self.grad_slot()) = grad.map(|g| g.detach());
        Ok(())
    }
}
