//! [`Replicated`]: one optimizer per data-parallel replica, stepped together.

use crate::error::Result;
use crate::nn::Parameter;
use crate::optim::Optimizer;

/// The optimizers of a [`super::DataParallel`]'s replicas (made by
/// [`super::DataParallel::optimizer`]), driven as one: `step` steps each, `zero_grad` clears
/// each, `set_lr` sets each. An optimizer per replica, rather than one over every replica's
/// parameters, keeps each replica's state (momentum, moments) on its own device.
pub struct Replicated<O: Optimizer> {
    opts: Vec<O>,
}

impl<O: Optimizer> Replicated<O> {
    pub(super) fn new(opts: Vec<O>) -> Replicated<O> {
        Replicated { opts }
    }

    /// The optimizers, one per replica in device order.
    pub fn optimizers(&self) -> &[O] {
        &self.opts
    }

    /// The optimizers, one per replica, to change (to load a saved state into each).
    pub fn optimizers_mut(&mut self) -> &mut [O] {
        &mut self.opts
    }
}

impl<O: Optimizer> Optimizer for Replicated<O> {
    /// Steps every replica's optimizer. Each checks its own parameters before it updates any;
    /// an out-of-memory error on a later replica leaves the earlier ones stepped.
    fn step(&mut self) -> Result<()> {
        self.opts.iter_mut().try_for_each(|o| o.step())
    }

    fn zero_grad(&self) {
        self.opts.iter().for_each(|o| o.zero_grad());
    }

    /// The first replica's parameters.
    fn params(&self) -> &[Parameter] {
        self.opts.first().map(|o| o.params()).unwrap_or(&[])
    }

    fn param_group_count(&self) -> usize {
        self.opts.first().map_or(0, |o| o.param_group_count())
    }

    fn group_lr(&self, group: usize) -> Option<f64> {
        self.opts.first().and_then(|o| o.group_lr(group))
    }

    fn set_group_lr(&mut self, group: usize, lr: f64) -> Result<()> {
        self.opts.iter_mut().try_for_each(|o| o.set_group_lr(group, lr))
    }

    fn initial_lr(&self, group: usize) -> Option<f64> {
        self.opts.first().and_then(|o| o.initial_lr(group))
    }

    fn set_initial_lr(&mut self, group: usize, lr: f64) {
        self.opts.iter_mut().for_each(|o| o.set_initial_lr(group, lr));
    }

    /// The first replica's state (every replica steps alike).
    fn state_dict(&self) -> crate::optim::OptimizerState {
        self.opts.first().map(|o| o.state_dict()).unwrap_or_default()
    }

    /// The state into the first replica; the others need it on their own devices, so this is
    /// refused for more than one replica (load each replica's optimizer instead).
    fn load_state_dict(&mut self, state: &crate::optim::OptimizerState) -> Result<()> {
        match self.opts.as_mut_slice() {
            [one] => one.load_state_dict(state),
            _ => Err(crate::Error::invalid(
                "Replicated",
                "loading a state into several replicas: load each replica's optimizer (optimizers_mut()) with the state on its device",
            )),
        }
    }
}
