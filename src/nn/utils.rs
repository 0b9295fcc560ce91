//! `nn::utils`: PyTorch's gradient clipping. `clip_grad_norm_` scales every gradient by
//! `max_norm / (total_norm + 1e-6)` when that is below 1 and returns the total norm as a tensor
//! on the first gradient's device, computed without waiting for the device (only
//! `error_if_nonfinite` reads it back, as PyTorch's does); `clip_grad_value_` clamps each
//! gradient element into `[-clip, clip]`. f32 gradients go through the multi-tensor kernels
//! (`op::fused::foreach`, PyTorch's `_foreach_norm` and `_foreach_mul_`) a few tensors a launch,
//! where the composed form launched a sum (two stages past 4,096 elements) and a product per
//! gradient: for a GPT's 39 gradients about 25 launches in place of about 110.

use std::sync::Arc;

use super::Parameter;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::op::fused::foreach::{ForeachArgs, ForeachOp, TENSORS};
use crate::op::fused::Fused;
use crate::storage::Storage;
use crate::tensor::Tensor;

/// Options of [`clip_grad_norm_`] (PyTorch's defaults: the 2-norm, no error on NaN/inf).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipGradNormOptions {
    /// The norm's p: 2 (the default), 1, `f64::INFINITY`, or any other p.
    pub norm_type: f64,
    /// Fail (before any gradient changes) when the total norm is NaN or infinite.
    pub error_if_nonfinite: bool,
}

impl Default for ClipGradNormOptions {
    fn default() -> Self {
        ClipGradNormOptions { norm_type: 2.0, error_if_nonfinite: false }
    }
}

/// The f32 gradients (indices into `gs`) in groups of at most [`TENSORS`] on one device, in
/// order: what one multi-tensor call takes. Empty gradients are left out: they add nothing to
/// the norm and scale to themselves.
fn f32_groups(gs: &[(Parameter, Tensor)]) -> Vec<(Device, Vec<usize>)> {
    let mut groups: Vec<(Device, Vec<usize>)> = Vec::new();
    for (i, (_, g)) in gs.iter().enumerate() {
        if g.dtype() != DType::F32 || g.numel() == 0 {
            continue;
        }
        match groups.iter_mut().rev().find(|(d, _)| *d == g.device()) {
            Some((_, members)) if members.len() < TENSORS => members.push(i),
            _ => groups.push((g.device(), vec![i])),
        }
    }
    groups
}

/// One multi-tensor call (`op::fused::foreach`) over the contiguous f32 `tensors` of one device
/// (then `coef` for a scale); no graph (the caller pauses recording).
fn foreach(op: ForeachOp, tensors: &[Tensor], coef: Option<&Tensor>) -> Result<(Storage, ForeachArgs)> {
    const OP: &str = "clip_grad_norm_";
    let Some(first) = tensors.first().filter(|_| tensors.len() <= TENSORS) else {
        return Err(Error::invalid(OP, format!("internal: a multi-tensor call takes 1 to {TENSORS} tensors")));
    };
    let mut args = ForeachArgs { op, count: tensors.len(), numel: [0; TENSORS], offsets: [0; TENSORS], coef_offset: 0 };
    let mut inputs: Vec<&Storage> = Vec::with_capacity(TENSORS + 1);
    for (t, x) in tensors.iter().enumerate() {
        args.numel[t] = x.numel();
        args.offsets[t] = x.layout().offset();
        inputs.push(x.storage());
    }
    if let Some(c) = coef {
        // The coefficient's slot follows every tensor's (the call's empty ones bind input 0).
        inputs.resize(TENSORS, first.storage());
        args.coef_offset = c.layout().offset();
        inputs.push(c.storage());
    }
    let call = Fused::Foreach(args);
    let storage = Storage::fused(call, &inputs).map_err(|e| e.in_op(OP))?;
    crate::device::placement::record(call.name(), &[first.device()], first.device());
    Ok((storage, args))
}

/// The gradients of `params` that exist (frozen and unused parameters have none).
fn grads(params: &[Parameter]) -> Vec<(Parameter, Tensor)> {
    params.iter().filter_map(|p| p.grad().map(|g| (p.clone(), g))).collect()
}

