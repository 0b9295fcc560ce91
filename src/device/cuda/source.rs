//! CUDA C sources: one plain `.cu` file per kernel family (in `kernels/`) and a small generated
//! prelude per variant (type aliases, load/store conversions, the op function), as the WGSL
//! side does in `shaders/`. Variants are named by the same typed [`KernelKey`]; the op
//! expressions live beside their WGSL twins in `ops/` (one source of truth per op). Rendering
//! is pure, so it is compiled and unit-tested even without the `cuda` feature.
#![cfg_attr(not(all(feature = "cuda", not(target_arch = "wasm32"))), allow(dead_code))]

use crate::dtype::DType;
use crate::op::binary::BinaryOp;
use crate::op::param_layout::{cuda_struct, Field, KernelParams};
use crate::op::params::*;
use crate::op::reduce::ReduceOp;
use crate::op::{MapOp, MatmulProgram};
use crate::shaders::{accumulator, KernelKey, WG};

/// Every kernel's entry point (`extern "C"`, so the name is not mangled).
pub(crate) const ENTRY: &str = "k";

/// The C type that stores one element of `d` in device memory (bool is a 32-bit word, as on
/// wgpu, so one readback format serves both GPU backends).
fn storage(d: DType) -> &'static str {
    match d {
        DType::F32 => "float",
        DType::F16 => "unsigned short",
        DType::I32 | DType::I8 => "int",
        DType::U32 | DType::Bool | DType::U8 => "unsigned",
    }
}

/// The C type arithmetic on `d` happens in (f16 computes in f32).
fn compute(d: DType) -> &'static str {
    match d {
        DType::F32 | DType::F16 => "float",
        DType::I32 | DType::I8 => "int",
        DType::U32 | DType::Bool | DType::U8 => "unsigned",
    }
}

/// `x` (stored as `d`) as its compute type.
fn load(d: DType, x: &str) -> String {
    if d == DType::F16 {
        format!("h2f({x})")
    } else {
        x.to_string()
    }
}

/// `v` (a compute value) stored as `d`.
fn store(d: DType, v: &str) -> String {
    match d {
        DType::F16 => format!("f2h((float)({v}))"),
        _ => format!("({})({v})", storage(d)),
    }
}

/// A cast of compute value `v` of `src` to the compute type of `dst`, with the CPU's semantics:
/// float to int truncates and saturates, NaN becomes 0 (PTX `cvt.rzi` does exactly this).
fn convert(src: DType, dst: DType, v: &str) -> String {
    match dst {
        DType::F32 | DType::F16 => format!("(float)({v})"),
        DType::I32 if src.is_float() => format!("__float2int_rz({v})"),
        DType::U32 if src.is_float() => format!("__float2uint_rz({v})"),
        DType::I32 => format!("(int)({v})"),
        DType::U32 | DType::Bool => format!("(unsigned)({v})"),
        // The i32 cast, then the low 8 bits (u8: a mask; i8: a sign extension).
        DType::U8 => format!("((unsigned)({}) & 0xffu)", convert(src, DType::I32, v)),
        DType::I8 => format!("(int)(signed char)({})", convert(src, DType::I32, v)),
    }
}

/// The binary kernels' prelude: storage types and `op(a0, b0) -> D` (comparisons give a bool
/// word).
fn binary_prelude(op: BinaryOp, dtype: DType) -> String {
    let f = "__device__ __forceinline__";
    let (a, b) = (load(dtype, "a0"), load(dtype, "b0"));
    let expr = op.cuda(dtype.is_float());
    let (d, ret) = if op.is_comparison() {
        ("unsigned", format!("({expr}) ? 1u : 0u"))
    } else {
        (storage(dtype), store(dtype, expr))
    };
    let helpers = if op.is_comparison() { "" } else { crate::op::binary::CUDA_BINARY };
    format!(
        "typedef {} S;\ntypedef {d} D;\ntypedef {} C;\n{helpers}{f} D op(S a0, S b0) {{ C a = {a}; C b = {b}; return {ret}; }}\n",
        storage(dtype),
        compute(dtype)
    )
}

/// The expression turning a parameter word `bits` into `dtype`'s storage type, as
/// `shaders::scalar_bits` packs it (f16 travels as f32 bits).
fn value_from_bits(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 => "__uint_as_float(bits)",
        DType::F16 => "f2h(__uint_as_float(bits))",
        DType::I32 | DType::I8 => "(int)bits",
        DType::U32 | DType::Bool | DType::U8 => "bits",
    }
}

