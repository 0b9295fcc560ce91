//! The fused optimizer update on wgpu: up to [`MULTI`] tensors a dispatch (optim_multi.wgsl,
//! PyTorch's multi-tensor apply). A launch writes flat outputs and binds each distinct input
//! buffer once: after its first step a chunk's parameters and states are views of the previous step's flat
//! outputs, so a chunk binds those few buffers and the gradients. How many tensors a launch
//! takes is decided here, from the adapter's storage-binding count and binding size, and one
//! on the CPU adapters (where it measured slower).

use std::sync::Arc;

use super::context::Bind;
use super::{WgpuDevice, WgpuStorage};
use crate::device::backend::{OptimChunk, OptimTensor};
use crate::device::policy::{fused_kernels, FusedKernels};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::op::optim::{OptimStep, FIRST, MULTI};
use crate::op::params::OptimMultiParams;
use crate::shaders::{KernelKey, WG};

/// Most input bindings a multi-tensor program declares (the variants' count stays bounded;
/// eight tensors after their first step need 3 + 8).
const MULTI_SLOTS: usize = 24;

impl WgpuDevice {
    /// The update of `tensors` in chunks of up to [`MULTI`] tensors, each as many as fit the
    /// adapter's storage bindings and one binding's size. A tensor past one binding gets a
    /// chunk of its own without outputs (the optimizer then updates it as separate ops, which
    /// split it).
    pub(crate) fn fused_optim_multi(
        self: &Arc<Self>,
        step: &OptimStep,
        tensors: &[OptimTensor<'_, WgpuStorage>],
    ) -> Result<Vec<OptimChunk<WgpuStorage>>> {
        let states = step.kind.states();
        let reads = if step.flags & FIRST != 0 { 2 } else { 2 + states };
        let outputs = 1 + states;
        // The CPU adapters run every case of optim_multi.wgsl's slot switch for every lane
        // (lavapipe: a GPT step's AdamW 12-13 ms in 5 launches against 6.9 in 27): a tensor
        // a launch there, unless the fused kernels are asked for everywhere (the tests).
        let most = if self.software() && fused_kernels() != FusedKernels::Always { 1 } else { MULTI };
        let slots_max =
            (self.limits.max_storage_buffers_per_shader_stage as usize).saturating_sub(outputs).min(MULTI_SLOTS);
        let max_bytes = self.limits.max_storage_buffer_binding_size.min(self.limits.max_buffer_size);
        let max_elems = (max_bytes / 4) as usize;
        if slots_max < reads {
            return Err(Error::invalid("optimizer step", "internal: the adapter binds too few storage buffers"));
        }
        let mut chunks = Vec::new();
        let mut i = 0;
        while i < tensors.len() {
            let mut slots: Vec<&wgpu::Buffer> = Vec::new();
            let (mut count, mut total) = (0, 0);
            while let Some(t) = tensors.get(i + count) {
                if t.inputs.len() != reads {
                    return Err(Error::invalid(
                        "optimizer step",
                        format!("expected {reads} inputs per tensor, got {}", t.inputs.len()),
                    ));
                }
                let past = t.n > max_elems || t.inputs.iter().any(|(s, _)| s.buffer().size() > max_bytes);
                if past {
                    break;
                }
                let mut fresh: Vec<&wgpu::Buffer> = Vec::new();
                for (s, _) in &t.inputs {
                    if !slots.contains(&s.buffer()) && !fresh.contains(&s.buffer()) {
                        fresh.push(s.buffer());
                    }
                }
                if count == most || (count > 0 && (slots.len() + fresh.len() > slots_max || total + t.n > max_elems)) {
                    break;
                }
                slots.extend(fresh);
                total += t.n;
                count += 1;
            }
            if count == 0 {
                // tensors[i] is past one binding.
                chunks.push(OptimChunk { outs: Vec::new(), count: 1 });
                i += 1;
                continue;
            }
            chunks.push(self.optim_chunk(step, &tensors[i..i + count], &slots, total)?);
            i += count;
        }
        Ok(chunks)
    }

    /// One multi-tensor launch over `tensors`, whose distinct input buffers are `slots`.
    fn optim_chunk(
        self: &Arc<Self>,
        step: &OptimStep,
        tensors: &[OptimTensor<'_, WgpuStorage>],
        slots: &[&wgpu::Buffer],
        total: usize,
    ) -> Result<OptimChunk<WgpuStorage>> {
        let states = step.kind.states();
        let outs = (0..=states).map(|_| self.alloc(total, DType::F32)).collect::<Result<Vec<_>>>()?;
        let chunk = |outs| OptimChunk { outs, count: tensors.len() };
        if total == 0 {
            return Ok(chunk(outs));
        }
        let base = step.params(total);
        let mut p = OptimMultiParams {
            n: total,
            count: tensors.len(),
            flags: base.flags,
            scalars: base.scalars,
            ..OptimMultiParams::default()
        };
        let mut start = 0;
        for (t, tensor) in tensors.iter().enumerate() {
            p.starts[t] = start;
            start += tensor.n;
            let mut packed = 0;
            // On the first step the states' slots repeat the gradient's (bound, never read).
            for r in 0..4 {
                let Some(&(s, off)) = tensor.inputs.get(r).or(tensor.inputs.get(1)) else {
                    return Err(Error::invalid("optimizer step", "needs a parameter and its gradient"));
                };
                let slot = slots.iter().position(|b| *b == s.buffer()).unwrap_or(0);
                packed |= slot << (8 * r);
                p.offsets[4 * t + r] = off;
            }
            p.slots[t] = packed;
        }
        let mut binds: Vec<Bind> = slots.iter().map(|b| Bind::whole(b)).collect();
        binds.extend(outs.iter().map(|o| Bind::whole(o.buffer())));
        let key = KernelKey::OptimMulti { kind: step.kind, slots: slots.len() as u8 };
        // A workgroup per WG elements of one tensor (see optim_multi.wgsl).
        let groups: usize = tensors.iter().map(|t| t.n.div_ceil(WG as usize)).sum();
        self.dispatch(key, &binds, &p, self.fold(groups)?)?;
        Ok(chunk(outs))
    }
}
