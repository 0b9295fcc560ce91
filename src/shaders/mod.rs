//! WGSL kernels: one plain `.wgsl` file per kernel family, and a small generated prelude per
//! variant (`enable f16;`, type aliases, `const WG`, the op function). No template language:
//! every family body is valid WGSL once a prelude is in front of it.

pub(crate) mod params;
mod variants;

pub(crate) use variants::all_variants;

use crate::dtype::DType;
use crate::op::binary::{BinaryOp, WGSL_IS_NAN};
use crate::op::optim::OptimKind;
use crate::op::param_layout::{wgsl_consts, Field, KernelParams};
use crate::op::params::*;
use crate::op::reduce::ReduceOp;
use crate::op::{MapOp, MatmulProgram};

/// The kernel file `src/shaders/$name.wgsl` as the build script strips it (comments and
/// indentation out: see build.rs).
macro_rules! wgsl {
    ($name:literal) => {
        include_str!(concat!(env!("OUT_DIR"), "/", $name, ".wgsl"))
    };
}

/// Threads per workgroup of the 1-D kernels (WebGPU's default limit is 256).
pub(crate) const WG: u32 = 256;

/// How a strided program walks its shape, as constants of the program. On software adapters
/// (lavapipe, SwiftShader), which run both sides of every branch and each lane's integer
/// division in turn, a walk read from the parameters paid for all 8 dims and for udiv's exact
/// division on every element: [1024,1024] + [1024] took 14 ms against 1.8 for a plain add.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Walk {
    /// The dims the program walks, or 0 to read them from the parameters.
    pub rank: u8,
    /// Every index and dim size the program divides is below 2^24 (exact in f32).
    pub narrow: bool,
}

impl Walk {
    /// Read from the parameters, udiv checking its range (CUDA, whose threads skip unused dims
    /// and branch for real).
    pub(crate) const DYNAMIC: Walk = Walk { rank: 0, narrow: false };

    /// A walk of `rank` dims (at most 8, as the parameters check) over `numel` elements.
    pub(crate) fn of(rank: usize, numel: usize) -> Walk {
        Walk { rank: rank.min(8) as u8, narrow: numel < 1 << 24 }
    }
}