/// The body of the variants only wgpu launches ([`KernelKey::wgsl_only`]): should one ever reach
/// NVRTC, it fails there by name instead of compiling some other kernel.
const WGSL_ONLY: &str = "#error a WGSL-only kernel variant reached the CUDA backend\n";

fn body(key: &KernelKey) -> &'static str {
    match key {
        KernelKey::Map { .. } | KernelKey::Map4 { .. } => include_str!("kernels/map.cu"),
        // The vec4 forms are a WGSL concern; CUDA's broadcast kernel takes every layout.
        KernelKey::Binary { .. } | KernelKey::Binary4 { .. } => include_str!("kernels/binary.cu"),
        KernelKey::BinaryRows4 { .. }
        | KernelKey::WhereRows4 { .. }
        | KernelKey::IndexRows4 { .. }
        | KernelKey::Clamp4
        | KernelKey::ReduceSum4
        | KernelKey::Pad { .. }
        | KernelKey::Elementwise { vec4: true, .. }
        | KernelKey::Elementwise { lanes: 1..=u8::MAX, .. }
        | KernelKey::OptimMulti { .. }
        | KernelKey::Matmul { program: MatmulProgram::Register | MatmulProgram::Register4, .. }
        | KernelKey::Matmul { bias: true, .. } => WGSL_ONLY,
        // Generated whole by `variant`.
        KernelKey::Elementwise { .. } => "",
        KernelKey::BinaryScalar { .. } | KernelKey::BinaryScalar4 { .. } => include_str!("kernels/binary_scalar.cu"),
        KernelKey::Where { .. } => include_str!("kernels/where.cu"),
        KernelKey::Fill { .. } => include_str!("kernels/fill.cu"),
        KernelKey::Reduce { .. } => include_str!("kernels/reduce.cu"),
        KernelKey::ReduceSmall { .. } => include_str!("kernels/reduce_small.cu"),
        KernelKey::ReduceStrided { .. } => include_str!("kernels/reduce_strided.cu"),
        KernelKey::Softmax { .. } => include_str!("kernels/softmax.cu"),
        KernelKey::Matmul { program: MatmulProgram::Tiled, .. } => include_str!("kernels/matmul.cu"),
        // Blocked4's vec4 loads are a WGSL concern; the blocked kernel takes any layout.
        KernelKey::Matmul { program: MatmulProgram::Blocked | MatmulProgram::Blocked4, .. } => {
            include_str!("kernels/matmul_blocked.cu")
        }
        KernelKey::Matmul { program: MatmulProgram::Naive, .. } => include_str!("kernels/matmul_naive.cu"),
        KernelKey::Matmul { program: MatmulProgram::Dot, .. } => include_str!("kernels/matmul_dot.cu"),
        KernelKey::Sort { .. } => include_str!("kernels/sort.cu"),
        KernelKey::Select { .. } => include_str!("kernels/select.cu"),
        KernelKey::Index { .. } => include_str!("kernels/index.cu"),
        KernelKey::IndexAdd { .. } => include_str!("kernels/index_add.cu"),
        KernelKey::Optim { .. } => include_str!("kernels/optim.cu"),
        KernelKey::Fused { kind, part, .. } if kind.wgsl_only(*part) => WGSL_ONLY,
        KernelKey::Fused { kind, part, .. } => kind.cuda(*part),
    }
}

