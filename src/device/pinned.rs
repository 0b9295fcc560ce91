//! Pinned copies of CPU tensors (`Tensor::pin_memory`): page-locked host memory for CUDA, a
//! mapped staging buffer for wgpu. The CPU storage holds one
//! through this trait, so the CPU backend knows nothing of the backend that made it; the backend
//! that made it (CUDA) takes it back by downcasting when the tensor is uploaded to its device.

use std::any::Any;

use super::Device;
use crate::error::{Error, Result};

/// A tensor's bytes laid out as `device` stores them, where that device's uploads read them
/// with no host copy first (a DMA from page-locked memory, or a buffer copy on the queue).
pub(crate) trait PinnedHost: Send + Sync {
    /// The device whose transfers the block serves.
    fn device(&self) -> Device;
    /// The concrete block, for the backend that made it.
    fn as_any(&self) -> &dyn Any;
}

/// `pinned` as the block type `T` of the backend uploading it (the storage layer only sends a
/// tensor down the pinned path to the device that pinned it, so another type is a bug).
pub(crate) fn block_of<T: 'static>(pinned: &dyn PinnedHost) -> Result<&T> {
    pinned
        .as_any()
        .downcast_ref::<T>()
        .ok_or_else(|| Error::invalid("to", "internal: a pinned block from another backend"))
}
