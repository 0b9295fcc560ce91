//! Stochastic gradient descent with PyTorch's momentum, dampening, Nesterov and (L2) weight
//! decay: `g += wd p; b = m b + (1 - dampening) g (b = g at the first step); g = nesterov ?
//! g + m b : b; p -= lr g`. A step is fused (`fused.rs`: several parameters a kernel), or the same
//! formula as separate ops where that cannot run.

use super::groups::{group_methods, Groups, HasLr, ParamGroup};
use super::{check_hyper, fused, Optimizer, OptimizerState, ParamState};
use crate::error::{Error, Result};
use crate::nn::Parameter;
use crate::op::optim::OptimStep;
use crate::tensor::Tensor;

/// Options of [`SGD::new`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SgdOptions {
    /// Learning rate.
    pub lr: f64,
    /// Momentum factor (0 = plain SGD).
    pub momentum: f64,
    /// Dampening of the momentum.
    pub dampening: f64,
    /// L2 penalty.
    pub weight_decay: f64,
    /// Nesterov momentum (needs momentum > 0 and dampening 0).
    pub nesterov: bool,
    /// Fused kernels on every device (default true; several parameters a launch); false runs the update as
    /// separate elementwise ops, as PyTorch's for-loop implementation does.
    pub fused: bool,
}

impl Default for SgdOptions {
    fn default() -> Self {
        SgdOptions { lr: 1e-3, momentum: 0.0, dampening: 0.0, weight_decay: 0.0, nesterov: false, fused: true }
    }
}

impl HasLr for SgdOptions {
    fn lr(&self) -> f64 {
        self.lr
    }
    fn set_lr(&mut self, lr: f64) {
        self.lr = lr;
    }
}

/// Stochastic gradient descent.
pub struct SGD {
    groups: Groups<SgdOptions>,
    momentum: Vec<Option<Tensor>>,
}

fn check(options: &SgdOptions) -> Result<()> {
    const OP: &str = "SGD";
    check_hyper(OP, "lr", options.lr, 0.0, f64::MAX)?;
    check_hyper(OP, "momentum", options.momentum, 0.0, f64::MAX)?;
    check_hyper(OP, "weight_decay", options.weight_decay, 0.0, f64::MAX)?;
    if options.nesterov && (options.momentum <= 0.0 || options.dampening != 0.0) {
        return Err(Error::invalid(OP, "Nesterov momentum requires a momentum and zero dampening"));
    }
    Ok(())
}

impl SGD {
    /// An optimizer over `params` (one group).
    pub fn new(params: Vec<Parameter>, options: SgdOptions) -> Result<SGD> {
        SGD::with_groups(vec![ParamGroup { params, options }])
    }

    /// An optimizer over parameter groups, each with its own options (PyTorch's
    /// `SGD([{...}, {...}])`).
    pub fn with_groups(groups: Vec<ParamGroup<SgdOptions>>) -> Result<SGD> {
        let groups = Groups::new("SGD", groups, check)?;
        let n = groups.params.len();
        Ok(SGD { groups, momentum: vec![None; n] })
    }
}

/// The update as separate ops (f16 parameters, tensors past one binding, `fused: false`):
/// returns the new parameter and momentum buffer.
fn composed(o: &SgdOptions, value: &Tensor, mut g: Tensor, buf: Option<&Tensor>) -> Result<(Tensor, Option<Tensor>)> {
    if o.weight_decay != 0.0 {
        g = g.add(&value.mul_scalar(o.weight_decay)?)?;
    }
    let mut b = None;
    if o.momentum != 0.0 {
        let next = match buf {
            Some(b) => b.mul_scalar(o.momentum)?.add(&g.mul_scalar(1.0 - o.dampening)?)?,
            None => g.contiguous()?,
        };
        g = if o.nesterov { g.add(&next.mul_scalar(o.momentum)?)? } else { next.clone() };
        b = Some(next);
    }
    Ok((value.sub(&g.mul_scalar(o.lr)?)?, b))
}

impl Optimizer for SGD {
    fn step(&mut self) -> Result<()> {
        let _g = crate::tensor::node::pause();
        let work = super::prepare("SGD.step", &self.groups.params, self.momentum.iter().map(Option::as_ref))?;
        // The fused updates of every parameter at once, then each swapped in.
        let states: Vec<Vec<Tensor>> = self.momentum.iter().map(|b| b.iter().cloned().collect()).collect();
        let items: Vec<_> = work
            .iter()
            .zip(&states)
            .enumerate()
            .map(|(i, (w, state))| {
                let (value, g) = w.as_ref()?;
                let o = self.groups.of(i);
                let first = state.is_empty();
                let step = OptimStep::sgd(o.lr, o.momentum, o.dampening, o.weight_decay, o.nesterov, first);
                o.fused.then_some(fused::Item { step, param: value, grad: g, state })
            })
            .collect();
        let fused = fused::update_many(&items)?;
        drop(items);
        let slots = self.groups.params.iter().zip(self.momentum.iter_mut()).zip(work).zip(fused);
        for (i, (((p, buf), work), fused)) in slots.enumerate() {
            let Some((value, g)) = work else { continue };
            let o = self.groups.of(i);
            let (next, b) = match fused {
                Some((next, mut st)) => (next, st.pop()),
                None => composed(&o, &value, g.clone(), buf.as_ref())?,
            };
            p.replace(next, Some(g))?;
            if o.momentum != 0.0 {
                // State lives across steps: what the lazy tier recorded runs now.
                if let Some(b) = &b {
                    b.realize()?;
                }
                *buf = b;
            }
        }
        Ok(())
    }

    group_methods!(groups);

    fn state_dict(&self) -> OptimizerState {
        let params = self
            .momentum
            .iter()
            .map(|b| {
                b.as_ref().map(|b| ParamState { step: None, buffers: vec![("momentum_buffer".into(), b.clone())] })
            })
            .collect();
        let (group_lrs, initial_lrs) = self.groups.lrs();
        OptimizerState { params, group_lrs, initial_lrs }
    }

    fn load_state_dict(&mut self, s: &OptimizerState) -> Result<()> {
        s.check("SGD", self.groups.params.len(), self.groups.count())?;
        let mut next = Vec::with_capacity(s.params.len());
        for (i, (ps, p)) in s.params.iter().zip(&self.groups.params).enumerate() {
            next.push(ps.as_ref().map(|ps| ps.buffer("SGD", i, "momentum_buffer", p)).transpose()?);
        }
        self.groups.restore_lrs("SGD", s)?;
        self.momentum = next;
        Ok(())
    }
}
