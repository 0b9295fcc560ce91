//! The lazy tier's kernel on wgpu: a recorded chain of f32 elementwise ops (`op::expr`) as one
//! generated program (`shaders/elementwise.rs`) over its leaves' coalesced dims: each leaf
//! that is contiguous over the output read without index arithmetic, four positions a thread.

use std::sync::Arc;

use super::context::Bind;
use super::{WgpuDevice, WgpuStorage};
use crate::device::backend::Operand;
use crate::dtype::DType;
use crate::error::Result;
use crate::op::expr::{intern, Program};
use crate::shaders::{params, KernelKey, Walk, LANES_ALIGNED, LANES_RAGGED, WG};
use crate::shape::numel;

impl WgpuDevice {
    /// `program` over `leaves` (each read through a layout of `shape`) into a new contiguous f32
    /// tensor of `shape`, in one dispatch.
    pub(crate) fn elementwise(
        self: &Arc<Self>,
        program: &Program,
        leaves: &[Operand<'_, &WgpuStorage>],
        shape: &[usize],
        scalars: &[f32],
    ) -> Result<WgpuStorage> {
        let n = numel(shape);
        let out = self.alloc(n, DType::F32)?;
        if n == 0 {
            return Ok(out);
        }
        let layouts: Vec<_> = leaves.iter().map(|l| l.l.as_ref()).collect();
        let (mut p, flat, dims) = params::elementwise(program.name(), &layouts, shape, scalars)?;
        // Four positions a thread where every leaf is contiguous and vec4-aligned.
        let all = (1u16 << leaves.len()) - 1;
        let vec4 =
            u16::from(flat) == all && n.is_multiple_of(4) && leaves.iter().all(|l| l.l.offset().is_multiple_of(4));
        // Else four positions of an innermost row a thread (broadcasts over [rows, C]: the
        // walk's divisions once per four; on software adapters a thread per element made a
        // scale, shift and tanh over [16384, 1024] 3.5x slower than the three eager kernels).
        let (lanes, threads) = match dims.last().copied() {
            _ if vec4 => {
                p.numel = n / 4;
                p.offsets.iter_mut().for_each(|o| *o /= 4);
                (0, n / 4)
            }
            Some(c) if c.is_multiple_of(4) => (LANES_ALIGNED, n / 4),
            Some(c) => (LANES_RAGGED, n / c * c.div_ceil(4)),
            None => (0, n),
        };
        let walk = Walk::of(dims.len(), n);
        let key = KernelKey::Elementwise { program: intern(program), walk, flat, vec4, lanes };
        let mut bufs: Vec<Bind> = leaves.iter().map(|l| Bind::whole(l.s.buffer())).collect();
        bufs.push(Bind::whole(out.buffer()));
        self.dispatch(key, &bufs, &p, self.groups(threads, WG)?)?;
        Ok(out)
    }
}
