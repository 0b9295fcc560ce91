//! Binary elementwise op descriptors: name, dtype rules, CPU semantics, WGSL and CUDA
//! expressions.

use crate::dtype::DType;

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
            Div if float => "fdiv(a, b)",
            Div => "a / b",
            Pow => "fpow(a, b)",
            Maximum => "max(a, b)",
            Minimum => "min(a, b)",
            // IEEE comparisons decided on the bits (`fkey`, in WGSL_IS_NAN): WGSL compilers may
            // assume floats are never NaN and fold or reorder a float comparison, and may flush
            // subnormals to zero (SwiftShader does), which would make 1e-40 == 0.
            Eq if float => "!(is_nan(a) || is_nan(b)) && fkey(a) == fkey(b)",
            Ne if float => "is_nan(a) || is_nan(b) || fkey(a) != fkey(b)",
            Lt if float => "!(is_nan(a) || is_nan(b)) && fkey(a) < fkey(b)",
            Le if float => "!(is_nan(a) || is_nan(b)) && fkey(a) <= fkey(b)",
            Gt if float => "!(is_nan(a) || is_nan(b)) && fkey(a) > fkey(b)",
            Ge if float => "!(is_nan(a) || is_nan(b)) && fkey(a) >= fkey(b)",
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

/// NaN test on the bit pattern (WGSL lets compilers assume floats are never NaN, so `x != x`
/// may be folded away), and `fkey`: a float's bits as an i32 ordered as the floats are (-0 and
/// +0 equal), so comparisons hold for subnormals on devices that flush them.
pub(crate) const WGSL_IS_NAN: &str =
    "fn is_nan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
fn fkey(x: f32) -> i32 {
    let i = bitcast<i32>(x);
    return select(select(i, i ^ 0x7fffffff, i < 0), 0, (i & 0x7fffffff) == 0);
}
";

/// `a / b` that holds for divisors beyond 2^126: drivers may divide by multiplying with `1 / b`,
/// which is subnormal there and flushed to zero (NVIDIA's Vulkan driver gives 3e38 / 3e38 = 0
/// and inf / 3e38 = NaN). Scaling such a divisor by 1/4 first, and the quotient after, keeps
/// both in range; the scale is chosen at run time, so a compiler cannot fold it away.
pub(crate) const WGSL_FDIV: &str = "fn fdiv(a: f32, b: f32) -> f32 {
    let s = select(1.0, 0.25, abs(b) > 8.5e37);
    return (a / (b * s)) * s;
}
";

/// pow with C99's (and PyTorch's) special cases, which WGSL's `pow` (defined only for positive
/// bases, through `exp2(b * log2(a))`) leaves undefined: `pow(x, 0) = pow(1, y) = 1` even for NaN,
/// NaN otherwise propagates, negative bases take integer exponents (odd ones keep the sign),
/// zeros and infinities give exact zeros and infinities, and `pow(-1, +-inf) = 1`. Infinities are
/// built at run time from bits: WGSL rejects infinite constants. Needs `is_nan`.
pub(crate) const WGSL_POW: &str = "fn fpow(a: f32, b: f32) -> f32 {
    if (b == 0.0 || a == 1.0) { return 1.0; }
    if (is_nan(a) || is_nan(b)) { return a + b; }
    if (b == 1.0) { return a; }
    let inf = bitcast<f32>(0x7f800000u | (bitcast<u32>(b) & 0u));
    let ab = abs(a);
    let b_inf = (bitcast<u32>(b) & 0x7fffffffu) == 0x7f800000u;
    if (b_inf) {
        if (ab == 1.0) { return 1.0; }
        return select(0.0, inf, (ab > 1.0) == (b > 0.0));
    }
    let b_int = fract(b) == 0.0;
    let b_odd = b_int && fract(b * 0.5) != 0.0;
    let negative = (bitcast<u32>(a) & 0x80000000u) != 0u;
    // Drivers' log2 takes a subnormal's exponent as the smallest normal one, so a subnormal base
    // is scaled into range; a driver that flushes subnormals makes it zero, and then it is one.
    let sub = bitcast<u32>(ab) < 0x00800000u;
    let scaled = ab * 8388608.0;
    let a_zero = (bitcast<u32>(a) & 0x7fffffffu) == 0u || (sub && (bitcast<u32>(scaled) & 0x7fffffffu) == 0u);
    if (a_zero || (bitcast<u32>(a) & 0x7fffffffu) == 0x7f800000u) {
        let m = select(0.0, inf, a_zero != (b > 0.0));
        return select(m, -m, negative && b_odd);
    }
    if (negative && !b_int) { return (a - a) / (a - a); }
    // WGSL's pow is exp2(b * log2(a)).
    let m = select(pow(ab, b), exp2(b * (log2(scaled) - 23.0)), sub);
    return select(m, -m, negative && b_odd);
}
";
