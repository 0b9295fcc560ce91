//! The fused LayerNorm family on wgpu (semantics in `op::layer_norm`, programs in
//! layer_norm.wgsl): the forward in one pass and dx in one, a thread per row on software
//! adapters and a workgroup per row on hardware GPUs (a thread per row there leaves most of the
//! GPU idle and reads rows uncoalesced: 102 ms of a GPT step on an H200); dw and db in two
//! deterministic stages, partial sums per chunk of rows through scratch, then the chunks added.

use std::sync::Arc;

use super::context::Bind;
use super::kernels::u;
use super::{WgpuDevice, WgpuStorage};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::op::layer_norm::LayerNormArgs;
use crate::op::params::LayerNormParams;
use crate::shaders::{KernelKey, WG};

impl WgpuDevice {
    /// Fused LayerNorm: the forward, or with `grad` (the forward's output and the output's
    /// gradient) the backward.
    pub(crate) fn layer_norm(
        self: &Arc<Self>,
        x: &WgpuStorage,
        (w, b): (Option<&WgpuStorage>, Option<&WgpuStorage>),
        grad: Option<(&WgpuStorage, &WgpuStorage)>,
        a: &LayerNormArgs,
    ) -> Result<WgpuStorage> {
        let len = if grad.is_some() { a.backward_len() } else { a.forward_len() };
        let out = self.alloc(len, DType::F32)?;
        if a.rows == 0 || a.n == 0 {
            return Ok(out);
        }
        let chunks = a.wb_chunks();
        // The first dw/db stage's partial sums, [chunks, n] for dw then db (one word forward,
        // where nothing reads it: a binding needs a buffer).
        let scratch = self.alloc(if grad.is_some() { 2 * chunks * a.n } else { 1 }, DType::F32)?;
        let (saved, dy) = grad.unwrap_or((x, x));
        let binds = [
            Bind::whole(x.buffer()),
            Bind::whole(w.unwrap_or(x).buffer()),
            Bind::whole(b.unwrap_or(x).buffer()),
            Bind::whole(saved.buffer()),
            Bind::whole(dy.buffer()),
            Bind::whole(out.buffer()),
            Bind::whole(scratch.buffer()),
        ];
        let base = a.params();
        let launch = |pass: u8, threads: usize, groups: (u32, u32, u32)| {
            self.dispatch(KernelKey::LayerNorm { pass }, &binds, &LayerNormParams { threads, ..base }, groups)
        };
        // The rows: a thread each (software) or a workgroup each (hardware).
        let rows = |software_pass: u8| match self.software() {
            true => launch(software_pass, a.rows, self.groups(a.rows, WG)?),
            false => launch(software_pass + 4, a.rows, self.fold(a.rows)?),
        };
        if grad.is_none() {
            rows(0)?;
            return Ok(out);
        }
        rows(1)?;
        let max = self.limits.max_compute_workgroups_per_dimension as usize;
        let col_groups = a.n.div_ceil(32);
        if col_groups > max {
            return Err(Error::TooLarge {
                op: "layer_norm_backward",
                device: self.name(),
                bytes: a.n as u64,
                limit_name: "max_compute_workgroups_per_dimension * 32 (normalised elements)",
                limit: (max * 32) as u64,
            });
        }
        launch(2, 0, (u(col_groups), u(chunks.min(max)), 1))?;
        launch(3, a.n, self.groups(a.n, WG)?)?;
        Ok(out)
    }
}