/// A pipeline's identity. Its `Debug` text is the pipeline label, so GPU errors name the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum KernelKey {
    /// Map over strided data (map.wgsl), walking its shape as `walk` says.
    Map {
        op: MapOp,
        src: DType,
        dst: DType,
        walk: Walk,
    },
    /// `Map` over contiguous data, one vec4 per thread.
    Map4 {
        op: MapOp,
        src: DType,
        dst: DType,
    },
    /// Binary op with broadcasting (binary.wgsl); `walk` as for `Map`.
    Binary {
        op: BinaryOp,
        dtype: DType,
        walk: Walk,
    },
    /// `Binary` over contiguous same-shape operands, one vec4 per thread.
    Binary4 {
        op: BinaryOp,
        dtype: DType,
    },
    /// `Binary` with broadcasting, `run` vec4s of a row per thread (binary_rows4.wgsl): the
    /// innermost dim a multiple of 4 (of 4 `run`), each operand running along it (vec4 loads)
    /// or, where `splat` says, one value per row; see [`params::rows4`].
    BinaryRows4 {
        op: BinaryOp,
        dtype: DType,
        walk: Walk,
        splat: [bool; 2],
        run: u8,
    },
    /// `Binary` of a contiguous operand and a scalar held in the uniform (`x op s`).
    BinaryScalar {
        op: BinaryOp,
        dtype: DType,
    },
    /// `BinaryScalar`, one vec4 per thread.
    BinaryScalar4 {
        op: BinaryOp,
        dtype: DType,
    },
    /// `where` with broadcasting (where.wgsl); `walk` as for `Map`.
    Where {
        dtype: DType,
        walk: Walk,
    },
    /// `Where` in runs of vec4s of a row (where_rows4.wgsl), as `BinaryRows4` for three
    /// operands (cond, a, b).
    WhereRows4 {
        dtype: DType,
        walk: Walk,
        splat: [bool; 3],
        run: u8,
    },
    /// clamp of contiguous, vec4-aligned f32 in one pass (clamp4.wgsl), where composing it
    /// takes a maximum and a minimum kernel.
    Clamp4,
    /// Partial sums of contiguous f32 rows whose length and offset are whole vec4s
    /// (reduce_sum4.wgsl): the first pass of a software adapter's serial sum.
    ReduceSum4,
    /// Constant padding of f32 in one pass (pad.wgsl); `walk` (over the output) as for `Map`.
    Pad {
        walk: Walk,
    },
    Fill {
        dtype: DType,
    },
    Reduce {
        op: ReduceOp,
        src: DType,
        dst: DType,
    },
    /// `Reduce` with one thread per (short) row.
    ReduceSmall {
        op: ReduceOp,
        src: DType,
        dst: DType,
    },
    /// `Reduce` of a strided view, one thread per output (up to two kept and two reduced dims).
    ReduceStrided {
        op: ReduceOp,
        src: DType,
        dst: DType,
    },
    Softmax {
        log: bool,
        dtype: DType,
    },
    /// A matmul program (see `MatmulProgram`: one kernel file each).
    Matmul {
        dtype: DType,
        program: MatmulProgram,
    },
    /// One step of the bitonic argsort (sort.wgsl) over rows of `dtype`.
    Sort {
        dtype: DType,
    },
    /// Top-k selection (select.wgsl) over rows of `dtype`.
    Select {
        dtype: DType,
    },
    /// index_select / gather (index.wgsl); `walk` (over the output) as for `Map`.
    Index {
        dtype: DType,
        index: DType,
        walk: Walk,
    },
    /// index_select of whole rows, a vec4 per thread (index_rows4.wgsl; see
    /// [`params::index_rows4`]).
    IndexRows4 {
        dtype: DType,
        index: DType,
    },
    /// index_add / scatter (index_add.wgsl); `walk` as for `Map`.
    IndexAdd {
        dtype: DType,
        index: DType,
        walk: Walk,
    },
    /// The fused optimizer update (f32).
    Optim {
        kind: OptimKind,
    },
}

/// The body of a cast kernel's `op(x: S) -> D`, with the CPU's semantics on special values: a
/// float is true unless it is ±0 (NaN is true); float to integer truncates, saturates at the
/// integer type's bounds (WGSL's own conversion stops at the largest f32 below them, 2147483520
/// for i32) and sends NaN to 0. NaN is found by its bits: WGSL compilers may assume no NaN.
fn cast_body(src: DType, dst: DType) -> String {
    // u8/i8 (32-bit words holding the value) take the i32 cast, then keep the low 8 bits: a
    // mask for u8, a sign extension for i8.
    let narrow = |w: &str| match dst {
        DType::U8 => format!("return u32({w}) & 0xffu;"),
        _ => format!("return (i32({w}) << 24u) >> 24u;"),
    };
    let to_i32 = "let v = f32(x); let w = select(select(i32(v), 2147483647, v >= 2147483648.0), 0, is_nan(v));";
    let body = match (src.is_float(), dst) {
        (_, DType::U8 | DType::I8) if src == dst => "return x;".to_string(),
        (true, DType::U8 | DType::I8) => format!("{to_i32} {}", narrow("w")),
        (false, DType::U8 | DType::I8) => narrow("x"),
        _ => cast_scalar(src, dst).to_string(),
    };
    body
}

