//! `torch.optim` for the JS façade: `RawOptimizer` holds a Rust optimizer (its state and update
//! rule) over slots that point at the JS parameters' own tensors. The JS parameters own their
//! values, so each `step` is handed their current tensors (a parameter may have been replaced by
//! `model.to` or `loadStateDict` since) and returns the updated ones, which the JS `Tensor`s
//! take over. Types and errors only.

use wasm_bindgen::prelude::*;

use super::js_err;
use super::tensor::RawTensor;
use crate::nn::Parameter;
use crate::optim::{
    Adam, AdamOptions, AdamW, Optimizer, OptimizerState, ParamGroup, ParamState, RMSprop, RmspropOptions, SgdOptions,
    SGD,
};
use crate::Error;

/// An optimizer over JS parameters.
#[wasm_bindgen]
pub struct RawOptimizer {
    pub(super) opt: Box<dyn Optimizer>,
    name: &'static str,
}

pub(super) fn slots(op: &'static str, params: Vec<RawTensor>) -> Result<Vec<Parameter>, JsValue> {
    params.iter().map(|p| Parameter::adopt(op, &p.t).map_err(js_err)).collect()
}

/// `params` cut into groups of `sizes`, each with the options `make` reads from its `width`
/// numbers of `options`.
fn grouped<O>(
    op: &'static str,
    params: Vec<RawTensor>,
    sizes: &[u32],
    options: &[f64],
    width: usize,
    make: impl Fn(&[f64]) -> O,
) -> Result<Vec<ParamGroup<O>>, JsValue> {
    let total: usize = sizes.iter().map(|&n| n as usize).sum();
    if total != params.len() || options.len() != sizes.len() * width {
        return Err(js_err(Error::invalid(op, "internal: parameter groups and their options do not line up")));
    }
    let mut slots = slots(op, params)?.into_iter();
    Ok(sizes
        .iter()
        .zip(options.chunks(width))
        .map(|(&n, o)| ParamGroup { params: slots.by_ref().take(n as usize).collect(), options: make(o) })
        .collect())
}

#[wasm_bindgen]
impl RawOptimizer {
    /// SGD over parameter groups: `params` (its own handles: pass clones) split by `sizes`,
    /// group `g`'s options at `options[5g..5g + 5]`: lr, momentum, dampening, weight decay,
    /// Nesterov (0 or 1) (js/optim.js writes them in this order).
    pub fn sgd(
        params: Vec<RawTensor>,
        sizes: Vec<u32>,
        options: Vec<f64>,
        fused: bool,
    ) -> Result<RawOptimizer, JsValue> {
        const OP: &str = "SGD";
        let groups = grouped(OP, params, &sizes, &options, 5, |o| SgdOptions {
            lr: o[0],
            momentum: o[1],
            dampening: o[2],
            weight_decay: o[3],
            nesterov: o[4] != 0.0,
            fused,
        })?;
        let opt = SGD::with_groups(groups).map_err(js_err)?;
        Ok(RawOptimizer { opt: Box::new(opt), name: OP })
    }

    /// Adam (`decoupled` false) or AdamW (true) over parameter groups, as `sgd`; group `g`'s
    /// options at `options[5g..5g + 5]`: lr, beta1, beta2, eps, weight decay.
    pub fn adam(
        params: Vec<RawTensor>,
        sizes: Vec<u32>,
        options: Vec<f64>,
        decoupled: bool,
        fused: bool,
    ) -> Result<RawOptimizer, JsValue> {
        let name = if decoupled { "AdamW" } else { "Adam" };
        let groups = grouped(name, params, &sizes, &options, 5, |o| AdamOptions {
            lr: o[0],
            betas: (o[1], o[2]),
            eps: o[3],
            weight_decay: o[4],
            fused,
        })?;
        let opt: Box<dyn Optimizer> = if decoupled {
            Box::new(AdamW::with_groups(groups).map_err(js_err)?)
        } else {
            Box::new(Adam::with_groups(groups).map_err(js_err)?)
        };
        Ok(RawOptimizer { opt, name })
    }

    /// RMSprop over parameter groups, as `sgd`; group `g`'s options at `options[6g..6g + 6]`: lr,
    /// alpha, eps, weight decay, momentum, centered (0 or 1).
    pub fn rmsprop(params: Vec<RawTensor>, sizes: Vec<u32>, options: Vec<f64>) -> Result<RawOptimizer, JsValue> {
        const OP: &str = "RMSprop";
        let groups = grouped(OP, params, &sizes, &options, 6, |o| RmspropOptions {
            lr: o[0],
            alpha: o[1],
            eps: o[2],
            weight_decay: o[3],
            momentum: o[4],
            centered: o[5] != 0.0,
        })?;
        Ok(RawOptimizer { opt: Box::new(RMSprop::with_groups(groups).map_err(js_err)?), name: OP })
    }

