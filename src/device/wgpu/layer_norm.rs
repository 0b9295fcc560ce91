//! The fused LayerNorm family on wgpu (semantics in `op::layer_norm`, programs in
//! layer_norm.wgsl): the forward in one pass (a thread per row), the backward in two (dx a
//! thread per row, then dw and db a thread per column).

use std::sync::Arc;

use super::context::Bind;
use super::{WgpuDevice, WgpuStorage};
use crate::dtype::DType;
use crate::error::Result;
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
        let base = LayerNormParams {
            threads: 0,
            rows: a.rows,
            n: a.n,
            eps: a.eps.to_bits() as usize,
            x_offset: a.x_offset,
            has_w: a.w_offset.is_some() as usize,
            w_offset: a.w_offset.unwrap_or(0),
            has_b: a.b_offset.is_some() as usize,
            b_offset: a.b_offset.unwrap_or(0),
            dy_offset: a.dy_offset,
            mean_at: a.stats_at().0,
        };
        let (saved, dy) = grad.unwrap_or((x, x));
        let binds = [
            Bind::whole(x.buffer()),
            Bind::whole(w.unwrap_or(x).buffer()),
            Bind::whole(b.unwrap_or(x).buffer()),
            Bind::whole(saved.buffer()),
            Bind::whole(dy.buffer()),
            Bind::whole(out.buffer()),
        ];
        let passes: &[(u8, usize)] = if grad.is_some() { &[(1, a.rows), (2, a.n)] } else { &[(0, a.rows)] };
        for &(pass, threads) in passes {
            if threads == 0 {
                continue;
            }
            let params = LayerNormParams { threads, ..base };
            self.dispatch(KernelKey::LayerNorm { pass }, &binds, &params, self.groups(threads, WG)?)?;
        }
        Ok(out)
    }
}
