//! The autograd graph's data, as the choke point (`Tensor::from_op`) records it: one `Node` per
//! op output that needs a gradient, with an edge to each input (its own node, or the leaf tensor
//! whose `.grad` collects the result) and the op's backward rule. The traversal that runs the
//! rules lives in `crate::autograd`; this module is below it so that tensors can hold nodes.

use std::cell::Cell;
use std::sync::{Arc, Mutex};

use crate::device::Device;
use crate::dtype::DType;
use crate::error::Result;
use crate::op::unary::UnaryOp;
use crate::tensor::Tensor;

/// A backward rule: given the gradient of the op's output and which inputs need one, the
/// gradient of each input (`None` where not needed). Written with tensor ops, so it runs on
/// every device; the traversal runs it with grad mode off.
pub(crate) type BackwardFn = Box<dyn Fn(&Tensor, &[bool]) -> Result<Vec<Option<Tensor>>> + Send + Sync>;

/// How a node turns its output's gradient into its inputs' gradients.
pub(crate) enum Backward {
    /// A rule written with tensor ops.
    Rule(BackwardFn),
    /// `to(device)`: the gradient moves back from the output's device `from` to the source
    /// device `to`. Separate from `Rule` because leaving a GPU is asynchronous on the web.
    Move {
        /// Where the output (and so its gradient) lives.
        from: Device,
        /// Where the input lives.
        to: Device,
    },
    /// A narrow view (`narrow`, `split`, `chunk`): the gradient is the input's at `start`
    /// along `dim`, zeros elsewhere. Separate from `Rule` so that the pieces of one input
    /// (a split's) are joined once instead of padded and summed (see `autograd/regions.rs`).
    Narrow {
        /// The dim narrowed.
        dim: usize,
        /// Where the view starts along it.
        start: usize,
    },
}

/// Where a gradient goes after a node.
#[derive(Clone)]
pub(crate) enum Edge {
    /// Into another op's node.
    Node(Arc<Node>),
    /// Into a leaf's `.grad`.
    Leaf(Tensor),
}

/// Shape, dtype and device an input's gradient must have.
pub(crate) struct InputMeta {
    pub shape: Vec<usize>,
    pub dtype: DType,
    pub device: Device,
}

/// One recorded op.
pub(crate) struct Node {
    /// The op's name, for errors and `grad_fn`.
    pub name: &'static str,
    /// One entry per input: where its gradient goes, `None` when it needs none.
    pub next: Mutex<Vec<Option<Edge>>>,
    /// What each input's gradient must look like.
    pub inputs: Vec<InputMeta>,
    /// The rule; `None` once a backward pass has freed the graph.
    pub backward: Mutex<Option<Arc<Backward>>>,
    /// How to compute the output again from an input the rule keeps anyway (an activation such
    /// as GELU: its op and input), so that an op saving the output can keep the input instead
    /// (see `Tensor::redo`).
    pub redo: Mutex<Option<(UnaryOp, Tensor)>>,
}

impl Node {
    /// Frees the saved tensors and the edges (after a backward pass without `retain_graph`).
    pub(crate) fn free(&self) {
        *crate::device::policy::lock(&self.backward) = None;
        *crate::device::policy::lock(&self.redo) = None;
        crate::device::policy::lock(&self.next).clear();
    }
}

thread_local! {
    /// Grad mode is per thread, as in PyTorch.
    static GRAD_ENABLED: Cell<bool> = const { Cell::new(true) };
}

/// Whether ops record autograd nodes on this thread.
pub(crate) fn grad_enabled() -> bool {
    GRAD_ENABLED.with(|g| g.get())
}

/// Turns recording on or off on this thread; returns the previous setting.
pub(crate) fn set_grad_enabled(on: bool) -> bool {
    GRAD_ENABLED.with(|g| g.replace(on))
}

/// Restores the grad mode that was in force before it was made (see `webtensor::no_grad`).
#[must_use = "grad mode is restored when the guard drops; bind it with `let _guard = ...`"]
pub struct GradMode {
    previous: bool,
}

impl GradMode {
    /// Sets grad mode on this thread until the guard drops.
    pub(crate) fn set(on: bool) -> GradMode {
        GradMode { previous: set_grad_enabled(on) }
    }
}

impl Drop for GradMode {
    fn drop(&mut self) {
        set_grad_enabled(self.previous);
    }
}

/// Turns recording off until the guard drops: for composite ops that record themselves as one
/// node, and for the backward traversal.
pub(crate) fn pause() -> GradMode {
    GradMode::set(false)
}
