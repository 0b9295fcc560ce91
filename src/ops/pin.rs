//! `pin_memory` / `is_pinned` (PyTorch's): a CPU tensor copied into page-locked host memory, so
//! that `to(cuda, non_blocking)` is one DMA from it with no host copy first.
//!
//! What pinning means depends on the backend. CUDA (feature `cuda`, a device present): the
//! tensor keeps its ordinary CPU storage for CPU ops and gains a page-locked copy laid out as
//! `cuda:0` stores it; uploads to `cuda:0` read that copy directly, and a `non_blocking` upload
//! returns as soon as the DMA is queued (the copy is held until it has run, even if the tensor is
//! dropped). WebGPU has no page-locked memory to offer (`write_buffer` copies into the
//! implementation's own staging), so without a CUDA device `pin_memory` returns a contiguous copy
//! and `is_pinned` is false.

use crate::device::{is_available, Device, DeviceKind};
use crate::error::{Error, Result};
use crate::storage::Storage;
use crate::tensor::Tensor;

impl Tensor {
    /// A copy of this CPU tensor in page-locked host memory for `cuda:0`'s uploads (see the
    /// module docs for what that means without CUDA). Gradients flow through it as through a
    /// copy. Other devices' tensors are an error.
    pub fn pin_memory(&self) -> Result<Tensor> {
        let data = self.storage().cpu_contiguous(self.layout()).ok_or_else(|| {
            Error::invalid(
                "pin_memory",
                format!(
                    "only CPU tensors can be pinned (page-locked host memory), this one is on {}; it is already \
                     where uploads go",
                    self.device()
                ),
            )
        })??;
        let target = is_available(DeviceKind::Cuda).then(|| Device::cuda(0));
        let storage = Storage::pinned_cpu(data, target).map_err(|e| e.in_op("pin_memory"))?;
        Ok(Tensor::moved(storage, self.shape(), self.dtype(), Device::CPU, self))
    }

    /// Whether this tensor is a CPU tensor with a page-locked copy (made by
    /// [`Tensor::pin_memory`] where a CUDA device exists).
    pub fn is_pinned(&self) -> bool {
        self.storage().is_pinned()
    }
}
