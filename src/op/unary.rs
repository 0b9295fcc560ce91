//! Unary elementwise op descriptors. Each `UnaryOp` arm carries its name, its CPU semantics and
//! its WGSL and CUDA expressions, so the CPU backend is the reference for every GPU kernel.

use crate::dtype::DType;

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

    /// Whether the kernel calls the `erf_approx` helper (WGSL_ERF / CUDA_ERF).
    pub(crate) fn needs_erf(self) -> bool {
        matches!(self, UnaryOp::Gelu | UnaryOp::Erf)
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
            Relu => x.max(0.0),
            Gelu => 0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2)),
            Erf => erf(x),
            Silu => x / (1.0 + (-x).exp()),
            Floor => x.floor(),
            Ceil => x.ceil(),
            Round => x.round_ties_even(),
            Sign => {
                if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else {
                    x
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
            Log => "log(v)",
            Sqrt => "sqrt(v)",
            Rsqrt => "1.0 / sqrt(v)",
            Reciprocal => "1.0 / v",
            Square => "v * v",
            Sin => "sin(v)",
            Cos => "cos(v)",
            // Clamped: some drivers compute tanh through exp and overflow to NaN for |v| > 88.
            Tanh => "tanh(clamp(v, -20.0, 20.0))",
            Sigmoid => "1.0 / (1.0 + exp(-v))",
            Relu => "max(v, 0.0)",
            Gelu => "0.5 * v * (1.0 + erf_approx(v * 0.70710678118654752))",
            Erf => "erf_approx(v)",
            Silu => "v / (1.0 + exp(-v))",
            Floor => "floor(v)",
            Ceil => "ceil(v)",
            Round => "round(v)",
            Sign => "sign(v)",
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
            // fmaxf drops a NaN operand, as Rust's f32::max does on the CPU.
            Relu => "fmaxf(v, 0.0f)",
            Gelu => "0.5f * v * (1.0f + erf_approx(v * 0.70710678118654752f))",
            Erf => "erf_approx(v)",
            Silu => "v / (1.0f + expf(-v))",
            Floor => "floorf(v)",
            Ceil => "ceilf(v)",
            // rintf rounds half to even (roundf would round half away from zero).
            Round => "rintf(v)",
            Sign => "(v > 0.0f ? 1.0f : (v < 0.0f ? -1.0f : v))",
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
    float t = 1.0f / (1.0f + 0.3275911f * fabsf(x));
    float y = 1.0f - (((((1.0614054f * t - 1.4531521f) * t) + 1.4214138f) * t - 0.28449674f) * t + 0.2548296f) * t * expf(-x * x);
    return x >= 0.0f ? y : -y;
}
";

/// erf by Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7), the same formula as the WGSL helper so
/// that every backend computes GELU alike.
pub(crate) fn erf(x: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.3275911 * x.abs());
    let y = 1.0
        - (((((1.061_405_4 * t - 1.453_152_1) * t) + 1.421_413_8) * t - 0.284_496_74) * t + 0.254_829_6)
            * t
            * (-x * x).exp();
    y.copysign(x)
}

/// The WGSL twin of [`erf`].
pub(crate) const WGSL_ERF: &str = "fn erf_approx(x: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.3275911 * abs(x));
    let y = 1.0 - (((((1.0614054 * t - 1.4531521) * t) + 1.4214138) * t - 0.28449674) * t + 0.2548296) * t * exp(-x * x);
    return select(-y, y, x >= 0.0);
}
";
