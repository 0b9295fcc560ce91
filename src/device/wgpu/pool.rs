//! The caching allocator: buffers come in size classes and return to a free list when their
//! tensor drops, so steady-state work allocates nothing from the driver. `empty_cache` hands the
//! free list back. Also `WgpuStorage`, a tensor's buffer, and uploads.

use std::collections::HashMap;
use std::sync::Arc;

use super::{lock, WgpuDevice};
use crate::device::memory::size_class;
use crate::dtype::{CpuData, DType};
use crate::error::{Error, Result};

/// Free buffers by size class.
#[derive(Default)]
pub(crate) struct Pool {
    free: HashMap<u64, Vec<wgpu::Buffer>>,
    /// Mappable readback buffers, unmapped, by size class (at most [`STAGING_KEEP`] of them):
    /// a new one per readback cost the driver's allocation and zero-fill of the whole buffer
    /// each time (16 MB read back in 23 ms on Dawn/lavapipe where TF.js, which pools them, took
    /// 9). Not tensor memory, so not in the memory stats.
    staging: Vec<(u64, wgpu::Buffer)>,
}

/// Readback buffers kept for reuse; the oldest goes first.
const STAGING_KEEP: usize = 4;

/// A tensor's elements in one pooled wgpu buffer; the buffer returns to the pool on drop.
pub(crate) struct WgpuStorage {
    buffer: wgpu::Buffer,
    class: u64,
    dtype: DType,
    dev: Arc<WgpuDevice>,
}

impl WgpuStorage {
    pub(crate) fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    pub(crate) fn device(&self) -> &Arc<WgpuDevice> {
        &self.dev
    }

    pub(crate) fn dtype(&self) -> DType {
        self.dtype
    }

    /// The bytes of its pooled buffer (the size class).
    pub(crate) fn held_bytes(&self) -> u64 {
        self.class
    }
}

impl Drop for WgpuStorage {
    fn drop(&mut self) {
        // wgpu buffers are reference-counted handles: the pool keeps one, this one drops.
        self.dev.stats.on_free(self.class, false);
        lock(&self.dev.pool).free.entry(self.class).or_default().push(self.buffer.clone());
    }
}

impl WgpuDevice {
    /// A buffer for `len` elements of `dtype`, from the pool when one is free.
    pub(crate) fn alloc(self: &Arc<Self>, len: usize, dtype: DType) -> Result<WgpuStorage> {
        let bytes = (len as u64).saturating_mul(dtype.gpu_size_in_bytes() as u64).next_multiple_of(4);
        // Buffers may exceed one binding: ops that can split bind ranges (see split.rs).
        let limit = self.limits.max_buffer_size;
        if bytes > limit {
            return Err(Error::TooLarge {
                op: "alloc",
                device: self.name(),
                bytes,
                limit_name: "max_buffer_size",
                limit,
            });
        }
        // A tensor that fits one binding gets a block that does too (its class might not).
        let binding = self.limits.max_storage_buffer_binding_size;
        let mut class = size_class(bytes);
        if class > limit || (class > binding && bytes <= binding) {
            class = bytes.max(4);
        }
        if lock(&self.lost).is_some() {
            self.ensure_alive()?;
        }
        let reused = lock(&self.pool).free.get_mut(&class).and_then(|v| v.pop());
        let fresh = reused.is_none();
        let buffer = match reused {
            Some(b) => b,
            None => self.create_block(class)?,
        };
        // A fresh block was counted in `reserved` by create_block's reservation already.
        let _ = fresh;
        self.stats.on_alloc(class, false);
        Ok(WgpuStorage { buffer, class, dtype, dev: self.clone() })
    }

