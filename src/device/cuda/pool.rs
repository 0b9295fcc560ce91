//! The caching allocator and host staging: device blocks come in the same size classes as on
//! wgpu and go back to a free list when their tensor drops; `empty_cache` returns the list to
//! the driver. Uploads and readbacks go through pooled, page-locked (pinned) host blocks, so
//! copies run at full bus speed and an upload can return before it lands (`non_blocking`).

use std::sync::Arc;

use cudarc::driver::sys::{cudaError_enum, CUdeviceptr, CUevent_flags};
use cudarc::driver::{result, CudaEvent};

use super::context::CudaDevice;
use crate::device::memory::size_class;
use crate::device::pinned::PinnedHost;
use crate::device::policy::lock;
use crate::device::Device;
use crate::dtype::{CpuData, DType};
use crate::error::{Error, Result};
use crate::layout::Layout;

/// One device allocation (`cuMemAlloc`), freed by `empty_cache`. Opened devices live as long as
/// the process (see discover.rs), so blocks still cached at exit go with the process.
pub(crate) struct Block {
    pub(super) ptr: CUdeviceptr,
}

/// A tensor's elements in one pooled device block; the block returns to the pool on drop.
pub(crate) struct CudaStorage {
    block: Option<Block>,
    class: u64,
    dtype: DType,
    dev: Arc<CudaDevice>,
}

impl CudaStorage {
    pub(crate) fn device(&self) -> &Arc<CudaDevice> {
        &self.dev
    }

    pub(crate) fn dtype(&self) -> DType {
        self.dtype
    }

    /// The bytes of its pooled block (the size class).
    pub(crate) fn held_bytes(&self) -> u64 {
        self.class
    }

    /// The device address of element `offset`.
    pub(crate) fn ptr(&self, offset: usize) -> u64 {
        self.block.as_ref().map_or(0, |b| b.ptr) + (offset * self.dtype.gpu_size_in_bytes()) as u64
    }

    /// The elements of `l`, in row-major order, on the host, through pinned staging in chunks
    /// of at most `STAGE_CHUNK` bytes (a huge tensor never needs as much page-locked memory).
    pub(crate) fn read(&self, l: &Layout) -> Result<CpuData> {
        let n = l.numel();
        if n == 0 {
            return Ok(CpuData::from_gpu_bytes(self.dtype, &[], 0));
        }
        let temp;
        let src = if l.is_contiguous() {
            self.ptr(l.offset())
        } else {
            temp = self.dev.map(self, l, crate::op::MapOp::Cast, self.dtype)?;
            temp.ptr(0)
        };
        let bytes = n * self.dtype.gpu_size_in_bytes();
        let dev = &self.dev;
        dev.bind()?;
        let chunk = bytes.min(STAGE_CHUNK);
        let mut host = dev.pinned(chunk)?;
        let mut out = Vec::with_capacity(bytes);
        let waited_from = crate::clock::now_ms();
        for start in (0..bytes).step_by(chunk) {
            let len = chunk.min(bytes - start);
            // SAFETY: `host` holds at least `len` bytes; `src + start` addresses `len` bytes of
            // a live block, and the stream orders this copy after the kernels that wrote it.
            let copied = unsafe {
                result::memcpy_dtoh_async(&mut host.as_mut_slice()[..len], src + start as u64, dev.stream.cu_stream())
            };
            copied.map_err(|e| dev.driver_error("reading back", e))?;
            // Waiting also keeps `host` alive until the copy is done, on error too.
            dev.stream.synchronize().map_err(|e| dev.driver_error("reading back", e))?;
            out.extend_from_slice(&host.as_slice()[..len]);
        }
        dev.transfers.add_wait_ms(crate::clock::now_ms() - waited_from);
        dev.return_pinned(host, None);
        Ok(CpuData::from_gpu_bytes(self.dtype, &out, n))
    }
}

impl Drop for CudaStorage {
    fn drop(&mut self) {
        self.dev.stats.on_free(self.class, false);
        if let Some(b) = self.block.take() {
            lock(&self.dev.pool).entry(self.class).or_default().push(b);
        }
    }
}

