//! Losses (PyTorch's `torch.nn.functional` ones), built from differentiable ops so their
//! gradients come from the ops' rules: `cross_entropy` (class indices, `ignore_index`,
//! `label_smoothing`), `nll_loss`, `mse_loss`, `l1_loss`, `binary_cross_entropy_with_logits`.

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

/// Options of [`cross_entropy`] and [`nll_loss`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ClassLossOptions {
    /// How to fold the per-sample losses.
    pub reduction: Reduction,
    /// A target value that contributes nothing (and is not counted by the mean).
    pub ignore_index: Option<i64>,
    /// Cross-entropy only: mixes the target with the uniform distribution by this amount.
    pub label_smoothing: f64,
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

/// Checks class-index targets against `[N, C]` (or `[C]` with a 0-d target) scores and returns
/// (scores as [N, C], targets as [N], whether the input had no batch dim).
fn class_inputs(op: &'static str, input: &Tensor, target: &Tensor) -> Result<(Tensor, Tensor, bool)> {
    input.same_device(target, op)?;
    if !matches!(target.dtype(), DType::I32 | DType::U32) {
        return Err(Error::invalid(
            op,
            format!(
                "targets must be class indices of int32 (got {}); for probabilities use a soft-target loss",
                target.dtype()
            ),
        ));
    }
    let unbatched = input.rank() == 1;
    let (x, t) = if unbatched { (input.unsqueeze(0)?, target.reshape(&[1])?) } else { (input.clone(), target.clone()) };
    if x.rank() != 2 || t.rank() != 1 || t.shape()[0] != x.shape()[0] {
        return Err(Error::ShapeMismatch {
            op,
            lhs: input.shape().to_vec(),
            rhs: target.shape().to_vec(),
            msg: "expected input [N, C] with target [N] (or input [C] with a 0-d target)".into(),
        });
    }
    Ok((x, t, unbatched))
}

/// The per-sample negative log-likelihood of `logp` ([N, C] log-probabilities) at the targets,
/// the mask of counted samples, and the targets made safe to gather (ignored ones point at 0).
fn picked(logp: &Tensor, t: &Tensor, ignore: Option<i64>) -> Result<(Tensor, Option<Tensor>)> {
    let t = t.to_dtype(DType::I32)?;
    let (safe, mask) = match ignore {
        Some(ii) => {
            let keep = t.ne_scalar(ii as f64)?;
            (keep.where_(&t, &t.zeros_like()?)?, Some(keep.to_dtype(logp.dtype())?))
        }
        None => (t, None),
    };
    let nll = logp.gather(1, &safe.unsqueeze(1)?)?.squeeze(Some(1))?.neg()?;
    Ok((nll, mask))
}

fn fold(per_sample: Tensor, mask: Option<Tensor>, reduction: Reduction, unbatched: bool) -> Result<Tensor> {
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
        Reduction::None if unbatched => per_sample.reshape(&[]),
        Reduction::None => Ok(per_sample),
    }
}

/// Negative log-likelihood of log-probabilities `input` ([N, C]) at class indices `target`.
pub fn nll_loss(input: &Tensor, target: &Tensor, options: ClassLossOptions) -> Result<Tensor> {
    let (x, t, unbatched) = class_inputs("nll_loss", input, target)?;
    let (nll, mask) = picked(&x, &t, options.ignore_index)?;
    fold(nll, mask, options.reduction, unbatched)
}

/// Cross-entropy of raw scores `input` ([N, C]) against class indices `target` ([N], int32):
/// `nll_loss(log_softmax(input))`, with label smoothing mixing in the uniform distribution.
pub fn cross_entropy(input: &Tensor, target: &Tensor, options: ClassLossOptions) -> Result<Tensor> {
    const OP: &str = "cross_entropy";
    if !(0.0..=1.0).contains(&options.label_smoothing) {
        return Err(Error::invalid(OP, format!("label_smoothing must be in [0, 1], got {}", options.label_smoothing)));
    }
    let (x, t, unbatched) = class_inputs(OP, input, target)?;
    let logp = x.log_softmax(-1)?;
    let (nll, mask) = picked(&logp, &t, options.ignore_index)?;
    let eps = options.label_smoothing;
    let per_sample = if eps > 0.0 {
        let classes = x.shape()[1] as f64;
        let smooth = logp.sum(&[1], false)?.neg()?.div_scalar(classes)?;
        nll.mul_scalar(1.0 - eps)?.add(&smooth.mul_scalar(eps)?)?
    } else {
        nll
    };
    fold(per_sample, mask, options.reduction, unbatched)
}
