//! Stand-ins for a build without the `cuda` feature: the types are uninhabited, so every code
//! path that would touch a CUDA device is statically unreachable, and lookups report why.

use std::sync::Arc;

use crate::device::backend::{KernelCall, Kernels};
use crate::device::memory::MemoryStats;
use crate::device::transfer::TransferStats;
use crate::device::DeviceInfo;
use crate::dtype::{CpuData, DType};
use crate::error::Result as LibResult;
use crate::layout::Layout;

/// A CUDA device; none can exist in this build.
pub(crate) enum CudaDevice {}

/// A tensor's elements on a CUDA device; none can exist in this build.
pub(crate) enum CudaStorage {}

/// No CUDA devices in this build.
pub(crate) fn infos() -> Vec<DeviceInfo> {
    Vec::new()
}

/// No CUDA devices in this build.
pub(crate) fn count() -> usize {
    0
}

/// Why `cuda:N` cannot be used.
pub(crate) fn unavailable_reason(_ordinal: usize) -> String {
    "CUDA support is not built into this version of webtensor (rebuild with the cargo feature `cuda`)".into()
}

/// Never succeeds: the error says why.
pub(crate) fn get(ordinal: usize) -> Result<Arc<CudaDevice>, String> {
    Err(unavailable_reason(ordinal))
}

impl CudaDevice {
    pub(crate) fn launches(&self) -> u64 {
        match *self {}
    }
    pub(crate) fn stats(&self) -> &MemoryStats {
        match *self {}
    }
    pub(crate) fn transfers(&self) -> &TransferStats {
        match *self {}
    }
    pub(crate) fn empty_cache(&self) {
        match *self {}
    }
    pub(crate) fn synchronize(&self) -> LibResult<()> {
        match *self {}
    }
    pub(crate) fn upload_with(&self, _data: &CpuData, _non_blocking: bool) -> LibResult<CudaStorage> {
        match *self {}
    }
    pub(crate) fn pin_host(&self, _data: &CpuData) -> LibResult<Arc<dyn crate::device::pinned::PinnedHost>> {
        match *self {}
    }
    pub(crate) fn upload_pinned(
        &self,
        _pinned: &Arc<dyn crate::device::pinned::PinnedHost>,
        _n: usize,
        _dtype: DType,
        _non_blocking: bool,
    ) -> LibResult<CudaStorage> {
        match *self {}
    }
}

impl CudaStorage {
    pub(crate) fn device(&self) -> &Arc<CudaDevice> {
        match *self {}
    }
    pub(crate) fn dtype(&self) -> DType {
        match *self {}
    }
    pub(crate) fn held_bytes(&self) -> u64 {
        match *self {}
    }
    pub(crate) fn read(&self, _l: &Layout) -> LibResult<CpuData> {
        match *self {}
    }
}

impl Kernels for Arc<CudaDevice> {
    type Storage = CudaStorage;
    fn upload(&self, _: &CpuData) -> LibResult<CudaStorage> {
        match **self {}
    }
    fn launch(&self, _: &KernelCall<'_, &CudaStorage>) -> LibResult<CudaStorage> {
        match **self {}
    }
    fn optim_multi(
        &self,
        _: &crate::op::optim::OptimStep,
        _: &[crate::device::backend::OptimTensor<'_, CudaStorage>],
    ) -> LibResult<Vec<crate::device::backend::OptimChunk<CudaStorage>>> {
        match **self {}
    }
}