/// [`cast_body`] for the 32-bit and f16 destinations.
fn cast_scalar(src: DType, dst: DType) -> &'static str {
    match (src.is_float(), dst) {
        (true, DType::Bool) => "return select(0u, 1u, (bitcast<u32>(f32(x)) & 0x7fffffffu) != 0u);",
        (false, DType::Bool) => "return select(0u, 1u, x != S(0));",
        _ if src == dst || storage_type(src) == storage_type(dst) => "return x;",
        (true, DType::I32) => {
            "let v = f32(x); return select(select(i32(v), 2147483647, v >= 2147483648.0), 0, is_nan(v));"
        }
        (true, DType::U32) => {
            "let v = f32(x); return select(select(u32(v), 4294967295u, v >= 4294967296.0), 0u, is_nan(v));"
        }
        _ => "return D(x);",
    }
}

/// The WGSL storage type of a dtype (bool is a u32 word).
pub(crate) fn storage_type(d: DType) -> &'static str {
    match d {
        DType::F32 => "f32",
        DType::F16 => "f16",
        DType::I32 | DType::I8 => "i32",
        DType::U32 | DType::Bool | DType::U8 => "u32",
    }
}

/// The prelude of the binary kernels: storage types and `op(a0, b0) -> D` (comparisons give a
/// bool word).
fn binary_prelude(op: BinaryOp, dtype: DType) -> String {
    let s = storage_type(dtype);
    let (d, body) = match (op.is_comparison(), dtype.is_float()) {
        (true, true) => {
            ("u32", format!("let a = f32(a0); let b = f32(b0); return select(0u, 1u, {});", op.wgsl(dtype)))
        }
        (true, false) => ("u32", format!("let a = a0; let b = b0; return select(0u, 1u, {});", op.wgsl(dtype))),
        (false, true) => (s, format!("let a = f32(a0); let b = f32(b0); return D({});", op.wgsl(dtype))),
        (false, false) => (s, format!("let a = a0; let b = b0; return {};", op.wgsl(dtype))),
    };
    let helpers = op.wgsl_helpers(dtype);
    // `op4`, the vec4 kernels' four lanes: `op` written out four times, or for an op that loops
    // per element a loop over the lanes (SwiftShader's shader compiler crashed the GPU process,
    // losing every device, on four inlined copies of fmod's loop inside the kernel's own).
    let op4 = if op.wgsl_loops(dtype) {
        "var r: vec4<D>; var xs = x; var ys = y; for (var c = 0u; c < 4u; c++) { r = vec4<D>(r.yzw, op(xs.x, ys.x)); xs = xs.yzwx; ys = ys.yzwx; } return r;"
    } else {
        "return vec4<D>(op(x.x, y.x), op(x.y, y.y), op(x.z, y.z), op(x.w, y.w));"
    };
    format!(
        "alias S = {s};\nalias D = {d};\n{helpers}fn op(a0: S, b0: S) -> D {{ {body} }}\n\
         fn op4(x: vec4<S>, y: vec4<S>) -> vec4<D> {{ {op4} }}\n"
    )
}

/// The WGSL expression turning a uniform word `bits` into a value of `dtype`'s storage type, as
/// `scalar_bits` packs it (f16 travels as f32 bits).
fn scalar_from_bits(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 => "bitcast<f32>(bits)",
        DType::F16 => "f16(bitcast<f32>(bits))",
        DType::I32 | DType::I8 => "bitcast<i32>(bits)",
        DType::U32 | DType::Bool | DType::U8 => "bits",
    }
}

/// The uniform word holding `value` in `dtype` for `scalar_from_bits` (fill and the scalar
/// binary kernels): floats as f32 bits, integers cast as the CPU casts them.
pub(crate) fn scalar_bits(value: f64, dtype: DType) -> u32 {
    match dtype {
        DType::F32 | DType::F16 => (value as f32).to_bits(),
        DType::I32 => (value as i32) as u32,
        DType::U32 => value as u32,
        DType::Bool => (value != 0.0) as u32,
        // The cast rule: i32, then the low 8 bits, stored as a word.
        DType::U8 => (value as i32) as u8 as u32,
        DType::I8 => (value as i32) as i8 as i32 as u32,
    }
}

