//! Fused dropout on wgpu (semantics in `op::fill::DropoutArgs`, the program in dropout.wgsl):
//! one pass that draws each element's sample and scales or zeroes it, in pieces where the
//! tensor spans more than one binding (each piece continues the counters).

use std::sync::Arc;

use super::context::Bind;
use super::split::span;
use super::{WgpuDevice, WgpuStorage};
use crate::error::Result;
use crate::layout::Layout;
use crate::op::fill::DropoutArgs;
use crate::shaders::{KernelKey, WG};

/// Elements per piece are a multiple of this (as the split binary ops' pieces).
const GRANULE: usize = 1024;

impl WgpuDevice {
    /// Fused dropout of the contiguous view `l` of `src` (f32, or f16 where the adapter has it).
    pub(crate) fn dropout(self: &Arc<Self>, src: &WgpuStorage, l: &Layout, a: &DropoutArgs) -> Result<WgpuStorage> {
        let (n, dtype) = (l.numel(), src.dtype());
        let out = self.alloc(n, dtype)?;
        if n == 0 {
            return Ok(out);
        }
        let key = KernelKey::Dropout { dtype };
        let esz = dtype.gpu_size_in_bytes();
        if !self.too_big(n, esz) && !self.exceeds(&[src.buffer(), out.buffer()]) {
            let binds = [Bind::whole(src.buffer()), Bind::whole(out.buffer())];
            self.dispatch(key, &binds, &a.params(n, 0, l.offset(), 0), self.groups(n, WG)?)?;
            return Ok(out);
        }
        let piece = self.piece_elems(esz, GRANULE);
        let mut start = 0;
        while start < n {
            let len = piece.min(n - start);
            let (sb, so) = span(src.buffer(), l.offset() + start, len, esz);
            let (ob, oo) = span(out.buffer(), start, len, esz);
            self.dispatch(key, &[sb, ob], &a.params(len, start, so, oo), self.groups(len, WG)?)?;
            start += len;
        }
        Ok(out)
    }
}
