//! Losses (PyTorch's `torch.nn.functional` ones), built from differentiable ops so their
//! gradients come from the ops' rules: `cross_entropy` (class indices or class probabilities,
//! `ignore_index` with PyTorch's default -100, `label_smoothing`, inputs `[C]`, `[N, C]` or
//! `[N, C, d1, ...]`), `nll_loss`, `mse_loss`, `l1_loss`, `binary_cross_entropy_with_logits`.
//! A class index out of range is an error on every device (on GPUs at the next readback, see
//! `tensor/checks.rs`).

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// How a loss folds its per-element values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reduction {
    /// The mean (for `cross_entropy`/`nll_loss`, over the targets that are not ignored).
    #[default]
    Mean,
    /// The sum.
    Sum,
    /// No folding: one value per element (per sample for the classification losses).
    None,
}

impl std::str::FromStr for Reduction {
    type Err = Error;
    fn from_str(s: &str) -> Result<Reduction> {
        match s {
            "mean" => Ok(Reduction::Mean),
            "sum" => Ok(Reduction::Sum),
            "none" => Ok(Reduction::None),
            _ => Err(Error::invalid("reduction", format!("'{s}' is not a reduction; expected mean, sum or none"))),
        }
    }
}

/// PyTorch's default `ignore_index` of the classification losses.
pub const DEFAULT_IGNORE_INDEX: i64 = -100;

/// Options of [`cross_entropy`] and [`nll_loss`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClassLossOptions {
    /// How to fold the per-sample losses.
    pub reduction: Reduction,
    /// A target value that contributes nothing (and is not counted by the mean); PyTorch's
    /// -100 by default. None checks every target.
    pub ignore_index: Option<i64>,
    /// Cross-entropy only: mixes the target with the uniform distribution by this amount.
    pub label_smoothing: f64,
}

impl Default for ClassLossOptions {
    fn default() -> Self {
        ClassLossOptions { reduction: Reduction::Mean, ignore_index: Some(DEFAULT_IGNORE_INDEX), label_smoothing: 0.0 }
    }
}

fn reduce(x: Tensor, reduction: Reduction) -> Result<Tensor> {
    match reduction {
        Reduction::Mean => x.mean_all(),
        Reduction::Sum => x.sum_all(),
        Reduction::None => Ok(x),
    }
}

fn check_pair(op: &'static str, input: &Tensor, target: &Tensor) -> Result<()> {
    input.same_device(target, op)?;
    if input.shape() != target.shape() {
        return Err(Error::ShapeMismatch {
            op,
            lhs: input.shape().to_vec(),
            rhs: target.shape().to_vec(),
            msg: "input and target must have the same shape".into(),
        });
    }
    Ok(())
}

/// `mean((input - target)^2)` (or its sum, or each term).
pub fn mse_loss(input: &Tensor, target: &Tensor, reduction: Reduction) -> Result<Tensor> {
    check_pair("mse_loss", input, target)?;
    reduce(input.sub(target)?.square()?, reduction)
}

/// `mean(|input - target|)`.
pub fn l1_loss(input: &Tensor, target: &Tensor, reduction: Reduction) -> Result<Tensor> {
    check_pair("l1_loss", input, target)?;
    reduce(input.sub(target)?.abs()?, reduction)
}

/// Binary cross-entropy of `sigmoid(logits)` against `target` in [0, 1], computed stably as
/// `max(x, 0) - x t + log(1 + e^-|x|)`.
pub fn binary_cross_entropy_with_logits(logits: &Tensor, target: &Tensor, reduction: Reduction) -> Result<Tensor> {
    check_pair("binary_cross_entropy_with_logits", logits, target)?;
    // maximum (not relu) so that the gradient at 0 is PyTorch's sigmoid(0) - t.
    let x = logits;
    let loss = x.maximum_scalar(0.0)?.sub(&x.mul(target)?)?.add(&x.abs()?.neg()?.exp()?.add_scalar(1.0)?.log()?)?;
    reduce(loss, reduction)
}

/// Scores `[N, C, d1, ...]` as rows `[N * d1 * ..., C]`: the class dim moved last, then
/// flattened (a no-op for `[N, C]`).
fn class_rows(x: &Tensor) -> Result<Tensor> {
    if x.rank() == 2 {
        return Ok(x.clone());
    }
    let mut dims: Vec<isize> = (0..x.rank() as isize).filter(|&d| d != 1).collect();
    dims.push(1);
    x.permute(&dims)?.reshape(&[-1, x.shape()[1] as isize])
}

/// The classification losses' inputs as rows: scores `[M, C]`, targets `[M]` (class indices)
/// or `[M, C]` (probabilities, same shape as the input), and the shape of the per-sample losses
/// (`[]` for an unbatched `[C]` input, `[N]`, or `[N, d1, ...]`).
fn class_inputs(op: &'static str, input: &Tensor, target: &Tensor) -> Result<(Tensor, Tensor, Vec<usize>)> {
    input.same_device(target, op)?;
    let probabilities = target.dtype().is_float();
    if !probabilities && !target.dtype().is_int() {
        return Err(Error::invalid(
            op,
            format!("targets must be class indices (int32) or class probabilities (a float tensor of the input's shape), got {}", target.dtype()),
        ));
    }
    let shape_error = |msg: &str| Error::ShapeMismatch {
        op,
        lhs: input.shape().to_vec(),
        rhs: target.shape().to_vec(),
        msg: msg.into(),
    };
    if input.rank() == 0 {
        return Err(shape_error("expected input [C], [N, C] or [N, C, d1, ...]"));
    }
    let (x, per_sample) = if input.rank() == 1 {
        (input.unsqueeze(0)?, vec![])
    } else {
        let mut per_sample = input.shape().to_vec();
        per_sample.remove(1);
        (class_rows(input)?, per_sample)
    };
    if probabilities {
        if target.shape() != input.shape() {
            return Err(shape_error("class probabilities must have the input's shape"));
        }
        let t = if input.rank() == 1 { target.unsqueeze(0)? } else { class_rows(target)? };
        let t = t.to_dtype(x.dtype())?;
        return Ok((x, t, per_sample));
    }
    if target.shape() != per_sample.as_slice() {
        return Err(shape_error(
            "expected class-index targets of the input's shape without its class dim 1 ([N] for [N, C], [N, d1, ...] for [N, C, d1, ...], 0-d for [C])",
        ));
    }
    Ok((x, target.reshape(&[-1])?, per_sample))
}