fn variant(key: &KernelKey) -> String {
    let f = "__device__ __forceinline__";
    match *key {
        KernelKey::Map { op, src, dst, .. } | KernelKey::Map4 { op, src, dst } => {
            let x = load(src, "x");
            let body = match op {
                MapOp::Unary(u) if src.is_float() => format!("float v = {x}; return {};", store(dst, u.cuda_float())),
                MapOp::Unary(u) => format!("{} v = x; return {};", compute(src), u.cuda_int(src)),
                MapOp::Cast if dst == DType::Bool => format!("return ({x}) != 0 ? 1u : 0u;"),
                MapOp::Cast if storage(src) == storage(dst) && (src == dst || !dst.is_narrow()) => "return x;".into(),
                MapOp::Cast => format!("return {};", store(dst, &convert(src, dst, &x))),
            };
            let helpers = match op {
                MapOp::Unary(u) => u.cuda_helpers(),
                MapOp::Cast => "",
            };
            format!("typedef {} S;\ntypedef {} D;\n{helpers}{f} D op(S x) {{ {body} }}\n", storage(src), storage(dst))
        }
        KernelKey::Binary { op, dtype, .. } | KernelKey::Binary4 { op, dtype } => binary_prelude(op, dtype),
        KernelKey::BinaryRows4 { .. }
        | KernelKey::WhereRows4 { .. }
        | KernelKey::IndexRows4 { .. }
        | KernelKey::Clamp4
        | KernelKey::ReduceSum4
        | KernelKey::Pad { .. } => String::new(),
        KernelKey::BinaryScalar { op, dtype } | KernelKey::BinaryScalar4 { op, dtype } => {
            format!("{}{f} S scalar(unsigned bits) {{ return {}; }}\n", binary_prelude(op, dtype), value_from_bits(dtype))
        }
        KernelKey::Where { dtype, .. } => format!("typedef {} S;\n", storage(dtype)),
        KernelKey::Fill { dtype } => {
            format!("typedef {} D;\n{f} D value(unsigned bits) {{ return {}; }}\n", storage(dtype), value_from_bits(dtype))
        }
        KernelKey::Fused { kind, part, dtype } => format!(
            "#define PART {}\ntypedef {} D;\n{f} float load(D x) {{ return {}; }}\n{f} D store(float v) {{ return {}; }}\n{}",
            kind.part_constant(part),
            storage(dtype),
            load(dtype, "x"),
            store(dtype, "v"),
            kind.cuda_prelude(part)
        ),
        KernelKey::Reduce { op, src, dst }
        | KernelKey::ReduceSmall { op, src, dst }
        | KernelKey::ReduceStrided { op, src, dst } => {
            let acc = accumulator(src);
            let finish = if op.is_arg() { "(D)(int)idx".to_string() } else { store(dst, "acc") };
            let identity = if op == ReduceOp::Prod { "(A)1" } else { "(A)0" };
            format!(
                "typedef {} S;\ntypedef {} A;\ntypedef {} D;\n#define SELECT {}\n\
                 {f} A load(S x) {{ return (A)({}); }}\n\
                 {f} bool better(A v, A acc) {{ return {}; }}\n\
                 {f} A combine(A acc, A v) {{ return {}; }}\n\
                 {f} A identity() {{ return {identity}; }}\n\
                 {f} D finish(A acc, u64 idx) {{ return {finish}; }}\n{REDUCE_FOLD}",
                storage(src),
                compute(acc),
                storage(dst),
                !matches!(op, ReduceOp::Sum | ReduceOp::Prod),
                load(src, "x"),
                op.cuda_better(src.is_float()),
                op.cuda_combine(src.is_float()),
            )
        }
        KernelKey::Softmax { log, dtype } => format!(
            "typedef {} S;\n#define LOG {log}\n{f} float load(S x) {{ return {}; }}\n{f} S store(float v) {{ return {}; }}\n",
            storage(dtype),
            load(dtype, "x"),
            store(dtype, "v")
        ),
        KernelKey::Matmul { dtype, .. } => {
            // Integers accumulate in unsigned so that overflow wraps like the CPU's.
            let acc = if dtype.is_float() { "float" } else { "unsigned" };
            format!(
                "typedef {} S;\ntypedef {acc} A;\ntypedef {} C;\n{f} C load(S x) {{ return {}; }}\n{f} S store(C v) {{ return {}; }}\n",
                storage(dtype),
                compute(dtype),
                load(dtype, "x"),
                store(dtype, "v")
            )
        }
        KernelKey::Sort { dtype } | KernelKey::Select { dtype } => format!("typedef {} S;\n{}", storage(dtype), crate::op::sort::cuda_key(dtype)),
        KernelKey::Index { dtype, index, .. } => format!("typedef {} S;\ntypedef {} I;\n", storage(dtype), storage(index)),
        KernelKey::IndexAdd { dtype, index, .. } => {
            // Integers add in unsigned so that overflow wraps like the CPU's.
            let acc = if dtype.is_float() { "float" } else { "unsigned" };
            format!(
                "typedef {} S;\ntypedef {} I;\ntypedef {acc} A;\n{f} A load(S x) {{ return (A)({}); }}\n\
                 {f} A add(A a, A b) {{ return a + b; }}\n{f} S store(A v) {{ return {}; }}\n",
                storage(dtype),
                storage(index),
                load(dtype, "x"),
                store(dtype, "v")
            )
        }
        KernelKey::Optim { kind } => format!("#define KIND {}\n", kind.states()),
        KernelKey::OptimMulti { .. } => String::new(),
        KernelKey::Elementwise { vec4: true, .. } | KernelKey::Elementwise { lanes: 1..=u8::MAX, .. } => String::new(),
        KernelKey::Elementwise { program, walk, flat, .. } => match crate::op::expr::program(program) {
            Some(p) => super::elementwise_source::render(&p, walk.rank as usize, flat),
            None => "#error no lazy-tier program has this id\n".into(),
        },
    }
}

