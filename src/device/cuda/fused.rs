//! CUDA's fused transformer kernels: the attention (semantics in `op::attention`, kernels in
//! attention_tiled.cu and attention.cu, the same passes as wgpu's) and one launcher for every
//! `op::fused` family (LayerNorm, cross-entropy, dropout: the hardware passes, rows a block
//! each).

use std::sync::Arc;

use super::{CudaDevice, CudaStorage};
use crate::dtype::DType;
use crate::error::Result;
use crate::op::attention::{AttentionArgs, TILE_ROWS};
use crate::op::fused::{Fused, Grid, Target};
use crate::shaders::{KernelKey, WG};

/// Most blocks a launch of a block per row asks for; the kernels stride over the rows past them.
const MAX_ROW_BLOCKS: usize = 1 << 16;

/// A 1-D grid of `WG`-thread blocks for `threads` threads (grid-stride loops cover the rest).
fn grid(threads: usize) -> (u32, u32, u32) {
    (threads.div_ceil(WG as usize).clamp(1, 1 << 20) as u32, 1, 1)
}

impl CudaDevice {
    /// Fused attention: the forward, or with `grad` (the forward's output and the output's
    /// gradient) the backward.
    pub(super) fn attention(
        self: &Arc<Self>,
        (q, k, v): (&CudaStorage, &CudaStorage, &CudaStorage),
        mask: Option<&CudaStorage>,
        grad: Option<(&CudaStorage, &CudaStorage)>,
        a: &AttentionArgs,
    ) -> Result<CudaStorage> {
        a.check_counters(|| self.name())?;
        let len = if grad.is_some() { a.backward_len() } else { a.forward_len() };
        let out = self.alloc(len, DType::F32)?;
        let (saved, dout) = grad.unwrap_or((q, q));
        let ptrs = [q.ptr(0), k.ptr(0), v.ptr(0), mask.unwrap_or(q).ptr(0), saved.ptr(0), dout.ptr(0), out.ptr(0)];
        for l in a.launches(grad.is_some()) {
            if l.tiled {
                let groups = (l.params.threads.min(u32::MAX as usize) as u32, 1, 1);
                self.launch(l.key, &ptrs, &l.params, groups, (TILE_ROWS as u32, 1, 1))?;
            } else {
                self.launch(l.key, &ptrs, &l.params, grid(l.params.threads), (WG, 1, 1))?;
            }
        }
        Ok(out)
    }

    /// A call of a fused family (`op::fused`) over `inputs` (whole storages, in the family's
    /// order): the inputs (input 0 again in the slots a call leaves empty), the output and its
    /// scratch as pointer arguments in that order, then
    /// the passes as a hardware GPU runs them (a thread per item, or a block per item with the
    /// programs striding past the grid).
    pub(super) fn fused(self: &Arc<Self>, call: &Fused, inputs: &[&CudaStorage]) -> Result<CudaStorage> {
        let (n, dtype) = call.output();
        let out = self.alloc(n, dtype)?;
        if n == 0 {
            return Ok(out);
        }
        let scratch = call.scratch().map(|n| self.alloc(n.max(1), DType::F32)).transpose()?;
        let slot = |i: usize| inputs.get(i).or(inputs.first()).map(|s| s.ptr(0));
        let mut ptrs: Vec<u64> = (0..call.input_slots()).filter_map(slot).collect();
        ptrs.push(out.ptr(0));
        ptrs.extend(scratch.as_ref().map(|s| s.ptr(0)));
        for pass in call.passes(Target { software: false }) {
            let key = KernelKey::Fused { kind: call.kind(), part: pass.part, dtype: call.dtype() };
            let blocks = match pass.grid {
                Grid::Threads(n) => grid(n),
                Grid::Groups(n) => (n.clamp(1, MAX_ROW_BLOCKS) as u32, 1, 1),
                Grid::Fixed(x, y) => (x as u32, y as u32, 1),
            };
            self.launch_words_checked(key, &ptrs, &pass.words, blocks, (WG, 1, 1))?;
        }
        Ok(out)
    }
}
