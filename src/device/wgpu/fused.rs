//! The fused families (`op::fused`) on wgpu, one launcher for all: the call's inputs (input 0
//! again in the slots a call leaves empty), its output and its scratch bound in that order, then its passes dispatched (a thread per item,
//! or a workgroup per item over a folded 2-D grid). An elementwise family past one binding runs
//! in pieces over ranges of its input and output, each continuing the element numbering.

use std::sync::Arc;

use super::context::Bind;
use super::split::span;
use super::{WgpuDevice, WgpuStorage};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::op::fused::{Fused, Grid, Pass, Target};
use crate::shaders::{KernelKey, WG};

/// Elements per piece are a multiple of this (as the split binary ops' pieces).
const GRANULE: usize = 1024;

impl WgpuDevice {
    /// Runs `call` over `inputs` (whole storages, in the family's order).
    pub(crate) fn fused(self: &Arc<Self>, call: &Fused, inputs: &[&WgpuStorage]) -> Result<WgpuStorage> {
        call.check_gpu(|| self.name())?;
        let (n, dtype) = call.output();
        let out = self.alloc(n, dtype)?;
        if n == 0 {
            return Ok(out);
        }
        let scratch = call.scratch().map(|n| self.alloc(n.max(1), DType::F32)).transpose()?;
        let mut binds: Vec<Bind> = call.slots(inputs).map(|s| Bind::whole(s.buffer())).collect();
        binds.push(Bind::whole(out.buffer()));
        binds.extend(scratch.as_ref().map(|s| Bind::whole(s.buffer())));
        let mut buffers: Vec<&wgpu::Buffer> = inputs.iter().map(|s| s.buffer()).collect();
        buffers.push(out.buffer());
        if let (Some(e), true) =
            (call.elementwise(), self.exceeds(&buffers) || self.too_big(n, dtype.gpu_size_in_bytes()))
        {
            return self.fused_pieces(call, inputs, &out, e.src_offset).map(|()| out);
        }
        for pass in call.passes(Target { software: self.software() }) {
            self.launch_pass(call, &binds, &pass)?;
        }
        Ok(out)
    }

    fn launch_pass(&self, call: &Fused, binds: &[Bind], pass: &Pass) -> Result<()> {
        let key = KernelKey::Fused { kind: call.kind(), part: pass.part, dtype: call.dtype() };
        let groups = match pass.grid {
            Grid::Threads(n) => self.groups(n, WG)?,
            Grid::Groups(n) | Grid::Blocks(n, _) => self.fold(n)?,
            Grid::Fixed(x, y) => {
                let max = self.limits.max_compute_workgroups_per_dimension as usize;
                if x.max(y) > max {
                    return Err(Error::TooLarge {
                        op: call.name(),
                        device: self.name(),
                        bytes: x.max(y) as u64,
                        limit_name: "max_compute_workgroups_per_dimension (workgroups of one pass)",
                        limit: max as u64,
                    });
                }
                (x as u32, y as u32, 1)
            }
        };
        self.dispatch_words_checked(key, binds, &pass.words, groups)
    }

    /// An elementwise call in pieces of whole granules, input 0 read from `src_offset`.
    fn fused_pieces(&self, call: &Fused, inputs: &[&WgpuStorage], out: &WgpuStorage, src_offset: usize) -> Result<()> {
        let (n, dtype) = call.output();
        let esz = dtype.gpu_size_in_bytes();
        let piece = self.piece_elems(esz, GRANULE);
        let mut start = 0;
        while start < n {
            let len = piece.min(n - start);
            let (sb, so) = span(inputs[0].buffer(), src_offset + start, len, esz);
            let (ob, oo) = span(out.buffer(), start, len, esz);
            if let Some(pass) = call.piece(start, len, so, oo) {
                self.launch_pass(call, &[sb, ob], &pass)?;
            }
            start += len;
        }
        Ok(())
    }
}
