//! Normalisation as functions, PyTorch's `F.layer_norm`, `F.batch_norm` and `F.group_norm`,
//! composed from differentiable ops (so their gradients come from the ops' own rules). The
//! variance that normalises is the biased one (divide by n), as PyTorch's.

use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The mean over `dims` (kept), `x - mean` and the biased variance, from one mean (the same
/// ops `Tensor::var` runs, without computing the mean twice).
fn moments(x: &Tensor, dims: &[isize]) -> Result<(Tensor, Tensor, Tensor)> {
    let mean = x.mean(dims, true)?;
    let centered = x.sub(&mean)?;
    let var = centered.square()?.mean(dims, true)?;
    Ok((mean, centered, var))
}

/// `(x - mean) / sqrt(var + eps)` over `dims`.
fn normalize(x: &Tensor, dims: &[isize], eps: f64) -> Result<Tensor> {
    let (_, centered, var) = moments(x, dims)?;
    centered.mul(&var.add_scalar(eps)?.rsqrt()?)
}

/// Multiplies by `weight` and adds `bias` (each optional), already shaped to broadcast.
fn affine(y: Tensor, weight: Option<&Tensor>, bias: Option<&Tensor>) -> Result<Tensor> {
    let y = match weight {
        Some(w) => y.mul(w)?,
        None => y,
    };
    match bias {
        Some(b) => y.add(b),
        None => Ok(y),
    }
}

/// Checks that an affine tensor has `shape`.
fn check_shape(op: &'static str, what: &str, t: Option<&Tensor>, shape: &[usize]) -> Result<()> {
    match t {
        Some(t) if t.shape() != shape => Err(Error::ShapeMismatch {
            op,
            lhs: shape.to_vec(),
            rhs: t.shape().to_vec(),
            msg: format!("{what} must have shape {shape:?}, got {:?}", t.shape()),
        }),
        _ => Ok(()),
    }
}

/// Layer normalisation over the last `normalized_shape.len()` dims of `x`, which must equal
/// `normalized_shape`; `weight` and `bias` (if given) have that shape.
pub fn layer_norm(
    x: &Tensor,
    normalized_shape: &[usize],
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<Tensor> {
    const OP: &str = "layer_norm";
    let k = normalized_shape.len();
    if k == 0 || x.rank() < k || x.shape()[x.rank() - k..] != *normalized_shape {
        return Err(Error::ShapeMismatch {
            op: OP,
            lhs: x.shape().to_vec(),
            rhs: normalized_shape.to_vec(),
            msg: format!(
                "the input's last dims must be normalized_shape {normalized_shape:?} (a non-empty shape), got input {:?}",
                x.shape()
            ),
        });
    }
    check_shape(OP, "weight", weight, normalized_shape)?;
    check_shape(OP, "bias", bias, normalized_shape)?;
    for t in [weight, bias].into_iter().flatten() {
        x.same_device(t, OP)?;
    }
    if let Some(y) = super::layer_norm_fused::layer_norm(x, k, weight, bias, eps)? {
        return Ok(y);
    }
    let dims: Vec<isize> = (-(k as isize)..0).collect();
    affine(normalize(x, &dims, eps)?, weight, bias)
}

/// The shape `[1, C, 1, ...]` of `x`'s rank, for per-channel tensors.
fn channel_shape(x: &Tensor) -> Vec<isize> {
    let mut s = vec![1isize; x.rank()];
    s[1] = x.shape()[1] as isize;
    s
}

/// Checks `x` is `[N, C, *]` and returns (C, the reduced dims `[0, 2, 3, ...]`, elements per
/// channel).
fn channels(op: &'static str, x: &Tensor) -> Result<(usize, Vec<isize>, usize)> {
    if x.rank() < 2 {
        return Err(Error::invalid(op, format!("the input must be [N, C, *] (at least 2-d), got {:?}", x.shape())));
    }
    let c = x.shape()[1];
    let dims: Vec<isize> = std::iter::once(0).chain(2..x.rank() as isize).collect();
    let per = x.numel() / c.max(1);
    Ok((c, dims, per))
}

/// Batch normalisation of `[N, C, *]` input, PyTorch's `F.batch_norm` without the in-place
/// running-statistics update (the `BatchNorm` modules do that): with `training` it normalises
/// by the batch's own per-channel statistics, otherwise by `running_mean`/`running_var` (`[C]`
/// each; required then, as in PyTorch). `weight` and `bias` are `[C]`.
pub fn batch_norm(
    x: &Tensor,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    training: bool,
    eps: f64,
) -> Result<Tensor> {
    Ok(batch_norm_with_stats(x, running_mean, running_var, weight, bias, training, eps)?.0)
}

/// [`batch_norm`], also returning, when `training`, the batch's per-channel mean and biased
/// variance (`[C]` each, still in the graph), which the modules' running statistics are
/// updated from without reducing the batch a second time.
#[allow(clippy::type_complexity)]
pub(crate) fn batch_norm_with_stats(
    x: &Tensor,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    training: bool,
    eps: f64,
) -> Result<(Tensor, Option<(Tensor, Tensor)>)> {
    const OP: &str = "batch_norm";
    let (c, dims, per) = channels(OP, x)?;
    for (what, t) in [("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)]
    {
        check_shape(OP, what, t, &[c])?;
    }
    let cs = channel_shape(x);
    let shaped = |t: Option<&Tensor>| t.map(|t| t.reshape(&cs)).transpose();
    let (w, b) = (shaped(weight)?, shaped(bias)?);
    let (y, stats) = match (training, running_mean, running_var) {
        (false, Some(m), Some(v)) => (x.sub(&m.reshape(&cs)?)?.mul(&v.reshape(&cs)?.add_scalar(eps)?.rsqrt()?)?, None),
        (false, _, _) => return Err(Error::invalid(
            OP,
            "evaluation (training = false) normalises by running_mean and running_var: pass both, or training = true",
        )),
        (true, _, _) => {
            if per <= 1 {
                return Err(Error::invalid(
                    OP,
                    format!("training needs more than 1 value per channel, got input {:?}", x.shape()),
                ));
            }
            let (mean, centered, var) = moments(x, &dims)?;
            let y = centered.mul(&var.add_scalar(eps)?.rsqrt()?)?;
            (y, Some((mean.reshape(&[c as isize])?, var.reshape(&[c as isize])?)))
        }
    };
    Ok((affine(y, w.as_ref(), b.as_ref())?, stats))
}

/// Group normalisation of `[N, C, *]` input over `num_groups` groups of `C / num_groups`
/// channels each; `weight` and `bias` are `[C]`.
pub fn group_norm(
    x: &Tensor,
    num_groups: usize,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<Tensor> {
    const OP: &str = "group_norm";
    let (c, _, _) = channels(OP, x)?;
    if num_groups == 0 || !c.is_multiple_of(num_groups) {
        return Err(Error::invalid(OP, format!("{c} channels cannot be split into {num_groups} equal groups")));
    }
    check_shape(OP, "weight", weight, &[c])?;
    check_shape(OP, "bias", bias, &[c])?;
    let n = x.shape()[0] as isize;
    let grouped = x.reshape(&[n, num_groups as isize, -1])?;
    let y = normalize(&grouped, &[2], eps)?.reshape(&x.shape().iter().map(|&d| d as isize).collect::<Vec<_>>())?;
    let cs = channel_shape(x);
    let shaped = |t: Option<&Tensor>| t.map(|t| t.reshape(&cs)).transpose();
    affine(y, shaped(weight)?.as_ref(), shaped(bias)?.as_ref())
}
