//! WGSL kernels: one plain `.wgsl` file per kernel family, and a small generated prelude per
//! variant (`enable f16;`, type aliases, `const WG`, the op function). No template language:
//! every family body is valid WGSL once a prelude is in front of it.

mod elementwise;
pub(crate) mod params;
pub(crate) use elementwise::{LANES_ALIGNED, LANES_RAGGED};
mod prelude;
mod variants;

pub(crate) use prelude::{accumulator, scalar_bits, storage_type};
use prelude::{binary_prelude, cast_body, optim_multi_prelude, scalar_from_bits, udiv_source, REDUCE_FOLD, WALK};

pub(crate) use variants::all_variants;

use crate::dtype::DType;
use crate::op::binary::{BinaryOp, WGSL_IS_NAN};
use crate::op::fill::WGSL_THREEFRY;
use crate::op::fused::FusedKind;
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
    /// A lazy-tier program (`op::expr`, interned as `program`) over f32 leaves, generated
    /// (elementwise.rs): `walk` over the coalesced output shape, leaf `k` read flat where bit
    /// `k` of `flat` is set; with `vec4`, every leaf flat and a vec4 per thread; with `lanes`
    /// (`LANES_ALIGNED` or `LANES_RAGGED`, else 0), four positions of one innermost row per
    /// thread.
    Elementwise {
        program: u32,
        walk: Walk,
        flat: u8,
        vec4: bool,
        lanes: u8,
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
    /// A matmul program (see `MatmulProgram`: one kernel file each); with `bias`, the program
    /// adds a bias row to its outputs as it stores them (a fourth binding, before the
    /// parameters'; wgpu only: CUDA's floats go through cuBLAS).
    Matmul {
        dtype: DType,
        program: MatmulProgram,
        bias: bool,
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
    /// The fused optimizer update of several tensors (f32) reading `slots` input bindings.
    OptimMulti {
        kind: OptimKind,
        slots: u8,
    },
    /// Part `part` of a fused family's program (`op::fused`: its `.wgsl` and `.cu`, parameters
    /// and prelude come from the family) over elements of `dtype`.
    Fused {
        kind: FusedKind,
        part: u8,
        dtype: DType,
    },
}

/// `src` with each line that holds `#c` written `vec4s` times, `#c` replaced by 0, 1, ...:
/// the tiled attention's rows in named registers.
pub(crate) fn expand_rows(src: &str, vec4s: u32) -> String {
    let mut out = String::with_capacity(src.len() * 2);
    for line in src.lines() {
        if line.contains("#c") {
            for c in 0..vec4s {
                out.push_str(&line.replace("#c", &c.to_string()));
                out.push('\n');
            }
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
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
            | KernelKey::Fused { dtype, .. }
            | KernelKey::Softmax { dtype, .. }
            | KernelKey::Matmul { dtype, .. }
            | KernelKey::Index { dtype, .. }
            | KernelKey::IndexRows4 { dtype, .. }
            | KernelKey::IndexAdd { dtype, .. } => dtype == DType::F16,
            KernelKey::Optim { .. }
            | KernelKey::OptimMulti { .. }
            | KernelKey::Elementwise { .. }
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
            KernelKey::Elementwise { .. } => "",
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
            KernelKey::Matmul { program: MatmulProgram::Register4, .. } => wgsl!("matmul_register4"),
            KernelKey::Matmul { program: MatmulProgram::Naive, .. } => wgsl!("matmul_naive"),
            KernelKey::Matmul { program: MatmulProgram::Dot, .. } => wgsl!("matmul_dot"),
            KernelKey::Sort { .. } => wgsl!("sort"),
            KernelKey::Select { .. } => wgsl!("select"),
            KernelKey::Index { .. } => wgsl!("index"),
            KernelKey::IndexRows4 { .. } => wgsl!("index_rows4"),
            KernelKey::IndexAdd { .. } => wgsl!("index_add"),
            // CUDA's (optim.cu; see `cuda_only`): wgpu runs optim_multi.wgsl.
            KernelKey::Optim { .. } => "",
            KernelKey::OptimMulti { .. } => wgsl!("optim_multi"),
            KernelKey::Fused { kind, part, .. } => kind.wgsl(*part),
        }
    }

    /// The fields of the parameter struct this variant's WGSL program reads (`op::params`).
    pub(crate) fn params(&self) -> &'static [Field] {
        match self {
            KernelKey::Map { .. } => MapParams::FIELDS,
            KernelKey::Elementwise { .. } => ElementwiseParams::FIELDS,
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
            KernelKey::OptimMulti { .. } => OptimMultiParams::FIELDS,
            KernelKey::Fused { kind, .. } => kind.params(),
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
            KernelKey::Elementwise { program, walk, flat, vec4, lanes } => match crate::op::expr::program(program) {
                Some(p) => elementwise::render(&p, walk.rank as usize, flat, vec4, lanes),
                // Not WGSL: the pipeline fails to build and the error names this key.
                None => "internal: no program has this id".into(),
            },
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
                    "alias D = {};\nfn value(bits: u32) -> D {{ return {}; }}\n{WGSL_THREEFRY}{WGSL_IS_NAN}{}{}{}",
                    // randn's log and cos are the accurate helpers: drivers' are held only to
                    // 2^-21 absolute near 1 and 2^-11 (WGSL's bounds; SwiftShader's cos is that
                    // loose), which would part the devices' samples by far more than ulps.
                    storage_type(dtype),
                    scalar_from_bits(dtype),
                    crate::op::wgsl_math::WGSL_SPECIAL,
                    crate::op::wgsl_math::WGSL_LOG1P,
                    crate::op::wgsl_math::WGSL_SINCOS,
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
            KernelKey::Matmul { dtype, bias, program } => format!(
                "alias S = {};\nalias A = {};\n{}{}",
                storage_type(dtype),
                storage_type(accumulator(dtype)),
                if bias { MATMUL_BIAS } else { MATMUL_NO_BIAS },
                match program {
                    MatmulProgram::Register | MatmulProgram::Register4 => wgsl!("matmul_register_common"),
                    _ => "",
                }
            ),
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
            KernelKey::Optim { .. } => String::new(),
            KernelKey::OptimMulti { kind, slots } => optim_multi_prelude(kind, slots),
            KernelKey::Fused { kind, part, dtype } => format!(
                "alias D = {};\nconst PART: u32 = {}u;\n{}",
                storage_type(dtype),
                kind.part_constant(part),
                kind.wgsl_prelude(part)
            ),
        }
    }

    /// Whether only the wgpu backend launches this variant (vec4 programs whose parameters no
    /// CUDA kernel reads: CUDA's kernels take every layout, and it composes clamp; the register
    /// tiled matmul, where CUDA runs cuBLAS; the fused families' thread-per-row forms for software
    /// adapters); the CUDA
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
                | KernelKey::Matmul { program: MatmulProgram::Register | MatmulProgram::Register4, .. }
                | KernelKey::Matmul { bias: true, .. }
                | KernelKey::OptimMulti { .. }
                | KernelKey::Elementwise { vec4: true, .. }
                | KernelKey::Elementwise { lanes: 1..=u8::MAX, .. }
        ) || matches!(*self, KernelKey::Fused { kind, part, .. } if kind.wgsl_only(part))
    }

    /// Whether only the CUDA backend launches this variant (the per-tensor optimizer update,
    /// where wgpu updates several tensors a launch): it has no WGSL program.
    pub(crate) fn cuda_only(&self) -> bool {
        matches!(self, KernelKey::Optim { .. })
    }

    /// How the program walks its shape, for the variants that index by one (see [`Walk`]).
    fn walk(&self) -> Option<Walk> {
        match *self {
            KernelKey::Map { walk, .. }
            | KernelKey::Elementwise { walk, .. }
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
        let src = format!(
            "{enable}const WG: u32 = {WG}u;\nstruct Params {{ v: array<vec4<u32>, 16> }}\n\
             fn p(i: u32) -> u32 {{ return P.v[i / 4u][i % 4u]; }}\n{}{consts}{}\n{}",
            wgsl_consts(self.params()),
            self.variant_prelude(),
            self.body()
        );
        match *self {
            KernelKey::Fused { kind, part, .. } => match kind.wgsl_row_vec4s(part) {
                Some(vec4s) => expand_rows(&src, vec4s),
                None => src,
            },
            // The bias takes binding 3 and the parameters move to 4 (dispatch binds the
            // parameters after the buffers it is given).
            KernelKey::Matmul { bias: true, .. } => src.replace(MATMUL_PARAMS_BINDING, MATMUL_BIAS_BINDINGS),
            _ => src,
        }
    }
}

