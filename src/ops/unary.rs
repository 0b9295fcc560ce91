//! The unary elementwise ops on `Tensor` (dtype promotion, the kernel call) and their backward
//! rules. The op descriptors live in `crate::op::unary`.

use crate::dtype::DType;
use crate::error::{Error, Result};
pub use crate::op::unary::UnaryOp;
use crate::op::MapOp;
use crate::ops::grad::unary_rule;
use crate::tensor::node::BackwardFn;
use crate::tensor::Tensor;

macro_rules! unary_methods {
    ($($(#[$doc:meta])* $name:ident => $op:ident),* $(,)?) => {
        impl Tensor {
            $($(#[$doc])* pub fn $name(&self) -> Result<Tensor> { self.unary(UnaryOp::$op) })*
        }
    };
}

unary_methods! {
    /// Elementwise `-x`.
    neg => Neg,
    /// Elementwise `|x|`.
    abs => Abs,
    /// Elementwise `e^x` (integers promote to f32).
    exp => Exp,
    /// Elementwise natural log (integers promote to f32).
    log => Log,
    /// Elementwise square root (integers promote to f32).
    sqrt => Sqrt,
    /// Elementwise `1/sqrt(x)` (integers promote to f32).
    rsqrt => Rsqrt,
    /// Elementwise `1/x` (integers promote to f32).
    reciprocal => Reciprocal,
    /// Elementwise `x*x`.
    square => Square,
    /// Elementwise sine.
    sin => Sin,
    /// Elementwise cosine.
    cos => Cos,
    /// Elementwise tanh.
    tanh => Tanh,
    /// Elementwise logistic sigmoid.
    sigmoid => Sigmoid,
    /// Elementwise `max(x, 0)`.
    relu => Relu,
    /// Elementwise GELU (erf form).
    gelu => Gelu,
    /// Elementwise error function (integers promote to f32).
    erf => Erf,
    /// Elementwise SiLU (swish).
    silu => Silu,
    /// Elementwise floor.
    floor => Floor,
    /// Elementwise ceil.
    ceil => Ceil,
    /// Elementwise round half to even.
    round => Round,
    /// Elementwise sign.
    sign => Sign,
}

impl Tensor {
    /// Applies a unary op. Integer inputs promote to f32 for ops without an integer form; bool
    /// promotes to i32 (or f32).
    pub fn unary(&self, op: UnaryOp) -> Result<Tensor> {
        let dtype = self.dtype();
        let target = match dtype {
            DType::F32 | DType::F16 => dtype,
            DType::I32 | DType::U32 if op.has_int_form() => dtype,
            DType::Bool if op.has_int_form() => DType::I32,
            _ => DType::F32,
        };
        if !op.supports(target) {
            return Err(Error::UnsupportedDType {
                op: op.name(),
                dtype,
                reason: "negation of an unsigned tensor; convert with to_dtype(i32) first".into(),
            });
        }
        let x = self.to_dtype(target)?;
        let input = x.clone();
        x.map(MapOp::Unary(op), target, op.name(), |y| backward(op, &input, y))
    }
}

/// The backward rule of `op` with input `x` and output `y` (each captured only when the rule
/// reads it). Rounding ops have a zero gradient almost everywhere, as in PyTorch.
fn backward(op: UnaryOp, x: &Tensor, y: &Tensor) -> BackwardFn {
    use std::f64::consts::{FRAC_1_SQRT_2, PI};
    use UnaryOp::*;
    let (x, y) = (x.clone(), y.clone());
    match op {
        Neg => unary_rule(|g| g.neg()),
        Abs => unary_rule(move |g| g.mul(&x.sign()?)),
        Exp => unary_rule(move |g| g.mul(&y)),
        Log => unary_rule(move |g| g.div(&x)),
        Sqrt => unary_rule(move |g| g.div(&y.mul_scalar(2.0)?)),
        // d/dx x^-1/2 = -1/2 x^-3/2 = -1/2 y^3
        Rsqrt => unary_rule(move |g| g.mul(&y.pow_scalar(3.0)?.mul_scalar(-0.5)?)),
        Reciprocal => unary_rule(move |g| g.mul(&y.square()?.neg()?)),
        Square => unary_rule(move |g| g.mul(&x.mul_scalar(2.0)?)),
        Sin => unary_rule(move |g| g.mul(&x.cos()?)),
        Cos => unary_rule(move |g| g.mul(&x.sin()?.neg()?)),
        Tanh => unary_rule(move |g| g.mul(&y.square()?.neg()?.add_scalar(1.0)?)),
        Sigmoid => unary_rule(move |g| g.mul(&y.mul(&y.neg()?.add_scalar(1.0)?)?)),
        // PyTorch's threshold_backward: the gradient passes where the output is positive.
        Relu => unary_rule(move |g| y.gt_scalar(0.0)?.where_(g, &g.zeros_like()?)),
        // Phi(x) + x * phi(x), with Phi the normal CDF and phi its density.
        Gelu => unary_rule(move |g| {
            let cdf = x.mul_scalar(FRAC_1_SQRT_2)?.erf()?.add_scalar(1.0)?.mul_scalar(0.5)?;
            let pdf = x.square()?.mul_scalar(-0.5)?.exp()?.mul_scalar(1.0 / (2.0 * PI).sqrt())?;
            g.mul(&cdf.add(&x.mul(&pdf)?)?)
        }),
        Erf => unary_rule(move |g| g.mul(&x.square()?.neg()?.exp()?.mul_scalar(2.0 / PI.sqrt())?)),
        // sigmoid(x) * (1 + x * (1 - sigmoid(x)))
        Silu => unary_rule(move |g| {
            let s = x.sigmoid()?;
            g.mul(&s.mul(&x.mul(&s.neg()?.add_scalar(1.0)?)?.add_scalar(1.0)?)?)
        }),
        Floor | Ceil | Round | Sign => unary_rule(|g| g.zeros_like()),
    }
}
