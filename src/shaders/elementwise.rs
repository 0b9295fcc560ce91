//! The WGSL of the lazy tier's generated programs (`op::expr`): one thread per output element
//! reads each leaf at its offset plus the element's index (a leaf that is contiguous over the
//! output) or through its strides over the coalesced shape, or, where every leaf is contiguous
//! and vec4-aligned, one thread per four elements with vec4 loads (as the eager vec4 kernels:
//! on the CPU adapters a thread's overhead was most of a short op's cost), then runs the
//! program's ops as the eager kernels spell them (`UnaryOp::wgsl_float_guarded`, `BinaryOp::wgsl`, with their
//! helper pieces each included once) and writes the last value.
//! Params: `op::params::ElementwiseParams`.

use crate::dtype::DType;
use crate::op::expr::{Instr, Program, MAX_RANK};

/// `KernelKey::Elementwise`'s `lanes`: four positions of rows of whole fours a thread.
pub(crate) const LANES_ALIGNED: u8 = 1;
/// `KernelKey::Elementwise`'s `lanes`: rows in chunks of four positions, a chunk a thread.
pub(crate) const LANES_RAGGED: u8 = 2;

/// The program's bindings, helpers and entry point (the prelude's `p`, `udiv` and the
/// parameter constants come first). `rank` is the coalesced shape's; leaf `k` is read flat
/// where bit `k` of `flat` is set.
pub(super) fn render(program: &Program, rank: usize, flat: u8, vec4: bool, lanes: u8) -> String {
    let leaves = program.leaves();
    let bools = program.bool_leaves();
    let is_bool = |k: usize| bools & (1 << k) != 0;
    let elem = |word: &str| if vec4 { format!("vec4<{word}>") } else { word.to_string() };
    let mut src = String::new();
    for k in 0..leaves {
        // A condition is a bool tensor: a 32-bit word per element.
        let e = elem(if is_bool(k) { "u32" } else { "f32" });
        src += &format!("@group(0) @binding({k}) var<storage, read> l{k}: array<{e}>;\n");
    }
    src += &format!("@group(0) @binding({leaves}) var<storage, read_write> out: array<{}>;\n", elem("f32"));
    src += &format!("@group(0) @binding({}) var<uniform> P: Params;\n", leaves + 1);
    let mut helpers: Vec<&'static str> = Vec::new();
    let mut add = |list: Vec<&'static str>| {
        for h in list {
            if !helpers.contains(&h) {
                helpers.push(h);
            }
        }
    };
    for (r, i) in program.instrs().iter().enumerate() {
        match *i {
            Instr::Unary(u, _) => {
                add(u.wgsl_helper_list());
                src += &format!("fn op{r}(v: f32) -> f32 {{ return {}; }}\n", u.wgsl_float_guarded());
            }
            Instr::Binary(op, _, _) => {
                add(op.wgsl_helper_list_f32());
                src += &format!("fn op{r}(a: f32, b: f32) -> f32 {{ return {}; }}\n", op.wgsl(DType::F32));
            }
            Instr::Load(_) | Instr::LoadBool(_) | Instr::Scalar(_) | Instr::Select(..) => {}
        }
    }
    src += &helpers.concat();
    // The program over one position's leaf values.
    let args: Vec<String> = (0..leaves).map(|k| format!("x{k}: f32")).collect();
    src += &format!("fn eval({}) -> f32 {{\n", args.join(", "));
    for (r, i) in program.instrs().iter().enumerate() {
        src += &match *i {
            Instr::Load(k) | Instr::LoadBool(k) => format!("let v{r} = x{k};\n"),
            Instr::Scalar(k) => format!("let v{r} = bitcast<f32>(p(P_SCALARS + {k}u));\n"),
            Instr::Unary(_, a) => format!("let v{r} = op{r}(v{a});\n"),
            Instr::Binary(_, a, b) => format!("let v{r} = op{r}(v{a}, v{b});\n"),
            Instr::Select(c, a, b) => format!("let v{r} = select(v{b}, v{a}, v{c} != 0.0);\n"),
        };
    }
    src += &format!("return v{};\n}}\n", program.result());
    src += "@compute @workgroup_size(WG)\n\
            fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {\n\
            let i = gid.x + gid.y * nwg.x * WG;\n";
    if vec4 {
        // Every leaf flat and vec4-aligned: four positions per thread (the launch divides
        // the count and the offsets by four).
        src += "if (i >= p(P_NUMEL)) { return; }\n";
        for k in 0..leaves {
            src += &format!("let a{k} = l{k}[p(P_OFFSETS + {k}u) + i];\n");
        }
        let lane = |c: &str| (0..leaves).map(|k| format!("f32(a{k}.{c})")).collect::<Vec<_>>().join(", ");
        src += &format!(
            "out[i] = vec4<f32>(eval({}), eval({}), eval({}), eval({}));\n}}\n",
            lane("x"),
            lane("y"),
            lane("z"),
            lane("w")
        );
        return src;
    }
    // With `lanes`, four consecutive positions of one innermost row a thread: the walk's
    // divisions once per four, each lane a step of the leaf's innermost stride. Rows of whole
    // fours (`LANES_ALIGNED`) start at four times the thread; others chunk each row, whose last
    // chunk may hold fewer.
    let step = if lanes != 0 { 4 } else { 1 };
    let inner = rank.clamp(1, MAX_RANK) - 1;
    if lanes == LANES_ALIGNED {
        src += "let e = i * 4u;\nif (e >= p(P_NUMEL)) { return; }\n";
    } else if lanes != 0 {
        src += &format!(
            "let cols = p(P_SHAPE + {inner}u);\nlet chunks = (cols + 3u) / 4u;\nlet row = udiv(i, chunks);\n\
             let col = (i - row * chunks) * 4u;\nlet e = row * cols + col;\nif (e >= p(P_NUMEL)) {{ return; }}\n"
        );
    } else {
        src += "let e = i;\nif (e >= p(P_NUMEL)) { return; }\n";
    }
    let strided: Vec<usize> = (0..leaves).filter(|k| flat & (1 << k) == 0).collect();
    for &k in &strided {
        src += &format!("var o{k} = p(P_OFFSETS + {k}u);\n");
    }
    if !strided.is_empty() && rank > 0 {
        // The walk of every strided leaf at once, innermost dim first; dim 0's coordinate is
        // what is left (every index is below the element count). RANK is a constant of the
        // program, so the loop is written out and each parameter index is constant.
        src += "var rem = e;\n";
        for d in (1..rank.min(MAX_RANK)).rev() {
            src += &format!("{{ let size = p(P_SHAPE + {d}u); let q = udiv(rem, size); let c = rem - q * size;");
            for &k in &strided {
                src += &format!(" o{k} += c * p(P_STRIDES + {}u);", k * MAX_RANK + d);
            }
            src += " rem = q; }\n";
        }
        for &k in &strided {
            src += &format!("o{k} += rem * p(P_STRIDES + {}u);\n", k * MAX_RANK);
        }
    }
    for c in 0..step {
        let reads: Vec<String> = (0..leaves)
            .map(|k| match (flat & (1 << k) != 0, c) {
                (true, _) => format!("f32(l{k}[p(P_OFFSETS + {k}u) + e + {c}u])"),
                (false, 0) => format!("f32(l{k}[o{k}])"),
                (false, _) => format!("f32(l{k}[o{k} + {c}u * p(P_STRIDES + {}u)])", k * MAX_RANK + inner),
            })
            .collect();
        let store = format!("out[e + {c}u] = eval({});", reads.join(", "));
        src += &if c > 0 && lanes == LANES_RAGGED {
            format!("if (col + {c}u < cols) {{ {store} }}\n")
        } else {
            format!("{store}\n")
        };
    }
    src + "}\n"
}