/// The matmul programs' epilogue without a bias: `epi` (an output at column `j`) and `epi4`
/// (four, from column `j`) store what the product computed.
const MATMUL_NO_BIAS: &str = "fn epi(v: A, j: u32) -> A { return v; }\n\
    fn epi4(v: vec4<A>, j: u32) -> vec4<A> { return v; }\n";

/// The epilogue with a bias: the bias's element of the output's column added, in the
/// accumulator's type, before the store rounds to the storage type.
const MATMUL_BIAS: &str = "fn epi(v: A, j: u32) -> A { return v + A(bias[p(P_BIAS_OFFSET) + j]); }\n\
    fn epi4(v: vec4<A>, j: u32) -> vec4<A> {\n\
    let o = p(P_BIAS_OFFSET) + j;\n\
    return v + vec4<A>(A(bias[o]), A(bias[o + 1u]), A(bias[o + 2u]), A(bias[o + 3u]));\n}\n";

/// Every matmul program's parameter binding, as written in its file.
const MATMUL_PARAMS_BINDING: &str = "@group(0) @binding(3) var<uniform> P: Params;";

/// What a bias variant binds there instead.
const MATMUL_BIAS_BINDINGS: &str =
    "@group(0) @binding(3) var<storage, read> bias: array<S>;\n@group(0) @binding(4) var<uniform> P: Params;";

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
