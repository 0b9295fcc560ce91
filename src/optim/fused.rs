//! The fused update path shared by the optimizers: the parameters that share a step (the same
//! hyperparameters and step count) on one device go to the backend together, which updates
//! them in as few launches as pay (`Kernels::optim_multi`: up to eight tensors a launch on wgpu
//! on a GPU; a launch or pass each on CUDA, the CPU adapters and the CPU; see `op/optim.rs` for
//! the arithmetic). A chunk's new parameters and states are views of its flat outputs. `None` marks a parameter the
//! caller must update as separate ops instead (f16 parameters, and a tensor past one GPU
//! binding, which only the separate ops can split).

use std::sync::Arc;

use crate::device::backend::OptimTensor;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::op::optim::{OptimStep, FIRST};
use crate::storage::Storage;
use crate::tensor::Tensor;

const OP: &str = "optimizer step";

/// One parameter's update: its step, current value, gradient and state (ignored on the first
/// step, `FIRST`; otherwise `step.kind.states()` tensors of the parameter's shape on its device).
pub(crate) struct Item<'a> {
    pub step: OptimStep,
    pub param: &'a Tensor,
    pub grad: &'a Tensor,
    pub state: &'a [Tensor],
}

/// A new parameter and its new states.
pub(crate) type Updated = (Tensor, Vec<Tensor>);

/// The new parameter and states of each item, or `None` for the separate-ops path (and for
/// no item: a parameter without a gradient or with `fused: false`).
pub(crate) fn update_many(items: &[Option<Item<'_>>]) -> Result<Vec<Option<Updated>>> {
    let mut out: Vec<Option<Updated>> = items.iter().map(|_| None).collect();
    let items: Vec<(usize, &Item)> = items.iter().enumerate().filter_map(|(i, it)| Some((i, it.as_ref()?))).collect();
    // Items that can share launches, by step and device, in first-seen order.
    let mut runs: Vec<(OptimStep, Device, Vec<usize>)> = Vec::new();
    for (k, (_, it)) in items.iter().enumerate() {
        if !fusable(it)? {
            continue;
        }
        match runs.iter_mut().find(|(s, d, _)| *s == it.step && *d == it.param.device()) {
            Some(run) => run.2.push(k),
            None => runs.push((it.step, it.param.device(), vec![k])),
        }
    }
    for (step, device, idx) in runs {
        let first = step.flags & FIRST != 0;
        let inputs = idx
            .iter()
            .map(|&k| {
                let it = items[k].1;
                let mut v = vec![it.param.contiguous()?, it.grad.contiguous()?];
                if !first {
                    v.extend(it.state.iter().map(Tensor::contiguous).collect::<Result<Vec<_>>>()?);
                }
                Ok(v)
            })
            .collect::<Result<Vec<_>>>()?;
        let refs: Vec<_> = inputs
            .iter()
            .map(|ts| OptimTensor {
                inputs: ts.iter().map(|t| (t.storage(), t.layout().offset())).collect(),
                n: ts.first().map_or(0, Tensor::numel),
            })
            .collect();
        let mut next = idx.iter().zip(&inputs);
        for chunk in Storage::optim_multi(&step, &refs)? {
            let outs: Vec<Arc<Storage>> = chunk.outs.into_iter().map(Arc::new).collect();
            let mut at = 0;
            for _ in 0..chunk.count {
                let Some((&k, ins)) = next.next() else {
                    return Err(Error::invalid(OP, "internal: the update returned more tensors than it was given"));
                };
                let (i, it) = items[k];
                let shape = it.param.shape();
                let handles: Vec<&Tensor> = ins.iter().collect();
                let start = at;
                at += it.param.numel();
                let mut views =
                    outs.iter().map(|s| Tensor::from_op_nondiff_shared(s, (shape, start), device, OP, &handles));
                // A chunk without outputs: past one binding, for the separate ops.
                out[i] = views.next().map(|param| (param, views.collect()));
            }
        }
        if next.next().is_some() {
            return Err(Error::invalid(OP, "internal: the update returned fewer tensors than it was given"));
        }
    }
    Ok(out)
}

/// Whether the item can take the fused path (f32 everywhere); a gradient of another device or
/// shape is an error, as it would be on the separate-ops path.
fn fusable(it: &Item<'_>) -> Result<bool> {
    let (param, grad) = (it.param, it.grad);
    if param.dtype() != DType::F32 || grad.dtype() != DType::F32 || it.state.iter().any(|s| s.dtype() != DType::F32) {
        return Ok(false);
    }
    param.same_device(grad, OP)?;
    if grad.shape() != param.shape() {
        return Err(Error::ShapeMismatch {
            op: OP,
            lhs: param.shape().to_vec(),
            rhs: grad.shape().to_vec(),
            msg: "a parameter's gradient must have its shape".into(),
        });
    }
    Ok(true)
}
