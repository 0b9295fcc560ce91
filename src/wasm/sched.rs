//! `torch.optim.lr_scheduler` for the JS façade: `RawScheduler` holds one of the Rust schedules
//! (`optim::lr_scheduler`) and steps it over a `RawOptimizer`'s groups. A `LambdaLR`'s function
//! is the JS one, called with the epoch. Types and errors only.

use wasm_bindgen::prelude::*;

use super::js_err;
use super::optim::RawOptimizer;
use crate::optim::lr_scheduler::{CosineAnnealingLR, LambdaLR, LinearLR, LrScheduler, SequentialLR, StepLR};

/// A learning-rate schedule over one optimizer.
#[wasm_bindgen]
pub struct RawScheduler {
    s: Box<dyn LrScheduler>,
}

fn wrap(s: crate::Result<impl LrScheduler + 'static>) -> Result<RawScheduler, JsValue> {
    Ok(RawScheduler { s: Box::new(s.map_err(js_err)?) })
}

#[wasm_bindgen]
impl RawScheduler {
    /// `base_lr * lambda(epoch)`; a lambda that does not return a finite number fails the step.
    pub fn lambda(opt: &mut RawOptimizer, lambda: js_sys::Function) -> Result<RawScheduler, JsValue> {
        let f = move |e: i64| {
            lambda.call1(&JsValue::NULL, &JsValue::from_f64(e as f64)).ok().and_then(|v| v.as_f64()).unwrap_or(f64::NAN)
        };
        wrap(LambdaLR::new(&mut opt.opt, f))
    }

    /// `StepLR`.
    pub fn step_lr(opt: &mut RawOptimizer, step_size: usize, gamma: f64) -> Result<RawScheduler, JsValue> {
        wrap(StepLR::new(&mut opt.opt, step_size, gamma))
    }

    /// `LinearLR`.
    pub fn linear(
        opt: &mut RawOptimizer,
        start_factor: f64,
        end_factor: f64,
        total_iters: usize,
    ) -> Result<RawScheduler, JsValue> {
        wrap(LinearLR::new(&mut opt.opt, start_factor, end_factor, total_iters))
    }

    /// `CosineAnnealingLR`.
    pub fn cosine(opt: &mut RawOptimizer, t_max: usize, eta_min: f64) -> Result<RawScheduler, JsValue> {
        wrap(CosineAnnealingLR::new(&mut opt.opt, t_max, eta_min))
    }

    /// `SequentialLR` over `schedulers` (consumed: they are stepped through this one).
    pub fn sequential(
        opt: &mut RawOptimizer,
        schedulers: Vec<RawScheduler>,
        milestones: Vec<u32>,
    ) -> Result<RawScheduler, JsValue> {
        let inner = schedulers.into_iter().map(|r| r.s).collect();
        let milestones: Vec<usize> = milestones.into_iter().map(|m| m as usize).collect();
        wrap(SequentialLR::new(&mut opt.opt, inner, &milestones))
    }

    /// One step of the schedule (after the optimizer's).
    pub fn step(&mut self, opt: &mut RawOptimizer) -> Result<(), JsValue> {
        self.s.step(&mut opt.opt).map_err(js_err)
    }

    /// The learning rates it last set, one per group.
    #[wasm_bindgen(js_name = lastLr)]
    pub fn last_lr(&self) -> Vec<f64> {
        self.s.last_lr()
    }

    /// The epoch it is at.
    #[wasm_bindgen(getter, js_name = lastEpoch)]
    pub fn last_epoch(&self) -> f64 {
        self.s.state().last_epoch() as f64
    }
}
