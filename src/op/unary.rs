//! Unary elementwise op descriptors. Each `UnaryOp` arm carries its name, its CPU semantics and
//! its WGSL and CUDA expressions, so the CPU backend is the reference for every GPU kernel.

use crate::dtype::DType;
use crate::op::binary::{WGSL_FDIV, WGSL_IS_NAN};

/// A unary elementwise op.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `|x|`
    Abs,
    /// `e^x`
    Exp,
    /// natural log
    Log,
    /// square root
    Sqrt,
    /// `1 / sqrt(x)`
    Rsqrt,
    /// `1 / x`
    Reciprocal,
    /// `x * x`
    Square,
    /// sine
    Sin,
    /// cosine
    Cos,
    /// hyperbolic tangent
    Tanh,
    /// `1 / (1 + e^-x)`
    Sigmoid,
    /// `max(x, 0)`
    Relu,
    /// GELU with the exact (erf) form, as PyTorch's default
    Gelu,
    /// the error function (integers promote to f32)
    Erf,
    /// `x * sigmoid(x)`
    Silu,
    /// round down
    Floor,
    /// round up
    Ceil,
    /// round half to even, as PyTorch and WGSL do
    Round,
    /// -1, 0 or 1
    Sign,
}

impl UnaryOp {
    /// Every unary op.
    pub const ALL: [UnaryOp; 20] = {
        use UnaryOp::*;
        [
            Neg, Abs, Exp, Log, Sqrt, Rsqrt, Reciprocal, Square, Sin, Cos, Tanh, Sigmoid, Relu, Gelu, Erf, Silu, Floor,
            Ceil, Round, Sign,
        ]
    };

