//! The fused attention family on wgpu (semantics in `op::attention`, programs in
//! attention_tiled.wgsl and attention.wgsl): the forward, then the backward (`D`, then the
//! query's, the key's and the value's gradients), tiled where rows are at most 64 wide, else a
//! thread per row and chunk of output columns, all writing regions of one output buffer.

use std::sync::Arc;

use super::context::Bind;
use super::{WgpuDevice, WgpuStorage};
use crate::dtype::DType;
use crate::error::Result;
use crate::op::attention::AttentionArgs;
use crate::shaders::WG;

impl WgpuDevice {
    /// Fused attention: the forward, or with `grad` (the forward's output and the output's
    /// gradient) the backward.
    pub(crate) fn attention(
        self: &Arc<Self>,
        (q, k, v): (&WgpuStorage, &WgpuStorage, &WgpuStorage),
        mask: Option<&WgpuStorage>,
        grad: Option<(&WgpuStorage, &WgpuStorage)>,
        a: &AttentionArgs,
    ) -> Result<WgpuStorage> {
        a.check_counters(|| self.name())?;
        let len = if grad.is_some() { a.backward_len() } else { a.forward_len() };
        let out = self.alloc(len, DType::F32)?;
        let (saved, dout) = grad.unwrap_or((q, q));
        let binds = [
            Bind::whole(q.buffer()),
            Bind::whole(k.buffer()),
            Bind::whole(v.buffer()),
            Bind::whole(mask.unwrap_or(q).buffer()),
            Bind::whole(saved.buffer()),
            Bind::whole(dout.buffer()),
            Bind::whole(out.buffer()),
        ];
        for l in a.launches(grad.is_some()) {
            let groups = if l.tiled { self.fold(l.params.threads)? } else { self.groups(l.params.threads, WG)? };
            self.dispatch(l.key, &binds, &l.params, groups)?;
        }
        Ok(out)
    }
}
