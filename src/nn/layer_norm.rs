//! `LayerNorm` and `GroupNorm` modules: learned per-element (per-channel for groups) scale
//! and shift around [`super::layer_norm`] and [`super::group_norm`], initialised to ones and
//! zeros as PyTorch's.

use super::{group_norm, layer_norm, Module, ModuleCore, Parameter};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// Options of [`LayerNorm::new`] and [`GroupNorm::new`].
#[derive(Debug, Clone, Copy)]
pub struct NormOptions {
    /// Added to the variance (default 1e-5).
    pub eps: f64,
    /// Whether to learn a scale (`weight`) and shift (`bias`) (default true; PyTorch's
    /// `elementwise_affine` / `affine`).
    pub affine: bool,
    /// Whether the shift is learned when `affine` (default true).
    pub bias: bool,
    /// Where the parameters are made (the default device when `None`).
    pub device: Option<Device>,
}

impl Default for NormOptions {
    fn default() -> Self {
        NormOptions { eps: 1e-5, affine: true, bias: true, device: None }
    }
}

/// Registers `weight` (ones) and `bias` (zeros) of `shape` as the options say.
pub(crate) fn affine_params(
    core: &ModuleCore,
    shape: &[usize],
    affine: bool,
    bias: bool,
    device: Option<Device>,
) -> Result<(Option<Parameter>, Option<Parameter>)> {
    if !affine {
        return Ok((None, None));
    }
    let w = core.register_parameter("weight", &Tensor::ones(shape, DType::F32, device)?)?;
    let b =
        if bias { Some(core.register_parameter("bias", &Tensor::zeros(shape, DType::F32, device)?)?) } else { None };
    Ok((Some(w), b))
}

/// Normalises over the trailing `normalized_shape` dims of its input.
pub struct LayerNorm {
    core: ModuleCore,
    shape: Vec<usize>,
    eps: f64,
    weight: Option<Parameter>,
    bias: Option<Parameter>,
}

impl LayerNorm {
    /// A layer over the trailing dims `normalized_shape` (e.g. `&[512]`).
    pub fn new(normalized_shape: &[usize], options: NormOptions) -> Result<LayerNorm> {
        let core = ModuleCore::new();
        let (weight, bias) = affine_params(&core, normalized_shape, options.affine, options.bias, options.device)?;
        Ok(LayerNorm { core, shape: normalized_shape.to_vec(), eps: options.eps, weight, bias })
    }
}

impl Module for LayerNorm {
    fn core(&self) -> &ModuleCore {
        &self.core
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let (w, b) = (self.weight.as_ref().map(Parameter::tensor), self.bias.as_ref().map(Parameter::tensor));
        layer_norm(x, &self.shape, w.as_ref(), b.as_ref(), self.eps)
    }
}

/// Normalises `[N, C, *]` input over groups of channels.
pub struct GroupNorm {
    core: ModuleCore,
    groups: usize,
    eps: f64,
    weight: Option<Parameter>,
    bias: Option<Parameter>,
}

impl GroupNorm {
    /// `num_groups` groups over `num_channels` channels (which they must divide).
    pub fn new(num_groups: usize, num_channels: usize, options: NormOptions) -> Result<GroupNorm> {
        if num_groups == 0 || !num_channels.is_multiple_of(num_groups) {
            return Err(crate::error::Error::invalid(
                "GroupNorm",
                format!("num_channels ({num_channels}) must be divisible by num_groups ({num_groups})"),
            ));
        }
        let core = ModuleCore::new();
        let (weight, bias) = affine_params(&core, &[num_channels], options.affine, options.bias, options.device)?;
        Ok(GroupNorm { core, groups: num_groups, eps: options.eps, weight, bias })
    }
}

impl Module for GroupNorm {
    fn core(&self) -> &ModuleCore {
        &self.core
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let (w, b) = (self.weight.as_ref().map(Parameter::tensor), self.bias.as_ref().map(Parameter::tensor));
        group_norm(x, self.groups, w.as_ref(), b.as_ref(), self.eps)
    }
}
