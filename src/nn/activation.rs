//! Activations as modules (`ReLU`, `GELU`, `SiLU`, `Tanh`, `Sigmoid`), for `Sequential`.

use super::{Module, ModuleCore};
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