/// The dtype a reduction accumulates partial results in.
pub(crate) fn accumulator(d: DType) -> DType {
    match d {
        DType::F16 => DType::F32,
        d => d,
    }
}

impl KernelKey {
    /// Whether the variant needs the `shader-f16` feature.
    pub(crate) fn needs_f16(&self) -> bool {
        match *self {
            KernelKey::Map { src, dst, .. }
            | KernelKey::Map4 { src, dst, .. }
            | KernelKey::Reduce { src, dst, .. }
            | KernelKey::ReduceSmall { src, dst, .. }
            | KernelKey::ReduceStrided { src, dst, .. } => src == DType::F16 || dst == DType::F16,
            KernelKey::Binary { dtype, .. }
            | KernelKey::Binary4 { dtype, .. }
            | KernelKey::BinaryRows4 { dtype, .. }
            | KernelKey::BinaryScalar { dtype, .. }
            | KernelKey::BinaryScalar4 { dtype, .. }
            | KernelKey::Where { dtype, .. }
            | KernelKey::WhereRows4 { dtype, .. }
            | KernelKey::Fill { dtype }
            | KernelKey::Softmax { dtype, .. }
            | KernelKey::Matmul { dtype, .. }
            | KernelKey::Index { dtype, .. }
            | KernelKey::IndexRows4 { dtype, .. }
            | KernelKey::IndexAdd { dtype, .. } => dtype == DType::F16,
            KernelKey::Optim { .. }
            | KernelKey::Sort { .. }
            | KernelKey::Select { .. }
            | KernelKey::Clamp4
            | KernelKey::ReduceSum4
            | KernelKey::Pad { .. } => false,
        }
    }

