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
        if let Some(m) = o.momentum {
            if !(0.0..=1.0).contains(&m) {
                return Err(Error::invalid(name, format!("momentum must be in [0, 1] (or None), got {m}")));
            }
        }
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
        if !self.ranks.contains(&x.rank()) {
            let want: Vec<String> = self.ranks.iter().map(|r| format!("{r}-d")).collect();
            return Err(Error::invalid(
                self.name,
                format!("expected {} input [N, C, ...], got shape {:?}", want.join(" or "), x.shape()),
            ));
        }
        let training = self.core.is_training();
        let (w, b) = (self.weight.as_ref().map(Parameter::tensor), self.bias.as_ref().map(Parameter::tensor));
        let (rm, rv) = match &self.running {
            Some(r) => (Some(r.mean.tensor()), Some(r.var.tensor())),
            None => (None, None),
        };
        let batch_stats = training || self.running.is_none();
        let (y, stats) =
            batch_norm_with_stats(x, rm.as_ref(), rv.as_ref(), w.as_ref(), b.as_ref(), batch_stats, self.eps)?;
        if let (true, Some(r), Some((mean, var))) = (training, &self.running, stats) {
            self.update(r, &mean, &var, x.numel() / x.shape()[1].max(1))?;
        }
        Ok(y)
    }

    /// `running = running + f * (batch - running)` for the batch's mean and unbiased variance
    /// (from its biased `var` over `per` values a channel), where `f` is the momentum or
    /// `1 / num_batches_tracked`. No readback: the cumulative factor is a tensor.
    fn update(&self, r: &Running, mean: &Tensor, var: &Tensor, per: usize) -> Result<()> {
        let _no_grad = crate::autograd::no_grad();
        let (mean, var) = (mean.detach(), var.detach());
        let unbiased = var.mul_scalar(per as f64 / (per as f64 - 1.0))?;
        let batches = r.batches.tensor().add_scalar(1.0)?;
        let blend = |old: Tensor, new: Tensor| -> Result<Tensor> {
            let step = new.sub(&old)?;
            let step = match self.momentum {
                Some(m) => step.mul_scalar(m)?,
                None => step.div(&batches.to_dtype(DType::F32)?)?,
            };
            old.add(&step)
        };
        let (m, v) = (blend(r.mean.tensor(), mean)?, blend(r.var.tensor(), unbiased)?);
        r.mean.set(&m)?;
        r.var.set(&v)?;
        r.batches.set(&batches)
    }
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
    BatchNorm1d, &[2, 3]
}
batch_norm_module! {
    /// Batch normalisation of `[N, C, H, W]` input.
    BatchNorm2d, &[4]
}
