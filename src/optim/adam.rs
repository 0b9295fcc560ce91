//! Adam and AdamW with PyTorch's formulas (its default, non-fused implementation, so that
//! losses match step for step): `m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
//! p -= (lr / (1 - b1^t)) m / (sqrt(v) / sqrt(1 - b2^t) + eps)`. Adam's weight decay is an L2
//! term added to `g`; AdamW's is decoupled: `p *= 1 - lr wd` first. A step is fused
//! (`fused.rs`: several parameters a kernel), or the same formula as separate ops where that
//! cannot run.

use super::groups::{group_methods, Groups, HasLr, ParamGroup};
use super::{check_hyper, fused, prepare, Optimizer, OptimizerState, ParamState};
use crate::error::{Error, Result};
use crate::nn::Parameter;
use crate::op::optim::OptimStep;
use crate::tensor::Tensor;

/// Options of [`Adam::new`] and [`AdamW::new`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdamOptions {
    /// Learning rate.
    pub lr: f64,
    /// Decay rates of the first and second moment estimates.
    pub betas: (f64, f64),
    /// Added to the denominator for stability.
    pub eps: f64,
    /// Weight decay (L2 for Adam, decoupled for AdamW).
    pub weight_decay: f64,
    /// Fused kernels on every device (default true; several parameters a launch); false runs the update as
    /// separate elementwise ops, as PyTorch's for-loop implementation does.
    pub fused: bool,
}

impl Default for AdamOptions {
    fn default() -> Self {
        AdamOptions { lr: 1e-3, betas: (0.9, 0.999), eps: 1e-8, weight_decay: 0.0, fused: true }
    }
}

impl HasLr for AdamOptions {
    fn lr(&self) -> f64 {
        self.lr
    }
    fn set_lr(&mut self, lr: f64) {
        self.lr = lr;
    }
}

struct Moments {
    m: Tensor,
    v: Tensor,
    t: u32,
}

struct AdamCore {
    groups: Groups<AdamOptions>,
    state: Vec<Option<Moments>>,
    decoupled: bool,
    name: &'static str,
}

impl AdamCore {
    fn new(groups: Vec<ParamGroup<AdamOptions>>, decoupled: bool, name: &'static str) -> Result<AdamCore> {
        let check = |options: &AdamOptions| -> Result<()> {
            check_hyper(name, "lr", options.lr, 0.0, f64::MAX)?;
            check_hyper(name, "betas.0", options.betas.0, 0.0, 1.0 - f64::EPSILON)?;
            check_hyper(name, "betas.1", options.betas.1, 0.0, 1.0 - f64::EPSILON)?;
            check_hyper(name, "eps", options.eps, 0.0, f64::MAX)?;
            check_hyper(name, "weight_decay", options.weight_decay, 0.0, f64::MAX)
        };
        let groups = Groups::new(name, groups, check)?;
        let n = groups.params.len();
        Ok(AdamCore { groups, state: (0..n).map(|_| None).collect(), decoupled, name })
    }

    fn step(&mut self) -> Result<()> {
        let _g = crate::tensor::node::pause();
        let work = prepare(self.name, &self.groups.params, self.state.iter().map(|s| s.as_ref().map(|s| &s.m)))?;
        // Each parameter's state and step count, then the fused updates of all of them at once.
        let plans: Vec<_> = work
            .into_iter()
            .zip(&self.state)
            .map(|(w, slot)| {
                w.map(|(value, g)| match slot.as_ref() {
                    Some(s) => (value, g, vec![s.m.clone(), s.v.clone()], s.t + 1),
                    None => (value, g, vec![], 1),
                })
            })
            .collect();
        let items: Vec<_> = plans
            .iter()
            .enumerate()
            .map(|(i, plan)| {
                let (value, g, state, t) = plan.as_ref()?;
                let o = self.groups.of(i);
                let step = OptimStep::adam(o.lr, o.betas, o.eps, o.weight_decay, self.decoupled, *t);
                o.fused.then_some(fused::Item { step, param: value, grad: g, state })
            })
            .collect();
        let fused = fused::update_many(&items)?;
        drop(items);
        let slots = self.groups.params.iter().zip(self.state.iter_mut()).zip(plans).zip(fused);
        for (i, (((p, slot), plan), fused)) in slots.enumerate() {
            let Some((value, g, state, t)) = plan else { continue };
            let o = self.groups.of(i);
            let (next, m, v) = match fused {
                Some((next, st)) => match <[Tensor; 2]>::try_from(st) {
                    Ok([m, v]) => (next, m, v),
                    Err(_) => return Err(Error::invalid(self.name, "the fused update returned no moments")),
                },
                None => composed(&o, self.decoupled, &value, g.clone(), state, t)?,
            };
            p.replace(next, Some(g))?;
            // State lives across steps: what the lazy tier recorded runs now.
            m.realize()?;
            v.realize()?;
            *slot = Some(Moments { m, v, t });
        }
        Ok(())
    }
}

