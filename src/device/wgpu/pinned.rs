//! Pinned CPU tensors for wgpu devices: WebGPU has no page-locked host memory, so "pinned" here
//! is a staging buffer the tensor's bytes were written into through its mapping at creation
//! (`mapped_at_creation`, host-visible memory the driver copies from). Uploading the tensor is
//! then one buffer-to-buffer copy recorded on the device's queue, with no host copy at `to`
//! time; the host copy happened when the tensor was pinned (in a prefetching loader's worker).

use std::sync::Arc;

use super::context::WgpuDevice;
use super::pool::WgpuStorage;
use crate::device::pinned::PinnedHost;
use crate::device::Device;
use crate::dtype::{CpuData, DType};
use crate::error::{Error, Result};

/// A pinned tensor's staging buffer for one wgpu device.
struct StagedCopy {
    buffer: wgpu::Buffer,
    /// Bytes to copy (a multiple of 4, as buffer copies require).
    len: u64,
    device: Device,
}

impl PinnedHost for StagedCopy {
    fn device(&self) -> Device {
        self.device
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl WgpuDevice {
    /// `data` as this device stores it, in a new staging buffer written through its mapping.
    pub(crate) fn pin_host(self: &Arc<Self>, data: &CpuData) -> Result<Arc<dyn PinnedHost>> {
        self.ensure_alive()?;
        let mut bytes = data.to_gpu_bytes();
        bytes.resize(bytes.len().next_multiple_of(4).max(4), 0);
        let len = bytes.len() as u64;
        if len > self.limits.max_buffer_size {
            return Err(Error::TooLarge {
                op: "pin_memory",
                device: self.name(),
                bytes: len,
                limit_name: "max_buffer_size",
                limit: self.limits.max_buffer_size,
            });
        }
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("pinned tensor"),
            size: len,
            usage: wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: true,
        });
        {
            let mut view = buffer.slice(..).get_mapped_range_mut().map_err(|e| Error::Gpu {
                device: self.name(),
                msg: format!("pin_memory could not map its staging buffer: {e}"),
            })?;
            view.copy_from_slice(&bytes);
        }
        buffer.unmap();
        Ok(Arc::new(StagedCopy { buffer, len, device: self.info.device }))
    }

    /// A new buffer of `n` elements filled from a pinned tensor's staging buffer by a copy on
    /// the queue (ordered with the ops recorded before and after it). wgpu keeps the staging
    /// buffer alive until that copy has run, even if the tensor is dropped.
    pub(crate) fn upload_pinned(
        self: &Arc<Self>,
        pinned: &Arc<dyn PinnedHost>,
        n: usize,
        dtype: DType,
    ) -> Result<WgpuStorage> {
        let copy = crate::device::pinned::block_of::<StagedCopy>(pinned.as_ref())?;
        self.check_f16_storage(dtype)?;
        let s = self.alloc(n, dtype)?;
        let size = ((n * dtype.gpu_size_in_bytes()) as u64).next_multiple_of(4).min(copy.len);
        if size > 0 {
            self.with_encoder(|e| e.copy_buffer_to_buffer(&copy.buffer, 0, s.buffer(), 0, size));
        }
        Ok(s)
    }
}