/// How a reduction absorbs value `v` at index `j`, as REDUCE_FOLD does in WGSL: the first value
/// starts the accumulator; a selecting reduction keeps the better value and its index.
const REDUCE_FOLD: &str = "__device__ __forceinline__ void fold(A& acc, u64& idx, bool& has, A v, u64 j) {
    if (!has) {
        acc = v;
        idx = j;
        has = true;
    } else if (SELECT) {
        if (better(v, acc)) {
            acc = v;
            idx = j;
        }
    } else {
        acc = combine(acc, v);
    }
}
";

/// The fields of the parameter struct a variant's CUDA body reads (`op::params`; the vec4 keys
/// render the scalar bodies, whose layouts they take).
pub(crate) fn params(key: &KernelKey) -> &'static [Field] {
    match key {
        KernelKey::Map { .. } | KernelKey::Map4 { .. } => MapParams::FIELDS,
        KernelKey::Binary { .. } | KernelKey::Binary4 { .. } => BinaryParams::FIELDS,
        KernelKey::BinaryScalar { .. } | KernelKey::BinaryScalar4 { .. } => ScalarParams::FIELDS,
        KernelKey::Where { .. } => WhereParams::FIELDS,
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
        KernelKey::IndexAdd { .. } => IndexAddParams::FIELDS,
        KernelKey::Optim { .. } => OptimParams::FIELDS,
        KernelKey::Fused { kind, .. } => kind.params(),
        // WGSL-only programs: their CUDA body is an #error.
        KernelKey::BinaryRows4 { .. }
        | KernelKey::WhereRows4 { .. }
        | KernelKey::IndexRows4 { .. }
        | KernelKey::Clamp4
        | KernelKey::ReduceSum4
        | KernelKey::Elementwise { vec4: true, .. }
        | KernelKey::Elementwise { lanes: 1..=u8::MAX, .. }
        | KernelKey::OptimMulti { .. }
        | KernelKey::Pad { .. } => &[],
        KernelKey::Elementwise { .. } => ElementwiseParams::FIELDS,
    }
}

/// The full CUDA C source of a variant.
pub(crate) fn render(key: &KernelKey) -> String {
    format!(
        "#define WG {WG}\n{}\n{}{}\n{}",
        include_str!("kernels/prelude.cu"),
        cuda_struct(params(key)),
        variant(key),
        body(key)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_renders_one_entry_point() {
        for key in crate::shaders::all_variants().into_iter().filter(|k| !k.wgsl_only()) {
            // A kernel may name its block size for the compiler (`__launch_bounds__(BR)`).
            let src = render(&key).replace("void __launch_bounds__(BR) k(", "void k(");
            assert_eq!(src.matches("extern \"C\" __global__ void k(").count(), 1, "{key:?}");
            // Every type the body uses is defined by the variant's prelude.
            for alias in ["S", "D", "A", "I", "C"] {
                let used = body(&key).contains(&format!("{alias}*")) || body(&key).contains(&format!(" {alias} "));
                if used {
                    assert!(src.contains(&format!(" {alias};\n")), "{key:?} uses {alias} without defining it");
                }
            }
        }
    }

    #[test]
    fn kernels_read_parameters_by_name() {
        for key in crate::shaders::all_variants().into_iter().filter(|k| !k.wgsl_only()) {
            assert!(!body(&key).contains("P.v["), "{key:?} reads a parameter word by number");
            assert!(render(&key).contains("struct Params { u64 "), "{key:?} has no parameter struct");
        }
    }

    #[test]
    fn casts_follow_the_cpu() {
        assert_eq!(convert(DType::F32, DType::I32, "v"), "__float2int_rz(v)");
        assert_eq!(convert(DType::F16, DType::U32, "v"), "__float2uint_rz(v)");
        assert_eq!(store(DType::F16, "v"), "f2h((float)(v))");
        let bool_cast = variant(&KernelKey::Map {
            op: MapOp::Cast,
            src: DType::F16,
            dst: DType::Bool,
            walk: crate::shaders::Walk::DYNAMIC,
        });
        assert!(bool_cast.contains("(h2f(x)) != 0 ? 1u : 0u"), "{bool_cast}");
    }
}
