//! Elementwise ops with parameters, composed from the kernels (`where`, the arithmetic and unary
//! kernels) with the graph paused, and given PyTorch's own backward rule as one node: `elu`,
//! `softplus` with any beta and threshold, and `lerp` (differentiating through the composition
//! would be wrong where an unselected `where` branch overflows: the zero gradient times inf is
//! NaN); and `leaky_relu` and `prelu`, one pass of the `BinaryOp::Prelu` kernel.

use crate::error::{Error, Result};
use crate::op::binary::BinaryOp;
use crate::op::unary::UnaryOp;
use crate::ops::grad::{sum_to, unary_rule};
use crate::tensor::Tensor;

impl Tensor {
    /// `x` where positive, `negative_slope * x` elsewhere (PyTorch's `leaky_relu`; its default
    /// slope is 0.01): one pass of the [`BinaryOp::Prelu`] kernel with the slope as its scalar.
    pub fn leaky_relu(&self, negative_slope: f64) -> Result<Tensor> {
        // PyTorch refuses integers too: a slope would silently round to 0 or 1.
        self.floats_only("leaky_relu")?;
        let out = {
            let _g = crate::tensor::node::pause();
            self.binary_scalar(negative_slope, BinaryOp::Prelu)?
        };
        let x = self.clone();
        Ok(Tensor::composite(out, "leaky_relu", &[self], |_| {
            unary_rule(move |g| x.gt_scalar(0.0)?.where_(g, &g.mul_scalar(negative_slope)?))
        }))
    }

    /// `x` where positive, `weight * x` elsewhere, with one weight for every channel (dim 1) or
    /// one for all (PyTorch's `prelu`): `weight` has 1 element or `x.shape()[1]` (inputs of
    /// rank below 2 have one channel). Gradients reach both, the weight's summed per channel.
    pub fn prelu(&self, weight: &Tensor) -> Result<Tensor> {
        let op = "prelu";
        self.floats_only(op)?;
        weight.floats_only(op)?;
        if weight.rank() > 1 {
            return Err(Error::invalid(
                op,
                format!("the weight must be a scalar or 1-D (one value per channel), got shape {:?}", weight.shape()),
            ));
        }
        let channels = if self.rank() >= 2 { self.shape()[1] } else { 1 };
        let w = match weight.numel() {
            1 => weight.reshape(&[])?,
            n if n == channels => {
                // [C] -> [C, 1, ..] against dims 1.. of the input.
                let mut shape = vec![1isize; self.rank() - 1];
                shape[0] = n as isize;
                weight.reshape(&shape)?
            }
            n => {
                return Err(Error::invalid(
                    op,
                    format!(
                        "the weight has {n} elements and the input {channels} channel(s) (dim 1 of shape {:?}); \
                         give 1 or {channels}",
                        self.shape()
                    ),
                ))
            }
        };
        self.binary(&w, BinaryOp::Prelu)
    }

    /// `x` where positive, `alpha * (e^x - 1)` elsewhere (PyTorch's `elu`; its default alpha is
    /// 1).
    pub fn elu(&self, alpha: f64) -> Result<Tensor> {
        // As PyTorch, which has no integer elu.
        self.floats_only("elu")?;
        // alpha 1 (the default) is one kernel with its own rule.
        if alpha == 1.0 {
            return self.unary(UnaryOp::Elu);
        }
        let out = {
            let _g = crate::tensor::node::pause();
            let neg = self.expm1()?.mul_scalar(alpha)?;
            self.gt_scalar(0.0)?.where_(self, &neg)?
        };
        let x = self.clone();
        Ok(Tensor::composite(out, "elu", &[self], |_| {
            // As PyTorch's elu_backward: alpha e^x at or below 0, else 1 (NaN included).
            unary_rule(move |g| x.le_scalar(0.0)?.where_(&g.mul(&x.exp()?)?.mul_scalar(alpha)?, g))
        }))
    }

    /// `log(1 + e^(beta x)) / beta`, and `x` where `beta x > threshold` (PyTorch's `softplus`;
    /// its defaults, beta 1 and threshold 20, are the `softplus()` kernel).
    pub fn softplus_with(&self, beta: f64, threshold: f64) -> Result<Tensor> {
        if beta == 1.0 && threshold == 20.0 {
            return self.softplus();
        }
        let out = {
            let _g = crate::tensor::node::pause();
            let bx = self.mul_scalar(beta)?;
            bx.gt_scalar(threshold)?.where_(self, &bx.softplus()?.div_scalar(beta)?)?
        };
        let x = self.clone();
        Ok(Tensor::composite(out, "softplus", &[self], |_| {
            unary_rule(move |g| {
                let bx = x.mul_scalar(beta)?;
                bx.gt_scalar(threshold)?.where_(g, &g.mul(&bx.sigmoid()?)?)
            })
        }))
    }

    /// `self + weight * (end - self)` with broadcasting over all three, computed as PyTorch
    /// does (`end - (end - self) * (1 - weight)` where `weight >= 0.5`, so weight 1 gives `end`
    /// exactly).
    pub fn lerp(&self, end: &Tensor, weight: &Tensor) -> Result<Tensor> {
        self.same_device(end, "lerp")?;
        self.same_device(weight, "lerp")?;
        if let Some(t) = [self, end].into_iter().find(|t| !t.dtype().is_float()) {
            return Err(crate::error::Error::UnsupportedDType {
                op: "lerp",
                dtype: t.dtype(),
                reason: "lerp interpolates floating-point tensors; convert with to_dtype(f32) first".into(),
            });
        }
        let out = {
            let _g = crate::tensor::node::pause();
            let d = end.sub(self)?;
            let low = self.add(&weight.mul(&d)?)?;
            let high = end.sub(&d.mul(&weight.neg()?.add_scalar(1.0)?)?)?;
            weight.abs()?.lt_scalar(0.5)?.where_(&low, &high)?
        };
        let (a, b, w) = (self.clone(), end.clone(), weight.clone());
        let (sa, sb, sw) = (self.shape().to_vec(), end.shape().to_vec(), weight.shape().to_vec());
        Ok(Tensor::composite(out, "lerp", &[self, end, weight], |_| {
            Box::new(move |g, need| {
                let ga = if need[0] { Some(sum_to(&g.mul(&w.neg()?.add_scalar(1.0)?)?, &sa)?) } else { None };
                let gb = if need[1] { Some(sum_to(&g.mul(&w)?, &sb)?) } else { None };
                let gw = if need[2] { Some(sum_to(&g.mul(&b.sub(&a)?)?, &sw)?) } else { None };
                Ok(vec![ga, gb, gw])
            })
        }))
    }

    /// [`Tensor::lerp`] with a scalar weight.
    pub fn lerp_scalar(&self, end: &Tensor, weight: f64) -> Result<Tensor> {
        let dtype = if self.dtype().is_float() { self.dtype() } else { crate::dtype::DType::F32 };
        let w = Tensor::full_on(&[], weight, dtype, self.device())?;
        self.lerp(end, &w)
    }
}

impl Tensor {
    /// `UnsupportedDType` for `op` unless this tensor holds floats.
    fn floats_only(&self, op: &'static str) -> Result<()> {
        if self.dtype().is_float() {
            return Ok(());
        }
        Err(Error::UnsupportedDType {
            op,
            dtype: self.dtype(),
            reason: format!("{op} takes floating-point input; convert with to_dtype(f32) first"),
        })
    }
}