/// A page-locked host block.
pub(crate) struct Pinned {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the block is plain host memory owned by this value alone.
unsafe impl Send for Pinned {}

impl Pinned {
    fn as_slice(&self) -> &[u8] {
        // SAFETY: `ptr` is a live cuMemHostAlloc block of `len` bytes.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        // SAFETY: allocated by cuMemHostAlloc and not referenced elsewhere.
        let _ = unsafe { result::free_host(self.ptr as *mut std::ffi::c_void) };
    }
}

/// Pinned host blocks: free ones by size class, and those an asynchronous upload still reads,
/// each with the event that marks its copy done.
#[derive(Default)]
pub(crate) struct Staging {
    free: Vec<Pinned>,
    in_flight: Vec<(CudaEvent, Pinned)>,
    /// Pinned tensors' blocks an upload still reads: kept alive here even if the tensor is
    /// dropped before its copy has run.
    held: Vec<(CudaEvent, Arc<dyn PinnedHost>)>,
}

/// A pinned CPU tensor's page-locked copy for one CUDA device (`Tensor::pin_memory`). Its
/// block comes from the device's staging pool and goes back there when the tensor is dropped:
/// page-locked allocations cost milliseconds, a pool hit nothing (PyTorch caches pinned memory
/// for the same reason).
struct PinnedCopy {
    block: Option<Pinned>,
    len: usize,
    device: Device,
    pool: std::sync::Weak<CudaDevice>,
}

impl Drop for PinnedCopy {
    fn drop(&mut self) {
        // Blocks up to the staging size go back to the pool; larger ones are freed (the pool
        // keeps a few blocks, and a huge page-locked block is not worth holding).
        if let (Some(block), Some(dev)) = (self.block.take(), self.pool.upgrade()) {
            if block.len <= STAGE_CHUNK {
                dev.return_pinned(block, None);
            }
        }
    }
}

// SAFETY: the block is read only after it is filled, and only through `&self`.
unsafe impl Sync for PinnedCopy {}

impl PinnedHost for PinnedCopy {
    fn device(&self) -> Device {
        self.device
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Pinned blocks kept for reuse; more are freed on return (page-locked memory is scarce). Eight
/// covers a prefetching loader's pinned batches in flight as well as the upload staging.
const STAGING_KEEP: usize = 8;

/// The largest pinned block: bigger transfers go through it in chunks, so staging never holds
/// more than `STAGING_KEEP` such blocks.
const STAGE_CHUNK: usize = 64 << 20;

impl CudaDevice {
    /// A device block for `len` elements of `dtype`, from the pool when one is free. Past the
    /// memory limit, or when the driver runs out, the cache is emptied and the allocation
    /// retried once before it fails with `OutOfMemory`; nothing else is disturbed.
    pub(crate) fn alloc(self: &Arc<Self>, len: usize, dtype: DType) -> Result<CudaStorage> {
        let bytes = (len as u64).saturating_mul(dtype.gpu_size_in_bytes() as u64);
        let class = size_class(bytes);
        let reused = lock(&self.pool).get_mut(&class).and_then(|v| v.pop());
        let block = match reused {
            Some(b) => b,
            None => self.create_block(class)?,
        };
        self.stats.on_alloc(class, false);
        Ok(CudaStorage { block: Some(block), class, dtype, dev: self.clone() })
    }

    fn create_block(&self, class: u64) -> Result<Block> {
        const LIMIT: &str = "the memory limit set with set_memory_limit would be passed";
        if !self.stats.try_reserve(class) {
            self.empty_cache();
            if !self.stats.try_reserve(class) {
                return Err(self.stats.oom(self.name(), class, LIMIT));
            }
        }
        let malloc = || -> std::result::Result<CUdeviceptr, cudarc::driver::DriverError> {
            self.ctx.bind_to_thread()?;
            // SAFETY: a plain device allocation; the pool owns the pointer from here on.
            unsafe { result::malloc_sync(class as usize) }
        };
        let out = match malloc() {
            Err(e) if is_oom(&e) => {
                self.empty_cache();
                malloc()
            }
            other => other,
        };
        out.map(|ptr| Block { ptr }).map_err(|e| {
            self.stats.unreserve(class);
            if is_oom(&e) {
                self.stats.oom(self.name(), class, &format!("the device refused: {e}"))
            } else {
                self.driver_error("allocating device memory", e)
            }
        })
    }

    /// Returns every cached block to the driver; live tensors keep theirs.
    pub(crate) fn empty_cache(&self) {
        let free = std::mem::take(&mut *lock(&self.pool));
        if free.is_empty() {
            return;
        }
        // Queued kernels may still use a block that was freed to the pool; let them finish.
        let _ = self.ctx.bind_to_thread();
        let _ = self.stream.synchronize();
        for (class, blocks) in free {
            for b in blocks {
                // SAFETY: the block is no tensor's and no queued work uses it any more.
                let _ = unsafe { result::free_sync(b.ptr) };
                self.stats.on_release(class);
            }
        }
        lock(&self.staging).free.clear();
    }

    /// A pinned host block of at least `bytes` bytes.
    pub(super) fn pinned(&self, bytes: usize) -> Result<Pinned> {
        self.reclaim_staging();
        let want = size_class(bytes as u64) as usize;
        let mut staging = lock(&self.staging);
        if let Some(i) = staging.free.iter().position(|p| p.len >= want && p.len <= want * 2) {
            return Ok(staging.free.swap_remove(i));
        }
        drop(staging);
        // SAFETY: page-locked host memory, owned by the returned value.
        let ptr = unsafe { result::malloc_host(want, 0) }.map_err(|e| {
            if is_oom(&e) {
                Error::OutOfMemory {
                    device: "pinned host memory".into(),
                    requested: want as u64,
                    allocated: 0,
                    reserved: 0,
                    limit: None,
                    cause: format!("the driver refused page-locked memory for {}'s staging: {e}", self.name()),
                }
            } else {
                self.driver_error("allocating pinned host memory", e)
            }
        })?;
        Ok(Pinned { ptr: ptr as *mut u8, len: want })
    }

    /// Gives a staging block back: at once, or once `done` (its copy's event) has passed.
    pub(super) fn return_pinned(&self, p: Pinned, done: Option<CudaEvent>) {
        let mut staging = lock(&self.staging);
        match done {
            Some(e) => staging.in_flight.push((e, p)),
            None if staging.free.len() < STAGING_KEEP => staging.free.push(p),
            None => {}
        }
    }

    /// Moves staging blocks whose copies have finished back to the free list.
    pub(super) fn reclaim_staging(&self) {
        let mut staging = lock(&self.staging);
        let (done, pending): (Vec<_>, Vec<_>) =
            // An error (a failed context) also means the copy is no longer running.
            std::mem::take(&mut staging.in_flight).into_iter().partition(|(e, _)| e.try_is_complete().unwrap_or(true));
        staging.in_flight = pending;
        let (released, held): (Vec<_>, Vec<_>) =
            std::mem::take(&mut staging.held).into_iter().partition(|(e, _)| e.try_is_complete().unwrap_or(true));
        staging.held = held;
        for (_, p) in done {
            if staging.free.len() < STAGING_KEEP {
                staging.free.push(p);
            }
        }
        // Dropped once the lock is released: the last reference to a pinned tensor's block
        // gives it back to this pool, which takes the same lock.
        drop(staging);
        drop(released);
    }

    /// Copies host data to a new device block through pinned staging, in chunks of at most
    /// `STAGE_CHUNK` bytes through two alternating blocks. With `non_blocking` the call returns
    /// once the copy is queued (later ops on this device are ordered after it); otherwise once
    /// the data is on the device. The caller's data is never read after return either way: it
    /// is staged first.
    pub(crate) fn upload_with(self: &Arc<Self>, data: &CpuData, non_blocking: bool) -> Result<CudaStorage> {
        let s = self.alloc(data.len(), data.dtype())?;
        let bytes = data.to_gpu_bytes();
        if bytes.is_empty() {
            return Ok(s);
        }
        self.bind()?;
        let chunk = bytes.len().min(STAGE_CHUNK);
        let mut slots: [Option<(Pinned, CudaEvent)>; 2] = [None, None];
        let fail = |e| self.driver_error("uploading", e);
        let mut queue = || -> Result<()> {
            for (i, part) in bytes.chunks(chunk).enumerate() {
                let mut host = match slots[i % 2].take() {
                    Some((h, done)) => {
                        done.synchronize().map_err(fail)?;
                        h
                    }
                    None => self.pinned(chunk)?,
                };
                // The event exists before the copy is queued, so no failure can leave a queued
                // copy without one.
                let done = self.ctx.new_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING)).map_err(fail)?;
                host.as_mut_slice()[..part.len()].copy_from_slice(part);
                let slot = &mut slots[i % 2];
                // SAFETY: the block holds at least `chunk * i + part.len()` bytes; `host` stays
                // alive until `done` has passed (kept in the slot, then in return_pinned).
                let copied = unsafe {
                    result::memcpy_htod_async(
                        s.ptr(0) + (i * chunk) as u64,
                        &host.as_slice()[..part.len()],
                        self.stream.cu_stream(),
                    )
                };
                *slot = Some((host, done));
                copied.map_err(fail)?;
                if let Some((_, done)) = slot {
                    done.record(&self.stream).map_err(fail)?;
                }
            }
            Ok(())
        };
        if let Err(e) = queue() {
            // Nothing queued may still read a staging block when the slots drop.
            let _ = self.stream.synchronize();
            return Err(e);
        }
        for (host, done) in slots.into_iter().flatten() {
            if non_blocking {
                self.return_pinned(host, Some(done));
            } else {
                done.synchronize().map_err(fail)?;
                self.return_pinned(host, None);
            }
        }
        Ok(s)
    }
}

impl CudaDevice {
    /// `data` in a page-locked block (from the staging pool) laid out as this device stores
    /// it: what `Tensor::pin_memory` attaches to the CPU tensor, until the tensor is dropped.
    pub(crate) fn pin_host(self: &Arc<Self>, data: &CpuData) -> Result<Arc<dyn PinnedHost>> {
        let bytes = data.to_gpu_bytes();
        self.bind()?;
        let mut block = self.pinned(bytes.len().max(1))?;
        block.as_mut_slice()[..bytes.len()].copy_from_slice(&bytes);
        Ok(Arc::new(PinnedCopy {
            block: Some(block),
            len: bytes.len(),
            device: self.info.device,
            pool: Arc::downgrade(self),
        }))
    }

