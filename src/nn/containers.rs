//! `ModuleList` and `ModuleDict`: PyTorch's containers that register their modules as children
//! (`h.0.attn...`, `heads.a.weight`) without a forward of their own; the owner indexes them. Typed
//! over the module they hold, so `blocks.get(i)` is a `&Arc<Block>`.

use std::sync::Arc;

use super::{Module, ModuleCore};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Modules under the names `0`, `1`, ... (PyTorch's `nn.ModuleList`).
pub struct ModuleList<M: Module + 'static> {
    core: ModuleCore,
    items: Vec<Arc<M>>,
}

impl<M: Module + 'static> Default for ModuleList<M> {
    fn default() -> Self {
        ModuleList { core: ModuleCore::new(), items: Vec::new() }
    }
}

impl<M: Module + 'static> ModuleList<M> {
    /// An empty list.
    pub fn new() -> ModuleList<M> {
        Self::default()
    }

    /// The list of `modules`, in order.
    pub fn from_modules(modules: impl IntoIterator<Item = M>) -> Result<ModuleList<M>> {
        let mut list = Self::new();
        for m in modules {
            list.push(m)?;
        }
        Ok(list)
    }

    /// Appends `m` as child `len()`.
    pub fn push(&mut self, m: M) -> Result<()> {
        let m = Arc::new(m);
        self.core.register_shared(&self.items.len().to_string(), m.clone())?;
        self.items.push(m);
        Ok(())
    }

    /// The module at `i`, if there is one.
    pub fn get(&self, i: usize) -> Option<&Arc<M>> {
        self.items.get(i)
    }

    /// How many modules the list holds.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The modules in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Arc<M>> {
        self.items.iter()
    }
}

impl<'a, M: Module + 'static> IntoIterator for &'a ModuleList<M> {
    type Item = &'a Arc<M>;
    type IntoIter = std::slice::Iter<'a, Arc<M>>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl<M: Module + 'static> Module for ModuleList<M> {
    fn core(&self) -> &ModuleCore {
        &self.core
    }

    /// A list has no forward of its own (PyTorch's neither): its owner calls the modules.
    fn forward(&self, _x: &Tensor) -> Result<Tensor> {
        Err(Error::invalid(
            "ModuleList",
            "a ModuleList has no forward; call its modules (get(i), iter()) in the owner's forward",
        ))
    }
}

/// Modules under names of your choosing, in insertion order (PyTorch's `nn.ModuleDict`).
pub struct ModuleDict<M: Module + 'static> {
    core: ModuleCore,
    items: Vec<(String, Arc<M>)>,
}

impl<M: Module + 'static> Default for ModuleDict<M> {
    fn default() -> Self {
        ModuleDict { core: ModuleCore::new(), items: Vec::new() }
    }
}

impl<M: Module + 'static> ModuleDict<M> {
    /// An empty dict.
    pub fn new() -> ModuleDict<M> {
        Self::default()
    }

    /// Adds `m` under `name` (non-empty, without '.', not yet used).
    pub fn insert(&mut self, name: &str, m: M) -> Result<()> {
        let m = Arc::new(m);
        self.core.register_shared(name, m.clone())?;
        self.items.push((name.to_string(), m));
        Ok(())
    }

    /// The module under `name`, if any.
    pub fn get(&self, name: &str) -> Option<&Arc<M>> {
        self.items.iter().find(|(n, _)| n == name).map(|(_, m)| m)
    }

    /// The names, in insertion order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.items.iter().map(|(n, _)| n.as_str())
    }

    /// How many modules the dict holds.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the dict is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl<M: Module + 'static> Module for ModuleDict<M> {
    fn core(&self) -> &ModuleCore {
        &self.core
    }

    /// A dict has no forward of its own (PyTorch's neither).
    fn forward(&self, _x: &Tensor) -> Result<Tensor> {
        Err(Error::invalid(
            "ModuleDict",
            "a ModuleDict has no forward; call its modules (get(name)) in the owner's forward",
        ))
    }
}
