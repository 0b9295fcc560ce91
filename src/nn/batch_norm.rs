//! `BatchNorm1d` and `BatchNorm2d`: per-channel normalisation by batch statistics while
//! training and by running statistics in evaluation, as PyTorch's. The running statistics are
//! registered buffers (`running_mean`, `running_var`, `num_batches_tracked`), so they move with
//! `model.to(dev)` and are saved in the `state_dict`; they are updated from the batch's
//! (detached) statistics on every training forward, with the unbiased variance, as PyTorch does.

use super::layer_norm::affine_params;
use super::{norm::batch_norm_with_stats, Buffer, Module, ModuleCore, Parameter};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Options of [`BatchNorm1d::new`] and [`BatchNorm2d::new`].
#[derive(Debug, Clone, Copy)]
pub struct BatchNormOptions {
    /// Added to the variance (default 1e-5).
    pub eps: f64,
    /// Weight of the new batch in the running statistics (default `Some(0.1)`); `None` keeps a
    /// cumulative average (`1 / num_batches_tracked`), as PyTorch's `momentum=None`.
    pub momentum: Option<f64>,
    /// Whether to learn a per-channel scale and shift (default true).
    pub affine: bool,
    /// Whether to keep running statistics for evaluation (default true); without them the
    /// batch's statistics are used in both modes.
    pub track_running_stats: bool,
    /// Where parameters and buffers are made (the default device when `None`).
    pub device: Option<Device>,
}

impl Default for BatchNormOptions {
    fn default() -> Self {
        BatchNormOptions { eps: 1e-5, momentum: Some(0.1), affine: true, track_running_stats: true, device: None }
    }
}

/// The running statistics.
struct Running {
    mean: Buffer,
    var: Buffer,
    /// i32 here (PyTorch keeps int64); loading a PyTorch dict converts it.
    batches: Buffer,
}

/// What both BatchNorm modules share; they differ only in the input ranks they accept.
struct BatchNorm {
    core: ModuleCore,
    name: &'static str,
    ranks: &'static [usize],
    eps: f64,
    momentum: Option<f64>,
    weight: Option<Parameter>,
    bias: Option<Parameter>,
    running: Option<Running>,
}

impl BatchNorm {
    fn new(name: &'static str, ranks: &'static [usize], c: usize, o: BatchNormOptions) -> Result<BatchNorm> {
        check_momentum(name, o.momentum)?;
        let core = ModuleCore::new();
        let (weight, bias) = affine_params(&core, &[c], o.affine, true, o.device)?;
        let running = if o.track_running_stats {
            Some(Running {
                mean: core.register_buffer("running_mean", &Tensor::zeros(&[c], DType::F32, o.device)?)?,
                var: core.register_buffer("running_var", &Tensor::ones(&[c], DType::F32, o.device)?)?,
                batches: core.register_buffer("num_batches_tracked", &Tensor::zeros(&[], DType::I32, o.device)?)?,
            })
        } else {
            None
        };
        Ok(BatchNorm { core, name, ranks, eps: o.eps, momentum: o.momentum, weight, bias, running })
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        check_rank(self.name, self.ranks, x)?;
        let (w, b) = (self.weight.as_ref().map(Parameter::tensor), self.bias.as_ref().map(Parameter::tensor));
        let running = self.running.as_ref().map(|r| [r.mean.tensor(), r.var.tensor(), r.batches.tensor()]);
        let (y, updated) =
            batch_norm_forward(x, running, w.as_ref(), b.as_ref(), self.core.is_training(), self.momentum, self.eps)?;
        if let (Some(r), Some([m, v, n])) = (&self.running, updated) {
            r.mean.set(&m)?;
            r.var.set(&v)?;
            r.batches.set(&n)?;
        }
        Ok(y)
    }
}

/// The input ranks `BatchNorm1d` and `BatchNorm2d` accept.
pub(crate) const RANKS_1D: &[usize] = &[2, 3];
pub(crate) const RANKS_2D: &[usize] = &[4];

