//! `torch.optim` for the JS façade: `RawOptimizer` holds a Rust optimizer (its state and update
//! rule) over slots that point at the JS parameters' own tensors. The JS parameters own their
//! values, so each `step` is handed their current tensors (a parameter may have been replaced by
//! `model.to` or `loadStateDict` since) and returns the updated ones, which the JS `Tensor`s
//! take over. Types and errors only.

use wasm_bindgen::prelude::*;

use super::args::flag;
use super::js_err;
use super::tensor::RawTensor;
use crate::nn::Parameter;
use crate::optim::{Adam, AdamOptions, AdamW, Optimizer, SgdOptions, SGD};
use crate::Error;

/// An optimizer over JS parameters.
#[wasm_bindgen]
pub struct RawOptimizer {
    opt: Box<dyn Optimizer>,
    name: &'static str,
}

pub(super) fn slots(op: &'static str, params: Vec<RawTensor>) -> Result<Vec<Parameter>, JsValue> {
    params.iter().map(|p| Parameter::adopt(op, &p.t).map_err(js_err)).collect()
}

#[wasm_bindgen]
impl RawOptimizer {
    /// SGD with PyTorch's momentum, dampening, Nesterov and weight decay. Takes its own handles
    /// of `params` (pass clones).
    pub fn sgd(
        params: Vec<RawTensor>,
        lr: f64,
        momentum: f64,
        dampening: f64,
        weight_decay: f64,
        nesterov: JsValue,
        fused: JsValue,
    ) -> Result<RawOptimizer, JsValue> {
        const OP: &str = "SGD";
        let options = SgdOptions {
            lr,
            momentum,
            dampening,
            weight_decay,
            nesterov: flag(OP, "nesterov", &nesterov)?,
            fused: flag(OP, "fused", &fused)?,
        };
        let opt = SGD::new(slots(OP, params)?, options).map_err(js_err)?;
        Ok(RawOptimizer { opt: Box::new(opt), name: OP })
    }

    /// Adam (`decoupled` false) or AdamW (true). Takes its own handles of `params`.
    #[allow(clippy::too_many_arguments)]
    pub fn adam(
        params: Vec<RawTensor>,
        decoupled: JsValue,
        lr: f64,
        beta1: f64,
        beta2: f64,
        eps: f64,
        weight_decay: f64,
        fused: JsValue,
    ) -> Result<RawOptimizer, JsValue> {
        let decoupled = flag("Adam", "decoupled", &decoupled)?;
        let name = if decoupled { "AdamW" } else { "Adam" };
        let options = AdamOptions { lr, betas: (beta1, beta2), eps, weight_decay, fused: flag(name, "fused", &fused)? };
        let params = slots(name, params)?;
        let opt: Box<dyn Optimizer> = if decoupled {
            Box::new(AdamW::new(params, options).map_err(js_err)?)
        } else {
            Box::new(Adam::new(params, options).map_err(js_err)?)
        };
        Ok(RawOptimizer { opt, name })
    }

    /// One update. `params` are the parameters' current tensors, in the order the optimizer
    /// was built with (its own handles: pass clones); returns their values after the step.
    pub fn step(&mut self, params: Vec<RawTensor>) -> Result<Vec<RawTensor>, JsValue> {
        let slots = self.opt.params();
        if params.len() != slots.len() {
            return Err(js_err(Error::invalid(
                self.name,
                format!("step was given {} parameters; the optimizer has {}", params.len(), slots.len()),
            )));
        }
        for (slot, p) in slots.iter().zip(&params) {
            slot.adopt_value(self.name, &p.t).map_err(js_err)?;
        }
        drop(params);
        self.opt.step().map_err(js_err)?;
        Ok(self.values())
    }

    /// The parameters' values as the optimizer holds them: after a step that failed partway
    /// (a device error in the middle), the JS parameters take these so both sides agree.
    pub fn values(&self) -> Vec<RawTensor> {
        self.opt.params().iter().map(|p| RawTensor::new(p.tensor())).collect()
    }

    /// The learning rate.
    #[wasm_bindgen(getter)]
    pub fn lr(&self) -> f64 {
        self.opt.lr()
    }

    /// Sets the learning rate (for schedules): a number of at least 0.
    #[wasm_bindgen(setter)]
    pub fn set_lr(&mut self, lr: f64) -> Result<(), JsValue> {
        if !(lr >= 0.0 && lr.is_finite()) {
            return Err(js_err(Error::invalid(self.name, format!("lr must be a finite number >= 0, got {lr}"))));
        }
        self.opt.set_lr(lr);
        Ok(())
    }
}
