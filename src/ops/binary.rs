//! Binary elementwise ops with NumPy broadcasting, their scalar forms, `where` and `clamp`.

use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// A binary elementwise op.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b` (true division: integers promote to f32, as in PyTorch)
    Div,
    /// `a ^ b` (integers promote to f32)
    Pow,
    /// elementwise max
    Maximum,
    /// elementwise min
    Minimum,
    /// `a == b` (bool result)
    Eq,
    /// `a != b` (bool result)
    Ne,
    /// `a < b` (bool result)
    Lt,
    /// `a <= b` (bool result)
    Le,
    /// `a > b` (bool result)
    Gt,
    /// `a >= b` (bool result)
    Ge,
}

impl BinaryOp {
    /// Every binary op.
    pub const ALL: [BinaryOp; 13] = {
        use BinaryOp::*;
        [Add, Sub, Mul, Div, Pow, Maximum, Minimum, Eq, Ne, Lt, Le, Gt, Ge]
    };

    /// The op's name, as errors print it.
    pub fn name(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "add",
            Sub => "sub",
            Mul => "mul",
            Div => "div",
            Pow => "pow",
            Maximum => "maximum",
            Minimum => "minimum",
            Eq => "eq",
            Ne => "ne",
            Lt => "lt",
            Le => "le",
            Gt => "gt",
            Ge => "ge",
        }
    }

    /// Whether the result is bool.
    pub(crate) fn is_comparison(self) -> bool {
        use BinaryOp::*;
        matches!(self, Eq | Ne | Lt | Le | Gt | Ge)
    }

    /// The dtype both operands are converted to before the kernel runs.
    pub(crate) fn compute_dtype(self, promoted: DType) -> DType {
        use BinaryOp::*;
        match (self, promoted) {
            (Div | Pow, d) if !d.is_float() => DType::F32,
            (Add | Sub | Mul | Maximum | Minimum, DType::Bool) => DType::I32,
            (_, d) => d,
        }
    }

    /// The dtype of the result for operands computed in `dtype`: bool for comparisons.
    pub(crate) fn out_dtype(self, dtype: DType) -> DType {
        if self.is_comparison() {
            DType::Bool
        } else {
            dtype
        }
    }

    /// CPU semantics for floats.
    #[inline]
    pub(crate) fn f32(self, a: f32, b: f32) -> f32 {
        use BinaryOp::*;
        match self {
            Add => a + b,
            Sub => a - b,
            Mul => a * b,
            Div => a / b,
            Pow => a.powf(b),
            // NaN propagates, as in PyTorch (f32::max would drop it).
            Maximum | Minimum if a.is_nan() || b.is_nan() => f32::NAN,
            Maximum => a.max(b),
            Minimum => a.min(b),
            _ => self.compare(a, b) as u8 as f32,
        }
    }

    /// CPU semantics for i32 (wrapping).
    #[inline]
    pub(crate) fn i32(self, a: i32, b: i32) -> i32 {
        use BinaryOp::*;
        match self {
            Add => a.wrapping_add(b),
            Sub => a.wrapping_sub(b),
            Mul => a.wrapping_mul(b),
            Maximum => a.max(b),
            Minimum => a.min(b),
            // Div and Pow never reach integers (compute_dtype promotes them).
            _ => self.compare(a, b) as i32,
        }
    }

    /// CPU semantics for u32 (wrapping).
    #[inline]
    pub(crate) fn u32(self, a: u32, b: u32) -> u32 {
        use BinaryOp::*;
        match self {
            Add => a.wrapping_add(b),
            Sub => a.wrapping_sub(b),
            Mul => a.wrapping_mul(b),
            Maximum => a.max(b),
            Minimum => a.min(b),
            _ => self.compare(a, b) as u32,
        }
    }

    /// Comparison semantics, shared by every dtype.
    #[inline]
    pub(crate) fn compare<T: PartialOrd>(self, a: T, b: T) -> bool {
        use BinaryOp::*;
        match self {
            Eq => a == b,
            Ne => a != b,
            Lt => a < b,
            Le => a <= b,
            Gt => a > b,
            Ge => a >= b,
            _ => false,
        }
    }

    /// WGSL expression over `a`, `b` (f32 for float dtypes, else the storage type); comparisons
    /// give a WGSL `bool`, which the kernel stores as a u32.
    pub(crate) fn wgsl(self, float: bool) -> &'static str {
        use BinaryOp::*;
        match self {
            // WGSL leaves max/min of NaN undefined; propagate it explicitly like the CPU does.
            Maximum if float => "select(max(a, b), a + b, is_nan(a) || is_nan(b))",
            Minimum if float => "select(min(a, b), a + b, is_nan(a) || is_nan(b))",
            Add => "a + b",
            Sub => "a - b",
            Mul => "a * b",
            Div => "a / b",
            Pow => "fpow(a, b)",
            Maximum => "max(a, b)",
            Minimum => "min(a, b)",
            Eq => "a == b",
            Ne => "a != b",
            Lt => "a < b",
            Le => "a <= b",
            Gt => "a > b",
            Ge => "a >= b",
        }
    }
}

