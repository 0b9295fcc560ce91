//! Unary elementwise op descriptors. Each `UnaryOp` arm carries its name, its CPU semantics and
//! its WGSL and CUDA expressions, so the CPU backend is the reference for every GPU kernel.

use crate::dtype::DType;
use crate::op::binary::{WGSL_FDIV, WGSL_IS_NAN};
use crate::op::math::{
    exp_f32, exp_nonpositive, expm1_f32, expm1_nonpositive, log1p_f32, log_f32, sigmoid_f32, softplus_f32, tanh_f32,
};
use crate::op::table::op_enum;
use crate::op::wgsl_math::*;

/// The unary op table: every unary op once, with the doc its enum variant and its `Tensor`
/// method share. `op_enum!` (below) and `ops::unary`'s method generator both read it; `(custom)`
/// marks an op whose method is written by hand (it takes arguments).
macro_rules! unary_table {
    ($then:ident) => {
        $then! {
            /// A unary elementwise op.
            UnaryOp;
            /// Elementwise `-x`.
            Neg => neg,
            /// Elementwise `|x|`.
            Abs => abs,
            /// Elementwise `e^x` (integers promote to f32).
            Exp => exp,
            /// Elementwise natural log (integers promote to f32).
            Log => log,
            /// Elementwise square root (integers promote to f32).
            Sqrt => sqrt,
            /// Elementwise `1/sqrt(x)` (integers promote to f32).
            Rsqrt => rsqrt,
            /// Elementwise `1/x` (integers promote to f32).
            Reciprocal => reciprocal,
            /// Elementwise `x*x`.
            Square => square,
            /// Elementwise sine.
            Sin => sin,
            /// Elementwise cosine.
            Cos => cos,
            /// Elementwise tanh.
            Tanh => tanh,
            /// Elementwise logistic sigmoid.
            Sigmoid => sigmoid,
            /// Elementwise `max(x, 0)`.
            Relu => relu,
            /// Elementwise GELU (erf form).
            Gelu => gelu,
            /// Elementwise GELU (tanh approximation, PyTorch's `approximate="tanh"`).
            GeluTanh => gelu_tanh,
            /// Elementwise error function (integers promote to f32).
            Erf => erf,
            /// Elementwise SiLU (swish).
            Silu => silu,
            /// Elementwise floor.
            Floor => floor,
            /// Elementwise ceil.
            Ceil => ceil,
            /// Elementwise round half to even.
            Round => round,
            /// Elementwise sign.
            Sign => sign,
            /// Elementwise `log(1 + x)`, accurate for tiny `x` (integers promote to f32).
            Log1p => log1p,
            /// Elementwise `e^x - 1`, accurate for tiny `x` (integers promote to f32).
            Expm1 => expm1,
            /// Elementwise tangent.
            Tan => tan,
            /// Elementwise arcsine (NaN outside [-1, 1]).
            Asin => asin,
            /// Elementwise arccosine (NaN outside [-1, 1]).
            Acos => acos,
            /// Elementwise arctangent.
            Atan => atan,
            /// Elementwise hyperbolic sine.
            Sinh => sinh,
            /// Elementwise hyperbolic cosine.
            Cosh => cosh,
            /// Elementwise inverse hyperbolic sine.
            Asinh => asinh,
            /// Elementwise inverse hyperbolic cosine (NaN below 1).
            Acosh => acosh,
            /// Elementwise inverse hyperbolic tangent (NaN outside [-1, 1]).
            Atanh => atanh,
            /// Elementwise `log(1 + e^x)` with PyTorch's defaults (beta 1, threshold 20); see
            /// `nn::functional::softplus` for other values.
            Softplus => softplus,
            /// Elementwise Mish, `x * tanh(softplus(x))`.
            Mish => mish,
            /// Elementwise hard swish, `x * relu6(x + 3) / 6`.
            Hardswish => hardswish,
            /// Elementwise hard sigmoid, `relu6(x + 3) / 6`.
            Hardsigmoid => hardsigmoid,
            /// ELU with alpha 1 (PyTorch's default): `x` above 0, else `e^x - 1`. One kernel where
            /// the composition (expm1, a comparison, a where) took three; `Tensor::elu(alpha)` uses it
            /// for alpha 1.
            Elu => elu (custom),
            ;
            /// The derivative of (exact) GELU, `Phi(x) + x phi(x)` (PyTorch's `aten::gelu_backward`
            /// with a unit gradient): GELU's backward in one kernel where the formula took eleven.
            /// Internal to the backward rules: not in [`UnaryOp::ALL`], so the op tables and the JS
            /// surface do not list it.
            GeluGrad => gelu_backward,
        }
    };
}
pub(crate) use unary_table;

