//! Binary elementwise op descriptors: name, dtype rules, CPU semantics, WGSL and CUDA
//! expressions.

use crate::dtype::DType;
use crate::op::pow::pow_f32;
use crate::op::table::op_enum;

/// `1 / v` when `v`, taken as f32, is a power of two whose reciprocal is a normal f32, else
/// None. Then `x * (1 / v)` is `x / v` bit for bit (both round the same real quotient once),
/// and a product costs a fraction of a division (wasm's `f32x4.div`, a GPU's division
/// sequence): scalar division, means and average pooling divide by counts such as 4 or 1024.
pub(crate) fn exact_reciprocal(v: f64) -> Option<f64> {
    let s = v as f32;
    let r = 1.0 / s;
    (s.is_normal() && s.to_bits() & 0x007f_ffff == 0 && r.is_normal()).then_some(r as f64)
}

/// The scalar op that divides by `v`: a product by its reciprocal where that is exact (see
/// [`exact_reciprocal`]), else the division (what `div_scalar` runs, and the backends that
/// compose a mean).
pub(crate) fn scalar_division(v: f64) -> (BinaryOp, f64) {
    match exact_reciprocal(v) {
        Some(r) => (BinaryOp::Mul, r),
        None => (BinaryOp::Div, v),
    }
}

/// The binary op table: every binary op once, with the doc its enum variant and its `Tensor`
/// methods share, and the name of the method's scalar form. `op_enum!` (below) and
/// `ops::binary`'s method generator both read it; `(custom)` marks an op whose methods are
/// written by hand.
macro_rules! binary_table {
    ($then:ident) => {
        $then! {
            /// A binary elementwise op.
            BinaryOp;
            /// Elementwise `self + other` with broadcasting.
            Add => add (add_scalar),
            /// Elementwise `self - other` with broadcasting.
            Sub => sub (sub_scalar),
            /// Elementwise `self * other` with broadcasting.
            Mul => mul (mul_scalar),
            /// Elementwise true division with broadcasting.
            Div => div (div_scalar),
            /// Elementwise power with broadcasting.
            Pow => pow (pow_scalar),
            /// Elementwise maximum with broadcasting.
            Maximum => maximum (maximum_scalar),
            /// Elementwise minimum with broadcasting.
            Minimum => minimum (minimum_scalar),
            /// Elementwise `==` (bool result).
            Eq => eq (eq_scalar),
            /// Elementwise `!=` (bool result).
            Ne => ne (ne_scalar),
            /// Elementwise `<` (bool result).
            Lt => lt (lt_scalar),
            /// Elementwise `<=` (bool result).
            Le => le (le_scalar),
            /// Elementwise `>` (bool result).
            Gt => gt (gt_scalar),
            /// Elementwise `>=` (bool result).
            Ge => ge (ge_scalar),
            /// Elementwise `atan2(self, other)`: the angle of the point `(other, self)`.
            Atan2 => atan2 (atan2_scalar),
            /// Elementwise Python-style remainder: the result has the divisor's sign (integer division
            /// by zero gives 0).
            Remainder => remainder (remainder_scalar),
            /// Elementwise C-style remainder: the result has the dividend's sign (integer division by
            /// zero gives 0).
            Fmod => fmod (fmod_scalar),
            /// Elementwise `floor(self / other)` in the operands' dtype (integer division by zero gives
            /// 0); PyTorch's `floor_divide`, `//`.
            FloorDivide => floor_divide (floor_divide_scalar),
            /// Elementwise `&` of integers or bools.
            BitwiseAnd => bitwise_and (bitwise_and_scalar),
            /// Elementwise `|` of integers or bools.
            BitwiseOr => bitwise_or (bitwise_or_scalar),
            /// Elementwise `^` of integers or bools.
            BitwiseXor => bitwise_xor (bitwise_xor_scalar),
            /// Elementwise `<<` of integers (shifts outside [0, 32) give 0).
            BitwiseLeftShift => bitwise_left_shift (bitwise_left_shift_scalar),
            /// Elementwise `>>` of integers, arithmetic for i32 (shifts outside [0, 32) shift an i32 by
            /// 31 and give 0 for u32).
            BitwiseRightShift => bitwise_right_shift (bitwise_right_shift_scalar),
            /// `a` where `a > 0`, else `a * b`: PyTorch's `prelu` with `b` the weight, and
            /// `leaky_relu` with `b` the slope, in one pass (NaN stays NaN, -0 gives `-0 * b`)
            Prelu => prelu (custom),
            ;
        }
    };
}
pub(crate) use binary_table;

