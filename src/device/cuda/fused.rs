//! CUDA's launcher for every `op::fused` family (attention, LayerNorm, cross-entropy,
//! dropout): the hardware passes, rows a block each, the tiled attention's tiles a block of
//! their own size each.

use std::sync::Arc;

use super::{CudaDevice, CudaStorage};
use crate::dtype::DType;
use crate::error::Result;
use crate::op::fused::{Fused, Grid, Target};
use crate::shaders::{KernelKey, WG};

/// Most blocks a launch of a block per row asks for; the kernels stride over the rows past them.
const MAX_ROW_BLOCKS: usize = 1 << 16;

/// A 1-D grid of `WG`-thread blocks for `threads` threads (grid-stride loops cover the rest).
fn grid(threads: usize) -> (u32, u32, u32) {
    (threads.div_ceil(WG as usize).clamp(1, 1 << 20) as u32, 1, 1)
}

impl CudaDevice {
    /// A call of a fused family (`op::fused`) over `inputs` (whole storages, in the family's
    /// order): the inputs (input 0 again in the slots a call leaves empty), the output and its
    /// scratch as pointer arguments in that order, then
    /// the passes as a hardware GPU runs them (a thread per item, or a block per item with the
    /// programs striding past the grid).
    pub(super) fn fused(self: &Arc<Self>, call: &Fused, inputs: &[&CudaStorage]) -> Result<CudaStorage> {
        call.check_gpu(|| self.name())?;
        let (n, dtype) = call.output();
        let out = self.alloc(n, dtype)?;
        if n == 0 {
            return Ok(out);
        }
        let scratch = call.scratch().map(|n| self.alloc(n.max(1), DType::F32)).transpose()?;
        let mut ptrs: Vec<u64> = call.slots(inputs).map(|s| s.ptr(0)).collect();
        ptrs.push(out.ptr(0));
        ptrs.extend(scratch.as_ref().map(|s| s.ptr(0)));
        for pass in call.passes(Target { software: false }) {
            let key = KernelKey::Fused { kind: call.kind(), part: pass.part, dtype: call.dtype() };
            let (blocks, threads) = match pass.grid {
                Grid::Threads(n) => (grid(n), WG),
                Grid::Groups(n) => ((n.clamp(1, MAX_ROW_BLOCKS) as u32, 1, 1), WG),
                Grid::Fixed(x, y) => ((x as u32, y as u32, 1), WG),
                Grid::Blocks(n, threads) => ((n.clamp(1, u32::MAX as usize) as u32, 1, 1), threads as u32),
            };
            self.launch_words_checked(key, &ptrs, &pass.words, blocks, (threads, 1, 1))?;
        }
        Ok(out)
    }
}