impl AdamCore {
    fn state_dict(&self) -> OptimizerState {
        let params = self
            .state
            .iter()
            .map(|s| {
                s.as_ref().map(|m| ParamState {
                    step: Some(u64::from(m.t)),
                    buffers: vec![("exp_avg".into(), m.m.clone()), ("exp_avg_sq".into(), m.v.clone())],
                })
            })
            .collect();
        let (group_lrs, initial_lrs) = self.groups.lrs();
        OptimizerState { params, group_lrs, initial_lrs }
    }

    fn load_state_dict(&mut self, s: &OptimizerState) -> Result<()> {
        let op = self.name;
        s.check(op, self.groups.params.len(), self.groups.count())?;
        let mut next = Vec::with_capacity(s.params.len());
        for (i, (ps, p)) in s.params.iter().zip(&self.groups.params).enumerate() {
            next.push(match ps {
                None => None,
                Some(ps) => {
                    let t =
                        ps.step.ok_or_else(|| Error::invalid(op, format!("the state of parameter {i} has no step")))?;
                    let t = u32::try_from(t)
                        .map_err(|_| Error::invalid(op, format!("step {t} of parameter {i} is too large")))?;
                    Some(Moments { m: ps.buffer(op, i, "exp_avg", p)?, v: ps.buffer(op, i, "exp_avg_sq", p)?, t })
                }
            });
        }
        self.groups.restore_lrs(op, s)?;
        self.state = next;
        Ok(())
    }
}

/// The update as separate ops (f16 parameters, tensors past one binding, `fused: false`): the
/// new parameter and moments.
fn composed(
    o: &AdamOptions,
    decoupled: bool,
    value: &Tensor,
    mut g: Tensor,
    state: Vec<Tensor>,
    t: u32,
) -> Result<(Tensor, Tensor, Tensor)> {
    let (b1, b2) = o.betas;
    let mut param = value.clone();
    if o.weight_decay != 0.0 {
        if decoupled {
            param = param.mul_scalar(1.0 - o.lr * o.weight_decay)?;
        } else {
            g = g.add(&value.mul_scalar(o.weight_decay)?)?;
        }
    }
    let mut state = state.into_iter();
    let (m, v) = match (state.next(), state.next()) {
        (Some(m), Some(v)) => (m, v),
        _ => (value.zeros_like()?, value.zeros_like()?),
    };
    // PyTorch's lerp form of the first moment: m + (g - m)(1 - b1).
    let m = m.add(&g.sub(&m)?.mul_scalar(1.0 - b1)?)?;
    let v = v.mul_scalar(b2)?.add(&g.square()?.mul_scalar(1.0 - b2)?)?;
    let bc1 = 1.0 - b1.powi(t as i32);
    let bc2_sqrt = (1.0 - b2.powi(t as i32)).sqrt();
    let denom = v.sqrt()?.div_scalar(bc2_sqrt)?.add_scalar(o.eps)?;
    let next = param.sub(&m.div(&denom)?.mul_scalar(o.lr / bc1)?)?;
    Ok((next, m, v))
}

macro_rules! adam_like {
    ($(#[$doc:meta])* $name:ident, $decoupled:expr) => {
        $(#[$doc])*
        pub struct $name(AdamCore);

        impl $name {
            /// An optimizer over `params` (one group).
            pub fn new(params: Vec<Parameter>, options: AdamOptions) -> Result<$name> {
                $name::with_groups(vec![ParamGroup { params, options }])
            }

            /// An optimizer over parameter groups, each with its own options (nanoGPT decays
            /// 2-D weights only: `[{ params: decay, weight_decay: 0.1 }, { params: rest, 0 }]`).
            pub fn with_groups(groups: Vec<ParamGroup<AdamOptions>>) -> Result<$name> {
                Ok($name(AdamCore::new(groups, $decoupled, stringify!($name))?))
            }
        }

        impl Optimizer for $name {
            fn step(&mut self) -> Result<()> {
                self.0.step()
            }
            group_methods!(0.groups);
            fn state_dict(&self) -> OptimizerState {
                self.0.state_dict()
            }
            fn load_state_dict(&mut self, state: &OptimizerState) -> Result<()> {
                self.0.load_state_dict(state)
            }
        }
    };
}

adam_like!(
    /// Adam (Kingma & Ba), with L2 weight decay added to the gradient.
    Adam,
    false
);
adam_like!(
    /// AdamW (Loshchilov & Hutter): Adam with decoupled weight decay (default 0.01 in PyTorch;
    /// here whatever `AdamOptions::weight_decay` says).
    AdamW,
    true
);