impl BinaryOp {
    /// CUDA C expression over `a`, `b` (`float` for float dtypes, else the storage type);
    /// comparisons give a C `bool`. Integer arithmetic goes through unsigned so that it wraps.
    pub(crate) fn cuda(self, float: bool) -> &'static str {
        use BinaryOp::*;
        match self {
            Maximum if float => "((is_nan(a) || is_nan(b)) ? a + b : fmaxf(a, b))",
            Minimum if float => "((is_nan(a) || is_nan(b)) ? a + b : fminf(a, b))",
            Add if float => "a + b",
            Sub if float => "a - b",
            Mul if float => "a * b",
            Add => "(C)((unsigned)a + (unsigned)b)",
            Sub => "(C)((unsigned)a - (unsigned)b)",
            Mul => "(C)((unsigned)a * (unsigned)b)",
            Div => "a / b",
            Pow => "powf(a, b)",
            Maximum => "(a > b ? a : b)",
            Minimum => "(a < b ? a : b)",
            Eq => "a == b",
            Ne => "a != b",
            Lt => "a < b",
            Le => "a <= b",
            Gt => "a > b",
            Ge => "a >= b",
        }
    }
}

/// NaN test on the bit pattern: WGSL lets compilers assume floats are never NaN, so `x != x`
/// may be folded away.
pub(crate) const WGSL_IS_NAN: &str =
    "fn is_nan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }\n";

/// pow with C's semantics for negative bases (WGSL's `pow` is undefined there).
pub(crate) const WGSL_POW: &str = "fn fpow(a: f32, b: f32) -> f32 {
    if (b == 0.0) { return 1.0; }
    let m = pow(abs(a), b);
    if (a >= 0.0) { return select(m, 1.0 / a, a == 0.0 && b < 0.0); }
    if (fract(b) != 0.0) { return (a - a) / (a - a); }
    return select(m, -m, fract(b * 0.5) != 0.0);
}
";

macro_rules! binary_methods {
    ($($(#[$doc:meta])* $name:ident, $scalar:ident => $op:ident),* $(,)?) => {
        impl Tensor {
            $(
                $(#[$doc])* pub fn $name(&self, other: &Tensor) -> Result<Tensor> {
                    self.binary(other, BinaryOp::$op)
                }
                /// Scalar form of the op above: the scalar never causes a device mismatch.
                pub fn $scalar(&self, other: f64) -> Result<Tensor> {
                    self.binary_scalar(other, BinaryOp::$op)
                }
            )*
        }
    };
}

binary_methods! {
    /// Elementwise `self + other` with broadcasting.
    add, add_scalar => Add,
    /// Elementwise `self - other` with broadcasting.
    sub, sub_scalar => Sub,
    /// Elementwise `self * other` with broadcasting.
    mul, mul_scalar => Mul,
    /// Elementwise true division with broadcasting.
    div, div_scalar => Div,
    /// Elementwise power with broadcasting.
    pow, pow_scalar => Pow,
    /// Elementwise maximum with broadcasting.
    maximum, maximum_scalar => Maximum,
    /// Elementwise minimum with broadcasting.
    minimum, minimum_scalar => Minimum,
    /// Elementwise `==` (bool result).
    eq, eq_scalar => Eq,
    /// Elementwise `!=` (bool result).
    ne, ne_scalar => Ne,
    /// Elementwise `<` (bool result).
    lt, lt_scalar => Lt,
    /// Elementwise `<=` (bool result).
    le, le_scalar => Le,
    /// Elementwise `>` (bool result).
    gt, gt_scalar => Gt,
    /// Elementwise `>=` (bool result).
    ge, ge_scalar => Ge,
}

impl Tensor {
    /// Applies a binary op with NumPy broadcasting and PyTorch-like dtype promotion.
    pub fn binary(&self, other: &Tensor, op: BinaryOp) -> Result<Tensor> {
        let device = self.same_device(other, op.name())?;
        let shape = crate::shape::broadcast_shapes(op.name(), self.shape(), other.shape())?;
        let dtype = op.compute_dtype(DType::promote(self.dtype(), other.dtype()));
        let out_dtype = op.out_dtype(dtype);
        let (a, b) = (self.to_dtype(dtype)?, other.to_dtype(dtype)?);
        crate::device::placement::record(op.name(), &[self.device(), other.device()], device);
        let storage = a
            .storage()
            .binary(op, a.layout(), b.storage(), b.layout(), &shape, dtype)
            .map_err(|e| e.in_op(op.name()))?;
        Ok(Tensor::from_parts(storage, &shape, out_dtype, device))
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
            DType::I32 | DType::U32 | DType::Bool if int_in(i32_range.0, i32_range.1) => DType::I32,
            _ => DType::F32,
        };
        let dtype = if self.dtype().is_float() { self.dtype() } else { DType::promote(self.dtype(), scalar_dtype) };
        let s = Tensor::full_on(&[], other, dtype, self.device())?;
        self.binary(&s, op)
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
        let storage =
            c.storage().where_(c.layout(), a.storage(), a.layout(), b.storage(), b.layout(), &shape, dtype)?;
        Ok(Tensor::from_parts(storage, &shape, dtype, device))
    }

    /// Limits values to `[min, max]`; either bound may be absent.
    pub fn clamp(&self, min: Option<f64>, max: Option<f64>) -> Result<Tensor> {
        if let (Some(lo), Some(hi)) = (min, max) {
            if lo > hi {
                return Err(crate::Error::invalid("clamp", format!("min ({lo}) is greater than max ({hi})")));
            }
        }
        let mut t = self.clone();
        if let Some(lo) = min {
            t = t.maximum_scalar(lo)?;
        }
        if let Some(hi) = max {
            t = t.minimum_scalar(hi)?;
        }
        Ok(t)
    }
}