    fn body(&self) -> &'static str {
        match self {
            KernelKey::Map { .. } => wgsl!("map"),
            KernelKey::Map4 { .. } => wgsl!("map4"),
            KernelKey::Binary { .. } => wgsl!("binary"),
            KernelKey::Binary4 { .. } => wgsl!("binary4"),
            KernelKey::BinaryRows4 { .. } => wgsl!("binary_rows4"),
            KernelKey::BinaryScalar { .. } => wgsl!("binary_scalar"),
            KernelKey::BinaryScalar4 { .. } => wgsl!("binary_scalar4"),
            KernelKey::Where { .. } => wgsl!("where"),
            KernelKey::WhereRows4 { .. } => wgsl!("where_rows4"),
            KernelKey::Fill { .. } => wgsl!("fill"),
            KernelKey::Clamp4 => wgsl!("clamp4"),
            KernelKey::ReduceSum4 => wgsl!("reduce_sum4"),
            KernelKey::Pad { .. } => wgsl!("pad"),
            KernelKey::Reduce { .. } => wgsl!("reduce"),
            KernelKey::ReduceSmall { .. } => wgsl!("reduce_small"),
            KernelKey::ReduceStrided { .. } => wgsl!("reduce_strided"),
            KernelKey::Softmax { .. } => wgsl!("softmax"),
            KernelKey::Matmul { program: MatmulProgram::Tiled, .. } => wgsl!("matmul"),
            KernelKey::Matmul { program: MatmulProgram::Blocked, .. } => wgsl!("matmul_blocked"),
            KernelKey::Matmul { program: MatmulProgram::Blocked4, .. } => wgsl!("matmul_blocked4"),
            KernelKey::Matmul { program: MatmulProgram::Register, .. } => wgsl!("matmul_register"),
            KernelKey::Matmul { program: MatmulProgram::Naive, .. } => wgsl!("matmul_naive"),
            KernelKey::Matmul { program: MatmulProgram::Dot, .. } => wgsl!("matmul_dot"),
            KernelKey::Sort { .. } => wgsl!("sort"),
            KernelKey::Select { .. } => wgsl!("select"),
            KernelKey::Index { .. } => wgsl!("index"),
            KernelKey::IndexRows4 { .. } => wgsl!("index_rows4"),
            KernelKey::IndexAdd { .. } => wgsl!("index_add"),
            KernelKey::Optim { .. } => wgsl!("optim"),
        }
    }

    /// The fields of the parameter struct this variant's WGSL program reads (`op::params`).
    pub(crate) fn params(&self) -> &'static [Field] {
        match self {
            KernelKey::Map { .. } => MapParams::FIELDS,
            KernelKey::Map4 { .. } => Map4Params::FIELDS,
            KernelKey::Binary { .. } | KernelKey::BinaryRows4 { .. } => BinaryParams::FIELDS,
            KernelKey::Binary4 { .. } => Binary4Params::FIELDS,
            KernelKey::BinaryScalar { .. } | KernelKey::BinaryScalar4 { .. } => ScalarParams::FIELDS,
            KernelKey::Where { .. } | KernelKey::WhereRows4 { .. } => WhereParams::FIELDS,
            KernelKey::Clamp4 => Clamp4Params::FIELDS,
            KernelKey::ReduceSum4 => ReduceSum4Params::FIELDS,
            KernelKey::Pad { .. } => PadParams::FIELDS,
            KernelKey::Fill { .. } => FillParams::FIELDS,
            KernelKey::Reduce { .. } => ReduceParams::FIELDS,
            KernelKey::ReduceSmall { .. } => ReduceSmallParams::FIELDS,
            KernelKey::ReduceStrided { .. } => StridedReduceParams::FIELDS,
            KernelKey::Softmax { .. } => SoftmaxParams::FIELDS,
            KernelKey::Matmul { program: MatmulProgram::Naive | MatmulProgram::Dot, .. } => MatmulItemsParams::FIELDS,
            KernelKey::Matmul { .. } => MatmulParams::FIELDS,
            KernelKey::Sort { .. } => SortParams::FIELDS,
            KernelKey::Select { .. } => SelectParams::FIELDS,
            KernelKey::Index { .. } => IndexParams::FIELDS,
            KernelKey::IndexRows4 { .. } => IndexRows4Params::FIELDS,
            KernelKey::IndexAdd { .. } => IndexAddParams::FIELDS,
            KernelKey::Optim { .. } => OptimParams::FIELDS,
        }
    }

    /// The prelude lines specific to this variant.
    fn variant_prelude(&self) -> String {
        match *self {
            KernelKey::Map { op, src, dst, .. } | KernelKey::Map4 { op, src, dst } => {
                let (s, d) = (storage_type(src), storage_type(dst));
                let body = match op {
                    MapOp::Unary(u) if src.is_float() => {
                        format!("let v = f32(x); return D({});", u.wgsl_float_guarded())
                    }
                    MapOp::Unary(u) => format!("let v = x; return {};", u.wgsl_int(src)),
                    MapOp::Cast => cast_body(src, dst),
                };
                let helpers = match op {
                    MapOp::Unary(u) if src.is_float() => u.wgsl_helpers(),
                    MapOp::Cast if src.is_float() && !dst.is_float() => WGSL_IS_NAN.to_string(),
                    _ => String::new(),
                };
                format!("alias S = {s};\nalias D = {d};\n{helpers}fn op(x: S) -> D {{ {body} }}\n")
            }
            KernelKey::Binary { op, dtype, .. } | KernelKey::Binary4 { op, dtype } => binary_prelude(op, dtype),
            KernelKey::BinaryRows4 { op, dtype, splat: [sa, sb], run, .. } => format!(
                "{}const A_SPLAT: bool = {sa};\nconst B_SPLAT: bool = {sb};\nconst RUN: u32 = {run}u;\n",
                binary_prelude(op, dtype)
            ),
            KernelKey::BinaryScalar { op, dtype } | KernelKey::BinaryScalar4 { op, dtype } => {
                format!(
                    "{}fn scalar(bits: u32) -> S {{ return {}; }}\n",
                    binary_prelude(op, dtype),
                    scalar_from_bits(dtype)
                )
            }
            KernelKey::Where { dtype, .. } => format!("alias S = {};\n", storage_type(dtype)),
            KernelKey::WhereRows4 { dtype, splat: [sc, sa, sb], run, .. } => format!(
                "alias S = {};\nconst C_SPLAT: bool = {sc};\nconst A_SPLAT: bool = {sa};\nconst B_SPLAT: bool = {sb};\n\
                 const RUN: u32 = {run}u;\n",
                storage_type(dtype)
            ),
            KernelKey::Clamp4 | KernelKey::ReduceSum4 | KernelKey::Pad { .. } => String::new(),
            KernelKey::Fill { dtype } => {
                format!(
                    "alias D = {};\nfn value(bits: u32) -> D {{ return {}; }}\n",
                    storage_type(dtype),
                    scalar_from_bits(dtype)
                )
            }
            KernelKey::Reduce { op, src, dst }
            | KernelKey::ReduceSmall { op, src, dst }
            | KernelKey::ReduceStrided { op, src, dst } => {
                let acc = storage_type(accumulator(src));
                let identity = if op == ReduceOp::Prod { "A(1)" } else { "A(0)" };
                let finish = if op.is_arg() { "return D(i32(idx));" } else { "return D(acc);" };
                format!(
                    "{}alias S = {};\nalias A = {acc};\nalias D = {};\nconst SELECT: bool = {};\n\
                     fn combine(acc: A, v: A) -> A {{ return {}; }}\n\
                     fn better(v: A, acc: A) -> bool {{ return {}; }}\n\
                     fn identity() -> A {{ return {identity}; }}\n\
                     fn finish(acc: A, idx: u32) -> D {{ {finish} }}\n\
                     fn is_nan_any(x: A) -> bool {{ return {}; }}\n{REDUCE_FOLD}",
                    if src.is_float() { WGSL_IS_NAN } else { "" },
                    storage_type(src),
                    storage_type(dst),
                    !matches!(op, ReduceOp::Sum | ReduceOp::Prod),
                    op.wgsl_combine(),
                    op.wgsl_better(src.is_float()),
                    if src.is_float() { "is_nan(x)" } else { "false" },
                )
            }
            KernelKey::Softmax { log, dtype } => {
                format!("alias S = {};\nconst LOG: bool = {log};\n{WGSL_IS_NAN}", storage_type(dtype))
            }
            KernelKey::Matmul { dtype, .. } => {
                format!("alias S = {};\nalias A = {};\n", storage_type(dtype), storage_type(accumulator(dtype)))
            }
            KernelKey::Sort { dtype } | KernelKey::Select { dtype } => crate::op::sort::wgsl_key(dtype),
            KernelKey::Index { dtype, index, .. } | KernelKey::IndexRows4 { dtype, index } => {
                format!("alias S = {};\nalias I = {};\n", storage_type(dtype), storage_type(index))
            }
            KernelKey::IndexAdd { dtype, index, .. } => format!(
                "alias S = {};\nalias A = {};\nalias I = {};\n",
                storage_type(dtype),
                storage_type(accumulator(dtype)),
                storage_type(index)
            ),
            KernelKey::Optim { kind } => optim_prelude(kind),
        }
    }

    /// Whether only the wgpu backend launches this variant (vec4 programs whose parameters no
    /// CUDA kernel reads: CUDA's kernels take every layout, and it composes clamp; the register
    /// tiled matmul, where CUDA runs cuBLAS); the CUDA
    /// backend neither renders nor compiles these.
    #[cfg_attr(not(all(feature = "cuda", not(target_arch = "wasm32"))), allow(dead_code))]
    pub(crate) fn wgsl_only(&self) -> bool {
        matches!(
            self,
            KernelKey::BinaryRows4 { .. }
                | KernelKey::WhereRows4 { .. }
                | KernelKey::IndexRows4 { .. }
                | KernelKey::Clamp4
                | KernelKey::ReduceSum4
                | KernelKey::Pad { .. }
                | KernelKey::Matmul { program: MatmulProgram::Register, .. }
        )
    }

    /// How the program walks its shape, for the variants that index by one (see [`Walk`]).
    fn walk(&self) -> Option<Walk> {
        match *self {
            KernelKey::Map { walk, .. }
            | KernelKey::Binary { walk, .. }
            | KernelKey::BinaryRows4 { walk, .. }
            | KernelKey::Where { walk, .. }
            | KernelKey::WhereRows4 { walk, .. }
            | KernelKey::Index { walk, .. }
            | KernelKey::IndexAdd { walk, .. }
            | KernelKey::Pad { walk } => Some(walk),
            _ => None,
        }
    }

    /// The full WGSL source of this variant.
    pub(crate) fn render(&self) -> String {
        let enable = if self.needs_f16() { "enable f16;\n" } else { "" };
        // Variants without a walk keep udiv's run-time check of the range, and have no shape
        // for WALK to read.
        let walk = self.walk().unwrap_or(Walk::DYNAMIC);
        let walk_fn = if self.walk().is_some() { WALK } else { "" };
        let consts = format!("const RANK: u32 = {}u;\n{}{walk_fn}", walk.rank, udiv_source(walk.narrow));
        format!(
            "{enable}const WG: u32 = {WG}u;\nstruct Params {{ v: array<vec4<u32>, 16> }}\n\
             fn p(i: u32) -> u32 {{ return P.v[i / 4u][i % 4u]; }}\n{}{consts}{}\n{}",
            wgsl_consts(self.params()),
            self.variant_prelude(),
            self.body()
        )
    }
}