/// Scales the gradients of `params` so that their total `norm_type`-norm (the norm of every
/// gradient's norm) is at most `max_norm`, and returns that total norm before clipping, a 0-d
/// tensor (PyTorch's `torch.nn.utils.clip_grad_norm_`). A model without gradients gives 0.
pub fn clip_grad_norm_(params: &[Parameter], max_norm: f64, options: ClipGradNormOptions) -> Result<Tensor> {
    const OP: &str = "clip_grad_norm_";
    if max_norm.is_nan() {
        return Err(Error::invalid(OP, "max_norm is NaN; give a number (gradients are scaled to at most it)"));
    }
    let p = options.norm_type;
    let _g = crate::tensor::node::pause();
    let gs = grads(params);
    let Some((_, first)) = gs.first() else {
        return Tensor::scalar(0.0, DType::F32, None);
    };
    let home = first.device();
    // The p-norm of the gradients' p-norms. For p = 2 the f32 gradients give the sum of their
    // squares a few tensors a call (no squared copy of a gradient), the others one each, and
    // one root is taken at the end.
    let groups = f32_groups(&gs);
    let mut norms = Vec::with_capacity(gs.len());
    if p == 2.0 {
        for (device, members) in &groups {
            let xs = members.iter().map(|&i| gs[i].1.contiguous()).collect::<Result<Vec<_>>>()?;
            let (storage, _) = foreach(ForeachOp::SumSquares, &xs, None)?;
            norms.push(Tensor::from_parts(storage, &[], DType::F32, *device));
        }
    }
    for (_, g) in &gs {
        let n = match (p == 2.0, g.dtype()) {
            (true, DType::F32) => continue,
            (true, _) => g.to_dtype(DType::F32)?.square()?.sum_all()?,
            (false, _) => g.norm(p, &[], false)?.to_dtype(DType::F32)?,
        };
        norms.push(n);
    }
    let norms = norms.iter().map(|n| if n.device() == home { Ok(n.clone()) } else { moved(OP, n, home) });
    let mut norms = norms.collect::<Result<Vec<_>>>()?;
    if norms.is_empty() {
        // Only empty f32 gradients.
        norms.push(Tensor::scalar(0.0, DType::F32, Some(home))?);
    }
    let stacked = Tensor::stack(&norms, 0)?;
    let total = match p == 2.0 {
        true => stacked.sum_all()?.sqrt()?,
        false => stacked.norm(p, &[], false)?,
    };
    if options.error_if_nonfinite {
        let v = read(OP, &total)?;
        if !v.is_finite() {
            return Err(Error::invalid(
                OP,
                format!("the total norm of order {p} of the gradients is {v}, so they cannot be clipped; set error_if_nonfinite to false to clip anyway"),
            ));
        }
    }
    // min(max_norm / (total + 1e-6), 1), on the device, as PyTorch computes it.
    let coef = total.add_scalar(1e-6)?.reciprocal()?.mul_scalar(max_norm)?.clamp(None, Some(1.0))?;
    let coef_on = |d: Device| if d == home { Ok(coef.clone()) } else { moved(OP, &coef, d) };
    // The f32 gradients scaled a few a call, each then a view of the call's flat output.
    for (device, members) in &groups {
        let c = coef_on(*device)?;
        let xs = members.iter().map(|&i| gs[i].1.contiguous()).collect::<Result<Vec<_>>>()?;
        let (storage, args) = foreach(ForeachOp::Scale, &xs, Some(&c))?;
        let storage = Arc::new(storage);
        for (t, &i) in members.iter().enumerate() {
            let g = &gs[i].1;
            let view = (g.shape(), args.out_start(t));
            let scaled = Tensor::from_op_nondiff_shared(&storage, view, *device, "foreach_mul", &[g]);
            gs[i].0.tensor().set_grad(Some(scaled))?;
        }
    }
    for (param, g) in gs.iter().filter(|(_, g)| g.dtype() != DType::F32) {
        let c = coef_on(g.device())?;
        param.tensor().set_grad(Some(g.mul(&c.to_dtype(g.dtype())?)?))?;
    }
    Ok(total)
}

/// Clamps every gradient element of `params` into `[-clip_value, clip_value]` (PyTorch's
/// `torch.nn.utils.clip_grad_value_`).
pub fn clip_grad_value_(params: &[Parameter], clip_value: f64) -> Result<()> {
    const OP: &str = "clip_grad_value_";
    if clip_value.is_nan() || clip_value < 0.0 {
        return Err(Error::invalid(OP, format!("clip_value must be a number >= 0, got {clip_value}")));
    }
    let _g = crate::tensor::node::pause();
    for (param, g) in grads(params) {
        param.tensor().set_grad(Some(g.clamp(Some(-clip_value), Some(clip_value))?))?;
    }
    Ok(())
}

/// `t` on `device`: natively a blocking move; in a browser gradients on several devices
/// cannot be combined without awaiting, so that is an error that says so.
fn moved(op: &'static str, t: &Tensor, device: crate::Device) -> Result<Tensor> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = op;
        t.to_blocking(device)
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = (t, device);
        Err(Error::invalid(
            op,
            "the gradients are on several devices; in a browser clip each device's parameters separately",
        ))
    }
}

/// The value of a one-element tensor, read back (blocking natively; on the web only from the cpu).
fn read(op: &'static str, t: &Tensor) -> Result<f32> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = op;
        t.item_blocking::<f32>()
    }
    #[cfg(target_arch = "wasm32")]
    {
        if t.device() != crate::Device::CPU {
            return Err(Error::invalid(op, "error_if_nonfinite reads the norm back, which a browser cannot wait for here; check the returned norm with await norm.item() instead"));
        }
        t.with_cpu_elements(|data, range| match data {
            crate::dtype::CpuData::F32(v) => v.get(range.start).copied(),
            _ => None,
        })
        .ok_or_else(|| Error::invalid(op, "internal: the norm is not an f32 on the cpu"))
    }
}