    /// A new device block of `n` elements filled straight from a pinned tensor's block: one
    /// DMA, no host copy. With `non_blocking` it returns once the copy is queued; the block is
    /// held until the copy has run.
    pub(crate) fn upload_pinned(
        self: &Arc<Self>,
        pinned: &Arc<dyn PinnedHost>,
        n: usize,
        dtype: DType,
        non_blocking: bool,
    ) -> Result<CudaStorage> {
        let copy = crate::device::pinned::block_of::<PinnedCopy>(pinned.as_ref())?;
        let (Some(block), len) = (copy.block.as_ref(), copy.len) else {
            return Err(Error::invalid("to", "internal: a pinned block already returned"));
        };
        let s = self.alloc(n, dtype)?;
        if len == 0 {
            return Ok(s);
        }
        self.bind()?;
        let fail = |e| self.driver_error("uploading a pinned tensor", e);
        let done = self.ctx.new_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING)).map_err(fail)?;
        // SAFETY: the device block holds `len` bytes (n elements as this device stores them);
        // the host block stays alive until `done` has passed (held below, or waited for).
        unsafe { result::memcpy_htod_async(s.ptr(0), &block.as_slice()[..len], self.stream.cu_stream()) }
            .map_err(fail)?;
        if let Err(e) = done.record(&self.stream) {
            // The copy is queued but has no event to hold the block by: wait for it here.
            let _ = self.stream.synchronize();
            return Err(fail(e));
        }
        if non_blocking {
            lock(&self.staging).held.push((done, pinned.clone()));
        } else {
            done.synchronize().map_err(fail)?;
        }
        Ok(s)
    }
}

/// Whether a driver error means out of memory.
fn is_oom(e: &cudarc::driver::DriverError) -> bool {
    e.0 == cudaError_enum::CUDA_ERROR_OUT_OF_MEMORY
}