/// The bindings of a fused optimizer variant: the inputs (`p`, `g`, then its states), then one
/// output per written tensor, then the uniform; plus accessors so optim.wgsl reads the same for
/// every variant.
fn optim_prelude(kind: OptimKind) -> String {
    let states = kind.states();
    let ins = ["p_in", "g_in", "s0_buf", "s1_buf"];
    let outs = ["p_out", "s0_out", "s1_out"];
    let mut src = format!("const KIND: u32 = {}u;\n", states);
    let mut b = 0;
    for name in ins.iter().take(2 + states).chain(outs.iter().take(1 + states)) {
        let access = if name.ends_with("out") { "read_write" } else { "read" };
        src += &format!("@group(0) @binding({b}) var<storage, {access}> {name}: array<f32>;\n");
        b += 1;
    }
    src += &format!("@group(0) @binding({b}) var<uniform> P: Params;\n");
    let read = |k: usize| {
        if k < states {
            format!("return s{k}_buf[p(P_OFFSETS + {}u) + i];", 2 + k)
        } else {
            "return 0.0;".into()
        }
    };
    src += &format!("fn s0_in(i: u32) -> f32 {{ {} }}\nfn s1_in(i: u32) -> f32 {{ {} }}\n", read(0), read(1));
    let writes: String =
        outs.iter().take(1 + states).zip(["w", "a", "b"]).map(|(o, v)| format!(" {o}[i] = {v};")).collect();
    src + &format!("fn store(i: u32, w: f32, a: f32, b: f32) {{{writes} }}\n")
}

