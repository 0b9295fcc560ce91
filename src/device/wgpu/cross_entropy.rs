//! The fused cross-entropy family on wgpu (semantics in `op::cross_entropy`, programs in
//! cross_entropy.wgsl): the forward in one pass and the scores' gradient in one, a thread per
//! row on software adapters and a workgroup per row on hardware GPUs (as LayerNorm's rows).

use std::sync::Arc;

use super::context::Bind;
use super::{WgpuDevice, WgpuStorage};
use crate::dtype::DType;
use crate::error::Result;
use crate::op::cross_entropy::CrossEntropyArgs;
use crate::op::params::CrossEntropyParams;
use crate::shaders::{KernelKey, WG};

impl WgpuDevice {
    /// Fused cross-entropy: the forward, or with `grad` (the forward's output and the per-row
    /// loss gradient) the scores' gradient.
    pub(crate) fn cross_entropy(
        self: &Arc<Self>,
        x: &WgpuStorage,
        t: &WgpuStorage,
        grad: Option<(&WgpuStorage, &WgpuStorage)>,
        a: &CrossEntropyArgs,
    ) -> Result<WgpuStorage> {
        let len = if grad.is_some() { a.backward_len() } else { a.forward_len() };
        let out = self.alloc(len, DType::F32)?;
        if a.rows == 0 || a.classes == 0 {
            return Ok(out);
        }
        // The forward binds the scores where it reads no saved values and no gradient.
        let (saved, g) = grad.unwrap_or((x, x));
        let binds = [
            Bind::whole(x.buffer()),
            Bind::whole(t.buffer()),
            Bind::whole(saved.buffer()),
            Bind::whole(g.buffer()),
            Bind::whole(out.buffer()),
        ];
        let backward = grad.is_some() as u8;
        let p = CrossEntropyParams { threads: a.rows, ..a.params() };
        match self.software() {
            true => self.dispatch(KernelKey::CrossEntropy { pass: backward }, &binds, &p, self.groups(a.rows, WG)?)?,
            false => self.dispatch(KernelKey::CrossEntropy { pass: 2 + backward }, &binds, &p, self.fold(a.rows)?)?,
        }
        Ok(out)
    }
}
