//! `Dropout`: zeroes each element with probability `p` while training and scales the rest by
//! `1 / (1 - p)`, so evaluation (the identity) sees the same expected value. Seedable: a module
//! built with a seed draws a new, reproducible mask on each call.

use std::sync::atomic::{AtomicU64, Ordering};

use super::{Module, ModuleCore};
use crate::device::policy::FusedKernels;
use crate::error::{Error, Result};
use crate::op::fused::dropout::DropoutArgs;
use crate::op::fused::Fused;
use crate::ops::grad::unary_rule;
use crate::storage::Storage;
use crate::tensor::Tensor;

/// Randomly zeroes elements while training.
pub struct Dropout {
    core: ModuleCore,
    p: f64,
    seed: Option<u64>,
    calls: AtomicU64,
}

impl Dropout {
    /// Dropout with probability `p` in `[0, 1]`; with a `seed`, the sequence of masks is
    /// reproducible (call `i` uses a seed derived from `seed` and `i`).
    pub fn new(p: f64, seed: Option<u64>) -> Result<Dropout> {
        check_p(p)?;
        Ok(Dropout { core: ModuleCore::new(), p, seed, calls: AtomicU64::new(0) })
    }
}

fn check_p(p: f64) -> Result<()> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::invalid("dropout", format!("probability p must be in [0, 1], got {p}")));
    }
    Ok(())
}

impl Module for Dropout {
    fn core(&self) -> &ModuleCore {
        &self.core
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let training = self.core.is_training();
        let seed = match (training, self.seed) {
            (true, Some(s)) => Some(call_seed(s, self.calls.fetch_add(1, Ordering::Relaxed))),
            _ => None,
        };
        dropout(x, self.p, training, seed)
    }
}

/// The seed of a seeded module's `call`-th mask (the JS module derives its masks the same way).
pub(crate) fn call_seed(seed: u64, call: u64) -> u64 {
    seed ^ call.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// PyTorch's `F.dropout`: with `training`, each element is zeroed with probability `p` and the
/// rest scaled by `1 / (1 - p)`; otherwise `x` itself. The gradient is the same mask and scale.
pub fn dropout(x: &Tensor, p: f64, training: bool, seed: Option<u64>) -> Result<Tensor> {
    check_p(p)?;
    if !x.dtype().is_float() {
        return Err(Error::invalid("dropout", format!("needs a floating-point input, got {:?}", x.dtype())));
    }
    if !training || p == 0.0 {
        return Ok(x.clone());
    }
    if p == 1.0 {
        return x.mul_scalar(0.0);
    }
    let seed = seed.unwrap_or_else(crate::creation::next_seed);
    if crate::device::policy::fused_kernels() == FusedKernels::Never {
        // The composed formula: a sample tensor, a comparison, a cast, a scale and a product,
        // whose f32 multipliers the product keeps for its gradient.
        let keep = Tensor::rand(x.shape(), Some(seed), x.device())?.ge_scalar(f64::from(p as f32))?;
        let scale = keep.to_dtype(x.dtype())?.mul_scalar(1.0 / (1.0 - p))?;
        return x.mul(&scale);
    }
    fused(x, p, seed)
}

/// One pass each way (`op::fused::dropout`): the forward draws each element's sample and
/// scales or zeroes it; the gradient is the same call on the output's gradient, so nothing but
/// the seed is kept for backward (the composed formula kept an f32 multiplier per element: 13
/// sites of 25 MB per step in nanoGPT's Shakespeare model).
fn fused(x: &Tensor, p: f64, seed: u64) -> Result<Tensor> {
    const OP: &str = "dropout";
    let x = x.contiguous()?;
    let args = DropoutArgs::new(x.numel(), x.layout().offset(), x.dtype(), p, seed);
    let storage = Storage::fused(Fused::Dropout(args), &[x.storage()]).map_err(|e| e.in_op(OP))?;
    crate::device::placement::record(OP, &[x.device()], x.device());
    Ok(Tensor::from_op(storage, x.shape(), x.dtype(), x.device(), OP, &[&x], move |_| {
        unary_rule(move |g| fused(g, p, seed))
    }))
}
