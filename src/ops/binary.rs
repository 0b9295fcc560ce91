//! Binary elementwise ops with NumPy broadcasting, their scalar forms, `where` and `clamp`, and
//! their backward rules. The op descriptors live in `crate::op::binary`.

use crate::dtype::DType;
use crate::error::Result;
use crate::op::binary::binary_table;
pub use crate::op::binary::BinaryOp;
use crate::ops::grad::{binary_rule, sum_to, unary_rule};
use crate::storage::Storage;
use crate::tensor::node::BackwardFn;
use crate::tensor::Tensor;

/// `Tensor` methods from the binary op table (`op::binary::binary_table!`): per op, the tensor
/// form with the op's doc and its scalar form; `(custom)` entries have their own (`prelu`).
macro_rules! binary_methods {
    (
        $(#[$meta:meta])* $Name:ident;
        $( $(#[$doc:meta])* $op:ident => $name:ident ($($extra:tt)*), )*
        ;
    ) => {
        impl Tensor {
            $( binary_methods!(@one $(#[$doc])* $op $name $($extra)*); )*
        }
    };
    (@one $(#[$doc:meta])* $op:ident $name:ident custom) => {};
    (@one $(#[$doc:meta])* $op:ident $name:ident $scalar:ident) => {
        $(#[$doc])* pub fn $name(&self, other: &Tensor) -> Result<Tensor> {
            self.binary(other, BinaryOp::$op)
        }
        /// Scalar form of the op above: the scalar never causes a device mismatch.
        pub fn $scalar(&self, other: f64) -> Result<Tensor> {
            self.binary_scalar(other, BinaryOp::$op)
        }
    };
}

binary_table!(binary_methods);

impl Tensor {
    /// Applies a binary op with NumPy broadcasting and PyTorch-like dtype promotion.
    pub fn binary(&self, other: &Tensor, op: BinaryOp) -> Result<Tensor> {
        let device = self.same_device(other, op.name())?;
        let shape = crate::shape::broadcast_shapes(op.name(), self.shape(), other.shape())?;
        let dtype = op.compute_dtype(DType::promote(self.dtype(), other.dtype()));
        let out_dtype = op
            .result_dtype(self.dtype(), other.dtype())
            .map_err(|reason| crate::error::Error::UnsupportedDType { op: op.name(), dtype, reason: reason.into() })?;
        let (a, b) = (self.to_dtype(dtype)?, other.to_dtype(dtype)?);
        crate::device::placement::record(op.name(), &[self.device(), other.device()], device);
        let storage = a
            .storage()
            .binary(op, a.layout(), b.storage(), b.layout(), &shape, dtype)
            .map_err(|e| e.in_op(op.name()))?;
        if op.is_comparison() || op.int_only() {
            return Ok(Tensor::from_op_nondiff(storage, &shape, out_dtype, device, op.name(), &[&a, &b]));
        }
        Ok(Tensor::from_op(storage, &shape, out_dtype, device, op.name(), &[&a, &b], |y| backward(op, &a, &b, y)))
    }

    /// `self op scalar`. An integer tensor with a fractional scalar promotes to f32.
    pub fn binary_scalar(&self, other: f64, op: BinaryOp) -> Result<Tensor> {
        // The scalar's own dtype: an integer that fits the tensor's integer dtype keeps it (bool
        // tensors count scalars in i32, as PyTorch's bool + 1 is an integer); anything else
        // (fractions, non-finite values, integers out of range) is f32.
        let int_in = |lo: f64, hi: f64| other.fract() == 0.0 && other >= lo && other <= hi;
        let i32_range = (i32::MIN as f64, i32::MAX as f64);
        let scalar_dtype = match self.dtype() {
            d if d.is_float() => d,
            DType::U32 if int_in(0.0, u32::MAX as f64) => DType::U32,
            // img + 1 stays u8 (and wraps), as PyTorch's; a scalar outside the 8-bit range widens.
            DType::U8 if int_in(0.0, 255.0) => DType::U8,
            DType::I8 if int_in(-128.0, 127.0) => DType::I8,
            // bool & True stays bool, as PyTorch's.
            DType::Bool
                if op.int_only()
                    && (other == 0.0 || other == 1.0)
                    && op != BinaryOp::BitwiseLeftShift
                    && op != BinaryOp::BitwiseRightShift =>
            {
                DType::Bool
            }
            DType::I32 | DType::U32 | DType::Bool | DType::U8 | DType::I8 if int_in(i32_range.0, i32_range.1) => {
                DType::I32
            }
            _ => DType::F32,
        };
        // x ** 2 (squared errors, variances) is x * x exactly, as PyTorch computes it: the
        // square kernel, which vectorises, instead of pow per element (5.5 ms over 1M in wasm).
        if op == BinaryOp::Pow && other == 2.0 && self.dtype().is_float() {
            return self.square();
        }
        // PyTorch's other special exponents (its CPU and CUDA pow kernels take them so): x ** 3
        // as x * x * x, 0.5 as sqrt, -0.5 as rsqrt, -1 as 1 / x, -2 as 1 / (x * x): PyTorch's
        // values, from kernels that vectorise where pow runs per element (16M f32 on the CPU:
        // x ** 3 124 -> 7 ms; GELU's tanh form cubes). The gradient stays pow's.
        if op == BinaryOp::Pow && self.dtype().is_float() {
            if let Some(fast) = self.special_pow(other)? {
                return Ok(Tensor::composite(fast, op.name(), &[self], |y| scalar_backward(op, self, other, y)));
            }
        }
        let dtype = if self.dtype().is_float() { self.dtype() } else { DType::promote(self.dtype(), scalar_dtype) };
        let compute = op.compute_dtype(dtype);
        // Dividing by a power of two runs as the product by its reciprocal: the same bits, a
        // cheaper kernel (`exact_reciprocal`), in f32.
        let reciprocal = if op == BinaryOp::Div { crate::op::binary::exact_reciprocal(other) } else { None };
        if op.int_only() && compute.is_float() {
            // No kernel computes it (bitwise ops of floats): the broadcast path reports that.
            let s = Tensor::full_on(&[], other, dtype, self.device())?;
            return self.binary(&s, op);
        }
        // The scalar rides in the kernel's parameters where the backend has a scalar kernel
        // for the layout (no 0-d tensor, no broadcast walk); the backend broadcasts a filled
        // value otherwise. Division by a power of two runs as the product by its reciprocal
        // (the CPU's `f32x4.div` in wasm costs several products), recorded as the division.
        let a = self.to_dtype(compute)?;
        let (kernel_op, value) = match (compute, reciprocal) {
            (DType::F32, Some(r)) => (BinaryOp::Mul, r),
            _ => (op, other),
        };
        let storage =
            a.storage().binary_scalar(kernel_op, a.layout(), value, compute).map_err(|e| e.in_op(op.name()))?;
        let (device, shape, out) = (a.device(), a.shape().to_vec(), op.out_dtype(compute));
        crate::device::placement::record(op.name(), &[device], device);
        if op.is_comparison() || op.int_only() {
            return Ok(Tensor::from_op_nondiff(storage, &shape, out, device, op.name(), &[&a]));
        }
        Ok(Tensor::from_op(storage, &shape, out, device, op.name(), &[&a], |y| scalar_backward(op, &a, other, y)))
    }

    /// Picks from `a` where `self` (the condition; nonzero means true) holds, else from `b`,
    /// with broadcasting over all three.
    pub fn where_(&self, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        let op = "where";
        let device = self.same_device(a, op)?;
        a.same_device(b, op)?;
        let shape = crate::shape::broadcast_shapes(op, self.shape(), a.shape())?;
        let shape = crate::shape::broadcast_shapes(op, &shape, b.shape())?;
        let dtype = DType::promote(a.dtype(), b.dtype());
        crate::device::placement::record(op, &[self.device(), a.device(), b.device()], device);
        let (c, a, b) = (self.to_dtype(DType::Bool)?, a.to_dtype(dtype)?, b.to_dtype(dtype)?);
        let storage = Storage::where_(
            (c.storage(), c.layout()),
            (a.storage(), a.layout()),
            (b.storage(), b.layout()),
            &shape,
            dtype,
        )?;
        let (sa, sb) = (a.shape().to_vec(), b.shape().to_vec());
        let cond = c.clone();
        Ok(Tensor::from_op(storage, &shape, dtype, device, op, &[&c, &a, &b], |_| {
            Box::new(move |g, need| {
                let zero = g.zeros_like()?;
                let ga = if need[1] { Some(sum_to(&cond.where_(g, &zero)?, &sa)?) } else { None };
                let gb = if need[2] { Some(sum_to(&cond.where_(&zero, g)?, &sb)?) } else { None };
                Ok(vec![None, ga, gb])
            })
        }))
    }

    /// Limits values to `[min, max]`; either bound may be absent. With min > max every element
    /// becomes max, as in PyTorch.
    pub fn clamp(&self, min: Option<f64>, max: Option<f64>) -> Result<Tensor> {
        // min > max is allowed, as in PyTorch: every element becomes max (the minimum runs last).
        let mut t = self.clone();
        {
            let _paused = crate::tensor::node::pause();
            if let (Some(lo), Some(hi), DType::F32) = (min, max, self.dtype()) {
                // One call; the backend runs it in one pass or as a maximum and a minimum.
                let storage =
                    self.storage().clamp(self.layout(), lo as f32, hi as f32).map_err(|e| e.in_op("clamp"))?;
                let device = self.device();
                crate::device::placement::record("clamp", &[device], device);
                t = Tensor::from_op_nondiff(storage, self.shape(), DType::F32, device, "clamp", &[self]);
            } else {
                if let Some(lo) = min {
                    t = t.maximum_scalar(lo)?;
                }
                if let Some(hi) = max {
                    t = t.minimum_scalar(hi)?;
                }
            }
        }
        // PyTorch's clamp passes the gradient strictly inside (min, max): 0 at a bound (the
        // maximum/minimum it is computed with would give half there).
        let x = self.clone();
        Ok(Tensor::composite(t, "clamp", &[self], |_| {
            unary_rule(move |g| {
                let mut keep = g.ones_like()?;
                if let Some(lo) = min {
                    keep = keep.mul(&x.gt_scalar(lo)?.to_dtype(g.dtype())?)?;
                }
                if let Some(hi) = max {
                    keep = keep.mul(&x.lt_scalar(hi)?.to_dtype(g.dtype())?)?;
                }
                g.mul(&keep)
            })
        }))
    }
}

/// The backward rule of `a op value = y` run by a scalar kernel: the tensor rule with the scalar
/// as a 0-d tensor, made only when a backward pass asks.
impl Tensor {
    /// `self ** e` by another kernel for PyTorch's special exponents (see `binary_scalar`),
    /// with no graph (the caller records pow's).
    fn special_pow(&self, e: f64) -> Result<Option<Tensor>> {
        let _no_grad = crate::autograd::no_grad();
        Ok(Some(match e {
            3.0 => self.square()?.mul(self)?,
            0.5 => self.sqrt()?,
            -0.5 => self.rsqrt()?,
            -1.0 => self.reciprocal()?,
            -2.0 => self.square()?.reciprocal()?,
            _ => return Ok(None),
        }))
    }
}

fn scalar_backward(op: BinaryOp, a: &Tensor, value: f64, y: &Tensor) -> BackwardFn {
    let (a, y) = (a.clone(), y.clone());
    Box::new(move |g, need| {
        let s = Tensor::full_on(&[], value, a.dtype(), a.device())?;
        let grads = backward(op, &a, &s, &y)(g, &[need[0], false])?;
        Ok(grads.into_iter().take(1).collect())
    })
}

/// The backward rule of `a op b = y` (arithmetic ops only; comparisons have none). Each input's
/// gradient is summed back to its shape over the broadcast dims.
fn backward(op: BinaryOp, a: &Tensor, b: &Tensor, y: &Tensor) -> BackwardFn {
    use BinaryOp::*;
    let (sa, sb) = (a.shape().to_vec(), b.shape().to_vec());
    let (a, b, y) = (a.clone(), b.clone(), y.clone());
    match op {
        Add => binary_rule(move |g| sum_to(g, &sa), move |g| sum_to(g, &sb)),
        Sub => binary_rule(move |g| sum_to(g, &sa), move |g| sum_to(&g.neg()?, &sb)),
        Mul => {
            let (a2, b2) = (a.clone(), b.clone());
            binary_rule(move |g| sum_to(&g.mul(&b2)?, &sa), move |g| sum_to(&g.mul(&a2)?, &sb))
        }
        Div => {
            let b2 = b.clone();
            binary_rule(move |g| sum_to(&g.div(&b2)?, &sa), move |g| sum_to(&g.mul(&y)?.div(&b)?.neg()?, &sb))
        }
        // d/da a^b = b a^(b-1) (0 where b == 0, as PyTorch masks it); d/db a^b = a^b ln a (0 where
        // a == 0 and b >= 0, where PyTorch defines it so).
        Pow => {
            let (a2, b2) = (a.clone(), b.clone());
            binary_rule(
                move |g| {
                    let d = b2.mul(&a2.pow(&b2.sub_scalar(1.0)?)?)?;
                    let d = b2.eq_scalar(0.0)?.where_(&d.zeros_like()?, &d)?;
                    sum_to(&g.mul(&d)?, &sa)
                },
                move |g| {
                    let d = y.mul(&a.log()?)?;
                    let zero_base = a.eq_scalar(0.0)?;
                    // zero_base && b >= 0
                    let masked = zero_base.where_(&b.ge_scalar(0.0)?, &zero_base)?;
                    let d = masked.where_(&d.zeros_like()?, &d)?;
                    sum_to(&g.mul(&d)?, &sb)
                },
            )
        }
        // Ties split the gradient in half, as PyTorch's maximum/minimum do.
        Maximum | Minimum => {
            let (a2, b2) = (a.clone(), b.clone());
            let share = move |win: &Tensor, lose: &Tensor, g: &Tensor| -> Result<Tensor> {
                let more = if op == Maximum { win.gt(lose)? } else { win.lt(lose)? };
                let w = more.to_dtype(g.dtype())?.add(&win.eq(lose)?.to_dtype(g.dtype())?.mul_scalar(0.5)?)?;
                g.mul(&w)
            };
            binary_rule(move |g| sum_to(&share(&a2, &b2, g)?, &sa), move |g| sum_to(&share(&b, &a, g)?, &sb))
        }
        // d/da atan2(a, b) = b / (a^2 + b^2), d/db = -a / (a^2 + b^2).
        Atan2 => {
            let (a2, b2) = (a.clone(), b.clone());
            let r2 = move || a2.square()?.add(&b2.square()?);
            let r2b = r2.clone();
            let (a3, b3) = (a.clone(), b.clone());
            binary_rule(
                move |g| sum_to(&g.mul(&b3)?.div(&r2()?)?, &sa),
                move |g| sum_to(&g.mul(&a3)?.neg()?.div(&r2b()?)?, &sb),
            )
        }
        // a - b * q with q = floor(a / b) (remainder) or trunc(a / b) (fmod), piecewise
        // constant: PyTorch's rules.
        Remainder | Fmod => binary_rule(
            move |g| sum_to(g, &sa),
            move |g| {
                // PyTorch's div(rounding_mode = "floor" / "trunc").
                let q = if op == Remainder {
                    a.floor_divide(&b)?
                } else {
                    let q = a.div(&b)?;
                    q.sign()?.mul(&q.abs()?.floor()?)?
                };
                sum_to(&g.mul(&q)?.neg()?, &sb)
            },
        ),
        // PyTorch's prelu rules: g where a > 0, else g b; the weight's share a g where a <= 0.
        Prelu => {
            let (a2, b2) = (a.clone(), b.clone());
            binary_rule(
                move |g| sum_to(&a2.gt_scalar(0.0)?.where_(g, &g.mul(&b2)?)?, &sa),
                move |g| sum_to(&a.gt_scalar(0.0)?.where_(&g.zeros_like()?, &g.mul(&a)?)?, &sb),
            )
        }
        // Piecewise constant: zero almost everywhere, as floor's.
        FloorDivide => binary_rule(move |g| sum_to(&g.zeros_like()?, &sa), move |g| sum_to(&g.zeros_like()?, &sb)),
        Eq | Ne | Lt | Le | Gt | Ge | BitwiseAnd | BitwiseOr | BitwiseXor | BitwiseLeftShift | BitwiseRightShift => {
            unary_rule(|g| g.zeros_like())
        }
    }
}
