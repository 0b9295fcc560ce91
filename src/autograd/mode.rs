//! Grad mode: whether ops record the graph. Per thread, as in PyTorch; the guards restore the
//! previous mode when dropped, so they nest. The flag and the guard type live with the choke
//! point that reads them (`tensor/node.rs`).

use crate::tensor::node;
pub use crate::tensor::node::GradMode;

/// Stops recording on this thread until the guard drops (PyTorch's `with torch.no_grad():`):
/// ops run as usual but their outputs have no graph and do not require grad. For evaluation,
/// and for updates that must not be differentiated.
pub fn no_grad() -> GradMode {
    GradMode::set(false)
}

/// Turns recording back on inside a [`no_grad`] block until the guard drops.
pub fn enable_grad() -> GradMode {
    GradMode::set(true)
}

/// Sets grad mode on this thread until the guard drops.
pub fn set_grad_enabled(on: bool) -> GradMode {
    GradMode::set(on)
}

/// Whether ops record the autograd graph on this thread.
pub fn is_grad_enabled() -> bool {
    node::grad_enabled()
}
