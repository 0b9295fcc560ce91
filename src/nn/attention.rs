//! `scaled_dot_product_attention`, PyTorch's `F.scaled_dot_product_attention` by its reference
//! ("math") formula: `softmax(q k^T * scale + mask) v`, composed from matmul, masking and
//! softmax so its gradient comes from their rules; a fully masked query gets zero weights, as
//! PyTorch's safe softmax gives. Where it applies, the fused kernel (attention_fused.rs) gives
//! the same values without storing the `[.., L, S]` probabilities.

use super::attention_fused::Fused;
use crate::error::{Error, Result};
use crate::nn::dropout::dropout;
use crate::tensor::Tensor;
use crate::DType;

/// Options of [`scaled_dot_product_attention`] (PyTorch's defaults: no mask, no dropout, not
/// causal, scale `1 / sqrt(E)`).
#[derive(Clone, Default)]
pub struct AttentionOptions {
    /// A mask broadcastable to `[.., L, S]`: bool (true takes part) or float (added to the
    /// scores).
    pub attn_mask: Option<Tensor>,
    /// Dropout probability on the attention weights.
    pub dropout_p: f64,
    /// Query `i` attends to keys `0..=i` only (the top-left causal mask); not with `attn_mask`.
    pub is_causal: bool,
    /// The factor on `q k^T`; `None` is `1 / sqrt(E)`.
    pub scale: Option<f64>,
    /// Seed of the dropout mask (`None` draws from the global generator).
    pub seed: Option<u64>,
    /// Use the reference ("math") formula, composed from matmul, masking and softmax, instead
    /// of the fused kernel (PyTorch's math backend), which stores the `[.., L, S]`
    /// probabilities: to compare against. The fused kernel is the default wherever it applies
    /// (f32 on the CPU and wgpu; see attention_fused.rs).
    pub math: bool,
}

/// Attention of `query` `[.., L, E]` over `key` `[.., S, E]` and `value` `[.., S, Ev]`:
/// `[.., L, Ev]`. Batch dims broadcast.
pub fn scaled_dot_product_attention(
    query: &Tensor,
    key: &Tensor,
    value: &Tensor,
    options: &AttentionOptions,
) -> Result<Tensor> {
    let op = "scaled_dot_product_attention";
    query.same_device(key, op)?;
    query.same_device(value, op)?;
    if query.rank() < 2 || key.rank() < 2 || value.rank() < 2 {
        return Err(Error::invalid(
            op,
            "query, key and value need at least 2 dims ([.., L, E], [.., S, E], [.., S, Ev])",
        ));
    }
    let e = query.shape()[query.rank() - 1];
    let (l, s) = (query.shape()[query.rank() - 2], key.shape()[key.rank() - 2]);
    if key.shape()[key.rank() - 1] != e || value.shape()[value.rank() - 2] != s {
        return Err(Error::ShapeMismatch {
            op,
            lhs: key.shape().to_vec(),
            rhs: value.shape().to_vec(),
            msg: format!("key must be [.., S, {e}] like the query's last dim and value [.., S, Ev] with the key's S"),
        });
    }
    if options.is_causal && options.attn_mask.is_some() {
        return Err(Error::invalid(op, "give attn_mask or is_causal, not both (as PyTorch)"));
    }
    let scale = options.scale.unwrap_or(1.0 / (e as f64).sqrt());
    if let Some(m) = &options.attn_mask {
        query.same_device(m, op)?;
    }
    if !(0.0..=1.0).contains(&options.dropout_p) {
        return Err(Error::invalid(op, format!("dropout_p must be in [0, 1], got {}", options.dropout_p)));
    }
    if !options.math {
        let fused = Fused {
            mask: options.attn_mask.as_ref(),
            causal: options.is_causal,
            scale,
            dropout_p: options.dropout_p,
            seed: options.seed,
        };
        if let Some(out) = super::attention_fused::attention(query, key, value, &fused)? {
            return Ok(out);
        }
    }
    let mut scores = query.matmul(&key.transpose(-2, -1)?)?.mul_scalar(scale)?;
    let causal;
    let mask = if options.is_causal {
        let dev = query.device();
        let rows = Tensor::arange(0.0, l as f64, 1.0, DType::I32, dev)?.reshape(&[l as isize, 1])?;
        let cols = Tensor::arange(0.0, s as f64, 1.0, DType::I32, dev)?.reshape(&[1, s as isize])?;
        causal = cols.le(&rows)?;
        Some(&causal)
    } else {
        options.attn_mask.as_ref()
    };
    if let Some(m) = mask {
        query.same_device(m, op)?;
        scores = if m.dtype() == DType::Bool {
            scores.masked_fill(&m.logical_not()?, f64::NEG_INFINITY)?
        } else {
            scores.add(m)?
        };
    }
    let probs = if mask.is_some() {
        // PyTorch's safe softmax: a query that may attend to nothing gets zero weights, not
        // NaN (its scores are replaced before the softmax so that the gradient stays finite).
        let empty = scores.amax(&[-1], true)?.eq_scalar(f64::NEG_INFINITY)?;
        scores.masked_fill(&empty, 0.0)?.softmax(-1)?.masked_fill(&empty, 0.0)?
    } else {
        scores.softmax(-1)?
    };
    let weights = dropout(&probs, options.dropout_p, options.dropout_p > 0.0, options.seed)?;
    weights.matmul(value)
}
