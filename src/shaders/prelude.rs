//! The text a variant's prelude is made of: element types, casts with the CPU's semantics,
//! the binary ops' `op`/`op4`, scalars from uniform words, the fused optimizer's bindings, and
//! the strided programs' index arithmetic (`udiv`, `walk`) and reductions' fold.

use crate::dtype::DType;
use crate::op::binary::BinaryOp;
use crate::op::optim::OptimKind;

/// The body of a cast kernel's `op(x: S) -> D`, with the CPU's semantics on special values: a
/// float is true unless it is ±0 (NaN is true); float to integer truncates, saturates at the
/// integer type's bounds (WGSL's own conversion stops at the largest f32 below them, 2147483520
/// for i32) and sends NaN to 0. NaN is found by its bits: WGSL compilers may assume no NaN.
pub(super) fn cast_body(src: DType, dst: DType) -> String {
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
pub(super) fn binary_prelude(op: BinaryOp, dtype: DType) -> String {
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
pub(super) fn scalar_from_bits(dtype: DType) -> &'static str {
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

/// The bindings of a multi-tensor optimizer variant (optim_multi.wgsl): `slots` read-only input
/// slots, then one flat output per written tensor, then the uniform; `load(slot, i)` reads
/// element `i` of a slot and `store` writes the outputs.
pub(super) fn optim_multi_prelude(kind: OptimKind, slots: u8) -> String {
    let states = kind.states();
    let mut src = format!("const KIND: u32 = {states}u;\n");
    let mut cases = String::new();
    for k in 0..slots {
        src += &format!("@group(0) @binding({k}) var<storage, read> in{k}: array<f32>;\n");
        cases += &format!(" case {k}u: {{ v = in{k}[i]; }}");
    }
    let mut writes = String::new();
    for (k, v) in ["w", "a", "b"].iter().take(1 + states).enumerate() {
        src += &format!("@group(0) @binding({}) var<storage, read_write> out{k}: array<f32>;\n", slots as usize + k);
        writes += &format!(" out{k}[i] = {v};");
    }
    src += &format!("@group(0) @binding({}) var<uniform> P: Params;\n", slots as usize + 1 + states);
    src + &format!(
        "fn load(slot: u32, i: u32) -> f32 {{ var v = 0.0; switch slot {{{cases} default: {{}} }} return v; }}\n\
         fn store(i: u32, w: f32, a: f32, b: f32) {{{writes} }}\n"
    )
}

/// `x / d` for the strided kernels' index arithmetic. Integer division has no vector
/// instruction on the CPU adapters (lavapipe, SwiftShader: each lane divides in turn, ~25 cycles
/// each) and is a long sequence on GPUs; a broadcast `[n,8] + [n,1]` spent most of its 27 ms
/// there. Below 2^24 both convert to f32 exactly and the f32 quotient (within 2.5 ulp in WGSL,
/// so at most 3 off) is stepped to the exact one with multiplies and compares, as selects:
/// software adapters run both sides of every branch, so the exact division beside it ran for
/// every lane whenever the program had one. A `narrow` program (see [`Walk`](super::Walk)) has none.
/// The three steps are written out: SwiftShader runs a WGSL loop as written, with a mask
/// check per pass, where LLVM (lavapipe) unrolls it. The kernels' walks peel dim 0 without
/// it: every index is below the element count, so what is left is dim 0's coordinate.
pub(super) fn udiv_source(narrow: bool) -> String {
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
/// its broadcasts 1.6x a plain add. With `dims` and `s` constant (RANK, see [`Walk`](super::Walk)) LLVM
/// unrolls it and every parameter index is constant (a dynamic one costs a load per lane on
/// the CPU adapters); an unused third offset folds away.
pub(super) const WALK: &str = "fn walk(i: u32, dims: u32, s: vec3<u32>) -> vec3<u32> {
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
pub(super) const REDUCE_FOLD: &str =
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