/// The per-sample negative log-likelihood of `logp` ([N, C] log-probabilities) at the targets,
/// the mask of counted samples, and the targets made safe to gather (ignored ones point at 0).
fn picked(op: &'static str, logp: &Tensor, t: &Tensor, ignore: Option<i64>) -> Result<(Tensor, Option<Tensor>)> {
    let t = t.to_dtype(DType::I32)?;
    let (safe, mask) = match ignore {
        Some(ii) => {
            let keep = t.ne_scalar(ii as f64)?;
            (keep.where_(&t, &t.zeros_like()?)?, Some(keep.to_dtype(logp.dtype())?))
        }
        None => (t, None),
    };
    let nll = logp.gather_as(1, &safe.unsqueeze(1)?, op)?.squeeze(Some(1))?.neg()?;
    Ok((nll, mask))
}

fn fold(per_sample: Tensor, mask: Option<Tensor>, reduction: Reduction, shape: &[usize]) -> Result<Tensor> {
    let per_sample = match &mask {
        Some(m) => per_sample.mul(m)?,
        None => per_sample,
    };
    match reduction {
        // PyTorch's mean divides by the number of samples that count.
        Reduction::Mean => match mask {
            Some(m) => per_sample.sum_all()?.div(&m.sum_all()?),
            None => per_sample.mean_all(),
        },
        Reduction::Sum => per_sample.sum_all(),
        Reduction::None => per_sample.reshape(&shape.iter().map(|&d| d as isize).collect::<Vec<_>>()),
    }
}

/// [`fold`] for per-sample losses that are already 0 at the ignored targets (the fused
/// kernel's): the mean still divides by the number of targets that count.
fn fold_counted(per_sample: Tensor, t: &Tensor, options: ClassLossOptions, shape: &[usize]) -> Result<Tensor> {
    match (options.reduction, options.ignore_index) {
        (Reduction::Mean, Some(ii)) => {
            let counted = t.ne_scalar(ii as f64)?.to_dtype(per_sample.dtype())?.sum_all()?;
            per_sample.sum_all()?.div(&counted)
        }
        (reduction, _) => fold(per_sample, None, reduction, shape),
    }
}

/// Negative log-likelihood of log-probabilities `input` ([N, C]) at class indices `target`.
pub fn nll_loss(input: &Tensor, target: &Tensor, options: ClassLossOptions) -> Result<Tensor> {
    const OP: &str = "nll_loss";
    if target.dtype().is_float() {
        return Err(Error::invalid(
            OP,
            format!(
                "targets must be class indices (int32), got {}; class probabilities are cross_entropy's",
                target.dtype()
            ),
        ));
    }
    let (x, t, shape) = class_inputs(OP, input, target)?;
    let (nll, mask) = picked(OP, &x, &t, options.ignore_index)?;
    fold(nll, mask, options.reduction, &shape)
}

/// Cross-entropy of raw scores `input` (`[N, C]`, `[C]` or `[N, C, d1, ...]`, classes along the
/// second dim) against class indices `target` (int32, the input's shape without dim 1) or class
/// probabilities (a float tensor of the input's shape): `nll_loss(log_softmax(input))`, with
/// label smoothing mixing in the uniform distribution, as PyTorch's `F.cross_entropy`.
pub fn cross_entropy(input: &Tensor, target: &Tensor, options: ClassLossOptions) -> Result<Tensor> {
    const OP: &str = "cross_entropy";
    if !(0.0..=1.0).contains(&options.label_smoothing) {
        return Err(Error::invalid(OP, format!("label_smoothing must be in [0, 1], got {}", options.label_smoothing)));
    }
    let (x, t, shape) = class_inputs(OP, input, target)?;
    let eps = options.label_smoothing;
    if t.rank() == 1 {
        if let Some(per_sample) = super::loss_fused::cross_entropy(&x, &t, options.ignore_index, eps)? {
            return fold_counted(per_sample, &t, options, &shape);
        }
    }
    let logp = x.log_softmax(-1)?;
    if t.rank() == 2 {
        // Probabilities: -sum(p log q) per sample; the mean is over samples (PyTorch's).
        let classes = x.shape()[1] as f64;
        let p = if eps > 0.0 { t.mul_scalar(1.0 - eps)?.add_scalar(eps / classes)? } else { t };
        return fold(p.mul(&logp)?.sum(&[1], false)?.neg()?, None, options.reduction, &shape);
    }
    let (nll, mask) = picked(OP, &logp, &t, options.ignore_index)?;
    let per_sample = if eps > 0.0 {
        let classes = x.shape()[1] as f64;
        let smooth = logp.sum(&[1], false)?.neg()?.div_scalar(classes)?;
        nll.mul_scalar(1.0 - eps)?.add(&smooth.mul_scalar(eps)?)?
    } else {
        nll
    };
    fold(per_sample, mask, options.reduction, &shape)
}
