//! Grad mode: whether ops record the graph. Per thread, as in PyTorch; the guards restore the
//! previous mode when dropped, so they nest.

use crate::tensor::node;

/// Restores the grad mode that was in force before it was made (see [`no_grad`]).
#[must_use = "grad mode is restored when the guard drops; bind it with `let _guard = ...`"]
pub struct GradMode {
    previous: bool,
}

impl Drop for GradMode {
    fn drop(&mut self) {
        node::set_grad_enabled(self.previous);
    }
}

/// Stops recording on this thread until the guard drops (PyTorch's `with torch.no_grad():`):
/// ops run as usual but their outputs have no graph and do not require grad. For evaluation,
/// and for updates that must not be differentiated.
pub fn no_grad() -> GradMode {
    set_grad_enabled(false)
}

/// Turns recording back on inside a [`no_grad`] block until the guard drops.
pub fn enable_grad() -> GradMode {
    set_grad_enabled(true)
}

/// Sets grad mode on this thread until the guard drops.
pub fn set_grad_enabled(on: bool) -> GradMode {
    GradMode { previous: node::set_grad_enabled(on) }
}

/// Whether ops record the autograd graph on this thread.
pub fn is_grad_enabled() -> bool {
    node::grad_enabled()
}