unary_table!(op_enum);

/// What a unary op does to an integer (see [`UnaryOp::int_form`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntForm {
    /// Wrapping negation.
    Neg,
    /// Wrapping absolute value (unsigned: the value).
    Abs,
    /// Wrapping square.
    Square,
    /// `max(x, 0)` (unsigned: the value).
    Relu,
    /// -1, 0 or 1 (unsigned: 0 or 1).
    Sign,
    /// The value itself (floor, ceil and round of a whole number).
    Identity,
}

impl UnaryOp {
    /// The WGSL helper functions the op's kernel calls (the NaN guard's `is_nan` always).
    pub(crate) fn wgsl_helpers(self) -> String {
        self.wgsl_helper_list().concat()
    }

    /// [`UnaryOp::wgsl_helpers`] as its pieces, each a constant that defines its own functions,
    /// so a generated program that calls several ops includes each piece once.
    pub(crate) fn wgsl_helper_list(self) -> Vec<&'static str> {
        use UnaryOp::*;
        let extra: &[&str] = match self {
            Gelu | Erf | GeluGrad => &[WGSL_ERF],
            Tanh | GeluTanh => &[WGSL_TANH],
            Sin | Cos => &[WGSL_SINCOS],
            Tan => &[WGSL_SINCOS, WGSL_FDIV],
            Silu => &[WGSL_FDIV],
            Log1p | Softplus => &[WGSL_LOG1P],
            Mish => &[WGSL_LOG1P, WGSL_TANH],
            Expm1 | Elu => &[WGSL_EXPM1],
            Sinh | Cosh => &[WGSL_HYPER],
            Atan => &[WGSL_ATAN, WGSL_FDIV],
            Asin | Acos => &[WGSL_ASIN],
            Asinh | Acosh | Atanh => &[WGSL_LOG1P, WGSL_AHYPER],
            _ => &[],
        };
        [WGSL_IS_NAN, WGSL_SPECIAL].into_iter().chain(extra.iter().copied()).collect()
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
            UnaryOp::Gelu | UnaryOp::Erf | UnaryOp::GeluGrad => CUDA_ERF,
            _ => "",
        }
    }

    /// The op's integer semantics, or `None` where integers promote to f32, as PyTorch's
    /// `exp(int_tensor)` does. One exhaustive match: a new op must say which it is.
    pub(crate) fn int_form(self) -> Option<IntForm> {
        use UnaryOp::*;
        match self {
            Neg => Some(IntForm::Neg),
            Abs => Some(IntForm::Abs),
            Square => Some(IntForm::Square),
            Relu => Some(IntForm::Relu),
            Sign => Some(IntForm::Sign),
            // Integers are already whole.
            Floor | Ceil | Round => Some(IntForm::Identity),
            Exp | Log | Sqrt | Rsqrt | Reciprocal | Sin | Cos | Tanh | Sigmoid | Gelu | GeluTanh | Erf | Silu
            | Log1p | Expm1 | Tan | Asin | Acos | Atan | Sinh | Cosh | Asinh | Acosh | Atanh | Softplus | Mish
            | Hardswish | Hardsigmoid | Elu | GeluGrad => None,
        }
    }

    /// Whether integer inputs have integer semantics; the others promote integers to f32.
    pub(crate) fn has_int_form(self) -> bool {
        self.int_form().is_some()
    }

    /// Whether the kernel exists for `dtype` after promotion (unsigned negation does not).
    pub(crate) fn supports(self, dtype: DType) -> bool {
        dtype.is_float() || (self.has_int_form() && dtype.is_int() && !(self == UnaryOp::Neg && dtype == DType::U32))
    }

    /// The dtype the op computes in and returns for an input of `dtype` (floats keep theirs;
    /// integers keep theirs where the op has an integer form and bool counts in i32; the
    /// others compute in f32), or why the op refuses `dtype`. `Tensor::unary` and the op
    /// manifest both read it.
    pub fn result_dtype(self, dtype: DType) -> Result<DType, &'static str> {
        let target = match dtype {
            DType::F32 | DType::F16 => dtype,
            DType::I32 | DType::U32 | DType::U8 | DType::I8 if self.has_int_form() => dtype,
            DType::Bool if self.has_int_form() => DType::I32,
            _ => DType::F32,
        };
        if self.supports(target) {
            Ok(target)
        } else {
            Err("negation of an unsigned tensor; convert with to_dtype(i32) first")
        }
    }

    /// CPU semantics for floats (f16 computes in f32 and rounds, like the GPU kernels).
    #[inline]
    pub(crate) fn f32(self, x: f32) -> f32 {
        use UnaryOp::*;
        match self {
            Neg => -x,
            Abs => x.abs(),
            // math::exp_f32 (2 ulp) vectorises where libm's exp is a call per element.
            Exp => exp_f32(x),
            Log => log_f32(x),
            Sqrt => x.sqrt(),
            Rsqrt => 1.0 / x.sqrt(),
            Reciprocal => 1.0 / x,
            Square => x * x,
            Sin => crate::op::math::sin_f32(x, false),
            Cos => crate::op::math::sin_f32(x, true),
            Tanh => tanh_f32(x),
            Sigmoid => sigmoid_f32(x),
            // NaN stays NaN, as PyTorch's relu (f32::max would drop it); -0 gives +0. One
            // select, which vectorises (the NaN branch before f32::max did not: 5 ms per 1M
            // elements in wasm).
            Relu => {
                if x > 0.0 || x.is_nan() {
                    x
                } else {
                    0.0
                }
            }
            Gelu => 0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2)),
            GeluGrad => gelu_grad(x),
            // PyTorch's kernel: kBeta = sqrt(2) * (2 / sqrt(pi)) / 2, in f32.
            GeluTanh => 0.5 * x * (1.0 + tanh_f32(GELU_BETA * (x + GELU_KAPPA * (x * x * x)))),
            Erf => erf(x),
            Silu => x / (1.0 + exp_f32(-x)),
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
            // Kahan's forms over the vectorising exp and log (op::math), within 4 ulp.
            Log1p => log1p_f32(x),
            Expm1 => expm1_f32(x),
            // The inverse and hyperbolic functions in f64, rounded once: the reference the GPU
            // kernels are held to.
            Tan => f64_map(x, f64::tan),
            Asin => f64_map(x, f64::asin),
            Acos => f64_map(x, f64::acos),
            Atan => f64_map(x, f64::atan),
            Sinh => f64_map(x, f64::sinh),
            Cosh => f64_map(x, f64::cosh),
            Asinh => f64_map(x, f64::asinh),
            Acosh => f64_map(x, f64::acosh),
            Atanh => f64_map(x, f64::atanh),
            Softplus => softplus_f32(x),
            Mish => x * tanh_f32(softplus_f32(x)),
            // PyTorch's formula, in f32, with NaN kept (f32::max would drop it).
            Hardswish | Hardsigmoid if x.is_nan() => x,
            Hardswish => x * (x + 3.0).clamp(0.0, 6.0) / 6.0,
            Hardsigmoid => (x + 3.0).clamp(0.0, 6.0) / 6.0,
            // A select between both forms, which vectorises (NaN takes expm1's NaN; both zeros
            // are their own ELU).
            Elu => {
                let e = expm1_nonpositive(x);
                if x >= 0.0 {
                    x
                } else {
                    e
                }
            }
        }
    }

    /// CPU semantics for i32 (wrapping, as GPUs and PyTorch do); identity for ops without an
    /// integer form, whose inputs are promoted before any kernel runs.
    #[inline]
    pub(crate) fn i32(self, x: i32) -> i32 {
        match self.int_form() {
            Some(IntForm::Neg) => x.wrapping_neg(),
            Some(IntForm::Abs) => x.wrapping_abs(),
            Some(IntForm::Square) => x.wrapping_mul(x),
            Some(IntForm::Relu) => x.max(0),
            Some(IntForm::Sign) => x.signum(),
            Some(IntForm::Identity) | None => x,
        }
    }

    /// CPU semantics for u32 (negation is refused before a kernel runs: see [`Self::supports`]).
    #[inline]
    pub(crate) fn u32(self, x: u32) -> u32 {
        match self.int_form() {
            Some(IntForm::Square) => x.wrapping_mul(x),
            Some(IntForm::Sign) => (x > 0) as u32,
            Some(IntForm::Neg) => x.wrapping_neg(),
            Some(IntForm::Abs | IntForm::Relu | IntForm::Identity) | None => x,
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
            GeluGrad => "0.5 * (1.0 + erf_approx(v * 0.70710678118654752)) + v * exp(-0.5 * v * v) * 0.3989422804014327",
            GeluTanh => "0.5 * v * (1.0 + tanh_acc(0.7978845608028654 * (v + 0.044715 * (v * v * v))))",
            Erf => "erf_approx(v)",
            // fdiv: 1 + exp(88) is past 2^126, where drivers' division flushes (WGSL_FDIV).
            Silu => "fdiv(v, 1.0 + exp(-v))",
            Floor => "floor(v)",
            Ceil => "ceil(v)",
            Round => "round(v)",
            // +0 for NaN and both zeros (PyTorch's), decided on the bits.
            Sign => "select(select(select(0.0, -1.0, fkey(v) < 0), 1.0, fkey(v) > 0), 0.0, is_nan(v))",
            // The rest are implemented in wgsl_math (drivers' own are held to loose bounds).
            Log1p => "log1p_acc(v)",
            Expm1 => "expm1_acc(v)",
            Tan => "fdiv(sin_acc(v, false), sin_acc(v, true))",
            Asin => "asin_acc(v)",
            Acos => "acos_acc(v)",
            Atan => "atan_acc(v)",
            Sinh => "hyper_acc(v, false)",
            Cosh => "hyper_acc(v, true)",
            Asinh => "asinh_acc(v)",
            Acosh => "acosh_acc(v)",
            Atanh => "atanh_acc(v)",
            Softplus => "select(log1p_acc(exp(v)), v, v > 20.0)",
            // Below -20, tanh(softplus(x)) = e^x to f32 precision, and x e^x = -e^(x + log(-x))
            // stays normal where e^x alone would be a subnormal a GPU flushes.
            // mish(-inf) is -inf * 0 = NaN in PyTorch.
            Mish => "select(select(v * tanh_acc(select(log1p_acc(exp(v)), v, v > 20.0)), -exp(v + log_acc(-v)), v < -20.0), nan_like(v), bitcast<u32>(v) == 0xff800000u)",
            Hardswish => "v * min(max(v + 3.0, 0.0), 6.0) / 6.0",
            Hardsigmoid => "min(max(v + 3.0, 0.0), 6.0) / 6.0",
            Elu => "select(expm1_acc(v), v, v > 0.0)",
        }
    }

    /// WGSL expression over `v: i32` or `v: u32`.
    pub(crate) fn wgsl_int(self, dtype: DType) -> &'static str {
        let signed = dtype == DType::I32;
        match self.int_form() {
            Some(IntForm::Neg) => "-v",
            Some(IntForm::Abs) if signed => "abs(v)",
            Some(IntForm::Square) => "v * v",
            Some(IntForm::Relu) if signed => "max(v, 0)",
            Some(IntForm::Sign) if signed => "sign(v)",
            Some(IntForm::Sign) => "select(0u, 1u, v > 0u)",
            Some(IntForm::Abs | IntForm::Relu | IntForm::Identity) | None => "v",
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
            GeluGrad => {
                "0.5f * (1.0f + erf_approx(v * 0.70710678118654752f)) + v * expf(-0.5f * v * v) * 0.3989422804014327f"
            }
            GeluTanh => "0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * (v * v * v))))",
            Erf => "erf_approx(v)",
            Silu => "v / (1.0f + expf(-v))",
            Floor => "floorf(v)",
            Ceil => "ceilf(v)",
            // rintf rounds half to even (roundf would round half away from zero).
            Round => "rintf(v)",
            Sign => "(v > 0.0f ? 1.0f : (v < 0.0f ? -1.0f : 0.0f))",
            Log1p => "log1pf(v)",
            Expm1 => "expm1f(v)",
            Tan => "tanf(v)",
            Asin => "asinf(v)",
            Acos => "acosf(v)",
            Atan => "atanf(v)",
            Sinh => "sinhf(v)",
            Cosh => "coshf(v)",
            Asinh => "asinhf(v)",
            Acosh => "acoshf(v)",
            Atanh => "atanhf(v)",
            Softplus => "(v > 20.0f ? v : log1pf(expf(v)))",
            Mish => "v * tanhf(v > 20.0f ? v : log1pf(expf(v)))",
            Hardswish => "(is_nan(v) ? v : v * fminf(fmaxf(v + 3.0f, 0.0f), 6.0f) / 6.0f)",
            Hardsigmoid => "(is_nan(v) ? v : fminf(fmaxf(v + 3.0f, 0.0f), 6.0f) / 6.0f)",
            Elu => "(v > 0.0f ? v : expm1f(v))",
        }
    }

    /// CUDA C expression over `int v` or `unsigned v`; signed arithmetic goes through unsigned
    /// so that it wraps (signed overflow is undefined in C++).
    pub(crate) fn cuda_int(self, dtype: DType) -> &'static str {
        let signed = dtype == DType::I32;
        match self.int_form() {
            Some(IntForm::Neg) => "(int)(0u - (unsigned)v)",
            Some(IntForm::Abs) if signed => "(v < 0 ? (int)(0u - (unsigned)v) : v)",
            Some(IntForm::Square) if signed => "(int)((unsigned)v * (unsigned)v)",
            Some(IntForm::Square) => "v * v",
            Some(IntForm::Relu) if signed => "(v > 0 ? v : 0)",
            Some(IntForm::Sign) if signed => "((v > 0) - (v < 0))",
            Some(IntForm::Sign) => "(v > 0u ? 1u : 0u)",
            Some(IntForm::Abs | IntForm::Relu | IntForm::Identity) | None => "v",
        }
    }
}

