//! CUDA's fused transformer families (semantics in `op::attention`, `op::layer_norm` and
//! `op::fused`; kernels in attention_tiled.cu, attention.cu, layer_norm.cu and the fused
//! families' files): the same passes as wgpu's, with LayerNorm's rows a block each and its
//! dw/db summed in two deterministic stages through scratch, and one launcher for every
//! `op::fused` family.

use std::sync::Arc;

use super::{CudaDevice, CudaStorage};
use crate::dtype::DType;
use crate::error::Result;
use crate::op::attention::{AttentionArgs, TILE_ROWS};
use crate::op::fused::{Fused, Grid, Target};
use crate::op::layer_norm::LayerNormArgs;
use crate::op::params::LayerNormParams;
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

    /// Fused LayerNorm: the forward, or with `grad` (the forward's output and the output's
    /// gradient) the backward.
    pub(super) fn layer_norm(
        self: &Arc<Self>,
        x: &CudaStorage,
        (w, b): (Option<&CudaStorage>, Option<&CudaStorage>),
        grad: Option<(&CudaStorage, &CudaStorage)>,
        a: &LayerNormArgs,
    ) -> Result<CudaStorage> {
        let len = if grad.is_some() { a.backward_len() } else { a.forward_len() };
        let out = self.alloc(len, DType::F32)?;
        if a.rows == 0 || a.n == 0 {
            return Ok(out);
        }
        let rows_grid = (a.rows.min(MAX_ROW_BLOCKS) as u32, 1, 1);
        let (saved, dy) = grad.unwrap_or((x, x));
        let chunks = a.wb_chunks();
        // The first dw/db stage's partial sums: [chunks, n] for dw, then for db.
        let scratch = if grad.is_some() { Some(self.alloc(2 * chunks * a.n, DType::F32)?) } else { None };
        let ptrs = [
            x.ptr(0),
            w.unwrap_or(x).ptr(0),
            b.unwrap_or(x).ptr(0),
            saved.ptr(0),
            dy.ptr(0),
            out.ptr(0),
            scratch.as_ref().unwrap_or(x).ptr(0),
        ];
        let p = LayerNormParams { threads: a.rows, ..a.params() };
        let block = (WG, 1, 1);
        // Rows a block each (layer_norm.cu's PART 4 and 5; 0 and 1 are wgpu's software forms).
        if grad.is_none() {
            self.launch(KernelKey::LayerNorm { pass: 4 }, &ptrs, &p, rows_grid, block)?;
            return Ok(out);
        }
        self.launch(KernelKey::LayerNorm { pass: 5 }, &ptrs, &p, rows_grid, block)?;
        let partials = (a.n.div_ceil(32) as u32, chunks.min(65535) as u32, 1);
        self.launch(KernelKey::LayerNorm { pass: 2 }, &ptrs, &p, partials, block)?;
        self.launch(KernelKey::LayerNorm { pass: 3 }, &ptrs, &LayerNormParams { threads: a.n, ..p }, grid(a.n), block)?;
        Ok(out)
    }

    /// A call of a fused family (`op::fused`) over `inputs` (whole storages, in the family's
    /// order): the inputs (input 0 again in the slots a call leaves empty) and the output as
    /// pointer arguments in that order, then
    /// the passes as a hardware GPU runs them (a thread per item, or a block per item with the
    /// programs striding past the grid).
    pub(super) fn fused(self: &Arc<Self>, call: &Fused, inputs: &[&CudaStorage]) -> Result<CudaStorage> {
        let (n, dtype) = call.output();
        let out = self.alloc(n, dtype)?;
        if n == 0 {
            return Ok(out);
        }
        let slot = |i: usize| inputs.get(i).or(inputs.first()).map(|s| s.ptr(0));
        let mut ptrs: Vec<u64> = (0..call.input_slots()).filter_map(slot).collect();
        ptrs.push(out.ptr(0));
        for pass in call.passes(Target { software: false }) {
            let key = KernelKey::Fused { kind: call.kind(), part: pass.part, dtype: call.dtype() };
            let blocks = match pass.grid {
                Grid::Threads(n) => grid(n),
                Grid::Groups(n) => (n.clamp(1, MAX_ROW_BLOCKS) as u32, 1, 1),
            };
            self.launch_words_checked(key, &ptrs, &pass.words, blocks, (WG, 1, 1))?;
        }
        Ok(out)
    }
}
