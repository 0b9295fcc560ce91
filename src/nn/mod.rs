//! Neural-network building blocks, as PyTorch's `torch.nn`: `Parameter`/`Buffer` slots, the
//! `Module` trait with its registry (`module.rs`), layers (`Linear`, `Embedding`, `LayerNorm`,
//! `GroupNorm`, `BatchNorm1d/2d`, `Dropout`, `Sequential`, activation modules, `Conv1d/2d`,
//! pooling and `Flatten` in `conv_layers.rs`), the functional
//! forms (`norm.rs`, `embedding`, `dropout`, convolution in `conv.rs`, pooling in `pool.rs` over
//! the shared window geometry of `window.rs`, `attention.rs`, `interpolate.rs`), the losses (`loss.rs`) and `.safetensors`
//! checkpoints (`safetensors.rs`).
//!
//! ```
//! use webtensor::nn::{self, ClassLossOptions, Linear, LinearOptions, Module, ReLU, Sequential};
//! use webtensor::optim::{Adam, AdamOptions, Optimizer};
//! # fn main() -> webtensor::Result<()> {
//! let (x, y) = (webtensor::Tensor::randn(&[32, 64], Some(0), None)?, webtensor::Tensor::zeros(&[32], webtensor::DType::I32, None)?);
//! let dev = webtensor::best_device();
//! let model = Sequential::new()
//!     .push(Linear::new(64, 32, LinearOptions { seed: Some(1), ..Default::default() })?)?
//!     .push(ReLU::new())?
//!     .push(Linear::new(32, 10, LinearOptions { seed: Some(2), ..Default::default() })?)?;
//! model.to_blocking(dev)?; // in place: parameters and registered buffers
//! let mut opt = Adam::new(model.parameters(), AdamOptions { lr: 1e-3, ..Default::default() })?;
//! let (x, y) = (x.to_blocking(dev)?, y.to_blocking(dev)?);
//! let mut losses = vec![];
//! for _ in 0..20 {
//!     opt.zero_grad();
//!     let loss = nn::cross_entropy(&model.forward(&x)?, &y, ClassLossOptions::default())?;
//!     loss.backward()?;
//!     opt.step()?;
//!     losses.push(loss.item_blocking::<f32>()?);
//! }
//! assert!(losses[19] < losses[0]);
//! let dict = model.state_dict();
//! assert_eq!(dict[0].0, "0.weight");
//! model.load_state_dict_blocking(&dict)?;
//! # Ok(()) }
//! ```

mod activation;
mod attention;
mod attention_fused;
mod batch_norm;
mod containers;
mod conv;
mod conv_layers;
mod dropout;
mod embedding;
mod interpolate;
mod layer_norm;
mod layer_norm_fused;
mod linear;
pub mod loss;
mod loss_fused;
mod module;
pub mod norm;
mod parameter;
mod pool;
pub mod registry;
pub mod safetensors;
mod safetensors_format;
mod safetensors_json;
mod sequential;
pub mod utils;
mod window;

pub use activation::{PReLU, ReLU, SiLU, Sigmoid, Tanh, GELU};
pub use attention::{scaled_dot_product_attention, AttentionOptions};
#[cfg(target_arch = "wasm32")]
pub(crate) use batch_norm::{batch_norm_forward, check_rank, RANKS_1D, RANKS_2D};
pub use batch_norm::{BatchNorm1d, BatchNorm2d, BatchNormOptions};
pub use containers::{ModuleDict, ModuleList};
pub use conv::{conv1d, conv2d, conv_transpose1d, conv_transpose2d, ConvOptions, ConvPadding, ConvTransposeOptions};
pub use conv_layers::{AdaptiveAvgPool2d, AvgPool2d, Conv1d, Conv2d, ConvLayerOptions, Flatten, MaxPool2d};
#[cfg(target_arch = "wasm32")]
pub(crate) use dropout::call_seed;
pub use dropout::{dropout, Dropout};
pub use embedding::{embedding, Embedding, EmbeddingOptions};
pub use interpolate::{interpolate, InterpolateMode, InterpolateOptions};
pub use layer_norm::{GroupNorm, LayerNorm, NormOptions};
pub use linear::{linear, Linear, LinearOptions};
pub use loss::{
    binary_cross_entropy_with_logits, cross_entropy, l1_loss, mse_loss, nll_loss, ClassLossOptions, Reduction,
    DEFAULT_IGNORE_INDEX,
};
pub use module::{Module, ModuleCore, ModuleFuture};
pub use norm::{batch_norm, group_norm, layer_norm};
#[cfg(target_arch = "wasm32")]
pub(crate) use parameter::moved_leaf;
pub use parameter::{Buffer, Parameter};
pub use pool::{
    adaptive_avg_pool1d, adaptive_avg_pool2d, avg_pool1d, avg_pool2d, max_pool1d, max_pool1d_with_indices, max_pool2d,
    max_pool2d_with_indices, AvgPoolOptions, MaxPoolOptions,
};
#[cfg(not(target_arch = "wasm32"))]
pub use safetensors::save_safetensors_blocking;
pub use safetensors::{load_safetensors, safetensors_metadata, save_safetensors};
pub use sequential::Sequential;
