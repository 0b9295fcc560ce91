//! The lazy tier's kernel on CUDA: a recorded chain of f32 elementwise ops (`op::expr`) as one
//! generated kernel (`elementwise_source.rs`, compiled by NVRTC once per program and layout
//! kind) over its leaves' coalesced dims.

use std::sync::Arc;

use super::context::CudaDevice;
use super::pool::CudaStorage;
use crate::device::backend::Operand;
use crate::dtype::DType;
use crate::error::Result;
use crate::op::expr::{intern, Program};
use crate::shaders::{params, KernelKey, Walk, WG};
use crate::shape::numel;

impl CudaDevice {
    /// `program` over `leaves` (each read through a layout of `shape`) into a new contiguous f32
    /// tensor of `shape`, in one launch.
    pub(super) fn elementwise(
        self: &Arc<Self>,
        program: &Program,
        leaves: &[Operand<'_, &CudaStorage>],
        shape: &[usize],
        scalars: &[f32],
    ) -> Result<CudaStorage> {
        let n = numel(shape);
        let out = self.alloc(n, DType::F32)?;
        if n == 0 {
            return Ok(out);
        }
        let layouts: Vec<_> = leaves.iter().map(|l| l.l.as_ref()).collect();
        let (p, flat, dims) = params::elementwise(program.name(), &layouts, shape, scalars)?;
        let key = KernelKey::Elementwise {
            program: intern(program),
            walk: Walk::of(dims.len(), n),
            flat,
            vec4: false,
            lanes: 0,
        };
        let mut ptrs: Vec<u64> = leaves.iter().map(|l| l.s.ptr(0)).collect();
        ptrs.push(out.ptr(0));
        let blocks = n.div_ceil(WG as usize).clamp(1, 1 << 20) as u32;
        self.launch(key, &ptrs, &p, (blocks, 1, 1), (WG, 1, 1))?;
        Ok(out)
    }
}
