//! Autograd on the JS façade: `requiresGrad_`, `grad`, `backward`, `detach`, grad mode, and the
//! ops that exist for gradients (`indexAdd`, `scatterAdd`). Types and errors only; the rules
//! are the core's.

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::args::{self, flag};
use super::js_err;
use super::tensor::{wrap, RawTensor, R};
use crate::autograd::BackwardOptions;

#[wasm_bindgen]
impl RawTensor {
    /// Marks a leaf as needing a gradient (or not), in place.
    #[wasm_bindgen(js_name = requiresGrad_)]
    pub fn requires_grad_(&self, on: JsValue) -> Result<(), JsValue> {
        self.t.requires_grad_(flag("requiresGrad_", "on", &on)?).map(drop).map_err(js_err)
    }

    /// Whether the tensor takes part in autograd.
    #[wasm_bindgen(getter, js_name = requiresGrad)]
    pub fn requires_grad(&self) -> bool {
        self.t.requires_grad()
    }

    /// Whether the tensor is a leaf of the graph.
    #[wasm_bindgen(getter, js_name = isLeaf)]
    pub fn is_leaf(&self) -> bool {
        self.t.is_leaf()
    }

    /// The op that made the tensor, when recorded.
    #[wasm_bindgen(getter, js_name = gradFn)]
    pub fn grad_fn(&self) -> Option<String> {
        self.t.grad_fn().map(str::to_string)
    }

    /// The accumulated gradient (a new handle), if any.
    #[wasm_bindgen(js_name = gradient)]
    pub fn gradient(&self) -> Option<RawTensor> {
        self.t.grad().map(RawTensor::new)
    }

    /// Replaces the gradient (`undefined` clears it). Takes its own handle (pass a clone).
    #[wasm_bindgen(js_name = setGradient)]
    pub fn set_gradient(&self, grad: Option<RawTensor>) -> Result<(), JsValue> {
        self.t.set_grad(grad.map(|g| g.t)).map_err(js_err)
    }

    /// A leaf over the same data with no history.
    pub fn detach(&self) -> RawTensor {
        RawTensor::new(self.t.detach())
    }

    /// A copy with its own storage, recorded for autograd (what JS `clone()` is, as PyTorch's).
    #[wasm_bindgen(js_name = deepCopy)]
    pub fn deep_copy(&self) -> R {
        wrap(self.t.deep_copy())
    }

    /// Backpropagates from this tensor (`grad` of its shape, or none for a one-element tensor).
    /// Takes its own handle of `grad` (pass a clone).
    pub fn backward(&self, grad: Option<RawTensor>, retain_graph: JsValue) -> Result<(), JsValue> {
        let options = BackwardOptions { retain_graph: flag("backward", "retainGraph", &retain_graph)? };
        self.t.backward_with(grad.as_ref().map(|g| &g.t), options).map_err(js_err)
    }

    /// [`RawTensor::backward`] that awaits transfers: works for graphs whose gradient leaves a
    /// GPU through `to`.
    #[wasm_bindgen(js_name = backwardAsync)]
    pub fn backward_async(&self, grad: Option<RawTensor>, retain_graph: JsValue) -> Promise {
        let t = self.t.clone();
        let retain = flag("backwardAsync", "retainGraph", &retain_graph);
        super::promise(async move {
            let options = BackwardOptions { retain_graph: retain? };
            t.backward_async(grad.as_ref().map(|g| &g.t), options).await.map_err(js_err)?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// `self` plus `source` added at the slices `index` names along `dim`.
    #[wasm_bindgen(js_name = indexAdd)]
    pub fn index_add(&self, dim: f64, index: &RawTensor, source: &RawTensor) -> R {
        wrap(self.t.index_add(args::dim("indexAdd", dim)?, &index.t, &source.t))
    }

    /// `self` plus `src` added at the positions `index` names along `dim`.
    #[wasm_bindgen(js_name = scatterAdd)]
    pub fn scatter_add(&self, dim: f64, index: &RawTensor, src: &RawTensor) -> R {
        wrap(self.t.scatter_add(args::dim("scatterAdd", dim)?, &index.t, &src.t))
    }
}

/// Sets grad mode (whether ops record the graph); returns the previous mode, which the JS
/// `noGrad`/`enableGrad` wrappers restore.
#[wasm_bindgen(js_name = setGradEnabled)]
pub fn set_grad_enabled(on: JsValue) -> Result<bool, JsValue> {
    Ok(crate::tensor::node::set_grad_enabled(flag("setGradEnabled", "on", &on)?))
}

/// Whether ops record the autograd graph.
#[wasm_bindgen(js_name = isGradEnabled)]
pub fn is_grad_enabled() -> bool {
    crate::is_grad_enabled()
}