    /// The op's name, as errors and logs print it.
    pub fn name(self) -> &'static str {
        use UnaryOp::*;
        match self {
            Neg => "neg",
            Abs => "abs",
            Exp => "exp",
            Log => "log",
            Sqrt => "sqrt",
            Rsqrt => "rsqrt",
            Reciprocal => "reciprocal",
            Square => "square",
            Sin => "sin",
            Cos => "cos",
            Tanh => "tanh",
            Sigmoid => "sigmoid",
            Relu => "relu",
            Gelu => "gelu",
            Erf => "erf",
            Silu => "silu",
            Floor => "floor",
            Ceil => "ceil",
            Round => "round",
            Sign => "sign",
        }
    }

    /// The WGSL helper functions the op's kernel calls (the NaN guard's `is_nan` always).
    pub(crate) fn wgsl_helpers(self) -> String {
        use UnaryOp::*;
        let extra = match self {
            Gelu | Erf => WGSL_ERF,
            Tanh => WGSL_TANH,
            Sin | Cos => WGSL_SINCOS,
            Silu => WGSL_FDIV,
            _ => "",
        };
        format!("{WGSL_IS_NAN}{WGSL_SPECIAL}{extra}")
    }

    /// The WGSL expression over `v: f32` with IEEE's and PyTorch's NaN rule applied on the bits
    /// (WGSL compilers may assume no NaN, and SwiftShader's `exp(NaN)` is inf): NaN in, NaN out,
    /// except `sign`, whose NaN gives 0.
    pub(crate) fn wgsl_float_guarded(self) -> String {
        match self {
            UnaryOp::Sign => self.wgsl_float().to_string(),
            _ => format!("select({}, v, is_nan(v))", self.wgsl_float()),
        }
    }

    /// The CUDA helper functions the op's expression calls (beside the kernel prelude's).
    pub(crate) fn cuda_helpers(self) -> &'static str {
        match self {
            UnaryOp::Gelu | UnaryOp::Erf => CUDA_ERF,
            _ => "",
        }
    }

    /// Whether integer inputs have integer semantics; the others promote integers to f32, as
    /// PyTorch does for `exp(int_tensor)`.
    pub(crate) fn has_int_form(self) -> bool {
        use UnaryOp::*;
        matches!(self, Neg | Abs | Square | Relu | Floor | Ceil | Round | Sign)
    }

    /// Whether the kernel exists for `dtype` after promotion (unsigned negation does not).
    pub(crate) fn supports(self, dtype: DType) -> bool {
        dtype.is_float() || (self.has_int_form() && dtype.is_int() && !(self == UnaryOp::Neg && dtype == DType::U32))
    }

    /// CPU semantics for floats (f16 computes in f32 and rounds, like the GPU kernels).
    #[inline]
    pub(crate) fn f32(self, x: f32) -> f32 {
        use UnaryOp::*;
        match self {
            Neg => -x,
            Abs => x.abs(),
            Exp => x.exp(),
            Log => x.ln(),
            Sqrt => x.sqrt(),
            Rsqrt => 1.0 / x.sqrt(),
            Reciprocal => 1.0 / x,
            Square => x * x,
            Sin => x.sin(),
            Cos => x.cos(),
            Tanh => x.tanh(),
            Sigmoid => 1.0 / (1.0 + (-x).exp()),
            // NaN stays NaN, as PyTorch's relu (f32::max would drop it).
            Relu if x.is_nan() => x,
            Relu => x.max(0.0),
            Gelu => 0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2)),
            Erf => erf(x),
            Silu => x / (1.0 + (-x).exp()),
            Floor => x.floor(),
            Ceil => x.ceil(),
            Round => x.round_ties_even(),
            // PyTorch's sign: +0 for NaN and for both zeros.
            Sign => {
                if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else {
                    0.0
                }
            }
        }
    }

    /// CPU semantics for i32 (wrapping, as GPUs and PyTorch do).
    #[inline]
    pub(crate) fn i32(self, x: i32) -> i32 {
        use UnaryOp::*;
        match self {
            Neg => x.wrapping_neg(),
            Abs => x.wrapping_abs(),
            Square => x.wrapping_mul(x),
            Relu => x.max(0),
            Sign => x.signum(),
            _ => x,
        }
    }

    /// CPU semantics for u32; `None` where the op makes no sense unsigned.
    #[inline]
    pub(crate) fn u32(self, x: u32) -> u32 {
        use UnaryOp::*;
        match self {
            Square => x.wrapping_mul(x),
            Sign => (x > 0) as u32,
            _ => x,
        }
    }

    /// WGSL expression over `v: f32`.
    pub(crate) fn wgsl_float(self) -> &'static str {
        use UnaryOp::*;
        match self {
            Neg => "-v",
            Abs => "abs(v)",
            Exp => "exp(v)",
            // The special cases some drivers miss (SwiftShader's log(0) is -88, its log(-x) is
            // log(x); subnormals), decided on the bits: see WGSL_SPECIAL.
            Log => "log_acc(v)",
            Sqrt => "select(sqrt(v), nan_like(v), neg_nonzero(v))",
            Rsqrt => "select(1.0 / sqrt(v), nan_like(v), neg_nonzero(v))",
            Reciprocal => "1.0 / v",
            Square => "v * v",
            // Drivers' sin/cos may be accurate to 2^-11 only (WGSL allows it; SwiftShader is):
            // see WGSL_SINCOS.
            Sin => "sin_acc(v, false)",
            Cos => "sin_acc(v, true)",
            // Drivers' tanh loses relative accuracy near 0 and can overflow to NaN: see WGSL_TANH.
            Tanh => "tanh_acc(v)",
            Sigmoid => "1.0 / (1.0 + exp(-v))",
            // WGSL's max of NaN is undefined: keep NaN as PyTorch does.
            Relu => "select(max(v, 0.0), v, is_nan(v))",
            Gelu => "0.5 * v * (1.0 + erf_approx(v * 0.70710678118654752))",
            Erf => "erf_approx(v)",
            // fdiv: 1 + exp(88) is past 2^126, where drivers' division flushes (WGSL_FDIV).
            Silu => "fdiv(v, 1.0 + exp(-v))",
            Floor => "floor(v)",
            Ceil => "ceil(v)",
            Round => "round(v)",
            // +0 for NaN and both zeros (PyTorch's), decided on the bits.
            Sign => "select(select(select(0.0, -1.0, fkey(v) < 0), 1.0, fkey(v) > 0), 0.0, is_nan(v))",
        }
    }

    /// WGSL expression over `v: i32` or `v: u32`.
    pub(crate) fn wgsl_int(self, dtype: DType) -> &'static str {
        use UnaryOp::*;
        match (self, dtype) {
            (Neg, _) => "-v",
            (Abs, DType::I32) => "abs(v)",
            (Square, _) => "v * v",
            (Relu, DType::I32) => "max(v, 0)",
            (Sign, DType::I32) => "sign(v)",
            (Sign, _) => "select(0u, 1u, v > 0u)",
            _ => "v",
        }
    }
}