/// Fails unless `x` has one of `ranks`, naming the module.
pub(crate) fn check_rank(name: &'static str, ranks: &[usize], x: &Tensor) -> Result<()> {
    if ranks.contains(&x.rank()) {
        return Ok(());
    }
    let want: Vec<String> = ranks.iter().map(|r| format!("{r}-d")).collect();
    Err(Error::invalid(name, format!("expected {} input [N, C, ...], got shape {:?}", want.join(" or "), x.shape())))
}

/// One forward of batch normalisation as the modules run it (and the JS modules through the
/// same function): batch statistics while `training` or without `running` statistics
/// (`[mean, var, num_batches_tracked]`), the running ones otherwise. When training with
/// running statistics it also returns their new values, which the caller swaps in.
#[allow(clippy::type_complexity)]
pub(crate) fn batch_norm_forward(
    x: &Tensor,
    running: Option<[Tensor; 3]>,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    training: bool,
    momentum: Option<f64>,
    eps: f64,
) -> Result<(Tensor, Option<[Tensor; 3]>)> {
    check_momentum("batch_norm", momentum)?;
    let (rm, rv) = match &running {
        Some([m, v, _]) => (Some(m), Some(v)),
        None => (None, None),
    };
    let batch_stats = training || running.is_none();
    let (y, stats) = batch_norm_with_stats(x, rm, rv, weight, bias, batch_stats, eps)?;
    let updated = match (training, running, stats) {
        (true, Some(r), Some((mean, var))) => {
            Some(blend_running(r, &mean, &var, x.numel() / x.shape()[1].max(1), momentum)?)
        }
        _ => None,
    };
    Ok((y, updated))
}

fn check_momentum(op: &'static str, momentum: Option<f64>) -> Result<()> {
    match momentum {
        Some(m) if !(0.0..=1.0).contains(&m) => {
            Err(Error::invalid(op, format!("momentum must be in [0, 1] (or None), got {m}")))
        }
        _ => Ok(()),
    }
}

/// `running + f * (batch - running)` for the batch's mean and unbiased variance (from its
/// biased `var` over `per` values a channel), where `f` is the momentum or
/// `1 / num_batches_tracked`; and `num_batches_tracked + 1`. No readback: the cumulative factor
/// is a tensor.
fn blend_running(
    [old_mean, old_var, batches]: [Tensor; 3],
    mean: &Tensor,
    var: &Tensor,
    per: usize,
    momentum: Option<f64>,
) -> Result<[Tensor; 3]> {
    let _no_grad = crate::autograd::no_grad();
    let (mean, var) = (mean.detach(), var.detach());
    let unbiased = var.mul_scalar(per as f64 / (per as f64 - 1.0))?;
    let batches = batches.add_scalar(1.0)?;
    let blend = |old: Tensor, new: Tensor| -> Result<Tensor> {
        let step = new.sub(&old)?;
        let step = match momentum {
            Some(m) => step.mul_scalar(m)?,
            None => step.div(&batches.to_dtype(DType::F32)?)?,
        };
        old.add(&step)
    };
    Ok([blend(old_mean, mean)?, blend(old_var, unbiased)?, batches])
}

macro_rules! batch_norm_module {
    ($(#[$doc:meta])* $name:ident, $ranks:expr) => {
        $(#[$doc])*
        pub struct $name(BatchNorm);

        impl $name {
            /// A layer over `num_features` channels (dim 1 of the input).
            pub fn new(num_features: usize, options: BatchNormOptions) -> Result<$name> {
                Ok($name(BatchNorm::new(stringify!($name), $ranks, num_features, options)?))
            }
        }

        impl Module for $name {
            fn core(&self) -> &ModuleCore {
                &self.0.core
            }
            fn forward(&self, x: &Tensor) -> Result<Tensor> {
                self.0.forward(x)
            }
        }
    };
}

batch_norm_module! {
    /// Batch normalisation of `[N, C]` or `[N, C, L]` input.
    BatchNorm1d, RANKS_1D
}
batch_norm_module! {
    /// Batch normalisation of `[N, C, H, W]` input.
    BatchNorm2d, RANKS_2D
}
