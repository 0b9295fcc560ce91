//! `Sequential`: modules applied in order, registered as children `0`, `1`, ... so that
//! `state_dict` keys are PyTorch's (`0.weight`, `2.bias`).

use std::sync::Arc;

use super::{Module, ModuleCore};
use crate::error::Result;
use crate::tensor::Tensor;

/// A chain of modules.
#[derive(Default)]
pub struct Sequential {
    core: ModuleCore,
    layers: Vec<Arc<dyn Module>>,
}

impl Sequential {
    /// An empty chain (add layers with [`Sequential::push`]).
    pub fn new() -> Sequential {
        Sequential { core: ModuleCore::new(), layers: Vec::new() }
    }

    /// Appends a layer as child `len()`.
    pub fn push<M: Module + 'static>(mut self, m: M) -> Result<Sequential> {
        let m: Arc<dyn Module> = Arc::new(m);
        self.core.register_shared(&self.layers.len().to_string(), m.clone())?;
        self.layers.push(m);
        Ok(self)
    }

    /// The number of layers.
    pub fn len(&self) -> usize {
        self.layers.len()
    }

    /// Whether there are no layers.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }
}

impl Module for Sequential {
    fn core(&self) -> &ModuleCore {
        &self.core
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let mut y = x.clone();
        for layer in &self.layers {
            y = layer.forward(&y)?;
        }
        Ok(y)
    }
}
