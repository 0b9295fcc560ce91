//! Optimizers: `SGD` (momentum, Nesterov, weight decay), `Adam`, `AdamW`, `RMSprop`, with PyTorch's
//! update formulas. Each holds the `Parameter` slots it was given; `step` reads their
//! gradients, computes the update with grad mode off, and swaps the new values into the slots
//! (gradients stay until `zero_grad`, as in PyTorch). State (momentum, moments) is created at
//! the first step on each parameter's device; if a parameter has since moved to another device
//! the step fails with a clear error rather than mixing devices, as PyTorch's does. Every
//! parameter is checked before any is updated, so a step refused by these checks changes nothing
//! (an out-of-memory error partway through would still leave the earlier ones updated).
//! Parameter groups (`ParamGroup`, `with_groups`) give groups their own options, and
//! `lr_scheduler` changes learning rates over steps, as PyTorch's.

mod adam;
mod fused;
mod groups;
pub mod lr_scheduler;
mod rmsprop;
mod sgd;
mod state;

pub use adam::{Adam, AdamOptions, AdamW};
pub use groups::ParamGroup;
pub use rmsprop::{RMSprop, RmspropOptions};
pub use sgd::{SgdOptions, SGD};
pub use state::{OptimizerState, ParamState};

use crate::error::{Error, Result};
use crate::nn::Parameter;
use crate::tensor::Tensor;

/// What every optimizer does. Parameters come in groups (PyTorch's `param_groups`), each with
/// its own learning rate; an optimizer made from a plain list has one.
pub trait Optimizer {
    /// One update of every parameter that has a gradient (those without are skipped).
    fn step(&mut self) -> Result<()>;
    /// Clears every parameter's gradient (sets it to none, as PyTorch 2 does).
    fn zero_grad(&self) {
        self.params().iter().for_each(Parameter::zero_grad);
    }
    /// The parameters being optimised, in group order.
    fn params(&self) -> &[Parameter];
    /// How many parameter groups.
    fn param_group_count(&self) -> usize;
    /// The learning rate of group `group` (None past the last).
    fn group_lr(&self, group: usize) -> Option<f64>;
    /// Sets the learning rate of group `group` (what schedulers do).
    fn set_group_lr(&mut self, group: usize, lr: f64) -> Result<()>;
    /// The learning rate the first scheduler found in group `group` (PyTorch's `initial_lr`).
    fn initial_lr(&self, group: usize) -> Option<f64>;
    /// Records group `group`'s initial learning rate (schedulers do, once).
    fn set_initial_lr(&mut self, group: usize, lr: f64);
    /// The state to save (PyTorch's `state_dict()`): buffers, steps and learning rates.
    fn state_dict(&self) -> OptimizerState;
    /// Resumes from a saved state of the same optimizer over the same parameters; its tensors
    /// must be on the parameters' devices. All or nothing.
    fn load_state_dict(&mut self, state: &OptimizerState) -> Result<()>;
    /// The learning rate of the first group.
    fn lr(&self) -> f64 {
        self.group_lr(0).unwrap_or(0.0)
    }
    /// Sets every group's learning rate.
    fn set_lr(&mut self, lr: f64) {
        for g in 0..self.param_group_count() {
            // The groups exist; a bad lr is the caller's (schedules give finite ones).
            let _ = self.set_group_lr(g, lr);
        }
    }
}

/// A boxed optimizer is an optimizer, so one chosen at run time (`Box<dyn Optimizer>`) can go
/// wherever a concrete one can (a data-parallel `Replicated`, a training loop).
impl<O: Optimizer + ?Sized> Optimizer for Box<O> {
    fn step(&mut self) -> Result<()> {
        (**self).step()
    }
    fn zero_grad(&self) {
        (**self).zero_grad()
    }
    fn params(&self) -> &[Parameter] {
        (**self).params()
    }
    fn param_group_count(&self) -> usize {
        (**self).param_group_count()
    }
    fn group_lr(&self, group: usize) -> Option<f64> {
        (**self).group_lr(group)
    }
    fn set_group_lr(&mut self, group: usize, lr: f64) -> Result<()> {
        (**self).set_group_lr(group, lr)
    }
    fn initial_lr(&self, group: usize) -> Option<f64> {
        (**self).initial_lr(group)
    }
    fn set_initial_lr(&mut self, group: usize, lr: f64) {
        (**self).set_initial_lr(group, lr)
    }
    fn state_dict(&self) -> OptimizerState {
        (**self).state_dict()
    }
    fn load_state_dict(&mut self, state: &OptimizerState) -> Result<()> {
        (**self).load_state_dict(state)
    }
}

/// Fails when state made for a parameter sits on another device than the parameter now.
fn check_state(op: &'static str, state: &Tensor, param: &Tensor) -> Result<()> {
    if state.device() != param.device() {
        return Err(Error::invalid(
            op,
            format!(
                "this optimizer's state is on {} but the parameter is now on {}; construct the optimizer after \
                 model.to(...), as PyTorch advises",
                state.device(),
                param.device()
            ),
        ));
    }
    Ok(())
}

/// Each parameter's current value and gradient (`None` for one without a gradient, which the
/// step skips: frozen parameters, unused ones), after checking every parameter's state against
/// its device: all before any update, so a refused step leaves parameters and state as they were.
pub(crate) fn prepare<'a>(
    op: &'static str,
    params: &[Parameter],
    states: impl Iterator<Item = Option<&'a Tensor>>,
) -> Result<Vec<Option<(Tensor, Tensor)>>> {
    params
        .iter()
        .zip(states)
        .map(|(p, state)| {
            let value = p.tensor();
            let Some(g) = value.grad() else { return Ok(None) };
            if let Some(s) = state {
                check_state(op, s, &value)?;
            }
            Ok(Some((value, g)))
        })
        .collect()
}

pub(crate) fn check_hyper(op: &'static str, name: &str, v: f64, lo: f64, hi: f64) -> Result<()> {
    if !(v >= lo && v <= hi) {
        return Err(Error::invalid(op, format!("{name} must be in [{lo}, {hi}], got {v}")));
    }
    Ok(())
}
