//! The one op only some backends have a kernel for, which the op composes elsewhere from other
//! ops: the CPU's cumsum (`None` where the caller composes the scan). Clamp, means and constant
//! padding are kernel calls whose backends choose how (`KernelCall::Clamp`, `SumDiv`, `Pad`).

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
}
