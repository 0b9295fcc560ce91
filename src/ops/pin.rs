//! `pin_memory` / `is_pinned` (PyTorch's): a CPU tensor with a copy of its bytes placed where a
//! device's uploads read them directly, so `to(device)` does no host copy.
//!
//! What pinning means per backend. CUDA: page-locked host memory (from the device's staging
//! pool), laid out as the device stores the tensor; `to(cuda, non_blocking)` is one DMA from it
//! and returns once queued, the block held until the DMA has run even if the tensor is dropped.
//! wgpu (WebGPU, natively and in browsers): there is no page-locked memory to ask for; the bytes
//! go into a staging buffer through its mapping at creation, and `to(webgpu)` is a
//! buffer-to-buffer copy on the device's queue. Either way the tensor keeps its ordinary CPU
//! storage for CPU ops; the pinned copy is extra memory, outside the CPU's memory counters.

use crate::device::{devices, is_available, Device, DeviceKind};
use crate::error::{Error, Result};
use crate::storage::Storage;
use crate::tensor::Tensor;

impl Tensor {
    /// A copy of this CPU tensor pinned for the GPU uploads are likeliest to go to: `cuda:0`
    /// where CUDA exists, else the first WebGPU device, else none (a plain contiguous copy,
    /// `is_pinned` false). [`Tensor::pin_memory_for`] names the device. Gradients flow through
    /// it as through a copy.
    pub fn pin_memory(&self) -> Result<Tensor> {
        let target = if is_available(DeviceKind::Cuda) {
            Some(Device::cuda(0))
        } else {
            devices().into_iter().map(|i| i.device).find(|d| d.kind() == DeviceKind::WebGpu)
        };
        self.pinned("pin_memory", target)
    }

    /// A copy of this CPU tensor pinned for `device`'s uploads (for the CPU or the meta
    /// device, or one not open yet, a plain contiguous copy).
    pub fn pin_memory_for(&self, device: Device) -> Result<Tensor> {
        self.pinned("pin_memory_for", Some(device))
    }

    fn pinned(&self, op: &'static str, target: Option<Device>) -> Result<Tensor> {
        let data = self.storage().cpu_contiguous(self.layout()).ok_or_else(|| {
            Error::invalid(
                op,
                format!(
                    "only CPU tensors can be pinned, this one is on {}; it is already where uploads go",
                    self.device()
                ),
            )
        })??;
        let storage = Storage::pinned_cpu(data, target).map_err(|e| e.in_op(op))?;
        Ok(Tensor::moved(storage, self.shape(), self.dtype(), Device::CPU, self))
    }

    /// Whether this is a CPU tensor with a pinned copy (see [`Tensor::pin_memory`]).
    pub fn is_pinned(&self) -> bool {
        self.storage().is_pinned()
    }
}
