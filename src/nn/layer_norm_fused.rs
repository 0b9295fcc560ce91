//! The fused path of [`super::layer_norm`]: one kernel call for the forward and one for the
//! backward (the LayerNorm family, `op::fused::layer_norm`) where the composed formula runs
//! about ten elementwise and reduction kernels each way. The forward's output also holds each row's
//! mean and `rsqrt(var + eps)`, which the backward reads.

use crate::device::policy::FusedKernels;
use crate::error::Result;
use crate::op::fused::layer_norm::LayerNormArgs;
use crate::op::fused::Fused;
use crate::storage::Storage;
use crate::tensor::node::BackwardFn;
use crate::tensor::Tensor;
use crate::DType;

/// A contiguous 1-D view of `t` and where it starts in its storage.
fn flat(t: &Tensor) -> Result<(Tensor, usize)> {
    let c = t.contiguous()?;
    let at = c.layout().offset();
    Ok((c, at))
}

/// Fused `F.layer_norm` of `x` over its last `k` dims (already checked against the weight and
/// bias shapes), or `None` where it does not apply and the caller composes: dtypes other than
/// f32 (for the input, the weight or the bias), empty input, and `set_fused_kernels(Never)`.
pub(super) fn layer_norm(
    x: &Tensor,
    k: usize,
    w: Option<&Tensor>,
    b: Option<&Tensor>,
    eps: f64,
) -> Result<Option<Tensor>> {
    let device = x.device();
    let all_f32 = x.dtype() == DType::F32 && [w, b].iter().flatten().all(|t| t.dtype() == DType::F32);
    if !all_f32 || x.numel() == 0 || crate::device::policy::fused_kernels() == FusedKernels::Never {
        return Ok(None);
    }
    let r = x.rank();
    let n: usize = x.shape()[r - k..].iter().product();
    let rows = x.numel() / n;
    let grad_mode = crate::autograd::no_grad();
    let (xc, x_offset) = flat(x)?;
    let wc = w.map(flat).transpose()?;
    let bc = b.map(flat).transpose()?;
    let args = LayerNormArgs {
        rows,
        n,
        eps: eps as f32,
        x_offset,
        w_offset: wc.as_ref().map(|c| c.1),
        b_offset: bc.as_ref().map(|c| c.1),
        backward: false,
        dy_offset: 0,
    };
    let op = "layer_norm";
    // Absent weights and biases are bound as x, which the programs do not read.
    let or_x = |c: &Option<(Tensor, usize)>| c.as_ref().map_or(xc.storage().clone(), |c| c.0.storage().clone());
    let (ws, bs) = (or_x(&wc), or_x(&bc));
    let storage = Storage::fused(Fused::LayerNorm(args), &[xc.storage(), &ws, &bs]).map_err(|e| e.in_op(op))?;
    crate::device::placement::record(op, &[device], device);
    let all = Tensor::from_parts(storage, &[args.forward_len()], DType::F32, device);
    let dims: Vec<isize> = x.shape().iter().map(|&d| d as isize).collect();
    let out = all.narrow(0, 0, rows * n)?.reshape(&dims)?;
    drop(grad_mode);
    let mut inputs = vec![x];
    inputs.extend(w);
    inputs.extend(b);
    let shapes: Vec<Vec<usize>> = inputs.iter().map(|t| t.shape().to_vec()).collect();
    let saved = (xc, wc.map(|c| c.0), bc.is_some());
    Ok(Some(Tensor::composite(out, op, &inputs, move |_| backward(args, saved, all, shapes))))
}

/// The rule: one backward call whose output holds dx, dw and db side by side.
fn backward(
    args: LayerNormArgs,
    (xc, wc, has_b): (Tensor, Option<Tensor>, bool),
    all: Tensor,
    shapes: Vec<Vec<usize>>,
) -> BackwardFn {
    Box::new(move |g, need| {
        let _grad_mode = crate::autograd::no_grad();
        let (dy, dy_offset) = flat(g)?;
        let a = LayerNormArgs { backward: true, dy_offset, ..args };
        // The backward reads no bias; absent weights are bound as x.
        let x = xc.storage();
        let w = wc.as_ref().map_or(x, |w| w.storage());
        let inputs = [x.as_ref(), w, x, all.storage(), dy.storage()];
        let storage = Storage::fused(Fused::LayerNorm(a), &inputs).map_err(|e| e.in_op("layer_norm_backward"))?;
        let t = Tensor::from_parts(storage, &[a.backward_len()], DType::F32, g.device());
        let region = |at: usize, shape: &[usize]| -> Result<Tensor> {
            let dims: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
            t.narrow(0, at, crate::shape::numel(shape))?.reshape(&dims)
        };
        let (rn, n) = (a.rows * a.n, a.n);
        let mut starts = vec![0];
        if wc.is_some() {
            starts.push(rn);
        }
        if has_b {
            starts.push(rn + n);
        }
        starts
            .iter()
            .zip(&shapes)
            .zip(need)
            .map(|((&at, shape), &want)| want.then(|| region(at, shape)).transpose())
            .collect()
    })
}
