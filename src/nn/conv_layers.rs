//! Convolution and pooling as modules, for `Sequential` CNNs: `Conv1d`, `Conv2d` (PyTorch's
//! parameter names, shapes and default initialisation: uniform in ±1/sqrt(fan_in) for weight
//! and bias, fan_in = in_channels / groups * kernel size), `MaxPool2d`, `AvgPool2d`,
//! `AdaptiveAvgPool2d` and `Flatten`. Forward passes call the functional forms.

use super::conv::{conv_nd, ConvOptions};
use super::linear::uniform;
use super::pool::{adaptive_avg_pool2d, avg_pool2d, max_pool2d, AvgPoolOptions, MaxPoolOptions};
use super::{Module, ModuleCore, Parameter};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Options of [`Conv1d::new`] and [`Conv2d::new`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvLayerOptions {
    /// Stride, padding, dilation and groups.
    pub conv: ConvOptions,
    /// Whether to learn an additive bias (default true).
    pub bias: bool,
    /// Seed of the initial values (random when `None`).
    pub seed: Option<u64>,
    /// Where the parameters are made (the default device when `None`).
    pub device: Option<Device>,
}

impl Default for ConvLayerOptions {
    fn default() -> Self {
        ConvLayerOptions { conv: ConvOptions::default(), bias: true, seed: None, device: None }
    }
}

/// A convolution layer over 1 or 2 spatial dims.
struct ConvLayer {
    core: ModuleCore,
    weight: Parameter,
    bias: Option<Parameter>,
    conv: ConvOptions,
    dims: usize,
}

impl ConvLayer {
    fn new(
        op: &'static str,
        dims: usize,
        cin: usize,
        cout: usize,
        kernel: &[usize],
        o: ConvLayerOptions,
    ) -> Result<Self> {
        let kernel = super::window::per_dim(op, "kernel_size", kernel, dims)?;
        let g = o.conv.groups;
        if g == 0 || !cin.is_multiple_of(g) || !cout.is_multiple_of(g) {
            return Err(Error::invalid(
                op,
                format!("{g} groups must divide in_channels ({cin}) and out_channels ({cout})"),
            ));
        }
        let mut shape = vec![cout, cin / g];
        shape.extend(&kernel);
        let fan_in: usize = shape[1..].iter().product();
        let bound = 1.0 / (fan_in.max(1) as f64).sqrt();
        let seed2 = o.seed.map(|s| s.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1));
        let core = ModuleCore::new();
        let weight = core.register_parameter("weight", &uniform(&shape, bound, o.seed, o.device)?)?;
        let bias = if o.bias {
            Some(core.register_parameter("bias", &uniform(&[cout], bound, seed2, o.device)?)?)
        } else {
            None
        };
        Ok(ConvLayer { core, weight, bias, conv: o.conv, dims })
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let b = self.bias.as_ref().map(Parameter::tensor);
        let op = if self.dims == 1 { "conv1d" } else { "conv2d" };
        conv_nd(op, self.dims, x, &self.weight.tensor(), b.as_ref(), &self.conv)
    }
}

macro_rules! conv_layer {
    ($(#[$doc:meta])* $name:ident, $dims:expr, $op:expr) => {
        $(#[$doc])*
        pub struct $name(ConvLayer);

        impl $name {
            /// A layer from `in_channels` to `out_channels` with `kernel_size` (one value for
            /// every spatial dim or one per dim).
            pub fn new(in_channels: usize, out_channels: usize, kernel_size: &[usize], options: ConvLayerOptions) -> Result<$name> {
                Ok($name(ConvLayer::new($op, $dims, in_channels, out_channels, kernel_size, options)?))
            }

            /// The `[out, in / groups, kernel..]` weight.
            pub fn weight(&self) -> &Parameter {
                &self.0.weight
            }

            /// The bias, if the layer has one.
            pub fn bias(&self) -> Option<&Parameter> {
                self.0.bias.as_ref()
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

conv_layer!(
    /// 1-D convolution of `[N, C, L]` input (PyTorch's `nn.Conv1d`).
    Conv1d, 1, "Conv1d"
);
conv_layer!(
    /// 2-D convolution of `[N, C, H, W]` input (PyTorch's `nn.Conv2d`).
    Conv2d, 2, "Conv2d"
);

macro_rules! pool_module {
    ($(#[$doc:meta])* $name:ident, $options:ty, $forward:ident) => {
        $(#[$doc])*
        pub struct $name {
            core: ModuleCore,
            kernel: Vec<usize>,
            options: $options,
        }

        impl $name {
            /// Pooling over `kernel_size` windows.
            pub fn new(kernel_size: &[usize], options: $options) -> $name {
                $name { core: ModuleCore::new(), kernel: kernel_size.to_vec(), options }
            }
        }

        impl Module for $name {
            fn core(&self) -> &ModuleCore {
                &self.core
            }
            fn forward(&self, x: &Tensor) -> Result<Tensor> {
                $forward(x, &self.kernel, &self.options)
            }
        }
    };
}

pool_module!(
    /// 2-D max pooling as a module (PyTorch's `nn.MaxPool2d`).
    MaxPool2d, MaxPoolOptions, max_pool2d
);
pool_module!(
    /// 2-D average pooling as a module (PyTorch's `nn.AvgPool2d`).
    AvgPool2d, AvgPoolOptions, avg_pool2d
);

/// 2-D adaptive average pooling as a module (PyTorch's `nn.AdaptiveAvgPool2d`).
pub struct AdaptiveAvgPool2d {
    core: ModuleCore,
    output_size: Vec<usize>,
}

impl AdaptiveAvgPool2d {
    /// Pooling to `output_size` (one value for both dims or one per dim).
    pub fn new(output_size: &[usize]) -> AdaptiveAvgPool2d {
        AdaptiveAvgPool2d { core: ModuleCore::new(), output_size: output_size.to_vec() }
    }
}

impl Module for AdaptiveAvgPool2d {
    fn core(&self) -> &ModuleCore {
        &self.core
    }
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        adaptive_avg_pool2d(x, &self.output_size)
    }
}

/// Flattens dims `start_dim..=end_dim` into one (PyTorch's `nn.Flatten`; defaults 1 and -1,
/// keeping the batch dim).
pub struct Flatten {
    core: ModuleCore,
    start_dim: isize,
    end_dim: isize,
}

impl Flatten {
    /// Flattens `start_dim..=end_dim`.
    pub fn new(start_dim: isize, end_dim: isize) -> Flatten {
        Flatten { core: ModuleCore::new(), start_dim, end_dim }
    }
}

impl Default for Flatten {
    fn default() -> Self {
        Flatten::new(1, -1)
    }
}

impl Module for Flatten {
    fn core(&self) -> &ModuleCore {
        &self.core
    }
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let rank = x.rank().max(1);
        let s = crate::shape::normalize_dim("Flatten", self.start_dim, rank)?;
        let e = crate::shape::normalize_dim("Flatten", self.end_dim, rank)?;
        if s > e {
            return Err(Error::invalid("Flatten", format!("start_dim {s} comes after end_dim {e}")));
        }
        if x.rank() == 0 || s == e {
            return Ok(x.clone());
        }
        let mut shape: Vec<isize> = x.shape()[..s].iter().map(|&v| v as isize).collect();
        shape.push(x.shape()[s..=e].iter().product::<usize>() as isize);
        shape.extend(x.shape()[e + 1..].iter().map(|&v| v as isize));
        x.reshape(&shape)
    }
}