/// `f` evaluated in f64 and rounded once to f32.
#[inline]
fn f64_map(x: f32, f: impl Fn(f64) -> f64) -> f32 {
    f(x as f64) as f32
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

/// [`erf`]'s Taylor series in `z = x^2` after its first terms: `1 + z (c5 + z (c4 + ... + z (c1
/// + z / ERF_SERIES_DIVISOR)))`, coefficients with their signs (shared with the wasm SIMD form,
/// `device/cpu/wasm_unary.rs`, as are the constants below).
pub(crate) const ERF_SERIES: [f32; 5] = [-(1.0 / 1320.0), 1.0 / 216.0, -(1.0 / 42.0), 0.1, -(1.0 / 3.0)];
/// See [`ERF_SERIES`].
pub(crate) const ERF_SERIES_DIVISOR: f32 = 9360.0;
/// Below this |x| [`erf`] takes its series, above Abramowitz & Stegun's form.
pub(crate) const ERF_SMALL: f32 = 0.5;
/// Abramowitz & Stegun 7.1.26's `p`: `t = 1 / (1 + p |x|)`.
pub(crate) const ERF_T: f32 = 0.3275911;
/// Abramowitz & Stegun 7.1.26's `a5 .. a1`, highest first.
pub(crate) const ERF_AS: [f32; 5] = [1.061_405_4, -1.453_152_1, 1.421_413_8, -0.284_496_74, 0.254_829_6];

/// erf: for |x| < 0.5 its Taylor series to x^13 (relative error under 2e-7, so tiny inputs keep
/// their value: erf(1e-6) = 1.128e-6), beyond by Abramowitz & Stegun 7.1.26 (absolute error
/// under 1.5e-7). The same formula runs on every backend, so every device computes erf and GELU
/// alike. Both forms are computed and one selected, with `exp_nonpositive` for `e^{-x^2}`, so a
/// loop over it vectorises: with a branch and libm's `exp` GELU over 1M elements took 17 ms in
/// wasm.
#[inline(always)]
pub(crate) fn erf(x: f32) -> f32 {
    erf_given_exp(x, exp_nonpositive(-(x * x)))
}

/// [`erf`] with `exp(-x^2)` given, for callers that need that value too (GELU's derivative).
#[inline]
fn erf_given_exp(x: f32, e: f32) -> f32 {
    let z = x * x;
    let [c1, c2, c3, c4, c5] = ERF_SERIES;
    let p = (((((z / ERF_SERIES_DIVISOR + c1) * z + c2) * z + c3) * z + c4) * z + c5) * z + 1.0;
    let small = std::f32::consts::FRAC_2_SQRT_PI * x * p;
    let t = 1.0 / (1.0 + ERF_T * x.abs());
    let [a5, a4, a3, a2, a1] = ERF_AS;
    let big = 1.0 - (((((a5 * t + a4) * t) + a3) * t + a2) * t + a1) * t * e;
    if x.abs() < ERF_SMALL {
        small
    } else {
        big.copysign(x)
    }
}

/// GELU's derivative `Phi(x) + x phi(x)`: `erf(x / sqrt 2)` and the density share one
/// `exp(-x^2 / 2)`. `inf * 0` at `x = +-inf` is NaN, as PyTorch's.
#[inline]
fn gelu_grad(x: f32) -> f32 {
    let u = x * std::f32::consts::FRAC_1_SQRT_2;
    let e = exp_nonpositive(-(u * u));
    0.5 * (1.0 + erf_given_exp(u, e)) + x * e * INV_SQRT_2PI
}

/// GELU's tanh form: `sqrt(2 / pi)` (PyTorch's `kBeta`, `M_SQRT2 * M_2_SQRTPI * 0.5`).
pub(crate) const GELU_BETA: f32 = 0.797_884_6;
/// GELU's tanh form: the cubic term's weight (PyTorch's `kKappa`).
pub(crate) const GELU_KAPPA: f32 = 0.044_715;
/// 1 / sqrt(2 pi): the normal density's constant (GELU's derivative).
const INV_SQRT_2PI: f32 = 0.398_942_3;
