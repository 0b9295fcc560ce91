//! Ops that only some backends have a kernel for, which the op composes elsewhere from other
//! ops: each returns `None` where the caller should compose (the CPU's scan; padding of f32 on
//! the CPU and on wgpu within one binding). Clamp and means are kernel calls whose backends
//! choose (`KernelCall::Clamp`, `KernelCall::SumDiv`).

use super::Storage;
use crate::device::cpu::CpuBackend;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;

impl Storage {
    /// Whether [`Storage::cumsum`] has a kernel here for `dtype` (asked before making the
    /// input contiguous for it).
    pub(crate) fn has_cumsum(&self, dtype: DType) -> bool {
        matches!(self, Storage::Cpu(_)) && crate::device::cpu::scan::has_cumsum(dtype)
    }

    /// Running sums of contiguous `l` viewed as `[outer, n, inner]` along `n` by a backend's
    /// scan kernel (the CPU's, for f32 and i32), or `None` where the caller composes the scan.
    pub(crate) fn cumsum(&self, l: &Layout, dims: (usize, usize, usize)) -> Result<Option<Storage>> {
        Ok(match self {
            Storage::Cpu(s) => CpuBackend.cumsum(s, l, dims)?.map(Storage::Cpu),
            _ => None,
        })
    }

    /// Constant padding of f32 `l` into `shape` (`before[d]` entries of `value` ahead of it in
    /// each dim) in one pass where the backend has it (the CPU; wgpu within one binding), else
    /// None: the caller pads by `cat`s (CUDA).
    pub(crate) fn pad_f32(&self, l: &Layout, before: &[usize], shape: &[usize], value: f32) -> Result<Option<Storage>> {
        match self {
            Storage::Cpu(s) => Ok(CpuBackend.pad_f32(s, l, before, shape, value)?.map(Storage::Cpu)),
            Storage::Wgpu(s) => Ok(s.device().pad_f32(s, l, before, shape, value)?.map(Storage::Wgpu)),
            #[allow(unreachable_patterns)]
            _ => Ok(None),
        }
    }
}