    /// The saved state, flat: for each buffer its parameter's index (`stateIndex`), name
    /// (`stateNames`) and tensor (`stateTensors`); per parameter its step (NaN: none, -1: no
    /// state yet: `stateSteps`); per group its lr and initial lr (NaN: none: `stateLrs`,
    /// `stateInitialLrs`). js/optim.js assembles PyTorch's dict from these.
    #[wasm_bindgen(js_name = stateIndex)]
    pub fn state_index(&self) -> Vec<u32> {
        let s = self.opt.state_dict();
        s.params
            .iter()
            .enumerate()
            .flat_map(|(i, p)| p.iter().flat_map(move |p| p.buffers.iter().map(move |_| i as u32)))
            .collect()
    }

    /// The names of the saved buffers (see `stateIndex`).
    #[wasm_bindgen(js_name = stateNames)]
    pub fn state_names(&self) -> Vec<String> {
        self.opt.state_dict().params.into_iter().flatten().flat_map(|p| p.buffers.into_iter().map(|(n, _)| n)).collect()
    }

    /// The saved buffers (see `stateIndex`).
    #[wasm_bindgen(js_name = stateTensors)]
    pub fn state_tensors(&self) -> Vec<RawTensor> {
        let s = self.opt.state_dict();
        s.params
            .into_iter()
            .flatten()
            .flat_map(|p| p.buffers.into_iter().map(|(_, t)| RawTensor::new(t.detach())))
            .collect()
    }

    /// Per parameter: its step, NaN without one, -1 without any state yet.
    #[wasm_bindgen(js_name = stateSteps)]
    pub fn state_steps(&self) -> Vec<f64> {
        let s = self.opt.state_dict();
        s.params.iter().map(|p| p.as_ref().map_or(-1.0, |p| p.step.map_or(f64::NAN, |t| t as f64))).collect()
    }

    /// Per group: the learning rate.
    #[wasm_bindgen(js_name = stateLrs)]
    pub fn state_lrs(&self) -> Vec<f64> {
        self.opt.state_dict().group_lrs
    }

    /// Per group: the initial learning rate (NaN: none).
    #[wasm_bindgen(js_name = stateInitialLrs)]
    pub fn state_initial_lrs(&self) -> Vec<f64> {
        self.opt.state_dict().initial_lrs.into_iter().map(|l| l.unwrap_or(f64::NAN)).collect()
    }

    /// Loads a state given as `stateIndex`/`stateNames`/`stateTensors`/`stateSteps`/`stateLrs`/
    /// `stateInitialLrs` give it (the tensors on the parameters' devices).
    #[wasm_bindgen(js_name = loadState)]
    pub fn load_state(
        &mut self,
        index: Vec<u32>,
        names: Vec<String>,
        tensors: Vec<RawTensor>,
        steps: Vec<f64>,
        lrs: Vec<f64>,
        initial_lrs: Vec<f64>,
    ) -> Result<(), JsValue> {
        let mut params: Vec<Option<ParamState>> = steps
            .iter()
            .map(|&s| {
                if s < 0.0 {
                    None
                } else {
                    Some(ParamState { step: (!s.is_nan()).then_some(s as u64), buffers: Vec::new() })
                }
            })
            .collect();
        for ((i, name), t) in index.into_iter().zip(names).zip(tensors) {
            match params.get_mut(i as usize).and_then(Option::as_mut) {
                Some(p) => p.buffers.push((name, t.t.clone())),
                None => {
                    return Err(js_err(Error::invalid(
                        self.name,
                        format!("a buffer for parameter {i}, which has no state"),
                    )))
                }
            }
        }
        let initial_lrs = initial_lrs.into_iter().map(|l| (!l.is_nan()).then_some(l)).collect();
        self.opt.load_state_dict(&OptimizerState { params, group_lrs: lrs, initial_lrs }).map_err(js_err)
    }

    /// How many parameter groups.
    #[wasm_bindgen(js_name = groupCount)]
    pub fn group_count(&self) -> usize {
        self.opt.param_group_count()
    }

    /// The learning rate of group `group`.
    #[wasm_bindgen(js_name = groupLr)]
    pub fn group_lr(&self, group: usize) -> Result<f64, JsValue> {
        self.opt.group_lr(group).ok_or_else(|| js_err(Error::invalid(self.name, format!("no parameter group {group}"))))
    }

    /// Sets the learning rate of group `group`.
    #[wasm_bindgen(js_name = setGroupLr)]
    pub fn set_group_lr(&mut self, group: usize, lr: f64) -> Result<(), JsValue> {
        self.opt.set_group_lr(group, lr).map_err(js_err)
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
        (0..self.opt.param_group_count()).try_for_each(|g| self.opt.set_group_lr(g, lr)).map_err(js_err)
    }
}