binary_table!(op_enum);

impl BinaryOp {
    /// Whether the op is defined on integers and bool only (PyTorch's bitwise ops).
    pub fn int_only(self) -> bool {
        use BinaryOp::*;
        matches!(self, BitwiseAnd | BitwiseOr | BitwiseXor | BitwiseLeftShift | BitwiseRightShift)
    }

    /// Whether the op's WGSL loops per element over `dtype` (the exact float `remainder`, `fmod`
    /// and `floor_divide`: long division of the significands). The vec4 kernels then loop over
    /// their four lanes (`op4`, shaders/mod.rs): SwiftShader's shader compiler (Chromium's
    /// software WebGPU) crashed the GPU process, losing every device, creating their pipelines
    /// with four inlined copies of the loop inside the kernel's own.
    pub(crate) fn wgsl_loops(self, dtype: DType) -> bool {
        use BinaryOp::*;
        dtype.is_float() && matches!(self, Remainder | Fmod | FloorDivide)
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
            (Div | Pow | Atan2, d) if !d.is_float() => DType::F32,
            (
                Add | Sub | Mul | Maximum | Minimum | Remainder | Fmod | FloorDivide | BitwiseLeftShift
                | BitwiseRightShift | Prelu,
                DType::Bool,
            ) => DType::I32,
            (_, d) => d,
        }
    }

    /// The dtype of `a op b` for operands of dtypes `a` and `b` (promoted, then as the op
    /// computes: integer division and powers in f32, bool arithmetic in i32, comparisons give bool), or why the op refuses
    /// them. `Tensor::binary` and the op manifest both read it.
    pub fn result_dtype(self, a: DType, b: DType) -> Result<DType, &'static str> {
        let dtype = self.compute_dtype(DType::promote(a, b));
        if self.int_only() && dtype.is_float() {
            return Err("bitwise ops take integer or bool tensors; convert with to_dtype(i32) first");
        }
        Ok(self.out_dtype(dtype))
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
            // Branch-free over f64 (op::math), within 1 ulp of libm's powf.
            Pow => pow_f32(a, b),
            // NaN propagates, as in PyTorch (f32::max would drop it). Selects on comparisons,
            // not f32::max/min: their IEEE maxNum semantics are a libm call per element in wasm
            // (maximum over 1M took 6.5 ms, add 0.6). Of two zeros the second is taken.
            Maximum | Minimum if a.is_nan() || b.is_nan() => f32::NAN,
            Maximum => {
                if a > b {
                    a
                } else {
                    b
                }
            }
            Minimum => {
                if a < b {
                    a
                } else {
                    b
                }
            }
            Atan2 => (a as f64).atan2(b as f64) as f32,
            // Rust's `%` on floats is C's fmod (exact).
            Fmod => a % b,
            Remainder => {
                let m = a % b;
                if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
                    m + b
                } else {
                    m
                }
            }
            FloorDivide => floor_divide_f32(a, b),
            // A select, which vectorises (NaN fails `a > 0` and stays NaN through the product).
            Prelu => {
                if a > 0.0 {
                    a
                } else {
                    a * b
                }
            }
            Eq | Ne | Lt | Le | Gt | Ge => self.compare(a, b) as u8 as f32,
            // Integers and bools only (int_only refuses floats before a kernel runs).
            BitwiseAnd | BitwiseOr | BitwiseXor | BitwiseLeftShift | BitwiseRightShift => 0.0,
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
            // Integer division by zero gives 0, as NumPy (PyTorch raises on the CPU and leaves
            // it undefined on CUDA; a GPU kernel cannot raise).
            _ if b == 0 && matches!(self, Remainder | Fmod | FloorDivide) => 0,
            Fmod => a.wrapping_rem(b),
            Remainder => {
                let r = a.wrapping_rem(b);
                if r != 0 && ((r < 0) != (b < 0)) {
                    r + b
                } else {
                    r
                }
            }
            FloorDivide => {
                let (q, r) = (a.wrapping_div(b), a.wrapping_rem(b));
                if r != 0 && ((r < 0) != (b < 0)) {
                    q.wrapping_sub(1)
                } else {
                    q
                }
            }
            BitwiseAnd => a & b,
            BitwiseOr => a | b,
            BitwiseXor => a ^ b,
            BitwiseLeftShift if (0..32).contains(&b) => ((a as u32) << b) as i32,
            BitwiseLeftShift => 0,
            BitwiseRightShift if (0..32).contains(&b) => a >> b,
            BitwiseRightShift => a >> 31,
            Prelu if a > 0 => a,
            Prelu => a.wrapping_mul(b),
            Eq | Ne | Lt | Le | Gt | Ge => self.compare(a, b) as i32,
            // Never reach integers (compute_dtype promotes them to f32).
            Div | Pow | Atan2 => 0,
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
            _ if b == 0 && matches!(self, Remainder | Fmod | FloorDivide) => 0,
            Remainder | Fmod => a % b,
            FloorDivide => a / b,
            BitwiseAnd => a & b,
            BitwiseOr => a | b,
            BitwiseXor => a ^ b,
            BitwiseLeftShift if b < 32 => a << b,
            BitwiseLeftShift => 0,
            BitwiseRightShift if b < 32 => a >> b,
            BitwiseRightShift => 0,
            Prelu if a > 0 => a,
            Prelu => 0,
            Eq | Ne | Lt | Le | Gt | Ge => self.compare(a, b) as u32,
            // Never reach integers (compute_dtype promotes them to f32).
            Div | Pow | Atan2 => 0,
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
            Add | Sub | Mul | Div | Pow | Maximum | Minimum | Atan2 | Remainder | Fmod | FloorDivide | BitwiseAnd
            | BitwiseOr | BitwiseXor | BitwiseLeftShift | BitwiseRightShift | Prelu => false,
        }
    }

    /// WGSL expression over `a`, `b` (f32 for float dtypes, else the storage type); comparisons
    /// give a WGSL `bool`, which the kernel stores as a u32.
    pub(crate) fn wgsl(self, dtype: DType) -> &'static str {
        use BinaryOp::*;
        let float = dtype.is_float();
        let signed = dtype == DType::I32;
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
            Atan2 => "atan2_acc(a, b)",
            Fmod if float => "fmod_acc(a, b)",
            Remainder if float => "remainder_acc(a, b)",
            FloorDivide if float => "floordiv_acc(a, b)",
            Fmod | Remainder | FloorDivide => "int_div_op(a, b)",
            BitwiseAnd => "a & b",
            BitwiseOr => "a | b",
            BitwiseXor => "a ^ b",
            BitwiseLeftShift if signed => "select(0, a << u32(b), b >= 0 && b < 32)",
            BitwiseRightShift if signed => "select(a >> 31u, a >> u32(b & 31), b >= 0 && b < 32)",
            BitwiseLeftShift => "select(0u, a << (b & 31u), b < 32u)",
            BitwiseRightShift => "select(0u, a >> (b & 31u), b < 32u)",
            // The sign on the bits: a compiler that flushes subnormals (SwiftShader) would
            // take a positive subnormal for 0 in a float comparison.
            Prelu if float => "select(a * b, a, bitcast<i32>(a) > 0)",
            Prelu => "select(a * b, a, a > 0)",
        }
    }

    /// The WGSL helper functions the op's expression calls over operands of `dtype`.
    pub(crate) fn wgsl_helpers(self, dtype: DType) -> String {
        use crate::op::wgsl_math::int_div_wgsl;
        use BinaryOp::*;
        let float = dtype.is_float();
        match self {
            Fmod | Remainder | FloorDivide if !float => int_div_wgsl(self, dtype),
            _ if float => self.wgsl_helper_list_f32().concat(),
            _ => String::new(),
        }
    }

    /// The helper pieces of the op's f32 expression ([`BinaryOp::wgsl_helpers`] of f32), each
    /// a constant that defines its own functions, so a generated program that calls several
    /// ops includes each piece once.
    pub(crate) fn wgsl_helper_list_f32(self) -> Vec<&'static str> {
        use crate::op::wgsl_math::{WGSL_ATAN, WGSL_FMOD, WGSL_SPECIAL};
        use BinaryOp::*;
        match self {
            Pow => vec![WGSL_IS_NAN, WGSL_POW],
            Div => vec![WGSL_FDIV],
            Atan2 => vec![WGSL_IS_NAN, WGSL_SPECIAL, WGSL_FDIV, WGSL_ATAN],
            Fmod | Remainder | FloorDivide => vec![WGSL_IS_NAN, WGSL_SPECIAL, WGSL_FDIV, WGSL_FMOD],
            _ => vec![WGSL_IS_NAN],
        }
    }
}

