//! Page-locked host copies of CPU tensors (`Tensor::pin_memory`). The CPU storage holds one
//! through this trait, so the CPU backend knows nothing of the backend that made it; the backend
//! that made it (CUDA) takes it back by downcasting when the tensor is uploaded to its device.

use std::any::Any;

use super::Device;

/// A tensor's bytes in page-locked host memory, laid out as `device` stores them, so an upload
/// is one DMA from this block with no host copy first.
pub(crate) trait PinnedHost: Send + Sync {
    /// The device whose transfers the block serves.
    fn device(&self) -> Device;
    /// The concrete block, for the backend that made it (only CUDA makes any: without the
    /// feature nothing calls this).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    fn as_any(&self) -> &dyn Any;
}
