//! RMSprop with PyTorch's formula (its default, non-fused implementation): `g += wd p;
//! s = alpha s + (1 - alpha) g^2; avg = sqrt(s - (centered ? m^2 : 0)) + eps` with `m = alpha m +
//! (1 - alpha) g` when centered; then with momentum `b = mu b + g / avg; p -= lr b`, else
//! `p -= lr g / avg`. The update runs as separate ops on every device.

use super::groups::{group_methods, Groups, HasLr, ParamGroup};
use super::{check_hyper, prepare, Optimizer, OptimizerState, ParamState};
use crate::error::Result;
use crate::nn::Parameter;
use crate::tensor::Tensor;

/// Options of [`RMSprop::new`] (PyTorch's defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RmspropOptions {
    /// Learning rate (default 0.01).
    pub lr: f64,
    /// Smoothing of the squared gradients' running average (default 0.99).
    pub alpha: f64,
    /// Added to the denominator (default 1e-8).
    pub eps: f64,
    /// L2 penalty added to the gradient (default 0).
    pub weight_decay: f64,
    /// Momentum (default 0).
    pub momentum: f64,
    /// Normalise by the variance estimate rather than the second moment (default false).
    pub centered: bool,
}

impl Default for RmspropOptions {
    fn default() -> Self {
        RmspropOptions { lr: 0.01, alpha: 0.99, eps: 1e-8, weight_decay: 0.0, momentum: 0.0, centered: false }
    }
}

impl HasLr for RmspropOptions {
    fn lr(&self) -> f64 {
        self.lr
    }
    fn set_lr(&mut self, lr: f64) {
        self.lr = lr;
    }
}

/// The state of one parameter.
struct State {
    square_avg: Tensor,
    grad_avg: Option<Tensor>,
    momentum: Option<Tensor>,
}

/// RMSprop (Hinton), PyTorch's `torch.optim.RMSprop`.
pub struct RMSprop {
    groups: Groups<RmspropOptions>,
    state: Vec<Option<State>>,
}

fn check(o: &RmspropOptions) -> Result<()> {
    const OP: &str = "RMSprop";
    check_hyper(OP, "lr", o.lr, 0.0, f64::MAX)?;
    check_hyper(OP, "alpha", o.alpha, 0.0, f64::MAX)?;
    check_hyper(OP, "eps", o.eps, 0.0, f64::MAX)?;
    check_hyper(OP, "weight_decay", o.weight_decay, 0.0, f64::MAX)?;
    check_hyper(OP, "momentum", o.momentum, 0.0, f64::MAX)
}

impl RMSprop {
    /// An optimizer over `params` (one group).
    pub fn new(params: Vec<Parameter>, options: RmspropOptions) -> Result<RMSprop> {
        RMSprop::with_groups(vec![ParamGroup { params, options }])
    }

    /// An optimizer over parameter groups, each with its own options.
    pub fn with_groups(groups: Vec<ParamGroup<RmspropOptions>>) -> Result<RMSprop> {
        let groups = Groups::new("RMSprop", groups, check)?;
        let n = groups.params.len();
        Ok(RMSprop { groups, state: (0..n).map(|_| None).collect() })
    }
}

impl Optimizer for RMSprop {
    fn step(&mut self) -> Result<()> {
        let _g = crate::tensor::node::pause();
        let work =
            prepare("RMSprop", &self.groups.params, self.state.iter().map(|s| s.as_ref().map(|s| &s.square_avg)))?;
        for (i, ((p, slot), work)) in self.groups.params.iter().zip(self.state.iter_mut()).zip(work).enumerate() {
            let Some((value, grad)) = work else { continue };
            let o = self.groups.of(i);
            let g = if o.weight_decay != 0.0 { grad.add(&value.mul_scalar(o.weight_decay)?)? } else { grad.clone() };
            let prev = slot.take();
            let s0 = match &prev {
                Some(s) => s.square_avg.clone(),
                None => value.zeros_like()?,
            };
            let square_avg = s0.mul_scalar(o.alpha)?.add(&g.square()?.mul_scalar(1.0 - o.alpha)?)?;
            let (avg, grad_avg) = if o.centered {
                let m0 = match prev.as_ref().and_then(|s| s.grad_avg.clone()) {
                    Some(m) => m,
                    None => value.zeros_like()?,
                };
                // PyTorch's lerp form: m + (g - m)(1 - alpha).
                let m = m0.add(&g.sub(&m0)?.mul_scalar(1.0 - o.alpha)?)?;
                (square_avg.sub(&m.square()?)?.sqrt()?.add_scalar(o.eps)?, Some(m))
            } else {
                (square_avg.sqrt()?.add_scalar(o.eps)?, None)
            };
            let (next, momentum) = if o.momentum > 0.0 {
                let b0 = match prev.as_ref().and_then(|s| s.momentum.clone()) {
                    Some(b) => b,
                    None => value.zeros_like()?,
                };
                let b = b0.mul_scalar(o.momentum)?.add(&g.div(&avg)?)?;
                (value.sub(&b.mul_scalar(o.lr)?)?, Some(b))
            } else {
                (value.sub(&g.div(&avg)?.mul_scalar(o.lr)?)?, None)
            };
            p.replace(next, Some(grad))?;
            // State lives across steps: what the lazy tier recorded runs now.
            for t in [Some(&square_avg), grad_avg.as_ref(), momentum.as_ref()].into_iter().flatten() {
                t.realize()?;
            }
            *slot = Some(State { square_avg, grad_avg, momentum });
        }
        Ok(())
    }

    group_methods!(groups);

    fn state_dict(&self) -> OptimizerState {
        let params = self
            .state
            .iter()
            .map(|s| {
                s.as_ref().map(|s| {
                    let mut buffers = vec![("square_avg".to_string(), s.square_avg.clone())];
                    buffers.extend(s.grad_avg.clone().map(|t| ("grad_avg".to_string(), t)));
                    buffers.extend(s.momentum.clone().map(|t| ("momentum_buffer".to_string(), t)));
                    ParamState { step: None, buffers }
                })
            })
            .collect();
        let (group_lrs, initial_lrs) = self.groups.lrs();
        OptimizerState { params, group_lrs, initial_lrs }
    }

    fn load_state_dict(&mut self, s: &OptimizerState) -> Result<()> {
        const OP: &str = "RMSprop";
        s.check(OP, self.groups.params.len(), self.groups.count())?;
        let mut next = Vec::with_capacity(s.params.len());
        for (i, (ps, p)) in s.params.iter().zip(&self.groups.params).enumerate() {
            let o = self.groups.of(i);
            next.push(match ps {
                None => None,
                Some(ps) => Some(State {
                    square_avg: ps.buffer(OP, i, "square_avg", p)?,
                    grad_avg: if o.centered { Some(ps.buffer(OP, i, "grad_avg", p)?) } else { None },
                    momentum: if o.momentum > 0.0 { Some(ps.buffer(OP, i, "momentum_buffer", p)?) } else { None },
                }),
            });
        }
        self.groups.restore_lrs(OP, s)?;
        self.state = next;
        Ok(())
    }
}
