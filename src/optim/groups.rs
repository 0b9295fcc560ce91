//! Parameter groups (PyTorch's `param_groups`): each group has its own options (learning rate,
//! weight decay, ...), and the initial learning rate that schedulers start from. An optimizer
//! keeps its parameters flat, in group order, each with the index of its group.

use crate::error::{Error, Result};
use crate::nn::Parameter;

/// Parameters with their own options, as one entry of PyTorch's `param_groups`
/// (`[{ "params": decay, "weight_decay": 0.1 }, { "params": no_decay, "weight_decay": 0 }]`).
#[derive(Clone)]
pub struct ParamGroup<O> {
    /// The group's parameters.
    pub params: Vec<Parameter>,
    /// The group's options (start from the optimizer's and override what differs).
    pub options: O,
}

/// The learning rate of an optimizer's options type.
pub(crate) trait HasLr: Copy {
    fn lr(&self) -> f64;
    fn set_lr(&mut self, lr: f64);
}

/// The groups of one optimizer.
pub(crate) struct Groups<O> {
    pub(crate) params: Vec<Parameter>,
    pub(crate) group_of: Vec<usize>,
    pub(crate) options: Vec<O>,
    initial_lr: Vec<Option<f64>>,
}

impl<O: HasLr> Groups<O> {
    /// The groups, each checked by `check`; a parameter in two groups is PyTorch's error.
    pub(crate) fn new(
        op: &'static str,
        groups: Vec<ParamGroup<O>>,
        check: impl Fn(&O) -> Result<()>,
    ) -> Result<Groups<O>> {
        let mut out = Groups { params: Vec::new(), group_of: Vec::new(), options: Vec::new(), initial_lr: Vec::new() };
        for (g, group) in groups.into_iter().enumerate() {
            check(&group.options)?;
            for p in group.params {
                if out.params.iter().any(|q| q.same_as(&p)) {
                    return Err(Error::invalid(op, format!("a parameter appears in more than one parameter group (again in group {g}); give each parameter once")));
                }
                out.params.push(p);
                out.group_of.push(g);
            }
            out.options.push(group.options);
            out.initial_lr.push(None);
        }
        Ok(out)
    }

    /// How many groups.
    pub(crate) fn count(&self) -> usize {
        self.options.len()
    }

    /// The options of parameter `i`'s group.
    pub(crate) fn of(&self, i: usize) -> O {
        self.options[self.group_of[i]]
    }

    pub(crate) fn lr(&self, group: usize) -> Option<f64> {
        self.options.get(group).map(HasLr::lr)
    }

    pub(crate) fn set_lr(&mut self, op: &'static str, group: usize, lr: f64) -> Result<()> {
        if !(lr >= 0.0 && lr.is_finite()) {
            return Err(Error::invalid(op, format!("lr must be a finite number >= 0, got {lr}")));
        }
        let n = self.count();
        let o = self
            .options
            .get_mut(group)
            .ok_or_else(|| Error::invalid(op, format!("no parameter group {group} (there are {n})")))?;
        o.set_lr(lr);
        Ok(())
    }

    pub(crate) fn initial_lr(&self, group: usize) -> Option<f64> {
        self.initial_lr.get(group).copied().flatten()
    }

    /// The groups' learning rates and initial ones, for a saved state.
    pub(crate) fn lrs(&self) -> (Vec<f64>, Vec<Option<f64>>) {
        (self.options.iter().map(HasLr::lr).collect(), self.initial_lr.clone())
    }

    /// Restores the learning rates of a saved state (checked by the caller).
    pub(crate) fn restore_lrs(&mut self, op: &'static str, s: &super::OptimizerState) -> Result<()> {
        for (g, &lr) in s.group_lrs.iter().enumerate() {
            self.set_lr(op, g, lr)?;
        }
        for (g, lr) in s.initial_lr_iter() {
            self.initial_lr[g] = lr;
        }
        Ok(())
    }

    pub(crate) fn set_initial_lr(&mut self, group: usize, lr: f64) {
        if let Some(slot) = self.initial_lr.get_mut(group) {
            *slot = Some(lr);
        }
    }
}

/// The `Optimizer` methods that read and write the groups, for an optimizer whose `Groups` are
/// reached by `$g`.
macro_rules! group_methods {
    ($($g:tt)+) => {
        fn params(&self) -> &[Parameter] {
            &self.$($g)+.params
        }
        fn param_group_count(&self) -> usize {
            self.$($g)+.count()
        }
        fn group_lr(&self, group: usize) -> Option<f64> {
            self.$($g)+.lr(group)
        }
        fn set_group_lr(&mut self, group: usize, lr: f64) -> Result<()> {
            self.$($g)+.set_lr("set_group_lr", group, lr)
        }
        fn initial_lr(&self, group: usize) -> Option<f64> {
            self.$($g)+.initial_lr(group)
        }
        fn set_initial_lr(&mut self, group: usize, lr: f64) {
            self.$($g)+.set_initial_lr(group, lr)
        }
    };
}
pub(crate) use group_methods;