/// `x / d` for the strided kernels' index arithmetic. Integer division has no vector
/// instruction on the CPU adapters (lavapipe, SwiftShader: each lane divides in turn, ~25 cycles
/// each) and is a long sequence on GPUs; a broadcast `[n,8] + [n,1]` spent most of its 27 ms
/// there. Below 2^24 both convert to f32 exactly and the f32 quotient (within 2.5 ulp in WGSL,
/// so at most 3 off) is stepped to the exact one with multiplies and compares, as selects:
/// software adapters run both sides of every branch, so the exact division beside it ran for
/// every lane whenever the program had one. A `narrow` program (see [`Walk`]) has none.
/// The three steps are written out: SwiftShader runs a WGSL loop as written, with a mask
/// check per pass, where LLVM (lavapipe) unrolls it. The kernels' walks peel dim 0 without
/// it: every index is below the element count, so what is left is dim 0's coordinate.
fn udiv_source(narrow: bool) -> String {
    let exact = if narrow { "" } else { "    if (x >= 16777216u || d >= 16777216u) {\n        return x / d;\n    }\n" };
    let step = "    q = q - select(0u, 1u, q * d > x) + select(0u, 1u, (q + 1u) * d <= x);\n";
    format!("fn udiv(x: u32, d: u32) -> u32 {{\n{exact}    var q = u32(f32(x) / f32(d));\n{step}{step}{step}    return q;\n}}\n")
}

