//! The fused update path shared by the optimizers: one kernel per parameter (see
//! `op/optim.rs`) where it applies, `None` where the caller must run the update as separate
//! ops instead (f16 parameters, and a tensor past one GPU binding, which only the separate ops
//! can split).

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::op::optim::{OptimStep, FIRST};
use crate::storage::Storage;
use crate::tensor::Tensor;

/// The new parameter and the new state tensors, or `None` for the separate-ops path. `state` is
/// ignored on the first step (`FIRST`); otherwise it holds `step.kind.states()` tensors of the
/// parameter's shape on its device.
pub(crate) fn update(
    step: &OptimStep,
    param: &Tensor,
    grad: &Tensor,
    state: &[Tensor],
) -> Result<Option<(Tensor, Vec<Tensor>)>> {
    const OP: &str = "optimizer step";
    if param.dtype() != DType::F32 || grad.dtype() != DType::F32 || state.iter().any(|s| s.dtype() != DType::F32) {
        return Ok(None);
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
    let first = step.flags & FIRST != 0;
    let mut inputs = vec![param.contiguous()?, grad.contiguous()?];
    if !first {
        inputs.extend(state.iter().map(Tensor::contiguous).collect::<Result<Vec<_>>>()?);
    }
    let refs: Vec<_> = inputs.iter().map(|t| (t.storage(), t.layout().offset())).collect();
    let outs = match Storage::optim(step, &refs, param.numel()) {
        Ok(outs) => outs,
        Err(Error::TooLarge { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    let handles: Vec<&Tensor> = inputs.iter().collect();
    let mut tensors =
        outs.into_iter().map(|s| Tensor::from_op_nondiff(s, param.shape(), DType::F32, param.device(), OP, &handles));
    let Some(next) = tensors.next() else {
        return Err(Error::invalid(OP, "the update returned no parameter"));
    };
    Ok(Some((next, tensors.collect())))
}