impl UnaryOp {
    /// CUDA C expression over `float v` (f16 computes in f32, as in WGSL).
    pub(crate) fn cuda_float(self) -> &'static str {
        use UnaryOp::*;
        match self {
            Neg => "-v",
            Abs => "fabsf(v)",
            Exp => "expf(v)",
            Log => "logf(v)",
            Sqrt => "sqrtf(v)",
            Rsqrt => "1.0f / sqrtf(v)",
            Reciprocal => "1.0f / v",
            Square => "v * v",
            Sin => "sinf(v)",
            Cos => "cosf(v)",
            Tanh => "tanhf(v)",
            Sigmoid => "1.0f / (1.0f + expf(-v))",
            // fmaxf would drop a NaN operand; PyTorch keeps it.
            Relu => "(is_nan(v) ? v : fmaxf(v, 0.0f))",
            Gelu => "0.5f * v * (1.0f + erf_approx(v * 0.70710678118654752f))",
            Erf => "erf_approx(v)",
            Silu => "v / (1.0f + expf(-v))",
            Floor => "floorf(v)",
            Ceil => "ceilf(v)",
            // rintf rounds half to even (roundf would round half away from zero).
            Round => "rintf(v)",
            Sign => "(v > 0.0f ? 1.0f : (v < 0.0f ? -1.0f : 0.0f))",
        }
    }

    /// CUDA C expression over `int v` or `unsigned v`; signed arithmetic goes through unsigned
    /// so that it wraps (signed overflow is undefined in C++).
    pub(crate) fn cuda_int(self, dtype: DType) -> &'static str {
        use UnaryOp::*;
        match (self, dtype) {
            (Neg, _) => "(int)(0u - (unsigned)v)",
            (Abs, DType::I32) => "(v < 0 ? (int)(0u - (unsigned)v) : v)",
            (Square, DType::I32) => "(int)((unsigned)v * (unsigned)v)",
            (Square, _) => "v * v",
            (Relu, DType::I32) => "(v > 0 ? v : 0)",
            (Sign, DType::I32) => "((v > 0) - (v < 0))",
            (Sign, _) => "(v > 0u ? 1u : 0u)",
            _ => "v",
        }
    }
}

/// The CUDA twin of [`erf`].
pub(crate) const CUDA_ERF: &str = "__device__ float erf_approx(float x) {
    if (fabsf(x) < 0.5f) {
        float z = x * x;
        float p = (((((z / 9360.0f - 1.0f / 1320.0f) * z + 1.0f / 216.0f) * z - 1.0f / 42.0f) * z + 0.1f) * z - 1.0f / 3.0f) * z + 1.0f;
        return 1.1283791670955126f * x * p;
    }
    float t = 1.0f / (1.0f + 0.3275911f * fabsf(x));
    float y = 1.0f - (((((1.0614054f * t - 1.4531521f) * t) + 1.4214138f) * t - 0.28449674f) * t + 0.2548296f) * t * expf(-x * x);
    return x >= 0.0f ? y : -y;
}
";

/// erf: for |x| < 0.5 its Taylor series to x^13 (relative error under 2e-7, so tiny inputs keep
/// their value: erf(1e-6) = 1.128e-6), beyond by Abramowitz & Stegun 7.1.26 (absolute error
/// under 1.5e-7). The same formula runs on every backend, so every device computes erf and GELU
/// alike.
pub(crate) fn erf(x: f32) -> f32 {
    if x.abs() < 0.5 {
        let z = x * x;
        let p =
            (((((z / 9360.0 - 1.0 / 1320.0) * z + 1.0 / 216.0) * z - 1.0 / 42.0) * z + 0.1) * z - 1.0 / 3.0) * z + 1.0;
        return std::f32::consts::FRAC_2_SQRT_PI * x * p;
    }
    let t = 1.0 / (1.0 + 0.3275911 * x.abs());
    let y = 1.0
        - (((((1.061_405_4 * t - 1.453_152_1) * t) + 1.421_413_8) * t - 0.284_496_74) * t + 0.254_829_6)
            * t
            * (-x * x).exp();
    y.copysign(x)
}

