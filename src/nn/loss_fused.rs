//! The fused path of [`super::loss::cross_entropy`] with class indices: one kernel call for the
//! per-sample losses and one for the scores' gradient (the cross-entropy family,
//! `op::fused::cross_entropy`) where the composed formula runs log-softmax, a gather and the masking
//! kernels each way and keeps the `[N, C]` log-probabilities for backward; the fused forward
//! keeps each row's log-sum-exp.

use crate::device::policy::FusedKernels;
use crate::dtype::DType;
use crate::error::Result;
use crate::op::fused::cross_entropy::CrossEntropyArgs;
use crate::op::fused::Fused;
use crate::storage::Storage;
use crate::tensor::node::BackwardFn;
use crate::tensor::Tensor;

const OP: &str = "cross_entropy";

/// A contiguous view of `t` and where it starts in its storage.
fn flat(t: &Tensor) -> Result<(Tensor, usize)> {
    let c = t.contiguous()?;
    let at = c.layout().offset();
    Ok((c, at))
}

/// The per-sample losses (`[M]`, 0 where the target is ignored) of scores `x` (`[M, C]`)
/// against class indices `t` (`[M]`), or `None` where the fused kernel does not apply and the
/// caller composes: scores other than f32, no rows or classes, and `set_fused_kernels(Never)`.
/// Targets outside `0..C` (other than `ignore`) fail as the composed gather's do: at once on the
/// CPU, at the next readback on GPUs.
pub(super) fn cross_entropy(x: &Tensor, t: &Tensor, ignore: Option<i64>, smoothing: f64) -> Result<Option<Tensor>> {
    let (rows, classes) = (x.shape()[0], x.shape()[1]);
    if x.dtype() != DType::F32
        || rows == 0
        || classes == 0
        || crate::device::policy::fused_kernels() == FusedKernels::Never
    {
        return Ok(None);
    }
    // An ignore value no i32 target can equal ignores nothing.
    let ignore = ignore.and_then(|i| i32::try_from(i).ok());
    let (tc, t_offset) = {
        let _off = crate::autograd::no_grad();
        flat(&t.to_dtype(DType::I32)?)?
    };
    crate::tensor::checks::check_index_skipping(OP, &tc, 1, classes, ignore)?;
    let grad_mode = crate::autograd::no_grad();
    let (xc, x_offset) = flat(x)?;
    let args = CrossEntropyArgs {
        rows,
        classes,
        x_offset,
        t_offset,
        ignore,
        smoothing: smoothing as f32,
        backward: false,
        g_offset: 0,
    };
    let storage = Storage::fused(Fused::CrossEntropy(args), &[xc.storage(), tc.storage()]).map_err(|e| e.in_op(OP))?;
    let device = x.device();
    crate::device::placement::record(OP, &[device, t.device()], device);
    let all = Tensor::from_parts(storage, &[args.forward_len()], DType::F32, device);
    let losses = all.narrow(0, 0, rows)?;
    drop(grad_mode);
    Ok(Some(Tensor::composite(losses, OP, &[x], move |_| backward(args, xc, tc, all))))
}

/// The rule: one call whose output is the scores' gradient.
fn backward(args: CrossEntropyArgs, xc: Tensor, tc: Tensor, all: Tensor) -> BackwardFn {
    Box::new(move |g, _| {
        let _grad_mode = crate::autograd::no_grad();
        let (gc, g_offset) = flat(g)?;
        let a = CrossEntropyArgs { backward: true, g_offset, ..args };
        let inputs = [xc.storage().as_ref(), tc.storage(), all.storage(), gc.storage()];
        let storage = Storage::fused(Fused::CrossEntropy(a), &inputs).map_err(|e| e.in_op("cross_entropy_backward"))?;
        let dx = Tensor::from_parts(storage, &[a.rows, a.classes], DType::F32, g.device());
        Ok(vec![Some(dx)])
    })
}
