//! `Linear`: `y = x W^T + b`, with PyTorch's parameter names, shapes (`weight` is
//! `[out_features, in_features]`) and default initialisation (uniform in ±1/sqrt(in_features)
//! for both, which is what kaiming_uniform with a = sqrt(5) gives), seeded.

use super::{Module, ModuleCore, Parameter};
use crate::device::Device;
use crate::error::Result;
use crate::tensor::Tensor;

/// Options of [`Linear::new`].
#[derive(Debug, Clone, Copy)]
pub struct LinearOptions {
    /// Whether to learn an additive bias (default true).
    pub bias: bool,
    /// Seed of the initial values (random when `None`).
    pub seed: Option<u64>,
    /// Where the parameters are made (the default device when `None`).
    pub device: Option<Device>,
}

impl Default for LinearOptions {
    fn default() -> Self {
        LinearOptions { bias: true, seed: None, device: None }
    }
}

/// A fully connected layer.
pub struct Linear {
    core: ModuleCore,
    weight: Parameter,
    bias: Option<Parameter>,
}

/// Uniform values in `[-bound, bound)`.
pub(crate) fn uniform(shape: &[usize], bound: f64, seed: Option<u64>, device: Option<Device>) -> Result<Tensor> {
    Tensor::rand(shape, seed, device)?.mul_scalar(2.0 * bound)?.sub_scalar(bound)
}

impl Linear {
    /// A layer from `in_features` to `out_features`.
    pub fn new(in_features: usize, out_features: usize, options: LinearOptions) -> Result<Linear> {
        let core = ModuleCore::new();
        let bound = 1.0 / (in_features.max(1) as f64).sqrt();
        // Two seeds from one, so weight and bias differ.
        let seed2 = options.seed.map(|s| s.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1));
        let weight = core.register_parameter(
            "weight",
            &uniform(&[out_features, in_features], bound, options.seed, options.device)?,
        )?;
        let bias = if options.bias {
            Some(core.register_parameter("bias", &uniform(&[out_features], bound, seed2, options.device)?)?)
        } else {
            None
        };
        Ok(Linear { core, weight, bias })
    }

    /// The `[out, in]` weight.
    pub fn weight(&self) -> &Parameter {
        &self.weight
    }

    /// The bias, if the layer has one.
    pub fn bias(&self) -> Option<&Parameter> {
        self.bias.as_ref()
    }

    /// Shares `weight` (a slot of the same `[out, in]` shape, such as an embedding's table) as
    /// this layer's weight: PyTorch's `lm_head.weight = wte.weight`. `state_dict` keeps both
    /// names; `parameters()` of a model holding both lists the slot once.
    pub fn tie_weight(&mut self, weight: &Parameter) -> Result<()> {
        self.core.set_parameter("weight", weight)?;
        self.weight = weight.clone();
        Ok(())
    }
}

impl Module for Linear {
    fn core(&self) -> &ModuleCore {
        &self.core
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        linear(x, &self.weight.tensor(), self.bias.as_ref().map(Parameter::tensor).as_ref())
    }
}

/// PyTorch's `F.linear`: `x W^T + b` for `weight` `[out, in]` and `bias` `[out]` (optional), over
/// the last dim of `x`.
pub fn linear(x: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
    match bias {
        // The bias as the product's epilogue where it can be (`addmm`).
        Some(b) => x.matmul_bias(&weight.t()?, b),
        None => x.matmul(&weight.t()?),
    }
}
