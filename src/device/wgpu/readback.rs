//! Readback: copy a tensor's bytes into a mappable staging buffer, submit, and await the map.
//! Natively the wait polls the device; on the web the browser's event loop resolves it.

use std::sync::Arc;

use super::{WgpuDevice, WgpuStorage};
use crate::dtype::CpuData;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::op::MapOp;

impl WgpuDevice {
    /// The elements of `l` over `s`, in row-major order, on the host.
    pub(crate) async fn read(self: &Arc<Self>, s: &WgpuStorage, l: &Layout) -> Result<CpuData> {
        let dtype = s.dtype();
        let n = l.numel();
        self.check()?;
        if n == 0 {
            return Ok(CpuData::from_gpu_bytes(dtype, &[], 0));
        }
        let esz = dtype.gpu_size_in_bytes();
        if dtype == crate::DType::F16 && !self.f16 && !(l.is_contiguous() && (l.offset() * esz).is_multiple_of(4)) {
            // No shader can gather f16 here: gather on the host from a raw copy.
            let host = crate::device::cpu::CpuStorage::new(self.read_raw(s).await?)?;
            return Ok(crate::device::cpu::CpuBackend.map(&host, l, MapOp::Cast, dtype)?.into_data());
        }
        let temp = self.gathered(s, l)?;
        let (buf, offset) = match &temp {
            Some(t) => (t.buffer(), 0),
            None => (s.buffer(), (l.offset() * esz) as u64),
        };
        let size = ((n * esz) as u64).next_multiple_of(4);
        let waited_from = crate::clock::now_ms();
        // The elements are made straight from the mapped range: through read_bytes they were
        // copied once more (16 MB: ~3 ms of a 27 ms round trip in Node/Dawn).
        let data = self.read_with(buf, offset, size, |bytes| CpuData::from_gpu_bytes(dtype, bytes, n)).await?;
        self.transfers.add_wait_ms(crate::clock::now_ms() - waited_from);
        Ok(data)
    }

    /// A contiguous copy of `l` over `s` made on the GPU where a copy could not read it
    /// directly (copies need 4-byte alignment: a strided view, or an f16 view at an odd
    /// offset); None where `s` can be copied from as it is, at `l`'s offset.
    pub(crate) fn gathered(self: &Arc<Self>, s: &WgpuStorage, l: &Layout) -> Result<Option<WgpuStorage>> {
        let esz = s.dtype().gpu_size_in_bytes();
        if l.is_contiguous() && (l.offset() * esz).is_multiple_of(4) {
            Ok(None)
        } else {
            self.map(s, l, MapOp::Cast, s.dtype()).map(Some)
        }
    }

    /// A pooled staging buffer that `size` bytes of `buf` from `offset` are copied into, after
    /// everything recorded so far; returned once the copy is submitted, ready to map.
    pub(crate) async fn staged(&self, buf: &wgpu::Buffer, offset: u64, size: u64) -> wgpu::Buffer {
        let staging = self.staging(size);
        self.with_encoder(|e| e.copy_buffer_to_buffer(buf, offset, &staging, 0, size));
        self.flush();
        // On the web the copy may be held behind a host step (see hold.rs): mapping before it
        // is submitted would read the staging buffer empty.
        #[cfg(target_arch = "wasm32")]
        self.host_settled().await;
        staging
    }

    /// `size` bytes of `buf` from `offset` (both multiples of 4), after everything recorded so
    /// far: one copy into a mappable staging buffer, one submission, one map.
    pub(crate) async fn read_bytes(&self, buf: &wgpu::Buffer, offset: u64, size: u64) -> Result<Vec<u8>> {
        self.read_with(buf, offset, size, <[u8]>::to_vec).await
    }

    /// As [`WgpuDevice::read_bytes`], handing the mapped bytes to `f` instead of copying them.
    pub(crate) async fn read_with<R>(
        &self,
        buf: &wgpu::Buffer,
        offset: u64,
        size: u64,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R> {
        let staging = self.staged(buf, offset, size).await;
        let out = self.map_staging(staging, size, f).await?;
        self.check()?;
        Ok(out)
    }

    /// The first `size` bytes of `buf`, copied in a submission of their own that goes to the
    /// queue now: for a host step, which runs when everything before it is submitted.
    #[cfg(target_arch = "wasm32")]
    pub(crate) async fn read_now(&self, buf: &wgpu::Buffer, size: u64) -> Result<Vec<u8>> {
        let staging = self.staging(size);
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(buf, 0, &staging, 0, size);
        self.queue.submit([encoder.finish()]);
        self.map_staging(staging, size, <[u8]>::to_vec).await
    }

    /// Maps the first `size` bytes of `staging` once the copies into it have run, hands them to
    /// `f`, and returns the buffer to the pool. Only a lost
    /// device fails it: GPU errors raised meanwhile stay for the caller's `check` (a host step
    /// must not take and misattribute them).
    async fn map_staging<R>(&self, staging: wgpu::Buffer, size: u64, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
        let (tx, rx) = futures::channel::oneshot::channel();
        staging.slice(..size).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        #[cfg(not(target_arch = "wasm32"))]
        self.wait_idle().await?;
        let mapped = rx.await;
        self.ensure_alive()?;
        let fail = |msg: String| Error::Gpu { device: self.name(), msg };
        match mapped {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(fail(format!("mapping the readback buffer failed: {e}"))),
            Err(_) => return Err(fail("the readback was cancelled (device lost?)".into())),
        }
        let out = f(&staging.slice(..size).get_mapped_range().map_err(|e| fail(format!("{e:?}")))?);
        staging.unmap();
        self.return_staging(staging);
        Ok(out)
    }
}
