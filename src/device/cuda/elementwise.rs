//! The lazy tier's kernel on CUDA: a recorded chain of f32 elementwise ops (`op::expr`) as one
//! generated kernel (`elementwise_source.rs`, compiled by NVRTC once per program and layout
//! kind), its leaves' dims coalesced first.

use std::sync::Arc;

use super::context::CudaDevice;
use super::pool::CudaStorage;
use crate::device::backend::Operand;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::coalesce_dyn;
use crate::op::expr::{intern, Program, MAX_LEAVES, MAX_RANK, MAX_SCALARS};
use crate::op::params::ElementwiseParams;
use crate::shaders::{Walk, WG};
use crate::shape::{contiguous_strides, numel};

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
        let strides: Vec<&[usize]> = leaves.iter().map(|l| l.l.strides()).collect();
        let (dims, strides) = coalesce_dyn(shape, &strides);
        if dims.len() > MAX_RANK || leaves.len() > MAX_LEAVES || scalars.len() > MAX_SCALARS {
            // The recorder keeps within these; a guard, not a user-facing path.
            return Err(Error::invalid(program.name(), "internal: an elementwise program past its limits"));
        }
        let dense = contiguous_strides(&dims);
        let mut p = ElementwiseParams { numel: n, ..Default::default() };
        let mut flat = 0u8;
        for (k, (leaf, s)) in leaves.iter().zip(&strides).enumerate() {
            p.offsets[k] = leaf.l.offset();
            if *s == dense {
                flat |= 1 << k;
            }
            p.strides[k * MAX_RANK..k * MAX_RANK + s.len()].copy_from_slice(s);
        }
        p.shape[..dims.len()].copy_from_slice(&dims);
        for (w, s) in p.scalars.iter_mut().zip(scalars) {
            *w = s.to_bits() as usize;
        }
        let key = crate::shaders::KernelKey::Elementwise {
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
