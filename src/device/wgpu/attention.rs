//! The fused attention family on wgpu (semantics in `op::attention`, programs in
//! attention.wgsl): the forward as two passes (log-sum-exps, then the output), the backward as
//! four (`D`, then the query's, the key's and the value's gradients), each a thread per row and
//! chunk of output columns, all writing regions of one output buffer.

use std::sync::Arc;

use super::context::Bind;
use super::{WgpuDevice, WgpuStorage};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::op::attention::{AttentionArgs, RowsView};
use crate::op::params::AttentionParams;
use crate::shaders::{AttentionPass, KernelKey, WG};

/// Output columns per thread (attention.wgsl's CHUNK).
const CHUNK: usize = 32;

/// A view's (offset, s0, s1, s2) as parameter words.
fn words(v: &RowsView) -> [usize; 4] {
    [v.offset, v.s0, v.s1, v.s2]
}

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
        let heads = a.heads();
        // Dropout's counters and the row numbers are u32 in the programs.
        if heads.saturating_mul(a.l).saturating_mul(a.s) > u32::MAX as usize {
            return Err(Error::TooLarge {
                op: "scaled_dot_product_attention",
                device: self.name(),
                bytes: (heads * a.l * a.s) as u64,
                limit_name: "heads * L * S (u32 counters of the attention programs)",
                limit: u32::MAX as u64,
            });
        }
        let len = if grad.is_some() { a.backward_len() } else { a.forward_len() };
        let out = self.alloc(len, DType::F32)?;
        let (m, mcol) = a.mask.unwrap_or((RowsView { offset: 0, s0: 0, s1: 0, s2: 0 }, 0));
        let (p_drop, drop_scale, seed) = a.dropout.unwrap_or((0.0, 1.0, 0));
        let [dk_at, dv_at, d_at] = a.grad_at();
        let base = AttentionParams {
            threads: 0,
            chunks: 1,
            n2: a.n2,
            l: a.l,
            s: a.s,
            e: a.e,
            ev: a.ev,
            q: words(&a.q),
            k: words(&a.k),
            v: words(&a.v),
            m: [m.offset, m.s0, m.s1, m.s2, mcol],
            masked: a.mask.is_some() as usize,
            g: a.dout.as_ref().map_or([0; 4], words),
            scale: a.scale.to_bits() as usize,
            causal: a.causal as usize,
            dropout: a.dropout.is_some() as usize,
            drop_p: p_drop.to_bits() as usize,
            drop_scale: drop_scale.to_bits() as usize,
            key_lo: seed as u32 as usize,
            key_hi: (seed >> 32) as usize,
            lse_at: a.lse_at(),
            dk_at,
            dv_at,
            d_at,
        };
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
        let (ql, kl) = (heads * a.l, heads * a.s);
        let passes: &[(AttentionPass, usize, usize)] = if grad.is_some() {
            &[
                (AttentionPass::Delta, ql, 1),
                (AttentionPass::GradQ, ql, a.e),
                (AttentionPass::GradK, kl, a.e),
                (AttentionPass::GradV, kl, a.ev),
            ]
        } else {
            &[(AttentionPass::Lse, ql, 1), (AttentionPass::Out, ql, a.ev)]
        };
        for &(pass, rows, cols) in passes {
            let chunks = cols.div_ceil(CHUNK).max(1);
            let threads = rows * chunks;
            if threads == 0 {
                continue;
            }
            let params = AttentionParams { threads, chunks, ..base };
            self.dispatch(KernelKey::Attention { pass }, &binds, &params, self.groups(threads, WG)?)?;
        }
        Ok(out)
    }
}
