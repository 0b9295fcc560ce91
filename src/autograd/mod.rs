//! Reverse-mode automatic differentiation, as PyTorch does it: ops record a dynamic graph at
//! the choke point (`Tensor::from_op`, see `tensor/node.rs`) when grad mode is on and an input
//! requires grad; `backward` walks it once in reverse topological order, runs each op's rule
//! (kept next to the op in `ops/`), accumulates into leaves' `.grad`, and frees the graph.
//!
//! - `mode.rs`: `no_grad`, `enable_grad`, `set_grad_enabled` (per thread).
//! - `leaf.rs`: `requires_grad_`, `grad`, `set_grad`, `is_leaf`, `grad_fn`.
//! - `backward.rs`: the traversal; `regions.rs`: gradients of narrow views, joined once.
//! - `hooks.rs`: post-accumulate gradient hooks (what DistributedDataParallel's reducer uses).

mod backward;
mod hooks;
mod leaf;
mod mode;
mod regions;

pub use backward::BackwardOptions;
pub use hooks::{GradHook, HookHandle};
pub use mode::{enable_grad, is_grad_enabled, no_grad, set_grad_enabled, GradMode};