/// The WGSL twin of [`erf`].
pub(crate) const WGSL_ERF: &str = "fn erf_approx(x: f32) -> f32 {
    if (abs(x) < 0.5) {
        let z = x * x;
        let p = (((((z / 9360.0 - 1.0 / 1320.0) * z + 1.0 / 216.0) * z - 1.0 / 42.0) * z + 0.1) * z - 1.0 / 3.0) * z + 1.0;
        return 1.1283791670955126 * x * p;
    }
    let t = 1.0 / (1.0 + 0.3275911 * abs(x));
    let y = 1.0 - (((((1.0614054 * t - 1.4531521) * t) + 1.4214138) * t - 0.28449674) * t + 0.2548296) * t * exp(-x * x);
    return select(-y, y, x >= 0.0);
}
";

/// Bit-level tests and constants for special values: WGSL compilers may assume floats are
/// never NaN or infinite, and reject infinite constants, so these are built from bits at run
/// time (`& 0u` keeps them out of constant evaluation). Needs `is_nan`.
pub(crate) const WGSL_SPECIAL: &str = "fn is_zero(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0u; }
fn neg_nonzero(x: f32) -> bool { return bitcast<u32>(x) > 0x80000000u && !is_nan(x); }
fn nan_like(x: f32) -> f32 { return bitcast<f32>(0x7fc00000u | (bitcast<u32>(x) & 0u)); }
fn inf_like(x: f32) -> f32 { return bitcast<f32>(0x7f800000u | (bitcast<u32>(x) & 0u)); }
fn log_acc(x: f32) -> f32 {
    let b = bitcast<u32>(x);
    if (b == 0x7f800000u) { return x; }
    if (is_zero(x)) { return -inf_like(x); }
    if (neg_nonzero(x)) { return nan_like(x); }
    // Drivers take a subnormal's exponent as the smallest normal one: scale it into range (a
    // driver that flushes subnormals makes it 0, whose log is -inf).
    if (b < 0x00800000u) {
        let y = x * 8388608.0;
        if (is_zero(y)) { return -inf_like(x); }
        return log(y) - 15.942385152878742;
    }
    return log(x);
}
";

/// sin and cos accurate to about 1e-7 absolute for |x| <= 8192 (Cephes' sinf/cosf: reduction by
/// pi/4 in three parts, then minimax polynomials), where drivers may give only 2^-11 (WGSL's
/// bound, and SwiftShader's accuracy). Beyond 8192 the driver's own (f32 arguments that large
/// carry no phase). Infinities give NaN.
pub(crate) const WGSL_SINCOS: &str = "fn sin_acc(x: f32, want_cos: bool) -> f32 {
    if ((bitcast<u32>(x) & 0x7f800000u) == 0x7f800000u) { return nan_like(x); }
    let ax = abs(x);
    if (ax > 8192.0) { return select(sin(x), cos(x), want_cos); }
    var j = u32(floor(ax * 1.27323954473516));
    j = j + (j & 1u);
    let y = f32(j);
    let z = ((ax - y * 0.78515625) - y * 2.4187564849853515625e-4) - y * 3.77489497744594108e-8;
    let zz = z * z;
    let s = ((-1.9515295891e-4 * zz + 8.3321608736e-3) * zz - 1.6666654611e-1) * zz * z + z;
    let c = ((2.443315711809948e-5 * zz - 1.388731625493765e-3) * zz + 4.166664568298827e-2) * zz * zz - 0.5 * zz + 1.0;
    let q = (j >> 1u) & 3u;
    if (want_cos) {
        return select(select(select(s, -c, q == 2u), -s, q == 1u), c, q == 0u);
    }
    let r = select(select(select(-c, -s, q == 2u), c, q == 1u), s, q == 0u);
    return select(r, -r, bitcast<u32>(x) >= 0x80000000u);
}
";

/// tanh accurate over the whole range (drivers' `tanh` goes through `exp` and loses relative
/// accuracy near 0, about 1e-2 at 1e-6 on some): Cephes' odd polynomial below |x| = 0.625 (within
/// 1 ulp there), `1 - 2 / (e^2|x| + 1)` above, saturating at |x| = 20 where tanh rounds to 1.
pub(crate) const WGSL_TANH: &str = "fn tanh_acc(x: f32) -> f32 {
    if (is_nan(x)) { return x; }
    let a = abs(x);
    if (a < 0.625) {
        let s = x * x;
        return ((((-5.70498872745e-3 * s + 2.06390887954e-2) * s - 5.37397155531e-2) * s + 1.33314422036e-1) * s - 3.33332819422e-1) * s * x + x;
    }
    let r = 1.0 - 2.0 / (exp(2.0 * min(a, 20.0)) + 1.0);
    return select(r, -r, x < 0.0);
}
";
