//! Learning-rate schedules with PyTorch's `torch.optim.lr_scheduler` semantics, step for step:
//! `LambdaLR`, `StepLR`, `LinearLR`, `CosineAnnealingLR` and `SequentialLR` (nanoGPT's warmup
//! then cosine is `SequentialLR([LinearLR, CosineAnnealingLR], [warmup])`). As in PyTorch, a
//! scheduler records each group's `initial_lr` the first time one is made for the optimizer,
//! takes its initial step when constructed, and is stepped after `optimizer.step()`. The
//! formulas are PyTorch's own (its recursive forms where it uses them, and its closed forms
//! where `SequentialLR` asks for them), so the learning rates equal PyTorch's at every step.

use super::Optimizer;
use crate::error::{Error, Result};

/// The counters every scheduler keeps (PyTorch's `last_epoch`, `_step_count`, `base_lrs`).
#[derive(Debug, Clone, Default)]
pub struct SchedulerState {
    base_lrs: Vec<f64>,
    last_epoch: i64,
    step_count: u64,
    is_initial: bool,
    last_lr: Vec<f64>,
}

impl SchedulerState {
    /// Records each group's `initial_lr` (once per optimizer) and starts before the first epoch.
    fn new(opt: &mut dyn Optimizer) -> SchedulerState {
        let base_lrs = (0..opt.param_group_count())
            .map(|g| {
                let lr = opt.initial_lr(g).unwrap_or_else(|| opt.group_lr(g).unwrap_or(0.0));
                opt.set_initial_lr(g, lr);
                lr
            })
            .collect();
        SchedulerState { base_lrs, last_epoch: -1, ..Default::default() }
    }

    /// The epoch the scheduler is at (PyTorch's `last_epoch`).
    pub fn last_epoch(&self) -> i64 {
        self.last_epoch
    }
}

/// What every schedule does. Implement `state`, `state_mut` and `get_lr`; `step` and the rest
/// follow PyTorch's `LRScheduler`.
pub trait LrScheduler {
    /// The counters.
    fn state(&self) -> &SchedulerState;
    /// The counters, to change.
    fn state_mut(&mut self) -> &mut SchedulerState;
    /// The next learning rates from the current ones (`current`, one per group), at
    /// `state().last_epoch` (PyTorch's `get_lr`).
    fn get_lr(&self, current: &[f64]) -> Vec<f64>;
    /// The learning rates at `last_epoch` from the base ones alone, where the schedule has such
    /// a form (PyTorch's `_get_closed_form_lr`).
    fn closed_form_lr(&self) -> Option<Vec<f64>> {
        None
    }

    /// One step of the schedule (after `optimizer.step()`), as PyTorch's `scheduler.step()`.
    fn step(&mut self, opt: &mut dyn Optimizer) -> Result<()> {
        self.state_mut().step_count += 1;
        self.update_lr(opt, None)
    }

    /// The learning rates the scheduler last set, one per group (PyTorch's `get_last_lr`).
    fn last_lr(&self) -> Vec<f64> {
        self.state().last_lr.clone()
    }

    /// Moves to the next epoch (or to `epoch`, by the closed form where there is one) and sets
    /// the groups' learning rates (PyTorch's `_update_lr`).
    fn update_lr(&mut self, opt: &mut dyn Optimizer, epoch: Option<i64>) -> Result<()> {
        let current: Vec<f64> = (0..opt.param_group_count()).map(|g| opt.group_lr(g).unwrap_or(0.0)).collect();
        let values = match epoch {
            None => {
                self.state_mut().last_epoch += 1;
                self.get_lr(&current)
            }
            Some(e) => {
                self.state_mut().last_epoch = e;
                self.closed_form_lr().unwrap_or_else(|| self.get_lr(&current))
            }
        };
        for (g, &lr) in values.iter().enumerate() {
            opt.set_group_lr(g, lr)?;
        }
        self.state_mut().last_lr = values;
        Ok(())
    }

    /// The step a scheduler takes when constructed (PyTorch's `_initial_step`).
    fn initial_step(&mut self, opt: &mut dyn Optimizer) -> Result<()> {
        self.state_mut().step_count = 0;
        self.state_mut().is_initial = true;
        let r = self.step(opt);
        self.state_mut().is_initial = false;
        r
    }
}

/// `state` and `state_mut` over a scheduler's `state` field.
macro_rules! state_field {
    () => {
        fn state(&self) -> &SchedulerState {
            &self.state
        }
        fn state_mut(&mut self) -> &mut SchedulerState {
            &mut self.state
        }
    };
}