    /// Reserves a new block from the driver, within the memory limit: a request that would pass
    /// it first returns the cache, then fails. Natively the driver's own out-of-memory is caught
    /// with an error scope and handled the same way (on the web it arrives through the
    /// uncaptured-error handler at the next synchronize).
    fn create_block(&self, class: u64) -> Result<wgpu::Buffer> {
        self.ensure_alive()?;
        const LIMIT: &str = "the memory limit set with set_memory_limit would be passed";
        if !self.stats.try_reserve(class) {
            self.empty_cache();
            if !self.stats.try_reserve(class) {
                return Err(self.stats.oom(self.name(), class, LIMIT));
            }
        }
        let create = || {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("tensor"),
                size: class,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        #[cfg(not(target_arch = "wasm32"))]
        {
            let scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
            let buffer = create();
            if crate::block::block_on(scope.pop()).is_none() {
                return Ok(buffer);
            }
            // The driver is out of memory: return the cache and try once more. wgpu frees a
            // dropped buffer only once the GPU is done with it, so wait for that first.
            self.empty_cache();
            self.flush();
            let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
            let scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
            let buffer = create();
            match crate::block::block_on(scope.pop()) {
                None => Ok(buffer),
                Some(e) => {
                    self.stats.unreserve(class);
                    Err(self.stats.oom(self.name(), class, &format!("the device refused: {e}")))
                }
            }
        }
        #[cfg(target_arch = "wasm32")]
        {
            Ok(create())
        }
    }

    /// Copies host data into a new buffer.
    pub(crate) fn upload_data(self: &Arc<Self>, data: &CpuData) -> Result<WgpuStorage> {
        self.check_f16_storage(data.dtype())?;
        let s = self.alloc(data.len(), data.dtype())?;
        let mut bytes = data.to_gpu_bytes();
        if !bytes.is_empty() {
            bytes.resize(bytes.len().next_multiple_of(4), 0);
            // `write_buffer` lands before the *next* submission, so commands already recorded
            // (which may read a recycled buffer's old contents) must be submitted first.
            self.flush();
            self.write_bytes(s.buffer(), bytes);
        }
        Ok(s)
    }

    /// Storing f16 needs no shader; without shader-f16 only soft placement can run ops on it
    /// (on the CPU), so strict mode refuses an f16 upload, early and clearly.
    pub(crate) fn check_f16_storage(&self, dtype: DType) -> Result<()> {
        if dtype == DType::F16 && !self.f16 && !crate::device::placement::soft_device_placement() {
            return Err(Error::UnsupportedDType {
                op: "to",
                dtype: DType::F16,
                reason: format!(
                    "{} ({}) lacks the shader-f16 feature; use f32 or the cpu device",
                    self.name(),
                    self.info.name
                ),
            });
        }
        Ok(())
    }

    /// Returns every cached block to the driver; live tensors keep theirs.
    pub(crate) fn empty_cache(&self) {
        lock(&self.pool).staging.clear();
        let free = std::mem::take(&mut lock(&self.pool).free);
        let bytes: u64 = free.iter().map(|(class, v)| class * v.len() as u64).sum();
        drop(free);
        self.stats.on_release(bytes);
        // Natively wgpu frees dropped buffers during a poll; make it happen now for those the
        // GPU is done with (a browser frees them by itself).
        #[cfg(not(target_arch = "wasm32"))]
        let _ = self.device.poll(wgpu::PollType::Poll);
    }

    /// A mappable buffer of at least `size` bytes to read back through, from the pool when one
    /// of the right class is free. Give it back, unmapped, with [`WgpuDevice::return_staging`].
    pub(crate) fn staging(&self, size: u64) -> wgpu::Buffer {
        let class = size_class(size);
        let mut pool = lock(&self.pool);
        if let Some(i) = pool.staging.iter().position(|(c, _)| *c == class) {
            return pool.staging.remove(i).1;
        }
        drop(pool);
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: class,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Takes back an unmapped readback buffer from [`WgpuDevice::staging`].
    pub(crate) fn return_staging(&self, buffer: wgpu::Buffer) {
        let mut pool = lock(&self.pool);
        if pool.staging.len() >= STAGING_KEEP {
            pool.staging.remove(0);
        }
        pool.staging.push((buffer.size(), buffer));
    }
}