/// PyTorch's floor division of floats (`c10::div_floor_floating`): the quotient of the exact
/// `a - fmod(a, b)` by `b`, stepped down when the remainder's sign differs from the divisor's,
/// then floored with a correction for the rounding of the division; a zero divisor gives IEEE's
/// `a / b`.
pub(crate) fn floor_divide_f32(a: f32, b: f32) -> f32 {
    if b == 0.0 {
        return a / b;
    }
    let m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        div -= 1.0;
    }
    if div == 0.0 {
        return 0.0f32.copysign(a / b);
    }
    let f = div.floor();
    if div - f > 0.5 {
        f + 1.0
    } else {
        f
    }
}

impl BinaryOp {
    /// CUDA C expression over `a`, `b` (`float` for float dtypes, else the storage type);
    /// comparisons give a C `bool`. Integer arithmetic goes through unsigned so that it wraps.
    pub(crate) fn cuda(self, float: bool) -> &'static str {
        use BinaryOp::*;
        match self {
            Atan2 => "atan2f(a, b)",
            Remainder => "remainder_op(a, b)",
            Fmod => "fmod_op(a, b)",
            FloorDivide => "floordiv_op(a, b)",
            BitwiseAnd => "(a & b)",
            BitwiseOr => "(a | b)",
            BitwiseXor => "(a ^ b)",
            BitwiseLeftShift => "shl_op(a, b)",
            BitwiseRightShift => "shr_op(a, b)",
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
            Prelu if float => "(__float_as_int(a) > 0 ? a : a * b)",
            Prelu => "(a > 0 ? a : (C)((unsigned)a * (unsigned)b))",
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
///
/// One `exp2(b * log2(|a|))` per element, the special cases laid over it by `select`, without
/// branches: GPUs and lavapipe's SIMD lanes run every side of a branch some lane takes, and
/// the branching form also evaluated the driver's `pow` beside the scaled `exp2` kept for
/// subnormal bases (1M elements on Dawn/lavapipe: 6.1 -> 4.9 ms).
pub(crate) const WGSL_POW: &str = "fn fpow(a: f32, b: f32) -> f32 {
    let inf = bitcast<f32>(0x7f800000u | (bitcast<u32>(b) & 0u));
    let ua = bitcast<u32>(a) & 0x7fffffffu;
    let ab = abs(a);
    let b_int = fract(b) == 0.0;
    let b_odd = b_int && fract(b * 0.5) != 0.0;
    let flip = bitcast<u32>(a) >= 0x80000000u && b_odd;
    // Drivers' log2 takes a subnormal's exponent as the smallest normal one, so a subnormal base
    // is scaled into range; a driver that flushes subnormals makes it zero, and then it is one.
    let sub = ua < 0x00800000u;
    let x = select(ab, ab * 8388608.0, sub);
    let a_zero = (bitcast<u32>(x) & 0x7fffffffu) == 0u;
    let m = exp2(b * (log2(x) - select(0.0, 23.0, sub)));
    var r = select(m, -m, flip);
    // A negative finite base with a fractional exponent: NaN.
    r = select(r, bitcast<f32>(0x7fc00000u | (bitcast<u32>(b) & 0u)), bitcast<u32>(a) > 0x80000000u && !b_int);
    // Zero and infinite bases: an exact zero or infinity, signed by an odd exponent.
    let z = select(0.0, inf, a_zero != (b > 0.0));
    r = select(r, select(z, -z, flip), a_zero || ua == 0x7f800000u);
    // Infinite exponents: 1 for |a| = 1, else 0 or infinity by which side of 1 |a| is on.
    let b_inf = (bitcast<u32>(b) & 0x7fffffffu) == 0x7f800000u;
    r = select(r, select(select(0.0, inf, (ab > 1.0) == (b > 0.0)), 1.0, ab == 1.0), b_inf);
    r = select(r, a, b == 1.0);
    r = select(r, a + b, is_nan(a) || is_nan(b));
    return select(r, 1.0, b == 0.0 || a == 1.0);
}
";

/// The CUDA helpers of the division-like and shift ops, overloaded on the compute types, with
/// the CPU's rules: integer division by zero gives 0, `i32::MIN / -1` wraps, shifts outside
/// [0, 32) give 0 (left, and right for u32) or shift by 31 (right, i32). Float fmod is CUDA's exact `fmodf`.
pub(crate) const CUDA_BINARY: &str = "__device__ float fmod_op(float a, float b) { return fmodf(a, b); }
__device__ float remainder_op(float a, float b) {
    float m = fmodf(a, b);
    return (m != 0.0f && ((b < 0.0f) != (m < 0.0f))) ? m + b : m;
}
__device__ float floordiv_op(float a, float b) {
    if (b == 0.0f) return a / b;
    float m = fmodf(a, b);
    float div = (a - m) / b;
    if (m != 0.0f && ((b < 0.0f) != (m < 0.0f))) div -= 1.0f;
    if (div == 0.0f) return copysignf(0.0f, a / b);
    float f = floorf(div);
    return div - f > 0.5f ? f + 1.0f : f;
}
__device__ int fmod_op(int a, int b) { return (b == 0 || b == -1) ? 0 : a % b; }
__device__ int remainder_op(int a, int b) {
    if (b == 0 || b == -1) return 0;
    int r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
__device__ int floordiv_op(int a, int b) {
    if (b == 0) return 0;
    if (b == -1) return (int)(0u - (unsigned)a);
    int q = a / b, r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}
__device__ unsigned fmod_op(unsigned a, unsigned b) { return b == 0u ? 0u : a % b; }
__device__ unsigned remainder_op(unsigned a, unsigned b) { return b == 0u ? 0u : a % b; }
__device__ unsigned floordiv_op(unsigned a, unsigned b) { return b == 0u ? 0u : a / b; }
__device__ int shl_op(int a, int b) { return (b < 0 || b >= 32) ? 0 : (int)((unsigned)a << b); }
__device__ int shr_op(int a, int b) { return (b < 0 || b >= 32) ? (a >> 31) : (a >> b); }
__device__ unsigned shl_op(unsigned a, unsigned b) { return b >= 32u ? 0u : a << b; }
__device__ unsigned shr_op(unsigned a, unsigned b) { return b >= 32u ? 0u : a >> b; }
";
