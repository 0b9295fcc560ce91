//! Activations as modules (`ReLU`, `GELU`, `SiLU`, `Tanh`, `Sigmoid`, and `PReLU` with its
//! learned slopes), for `Sequential`.

use super::{Module, ModuleCore, Parameter};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

macro_rules! activation {
    ($($(#[$doc:meta])* $name:ident => $method:ident),* $(,)?) => {
        $(
            $(#[$doc])*
            #[derive(Default)]
            pub struct $name {
                core: ModuleCore,
            }

            impl $name {
                /// The activation module.
                pub fn new() -> $name {
                    $name { core: ModuleCore::new() }
                }
            }

            impl Module for $name {
                fn core(&self) -> &ModuleCore {
                    &self.core
                }
                fn forward(&self, x: &Tensor) -> Result<Tensor> {
                    x.$method()
                }
            }
        )*
    };
}

activation! {
    /// `max(x, 0)`.
    ReLU => relu,
    /// GELU, exact (erf) form as PyTorch's default.
    GELU => gelu,
    /// `x * sigmoid(x)`.
    SiLU => silu,
    /// Hyperbolic tangent.
    Tanh => tanh,
    /// Logistic sigmoid.
    Sigmoid => sigmoid,
}

/// PyTorch's `nn.PReLU`: `x` where positive, `weight * x` elsewhere, with a learned `weight` of
/// `num_parameters` slopes (1, shared by every channel, or one per channel of dim 1), each
/// starting at `init` (PyTorch's defaults: 1 and 0.25).
pub struct PReLU {
    core: ModuleCore,
    weight: Parameter,
}

impl PReLU {
    /// The module with `num_parameters` slopes of `init` on `device` (the default device when
    /// `None`).
    pub fn new(num_parameters: usize, init: f64, device: Option<Device>) -> Result<PReLU> {
        let core = ModuleCore::new();
        let w = Tensor::full(&[num_parameters], init, DType::F32, device)?;
        let weight = core.register_parameter("weight", &w)?;
        Ok(PReLU { core, weight })
    }

    /// The `[num_parameters]` slopes.
    pub fn weight(&self) -> &Parameter {
        &self.weight
    }
}

impl Module for PReLU {
    fn core(&self) -> &ModuleCore {
        &self.core
    }
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        x.prelu(&self.weight.tensor())
    }
}
