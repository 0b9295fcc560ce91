//! `nn::utils`: PyTorch's gradient clipping. `clip_grad_norm_` scales every gradient by
//! `max_norm / (total_norm + 1e-6)` when that is below 1 and returns the total norm as a tensor
//! on the first gradient's device, computed without waiting for the device (only
//! `error_if_nonfinite` reads it back, as PyTorch's does); `clip_grad_value_` clamps each
//! gradient element into `[-clip, clip]`.

use super::Parameter;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::op::fused::sum_squares::SumSquaresArgs;
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

/// The sum of squares of f32 `g` as a 0-d tensor on its device, by the fused family
/// (`op::fused::sum_squares`); no graph (the caller pauses recording).
fn sum_squares(g: &Tensor) -> Result<Tensor> {
    const OP: &str = "clip_grad_norm_";
    let g = g.contiguous()?;
    let args = SumSquaresArgs { n: g.numel(), src_offset: g.layout().offset() };
    let storage = Storage::fused(Fused::SumSquares(args), &[g.storage()]).map_err(|e| e.in_op(OP))?;
    crate::device::placement::record("sum_squares", &[g.device()], g.device());
    Ok(Tensor::from_parts(storage, &[], DType::F32, g.device()))
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
    // The p-norm of the gradients' p-norms. For p = 2 each gradient gives its sum of squares
    // (one fused call for f32: no squared copy of the gradient) and one root is taken at the
    // end.
    let mut norms = Vec::with_capacity(gs.len());
    for (_, g) in &gs {
        let n = match (p == 2.0, g.dtype()) {
            (true, DType::F32) => sum_squares(g)?,
            (true, _) => g.to_dtype(DType::F32)?.square()?.sum_all()?,
            (false, _) => g.norm(p, &[], false)?.to_dtype(DType::F32)?,
        };
        norms.push(if n.device() == home { n } else { moved(OP, &n, home)? });
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
    for (param, g) in &gs {
        let c = if g.device() == home { coef.clone() } else { moved(OP, &coef, g.device())? };
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
