//! Post-accumulate gradient hooks (PyTorch's `Tensor.register_post_accumulate_grad_hook`): a
//! function that runs on a leaf right after a backward pass has added the leaf's gradient for
//! that pass to its `.grad`, once per pass (contributions from several uses of the leaf, such as
//! tied weights, are summed first). DistributedDataParallel's reducer is built on them: it
//! starts a bucket's all-reduce as soon as the bucket's last gradient lands, while backward is
//! still running through earlier layers.
//!
//! The registry is keyed by the tensor's identity rather than stored in every tensor, so the
//! millions of tensors that never get a hook pay nothing but one relaxed atomic load per leaf
//! gradient.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::device::policy::lock;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// A post-accumulate hook: called with the leaf (whose `.grad` now holds this pass's sum).
pub type GradHook = Arc<dyn Fn(&Tensor) -> Result<()> + Send + Sync>;

/// Hooks by leaf id, each with its handle's serial number (so a handle removes only its own).
type Registry = HashMap<u64, Vec<(u64, GradHook)>>;

fn registry() -> &'static Mutex<Registry> {
    static R: OnceLock<Mutex<Registry>> = OnceLock::new();
    R.get_or_init(|| Mutex::new(HashMap::new()))
}

/// How many hooks are registered: zero makes [`run_post_accumulate`] a single load.
static COUNT: AtomicUsize = AtomicUsize::new(0);
static SERIAL: AtomicU64 = AtomicU64::new(1);

/// Removes the hook it was returned for (PyTorch's `RemovableHandle`). Dropping the handle keeps
/// the hook, as in PyTorch; call [`HookHandle::remove`].
#[derive(Debug)]
pub struct HookHandle {
    leaf: u64,
    serial: u64,
}

impl HookHandle {
    /// Unregisters the hook; removing it twice does nothing.
    pub fn remove(&self) {
        let mut r = lock(registry());
        if let Some(list) = r.get_mut(&self.leaf) {
            let before = list.len();
            list.retain(|(s, _)| *s != self.serial);
            COUNT.fetch_sub(before - list.len(), Ordering::Relaxed);
            if list.is_empty() {
                r.remove(&self.leaf);
            }
        }
    }
}

impl Tensor {
    /// Registers `hook` to run after each backward pass has accumulated this leaf's gradient
    /// (PyTorch's `register_post_accumulate_grad_hook`). Hooks run in registration order, on the
    /// thread running backward; an error from one ends that backward call with the error. Only
    /// leaves that require grad accumulate gradients, so only they take hooks.
    pub fn register_post_accumulate_grad_hook(&self, hook: GradHook) -> Result<HookHandle> {
        const OP: &str = "register_post_accumulate_grad_hook";
        if !self.is_leaf() {
            return Err(Error::invalid(
                OP,
                "this tensor is not a leaf; only leaves accumulate gradients (register the hook on the parameter)",
            ));
        }
        if !self.requires_grad() {
            return Err(Error::invalid(
                OP,
                "this tensor does not require grad, so no gradient will be accumulated into it; call \
                 requires_grad_(true) first",
            ));
        }
        let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
        lock(registry()).entry(self.id()).or_default().push((serial, hook));
        COUNT.fetch_add(1, Ordering::Relaxed);
        Ok(HookHandle { leaf: self.id(), serial })
    }
}

/// Runs the hooks registered on `leaf`, in order. The registry's lock is released before any
/// hook runs, so a hook may register or remove hooks.
pub(crate) fn run_post_accumulate(leaf: &Tensor) -> Result<()> {
    if COUNT.load(Ordering::Relaxed) == 0 {
        return Ok(());
    }
    let hooks: Vec<GradHook> = match lock(registry()).get(&leaf.id()) {
        Some(list) => list.iter().map(|(_, h)| h.clone()).collect(),
        None => return Ok(()),
    };
    hooks.iter().try_for_each(|h| h(leaf))
}
