//! Sampling from categorical distributions: `multinomial` (PyTorch's `torch.multinomial`), as
//! device ops so that generation never reads the probabilities back. With replacement each
//! draw is `u * total` located among the running sums (the count of sums at or below it);
//! without replacement it is the exponential race (Efraimidis and Spirakis): the `k` largest
//! `p / E` with `E ~ Exp(1)`, which draws the categories in PyTorch's order of selection. The
//! uniform numbers come from the seeded host generator `rand` uses (a seed, or `manual_seed`'s),
//! so a seed gives the same samples on every device.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

impl Tensor {
    /// `num_samples` category indices per row of non-negative weights (`[n]` or `[m, n]`, not
    /// necessarily normalised), drawn with or without replacement; int32 `[num_samples]` or
    /// `[m, num_samples]` (PyTorch gives int64). Rows of zeros and negative weights are not
    /// checked on GPUs (they would need a readback).
    pub fn multinomial(&self, num_samples: usize, replacement: bool, seed: Option<u64>) -> Result<Tensor> {
        const OP: &str = "multinomial";
        if !self.dtype().is_float() {
            return Err(Error::UnsupportedDType {
                op: OP,
                dtype: self.dtype(),
                reason: "multinomial takes float weights; convert with to_dtype(f32)".into(),
            });
        }
        if self.rank() == 0 || self.rank() > 2 {
            return Err(Error::invalid(
                OP,
                format!("weights must be 1-D or 2-D ([n] or [m, n]), got shape {:?}", self.shape()),
            ));
        }
        let n = self.shape()[self.rank() - 1];
        if n == 0 {
            return Err(Error::invalid(OP, "weights have no categories; give at least one"));
        }
        if num_samples == 0 {
            return Err(Error::invalid(OP, "num_samples must be at least 1"));
        }
        if !replacement && num_samples > n {
            return Err(Error::invalid(
                OP,
                format!("cannot draw {num_samples} samples without replacement from {n} categories; pass replacement = true or draw at most {n}"),
            ));
        }
        let _g = crate::tensor::node::pause();
        let p = if self.rank() == 1 { self.unsqueeze(0)? } else { self.clone() }.to_dtype(DType::F32)?;
        if self.device() == crate::Device::CPU {
            check_weights(OP, &p)?;
        }
        let m = p.shape()[0];
        let drawn = if replacement {
            // Running sums, and u * total located among them.
            let sums = p.cumsum(-1)?;
            let total = sums.narrow(-1, n - 1, 1)?;
            let u = Tensor::rand(&[m, num_samples], seed, self.device())?.mul(&total)?;
            let below = sums.unsqueeze(1)?.le(&u.unsqueeze(2)?)?.to_dtype(DType::I32)?.sum(&[-1], false)?;
            below.clamp(None, Some((n - 1) as f64))?
        } else {
            // Exponential race: the k largest p / E, E = -log(1 - U) (U in [0, 1), so E > 0
            // except U = 0, whose E = 0 gives inf: the category wins, as its p / E is largest).
            let u = Tensor::rand(&[m, n], seed, self.device())?;
            let e = u.neg()?.log1p()?.neg()?;
            p.div(&e)?.topk(num_samples, -1, true)?.1
        };
        let drawn = drawn.to_dtype(DType::I32)?;
        if self.rank() == 1 {
            drawn.squeeze(Some(0))
        } else {
            Ok(drawn)
        }
    }
}

/// On the CPU, where it costs no wait: weights must be finite, non-negative, and not all zero
/// in any row (PyTorch's errors).
fn check_weights(op: &'static str, p: &Tensor) -> Result<()> {
    let n = p.shape()[1];
    let p = p.contiguous()?;
    let values = p
        .with_cpu_elements(|data, range| match data {
            crate::dtype::CpuData::F32(v) => Some(v[range].to_vec()),
            _ => None,
        })
        .ok_or_else(|| Error::invalid(op, "internal: cpu weights are not f32"))?;
    for (row, w) in values.chunks(n).enumerate() {
        if let Some(bad) = w.iter().find(|x| !x.is_finite() || **x < 0.0) {
            return Err(Error::invalid(op, format!("row {row} has the weight {bad}; weights must be finite and >= 0")));
        }
        if w.iter().all(|&x| x == 0.0) {
            return Err(Error::invalid(op, format!("row {row} has only zero weights; at least one must be positive")));
        }
    }
    Ok(())
}