/// `base_lr * lambda(epoch)` (PyTorch's `LambdaLR`), one function for every group.
pub struct LambdaLR {
    state: SchedulerState,
    lambda: Box<dyn Fn(i64) -> f64>,
}

impl LambdaLR {
    /// The schedule over `opt`, taking its initial step.
    pub fn new(opt: &mut dyn Optimizer, lambda: impl Fn(i64) -> f64 + 'static) -> Result<LambdaLR> {
        let mut s = LambdaLR { state: SchedulerState::new(opt), lambda: Box::new(lambda) };
        s.initial_step(opt)?;
        Ok(s)
    }
}

impl LrScheduler for LambdaLR {
    state_field!();
    fn get_lr(&self, _current: &[f64]) -> Vec<f64> {
        let f = (self.lambda)(self.state.last_epoch);
        self.state.base_lrs.iter().map(|b| b * f).collect()
    }
}

/// The learning rate times `gamma` every `step_size` epochs (PyTorch's `StepLR`).
pub struct StepLR {
    state: SchedulerState,
    step_size: i64,
    gamma: f64,
}

impl StepLR {
    /// The schedule over `opt`, taking its initial step.
    pub fn new(opt: &mut dyn Optimizer, step_size: usize, gamma: f64) -> Result<StepLR> {
        if step_size == 0 {
            return Err(Error::invalid("StepLR", "step_size must be at least 1"));
        }
        if !gamma.is_finite() {
            return Err(Error::invalid("StepLR", format!("gamma must be finite, got {gamma}")));
        }
        let mut s = StepLR { state: SchedulerState::new(opt), step_size: step_size as i64, gamma };
        s.initial_step(opt)?;
        Ok(s)
    }
}

impl LrScheduler for StepLR {
    state_field!();
    fn get_lr(&self, current: &[f64]) -> Vec<f64> {
        let e = self.state.last_epoch;
        if e == 0 || e % self.step_size != 0 {
            return current.to_vec();
        }
        current.iter().map(|lr| lr * self.gamma).collect()
    }
    fn closed_form_lr(&self) -> Option<Vec<f64>> {
        let k = self.state.last_epoch.div_euclid(self.step_size);
        Some(self.state.base_lrs.iter().map(|b| b * self.gamma.powi(k as i32)).collect())
    }
}

/// The learning rate scaled from `start_factor` to `end_factor` linearly over `total_iters`
/// epochs, then kept (PyTorch's `LinearLR`: nanoGPT's warmup).
pub struct LinearLR {
    state: SchedulerState,
    start: f64,
    end: f64,
    total: i64,
}

impl LinearLR {
    /// The schedule over `opt`, taking its initial step (which scales by `start_factor`).
    pub fn new(opt: &mut dyn Optimizer, start_factor: f64, end_factor: f64, total_iters: usize) -> Result<LinearLR> {
        const OP: &str = "LinearLR";
        if !(start_factor > 0.0 && start_factor <= 1.0) {
            return Err(Error::invalid(OP, format!("start_factor must be in (0, 1], got {start_factor}")));
        }
        if !(0.0..=1.0).contains(&end_factor) {
            return Err(Error::invalid(OP, format!("end_factor must be in [0, 1], got {end_factor}")));
        }
        let mut s = LinearLR {
            state: SchedulerState::new(opt),
            start: start_factor,
            end: end_factor,
            total: total_iters as i64,
        };
        s.initial_step(opt)?;
        Ok(s)
    }
}

impl LrScheduler for LinearLR {
    state_field!();
    fn get_lr(&self, current: &[f64]) -> Vec<f64> {
        let e = self.state.last_epoch;
        if e == 0 {
            return current.iter().map(|lr| lr * self.start).collect();
        }
        if self.state.is_initial || e > self.total {
            return current.to_vec();
        }
        let (s, d) = (self.start, self.end - self.start);
        current.iter().map(|lr| lr * (1.0 + d / (self.total as f64 * s + (e - 1) as f64 * d))).collect()
    }
    fn closed_form_lr(&self) -> Option<Vec<f64>> {
        let t = self.state.last_epoch.min(self.total) as f64;
        let f = self.start + (self.end - self.start) * t / self.total as f64;
        Some(self.state.base_lrs.iter().map(|b| b * f).collect())
    }
}

/// Half a cosine from the base learning rate down to `eta_min` over `t_max` epochs (and back up
/// after, as PyTorch's `CosineAnnealingLR`).
pub struct CosineAnnealingLR {
    state: SchedulerState,
    t_max: i64,
    eta_min: f64,
}