/// The strided kernels' walk (map, binary, where and their rows4 forms; pad and the index
/// kernels walk with their own per-dim steps): the offsets, before the base offsets, of index
/// `i` over the first `dims` dims for up to three operands whose strides start at parameter
/// words `s.x`, `s.y`, `s.z` (the shape at `P_SHAPE`). From the innermost dim out, dim 0 peeled: every
/// index is below the element count, so what is left is its coordinate. No dim past `dims` is
/// visited: SwiftShader runs a loop as written, and 8 passes each branching on the rank made
/// its broadcasts 1.6x a plain add. With `dims` and `s` constant (RANK, see [`Walk`]) LLVM
/// unrolls it and every parameter index is constant (a dynamic one costs a load per lane on
/// the CPU adapters); an unused third offset folds away.
const WALK: &str = "fn walk(i: u32, dims: u32, s: vec3<u32>) -> vec3<u32> {
    var rem = i;
    var o = vec3<u32>(0u);
    for (var d = i32(dims) - 1; d >= 1; d--) {
        let du = u32(d);
        let size = p(P_SHAPE + du);
        let q = udiv(rem, size);
        o += (rem - q * size) * vec3<u32>(p(s.x + du), p(s.y + du), p(s.z + du));
        rem = q;
    }
    if (dims > 0u) {
        o += rem * vec3<u32>(p(s.x), p(s.y), p(s.z));
    }
    return o;
}
";

/// How a reduction absorbs value `v` at index `j`: the first value starts the accumulator; a
/// selecting reduction (max, min, arg*) keeps the better value and its index; sum and prod
/// combine. Shared by reduce.wgsl and reduce_small.wgsl.
const REDUCE_FOLD: &str =
    "fn fold(acc: ptr<function, A>, idx: ptr<function, u32>, has: ptr<function, bool>, v: A, j: u32) {
    if (!*has) {
        *acc = v;
        *idx = j;
        *has = true;
    } else if (SELECT) {
        if (better(v, *acc)) {
            *acc = v;
            *idx = j;
        }
    } else {
        *acc = combine(*acc, v);
    }
}
";

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `src` reads a parameter word by number (`p(3u)`, `p(12u + d)`, CUDA's `P.v[3]`)
    /// instead of through its struct's names.
    fn positional(src: &str) -> bool {
        let bytes = src.as_bytes();
        src.match_indices("p(").any(|(i, _)| {
            let word_start = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
            word_start && bytes.get(i + 2).is_some_and(|b| b.is_ascii_digit())
        }) || src.contains("P.v[")
    }

    #[test]
    fn kernels_read_parameters_by_name_within_one_uniform_slot() {
        assert!(positional("x = p(3u);") && positional("P.v[2]") && !positional("op(3u)") && !positional("p(P_K)"));
        for key in all_variants() {
            assert!(!positional(key.body()), "{key:?} reads a parameter word by number");
            let words: usize = key.params().iter().map(|f| f.len).sum();
            assert!(words <= crate::op::param_layout::MAX_WORDS, "{key:?}: {words} words");
        }
    }
}
