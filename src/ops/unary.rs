//! The unary elementwise ops on `Tensor` (dtype promotion, the kernel call) and their backward
//! rules. The op descriptors live in `crate::op::unary`.

use crate::error::{Error, Result};
use crate::op::unary::unary_table;
pub use crate::op::unary::UnaryOp;
use crate::op::MapOp;
use crate::ops::grad::unary_rule;
use crate::tensor::node::BackwardFn;
use crate::tensor::Tensor;

/// `Tensor` methods from the unary op table (`op::unary::unary_table!`): one per op, without
/// arguments, with the op's doc; `(custom)` entries have their own (`elu(alpha)`).
macro_rules! unary_methods {
    (
        $(#[$meta:meta])* $Name:ident;
        $( $(#[$doc:meta])* $op:ident => $name:ident $(($($extra:tt)*))?, )*
        ; $($internal:tt)*
    ) => {
        impl Tensor {
            $( unary_methods!(@one $(#[$doc])* $op $name $(($($extra)*))?); )*
        }
    };
    (@one $(#[$doc:meta])* $op:ident $name:ident (custom)) => {};
    (@one $(#[$doc:meta])* $op:ident $name:ident) => {
        $(#[$doc])* pub fn $name(&self) -> Result<Tensor> { self.unary(UnaryOp::$op) }
    };
}

unary_table!(unary_methods);

impl Tensor {
    /// Applies a unary op. Integer inputs promote to f32 for ops without an integer form; bool
    /// promotes to i32 (or f32).
    pub fn unary(&self, op: UnaryOp) -> Result<Tensor> {
        let dtype = self.dtype();
        let target = op.result_dtype(dtype).map_err(|reason| Error::UnsupportedDType {
            op: op.name(),
            dtype,
            reason: reason.into(),
        })?;
        let x = self.to_dtype(target)?;
        let input = x.clone();
        let y = x.map(MapOp::Unary(op), target, op.name(), |y| backward(op, &input, y))?;
        // The activations of transformers and MLPs, whose rules keep their input and not their
        // output: a product that saves the output for its own gradient (the next Linear) keeps
        // this input instead and recomputes, so the output is freed after the forward.
        if matches!(op, UnaryOp::Gelu | UnaryOp::GeluTanh | UnaryOp::Silu) {
            y.set_redo(op, &x);
        }
        Ok(y)
    }
}

/// The backward rule of `op` with input `x` and output `y` (each captured only when the rule
/// reads it). Rounding ops have a zero gradient almost everywhere, as in PyTorch.
fn backward(op: UnaryOp, x: &Tensor, y: &Tensor) -> BackwardFn {
    use std::f64::consts::PI;
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
        // Phi(x) + x * phi(x), with Phi the normal CDF and phi its density: one kernel.
        Gelu => unary_rule(move |g| g.mul(&x.unary(GeluGrad)?)),
        // GELU's second derivative, phi(x) (2 - x^2).
        GeluGrad => unary_rule(move |g| {
            let pdf = x.square()?.mul_scalar(-0.5)?.exp()?.mul_scalar(1.0 / (2.0 * PI).sqrt())?;
            g.mul(&x.square()?.neg()?.add_scalar(2.0)?.mul(&pdf)?)
        }),
        // PyTorch's backward of the tanh form: 0.5 (1 + t) + 0.5 x (1 - t^2) beta (1 + 3 kappa x^2),
        // with t = tanh(beta (x + kappa x^3)).
        GeluTanh => unary_rule(move |g| {
            use crate::op::unary::{GELU_BETA, GELU_KAPPA};
            let (beta, kappa) = (GELU_BETA as f64, GELU_KAPPA as f64);
            let t = x.add(&x.pow_scalar(3.0)?.mul_scalar(kappa)?)?.mul_scalar(beta)?.tanh()?;
            let left = t.add_scalar(1.0)?.mul_scalar(0.5)?;
            let slope = x.square()?.mul_scalar(3.0 * kappa)?.add_scalar(1.0)?.mul_scalar(beta)?;
            let right = x.mul_scalar(0.5)?.mul(&t.square()?.neg()?.add_scalar(1.0)?)?.mul(&slope)?;
            g.mul(&left.add(&right)?)
        }),
        Erf => unary_rule(move |g| g.mul(&x.square()?.neg()?.exp()?.mul_scalar(2.0 / PI.sqrt())?)),
        // sigmoid(x) * (1 + x * (1 - sigmoid(x)))
        Silu => unary_rule(move |g| {
            let s = x.sigmoid()?;
            g.mul(&s.mul(&x.mul(&s.neg()?.add_scalar(1.0)?)?.add_scalar(1.0)?)?)
        }),
        Floor | Ceil | Round | Sign => unary_rule(|g| g.zeros_like()),
        Log1p => unary_rule(move |g| g.div(&x.add_scalar(1.0)?)),
        Expm1 => unary_rule(move |g| g.mul(&y.add_scalar(1.0)?)),
        Tan => unary_rule(move |g| g.mul(&y.square()?.add_scalar(1.0)?)),
        // 1 / sqrt(1 - x^2), negated for acos.
        Asin => unary_rule(move |g| g.mul(&x.square()?.neg()?.add_scalar(1.0)?.rsqrt()?)),
        Acos => unary_rule(move |g| g.mul(&x.square()?.neg()?.add_scalar(1.0)?.rsqrt()?.neg()?)),
        Atan => unary_rule(move |g| g.div(&x.square()?.add_scalar(1.0)?)),
        Sinh => unary_rule(move |g| g.mul(&x.cosh()?)),
        Cosh => unary_rule(move |g| g.mul(&x.sinh()?)),
        Asinh => unary_rule(move |g| g.mul(&x.square()?.add_scalar(1.0)?.rsqrt()?)),
        Acosh => unary_rule(move |g| g.mul(&x.square()?.sub_scalar(1.0)?.rsqrt()?)),
        Atanh => unary_rule(move |g| g.div(&x.square()?.neg()?.add_scalar(1.0)?)),
        // sigmoid(x), which is 1 past the threshold in f32 as PyTorch's rule gives.
        Softplus => unary_rule(move |g| g.mul(&x.sigmoid()?)),
        // tanh(sp) + x sigmoid(x) (1 - tanh(sp)^2), PyTorch's mish_backward.
        Mish => unary_rule(move |g| {
            let t = x.softplus()?.tanh()?;
            let d = x.mul(&x.sigmoid()?)?.mul(&t.square()?.neg()?.add_scalar(1.0)?)?;
            g.mul(&t.add(&d)?)
        }),
        // 0 below -3, x / 3 + 1/2 up to 3 (inclusive, as PyTorch), 1 above.
        Hardswish => unary_rule(move |g| {
            let mid = x.div_scalar(3.0)?.add_scalar(0.5)?;
            let d =
                x.lt_scalar(-3.0)?.where_(&mid.zeros_like()?, &x.le_scalar(3.0)?.where_(&mid, &mid.ones_like()?)?)?;
            g.mul(&d)
        }),
        // PyTorch's elu_backward from the input: e^x at or below 0 (not y + 1, which is 0 once
        // expm1 rounds to -1 below about -17), else 1, NaN included.
        Elu => unary_rule(move |g| x.le_scalar(0.0)?.where_(&g.mul(&x.exp()?)?, g)),
        // 1/6 strictly inside (-3, 3), 0 elsewhere.
        Hardsigmoid => unary_rule(move |g| {
            let inside = x.gt_scalar(-3.0)?.to_dtype(g.dtype())?.mul(&x.lt_scalar(3.0)?.to_dtype(g.dtype())?)?;
            g.mul(&inside.mul_scalar(1.0 / 6.0)?)
        }),
    }
}