impl CosineAnnealingLR {
    /// The schedule over `opt`, taking its initial step.
    pub fn new(opt: &mut dyn Optimizer, t_max: usize, eta_min: f64) -> Result<CosineAnnealingLR> {
        const OP: &str = "CosineAnnealingLR";
        if t_max == 0 {
            return Err(Error::invalid(OP, "t_max must be at least 1"));
        }
        if !(eta_min.is_finite() && eta_min >= 0.0) {
            return Err(Error::invalid(OP, format!("eta_min must be a finite number >= 0, got {eta_min}")));
        }
        let mut s = CosineAnnealingLR { state: SchedulerState::new(opt), t_max: t_max as i64, eta_min };
        s.initial_step(opt)?;
        Ok(s)
    }
}

impl LrScheduler for CosineAnnealingLR {
    state_field!();
    fn get_lr(&self, current: &[f64]) -> Vec<f64> {
        use std::f64::consts::PI;
        let (e, t, m) = (self.state.last_epoch, self.t_max, self.eta_min);
        if self.state.is_initial {
            return current.to_vec();
        }
        if self.state.step_count == 1 && e > 0 {
            return self
                .state
                .base_lrs
                .iter()
                .map(|b| m + (b - m) * (1.0 + (e as f64 * PI / t as f64).cos()) / 2.0)
                .collect();
        }
        if (e - 1 - t).rem_euclid(2 * t) == 0 {
            let base = &self.state.base_lrs;
            return current
                .iter()
                .zip(base)
                .map(|(lr, b)| lr + (b - m) * (1.0 - (PI / t as f64).cos()) / 2.0)
                .collect();
        }
        let ratio = (1.0 + (PI * e as f64 / t as f64).cos()) / (1.0 + (PI * (e - 1) as f64 / t as f64).cos());
        current.iter().map(|lr| ratio * (lr - m) + m).collect()
    }
    fn closed_form_lr(&self) -> Option<Vec<f64>> {
        use std::f64::consts::PI;
        let (e, t, m) = (self.state.last_epoch as f64, self.t_max as f64, self.eta_min);
        Some(self.state.base_lrs.iter().map(|b| m + (b - m) * (1.0 + (PI * e / t).cos()) / 2.0).collect())
    }
}

/// Schedules one after another, switching at the `milestones` (PyTorch's `SequentialLR`).
pub struct SequentialLR {
    state: SchedulerState,
    schedulers: Vec<Box<dyn LrScheduler>>,
    milestones: Vec<i64>,
}

impl SequentialLR {
    /// `schedulers` (made for `opt`) in turn: the k-th from `milestones[k - 1]` on.
    pub fn new(
        opt: &mut dyn Optimizer,
        mut schedulers: Vec<Box<dyn LrScheduler>>,
        milestones: &[usize],
    ) -> Result<SequentialLR> {
        const OP: &str = "SequentialLR";
        if schedulers.is_empty() {
            return Err(Error::invalid(OP, "expects at least one scheduler"));
        }
        if milestones.len() != schedulers.len() - 1 {
            return Err(Error::invalid(
                OP,
                format!(
                    "expects one milestone fewer than schedulers, got {} schedulers and {} milestones",
                    schedulers.len(),
                    milestones.len()
                ),
            ));
        }
        let milestones: Vec<i64> = milestones.iter().map(|&m| m as i64).collect();
        // Back to the initial learning rates, every scheduler's construction step undone, and the
        // first one's initial step taken again (PyTorch's constructor).
        for g in 0..opt.param_group_count() {
            if let Some(lr) = opt.initial_lr(g) {
                opt.set_group_lr(g, lr)?;
            }
        }
        for s in &mut schedulers {
            s.state_mut().last_epoch -= 1;
        }
        let idx = milestones.partition_point(|&m| m <= 0);
        schedulers[idx].initial_step(opt)?;
        let last_lr = schedulers[idx].last_lr();
        let state = SchedulerState { last_epoch: 0, last_lr, ..Default::default() };
        Ok(SequentialLR { state, schedulers, milestones })
    }
}

impl LrScheduler for SequentialLR {
    state_field!();
    fn get_lr(&self, current: &[f64]) -> Vec<f64> {
        current.to_vec()
    }
    fn step(&mut self, opt: &mut dyn Optimizer) -> Result<()> {
        self.state.last_epoch += 1;
        let e = self.state.last_epoch;
        let idx = self.milestones.partition_point(|&m| m <= e);
        let s = &mut self.schedulers[idx];
        if idx > 0 && self.milestones[idx - 1] == e {
            s.update_lr(opt, Some(0))?;
        } else {
            s.step(opt)?;
        }
        self.state.last_lr = s.last_lr();
        Ok(())
    }
}
