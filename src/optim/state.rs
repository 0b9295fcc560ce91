//! An optimizer's state as PyTorch's `state_dict()` holds it, to save and resume training: each
//! parameter's buffers (`exp_avg`, `exp_avg_sq`, `momentum_buffer`, `square_avg`, ...) and step
//! count, in `params()` order, and each group's learning rate and initial learning rate (what
//! schedulers resume from).

use crate::error::{Error, Result};
use crate::nn::Parameter;
use crate::tensor::Tensor;

/// One parameter's state (PyTorch's `state_dict()["state"][i]`).
#[derive(Clone, Default)]
pub struct ParamState {
    /// Steps taken (Adam's bias correction), where the optimizer counts them.
    pub step: Option<u64>,
    /// The named buffers, each of the parameter's shape, on its device.
    pub buffers: Vec<(String, Tensor)>,
}

/// An optimizer's whole state.
#[derive(Clone, Default)]
pub struct OptimizerState {
    /// Per parameter, in `params()` order; None before its first step.
    pub params: Vec<Option<ParamState>>,
    /// Each group's learning rate.
    pub group_lrs: Vec<f64>,
    /// Each group's initial learning rate, where a scheduler recorded one.
    pub initial_lrs: Vec<Option<f64>>,
}

impl ParamState {
    /// The buffer `name`, checked against `param` (shape and device), or an error naming what
    /// is wrong.
    pub(crate) fn buffer(&self, op: &'static str, i: usize, name: &str, param: &Parameter) -> Result<Tensor> {
        let t = self.buffers.iter().find(|(n, _)| n == name).map(|(_, t)| t.clone()).ok_or_else(|| {
            let names: Vec<&str> = self.buffers.iter().map(|(n, _)| n.as_str()).collect();
            Error::invalid(
                op,
                format!(
                    "the state of parameter {i} has no '{name}' (it has {names:?}); it was saved by another optimizer"
                ),
            )
        })?;
        if t.shape() != param.shape().as_slice() {
            return Err(Error::ShapeMismatch {
                op,
                lhs: param.shape(),
                rhs: t.shape().to_vec(),
                msg: format!("'{name}' of parameter {i} must have the parameter's shape"),
            });
        }
        if t.device() != param.device() {
            return Err(Error::invalid(
                op,
                format!(
                    "'{name}' of parameter {i} is on {} but the parameter is on {}; move the state there first",
                    t.device(),
                    param.device()
                ),
            ));
        }
        Ok(t.detach())
    }
}

impl OptimizerState {
    /// Each group's saved initial learning rate.
    pub(crate) fn initial_lr_iter(&self) -> impl Iterator<Item = (usize, Option<f64>)> + '_ {
        self.initial_lrs.iter().copied().enumerate()
    }

    /// Checks that the state has one entry per parameter and one learning rate per group.
    pub(crate) fn check(&self, op: &'static str, params: usize, groups: usize) -> Result<()> {
        if self.params.len() != params || self.group_lrs.len() != groups {
            return Err(Error::invalid(
                op,
                format!(
                    "the state is for {} parameters in {} groups, this optimizer has {params} in {groups}",
                    self.params.len(),
                    self.group_lrs.len()
                ),
            ));
        }
        Ok(())
    }
}
